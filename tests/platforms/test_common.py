"""Shared helpers of the host modules, and properties every one of our host modules keeps."""

from __future__ import annotations

import importlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxmode.platforms import REGISTRY
from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent, HookOutput

OUR_PLATFORMS = (
    "gemini-cli",
    "vscode-copilot",
    "jetbrains-copilot",
    "copilot-cli",
    "cursor",
    "codex",
    "kimi",
    "kiro",
    "antigravity-cli",
)
MODULES = {platform: importlib.import_module(REGISTRY[platform]) for platform in OUR_PLATFORMS}
JSON_STDOUT_ALWAYS = {"cursor", "codex", "kimi"}  # hosts that reject or mishandle empty stdout


def test_plain_guidance_drops_the_tags_and_collapses_whitespace():
    text = "<context_guidance>\n  <tip>\n  Use   ctx_execute\n  </tip>\n</context_guidance>"
    assert common.plain_guidance(text) == "Use ctx_execute"


def test_prompt_text_joins_the_text_parts_of_a_content_part_list():
    parts = [{"type": "text", "text": "a"}, {"type": "image"}, "b", {"text": 3}]
    assert common.prompt_text(parts) == "a\nb"
    assert common.prompt_text("plain") == "plain"
    assert common.prompt_text(None) == ""


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("startup", "startup"), ("Resume", "resume"), ("new", "startup"), (None, "startup"),
     ("compact", "compact"), ("clear", "clear"), (7, "startup")],
)  # fmt: skip
def test_session_source_normalizes_host_values(raw, expected):
    assert common.session_source(raw) == expected


def test_first_url_finds_the_url_inside_a_prompt():
    assert (
        common.first_url("Summarize https://a.example/x?y=1, then stop")
        == "https://a.example/x?y=1"
    )
    assert common.first_url("see (http://b.example/p).") == "http://b.example/p"
    assert common.first_url("no links") == ""


def test_json_object_decodes_string_arguments_and_rejects_the_rest():
    assert common.json_object('{"command": "ls"}') == {"command": "ls"}
    assert common.json_object("[1]") == {}
    assert common.json_object("{broken") == {}
    assert common.json_object(None) == {}


# --------------------------------------------------------------- properties

json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20)
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
PAYLOAD_KEYS = (
    "tool_name", "tool_input", "tool_response", "tool_output", "toolName", "toolArgs",
    "toolResult", "tool_result", "session_id", "sessionId", "conversation_id", "conversationId",
    "transcript_path", "transcriptPath", "cwd", "workspace_roots", "workspace", "workspacePaths",
    "prompt", "source", "trigger", "agent_id", "toolCall", "error", "text", "message",
)  # fmt: skip
payloads = st.one_of(
    st.dictionaries(st.sampled_from(PAYLOAD_KEYS), json_value, max_size=8),
    json_value,
)
decisions = st.one_of(
    st.none(),
    st.builds(Decision.deny, st.text(max_size=30)),
    st.builds(Decision.ask, st.text(max_size=30)),
    st.builds(Decision.add_context, st.text(max_size=30)),
    st.builds(Decision.modify, st.dictionaries(st.text(max_size=8), json_value, max_size=3)),
    st.builds(
        Decision.redirect,
        st.text(max_size=30),
        st.dictionaries(st.text(max_size=8), json_value, max_size=3),
    ),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    platform=st.sampled_from(OUR_PLATFORMS),
    payload=payloads,
    host_event=st.one_of(st.sampled_from(["pretooluse", "sessionstart", "nope", ""]), st.text()),
    decision=decisions,
)
def test_parse_and_render_never_raise_on_wrong_typed_payloads(
    platform, payload, host_event, decision, monkeypatch
):
    monkeypatch.setenv("PATH", "")  # same for every example: no codex, the probe answers at once
    module = MODULES[platform]
    event = module.parse(payload, host_event)
    assert isinstance(event, HookEvent)
    assert isinstance(event.tool, str) and isinstance(event.tool_input, dict)
    assert isinstance(event.session_id, str) and event.session_id
    assert isinstance(event.project_dir, str) and isinstance(event.prompt, str)
    for host_event_name in (host_event, *module.EVENTS):
        event = module.parse(payload, host_event_name)
        output = module.render(event, decision)
        assert isinstance(output, HookOutput)
        assert output.exit_code in (0, 2)
        if output.stdout and platform != "kiro":
            assert isinstance(json.loads(output.stdout), dict)
        if platform in JSON_STDOUT_ALWAYS:
            assert output.stdout, (platform, host_event_name)


@pytest.mark.parametrize("platform", OUR_PLATFORMS)
def test_unknown_event_renders_the_host_no_op(platform):
    module = MODULES[platform]
    event = module.parse({}, "no-such-event")
    assert event.event == ""
    output = module.render(event, None)
    assert output.exit_code == 0 and output.stderr == ""
    if platform in JSON_STDOUT_ALWAYS:
        assert json.loads(output.stdout) == {}
    else:
        assert output.stdout == ""


# ------------------------------------------------------------ real hook processes

NO_OP_STDOUT = {
    "cursor": {"agent_message": ""},
    "codex": {"hookSpecificOutput": {"hookEventName": "PreToolUse"}},
    "kimi": {"hookSpecificOutput": {"hookEventName": "PreToolUse"}},
}


@pytest.mark.parametrize("platform", OUR_PLATFORMS)
def test_process_unknown_event_exits_0_with_the_host_no_op(run_hook, platform):
    result = run_hook(platform, "nosuchevent", b'{"tool_name": "Bash"}')
    assert result.returncode == 0
    expected = {} if platform in JSON_STDOUT_ALWAYS else None
    assert (json.loads(result.stdout) if result.stdout else None) == expected
    assert b"unknown" in result.stderr  # a one-line hint for whoever wired the hook


@pytest.mark.parametrize("platform", OUR_PLATFORMS)
def test_process_malformed_stdin_exits_0_with_a_well_formed_no_op(run_hook, platform):
    pre_tool_use = next(
        name for name, value in MODULES[platform].EVENTS.items() if value == ev.PRE_TOOL_USE
    )
    result = run_hook(platform, pre_tool_use, b'\xef\xbb\xbf{"tool_name": "Bash", "tool_in')
    assert result.returncode == 0
    expected = NO_OP_STDOUT.get(platform)
    assert (json.loads(result.stdout) if result.stdout else None) == expected
