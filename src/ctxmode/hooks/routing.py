"""PreToolUse routing: one host-free decision per tool call.

`route_pre_tool_use` runs the permission policy first (deny/ask), then steers bulky
tool use to our MCP tools: curl/wget, inline HTTP and build tools are redirected and
WebFetch denied (only when `mcp_ready`), Read/Grep/Bash get one nudge per session,
subagent prompts get the routing block, external MCP tools a periodic nudge, and our
own shell tools get their `cwd` pinned to the project.
"""

from __future__ import annotations

import os

from ctxmode import paths, settings
from ctxmode.hooks import throttle
from ctxmode.vocab.event import DENY, MODIFY, Decision, HookEvent
from ctxmode.vocab.toolnames import canonical_tool_name, mcp_tool, own_tool

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only; the shell grammar loads only for a shell command
    from collections.abc import Callable, Iterable

    from ctxmode.policy.shell import ShellScan

SUMMARY_CHARS = 200
AGENT_PROMPT_KEYS = ("prompt", "request", "objective", "question", "query", "task")


class Route:
    """What one routing call knows besides the event: host naming and capabilities."""

    __slots__ = (
        "event", "mcp_ready", "pin_cwd", "prefix", "read_window", "tool_search_bootstrap",
        "unusual_prefix", "wrap_every",
    )  # fmt: skip

    def __init__(
        self,
        event: HookEvent,
        prefix: str,
        mcp_ready: bool,
        pin_cwd: bool,
        tool_search_bootstrap: bool,
        read_window: tuple[str, str] | None = None,
        unusual_prefix: bool = False,
        wrap_every: bool = False,
    ) -> None:
        self.event = event
        self.wrap_every = wrap_every
        self.prefix = prefix
        self.unusual_prefix = unusual_prefix
        self.mcp_ready = mcp_ready
        self.pin_cwd = pin_cwd
        self.tool_search_bootstrap = tool_search_bootstrap
        self.read_window = read_window


def route_pre_tool_use(
    event: HookEvent,
    tool_prefix: str,
    mcp_ready: bool,
    *,
    pin_cwd: bool = False,
    tool_search_bootstrap: bool = False,
    read_window: tuple[str, str] | None = None,
    unusual_prefix: bool = False,
    silent_rewrite: bool = False,
    mcp_servers: Callable[[], Iterable[str]] = tuple,
) -> Decision | None:
    """The decision for one PreToolUse call, or None to let the tool run untouched.

    `mcp_ready`: our MCP tools are callable (a live server, and not a subagent without
    them); redirects to them are only made when True. `pin_cwd`,
    `tool_search_bootstrap` and `read_window` (the host's Read can be bounded by
    rewriting these (offset, limit) line keys) are host capabilities (see
    `ctxmode.platforms`); `silent_rewrite`: the host runs a rewritten command without the
    model seeing a deny, so every shell command the wrapper runs unchanged is wrapped
    (unless CTXMODE_WRAP_EVERY is off), not only those predicted to be bulky.
    `unusual_prefix`: `tool_prefix` is not the one the host gives a server registered by
    `ctxmode setup` (a plugin's, or another name), so a wrapped command must carry it to
    its notice. `mcp_servers()`: the other MCP servers in the host's config, asked only
    for a tool name whose form alone does not say it is one (Copilot CLI's
    `<server>-<tool>`).
    """
    if settings.flag(settings.REQUIRE_SECURITY) and not _policy_loads():
        from ctxmode.hooks import guidance  # the words load only when used

        return Decision.deny(guidance.fail_closed_deny())  # fail closed: every tool
    every = silent_rewrite and settings.flag(settings.WRAP_EVERY)
    route = Route(
        event, tool_prefix, mcp_ready, pin_cwd, tool_search_bootstrap, read_window,
        unusual_prefix, every,
    )  # fmt: skip
    tool = canonical_tool_name(event.tool)
    handler = HANDLERS.get(tool)
    if handler is not None:
        return handler(route)
    own = own_tool(tool)
    if own:
        return _route_own_tool(route, own)
    if mcp_tool(tool, mcp_servers) is not None:
        return _route_external_mcp(route)
    return None


