"""Tool names across hosts: canonical names, our own tools, other servers' MCP tools."""

from __future__ import annotations

import pytest

from ctxmode.vocab.toolnames import canonical_tool_name, mcp_tool, own_tool, runs_ctxmode


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("mcp__context-mode__ctx_search", "ctx_search"),
        ("mcp_context-mode_ctx_search", "ctx_search"),  # Gemini CLI
        ("context-mode-ctx_search", "ctx_search"),  # Copilot CLI
        ("context-mode_ctx_search", "ctx_search"),
        ("@context-mode/ctx_search", "ctx_search"),
        ("ctx_search", "ctx_search"),
        ("mcp__github__ctx_search", ""),  # another server's tool of the same name
        ("github-ctx_search", ""),
        ("mcp__context-mode__ctx_nope", ""),
    ],
)
def test_own_tool(name, expected):
    assert own_tool(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("mcp__github__list_issues", True),
        ("mcp_github_list_issues", True),  # Gemini CLI
        ("mcp__context-mode__ctx_search", False),
        ("mcp_context-mode_ctx_search", False),
        ("MCP:list_issues", True),
        ("Bash", False),
    ],
)
def test_names_alone_that_say_another_server(name, expected):
    assert (mcp_tool(name, tuple) is not None) == expected


def test_cursor_fetch_tools_are_web_fetches_not_external_mcp():
    assert canonical_tool_name("mcp_web_fetch") == "WebFetch"


def test_runs_ctxmode_looks_at_command_and_args():
    assert runs_ctxmode({"command": "/v/bin/ctxmode", "args": ["serve"]})
    assert runs_ctxmode({"command": "/v/bin/python", "args": ["-m", "ctxmode", "serve"]})
    assert not runs_ctxmode({"command": "npx", "args": ["context-mode"]})
    assert not runs_ctxmode("ctxmode")
