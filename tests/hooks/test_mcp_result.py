"""Other MCP servers' results on the hook path: each host's shape and naming, the host's
saved copy, the exemption list, and the notice a structured result gets."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.hooks import mcp_notice
from ctxmode.hooks.mcp_result import passthrough, result_text, shape_mcp_result
from ctxmode.platforms import load
from ctxmode.store.knowledge import KnowledgeBase
from ctxmode.vocab.event import HookEvent
from ctxmode.vocab.toolnames import mcp_tool

BIG = "".join(f"row {i} of the listing, value {i * 7}\n" for i in range(4_000))


@pytest.mark.parametrize(
    ("name", "servers", "expected"),
    [
        ("mcp__fs__read_text_file", (), ("fs", "read_text_file")),  # Claude Code, Qwen, Codex
        ("mcp_fs_read_text_file", ("fs",), ("fs", "read_text_file")),  # Gemini CLI
        ("mcp_my_fs_read_text_file", ("my_fs",), ("my_fs", "read_text_file")),
        ("mcp_fs_read_text_file", (), ("fs", "read_text_file")),  # not configured: first `_`
        ("playwright-browser_snapshot", ("playwright",), ("playwright", "browser_snapshot")),
        ("my-fs-read", ("my", "my-fs"), ("my-fs", "read")),  # Copilot CLI: the longest wins
        ("fs_read_text_file", ("fs",), ("fs", "read_text_file")),  # OpenCode, Kilo
        ("fs__read_text_file", ("fs",), ("fs", "read_text_file")),  # OpenClaw
        ("@fs/read", (), ("fs", "read")),  # Kiro
    ],
)
def test_each_hosts_form_names_server_and_tool(name, servers, expected):
    assert mcp_tool(name, lambda: servers) == expected


@pytest.mark.parametrize(
    ("name", "servers"),
    [
        ("mcp__context-mode__ctx_search", ()),
        ("mcp_context-mode_ctx_search", ("context-mode",)),
        ("context-mode-ctx_search", ()),
        ("view", ("fs",)),  # a built-in tool
        ("bash", ()),
        ("fs-", ("fs",)),
    ],
)
def test_our_tools_and_built_ins_are_not_external(name, servers):
    assert mcp_tool(name, lambda: servers) is None


def test_the_config_is_read_only_for_forms_a_name_does_not_settle():
    def servers():
        raise AssertionError("read")

    assert mcp_tool("mcp__fs__read", servers) == ("fs", "read")


@pytest.mark.parametrize(
    "output",
    [
        "x\ny",
        [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
        {"content": [{"type": "text", "text": "x\ny"}]},  # Codex
        {"llmContent": [{"text": "x\ny"}]},  # Gemini CLI, Qwen Code
        {"llmContent": "x\ny"},
        {"textResultForLlm": "x\ny", "resultType": "success"},  # Copilot CLI
    ],
)
def test_result_text_reads_every_hosts_shape(output):
    assert result_text(output).replace("\n", "") == "xy"


def test_passthrough_lists_servers_and_tools(monkeypatch):
    monkeypatch.setenv("CTXMODE_MCP_PASSTHROUGH", "playwright, fs__read_text_file")
    assert passthrough("playwright", "browser_snapshot", "mcp__playwright__browser_snapshot")
    assert passthrough("fs", "read_text_file", "fs-read_text_file")
    assert not passthrough("fs", "list_directory", "fs-list_directory")


def _event(tmp_path, tool, output) -> HookEvent:
    return HookEvent("claude-code", "PostToolUse", tool=tool, tool_output=output,
                     project_dir=str(tmp_path), session_id="s")  # fmt: skip


def _search(tmp_path, label: str, query: str) -> str:
    with KnowledgeBase.open(str(tmp_path)) as kb:
        hits = kb.search([query], limit=3, source=label)[0].hits
    return "\n".join(hit.snippet for hit in hits)


def test_a_small_result_passes_and_a_big_one_is_indexed(data_root, tmp_path):
    claude = load("claude-code")
    assert shape_mcp_result(_event(tmp_path, "mcp__fs__read", "small"), "p_", claude) is None
    decision = shape_mcp_result(_event(tmp_path, "mcp__fs__read", BIG), "p_", claude)
    label = re.search(r'p_ctx_search\(queries=\[[^\]]*\], source="([^"]+)"\)', decision.context)
    assert len(decision.context.encode()) <= mcp_notice.NOTICE_BYTES
    assert "row 2345 of" in _search(tmp_path, label.group(1), "row 2345")


def test_an_exempted_server_passes(data_root, tmp_path, monkeypatch):
    monkeypatch.setenv("CTXMODE_MCP_PASSTHROUGH", "fs")
    event = _event(tmp_path, "mcp__fs__read", BIG)
    assert shape_mcp_result(event, "p_", load("claude-code")) is None


def test_the_hosts_saved_copy_is_indexed_not_its_pointer(data_root, tmp_path):
    saved = tmp_path / "tool-results" / "mcp-fs-read-1.txt"
    saved.parent.mkdir()
    saved.write_text(json.dumps([{"type": "text", "text": BIG}]))
    pointer = (f"Error: result (320,000 characters) exceeds maximum allowed tokens. Output has "
               f"been saved to {saved}.\nFormat: JSON array with schema: [{{type, text}}]")  # fmt: skip
    decision = shape_mcp_result(_event(tmp_path, "mcp__fs__read", pointer), "", load("claude-code"))
    label = re.search(r'source="([^"]+)"', decision.context).group(1)
    assert "row 3999 of" in _search(tmp_path, label, "row 3999")


def snapshot(rows: int) -> str:
    lines = ["### Page state", "- Page URL: http://127.0.0.1:8000/orders",
             "- Page Title: Orders", "```yaml", '- heading "Orders" [level=1] [ref=e1]',
             '- button "New order" [ref=e2]', "- table [ref=e3]:"]  # fmt: skip
    for i in range(rows):
        lines += [f'  - row "order {i} shipped to city {i % 50}" [ref=e{i + 10}]:',
                  f'    - link "Open order {i}" [ref=e{i + 100_000}]']  # fmt: skip
    return "\n".join([*lines, "```"])


def test_a_snapshot_keeps_url_title_headings_and_refs(data_root, tmp_path):
    text = snapshot(2_000)
    decision = shape_mcp_result(_event(tmp_path, "mcp__pw__browser_snapshot", text), "",
                                load("claude-code"))  # fmt: skip
    notice = decision.context
    assert "Page URL: http://127.0.0.1:8000/orders" in notice and "Page Title: Orders" in notice
    assert 'heading "Orders"' in notice and 'button "New order" [ref=e2]' in notice
    assert "more interactive elements" in notice and len(notice.encode()) <= 6_000
    label = re.search(r'source="([^"]+)"', notice).group(1)
    assert "order 1234 shipped" in _search(tmp_path, label, "order 1234 shipped")


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=1_999))
def test_every_row_of_a_json_result_is_found_by_one_search(row):
    rows = [{"id": i, "name": f"customer-{i:04d}", "city": f"city {i % 40}"} for i in range(2_000)]
    value = {"total": 2_000, "items": rows}
    lines = list(mcp_notice.json_lines(value))
    assert f'items[{row}].name = "customer-{row:04d}"' in lines
    summary = mcp_notice.json_summary(value, 3_000)
    assert "items: [2000 ×" in summary and len(summary.encode()) <= 3_200


@pytest.mark.parametrize("servers", [["context-mode", "fs"], []])
def test_a_plugin_hosts_mcp_result_is_cut_when_its_shim_names_the_server(
    data_root, tmp_path, servers
):
    from ctxmode.hooks.plugin_rules import handle

    payload = {"tool": "fs_read_text_file", "input": {"path": "x"}, "cwd": str(tmp_path),
               "sessionId": "s", "tools": ["context-mode_ctx_execute", "context-mode_ctx_search"],
               "mcpServers": servers, "result": {"output": BIG, "metadata": {}}}  # fmt: skip
    event = load("opencode").parse(payload, "after")
    decision = handle(event)
    if not servers:  # no server of that name: a built-in tool, not ours to cut here
        assert decision is None
        return
    assert 'context-mode_ctx_search(queries=["<what you need>"]' in decision.context
    assert len(decision.context.encode()) <= mcp_notice.NOTICE_BYTES


def test_qwen_codes_cut_with_its_head_points_at_the_whole(data_root, tmp_path):
    saved = tmp_path / "mcp__fs__read_1.output"
    saved.write_text(BIG)
    kept = (f"Tool output was too large and has been truncated.\nThe full output has been saved "
            f"to: {saved}\nTo read the complete output, use the read_file tool.\n\n" + BIG[:2_000])  # fmt: skip
    event = _event(tmp_path, "mcp__fs__read", {"llmContent": [{"text": kept}]})
    decision = shape_mcp_result(event, "", load("qwen-code"))
    label = re.search(r'source="([^"]+)"', decision.context).group(1)
    assert "row 3999 of" in _search(tmp_path, label, "row 3999")


def test_a_servers_own_saved_to_line_is_not_a_pointer(data_root, tmp_path):
    shot = tmp_path / "page.png"
    shot.write_bytes(b"\x89PNG")
    event = _event(tmp_path, "mcp__pw__browser_take_screenshot", f"Screenshot saved to {shot}")
    assert shape_mcp_result(event, "", load("claude-code")) is None


def _openclaw_after(tmp_path, text, longest):
    payload = {"tool": "fs__read_text_file", "input": {"path": "x"}, "cwd": str(tmp_path),
               "sessionId": "s", "callId": "c1", "tools": ["context-mode__ctx_execute"],
               "mcpServers": ["fs"],
               "result": {"text": text, "isError": False, "longestBlock": longest}}  # fmt: skip
    return load("openclaw").parse(payload, "after")


def test_openclaw_cuts_a_result_its_middleware_saw_whole_but_not_one_it_cut(data_root, tmp_path):
    from ctxmode.hooks.plugin_rules import handle
    from ctxmode.platforms.openclaw import MIDDLEWARE_TEXT_CHARS

    seen = BIG[:90_000]
    whole = handle(_openclaw_after(tmp_path, seen, len(seen)))
    assert 'context-mode__ctx_search(queries=["<what you need>"]' in whole.context
    # A block at OpenClaw's cut (or one short of it: a split surrogate pair) is only a part.
    for longest in (MIDDLEWARE_TEXT_CHARS, MIDDLEWARE_TEXT_CHARS - 1):
        assert handle(_openclaw_after(tmp_path, BIG[:longest], longest)) is None


def test_dsh_cuts_another_servers_result_its_shim_names(data_root, tmp_path):
    from ctxmode.hooks.plugin_rules import handle

    payload = {"tool": "mcp__fs__read_text_file", "input": {"path": "x"}, "cwd": str(tmp_path),
               "sessionId": "s", "tools": ["mcp__context-mode__ctx_execute", "mcp__fs__read_text_file"],
               "mcpServers": ["context-mode", "fs"],
               "result": {"content": [{"type": "text", "text": BIG}], "isError": False}}  # fmt: skip
    decision = handle(load("dsh").parse(payload, "post-execute"))
    assert 'mcp__context-mode__ctx_search(queries=["<what you need>"]' in decision.context
    answer = json.loads(
        load("dsh").render(load("dsh").parse(payload, "post-execute"), decision).stdout
    )
    assert answer == {"kind": "accept", "content": [{"type": "text", "text": decision.context}]}
