"""One handler per canonical event: the seam where session continuity plugs in later.

Each handler takes the normalized event and what the host can do, and returns the
decision to render (or None). This issue needs routing (PreToolUse), the routing block
(SessionStart) and output shaping (PostToolUse); the others answer the host's no-op.
"""

from __future__ import annotations

from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent
from ctxmode.vocab.toolnames import OWN_TOOLS, SERVER_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from ctxmode.vocab.platform import Platform


def our_prefix(platform: Platform, event: HookEvent) -> str:
    """What the host puts before our tools' names (`<prefix>ctx_search`), after the server
    name it really registered."""
    from ctxmode.launch.server_name import registered_server

    return platform.tool_prefix(registered_server(platform, event.project_dir))


def on_pre_tool_use(event: HookEvent, platform: Platform) -> Decision | None:
    from ctxmode.hooks.routing import route_pre_tool_use
    from ctxmode.launch import mcp_ready

    # A subagent cannot call our MCP tools, so nothing may be redirected to them.
    ready = not event.agent_id and mcp_ready.server_alive()
    prefix = our_prefix(platform, event)
    if prefix and event.tool.startswith(prefix) and event.tool[len(prefix) :] in OWN_TOOLS:
        event.tool = event.tool[len(prefix) :]  # ours under any registered name: the bare name
    return route_pre_tool_use(
        event,
        prefix,
        ready,
        pin_cwd=platform.pin_cwd,
        tool_search_bootstrap=platform.tool_search_bootstrap,
        read_window=platform.read_window if platform.can_modify_input else None,
        unusual_prefix=prefix != platform.tool_prefix(SERVER_NAME),
        silent_rewrite=platform.can_modify_input and platform.rewrites_input(),
        mcp_servers=lambda: other_servers(platform, event),
    )


def other_servers(platform: Platform, event: HookEvent) -> list[str]:
    """The other MCP servers in the host's config, read only when the tool's name has the
    shape of the host's MCP tool names (`<server>-<tool>` holds a `-`): no config file is
    parsed for a built-in tool's call."""
    head, _, tail = platform.tool_prefix("\0").partition("\0")
    rest = event.tool[len(head) :]
    if not tail or not event.tool.startswith(head) or tail not in rest[1:]:
        return []
    from ctxmode.launch.server_name import configured_servers

    return configured_servers(platform, event.project_dir)


def on_post_tool_use(event: HookEvent, platform: Platform) -> Decision | None:
    from ctxmode.session.capture import capture_tool_call, guarded

    guarded(capture_tool_call, event)  # session continuity: never blocks the output shaping
    if not platform.can_replace_output:
        return None
    if event.tool in ("Bash", "Read"):  # a shell's output, a bounded read's note
        from ctxmode.hooks.posttooluse import shape_output

        window = platform.read_window if platform.can_modify_input else None
        return shape_output(event, our_prefix(platform, event), window)
    from ctxmode.hooks.mcp_result import shape_mcp_result

    return shape_mcp_result(event, our_prefix(platform, event), platform)


def on_post_tool_use_failure(event: HookEvent, platform: Platform) -> Decision | None:
    """A failed shell command (Claude Code and Qwen Code fire this, not PostToolUse, for a
    non-zero exit; its output can't be replaced here): if it printed more than the
    wrapper's threshold, remember it, so the next run goes through the wrapper even
    where only predicted commands are wrapped."""
    from ctxmode.hooks.posttooluse import remember_failed_bulky

    remember_failed_bulky(event)
    return None


def on_session_start(event: HookEvent, platform: Platform) -> Decision | None:
    from ctxmode.hooks.routing_block import routing_block, routing_mode
    from ctxmode.session.capture import guarded, session_start

    prefix = our_prefix(platform, event)
    # A resumed conversation still carries the block its first SessionStart injected
    # (measured with the real Claude Code: `--continue` otherwise showed it twice).
    block = "" if event.source == "resume" else routing_block(prefix, routing_mode())
    guide = guarded(session_start, event, search_tool=prefix + "ctx_search") or ""
    text = "\n\n".join(part for part in (block, guide) if part)
    return Decision.add_context(text) if text else None


def on_pre_compact(event: HookEvent, platform: Platform) -> Decision | None:
    from ctxmode.session.capture import guarded, pre_compact

    guarded(pre_compact, event, search_tool=our_prefix(platform, event) + "ctx_search")
    return None


def on_user_prompt_submit(event: HookEvent, platform: Platform) -> Decision | None:
    from ctxmode.session.capture import capture_prompt, guarded

    can_show = _shows_context(event, platform)
    guide = guarded(capture_prompt, event, can_show=can_show)
    return Decision.add_context(guide) if guide else None


def on_stop(event: HookEvent, platform: Platform) -> Decision | None:
    from ctxmode.session.capture import capture_stop, guarded

    guarded(capture_stop, event)
    return None


def _shows_context(event: HookEvent, platform: Platform) -> bool:
    """Does this host put context returned for this event in front of the model?

    Asked of the host's own renderer (render a probe), so no host is named here.
    """
    probe = "ctxmode-context-probe"
    try:
        return probe in platform.render(event, Decision.add_context(probe)).stdout
    except Exception:
        return False


HANDLERS = {
    ev.PRE_TOOL_USE: on_pre_tool_use,
    ev.POST_TOOL_USE: on_post_tool_use,
    ev.POST_TOOL_USE_FAILURE: on_post_tool_use_failure,
    ev.SESSION_START: on_session_start,
    ev.PRE_COMPACT: on_pre_compact,
    ev.USER_PROMPT_SUBMIT: on_user_prompt_submit,
    ev.STOP: on_stop,
}


def handle(event: HookEvent, platform: Platform) -> Decision | None:
    """The decision for any event; events without a handler get None (the no-op)."""
    if platform.plugin_host:  # a JS shim sends its config and the host's tool names with each call
        from ctxmode.hooks.plugin_rules import handle as plugin_handle

        usual = platform.tool_prefix(SERVER_NAME)
        return plugin_handle(event, can_modify=platform.can_modify_input, usual_prefix=usual)
    handler = HANDLERS.get(event.event)
    return handler(event, platform) if handler is not None else None
