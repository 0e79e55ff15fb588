"""Codex host module: parsing, the version-gated envelopes, and the cached version probe."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ctxmode.platforms import codex
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fake codex is a sh script")


def fake_codex(directory: Path, version: str) -> Path:
    """A `codex` executable printing `codex-cli <version>` (what the real one prints)."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "codex"
    script.write_text(f'#!/bin/sh\necho "codex-cli {version}"\n', encoding="utf-8")
    script.chmod(0o755)
    return script


@pytest.fixture
def codex_version(tmp_path, monkeypatch):
    """`codex_version("0.141.0")` puts a codex of that version alone on PATH; None: no codex."""

    def install(version: str | None) -> None:
        bin_dir = tmp_path / f"bin-{version}"
        if version is not None:
            fake_codex(bin_dir, version)
        monkeypatch.setenv("PATH", str(bin_dir))

    return install


def out(event, decision):
    output = codex.render(event, decision)
    assert output.exit_code == 0 and output.stderr == ""
    return json.loads(output.stdout)


NO_OP = {"hookSpecificOutput": {"hookEventName": "PreToolUse"}}


def test_payload_fields(fixture_payload):
    event = codex.parse(fixture_payload("codex", "pretooluse-bash-curl"), "pretooluse")
    assert (event.event, event.tool) == (ev.PRE_TOOL_USE, "Bash")
    assert event.session_id == "019a0000-0000-7000-8000-00000000c0de"
    assert event.project_dir == "/tmp/ctxmode-fixture-project"
    argv = codex.parse(fixture_payload("codex", "pretooluse-bash-argv"), "pretooluse")
    assert argv.tool == "Bash" and argv.tool_input["command"] == "curl https://example.com"
    grep = codex.parse(fixture_payload("codex", "pretooluse-grep"), "pretooluse")
    assert grep.tool == "Grep"
    post = codex.parse(fixture_payload("codex", "posttooluse"), "posttooluse")
    assert post.tool_output == "On branch main"
    start = codex.parse(fixture_payload("codex", "sessionstart-compact"), "sessionstart")
    assert start.source == "compact"


def test_rewrites_and_context_from_codex_0_141(fixture_payload, codex_version):
    codex_version("0.141.0")
    event = codex.parse(fixture_payload("codex", "pretooluse-bash-curl"), "pretooluse")
    redirect = Decision.redirect("use ctx_execute", event.tool_input)
    assert out(event, redirect) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": 'echo "use ctx_execute"'},
        }
    }
    assert out(event, Decision.add_context("tip")) == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "tip"}
    }


@pytest.mark.parametrize("version", ["0.140.9", "0.141.0-alpha", None])
def test_before_0_141_a_command_redirect_becomes_a_deny(fixture_payload, codex_version, version):
    codex_version(version)
    event = codex.parse(fixture_payload("codex", "pretooluse-bash-curl"), "pretooluse")
    expected_supported = version == "0.141.0-alpha"  # a pre-release of 0.141.0 has the feature
    redirect = Decision.redirect('use "ctx_execute"', event.tool_input)
    answer = out(event, redirect)
    if expected_supported:
        assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"
        return
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": 'use "ctx_execute"',
        }
    }
    assert out(event, Decision.add_context("tip")) == NO_OP
    assert out(event, Decision.modify({"prompt": "injected"})) == NO_OP


def test_deny_ask_and_passthrough_need_no_probe(fixture_payload, codex_version):
    codex_version(None)
    event = codex.parse(fixture_payload("codex", "pretooluse-bash-curl"), "pretooluse")
    assert out(event, Decision.deny("no")) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    assert out(event, Decision.deny(""))["hookSpecificOutput"]["permissionDecisionReason"]
    assert out(event, Decision.ask("sure?")) == NO_OP  # Codex rejects ask
    assert out(event, None) == NO_OP


def test_lifecycle_envelopes(fixture_payload):
    def parsed(name, cli):
        return codex.parse(fixture_payload("codex", name), cli)

    start = parsed("sessionstart-startup", "sessionstart")
    assert out(start, Decision.add_context("<block/>")) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "<block/>"}
    }
    # Nothing to add is `{}`: Codex shows even an empty additionalContext to the model.
    assert out(parsed("posttooluse", "posttooluse"), None) == {}
    assert out(parsed("userpromptsubmit", "userpromptsubmit"), None) == {}
    assert out(parsed("precompact", "precompact"), None) == {}
    assert out(parsed("stop", "stop"), None) == {}


