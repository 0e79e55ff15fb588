"""Kimi Code CLI: Claude-style JSON hooks declared as `[[hooks]]` in config.toml (platforms.md §A.9).

The host acts on PreToolUse only through `permissionDecision: "deny"`; it drops
`ask`, `updatedInput` and `additionalContext`. A command redirect therefore becomes
a deny carrying the guidance (the reference dropped it, so curl/wget went through).
"""

from __future__ import annotations

from ctxmode.hooks import event as ev
from ctxmode.hooks.event import Decision, HookEvent, HookOutput
from ctxmode.platforms import _common as common

PLATFORM_ID = "kimi"
TOOL_PREFIX = "mcp__context-mode__"

HOST_EVENTS = {
    "pretooluse": "PreToolUse",
    "posttooluse": "PostToolUse",
    "precompact": "PreCompact",
    "sessionstart": "SessionStart",
    "sessionend": "SessionEnd",
    "userpromptsubmit": "UserPromptSubmit",
    "stop": "Stop",
}
EVENTS = {
    "pretooluse": ev.PRE_TOOL_USE,
    "posttooluse": ev.POST_TOOL_USE,
    "precompact": ev.PRE_COMPACT,
    "sessionstart": ev.SESSION_START,
    "sessionend": ev.SESSION_END,
    "userpromptsubmit": ev.USER_PROMPT_SUBMIT,
    "stop": ev.STOP,
}
HOST_NAMES = {EVENTS[cli]: host for cli, host in HOST_EVENTS.items()}


def parse(payload: dict, host_event: str) -> HookEvent:
    event = common.snake_event(
        PLATFORM_ID, EVENTS, payload, host_event, output_keys=("tool_output", "tool_response")
    )
    if event.event == ev.SESSION_START and event.source not in ("startup", "resume"):
        event.source = "startup"  # the host sends only startup | resume
    return event


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event == ev.PRE_TOOL_USE:
        return _render_pre_tool_use(decision)
    if event.event in (ev.POST_TOOL_USE, ev.SESSION_START, ev.USER_PROMPT_SUBMIT):
        context = common.context_of(decision) or ""
        return common.hso(HOST_NAMES[event.event], additionalContext=context)
    return common.json_out({})


def _render_pre_tool_use(decision: Decision | None) -> HookOutput:
    reason = ""
    if decision is not None and decision.action == ev.DENY:
        reason = decision.reason or "Blocked by ctxmode."
    elif decision is not None:
        reason = common.redirect_reason(decision)
    if reason:
        return common.hso("PreToolUse", permissionDecision="deny", permissionDecisionReason=reason)
    return common.hso("PreToolUse")


def config_paths(project_dir: str = "") -> dict[str, str]:
    import os

    home = os.path.expanduser(os.environ.get("KIMI_CODE_HOME") or os.path.join("~", ".kimi-code"))
    return {"config": os.path.join(home, "config.toml"), "mcp": os.path.join(home, "mcp.json")}


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    return {host: f"{command} {PLATFORM_ID} {cli}" for cli, host in HOST_EVENTS.items()}
