"""route_pre_tool_use: the host-free decision for each kind of tool call."""

from __future__ import annotations

import json
import os

import pytest

from ctxmode.hooks.routing import route_pre_tool_use
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent

P = "mcp__context-mode__"


@pytest.fixture(autouse=True)
def no_user_rules(tmp_path, monkeypatch):
    """Permission rules come only from what a test writes into its project."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    for name in ("CTXMODE_REQUIRE_SECURITY", "CONTEXT_MODE_REQUIRE_SECURITY", "CTXMODE_ROUTING"):
        monkeypatch.delenv(name, raising=False)


def call(tool, tool_input, *, session="s1", project="/p", ready=True, **options):
    event = HookEvent("test", ev.PRE_TOOL_USE, tool=tool, tool_input=tool_input,
                      session_id=session, project_dir=project)  # fmt: skip
    return route_pre_tool_use(event, P, ready, **options)


def test_dangerous_curl_is_a_command_redirect_only_when_mcp_is_ready():
    decision = call("Bash", {"command": "curl https://x", "description": "d"})
    assert decision.is_command_redirect
    assert decision.updated_input["description"] == "d"
    assert decision.updated_input["command"].startswith('echo "ctxmode:')
    assert f"{P}ctx_fetch_and_index" in decision.reason
    assert decision.meta["type"] == "bash-redirected"
    assert call("Bash", {"command": "curl https://x"}, ready=False) is None


def test_safe_download_passes_without_any_nudge():
    assert call("Bash", {"command": "curl -sS -o out.json https://x && ./gradlew build"}) is None
    assert call("Bash", {"command": "curl -sS -o out.json https://x"}, session="s2") is None


def test_inline_http_and_build_tools_are_redirected():
    http = call("Bash", {"command": "python -c 'import requests; requests.get(\"https://x\")'"})
    assert http.is_command_redirect and "inline HTTP" in http.reason
    # Wrapping is left out when a `cd` would no longer reach the host's shell.
    build = call("Bash", {"command": 'cd app; mvn -q "package"'})
    assert build.is_command_redirect
    assert 'cd app; mvn -q \\"package\\" 2>&1 | tail -30' in build.reason
    # A leading `cd DIR &&` stays in the host's shell, so the rest is wrapped instead.
    wrapped = call("Bash", {"command": 'cd app && mvn -q "package"'})
    assert wrapped.meta["type"] == "bash-wrapped"
    assert wrapped.updated_input["command"].startswith("cd app && ")


def test_redirect_echo_is_valid_shell_that_prints_the_guidance():
    import subprocess

    decision = call("Bash", {"command": "wget https://x/$HOME"})
    printed = subprocess.run(
        ["sh", "-c", decision.updated_input["command"]], capture_output=True, text=True, check=True
    ).stdout
    assert printed.strip() == decision.reason


def test_bash_nudge_is_once_per_session_and_skips_bounded_commands():
    assert call("Bash", {"command": "git status"}) is None
    first = call("Bash", {"command": "node scripts/report.js"})
    assert first.action == ev.CONTEXT and "<context_guidance>" in first.context
    assert call("Bash", {"command": "node scripts/report.js"}) is None
    assert call("Bash", {"command": "node scripts/report.js"}, session="other").action == ev.CONTEXT


def test_bash_nudge_threshold(monkeypatch):
    monkeypatch.setenv("CONTEXT_MODE_BASH_NUDGE_MIN_COMMAND_BYTES", "100")
    assert call("Bash", {"command": "node scripts/report.js"}) is None
    assert call("Bash", {"command": "curl https://x"}).is_command_redirect  # never relaxed


def test_odd_shell_inputs_pass_through():
    for tool_input in ({}, {"command": 42}, {"command": ""}, {"cmd": None}):
        assert call("Bash", tool_input) is None


def test_read_nudge_once_but_large_files_every_time(tmp_path):
    small = tmp_path / "small.txt"
    small.write_text("x")
    large = tmp_path / "large.log"
    large.write_bytes(b"x" * 50_001)
    assert call("Read", {"file_path": str(small)}).action == ev.CONTEXT
    assert call("Read", {"file_path": str(small)}) is None
    for _ in range(2):  # without our MCP server (else the big read is bounded, see test_bigread)
        decision = call("Read", {"file_path": "large.log"}, project=str(tmp_path), ready=False)
        assert decision.action == ev.CONTEXT and "50,001 bytes" in decision.context
        assert decision.meta["bytes_avoided"] == 50_001
    exact = tmp_path / "exact"
    exact.write_bytes(b"x" * 50_000)
    assert call("Read", {"file_path": str(exact)}, session="s9").meta is None


def test_grep_nudge_once():
    assert call("Grep", {"pattern": "x"}).action == ev.CONTEXT
    assert call("Grep", {"pattern": "x"}) is None


def test_webfetch_is_always_denied_when_ready():
    for _ in range(2):
        decision = call("WebFetch", {"url": "https://docs.x/a"})
        assert decision.action == ev.DENY and '"https://docs.x/a"' in decision.reason
    assert call("web_fetch", {"URL": "https://y"}).action == ev.DENY
    assert call("WebFetch", {"url": "https://docs.x/a"}, ready=False) is None


def test_agent_and_task_prompts_get_the_block_once():
    decision = call(
        "Agent", {"prompt": "Do it.", "subagent_type": "Bash"}, tool_search_bootstrap=True
    )
    assert decision.action == ev.MODIFY
    prompt = decision.updated_input["prompt"]
    assert prompt.startswith("Do it.\n\n<ctxmode_routing>") and "ToolSearch" in prompt
    assert decision.updated_input["subagent_type"] == "general-purpose"
    assert call("Agent", decision.updated_input) is None  # already carries the block
    task = call("Task", {"objective": "Look."})
    assert task.updated_input["objective"].startswith("Look.\n\n<ctxmode_routing>")
    assert "ToolSearch" not in task.updated_input["objective"]
    assert call("agent", {}).updated_input["prompt"].startswith("<ctxmode_routing>")
    for subagent_tool in ("task", "invoke_agent"):  # Copilot CLI's and Gemini CLI's
        updated = call(subagent_tool, {"prompt": "Count."}).updated_input
        assert updated["prompt"].startswith("Count.\n\n<ctxmode_routing>")


def test_agent_injection_respects_routing_off(monkeypatch):
    monkeypatch.setenv("CTXMODE_ROUTING", "off")
    assert call("Agent", {"prompt": "Do it."}) is None


def test_own_shell_tools_get_cwd_pinned_where_the_host_allows():
    shell_call = {"language": "shell", "code": "ls"}
    assert call("mcp__context-mode__ctx_execute", shell_call, pin_cwd=True).updated_input == {
        **shell_call, "cwd": "/p"
    }  # fmt: skip
    assert call("mcp__context-mode__ctx_execute", shell_call) is None
    assert call("ctx_execute", {**shell_call, "cwd": "/else"}, pin_cwd=True) is None
    assert call("ctx_execute", {"language": "python", "code": "1"}, pin_cwd=True) is None
    batch = call("ctx_batch_execute", {"commands": []}, pin_cwd=True)
    assert batch.updated_input["cwd"] == "/p"
    assert call("ctx_search", {"queries": ["x"]}, pin_cwd=True) is None


def test_external_mcp_nudge_every_nth_call(monkeypatch):
    monkeypatch.setenv("CTXMODE_EXTERNAL_MCP_NUDGE_EVERY", "3")
    fired = [call("mcp__github__list", {}) is not None for _ in range(7)]
    assert fired == [True, False, False, True, False, False, True]
    assert call("mcp__plugin_context-mode_context-mode__ctx_search", {}) is None


def test_external_mcp_nudge_for_a_name_only_the_config_settles(monkeypatch):
    # Copilot CLI's `<server>-<tool>`: another server's tool only if that server is configured.
    monkeypatch.setenv("CTXMODE_EXTERNAL_MCP_NUDGE_EVERY", "1")
    servers = lambda: ["playwright", "context-mode"]  # noqa: E731
    assert call("playwright-browser_snapshot", {}, mcp_servers=servers) is not None
    assert call("playwright-browser_snapshot", {}) is None
    assert call("context-mode-ctx_search", {}, mcp_servers=servers) is None
    assert call("other-browser_snapshot", {}, mcp_servers=servers) is None


def test_other_tools_pass_through():
    for tool in ("Glob", "Edit", "Write", "WebSearch", "LS", "apply_patch", ""):
        assert call(tool, {"x": 1}) is None


def write_rules(project, **permissions):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": permissions}))


def test_permission_rules_deny_and_ask_before_routing(tmp_path):
    write_rules(tmp_path, deny=["Bash(sudo:*)"], ask=["Bash(git push:*)"], allow=["Bash(curl:*)"])
    denied = call("Bash", {"command": "echo hi && sudo rm -rf /x"}, project=str(tmp_path))
    assert denied.action == ev.DENY and "sudo" in denied.reason
    assert call("Bash", {"command": "git push origin"}, project=str(tmp_path)).action == ev.ASK
    # an allow rule does not short-circuit routing
    assert call("Bash", {"command": "curl https://x"}, project=str(tmp_path)).is_command_redirect
    shell = call("ctx_execute", {"language": "shell", "code": "sudo ls"}, project=str(tmp_path))
    assert shell.action == ev.DENY


def test_rules_apply_even_without_a_live_mcp_server(tmp_path):
    write_rules(tmp_path, deny=["Bash(rm -rf *)"])
    decision = call("Bash", {"command": "rm -rf /"}, project=str(tmp_path), ready=False)
    assert decision == Decision.deny(decision.reason) and decision.reason


def test_large_read_size_check_survives_odd_paths():
    for path in ("\0bad", "/nonexistent/x", os.sep, 5):
        decision = call("Read", {"file_path": path}, session=f"odd-{path!r}")
        assert decision is None or decision.meta is None


@pytest.mark.parametrize("module", ["ctxmode.policy.permissions", "ctxmode.policy.rules"])
def test_a_missing_policy_module_fails_open_unless_required(monkeypatch, module):
    import sys

    monkeypatch.setitem(sys.modules, module, None)  # import now fails
    assert call("Bash", {"command": "curl https://x"}).is_command_redirect
    monkeypatch.setenv("CTXMODE_REQUIRE_SECURITY", "1")
    for tool in ("Glob", "Bash", "Edit"):
        decision = call(tool, {})
        assert decision.action == ev.DENY and "CTXMODE_REQUIRE_SECURITY" in decision.reason