# --- permission policy -----------------------------------------------------------------


def _policy_loads() -> bool:
    try:
        from ctxmode.policy.permissions import evaluate_with_rules  # noqa: F401
        from ctxmode.policy.rules import evaluate_tool_call  # noqa: F401
    except Exception as error:
        paths.append_log("hook-errors.log", f"permission policy unavailable: {error!r}")
        return False
    return True


def _policy_decision(tool: str, event: HookEvent) -> Decision | None:
    """Deny/ask from the user's permission rules; None when they allow or have no opinion."""
    return _policy_verdict(tool, event)[0]


def _policy_verdict(tool: str, event: HookEvent) -> tuple[Decision | None, str]:
    """(deny/ask from the user's permission rules or None, the allow rule that covers the
    whole call or "").

    A broken policy module fails open (logged), unless CTXMODE_REQUIRE_SECURITY=1.
    """
    try:
        from ctxmode.policy.rules import evaluate_tool_call  # the engine loads once rules exist

        verdict = evaluate_tool_call(
            tool, event.tool_input, event.project_dir, host_dir=event.host_project_dir
        )
    except Exception as error:
        return _policy_unavailable(error), ""
    if verdict.action == "deny":
        return Decision.deny(verdict.reason or "Blocked by permission rules."), ""
    if verdict.action == "ask":
        return Decision.ask(verdict.reason), ""
    return None, verdict.rule if verdict.action == "allow" else ""


def _policy_unavailable(error: Exception) -> Decision | None:
    from ctxmode.hooks import guidance

    paths.append_log("hook-errors.log", f"permission policy unavailable: {error!r}")
    if settings.flag(settings.REQUIRE_SECURITY):
        return Decision.deny(guidance.fail_closed_deny())
    return None


# --- Bash ------------------------------------------------------------------------------


SHELL_COMMAND_KEYS = ("command", "cmd", "CommandLine")


def _shell_command(tool_input: dict) -> str:
    for key in SHELL_COMMAND_KEYS:
        if key in tool_input:
            value = tool_input[key]
            return value if isinstance(value, str) else ""
    return ""


def _route_bash(route: Route) -> Decision | None:
    from ctxmode.hooks import shell
    from ctxmode.policy.shell import scan, without_heredocs

    event = route.event
    verdict, allowed_by = _policy_verdict("Bash", event)
    if verdict is not None:
        return verdict
    command = _shell_command(event.tool_input)
    if not command.strip():
        return None
    found = scan(command)
    summary = command[:SUMMARY_CHARS]

    curl = shell.curl_wget_verdict(found)
    inline_http = shell.interpreter_http(found) or shell.has_inline_http(
        without_heredocs(command, found)
    )
    if curl == "dangerous":
        meta = {
            "tool": "Bash",
            "type": "bash-redirected",
            "bytes_avoided": 8192,
            "summary": summary,
        }
        from ctxmode.hooks import guidance  # the words load only when used

        return _redirect(route, guidance.curl_redirect(route.prefix), meta)
    if curl == "safe" and not inline_http:
        return None  # a silent download to a file: nothing to steer
    if inline_http:
        meta = {
            "tool": "Bash",
            "type": "http-redirected",
            "bytes_avoided": 8192,
            "summary": summary,
        }
        from ctxmode.hooks import guidance

        return _redirect(route, guidance.inline_http_redirect(route.prefix), meta)
    wrapped = _wrap_bulky(route, command, found, summary, allowed_by)
    if wrapped is not None:
        return wrapped
    if shell.runs_build_tool(found):
        meta = {"tool": "Bash", "type": "build-redirected", "bytes_avoided": 0, "summary": summary}
        from ctxmode.hooks import guidance

        return _redirect(route, guidance.build_tool_redirect(route.prefix, command), meta)
    if shell.is_bounded(command, found) or _below_nudge_threshold(command):
        return None
    return _nudge_once(route, "bash")


