"""Antigravity CLI (`agy`): bounded command hooks with an agy-specific payload.

agy cannot rewrite arguments and ignores PreToolUse context, so a rewrite becomes a
deny carrying the guidance, and a nudge becomes a one-off deny (the throttle lets the
next call through). Payload fields are mapped onto Claude's names before routing.
"""

from __future__ import annotations

from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform
from ctxmode.vocab.toolnames import SERVER_NAME

PLATFORM_ID = "antigravity-cli"
DEFAULT_ASK_REASON = "Action requires user confirmation"
NUDGE_PREFIX = "ctxmode: use the ctxmode MCP tools instead of this native tool. "

HOST_EVENTS = {"pretooluse": "PreToolUse", "posttooluse": "PostToolUse", "stop": "Stop"}
EVENTS = {"pretooluse": ev.PRE_TOOL_USE, "posttooluse": ev.POST_TOOL_USE, "stop": ev.STOP}

# agy tool name -> (canonical name, (target field, agy aliases) ...)
TOOLS: dict[str, tuple[str, tuple[tuple[str, tuple[str, ...]], ...]]] = {
    "run_command": ("Bash", (("command", ("CommandLine",)),)),
    "view_file": ("Read", (("file_path", ("AbsolutePath", "FilePath", "path")),)),
    "grep_search": ("Grep", (("pattern", ("Query", "Pattern")),)),
    "web_fetch": ("WebFetch", (("url", ("Url", "URL")),)),
    "read_url_content": ("WebFetch", (("url", ("Url", "URL")),)),
    "list_dir": ("LS", ()),
    "search_web": ("WebSearch", ()),
}


def parse(payload: dict, host_event: str) -> HookEvent:
    payload = payload if isinstance(payload, dict) else {}
    name = host_event.lower() if isinstance(host_event, str) else ""
    call = fields.obj(payload, "toolCall")
    tool_name = fields.text(call, "name")
    tool_input = common.as_dict(call.get("args"))
    canonical, aliases = TOOLS.get(tool_name, (tool_name, ()))
    for target, sources in aliases:
        common.copy_alias(tool_input, target, sources)
    transcript = fields.text(payload, "transcriptPath", "transcript_path")
    error = payload.get("error")
    return HookEvent(
        PLATFORM_ID,
        EVENTS.get(name, ""),
        host_event=name,
        tool=canonical,
        tool_input=tool_input,
        tool_output={"error": error, "isError": True} if isinstance(error, str) and error else None,
        session_id=_session_id(payload, transcript),
        project_dir=_project_dir(payload, tool_input),
        transcript_path=transcript,
        raw=payload,
    )


def _session_id(payload: dict, transcript: str) -> str:
    return fields.session_id(
        {"transcript_path": transcript, "session_id": fields.text(payload, "conversationId")}
    )


def _project_dir(payload: dict, tool_input: dict) -> str:
    """agy runs hooks from ~/.gemini/config, so the process cwd is never the project."""
    found = fields.text(fields.obj(payload, "workspace"), "current_dir")
    roots = payload.get("workspacePaths")
    if not found and isinstance(roots, list) and roots and isinstance(roots[0], str):
        found = roots[0]
    found = found or fields.text(tool_input, "Cwd") or fields.text(payload, "cwd")
    return fields.usable_dir(found)


def tool_prefix(server: str) -> str:
    """agy names MCP tools `<server>/<tool>`."""
    return f"{server}/"


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event != ev.PRE_TOOL_USE or decision is None:
        return HookOutput()
    if decision.action == ev.DENY:
        return _deny(decision.reason)
    if decision.action == ev.ASK:
        reason = decision.reason or DEFAULT_ASK_REASON
        return common.json_out({"decision": "ask", "reason": reason})
    if decision.action == ev.MODIFY:
        reason = ev.redirect_reason(decision) or decision.reason
        return _deny(reason or common.generic_redirect(tool_prefix(SERVER_NAME)))
    if decision.action == ev.CONTEXT and decision.context:
        return _deny(NUDGE_PREFIX + common.plain_guidance(decision.context))
    return HookOutput()


def _deny(reason: str) -> HookOutput:
    return common.json_out({"decision": "deny", "reason": reason or "Blocked by ctxmode."})


# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("user",)
MATCHERS = {  # regex on agy's tool names; PostToolUse sees every tool
    "PreToolUse": "run_command|view_file|grep_search|web_fetch|read_url_content",
    "PostToolUse": "",
    "Stop": "",
}


def config_paths(project_dir: str = "") -> dict[str, str]:
    import os

    config = os.path.join(os.path.expanduser("~"), ".gemini", "config")
    return {
        "hooks": os.path.join(config, "hooks.json"),
        "mcp": os.path.join(config, "mcp_config.json"),
        "plugin": os.path.join(config, "plugins", "context-mode"),
        "instructions": os.path.join(os.path.dirname(config), "GEMINI.md"),
    }


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, None)


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths()
    entries = {
        host: inst.nested(line, MATCHERS[host]) for host, line in hook_commands(hook_prefix).items()
    }
    return inst.install_json(
        paths["hooks"], entries, paths["mcp"], inst.stdio_server(server_command)
    )


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths()
    return inst.uninstall_json(paths["hooks"], paths["mcp"], delete_when=inst.only_keys())


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Antigravity CLI",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=tool_prefix,
    mcp_config=lambda project_dir: ((config_paths()["mcp"], ("mcpServers",)),),
    can_deny=True,
    can_modify_input=False,
    can_replace_output=False,
    can_inject_context=False,
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        instructions=lambda project_dir: config_paths()["instructions"],
    ),
)
