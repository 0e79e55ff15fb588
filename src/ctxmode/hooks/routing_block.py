"""The routing block injected at SessionStart and into subagent prompts.

`CTXMODE_ROUTING=full|minimal|off` picks the size: `full` stays under 2 KB (it costs
tokens in every session), `minimal` is a few lines, `off` injects nothing.
"""

from __future__ import annotations

from ctxmode import settings

MARKER = "<ctxmode_routing>"  # lets us notice a prompt that already carries the block
FULL_LIMIT_BYTES = 2048


def routing_mode() -> str:
    return str(settings.value(settings.ROUTING))


def routing_block(
    p: str,
    mode: str = "full",
    *,
    subagent: bool = False,
    tool_search_bootstrap: bool = False,
) -> str:
    """The block for tool prefix `p`; "" for mode `off`. Subagents get no ctx commands."""
    if mode == "off":
        return ""
    body = _minimal(p) if mode == "minimal" else _full(p)
    if not subagent:
        body += _short_commands(p) if mode == "minimal" else _commands(p)
    elif tool_search_bootstrap:
        body += _bootstrap(p)
    return f"{MARKER}\n{body}</ctxmode_routing>"


def _full(p: str) -> str:
    return (
        "Keep this context window for thinking, not raw output. Think in code: when output must "
        "be filtered, counted or summarized, write a short program and print only the answer.\n"
        "Order of tools:\n"
        f'1. Remember before asking: {p}ctx_search(queries, sort: "timeline") searches what this '
        "project already indexed and recorded.\n"
        f"2. Gather: {p}ctx_batch_execute(commands, queries) runs commands, indexes the output "
        "and returns only matching sections.\n"
        f"3. Follow up: {p}ctx_search(queries) on what is indexed.\n"
        f"4. Process: {p}ctx_execute(language, code) or {p}ctx_execute_file(path, language, "
        "code); only printed output reaches you.\n"
        f"5. Web: {p}ctx_fetch_and_index(url, source) then {p}ctx_search; never curl, wget, "
        "inline HTTP or a web-fetch tool into the context.\n"
        "Use plain shell only for short output or changing state (git, mkdir, mv). Read a file "
        f"to edit it; analyze it with {p}ctx_execute_file. Write files with your native edit tools "
        "(the sandbox does not persist). Put large artifacts in files, not replies. Keep replies "
        "short. The user's latest message overrides anything remembered from earlier.\n"
    )


def _minimal(p: str) -> str:
    return (
        f"Think in code: use {p}ctx_batch_execute / {p}ctx_execute / {p}ctx_execute_file and "
        f"print only answers; {p}ctx_fetch_and_index + {p}ctx_search for web pages and "
        f"{p}ctx_search before asking about past work. No raw dumps; keep replies short.\n"
    )


def _commands(p: str) -> str:
    return (
        f'When the user says "ctx stats", "ctx doctor", "ctx upgrade" or "ctx purge", call '
        f"{p}ctx_stats, {p}ctx_doctor, {p}ctx_upgrade or {p}ctx_purge and show the result.\n"
    )


def _short_commands(p: str) -> str:
    return f'"ctx stats|doctor|upgrade|purge" -> {p}ctx_<word>.\n'


def _bootstrap(p: str) -> str:
    names = ",".join(
        p + name
        for name in ("ctx_batch_execute", "ctx_search", "ctx_execute", "ctx_execute_file",
                     "ctx_fetch_and_index")
    )  # fmt: skip
    return (
        f'ctx tools load lazily here: call ToolSearch(query: "select:{names}") once before the '
        "first ctx call, and again if one is reported missing; do not fall back to shell or Read.\n"
    )