def _wrap_bulky(
    route: Route, command: str, found: ShellScan, summary: str, allowed_by: str = ""
) -> Decision | None:
    """Run a command through the wrapper (Tier 2 by rewrite): every command the wrapper
    runs unchanged where the rewrite is silent, else the likely-bulky ones (predicted, or
    bulky before in this project).

    The decision is a rewrite whose `reason` gives the wrapped command: hosts that can
    modify a tool's input run it as is, the others deny with that reason. `allowed_by`:
    the user's allow rule for the original command (kept in `meta`, so a host that checks
    its rules on the rewritten command can be told the user allowed it).
    """
    if not route.mcp_ready:
        return None  # the notice's search call would name a tool the model cannot reach
    from ctxmode.hooks import guidance
    from ctxmode.hooks.bulky import directory_after, split_leading_cd, wrap_reason

    event = route.event
    cwd = event.raw.get("cwd")
    cwd = cwd if isinstance(cwd, str) and cwd else event.project_dir
    cd_part, rest = split_leading_cd(command)
    if cd_part:
        from ctxmode.policy.shell import scan

        cwd, found = directory_after(cd_part, cwd), scan(rest)
    history: frozenset[str] = frozenset()
    if not route.wrap_every:
        from ctxmode.hooks import wrap_history

        history = wrap_history.load(event.project_dir)
    why = wrap_reason(rest, cwd, found=found, every=route.wrap_every, history=history)
    if why is None:
        return None
    from ctxmode.launch import wrapped_command

    prefix = route.prefix if route.unusual_prefix else None
    wrapped = cd_part + wrapped_command(event.platform, event.project_dir, rest, cwd, prefix)
    meta = {"tool": "Bash", "type": "bash-wrapped", "bytes_avoided": 0, "summary": summary}
    if allowed_by:
        meta["allowed_by"] = allowed_by
    elif route.wrap_every:
        from ctxmode.hooks.wrappable import reads_only

        if reads_only(found):  # a host that runs it without asking would ask for the rewrite
            meta["read_only"] = True
    # Every key the command was read from (a parser may have copied `cmd` to `command`).
    keys = [key for key in SHELL_COMMAND_KEYS if key in event.tool_input] or ["command"]
    return Decision(
        MODIFY,
        reason=guidance.wrap_instead(route.prefix, why, wrapped),
        updated_input={**event.tool_input, **dict.fromkeys(keys, wrapped)},
        meta=meta,
    )


def _redirect(route: Route, text: str, meta: dict) -> Decision | None:
    if not route.mcp_ready:
        return None  # nothing to redirect to: let the command run
    return Decision.redirect(text, route.event.tool_input, meta)


def _below_nudge_threshold(command: str) -> bool:
    threshold = settings.integer(settings.BASH_NUDGE_MIN_COMMAND_BYTES)
    return threshold > 0 and len(command.encode("utf-8", "surrogatepass")) < threshold


def _nudge_once(route: Route, kind: str) -> Decision | None:
    """The `kind` ("bash", "read", "grep") nudge, the first time in the session only: its
    words are loaded then, not on every call."""
    if not throttle.first_time(route.event.session_id, kind):
        return None
    from ctxmode.hooks import guidance

    nudges = {"bash": guidance.bash_nudge, "read": guidance.read_nudge, "grep": guidance.grep_nudge}
    return Decision.add_context(nudges[kind](route.prefix))


# --- Read, Grep, WebFetch --------------------------------------------------------------


def _file_size(path: str, project_dir: str) -> int:
    """Size of a regular file (relative paths resolved against the project dir), else -1."""
    if not path or "\0" in path:
        return -1
    if not os.path.isabs(path) and project_dir:
        path = os.path.join(project_dir, path)
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return -1
    return info.st_size if (info.st_mode & 0o170000) == 0o100000 else -1


def _route_read(route: Route) -> Decision | None:
    from ctxmode.hooks import bigread

    event = route.event
    path = bigread.read_path(event.tool_input)
    size = _file_size(path, event.project_dir)
    if size > bigread.read_threshold():  # every time: this read is where the bytes go
        window = route.read_window or ()
        if any(key in event.tool_input for key in window):
            return None  # the model reads a part
        big = _big_read(route, path, size) if route.mcp_ready else None
        if big is not None:
            return big
        from ctxmode.hooks import guidance

        meta = {"tool": "Read", "type": "read-redirected", "bytes_avoided": size,
                "summary": path[:SUMMARY_CHARS]}  # fmt: skip
        return Decision("context", context=guidance.read_nudge(route.prefix, size), meta=meta)
    return _nudge_once(route, "read")


