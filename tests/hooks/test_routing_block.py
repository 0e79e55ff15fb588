"""The SessionStart routing block: sizes per mode, host naming, subagent variant."""

from __future__ import annotations

import pytest

from ctxmode.hooks.routing_block import routing_block, routing_mode

LONGEST_PREFIX = "mcp__plugin_context-mode_context-mode__"


@pytest.mark.parametrize("prefix", ["", "mcp__context-mode__", LONGEST_PREFIX])
def test_full_block_fits_2_kb_and_minimal_is_much_shorter(prefix):
    full = routing_block(prefix, "full")
    minimal = routing_block(prefix, "minimal")
    assert len(full.encode()) <= 2048
    assert len(minimal) * 2 < len(full)
    assert routing_block(prefix, "off") == ""


def test_block_names_the_tools_with_the_host_prefix_and_the_commands():
    block = routing_block("mcp__context-mode__", "full")
    for tool in (
        "ctx_batch_execute",
        "ctx_execute",
        "ctx_execute_file",
        "ctx_fetch_and_index",
        "ctx_search",
    ):
        assert f"mcp__context-mode__{tool}" in block
    for word in ("ctx stats", "ctx doctor", "ctx upgrade", "ctx purge"):
        assert word in block
    assert "ctx stats" in routing_block("mcp__context-mode__", "minimal")


def test_subagent_block_has_no_commands_and_optionally_the_bootstrap():
    plain = routing_block("p__", "full", subagent=True)
    assert "ctx stats" not in plain and "ToolSearch" not in plain
    assert "select:p__ctx_batch_execute," in routing_block(
        "p__", "full", subagent=True, tool_search_bootstrap=True
    )


def test_mode_from_environment(monkeypatch):
    monkeypatch.delenv("CTXMODE_ROUTING", raising=False)
    assert routing_mode() == "full"
    for value, mode in (("MINIMAL", "minimal"), ("off", "off"), ("nonsense", "full")):
        monkeypatch.setenv("CTXMODE_ROUTING", value)
        assert routing_mode() == mode
