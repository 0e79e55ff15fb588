"""Decisions for plugin hosts (in-process JS plugins), whatever the host.

A plugin host's shim sends each tool call with the plugin's config (keys as in its
`Config` schema) and the names of the tools the host offers. From those this module
decides, in host-free terms:

- before a call (Tier 1): deny a tool from `denyTools`, and run shell commands through the
  same routing every command-hook host uses (`route_pre_tool_use`); a redirect rewrites
  the command where the host takes changed arguments, else becomes a deny carrying its
  guidance; where the host takes changed arguments every shell command the wrapper runs
  unchanged goes through it;
- after a call (Tier 2): replace an oversized successful result of a `truncateTools`
  tool by a notice, the full output indexed (`ctxmode.hooks.cut_output`; for a read of
  a file within the project, the file itself from disk), and so another
  MCP server's (`ctxmode.hooks.mcp_result`; the shim names the servers in `mcpServers`);
- the routing section for the system prompt, with the tool names the host really offers.

Our MCP tools' prefix is detected from the host's tool registry (the server whose tools
include `ctx_execute`, or `serverName` when set): a reason naming a tool the model
cannot call is worse than none, so nothing is denied while our server is not detected.
"""

from __future__ import annotations

import os

from ctxmode import settings
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent
from ctxmode.vocab.toolnames import canonical_tool_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: `typing` stays off the hook path
    from typing import Any, TypeVar

    T = TypeVar("T")

DEFAULTS: dict[str, Any] = {  # each value of the type `Settings` checks the key for
    "enabled": True,
    "denyTools": ["web_fetch"],
    "truncateTools": ["pwsh", "read", "grep", "glob"],
    "maxResultBytes": 20_000,
    "maxResultBytesPerTool": {},  # tool name -> its own limit (DSH's schema sets grep's)
    "minCommandBytes": 0,
    "readThresholdBytes": 50_000,
    "interceptSubagent": False,
    "serverName": "",
}


class ToolResult:
    """A finished tool call as the host rendered it, in host-free terms.

    `text`: what the model would see. `exit_code`: a shell's exit status (None for other
    tools). `full_stdout_path`: a file holding the whole stdout when `text` kept only part
    of it; then `after_stdout` is the rest of `text` after the stdout part (stderr, exit).
    `matches`: for a content search, every match as (path, line number, line), also those
    the host left out of `text`. `host_cut`: the host kept only part of the output in
    `text` and said where the rest went, if anywhere (`full_stdout_path`).
    """

    __slots__ = (
        "after_stdout", "exit_code", "full_stdout_path", "host_cut", "is_error", "matches", "text"
    )  # fmt: skip

    def __init__(
        self,
        text: str,
        is_error: bool = False,
        exit_code: int | None = None,
        full_stdout_path: str = "",
        after_stdout: str = "",
        matches: list[tuple[str, int, str]] | None = None,
        host_cut: bool = False,
    ) -> None:
        self.text = text
        self.matches = matches or []
        self.is_error = is_error
        self.exit_code = exit_code
        self.full_stdout_path = full_stdout_path
        self.after_stdout = after_stdout
        self.host_cut = host_cut or bool(full_stdout_path)


