"""Our guidance texts for routing decisions, with tool names in the host's naming.

Nudges are short advisory tips wrapped in `<context_guidance>`; redirects replace a
tool call and say exactly what to call instead. `p` is the prefix the host puts before
our MCP tools' names, e.g. "mcp__context-mode__".
"""

from __future__ import annotations

from ctxmode.vocab.toolnames import search_call

DNS_RETRY = "Both have network access; retry once on a transient DNS/network error (EAI_AGAIN, ETIMEDOUT, ENETUNREACH)."


def tip(text: str) -> str:
    return f"<context_guidance><tip>{text}</tip></context_guidance>"


def bash_nudge(p: str) -> str:
    return tip(
        f"Shell output lands in your context. To filter, count, parse or aggregate it, run the "
        f"commands through {p}ctx_batch_execute(commands, queries) (several) or {p}ctx_execute "
        f"(one) and print only the answer. Plain shell is fine for short fixed output and for "
        f"changing state (git, mkdir, mv, rm, cd). Shell code must use this host's shell syntax."
    )


def read_nudge(p: str, size: int | None = None) -> str:
    large = f" This file is {size:,} bytes." if size else ""
    return tip(
        f"Reading the whole file is right when you are about to edit it.{large} To analyze, "
        f"summarize or extract from it, use {p}ctx_execute_file(path, language, code): only what the code "
        f"prints reaches the conversation."
    )


def grep_nudge(p: str) -> str:
    return tip(
        f"Search results can be larger than expected. To count, filter or aggregate matches, run "
        f"the search inside {p}ctx_execute (language javascript or python) and print the summary; "
        f"use language shell only when the code matches this host's shell."
    )


def external_mcp_nudge(p: str) -> str:
    return tip(
        f"External MCP tools can return large payloads. To filter, count or aggregate, fetch the "
        f"data inside {p}ctx_execute and print only the result. For documentation you will query "
        f"again, use {p}ctx_fetch_and_index, then {p}ctx_search."
    )


def curl_redirect(p: str) -> str:
    return (
        f"ctxmode: this curl/wget call would dump a response into the context, so it was not run. "
        f"Fetch inside {p}ctx_execute(language, code) and print only what you need, or index the "
        f"page with {p}ctx_fetch_and_index(url, source) and query it with {p}ctx_search(queries). "
        f"{DNS_RETRY} (A silent download to a file, curl -sS -o FILE URL, is allowed.)"
    )


def inline_http_redirect(p: str) -> str:
    return (
        f"ctxmode: inline HTTP in a shell command would dump a response into the context, so it "
        f"was not run. Make the request inside {p}ctx_execute(language, code) and print only the "
        f"result, or use {p}ctx_fetch_and_index(url, source) then {p}ctx_search(queries). {DNS_RETRY}"
    )


def build_tool_redirect(p: str, command: str) -> str:
    suggested = command.strip() + " 2>&1 | tail -30"
    return (
        f"ctxmode: build tool output is long, so this command was not run directly. Run it as "
        f'{p}ctx_execute(language: "shell", code: {_quoted(suggested)}), or replace tail with '
        f"grep -E 'error|warning|FAIL' to keep only problems."
    )


def wrap_instead(p: str, why: str, wrapped: str) -> str:
    return (
        f"ctxmode: this command can print a lot of output ({why}), so it was not run "
        f"directly. Run exactly this instead: it prints output up to 5 KB unchanged and "
        f"keeps the exit code; bigger output is indexed and replaced by a short notice with "
        f"the errors, head, tail and the {p}ctx_search call for the rest:\n{wrapped}"
    )


def big_read(p: str, path: str, size: int, label: str, lines: int, *, bounded: bool) -> str:
    start = (
        f"ctxmode: {path} is {size:,} bytes, so this read shows its first {lines} lines."
        if bounded
        else f"ctxmode: {path} is {size:,} bytes, too big to read whole, so it was not read."
    )
    return f"{start} {_indexed_whole(p, label)}"


def cut_read(p: str, path: str, size: int, label: str) -> str:
    """A read whose result was replaced after the host ran it (plugin hosts)."""
    start = f"ctxmode: {path} is {size:,} bytes, so only the start of this read is shown above."
    return f"{start} {_indexed_whole(p, label)}"


def _indexed_whole(p: str, label: str) -> str:
    search = search_call(p + "ctx_search", label)
    return (
        f"The whole file is indexed as source '{label}': find what you need with "
        f"{search}, then read only the lines you need (offset and limit), e.g. to edit them."
    )


def webfetch_deny(p: str, url: str) -> str:
    target = _quoted(url) if url else "the URL"
    return (
        f"ctxmode: web pages are fetched into the knowledge base, not the context. Call "
        f"{p}ctx_fetch_and_index(url: {target}, source: a short label), then "
        f"{p}ctx_search(queries: [...]) for what you need; or compute the answer in one step "
        f"with {p}ctx_execute(language, code). {DNS_RETRY}"
    )


def fail_closed_deny() -> str:
    return (
        "ctxmode: the permission-policy module could not be loaded and CTXMODE_REQUIRE_SECURITY=1 "
        "is set, so every tool call is blocked. Reinstall ctxmode (ctxmode doctor shows the "
        "error) or unset CTXMODE_REQUIRE_SECURITY."
    )


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
