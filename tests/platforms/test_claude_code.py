"""Claude Code: the exact envelopes real `ctxmode hook claude-code <event>` processes write."""

from __future__ import annotations

import json

import pytest

from ctxmode.platforms import claude_code
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision

SESSION = "9f1c2d3e-0000-4000-8000-00000000c1a0"


def envelope(completed) -> dict:
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_curl_is_denied_with_the_redirect_guidance(run_hook, fixture_payload):
    out = envelope(
        run_hook(
            "claude-code", "pretooluse", fixture_payload("claude-code", "pretooluse-bash-curl")
        )
    )
    hso = out["hookSpecificOutput"]
    assert set(hso) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert hso["hookEventName"] == "PreToolUse"
    assert hso["permissionDecision"] == "deny"
    reason = hso["permissionDecisionReason"]
    assert "mcp__context-mode__ctx_execute" in reason
    assert "mcp__context-mode__ctx_fetch_and_index" in reason
    assert not reason.startswith("echo")


def test_curl_passes_through_without_a_live_mcp_server(run_hook, fixture_payload):
    payload = fixture_payload("claude-code", "pretooluse-bash-curl")
    completed = run_hook("claude-code", "pretooluse", payload, env={"CTXMODE_MCP_READY": "0"})
    assert completed.returncode == 0
    assert completed.stdout == b""


def test_a_subagent_is_never_redirected_to_tools_it_cannot_call(run_hook, fixture_payload):
    completed = run_hook(
        "claude-code", "pretooluse", fixture_payload("claude-code", "pretooluse-subagent-curl")
    )
    assert completed.returncode == 0
    assert completed.stdout == b""


def test_bounded_command_is_a_silent_passthrough(run_hook, fixture_payload):
    completed = run_hook(
        "claude-code", "pretooluse", fixture_payload("claude-code", "pretooluse-bash-ls")
    )
    assert (completed.returncode, completed.stdout) == (0, b"")


def test_unbounded_command_gets_the_nudge_once_per_session(run_hook, fixture_payload):
    payload = fixture_payload("claude-code", "pretooluse-bash-node")
    only_bulky = {"CTXMODE_WRAP_EVERY": "off"}
    first = envelope(run_hook("claude-code", "pretooluse", payload, env=only_bulky))
    assert set(first["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert "<context_guidance>" in first["hookSpecificOutput"]["additionalContext"]
    second = run_hook("claude-code", "pretooluse", payload, env=only_bulky)
    assert (second.returncode, second.stdout) == (0, b"")


def test_by_default_every_command_the_wrapper_runs_unchanged_is_wrapped(run_hook, fixture_payload):
    payload = fixture_payload("claude-code", "pretooluse-bash-node")
    hso = envelope(run_hook("claude-code", "pretooluse", payload))["hookSpecificOutput"]
    assert hso["updatedInput"]["command"].endswith(
        "ctxmode-wrap --host claude-code -- node scripts/report.js"
    )


@pytest.mark.parametrize("fixture", ["pretooluse-bash-gradle", "pretooluse-bash-npm-test"])
def test_bulky_command_runs_through_the_wrapper(run_hook, fixture_payload, fixture):
    payload = fixture_payload("claude-code", fixture)
    hso = envelope(run_hook("claude-code", "pretooluse", payload))["hookSpecificOutput"]
    assert set(hso) == {"hookEventName", "updatedInput"}  # Claude Code runs it as given
    wrapped = hso["updatedInput"]["command"]
    assert "ctxmode-wrap --host" in wrapped
    assert wrapped.endswith(" --host claude-code -- " + payload["tool_input"]["command"])


def test_webfetch_is_denied_naming_the_url(run_hook, fixture_payload):
    out = envelope(
        run_hook("claude-code", "pretooluse", fixture_payload("claude-code", "pretooluse-webfetch"))
    )
    hso = out["hookSpecificOutput"]
    assert hso["permissionDecision"] == "deny"
    assert '"https://docs.example.com/guide"' in hso["permissionDecisionReason"]


def test_agent_prompt_gets_the_routing_block_as_updated_input(run_hook, fixture_payload):
    payload = fixture_payload("claude-code", "pretooluse-agent")
    out = envelope(run_hook("claude-code", "pretooluse", payload))
    hso = out["hookSpecificOutput"]
    assert set(hso) == {"hookEventName", "updatedInput"}
    updated = hso["updatedInput"]
    assert updated["description"] == "Find usages"
    assert updated["prompt"].startswith("Find every caller of parse_config.\n\n<ctxmode_routing>")
    assert "ToolSearch" in updated["prompt"]
    assert "ctx stats" not in updated["prompt"]  # subagents cannot run the utility commands
    assert updated["subagent_type"] == "general-purpose"


def test_own_shell_tool_gets_its_cwd_pinned_to_the_project(run_hook, fixture_payload):
    out = envelope(
        run_hook(
            "claude-code", "pretooluse", fixture_payload("claude-code", "pretooluse-ctx-execute")
        )
    )
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {"language": "shell", "code": "ls", "cwd": "/p"},
        }
    }