class Settings:
    """The plugin's config as sent by its shim, each key checked and defaulted."""

    __slots__ = (
        "deny_tools",
        "enabled",
        "intercept_subagent",
        "max_result_bytes",
        "max_result_bytes_per_tool",
        "min_command_bytes",
        "read_threshold_bytes",
        "server_name",
        "truncate_tools",
    )

    def __init__(self, config: object) -> None:
        given = config if isinstance(config, dict) else {}

        def pick(key: str, kind: type[T]) -> T:
            value = given.get(key)
            if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
                return value
            return DEFAULTS[key]

        self.enabled = bool(pick("enabled", bool))
        self.deny_tools = _names(pick("denyTools", list))
        self.truncate_tools = _names(pick("truncateTools", list))
        configured = max(0, pick("maxResultBytes", int))
        override = settings.optional_integer(
            settings.PLUGIN_THRESHOLD
        )  # wins over the plugin's own
        self.max_result_bytes = configured if override is None else override
        per_tool = pick("maxResultBytesPerTool", dict)
        self.max_result_bytes_per_tool = {
            name: limit
            for name, limit in per_tool.items()
            if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0
        }
        self.min_command_bytes = max(0, pick("minCommandBytes", int))
        self.read_threshold_bytes = max(0, pick("readThresholdBytes", int))
        self.intercept_subagent = bool(pick("interceptSubagent", bool))
        self.server_name = str(pick("serverName", str))


def _names(values: object) -> frozenset[str]:
    return (
        frozenset(v for v in values if isinstance(v, str))
        if isinstance(values, list)
        else frozenset()
    )


def result_limit(tool: str, settings: Settings) -> int:
    """The byte size up to which `tool`'s result passes through: its own limit, else the
    general one (a shell tool's own limit counts for every shell, as in `listed`)."""
    own = settings.max_result_bytes_per_tool
    for name, limit in own.items():
        if name == tool or (is_shell(tool) and is_shell(name)):
            return limit
    return settings.max_result_bytes


def is_shell(tool: str) -> bool:
    return canonical_tool_name(tool) == "Bash"


def listed(tool: str, names: frozenset[str]) -> bool:
    """Is `tool` in a config list? Every shell tool counts as any other (bash as pwsh)."""
    return tool in names or (is_shell(tool) and any(is_shell(name) for name in names))


def detect_prefix(tool_names: object, server_name: str = "") -> str | None:
    """The prefix (`mcp__<server>__`, OpenCode's `<server>_`, ...) of the MCP server
    offering `ctx_execute`, as the host spells it; "" when the host offers it under its
    bare name (Pi, whose extension registers our tools itself); None when absent.

    With `server_name` set, only a prefix naming that server counts. With several
    candidates, the one named like ours wins, then the first in the host's order.
    """
    if not isinstance(tool_names, list):
        return None
    suffix = "ctx_execute"
    if suffix in tool_names and not server_name:
        return ""
    prefixes = [
        name[: -len(suffix)]
        for name in tool_names
        if isinstance(name, str) and name.endswith(suffix) and len(name) > len(suffix)
    ]
    if server_name:
        named = [p for p in prefixes if p in (f"mcp__{server_name}__", f"{server_name}_")]
        return named[0] if named else None
    if not prefixes:
        return None
    from ctxmode.vocab.toolnames import OWN_SERVER_MARKERS

    ours = [p for p in prefixes if any(marker in p.lower() for marker in OWN_SERVER_MARKERS)]
    return (ours or prefixes)[0]


def host_tool_name(event: HookEvent) -> str:
    """The tool's name as the host spells it (the shim sends it as `tool`)."""
    name = event.raw.get("tool")
    return name if isinstance(name, str) else event.tool


def applies(event: HookEvent, settings: Settings) -> bool:
    """Is this call ours to judge (enabled, and not a subagent's unless asked)?"""
    return settings.enabled and (not event.agent_id or settings.intercept_subagent)