def _big_read(route: Route, path: str, size: int) -> Decision | None:
    """Index the whole file; bound the read where the host can, else deny with guidance.
    None for a file outside the project: nothing of it is kept."""
    from ctxmode.hooks import bigread, guidance

    event = route.event
    window = route.read_window
    found = bigread.project_file(path, event.project_dir)
    if found is None:
        return None
    real, root, size = found
    label = bigread.file_label(real, root)
    if not bigread.index_file(real, root, label, size):
        return None
    meta = {"tool": "Read", "type": "read-bounded", "bytes_avoided": size,
            "summary": path[:SUMMARY_CHARS]}  # fmt: skip
    lines = bigread.WINDOW_LINES
    if window is None:
        text = guidance.big_read(route.prefix, path, size, label, lines, bounded=False)
        return Decision(DENY, reason=text, meta=meta)
    text = guidance.big_read(route.prefix, path, size, label, lines, bounded=True)
    updated = {**event.tool_input, window[0]: 1, window[1]: lines}
    return Decision(MODIFY, updated_input=updated, context=text, meta=meta)


def _route_grep(route: Route) -> Decision | None:
    return _nudge_once(route, "grep")


def _route_webfetch(route: Route) -> Decision | None:
    if not route.mcp_ready:
        return None
    from ctxmode.hooks import guidance

    tool_input = route.event.tool_input
    url = ""
    for key in ("url", "URL", "Url"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            url = value
            break
    meta = {"tool": "WebFetch", "type": "webfetch-redirected", "bytes_avoided": 16384,
            "summary": url[:SUMMARY_CHARS]}  # fmt: skip
    return Decision("deny", reason=guidance.webfetch_deny(route.prefix, url), meta=meta)


# --- Agent / Task ----------------------------------------------------------------------


def _route_agent(route: Route) -> Decision | None:
    from ctxmode.hooks.routing_block import MARKER, routing_block, routing_mode

    block = routing_block(
        route.prefix,
        routing_mode(),
        subagent=True,
        tool_search_bootstrap=route.tool_search_bootstrap,
    )
    tool_input = route.event.tool_input
    key = next((k for k in AGENT_PROMPT_KEYS if k in tool_input), "prompt")
    current = tool_input.get(key)
    current = current if isinstance(current, str) else ""
    updated = dict(tool_input)
    if block and MARKER not in current:  # never stack the block twice
        updated[key] = f"{current}\n\n{block}" if current else block
    if updated.get("subagent_type") == "Bash":  # a Bash-only subagent cannot reach ctx_* tools
        updated["subagent_type"] = "general-purpose"
    if updated == tool_input:
        return None
    return Decision.modify(updated)


# --- MCP tools -------------------------------------------------------------------------


def _route_own_tool(route: Route, name: str) -> Decision | None:
    if name not in ("ctx_execute", "ctx_execute_file", "ctx_batch_execute"):
        return None
    event = route.event
    verdict = _policy_decision(name, event)
    if verdict is not None:
        return verdict
    if not route.pin_cwd or not event.project_dir or isinstance(event.tool_input.get("cwd"), str):
        return None
    if name == "ctx_batch_execute" or (
        name == "ctx_execute" and event.tool_input.get("language") == "shell"
    ):
        return Decision.modify({**event.tool_input, "cwd": event.project_dir})
    return None


def nudge_period() -> int:
    return settings.integer(settings.EXTERNAL_MCP_NUDGE_EVERY)


def _route_external_mcp(route: Route) -> Decision | None:
    from ctxmode.hooks import guidance

    if throttle.every_nth(route.event.session_id, "external-mcp", nudge_period()):
        return Decision.add_context(guidance.external_mcp_nudge(route.prefix))
    return None


HANDLERS = {
    "Bash": _route_bash,
    "Read": _route_read,
    "Grep": _route_grep,
    "WebFetch": _route_webfetch,
    "Agent": _route_agent,
    "Task": _route_agent,  # the subagent tool's name before Claude Code renamed it
}
