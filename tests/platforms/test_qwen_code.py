"""Qwen Code: Claude's envelopes, Qwen's tool names, `mcp__context-mode__` naming."""

from __future__ import annotations

import json

import pytest

from ctxmode.platforms import qwen_code
from ctxmode.vocab import event as ev


def envelope(completed) -> dict:
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_run_shell_command_curl_is_denied_with_qwen_tool_names(run_hook, fixture_payload):
    payload = fixture_payload("qwen-code", "pretooluse-shell-curl")
    hso = envelope(run_hook("qwen-code", "pretooluse", payload))["hookSpecificOutput"]
    assert hso["permissionDecision"] == "deny"
    assert "mcp__context-mode__ctx_execute" in hso["permissionDecisionReason"]
    assert "plugin_context-mode" not in hso["permissionDecisionReason"]


def test_bounded_shell_command_passes(run_hook, fixture_payload):
    completed = run_hook(
        "qwen-code", "pretooluse", fixture_payload("qwen-code", "pretooluse-shell-git-status")
    )
    assert (completed.returncode, completed.stdout) == (0, b"")


def test_read_file_and_grep_search_get_no_tips(run_hook, fixture_payload):
    # Measured on Qwen Code 0.24.4: a PreToolUse additionalContext never reaches the model.
    for name in ("pretooluse-read-file", "pretooluse-grep-search"):
        completed = run_hook("qwen-code", "pretooluse", fixture_payload("qwen-code", name))
        assert (completed.returncode, completed.stdout) == (0, b"")


def test_web_fetch_is_denied(run_hook, fixture_payload):
    hso = envelope(
        run_hook("qwen-code", "pretooluse", fixture_payload("qwen-code", "pretooluse-web-fetch"))
    )["hookSpecificOutput"]
    assert hso["permissionDecision"] == "deny"
    assert "https://docs.example.com" in hso["permissionDecisionReason"]


@pytest.mark.parametrize("fixture", ["pretooluse-agent", "pretooluse-ctx-batch"])
def test_rewrites_are_not_sent_since_qwen_code_runs_the_models_arguments(
    run_hook, fixture_payload, fixture
):
    # Measured on Qwen Code 0.24.4: a PreToolUse updatedInput only reaches the next hook.
    completed = run_hook("qwen-code", "pretooluse", fixture_payload("qwen-code", fixture))
    assert (completed.returncode, completed.stdout) == (0, b"")


def test_session_start_and_no_op_events(run_hook, fixture_payload):
    hso = envelope(
        run_hook("qwen-code", "sessionstart", fixture_payload("qwen-code", "sessionstart"))
    )["hookSpecificOutput"]
    assert hso["hookEventName"] == "SessionStart"
    assert "mcp__context-mode__ctx_search" in hso["additionalContext"]
    for event, name, expected in (
        ("precompact", "precompact", b"{}"),
        ("stop", "stop", b"{}"),
        ("userpromptsubmit", "userpromptsubmit", b""),
    ):
        completed = run_hook("qwen-code", event, fixture_payload("qwen-code", name))
        assert (completed.returncode, completed.stdout.strip()) == (0, expected), event


def test_stop_is_dispatched_although_the_reference_forgot_it():
    assert qwen_code.EVENTS["stop"] == ev.STOP


def test_read_file_absolute_path_is_the_read_path():
    event = qwen_code.parse(
        {"tool_name": "read_file", "tool_input": {"absolute_path": "/a/b.py"}}, "pretooluse"
    )
    assert (event.tool, event.tool_input["file_path"]) == ("Read", "/a/b.py")


def test_session_id_chain(monkeypatch):
    monkeypatch.delenv("QWEN_SESSION_ID", raising=False)
    monkeypatch.setenv("CLAUDE_SESSION_ID", "claude-env")
    assert qwen_code.parse({"session_id": "s1"}, "stop").session_id == "s1"
    assert qwen_code.parse({}, "stop").session_id == "claude-env"
    monkeypatch.setenv("QWEN_PROJECT_DIR", "/qwen-project")
    assert qwen_code.parse({}, "stop").project_dir == "/qwen-project"
