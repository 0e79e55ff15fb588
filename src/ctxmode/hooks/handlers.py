"""One handler per canonical event: the seam where session continuity plugs in later.

Each handler takes the normalized event and what the host can do, and returns the
decision to render (or None). This issue needs routing (PreToolUse), the routing block
(SessionStart) and output shaping (PostToolUse); the others answer the host's no-op.
"""

from __future__ import annotations

from ctxmode.hooks import event as ev
from ctxmode.hooks.event import Decision, HookEvent

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: keep `types`/`collections` off the hook path
    from types import ModuleType


class Host:
    """A platform module's naming and capabilities, with the contract's defaults."""

    __slots__ = ("can_replace_output", "pin_cwd", "prefix", "tool_search_bootstrap")

    def __init__(self, module: ModuleType) -> None:
        self.prefix: str = getattr(module, "TOOL_PREFIX", "mcp__context-mode__")
        self.pin_cwd: bool = getattr(module, "PIN_CWD", False)
        self.tool_search_bootstrap: bool = getattr(module, "TOOL_SEARCH_BOOTSTRAP", False)
        self.can_replace_output: bool = getattr(module, "CAN_REPLACE_OUTPUT", False)


def on_pre_tool_use(event: HookEvent, host: Host) -> Decision | None:
    from ctxmode.hooks import mcp_ready
    from ctxmode.hooks.routing import route_pre_tool_use

    # A subagent cannot call our MCP tools, so nothing may be redirected to them.
    ready = not event.agent_id and mcp_ready.server_alive()
    return route_pre_tool_use(
        event,
        host.prefix,
        ready,
        pin_cwd=host.pin_cwd,
        tool_search_bootstrap=host.tool_search_bootstrap,
    )


def on_post_tool_use(event: HookEvent, host: Host) -> Decision | None:
    from ctxmode.session.capture import capture_tool_call, guarded

    guarded(capture_tool_call, event)  # session continuity: never blocks the output shaping
    if not host.can_replace_output:
        return None
    from ctxmode.hooks.posttooluse import shape_output

    return shape_output(event, host.prefix)


def on_session_start(event: HookEvent, host: Host) -> Decision | None:
    from ctxmode.hooks.routing_block import routing_block, routing_mode
    from ctxmode.session.capture import guarded, session_start

    block = routing_block(host.prefix, routing_mode())
    guide = guarded(session_start, event, search_tool=host.prefix + "ctx_search") or ""
    text = "\n\n".join(part for part in (block, guide) if part)
    return Decision.add_context(text) if text else None


def on_pre_compact(event: HookEvent, host: Host) -> Decision | None:
    from ctxmode.session.capture import guarded, pre_compact

    guarded(pre_compact, event, search_tool=host.prefix + "ctx_search")
    return None


def on_user_prompt_submit(event: HookEvent, host: Host) -> Decision | None:
    from ctxmode.session.capture import capture_prompt, guarded

    can_show = _shows_context(event)
    guide = guarded(capture_prompt, event, can_show=can_show)
    return Decision.add_context(guide) if guide else None


def on_stop(event: HookEvent, host: Host) -> Decision | None:
    from ctxmode.session.capture import capture_stop, guarded

    guarded(capture_stop, event)
    return None


def _shows_context(event: HookEvent) -> bool:
    """Does this host put context returned for this event in front of the model?

    Asked of the platform module itself (render a probe), so no host is named here.
    """
    import sys

    from ctxmode.platforms import REGISTRY

    module = sys.modules.get(REGISTRY.get(event.platform, ""))
    if module is None:
        return False
    probe = "ctxmode-context-probe"
    try:
        return probe in module.render(event, Decision.add_context(probe)).stdout
    except Exception:
        return False


HANDLERS = {
    ev.PRE_TOOL_USE: on_pre_tool_use,
    ev.POST_TOOL_USE: on_post_tool_use,
    ev.SESSION_START: on_session_start,
    ev.PRE_COMPACT: on_pre_compact,
    ev.USER_PROMPT_SUBMIT: on_user_prompt_submit,
    ev.STOP: on_stop,
}


def handle(event: HookEvent, host: Host) -> Decision | None:
    """The decision for any event; events without a handler get None (the no-op)."""
    handler = HANDLERS.get(event.event)
    return handler(event, host) if handler is not None else None
