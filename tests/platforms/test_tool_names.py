"""Every mention of one of our tools, in everything we inject, uses the host's own naming."""

from __future__ import annotations

import re

import pytest

from ctxmode.hooks import guidance
from ctxmode.hooks.routing_block import routing_block
from ctxmode.platforms import REGISTRY, load
from ctxmode.vocab.platform import Platform
from ctxmode.vocab.toolnames import OWN_TOOLS, SERVER_NAME, own_tool

MENTION = re.compile(r"ctx_[a-z_]+")


def injected_texts(platform: Platform, server: str) -> dict[str, str]:
    """Routing block (session start, minimal, subagent), deny reasons, redirects and nudges."""
    p = platform.tool_prefix(server)
    bootstrap = platform.tool_search_bootstrap
    return {
        "block": routing_block(p, "full"),
        "minimal block": routing_block(p, "minimal"),
        "subagent block": routing_block(p, "full", subagent=True, tool_search_bootstrap=bootstrap),
        "curl": guidance.curl_redirect(p),
        "inline http": guidance.inline_http_redirect(p),
        "build tool": guidance.build_tool_redirect(p, "npm run build"),
        "webfetch": guidance.webfetch_deny(p, "https://example.com/"),
        "bash nudge": guidance.bash_nudge(p),
        "read nudge": guidance.read_nudge(p, 90_000),
        "grep nudge": guidance.grep_nudge(p),
        "mcp nudge": guidance.external_mcp_nudge(p),
    }


@pytest.mark.parametrize("server", [SERVER_NAME, "ctx"])
@pytest.mark.parametrize("platform_id", sorted(REGISTRY))
def test_every_tool_we_mention_is_named_as_the_host_names_it(platform_id, server):
    platform = load(platform_id)
    prefix = platform.tool_prefix(server)
    for what, text in injected_texts(platform, server).items():
        for found in MENTION.finditer(text):
            if found.group() not in OWN_TOOLS:
                continue  # e.g. the `ctx_<word>` pattern of the short command list
            start = found.start()
            assert text[start - len(prefix) : start] == prefix, (
                what,
                text[start - 40 : start + 20],
            )


@pytest.mark.parametrize("platform_id", sorted(REGISTRY))
def test_we_recognize_our_tools_under_every_host_naming(platform_id):
    platform = load(platform_id)
    for tool in OWN_TOOLS:
        assert own_tool(platform.tool_name(tool, SERVER_NAME)) == tool


def test_host_namings_measured_on_the_real_binaries():
    assert load("gemini-cli").tool_name("ctx_execute", "context-mode") == (
        "mcp_context-mode_ctx_execute"
    )
    assert load("gemini-cli").tool_prefix("my server") == "mcp_my_server_"
    assert load("copilot-cli").tool_name("ctx_execute", "context-mode") == (
        "context-mode-ctx_execute"
    )
    assert load("qwen-code").tool_name("ctx_search", "ctx") == "mcp__ctx__ctx_search"
    assert load("claude-code").tool_name("ctx_search", "ctx") == "mcp__ctx__ctx_search"
