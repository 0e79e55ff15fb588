"""Helpers for the host-module tests: payload fixtures and real `ctxmode hook` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def load_fixture(platform: str, name: str) -> dict:
    return json.loads((FIXTURES / platform / f"{name}.json").read_text(encoding="utf-8"))


@pytest.fixture
def fixture_payload():
    """`fixture_payload(platform, name)` -> the parsed payload of tests/fixtures/<platform>/<name>.json."""
    return load_fixture


@pytest.fixture
def run_hook(tmp_path: Path):
    """Run `python -m ctxmode hook <platform> <event>` with `stdin` (dict, str or bytes).

    MCP-gated redirects fire (`CTXMODE_MCP_READY=1`) unless `env` says otherwise; the
    project dir and the data root are temp dirs (the data root from the autouse fixture).
    """

    def run(
        platform: str, event: str, stdin: object = b"", env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess:
        if isinstance(stdin, dict):
            stdin = json.dumps(stdin)
        if isinstance(stdin, str):
            stdin = stdin.encode("utf-8")
        child_env = dict(os.environ)
        child_env["CTXMODE_MCP_READY"] = "1"
        child_env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "no-user-settings")  # not ~/.claude
        child_env.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "ctxmode", "hook", platform, event],
            input=stdin,
            capture_output=True,
            env=child_env,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )

    return run


@pytest.fixture
def ask_project(tmp_path: Path) -> str:
    """A project whose permission rules ask before `git push` (routing asks for it)."""
    project = tmp_path / "ask-project"
    (project / ".claude").mkdir(parents=True)
    rules = {"permissions": {"ask": ["Bash(git push:*)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(rules), encoding="utf-8")
    return str(project)
