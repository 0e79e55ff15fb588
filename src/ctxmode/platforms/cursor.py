"""Cursor: native command hooks in `.cursor/hooks.json`.

Cursor rejects empty stdout, so every event answers a JSON object. In preToolUse,
`user_message` reaches the human and `agent_message` the model: a deny carries its
reason in both (the reference wrote only `user_message`, so the model never saw why).
MCP tools are named `MCP:<tool>`; our own tools have bare names.
"""

from __future__ import annotations

from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "cursor"
SESSION_ENV = ("CURSOR_SESSION_ID",)
PROJECT_ENV = ("CURSOR_CWD",)

HOST_EVENTS = {
    "pretooluse": "preToolUse",
    "posttooluse": "postToolUse",
    "sessionstart": "sessionStart",
    "stop": "stop",
    "afteragentresponse": "afterAgentResponse",
    "beforesubmitprompt": "beforeSubmitPrompt",
    "sessionend": "sessionEnd",
}
EVENTS = {
    "pretooluse": ev.PRE_TOOL_USE,
    "posttooluse": ev.POST_TOOL_USE,
    "sessionstart": ev.SESSION_START,
    "stop": ev.STOP,
    "afteragentresponse": ev.AFTER_AGENT_RESPONSE,
    "beforesubmitprompt": ev.USER_PROMPT_SUBMIT,
    "sessionend": ev.SESSION_END,
}


def parse(payload: dict, host_event: str) -> HookEvent:
    event = common.snake_event(
        PLATFORM_ID,
        EVENTS,
        payload,
        host_event,
        session_env=SESSION_ENV,
        project_env=PROJECT_ENV,
        output_keys=("tool_output", "tool_response"),
    )
    if event.event == ev.AFTER_AGENT_RESPONSE:
        event.tool_output = common.first_present(event.raw, ("text",))
    return event


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event == ev.PRE_TOOL_USE:
        return _render_pre_tool_use(decision)
    context = common.context_of(decision) or ""
    if event.event in (ev.POST_TOOL_USE, ev.SESSION_START, ev.AFTER_AGENT_RESPONSE):
        return common.json_out({"additional_context": context})
    if event.event == ev.USER_PROMPT_SUBMIT:
        return common.json_out({"continue": True})
    # stop: an explicit no-op (a non-empty followup_message would continue the loop).
    return common.json_out({})


def _render_pre_tool_use(decision: Decision | None) -> HookOutput:
    if decision is None:
        return common.json_out({"agent_message": ""})
    if decision.action == ev.DENY:
        return common.json_out(
            {
                "permission": "deny",
                "user_message": decision.reason,
                "agent_message": decision.reason,
            }
        )
    if decision.action == ev.ASK:
        answer: dict[str, object] = {"permission": "ask"}
        if decision.reason:
            answer["user_message"] = decision.reason
        return common.json_out(answer)
    if decision.action == ev.MODIFY and isinstance(decision.updated_input, dict):
        return common.json_out({"updated_input": decision.updated_input})
    if decision.action == ev.CONTEXT:
        return common.json_out({"agent_message": decision.context})
    return common.json_out({"agent_message": ""})


# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("user", "project")
HOOKS_DEFAULTS = {"version": 1}  # a new hooks file needs it; uninstall takes it back
MATCHERS = {  # regex on tool_name; None: every tool (postToolUse capture needs them all)
    "preToolUse": "Shell|Read|Grep|WebFetch|mcp_web_fetch|mcp_fetch_tool|Task|MCP:.*",
    "postToolUse": None,
    "sessionStart": None,
    "beforeSubmitPrompt": None,
    "stop": None,
}


def config_paths(project_dir: str = "") -> dict[str, str]:
    import os

    home = os.path.join(os.path.expanduser("~"), ".cursor")
    found = {"hooks": os.path.join(home, "hooks.json"), "mcp": os.path.join(home, "mcp.json")}
    if project_dir:
        found["project_hooks"] = os.path.join(project_dir, ".cursor", "hooks.json")
        found["project_mcp"] = os.path.join(project_dir, ".cursor", "mcp.json")
        found["rules"] = os.path.join(project_dir, ".cursor", "rules", "context-mode.mdc")
    return found


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, MATCHERS)


def _entry(command: str, matcher: str | None) -> dict:
    entry = {"type": "command", "command": command}
    return entry if matcher is None else {**entry, "matcher": matcher}


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    prefix = "project_" if project_dir else ""
    entries = {
        host: _entry(line, MATCHERS[host]) for host, line in hook_commands(hook_prefix).items()
    }
    server = inst.stdio_server(server_command)
    return inst.install_json(
        paths[prefix + "hooks"], entries, paths[prefix + "mcp"], server, defaults=HOOKS_DEFAULTS
    )


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    prefix = "project_" if project_dir else ""
    return inst.uninstall_json(
        paths[prefix + "hooks"], paths[prefix + "mcp"], defaults=HOOKS_DEFAULTS
    )


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Cursor",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: "",  # our tools keep their bare names
    project_env=PROJECT_ENV,
    can_deny=True,
    can_modify_input=True,
    can_replace_output=False,
    can_inject_context=True,
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
    ),
)
