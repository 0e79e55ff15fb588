"""Tier 2 for other MCP servers: a bulky result is indexed whole and a notice replaces it.

Each host hands its post-tool hook the result in its own shape (`result_text`: a string,
MCP content blocks, `{content}`, Gemini CLI and Qwen Code's `{llmContent}`, Copilot CLI's
`textResultForLlm`) and names the tool in its own form (`mcp__fs__read`, `mcp_fs_read`,
`fs-read`, ...; `ctxmode.vocab.toolnames.mcp_tool`, with the server names read from the
host's own MCP config for the forms a name alone does not settle). Where the host kept the
result in a file and handed over only a pointer (Claude Code over its MCP output limit),
the file is indexed. A result up to CTXMODE_MCP_OUTPUT_LIMIT characters, or from a server
or tool listed in CTXMODE_MCP_PASSTHROUGH, passes untouched.
"""

from __future__ import annotations

import os

from ctxmode import paths, settings
from ctxmode.vocab.event import Decision, HookEvent
from ctxmode.vocab.toolnames import mcp_tool, own_tool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.vocab.platform import Platform

POINTER_CHARS = 1_000  # a host's pointer to its saved copy opens what it hands over
# How hosts say they kept only part (Claude Code: "exceeds maximum allowed tokens", Qwen
# Code: "Tool output was too large", Copilot CLI: "Output too large to read at once"): a
# server's own "saved to <file>" (a screenshot) is not a pointer to its result.
HOST_CUT_WORDS = ("exceeds maximum allowed tokens", "too large")
MAX_SAVED_BYTES = 64 * 1024 * 1024


def _blocks_text(blocks: list) -> str | None:
    texts = [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(texts) if texts else None


def result_text(output: object) -> str | None:
    """The text of an MCP tool's result in any host's shape; None for none."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return _blocks_text(output)
    if not isinstance(output, dict):
        return None
    for key in ("content", "llmContent", "textResultForLlm", "text_result_for_llm"):
        value = output.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and (text := _blocks_text(value)) is not None:
            return text
    structured = output.get("structuredContent")
    if structured is not None:
        import json

        return json.dumps(structured, ensure_ascii=False)
    return None


def saved_copy(text: str) -> str | None:
    """The file a host saved the whole result to, when `text` is what it kept and says so."""
    head = text[:POINTER_CHARS].lower()
    if "saved to" not in head or not any(words in head for words in HOST_CUT_WORDS):
        return None
    import re

    found = re.search(r"(?i)saved to:?\s+(/[^\s]+?)[.,;]?(?:\s|$)", text[:POINTER_CHARS])
    path = found.group(1) if found else None
    return path if path and os.path.isfile(path) else None


def read_saved(path: str) -> str | None:
    """The result's text from a host's saved copy (raw text, or JSON content blocks)."""
    try:
        if os.path.getsize(path) > MAX_SAVED_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            raw = handle.read()
    except OSError as error:
        paths.append_log("hook-errors.log", f"cannot read a host's saved MCP result: {error!r}")
        return None
    if raw.lstrip()[:1] in ("[", "{"):
        import json

        try:
            return result_text(json.loads(raw)) or raw
        except ValueError:
            return raw
    return raw


def passthrough(server: str, tool: str, host_name: str) -> bool:
    """Is this server or tool exempted by CTXMODE_MCP_PASSTHROUGH (`server`, `server__tool`)?"""
    listed = {word.strip() for word in settings.words(settings.MCP_PASSTHROUGH) or ()}
    return bool(listed & {server, f"{server}__{tool}", host_name})


def shape_mcp_result(event: HookEvent, prefix: str, platform: Platform) -> Decision | None:
    """A replace-output decision for another MCP server's oversized result, else None."""
    text = result_text(event.tool_output)
    if text is None:
        return None
    saved = saved_copy(text)
    if saved is None and len(text) <= settings.integer(settings.MCP_OUTPUT_LIMIT):
        return None
    from ctxmode.launch.server_name import configured_servers

    found = mcp_tool(event.tool, lambda: configured_servers(platform, event.project_dir))
    if found is None or passthrough(*found, event.tool):
        return None
    whole = read_saved(saved) if saved else text
    if whole is None:
        return None
    return index_and_notice(event, whole, "__".join(found), prefix)


def shape_named_result(
    event: HookEvent,
    text: str,
    saved: str,
    servers: list[str],
    prefix: str,
    named: tuple[str, str] | None = None,
) -> Decision | None:
    """The same for a plugin host's result: its shim names the host's MCP servers, or the
    (server, tool) of this call (`named`) where the host's result says them, and a host
    that kept only part of the result names the file holding the whole (`saved`)."""
    from ctxmode.hooks.plugin_rules import host_tool_name

    host_tool = host_tool_name(event)
    whole = (read_saved(saved) if saved else None) or text
    if len(whole) <= settings.integer(settings.MCP_OUTPUT_LIMIT):
        return None
    found = named or mcp_tool(host_tool, lambda: servers)
    if found is None or own_tool(found[1]) or passthrough(*found, host_tool):
        return None
    return index_and_notice(event, whole, "__".join(found), prefix)


def index_and_notice(event: HookEvent, text: str, tool: str, prefix: str) -> Decision | None:
    """Index `text` whole, answer the notice; None (passes untouched) if it was not indexed."""
    from ctxmode.hooks import mcp_notice
    from ctxmode.sandbox.budget import IndexGuard, call_cap, database_path
    from ctxmode.sandbox.indexed_notice import notice_label, project_knowledge

    kind, value = mcp_notice.kind_of(text)
    label = notice_label("mcp", tool, "mcp")
    lines = mcp_notice.indexable_lines(text, kind, value)
    try:
        with project_knowledge(event.project_dir) as kb:
            guard = IndexGuard(call_cap(), database_path(kb.conn))  # the call's bound
            pieces = guard.pieces(mcp_notice.pieces(lines))
            stored = kb.index_stream(label, pieces, fmt="plain")
    except Exception as error:  # nothing may be cut that cannot be found again
        paths.append_log("hook-errors.log", f"MCP result not indexed: {error!r}")
        return None
    note = f"Incomplete: {guard.note()}." if guard.stopped else ""
    notice = mcp_notice.notice(text, kind, value, tool=tool, label=label, prefix=prefix,
                               chunks=int(stored.chunk_count), note=note)  # fmt: skip
    meta = {"label": label, "bytes": len(text.encode("utf-8", "surrogatepass"))}
    return Decision("replace_output", context=notice, meta=meta)