def test_read_and_grep_and_external_mcp_get_context(run_hook, fixture_payload):
    for name in ("pretooluse-read", "pretooluse-grep", "pretooluse-external-mcp"):
        out = envelope(run_hook("claude-code", "pretooluse", fixture_payload("claude-code", name)))
        assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}, name


def test_session_start_injects_the_routing_block(run_hook, fixture_payload):
    out = envelope(
        run_hook(
            "claude-code", "sessionstart", fixture_payload("claude-code", "sessionstart-startup")
        )
    )
    hso = out["hookSpecificOutput"]
    assert hso["hookEventName"] == "SessionStart"
    assert "mcp__context-mode__ctx_batch_execute" in hso["additionalContext"]
    assert len(hso["additionalContext"].encode()) <= 2048


def test_resumed_session_start_does_not_repeat_the_routing_block(run_hook, fixture_payload):
    payload = {**fixture_payload("claude-code", "sessionstart-startup"), "source": "resume"}
    completed = run_hook("claude-code", "sessionstart", payload)
    assert completed.returncode == 0
    assert b"<ctxmode_routing>" not in completed.stdout


def test_session_start_injects_nothing_when_routing_is_off(run_hook, fixture_payload):
    payload = fixture_payload("claude-code", "sessionstart-startup")
    completed = run_hook("claude-code", "sessionstart", payload, env={"CTXMODE_ROUTING": "off"})
    assert (completed.returncode, completed.stdout) == (0, b"")


@pytest.mark.parametrize(
    ("event", "fixture", "expected"),
    [
        ("precompact", "precompact-auto", b"{}"),
        ("stop", "stop", b"{}"),
        ("userpromptsubmit", "userpromptsubmit", b""),
        ("posttooluse", "posttooluse-bash", b""),
    ],
)
def test_other_events_answer_the_host_no_op(run_hook, fixture_payload, event, fixture, expected):
    completed = run_hook("claude-code", event, fixture_payload("claude-code", fixture))
    assert (completed.returncode, completed.stdout.strip()) == (0, expected)


def test_malformed_stdin_still_answers_the_no_op(run_hook):
    for event, expected in (("precompact", b"{}"), ("pretooluse", b"")):
        completed = run_hook("claude-code", event, b'{"tool_name": "Bash", "tool_in')
        assert (completed.returncode, completed.stdout.strip()) == (0, expected)


def test_ask_carries_its_reason_for_the_user():
    event = claude_code.parse({"tool_name": "Bash"}, "pretooluse")
    out = claude_code.render(event, Decision.ask("matches ask rule Bash(git push:*)"))
    assert json.loads(out.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "matches ask rule Bash(git push:*)",
        }
    }
    bare = claude_code.render(event, Decision.ask())
    assert json.loads(bare.stdout)["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "ask",
    }


def test_oversized_external_mcp_output_is_replaced_in_the_same_shape():
    text = "line\n" * 20_000
    payload = {
        "tool_name": "mcp__github__list_issues",
        "tool_response": [{"type": "text", "text": text}],
    }
    event = claude_code.parse(payload, "posttooluse")
    out = claude_code.render(event, Decision.replace_output("short"))
    assert json.loads(out.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedMCPToolOutput": [{"type": "text", "text": "short"}],
        }
    }


def test_session_id_prefers_the_transcript_uuid(monkeypatch):
    monkeypatch.setenv("CLAUDE_SESSION_ID", "from-env")
    transcript = {"transcript_path": f"/x/{SESSION}.jsonl", "session_id": "other"}
    assert claude_code.parse(transcript, "stop").session_id == SESSION
    not_uuid = {"transcript_path": "/x/notes.jsonl", "session_id": "other"}
    assert claude_code.parse(not_uuid, "stop").session_id == "other"
    assert claude_code.parse({}, "stop").session_id == "from-env"
    monkeypatch.delenv("CLAUDE_SESSION_ID")
    assert claude_code.parse({}, "stop").session_id.startswith("pid-")


def test_project_dir_chain(monkeypatch, tmp_path):
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", "/from-env")
    assert claude_code.parse({"cwd": "/payload"}, "pretooluse").project_dir == "/payload"
    assert claude_code.parse({"workspace_roots": ["/root0"]}, "pretooluse").project_dir == "/root0"
    assert claude_code.parse({"cwd": 7}, "pretooluse").project_dir == "/from-env"
    monkeypatch.delenv("CLAUDE_PROJECT_DIR")
    monkeypatch.chdir(tmp_path)
    assert claude_code.parse({}, "pretooluse").project_dir == str(tmp_path)


def test_every_event_of_the_dispatch_table_is_mapped():
    assert set(claude_code.EVENTS) >= {
        "pretooluse", "posttooluse", "precompact", "sessionstart", "userpromptsubmit", "stop"
    }  # fmt: skip
    assert claude_code.EVENTS["sessionstart"] == ev.SESSION_START
