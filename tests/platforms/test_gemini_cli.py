"""Gemini CLI host module: payload parsing and exact BeforeTool/lifecycle envelopes."""

from __future__ import annotations

import json

import pytest

from ctxmode.platforms import gemini_cli as gemini
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision

UUID = "3b7e4a52-9c1d-4f0e-8a6b-2d5c7e9f1a03"
P = "/tmp/ctxmode-fixture-project"


def out(event, decision):
    output = gemini.render(event, decision)
    assert output.exit_code == 0 and output.stderr == ""
    return json.loads(output.stdout) if output.stdout else None


def test_beforetool_payload_is_canonicalized(fixture_payload):
    event = gemini.parse(fixture_payload("gemini-cli", "beforetool-bash-curl"), "beforetool")
    assert (event.event, event.tool) == (ev.PRE_TOOL_USE, "Bash")
    assert event.tool_input["command"] == "curl https://example.com/api/items"
    assert event.session_id == "gem-session-1"  # the transcript is not <uuid>.jsonl
    assert event.project_dir == P


@pytest.mark.parametrize(
    ("name", "tool", "field", "value"),
    [
        ("beforetool-read", "Read", "file_path", f"{P}/README.md"),
        ("beforetool-grep", "Grep", "pattern", "TODO"),
        ("beforetool-webfetch", "WebFetch", "url", "https://example.com/docs/page"),
        ("beforetool-mcp-external", "mcp__github__list_issues", "repo", "o/r"),
    ],
)
def test_tool_aliases_and_input_fields(fixture_payload, name, tool, field, value):
    event = gemini.parse(fixture_payload("gemini-cli", name), "BeforeTool")
    assert event.tool == tool
    assert event.tool_input[field] == value


def test_lifecycle_payloads(fixture_payload):
    start = gemini.parse(fixture_payload("gemini-cli", "sessionstart-resume"), "sessionstart")
    assert (start.event, start.source) == (ev.SESSION_START, "resume")
    agent = gemini.parse(fixture_payload("gemini-cli", "beforeagent"), "beforeagent")
    assert agent.event == ev.USER_PROMPT_SUBMIT and agent.prompt.startswith("Fix the failing")
    after = gemini.parse(fixture_payload("gemini-cli", "aftertool"), "aftertool")
    assert after.event == ev.POST_TOOL_USE and after.tool_output["llmContent"] == "On branch main"
    assert gemini.parse(fixture_payload("gemini-cli", "aftermodel"), "aftermodel").event == (
        ev.AFTER_MODEL
    )
    assert gemini.parse(fixture_payload("gemini-cli", "precompress"), "precompress").event == (
        ev.PRE_COMPACT
    )


def test_session_id_prefers_a_uuid_transcript(monkeypatch):
    event = gemini.parse({"transcript_path": f"/x/{UUID}.jsonl", "session_id": "s"}, "beforetool")
    assert event.session_id == UUID


def test_project_dir_falls_back_to_the_gemini_env_var(monkeypatch):
    monkeypatch.setenv("GEMINI_PROJECT_DIR", "/from/env")
    assert gemini.parse({"tool_name": "read_file"}, "beforetool").project_dir == "/from/env"


def test_beforetool_envelopes(fixture_payload):
    event = gemini.parse(fixture_payload("gemini-cli", "beforetool-bash-curl"), "beforetool")
    assert out(event, Decision.deny("use ctx")) == {"decision": "deny", "reason": "use ctx"}
    assert out(event, Decision.ask("sure?")) is None  # the host has no ask
    redirect = Decision.redirect("fetch in the sandbox", event.tool_input)
    assert out(event, redirect) == {
        "hookSpecificOutput": {
            "tool_input": {**event.tool_input, "command": redirect.updated_input["command"]}
        }
    }
    assert redirect.updated_input["command"] == 'echo "fetch in the sandbox"'
    assert out(event, Decision.add_context("tip")) is None  # never shown to the model here
    assert out(event, None) is None


def test_lifecycle_envelopes(fixture_payload):
    start = gemini.parse(fixture_payload("gemini-cli", "sessionstart-startup"), "sessionstart")
    assert out(start, Decision.add_context("<block/>")) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "<block/>"}
    }
    agent = gemini.parse(fixture_payload("gemini-cli", "beforeagent"), "beforeagent")
    assert out(agent, None) == {
        "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": ""}
    }
    for name, cli in (("aftertool", "aftertool"), ("precompress", "precompress"),
                      ("aftermodel", "aftermodel"), ("afteragent", "afteragent")):  # fmt: skip
        assert out(gemini.parse(fixture_payload("gemini-cli", name), cli), None) is None
    after = gemini.parse(fixture_payload("gemini-cli", "aftertool"), "aftertool")
    assert out(after, Decision.add_context("note")) == {
        "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "note"}
    }


# ------------------------------------------------------------ real hook processes


def hook_json(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else None


def test_process_curl_is_rewritten_to_an_echo_of_the_guidance(run_hook, fixture_payload):
    result = run_hook(
        "gemini-cli", "beforetool", fixture_payload("gemini-cli", "beforetool-bash-curl")
    )
    tool_input = hook_json(result)["hookSpecificOutput"]["tool_input"]
    assert (
        tool_input["command"].startswith('echo "')
        and "mcp_context-mode_ctx_" in tool_input["command"]
    )
    assert tool_input["description"] == "fetch items"


def test_process_webfetch_is_denied_at_the_top_level(run_hook, fixture_payload):
    result = run_hook(
        "gemini-cli", "beforetool", fixture_payload("gemini-cli", "beforetool-webfetch")
    )
    answer = hook_json(result)
    assert answer["decision"] == "deny" and "https://example.com/docs/page" in answer["reason"]


def test_process_grep_gets_no_tip_and_bounded_ls_passes(run_hook, fixture_payload):
    tip = run_hook("gemini-cli", "beforetool", fixture_payload("gemini-cli", "beforetool-grep"))
    assert hook_json(tip) is None  # the host would not show it to the model
    quiet = run_hook(
        "gemini-cli", "beforetool", fixture_payload("gemini-cli", "beforetool-bash-ls")
    )
    assert hook_json(quiet) is None


def test_process_ask_is_dropped(run_hook, fixture_payload, ask_project):
    payload = fixture_payload("gemini-cli", "beforetool-bash-ls")
    payload.update(cwd=ask_project, tool_input={"command": "git push origin main"})
    assert hook_json(run_hook("gemini-cli", "beforetool", payload)) is None


def test_process_session_start_and_before_agent(run_hook, fixture_payload):
    start = hook_json(
        run_hook(
            "gemini-cli", "sessionstart", fixture_payload("gemini-cli", "sessionstart-startup")
        )
    )
    assert start["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "mcp_context-mode_ctx_search" in start["hookSpecificOutput"]["additionalContext"]
    agent = hook_json(
        run_hook("gemini-cli", "beforeagent", fixture_payload("gemini-cli", "beforeagent"))
    )
    assert agent == {
        "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": ""}
    }