def pre_tool_use(
    event: HookEvent,
    settings: Settings,
    prefix: str | None,
    can_modify: bool = False,
    usual_prefix: str | None = None,
) -> Decision | None:
    """Tier 1: a deny or (where the host rewrites arguments) a rewrite, or None.

    A host that takes changed arguments runs them without the model seeing a deny, so
    there every shell command the wrapper runs unchanged is wrapped (as on the
    command-hook hosts that rewrite silently): a failed run's messages then reach the
    model in the wrapper's notice whatever the host does with a failed result. The
    others cut a big output after the call. `usual_prefix`: the host's naming of our
    tools under the server name `ctxmode setup` registers (a wrapped command names
    another prefix to its notice)."""
    if not applies(event, settings) or prefix is None:
        return None
    host_tool = host_tool_name(event)
    if listed(host_tool, settings.deny_tools):
        return _deny_tool(event, host_tool, prefix)
    if not is_shell(host_tool):
        return None
    command = event.tool_input.get("command")
    if not isinstance(command, str):
        return None
    if len(command.encode("utf-8", "surrogatepass")) < settings.min_command_bytes:
        return None
    from ctxmode.hooks.routing import route_pre_tool_use

    unusual = prefix != usual_prefix
    decision = route_pre_tool_use(
        event, prefix, True, unusual_prefix=unusual, silent_rewrite=can_modify
    )
    if decision is None:
        return None
    if (decision.meta or {}).get("type") == "bash-wrapped" and not can_modify:
        return None  # this host cuts the output after the call itself
    if decision.is_command_redirect and not can_modify:  # deny, carrying the guidance
        return Decision(ev.DENY, reason=ev.redirect_reason(decision), meta=decision.meta)
    if decision.action == ev.MODIFY and can_modify:  # the command now prints the guidance
        return decision
    if decision.action in (ev.DENY, ev.ASK):  # a permission rule; no one to ask mid-call
        return Decision(ev.DENY, reason=decision.reason or "Blocked by permission rules.")
    return None  # a tip the host cannot show


def _deny_tool(event: HookEvent, host_tool: str, prefix: str) -> Decision:
    from ctxmode.hooks import guidance

    if canonical_tool_name(event.tool) == "WebFetch":
        url = event.tool_input.get("url")
        return Decision.deny(guidance.webfetch_deny(prefix, url if isinstance(url, str) else ""))
    return Decision.deny(
        f"ctxmode: {host_tool} is turned off here. Run the work inside {prefix}ctx_execute "
        f"(or {prefix}ctx_batch_execute for several commands) and print only what you need; "
        f"for web pages use {prefix}ctx_fetch_and_index(url, source), then {prefix}ctx_search."
    )


def post_tool_use(event: HookEvent, settings: Settings, prefix: str | None) -> Decision | None:
    """Tier 2: a replace-output decision for an oversized successful result, else None.

    `event.tool_output` is the host-free view of what the tool returned (`ToolResult`).
    """
    result = event.tool_output
    if not isinstance(result, ToolResult) or result.is_error:
        return None  # a failed result passes through exactly as the host made it
    if not applies(event, settings) or prefix is None:
        return None
    host_tool = host_tool_name(event)
    if not listed(host_tool, settings.truncate_tools):
        return _other_server(event, result, prefix)
    if _whole_size(result) <= result_limit(host_tool, settings):
        return None
    from ctxmode.hooks.cut_output import cut, cut_matches, cut_read

    if result.matches:
        return cut_matches(event, result, prefix, host_tool)
    if canonical_tool_name(event.tool) == "Read":  # the file itself, not the host's window
        decision = cut_read(event, result, prefix, host_tool)
        if decision is not None:
            return decision
    note = _read_note(event, settings, prefix)
    return cut(event, result, prefix, host_tool, note=note)


def _other_server(event: HookEvent, result: ToolResult, prefix: str) -> Decision | None:
    """Another MCP server's result: the shim names the server and tool of this call
    (`mcpTool`, where the host's result says them) or the servers the host connected
    (`mcpServers`, whose names the tool's name starts with); None for any other tool."""
    from ctxmode.hooks.mcp_result import shape_named_result

    named = event.raw.get("mcpTool")
    if isinstance(named, dict):
        server, tool = named.get("server"), named.get("tool")
        if isinstance(server, str) and server and isinstance(tool, str) and tool:
            full = result.full_stdout_path
            return shape_named_result(event, result.text, full, [], prefix, (server, tool))
    servers = event.raw.get("mcpServers")
    if not isinstance(servers, list) or (result.host_cut and not result.full_stdout_path):
        return None  # a result the host handed over only in part is never cut further
    names = [name for name in servers if isinstance(name, str)]
    return shape_named_result(event, result.text, result.full_stdout_path, names, prefix)


