"""Cursor host module: stdout is never empty, and deny reasons reach the model."""

from __future__ import annotations

import json

import pytest

from ctxmode.platforms import cursor
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision

P = "/tmp/ctxmode-fixture-project"


def out(event, decision):
    output = cursor.render(event, decision)
    assert output.exit_code == 0 and output.stderr == "" and output.stdout
    return json.loads(output.stdout)


@pytest.mark.parametrize(
    ("name", "tool"),
    [("pretooluse-bash-curl", "Bash"), ("pretooluse-read", "Read"),
     ("pretooluse-webfetch", "WebFetch"), ("pretooluse-mcp-external", "MCP:list_issues")],
)  # fmt: skip
def test_tool_names(fixture_payload, name, tool):
    event = cursor.parse(fixture_payload("cursor", name), "pretooluse")
    assert (event.event, event.tool) == (ev.PRE_TOOL_USE, tool)
    assert event.session_id == "cursor-conv-001" and event.project_dir == P


def test_session_and_project_fallbacks(monkeypatch):
    monkeypatch.setenv("CURSOR_SESSION_ID", "env-session")
    monkeypatch.setenv("CURSOR_CWD", "/env/project")
    event = cursor.parse({"tool_name": "Shell"}, "pretooluse")
    assert (event.session_id, event.project_dir) == ("env-session", "/env/project")
    roots = cursor.parse({"workspace_roots": ["/ws"], "conversation_id": "c"}, "stop")
    assert (roots.session_id, roots.project_dir) == ("c", "/ws")


def test_other_payload_fields(fixture_payload):
    post = cursor.parse(fixture_payload("cursor", "posttooluse"), "posttooluse")
    assert post.tool_output == "On branch main"
    for source in ("startup", "resume", "clear", "compact"):
        start = cursor.parse(fixture_payload("cursor", f"sessionstart-{source}"), "sessionstart")
        assert start.source == source
    reply = cursor.parse(fixture_payload("cursor", "afteragentresponse"), "afteragentresponse")
    assert reply.event == ev.AFTER_AGENT_RESPONSE and reply.tool_output.startswith("I updated")


def test_pretooluse_envelopes(fixture_payload):
    event = cursor.parse(fixture_payload("cursor", "pretooluse-bash-curl"), "pretooluse")
    assert out(event, Decision.deny("why")) == {
        "permission": "deny",
        "user_message": "why",
        "agent_message": "why",
    }
    assert out(event, Decision.ask()) == {"permission": "ask"}
    redirect = Decision.redirect("sandbox", event.tool_input)
    assert out(event, redirect) == {"updated_input": {"command": 'echo "sandbox"'}}
    assert out(event, Decision.add_context("tip")) == {"agent_message": "tip"}
    assert out(event, None) == {"agent_message": ""}


def test_lifecycle_envelopes(fixture_payload):
    def parsed(name, cli):
        return cursor.parse(fixture_payload("cursor", name), cli)

    start = parsed("sessionstart-startup", "sessionstart")
    assert out(start, Decision.add_context("<block/>")) == {"additional_context": "<block/>"}
    assert out(start, None) == {"additional_context": ""}
    assert out(parsed("posttooluse", "posttooluse"), None) == {"additional_context": ""}
    assert out(parsed("afteragentresponse", "afteragentresponse"), None) == {
        "additional_context": ""
    }
    assert out(parsed("beforesubmitprompt", "beforesubmitprompt"), None) == {"continue": True}
    assert out(parsed("stop", "stop"), None) == {}  # no followup_message: the loop ends


# ------------------------------------------------------------ real hook processes


def hook_json(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # Cursor: never empty


def test_process_curl_is_rewritten(run_hook, fixture_payload):
    answer = hook_json(
        run_hook("cursor", "pretooluse", fixture_payload("cursor", "pretooluse-bash-curl"))
    )
    assert set(answer) == {"updated_input"}
    assert (
        answer["updated_input"]["command"].startswith('echo "')
        and "ctx_execute" in answer["updated_input"]["command"]
    )


def test_process_webfetch_deny_reaches_the_model(run_hook, fixture_payload):
    answer = hook_json(
        run_hook("cursor", "pretooluse", fixture_payload("cursor", "pretooluse-webfetch"))
    )
    assert answer["permission"] == "deny"
    assert (
        answer["agent_message"] == answer["user_message"]
        and "ctx_fetch_and_index" in answer["agent_message"]
    )


def test_process_external_mcp_nudge_and_ls_no_op(run_hook, fixture_payload):
    nudge = hook_json(
        run_hook("cursor", "pretooluse", fixture_payload("cursor", "pretooluse-mcp-external"))
    )
    assert set(nudge) == {"agent_message"} and nudge["agent_message"]
    assert hook_json(
        run_hook("cursor", "pretooluse", fixture_payload("cursor", "pretooluse-bash-ls"))
    ) == {"agent_message": ""}


def test_process_ask_rule(run_hook, fixture_payload, ask_project):
    payload = fixture_payload("cursor", "pretooluse-bash-ls")
    payload.update(cwd=ask_project, tool_input={"command": "git push origin main"})
    assert hook_json(run_hook("cursor", "pretooluse", payload))["permission"] == "ask"


def test_process_lifecycle_answers(run_hook, fixture_payload):
    start = hook_json(
        run_hook("cursor", "sessionstart", fixture_payload("cursor", "sessionstart-startup"))
    )
    assert set(start) == {"additional_context"} and "ctx_search" in start["additional_context"]
    assert hook_json(run_hook("cursor", "stop", fixture_payload("cursor", "stop"))) == {}
