"""Our tools are named after the server name the host really registered (real hook processes)."""

from __future__ import annotations

import json
from pathlib import Path

from ctxmode.launch.server_name import registered_server
from ctxmode.platforms import load
from hooks.hookproc import hook_env, run_hook

OURS = {"command": "/venv/bin/ctxmode", "args": ["serve"]}
CURL = {"tool_name": "Bash", "tool_input": {"command": "curl -s https://example.com/x"}}


def write_json(path: Path, document: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


def deny_reason(stdout: bytes) -> str:
    answer = json.loads(stdout)
    return answer.get("reason") or answer["hookSpecificOutput"]["permissionDecisionReason"]


def test_claude_code_names_our_tools_after_the_registered_server(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    write_json(home / ".claude.json", {"mcpServers": {"other": {"command": "x"}, "ctx": OURS}})
    project.mkdir()
    env = hook_env(HOME=str(home), CTXMODE_DIR=str(tmp_path / "data"))
    env.pop("CLAUDE_CONFIG_DIR", None)
    done = run_hook("claude-code", "pretooluse", json.dumps({**CURL, "cwd": str(project)}), env)
    reason = deny_reason(done.stdout)
    assert "mcp__ctx__ctx_execute" in reason and "context-mode" not in reason


def test_a_project_registration_wins_over_the_user_one(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    write_json(home / ".gemini" / "settings.json", {"mcpServers": {"ctx-user": OURS}})
    write_json(project / ".gemini" / "settings.json", {"mcpServers": {"ctx.proj": OURS}})
    monkeypatch.setenv("HOME", str(home))
    gemini = load("gemini-cli")
    assert registered_server(gemini, str(project)) == "ctx.proj"
    assert gemini.tool_name("ctx_search", "ctx.proj") == "mcp_ctx.proj_ctx_search"
    assert registered_server(gemini, str(tmp_path / "elsewhere")) == "ctx-user"


def test_the_answer_follows_a_changed_config_and_falls_back_to_our_name(tmp_path, monkeypatch):
    home = tmp_path / "home"
    config = home / ".copilot" / "mcp-config.json"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    copilot = load("copilot-cli")
    assert registered_server(copilot, "") == "context-mode"  # nothing registered yet
    write_json(config, {"mcpServers": {"mine": OURS, "context-mode": {"command": "node"}}})
    assert registered_server(copilot, "") == "mine"  # "context-mode" here is another program
    config.write_text("{not json", encoding="utf-8")
    assert registered_server(copilot, "") == "context-mode"


def test_our_own_tool_under_a_custom_name_is_routed_as_ours(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    write_json(home / ".claude.json", {"mcpServers": {"ctx": OURS}})
    project.mkdir()
    env = hook_env(HOME=str(home), CTXMODE_DIR=str(tmp_path / "data"))
    env.pop("CLAUDE_CONFIG_DIR", None)
    call = {
        "tool_name": "mcp__ctx__ctx_execute",
        "tool_input": {"language": "shell", "code": "ls"},
        "cwd": str(project),
    }
    done = run_hook("claude-code", "pretooluse", json.dumps(call), env)
    updated = json.loads(done.stdout)["hookSpecificOutput"]["updatedInput"]
    assert updated["cwd"] == str(project)  # pinned like any call to our ctx_execute
