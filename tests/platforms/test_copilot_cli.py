"""Copilot CLI host module: camelCase and snake_case payloads, top-level PreToolUse fields."""

from __future__ import annotations

import json

import pytest

from ctxmode.platforms import copilot_cli as copilot
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision

UUID = "3b7e4a52-9c1d-4f0e-8a6b-2d5c7e9f1a03"


def out(event, decision):
    output = copilot.render(event, decision)
    assert output.exit_code == 0 and output.stderr == ""
    return json.loads(output.stdout) if output.stdout else None


@pytest.mark.parametrize(
    "name", ["pretooluse-bash-curl", "pretooluse-bash-curl-stringargs", "pretooluse-snake"]
)
def test_all_payload_shapes_give_the_same_shell_call(fixture_payload, name):
    event = copilot.parse(fixture_payload("copilot-cli", name), "pretooluse")
    assert (event.event, event.tool) == (ev.PRE_TOOL_USE, "Bash")
    assert event.tool_input["command"].startswith("curl https://example.com")
    assert event.session_id.startswith("cop-session-")
    assert event.project_dir == "/tmp/ctxmode-fixture-project"


def test_other_payload_fields(fixture_payload):
    read = copilot.parse(fixture_payload("copilot-cli", "pretooluse-read"), "pretooluse")
    assert read.tool == "Read" and read.tool_input["path"].endswith("README.md")
    fetch = copilot.parse(fixture_payload("copilot-cli", "pretooluse-webfetch"), "pretooluse")
    assert fetch.tool == "WebFetch"
    post = copilot.parse(fixture_payload("copilot-cli", "posttooluse"), "posttooluse")
    assert post.tool_output == "On branch main"
    snake = copilot.parse({"tool_result": {"text_result_for_llm": "x"}}, "posttooluse")
    assert snake.tool_output == "x"
    prompt = copilot.parse(fixture_payload("copilot-cli", "userpromptsubmit"), "userpromptsubmit")
    assert prompt.prompt == "Refactor the parser"
    stop = copilot.parse(fixture_payload("copilot-cli", "stop"), "agentstop")
    # sessionId wins: postToolUse has no transcriptPath, so the UUID would split the session.
    assert stop.event == ev.STOP and stop.session_id == "cop-session-1"
    bare = copilot.parse({"transcriptPath": f"/x/{UUID}.jsonl"}, "agentstop")
    assert bare.session_id == UUID
    for source, expected in (("startup", "startup"), ("resume", "resume"), ("new", "startup")):
        start = copilot.parse(
            fixture_payload("copilot-cli", f"sessionstart-{source}"), "sessionstart"
        )
        assert start.source == expected


def test_pretooluse_envelopes(fixture_payload):
    event = copilot.parse(fixture_payload("copilot-cli", "pretooluse-bash-curl"), "pretooluse")
    assert out(event, Decision.deny("no")) == {
        "permissionDecision": "deny",
        "permissionDecisionReason": "no",
    }
    assert out(event, Decision.ask()) == {
        "permissionDecision": "ask",
        "permissionDecisionReason": "Action requires user confirmation",
    }
    assert out(event, Decision.ask("matches ask rule"))["permissionDecisionReason"] == (
        "matches ask rule"
    )
    redirect = Decision.redirect("sandbox", event.tool_input)
    assert out(event, redirect) == {  # the host honours a deny: no echo for the model to read
        "permissionDecision": "deny",
        "permissionDecisionReason": "sandbox",
    }
    rewrite = Decision.modify({"command": "ls", "cwd": "/p"})
    assert out(event, rewrite) == {"modifiedArgs": {"command": "ls", "cwd": "/p"}}
    assert out(event, Decision.add_context("tip")) == {"additionalContext": "tip"}
    assert out(event, None) is None


