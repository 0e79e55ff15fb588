"""`ctxmode hook` through the click command (the console entry bypasses it; tests and
`python -c 'from ctxmode.cli import cli; cli()'` do not)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner, Result

from ctxmode.cli import cli


@pytest.fixture(autouse=True)
def no_user_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))


def hook(*args: str, payload: object = None) -> Result:
    stdin = json.dumps(payload if payload is not None else {})
    return CliRunner().invoke(cli, ["hook", *args], input=stdin)


def test_a_big_tool_output_is_replaced_by_a_notice():
    payload = {
        "tool_name": "Bash",
        "tool_input": {"command": "cat big"},
        "tool_response": {"stdout": "y" * 1_000_000},
    }
    result = hook("claude-code", "posttooluse", payload=payload)
    assert result.exit_code == 0, result.output
    notice = json.loads(result.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert "indexed" in notice


def test_an_unknown_event_exits_0_with_a_note():
    result = hook("claude-code", "nosuchevent")
    assert result.exit_code == 0
    assert "unknown claude-code event 'nosuchevent'" in result.stderr


def test_an_unknown_platform_exits_0_and_answers_nothing():
    result = hook("no-such-host", "pretooluse")
    assert (result.exit_code, result.stdout) == (0, "")
