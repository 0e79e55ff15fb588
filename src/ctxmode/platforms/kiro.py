"""Kiro CLI: agent-config command hooks answered by exit code and plain text.

A PreToolUse block is exit 2 with the reason on stderr, which Kiro hands to the
model (the reference silenced stderr, so its reasons never arrived). Kiro cannot
rewrite, so a rewrite becomes that block. Kiro appends agentSpawn and
userPromptSubmit stdout to the context verbatim: those get plain text, not JSON.
PreToolUse stdout is captured but not shown to the model.
"""

from __future__ import annotations

from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "kiro"
BLOCK_EXIT_CODE = 2
GENERIC_BLOCK = "Blocked by ctxmode: use the ctxmode MCP tools (@context-mode/ctx_*) instead."

HOST_EVENTS = {
    "pretooluse": "preToolUse",
    "posttooluse": "postToolUse",
    "agentspawn": "agentSpawn",
    "userpromptsubmit": "userPromptSubmit",
    "stop": "stop",
}
EVENTS = {
    "pretooluse": ev.PRE_TOOL_USE,
    "posttooluse": ev.POST_TOOL_USE,
    "agentspawn": ev.SESSION_START,  # the agent starting is Kiro's session start
    "userpromptsubmit": ev.USER_PROMPT_SUBMIT,
    "stop": ev.STOP,
}


def parse(payload: dict, host_event: str) -> HookEvent:
    event = common.snake_event(PLATFORM_ID, EVENTS, payload, host_event)
    if event.tool == "Read":  # fs_read: {"operations": [{"path": ...}]} or a flat `path`
        operations = event.tool_input.get("operations")
        if isinstance(operations, list) and operations:
            first = operations[0]
            path = fields.text(first, "path")
            if path:
                event.tool_input.setdefault("file_path", path)
    return event


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event == ev.PRE_TOOL_USE:
        return _render_pre_tool_use(decision)
    context = common.context_of(decision)
    if context and event.event in (ev.SESSION_START, ev.USER_PROMPT_SUBMIT):
        return HookOutput(context)
    return HookOutput()


def _render_pre_tool_use(decision: Decision | None) -> HookOutput:
    if decision is None or decision.action == ev.ASK:  # Kiro asks through its own permissions
        return HookOutput()
    if decision.action == ev.DENY:
        return _block(decision.reason or GENERIC_BLOCK)
    if decision.action == ev.MODIFY:
        return _block(ev.redirect_reason(decision) or decision.reason or GENERIC_BLOCK)
    if decision.action == ev.CONTEXT and decision.context:
        return HookOutput(decision.context)
    return HookOutput()


def _block(reason: str) -> HookOutput:
    return HookOutput(stderr=reason, exit_code=BLOCK_EXIT_CODE)


# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("user", "project")
AGENT_NAME = "context-mode"
# Kiro matchers are tool names, `@server`, `*`, not regexes: tool hooks see every tool and
# the hook filters. Lifecycle hooks take no matcher.
MATCHERS = {"preToolUse": "*", "postToolUse": "*", "agentSpawn": None,
            "userPromptSubmit": None, "stop": None}  # fmt: skip
NEW_AGENT = {  # a custom agent without `tools` would have none
    "name": AGENT_NAME,
    "description": "Default tools plus ctxmode's context-saving hooks and MCP tools",
    "tools": ["*"],
    "includeMcpJson": True,
}
INSTALL_NOTE = (
    "Kiro: hooks live in the `context-mode` agent; start it with `kiro-cli chat --agent "
    "context-mode` or make it the default with `kiro-cli agent set-default context-mode`."
)


def config_paths(project_dir: str = "") -> dict[str, str]:
    import os

    home = os.path.join(os.path.expanduser("~"), ".kiro")
    found = {
        "agent": os.path.join(home, "agents", f"{AGENT_NAME}.json"),
        "mcp": os.path.join(home, "settings", "mcp.json"),
    }
    if project_dir:
        found["project_agent"] = os.path.join(project_dir, ".kiro", "agents", f"{AGENT_NAME}.json")
        found["project_mcp"] = os.path.join(project_dir, ".kiro", "settings", "mcp.json")
    return found


def mcp_config(project_dir: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    paths = config_paths(project_dir)
    found = (paths["project_mcp"],) if project_dir else ()
    return tuple((path, ("mcpServers",)) for path in (*found, paths["mcp"]))


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, None)


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    import os

    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    prefix = "project_" if project_dir else ""
    entries = {}
    for host, line in hook_commands(hook_prefix).items():
        matcher = MATCHERS[host]
        entries[host] = (
            {"command": line} if matcher is None else {"matcher": matcher, "command": line}
        )
    agent = paths[prefix + "agent"]
    defaults = None if os.path.exists(agent) else NEW_AGENT  # never reshape the user's agent
    server = inst.stdio_server(server_command)
    return inst.install_json(agent, entries, paths[prefix + "mcp"], server, defaults=defaults)


def _only_our_agent(document: dict) -> bool:
    return set(document) <= set(NEW_AGENT) and document.get("name") == AGENT_NAME


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    prefix = "project_" if project_dir else ""
    return inst.uninstall_json(
        paths[prefix + "agent"], paths[prefix + "mcp"], delete_when=_only_our_agent
    )


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Kiro CLI",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: f"@{server}/",
    mcp_config=mcp_config,
    can_deny=True,
    can_modify_input=False,
    can_replace_output=False,
    can_inject_context=True,
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        note=INSTALL_NOTE,
    ),
)
