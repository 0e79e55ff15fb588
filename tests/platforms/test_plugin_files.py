"""The Claude Code plugin files in the repository and how the hooks name a plugin's tools."""

from __future__ import annotations

import json
from pathlib import Path

from ctxmode.launch.server_name import registered_server
from ctxmode.platforms import _plugin_files, claude_code, load

REPOSITORY = Path(__file__).resolve().parents[2]


def test_the_repository_plugin_files_are_the_rendered_ones() -> None:
    # Regenerate with `python -m ctxmode.platforms._plugin_files` after changing the hooks.
    assert _plugin_files.stale_files(str(REPOSITORY)) == []


def test_the_plugin_registers_the_same_hooks_as_setup() -> None:
    hooks = json.loads(_plugin_files.plugin_files()["plugins/claude-code/hooks/hooks.json"])
    assert set(hooks["hooks"]) == set(claude_code.hook_commands("ctxmode hook"))


def test_a_hook_started_by_the_plugin_names_the_plugins_tools(tmp_path, monkeypatch) -> None:
    for relpath, text in _plugin_files.plugin_files().items():
        target = tmp_path / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    platform = load("claude-code")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CLAUDE_PLUGIN_ROOT", raising=False)
    assert registered_server(platform, str(tmp_path)) == "context-mode"
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(tmp_path / "plugins" / "claude-code"))
    server = registered_server(platform, str(tmp_path))
    assert (
        platform.tool_name("ctx_search", server) == "mcp__plugin_ctxmode_context-mode__ctx_search"
    )
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(tmp_path / "another-plugin"))  # no manifest
    assert registered_server(platform, str(tmp_path)) == "context-mode"
