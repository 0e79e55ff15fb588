"""Antigravity CLI (agy) host module: agy payload mapping; rewrites and nudges become denies."""

from __future__ import annotations

import json

import pytest

from ctxmode.platforms import antigravity_cli as agy
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision

P = "/tmp/ctxmode-fixture-project"


def out(event, decision):
    output = agy.render(event, decision)
    assert output.exit_code == 0 and output.stderr == ""
    return json.loads(output.stdout) if output.stdout else None


@pytest.mark.parametrize(
    ("name", "tool", "field", "value"),
    [
        ("pretooluse-bash-curl", "Bash", "command", "curl https://example.com/api/items"),
        ("pretooluse-read", "Read", "file_path", f"{P}/README.md"),
        ("pretooluse-grep", "Grep", "pattern", "TODO"),
        ("pretooluse-webfetch", "WebFetch", "url", "https://example.com/docs"),
    ],
)
def test_agy_tools_are_mapped_onto_canonical_names_and_fields(
    fixture_payload, name, tool, field, value
):
    event = agy.parse(fixture_payload("antigravity-cli", name), "pretooluse")
    assert (event.event, event.tool) == (ev.PRE_TOOL_USE, tool)
    assert event.tool_input[field] == value
    assert event.session_id == "agy-conv-1" and event.project_dir == P


def test_project_dir_chain_never_uses_the_hook_process_cwd():
    event = agy.parse({"workspacePaths": ["/second"]}, "pretooluse")
    assert event.project_dir == "/second"
    cwd_arg = agy.parse(
        {"toolCall": {"name": "run_command", "args": {"Cwd": "/third"}}}, "pretooluse"
    )
    assert cwd_arg.project_dir == "/third"
    assert agy.parse({}, "pretooluse").project_dir == ""


def test_posttooluse_carries_the_error_text(fixture_payload):
    post = agy.parse(fixture_payload("antigravity-cli", "posttooluse"), "posttooluse")
    assert post.event == ev.POST_TOOL_USE
    assert post.tool_output == {"error": "exit status 1", "isError": True}


def test_pretooluse_envelopes(fixture_payload):
    event = agy.parse(fixture_payload("antigravity-cli", "pretooluse-bash-curl"), "pretooluse")
    assert out(event, Decision.deny("no")) == {"decision": "deny", "reason": "no"}
    assert out(event, Decision.ask()) == {
        "decision": "ask",
        "reason": "Action requires user confirmation",
    }
    assert out(event, Decision.redirect('use "ctx"', event.tool_input)) == {
        "decision": "deny",
        "reason": 'use "ctx"',
    }
    assert out(event, Decision.modify({"command": 'echo "a \\"b\\""'})) == {
        "decision": "deny",
        "reason": 'a "b"',
    }
    nudge = out(
        event,
        Decision.add_context("<context_guidance>\n <tip>\n  Use  X\n </tip>\n</context_guidance>"),
    )
    assert nudge["decision"] == "deny" and nudge["reason"].endswith(" Use X")
    assert out(event, None) is None
    for name in ("posttooluse", "stop"):
        assert out(agy.parse(fixture_payload("antigravity-cli", name), name), None) is None


# ------------------------------------------------------------ real hook processes


def hook_json(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else None


def test_process_curl_becomes_a_deny_with_the_guidance(run_hook, fixture_payload):
    answer = hook_json(
        run_hook(
            "antigravity-cli",
            "pretooluse",
            fixture_payload("antigravity-cli", "pretooluse-bash-curl"),
        )
    )
    assert answer["decision"] == "deny" and "context-mode/ctx_execute" in answer["reason"]
    assert not answer["reason"].startswith("echo")


def test_process_read_nudge_is_a_one_off_deny(run_hook, fixture_payload):
    payload = fixture_payload("antigravity-cli", "pretooluse-read")
    first = hook_json(run_hook("antigravity-cli", "pretooluse", payload))
    assert first["decision"] == "deny" and "<tip>" not in first["reason"]
    assert hook_json(run_hook("antigravity-cli", "pretooluse", payload)) is None


def test_process_webfetch_deny_ask_and_passthrough(run_hook, fixture_payload, ask_project):
    deny = hook_json(
        run_hook(
            "antigravity-cli",
            "pretooluse",
            fixture_payload("antigravity-cli", "pretooluse-webfetch"),
        )
    )
    assert deny["decision"] == "deny" and "https://example.com/docs" in deny["reason"]
    payload = fixture_payload("antigravity-cli", "pretooluse-bash-ls")
    payload["workspace"] = {"current_dir": ask_project}
    payload["toolCall"]["args"]["CommandLine"] = "git push origin main"
    assert hook_json(run_hook("antigravity-cli", "pretooluse", payload))["decision"] == "ask"
    ls = fixture_payload("antigravity-cli", "pretooluse-bash-ls")
    assert hook_json(run_hook("antigravity-cli", "pretooluse", ls)) is None