def _whole_size(result: ToolResult) -> int:
    """The bytes of the whole output: a host that cut it (OMP keeps ~8 KB) may show the
    model less than our limit while the rest sits in its file, out of ctx_search's reach."""
    shown = len(result.text.encode("utf-8", "surrogatepass"))
    if not result.full_stdout_path:
        return shown
    try:
        return max(shown, os.path.getsize(result.full_stdout_path))
    except OSError:
        return shown


def _read_note(event: HookEvent, settings: Settings, prefix: str) -> str:
    """Guidance for a read of a file over `readThresholdBytes` ("" otherwise)."""
    if canonical_tool_name(event.tool) != "Read":
        return ""
    path = event.tool_input.get("file_path")
    if not isinstance(path, str) or not path:
        return ""
    if not os.path.isabs(path) and event.project_dir:
        path = os.path.join(event.project_dir, path)
    try:
        size = os.path.getsize(path)
    except OSError:
        return ""
    if size <= settings.read_threshold_bytes:
        return ""
    return (
        f"This file is {size:,} bytes. Read only the lines you will edit (offset/limit); to "
        f"analyze it use {prefix}ctx_execute_file(path, language, code)."
    )


def routing_section(prefix: str | None) -> str:
    """The routing block for the system prompt ("" while our server is not detected)."""
    if prefix is None:
        return ""
    from ctxmode.hooks.routing_block import routing_block, routing_mode

    return routing_block(prefix, routing_mode())


def _capture(event: HookEvent) -> None:
    """Session continuity: record the call, with the text the host rendered as its output."""
    from ctxmode.session.capture import capture_tool_call, guarded

    result = event.tool_output
    if isinstance(result, ToolResult):
        event.tool_output = result.text
        try:
            guarded(capture_tool_call, event)
        finally:
            event.tool_output = result
    else:
        guarded(capture_tool_call, event)


def continuity(event: HookEvent, prefix: str | None) -> Decision | None:
    """Session memory: record prompts, snapshot before a compaction, the guide after it."""
    from ctxmode.session.capture import capture_prompt, guarded, pre_compact, session_start

    search_tool = f"{prefix or ''}ctx_search"
    if event.event == ev.USER_PROMPT_SUBMIT:
        guarded(capture_prompt, event, can_show=False)
    elif event.event == ev.PRE_COMPACT:  # the snapshot, for hosts that add it to the compaction
        snapshot = guarded(pre_compact, event, search_tool=search_tool)
        return Decision.add_context(snapshot) if snapshot else None
    elif event.event == ev.SESSION_START:
        guide = guarded(session_start, event, search_tool=search_tool)
        return Decision.add_context(guide) if guide else None
    return None


def handle(
    event: HookEvent, can_modify: bool = False, usual_prefix: str | None = None
) -> Decision | None:
    """The decision for one plugin-host event (None: the host carries on untouched).

    `can_modify`: the host takes changed arguments from the plugin before a call.
    `usual_prefix`: see `pre_tool_use`.
    """
    settings = Settings(event.raw.get("config"))
    prefix = detect_prefix(event.raw.get("tools"), settings.server_name)
    if event.event == ev.PRE_TOOL_USE:
        return pre_tool_use(event, settings, prefix, can_modify, usual_prefix)
    if not applies(event, settings):
        return None
    if event.event == ev.POST_TOOL_USE:
        _capture(event)
        return post_tool_use(event, settings, prefix)
    if event.event == ev.SESSION_START and event.source != "compact":
        text = routing_section(prefix)
        return Decision.add_context(text) if text else None
    return continuity(event, prefix)
