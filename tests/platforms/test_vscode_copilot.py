"""VS Code Copilot host module (shared with JetBrains): parsing and exact PreToolUse envelopes."""

from __future__ import annotations

import json

import pytest

from ctxmode.platforms import jetbrains_copilot, vscode_copilot
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision

P = "/tmp/ctxmode-fixture-project"
HOSTS = [("vscode-copilot", vscode_copilot), ("jetbrains-copilot", jetbrains_copilot)]


def out(module, event, decision):
    output = module.render(event, decision)
    assert output.exit_code == 0 and output.stderr == ""
    return json.loads(output.stdout) if output.stdout else None


@pytest.mark.parametrize(("platform", "module"), HOSTS)
def test_payload_fields(fixture_payload, platform, module):
    event = module.parse(fixture_payload(platform, "pretooluse-bash-curl"), "pretooluse")
    assert (event.platform, event.event, event.tool) == (platform, ev.PRE_TOOL_USE, "Bash")
    assert event.session_id == "vsc-session-1" and event.project_dir == P
    read = module.parse(fixture_payload(platform, "pretooluse-read"), "pretooluse")
    assert read.tool == "Read" and read.tool_input["file_path"] == f"{P}/README.md"
    fetch = module.parse(fixture_payload(platform, "pretooluse-webfetch"), "pretooluse")
    assert fetch.tool == "WebFetch" and fetch.tool_input["url"] == "https://example.com/docs"
    start = module.parse(fixture_payload(platform, "sessionstart-new"), "sessionstart")
    assert (start.event, start.source) == (ev.SESSION_START, "startup")  # "new" is a fresh session


def test_project_dir_env_fallback_differs_per_ide(monkeypatch):
    monkeypatch.setenv("VSCODE_CWD", "/vscode")
    monkeypatch.setenv("IDEA_INITIAL_DIRECTORY", "/idea")
    assert vscode_copilot.parse({}, "pretooluse").project_dir == "/vscode"
    assert jetbrains_copilot.parse({}, "pretooluse").project_dir == "/idea"


@pytest.mark.parametrize(("platform", "module"), HOSTS)
def test_pretooluse_envelopes_follow_the_vscode_hooks_reference(fixture_payload, platform, module):
    event = module.parse(fixture_payload(platform, "pretooluse-bash-curl"), "pretooluse")
    assert out(module, event, Decision.deny("no")) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    assert out(module, event, Decision.ask()) == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}
    }
    redirect = Decision.redirect("use the sandbox", event.tool_input)
    answer = out(module, event, redirect)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "allow" and answer["permissionDecisionReason"]
    # The complete input: VS Code drops an updatedInput missing the schema's sibling fields.
    assert answer["updatedInput"] == {
        "command": 'echo "use the sandbox"',
        "explanation": "Fetch items",
        "isBackground": False,
    }
    assert out(module, event, Decision.add_context("tip")) == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "tip"}
    }
    assert out(module, event, None) is None


@pytest.mark.parametrize(("platform", "module"), HOSTS)
def test_lifecycle_envelopes(fixture_payload, platform, module):
    start = module.parse(fixture_payload(platform, "sessionstart-new"), "sessionstart")
    assert out(module, start, Decision.add_context("<block/>")) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "<block/>"}
    }
    for name in ("posttooluse", "precompact", "userpromptsubmit", "stop"):
        event = module.parse(fixture_payload(platform, name), name)
        assert event.event == module.EVENTS[name]
        assert out(module, event, None) is None


# ------------------------------------------------------------ real hook processes


def hook_json(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else None


@pytest.mark.parametrize("platform", ["vscode-copilot", "jetbrains-copilot"])
def test_process_curl_is_rewritten_with_the_complete_input(run_hook, fixture_payload, platform):
    result = run_hook(platform, "pretooluse", fixture_payload(platform, "pretooluse-bash-curl"))
    answer = hook_json(result)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse" and answer["permissionDecision"] == "allow"
    updated = answer["updatedInput"]
    assert (
        updated["command"].startswith('echo "') and "context-mode_ctx_execute" in updated["command"]
    )
    assert (updated["explanation"], updated["isBackground"]) == ("Fetch items", False)


def test_process_fetch_webpage_is_denied(run_hook, fixture_payload):
    result = run_hook(
        "vscode-copilot", "pretooluse", fixture_payload("vscode-copilot", "pretooluse-webfetch")
    )
    answer = hook_json(result)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "https://example.com/docs" in answer["permissionDecisionReason"]


def test_process_read_nudge_then_silence(run_hook, fixture_payload):
    payload = fixture_payload("vscode-copilot", "pretooluse-read")
    first = hook_json(run_hook("vscode-copilot", "pretooluse", payload))["hookSpecificOutput"]
    assert (
        first["hookEventName"] == "PreToolUse"
        and "context-mode_ctx_execute_file" in first["additionalContext"]
    )
    assert hook_json(run_hook("vscode-copilot", "pretooluse", payload)) is None  # once per session


def test_process_ask_rule(run_hook, fixture_payload, ask_project):
    payload = fixture_payload("jetbrains-copilot", "pretooluse-bash-ls")
    payload.update(cwd=ask_project)
    payload["tool_input"]["command"] = "git push origin main"
    answer = hook_json(run_hook("jetbrains-copilot", "pretooluse", payload))["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask"


def test_process_session_start(run_hook, fixture_payload):
    result = run_hook(
        "jetbrains-copilot",
        "sessionstart",
        fixture_payload("jetbrains-copilot", "sessionstart-new"),
    )
    answer = hook_json(result)["hookSpecificOutput"]
    assert (
        answer["hookEventName"] == "SessionStart"
        and "context-mode_ctx_search" in answer["additionalContext"]
    )
