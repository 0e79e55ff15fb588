"""Kiro host module: exit code 2 + stderr blocks, plain-text context for agentSpawn."""

from __future__ import annotations

import os

from ctxmode.platforms import kiro
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision


def test_payload_fields(fixture_payload):
    event = kiro.parse(fixture_payload("kiro", "pretooluse-bash-curl"), "pretooluse")
    assert (event.event, event.tool) == (ev.PRE_TOOL_USE, "Bash")
    assert event.session_id == f"pid-{os.getppid()}"  # Kiro sends no session id
    assert event.project_dir == "/tmp/ctxmode-fixture-project"
    read = kiro.parse(fixture_payload("kiro", "pretooluse-read"), "pretooluse")
    assert read.tool == "Read" and read.tool_input["file_path"].endswith("README.md")
    mcp = kiro.parse(fixture_payload("kiro", "pretooluse-mcp-external"), "pretooluse")
    assert mcp.tool == "@github/list_issues"
    spawn = kiro.parse(fixture_payload("kiro", "agentspawn"), "agentspawn")
    assert (spawn.event, spawn.source) == (ev.SESSION_START, "startup")
    prompt = kiro.parse(fixture_payload("kiro", "userpromptsubmit"), "userpromptsubmit")
    assert prompt.prompt == "Explain this repo"


def test_blocks_exit_2_with_the_reason_on_stderr(fixture_payload):
    event = kiro.parse(fixture_payload("kiro", "pretooluse-bash-curl"), "pretooluse")
    for decision, reason in (
        (Decision.deny("denied: sudo"), "denied: sudo"),
        (Decision.redirect('use "ctx_execute"', event.tool_input), 'use "ctx_execute"'),
        (Decision.modify({"command": 'echo "from echo"'}), "from echo"),
    ):
        output = kiro.render(event, decision)
        assert (output.stdout, output.stderr, output.exit_code) == ("", reason, 2)
    other = kiro.render(event, Decision.modify({"prompt": "x"}))
    assert other.exit_code == 2 and "ctx_" in other.stderr


def test_non_blocking_answers_exit_0(fixture_payload):
    event = kiro.parse(fixture_payload("kiro", "pretooluse-bash-ls"), "pretooluse")
    for decision, stdout in (
        (None, ""),
        (Decision.ask("?"), ""),
        (Decision.add_context("tip"), "tip"),
    ):
        output = kiro.render(event, decision)
        assert (output.stdout, output.stderr, output.exit_code) == (stdout, "", 0)


def test_session_context_is_plain_text_because_kiro_appends_stdout_verbatim(fixture_payload):
    spawn = kiro.parse(fixture_payload("kiro", "agentspawn"), "agentspawn")
    output = kiro.render(spawn, Decision.add_context("<routing/>"))
    assert (output.stdout, output.exit_code) == ("<routing/>", 0)
    for name in ("userpromptsubmit", "posttooluse", "stop", "agentspawn"):
        output = kiro.render(kiro.parse(fixture_payload("kiro", name), name), None)
        assert (output.stdout, output.stderr, output.exit_code) == ("", "", 0)


# ------------------------------------------------------------ real hook processes


def test_process_curl_blocks_with_exit_2_and_the_reason_on_stderr(run_hook, fixture_payload):
    result = run_hook("kiro", "pretooluse", fixture_payload("kiro", "pretooluse-bash-curl"))
    assert result.returncode == 2 and result.stdout == b""
    reason = result.stderr.decode()
    assert "@context-mode/ctx_execute" in reason and not reason.startswith("echo")


def test_process_passthrough_and_nudge_exit_0(run_hook, fixture_payload):
    quiet = run_hook("kiro", "pretooluse", fixture_payload("kiro", "pretooluse-bash-ls"))
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
    nudge = run_hook("kiro", "pretooluse", fixture_payload("kiro", "pretooluse-mcp-external"))
    assert nudge.returncode == 0 and b"@context-mode/ctx_execute" in nudge.stdout


def test_process_agent_spawn_injects_plain_text(run_hook, fixture_payload):
    result = run_hook("kiro", "agentspawn", fixture_payload("kiro", "agentspawn"))
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "@context-mode/ctx_search" in text and not text.lstrip().startswith("{")


def test_process_malformed_stdin_exits_0(run_hook):
    result = run_hook("kiro", "pretooluse", b"{not json")
    assert (result.returncode, result.stdout) == (0, b"")