def test_version_is_cached_under_the_data_root_until_the_binary_changes(
    tmp_path, monkeypatch, data_root
):
    script = fake_codex(tmp_path / "bin", "0.141.0")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert codex.installed_version() == "codex-cli 0.141.0"
    cache = data_root / "cache" / codex.CACHE_FILE
    assert json.loads(cache.read_text())["version"] == "codex-cli 0.141.0"

    # Same size and mtime: the cached answer stands (no new probe).
    stat = script.stat()
    script.write_text('#!/bin/sh\necho "codex-cli 0.999.0"\n', encoding="utf-8")
    os.utime(script, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert codex.installed_version() == "codex-cli 0.141.0"

    # An upgraded binary (new mtime) is probed again at once.
    os.utime(script, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert codex.installed_version() == "codex-cli 0.999.0"


def test_an_expired_cache_entry_is_probed_again(tmp_path, monkeypatch, data_root):
    fake_codex(tmp_path / "bin", "0.150.1")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert codex.installed_version() == "codex-cli 0.150.1"
    cache = data_root / "cache" / codex.CACHE_FILE
    entry = json.loads(cache.read_text())
    cache.write_text(json.dumps({**entry, "version": "stale", "at": entry["at"] - 3601}))
    assert codex.installed_version() == "codex-cli 0.150.1"
    cache.write_text("not json")
    assert codex.installed_version() == "codex-cli 0.150.1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("codex-cli 0.141.0", (0, 141, 0)), ("codex-cli 1.2.3-beta.1", (1, 2, 3)),
     ("v0.9", (0, 9)), ("codex", ()), ("", ())],
)  # fmt: skip
def test_version_tuple(text, expected):
    assert codex.version_tuple(text) == expected


def test_a_broken_codex_counts_as_no_support(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "codex").write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    (bin_dir / "codex").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert codex.rewrite_supported() is False


# ------------------------------------------------------------ real hook processes


def hook_json(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # Codex: never empty


def test_process_curl_with_codex_0_141_is_rewritten(run_hook, fixture_payload, tmp_path):
    fake_codex(tmp_path / "bin", "0.141.0")
    payload = fixture_payload("codex", "pretooluse-bash-curl")
    answer = hook_json(
        run_hook("codex", "pretooluse", payload, env={"PATH": str(tmp_path / "bin")})
    )
    out = answer["hookSpecificOutput"]
    assert (out["hookEventName"], out["permissionDecision"]) == ("PreToolUse", "allow")
    assert out["updatedInput"]["command"].startswith('echo "')


def test_process_curl_without_codex_is_denied_with_the_guidance(
    run_hook, fixture_payload, tmp_path
):
    payload = fixture_payload("codex", "pretooluse-bash-argv")
    answer = hook_json(
        run_hook("codex", "pretooluse", payload, env={"PATH": str(tmp_path / "empty")})
    )
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "ctx_execute" in out["permissionDecisionReason"] and not out[
        "permissionDecisionReason"
    ].startswith("echo")


def test_process_nudge_needs_codex_0_141(run_hook, fixture_payload, tmp_path):
    payload = fixture_payload("codex", "pretooluse-grep")
    fake_codex(tmp_path / "old", "0.140.0")
    old = hook_json(run_hook("codex", "pretooluse", payload, env={"PATH": str(tmp_path / "old")}))
    assert old == NO_OP  # dropped, and the once-per-session nudge is spent
    payload["session_id"] = "another-session"
    fake_codex(tmp_path / "new", "0.142.0")
    new = hook_json(run_hook("codex", "pretooluse", payload, env={"PATH": str(tmp_path / "new")}))
    assert new["hookSpecificOutput"]["additionalContext"]


def test_process_ask_rule_is_dropped_and_session_start_injects(
    run_hook, fixture_payload, ask_project
):
    payload = fixture_payload("codex", "pretooluse-bash-ls")
    payload.update(cwd=ask_project, tool_input={"command": "git push origin main"})
    assert hook_json(run_hook("codex", "pretooluse", payload)) == NO_OP
    start = hook_json(
        run_hook("codex", "sessionstart", fixture_payload("codex", "sessionstart-startup"))
    )
    assert start["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "ctx_search" in start["hookSpecificOutput"]["additionalContext"]
