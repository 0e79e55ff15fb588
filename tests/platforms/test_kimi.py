"""Kimi host module: deny is the only PreToolUse answer the host honours."""

from __future__ import annotations

import json

from ctxmode.platforms import kimi
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision

NO_OP = {"hookSpecificOutput": {"hookEventName": "PreToolUse"}}


def out(event, decision):
    output = kimi.render(event, decision)
    assert output.exit_code == 0 and output.stderr == ""
    return json.loads(output.stdout)


def test_payload_fields(fixture_payload):
    event = kimi.parse(fixture_payload("kimi", "pretooluse-bash-ls"), "pretooluse")
    assert (event.event, event.tool) == (ev.PRE_TOOL_USE, "Bash")  # kimi-cli's `Shell`
    assert event.session_id == "kimi-session-1"
    post = kimi.parse(fixture_payload("kimi", "posttooluse"), "posttooluse")
    assert post.tool_output == "On branch main"
    prompt = kimi.parse(fixture_payload("kimi", "userpromptsubmit"), "userpromptsubmit")
    assert prompt.prompt == "Fix the bug\nin main.py"  # ContentPart[] text parts
    assert kimi.parse(fixture_payload("kimi", "sessionstart-resume"), "sessionstart").source == (
        "resume"
    )
    assert kimi.parse({"source": "compact"}, "sessionstart").source == "startup"
    assert kimi.parse(fixture_payload("kimi", "sessionend"), "sessionend").event == ev.SESSION_END


def test_pretooluse_envelopes(fixture_payload):
    event = kimi.parse(fixture_payload("kimi", "pretooluse-bash-curl"), "pretooluse")
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    assert out(event, Decision.deny("no")) == deny
    # The host cannot rewrite: a redirect blocks with its guidance instead of being lost.
    assert out(event, Decision.redirect("no", event.tool_input)) == deny
    assert out(event, Decision.ask("sure?")) == NO_OP
    assert out(event, Decision.add_context("tip")) == NO_OP
    assert out(event, Decision.modify({"prompt": "injected"})) == NO_OP
    assert out(event, None) == NO_OP


def test_lifecycle_envelopes(fixture_payload):
    def parsed(name, cli):
        return kimi.parse(fixture_payload("kimi", name), cli)

    start = parsed("sessionstart-startup", "sessionstart")
    assert out(start, Decision.add_context("<block/>")) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "<block/>"}
    }
    assert out(parsed("posttooluse", "posttooluse"), None) == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": ""}
    }
    assert out(parsed("userpromptsubmit", "userpromptsubmit"), None) == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": ""}
    }
    for name in ("precompact", "stop", "sessionend"):
        assert out(parsed(name, name), None) == {}


# ------------------------------------------------------------ real hook processes


def hook_json(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # Kimi: never empty


def test_process_curl_is_denied_with_the_guidance(run_hook, fixture_payload):
    answer = hook_json(
        run_hook("kimi", "pretooluse", fixture_payload("kimi", "pretooluse-bash-curl"))
    )
    out = answer["hookSpecificOutput"]
    assert (
        out["permissionDecision"] == "deny"
        and "ctx_execute(" in out["permissionDecisionReason"]
        and "mcp__" not in out["permissionDecisionReason"]  # kimi-cli keeps bare names
    )


def test_process_webfetch_deny_and_dropped_nudges(run_hook, fixture_payload):
    deny = hook_json(run_hook("kimi", "pretooluse", fixture_payload("kimi", "pretooluse-webfetch")))
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    for name in ("pretooluse-read", "pretooluse-mcp-external", "pretooluse-bash-ls"):
        assert hook_json(run_hook("kimi", "pretooluse", fixture_payload("kimi", name))) == NO_OP


def test_process_lifecycle_answers(run_hook, fixture_payload):
    start = hook_json(
        run_hook("kimi", "sessionstart", fixture_payload("kimi", "sessionstart-startup"))
    )
    assert " ctx_search(" in start["hookSpecificOutput"]["additionalContext"]
    assert hook_json(run_hook("kimi", "sessionend", fixture_payload("kimi", "sessionend"))) == {}


def test_config_goes_where_the_installed_kimi_reads_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("KIMI_CODE_HOME", "KIMI_SHARE_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert kimi.config_paths()["config"] == str(tmp_path / ".kimi-code" / "config.toml")
    (tmp_path / ".kimi").mkdir()  # only the PyPI kimi-cli has run here
    assert kimi.config_paths()["mcp"] == str(tmp_path / ".kimi" / "mcp.json")
    (tmp_path / ".kimi-code").mkdir()
    assert kimi.config_paths()["mcp"] == str(tmp_path / ".kimi-code" / "mcp.json")
    monkeypatch.setenv("KIMI_SHARE_DIR", str(tmp_path / "share"))
    assert kimi.config_paths()["config"] == str(tmp_path / "share" / "config.toml")