def test_lifecycle_envelopes(fixture_payload):
    start = copilot.parse(fixture_payload("copilot-cli", "sessionstart-startup"), "sessionstart")
    assert out(start, Decision.add_context("<block/>")) == {"additionalContext": "<block/>"}
    for name, cli in (("posttooluse", "posttooluse"), ("precompact", "precompact"),
                      ("userpromptsubmit", "userpromptsubmit"), ("stop", "stop")):  # fmt: skip
        assert out(copilot.parse(fixture_payload("copilot-cli", name), cli), None) is None


# ------------------------------------------------------------ real hook processes


def hook_json(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else None


def test_process_curl_in_string_args_is_denied_naming_our_tools_as_the_host_does(
    run_hook, fixture_payload
):
    payload = fixture_payload("copilot-cli", "pretooluse-bash-curl-stringargs")
    answer = hook_json(run_hook("copilot-cli", "pretooluse", payload))
    assert answer["permissionDecision"] == "deny"
    assert "context-mode-ctx_execute" in answer["permissionDecisionReason"]


def test_process_webfetch_deny_and_ls_passthrough(run_hook, fixture_payload):
    deny = hook_json(
        run_hook("copilot-cli", "pretooluse", fixture_payload("copilot-cli", "pretooluse-webfetch"))
    )
    assert (
        deny["permissionDecision"] == "deny"
        and "context-mode-ctx_fetch_and_index" in deny["permissionDecisionReason"]
    )
    assert (
        hook_json(
            run_hook(
                "copilot-cli", "pretooluse", fixture_payload("copilot-cli", "pretooluse-bash-ls")
            )
        )
        is None
    )


def test_process_external_mcp_tool_gets_the_batching_tip(run_hook, fixture_payload, tmp_path):
    # Copilot CLI names another server's tool `<server>-<tool>`; the server is in its config.
    home = tmp_path / "copilot-home"
    home.mkdir()
    servers = {"github": {"command": "gh-mcp"}, "context-mode": {"command": "ctxmode"}}
    (home / "mcp-config.json").write_text(json.dumps({"mcpServers": servers}))
    env = {"COPILOT_HOME": str(home), "CTXMODE_EXTERNAL_MCP_NUDGE_EVERY": "1"}
    payload = fixture_payload("copilot-cli", "pretooluse-mcp-external")  # github-list_issues
    tip = hook_json(run_hook("copilot-cli", "pretooluse", payload, env=env))
    assert (
        set(tip) == {"additionalContext"} and "context-mode-ctx_execute" in tip["additionalContext"]
    )
    payload["toolName"] = "gitlab-list_issues"  # no such server configured: a name, not a tool
    assert hook_json(run_hook("copilot-cli", "pretooluse", payload, env=env)) is None


def test_process_ask_rule_carries_a_reason(run_hook, fixture_payload, ask_project):
    payload = fixture_payload("copilot-cli", "pretooluse-bash-ls")
    payload.update(cwd=ask_project, toolArgs={"command": "git push origin main"})
    answer = hook_json(run_hook("copilot-cli", "pretooluse", payload))
    assert answer["permissionDecision"] == "ask" and answer["permissionDecisionReason"]


def test_process_read_nudge_and_session_start(run_hook, fixture_payload):
    nudge = hook_json(
        run_hook("copilot-cli", "pretooluse", fixture_payload("copilot-cli", "pretooluse-read"))
    )
    assert set(nudge) == {"additionalContext"} and nudge["additionalContext"]
    start = hook_json(
        run_hook("copilot-cli", "sessionstart", fixture_payload("copilot-cli", "sessionstart-new"))
    )
    assert (
        set(start) == {"additionalContext"}
        and "context-mode-ctx_search" in start["additionalContext"]
    )


def test_precompact_trigger_and_initial_prompt(fixture_payload):
    compact = copilot.parse(fixture_payload("copilot-cli", "precompact"), "precompact")
    assert (compact.event, compact.source) == (ev.PRE_COMPACT, "auto")
    start = copilot.parse(fixture_payload("copilot-cli", "sessionstart-startup"), "sessionstart")
    assert start.prompt == "hello"
