"""Gemini CLI: JSON command hooks registered in `settings.json`.

BeforeTool denies at the top level (`decision`/`reason`), rewrites by letting the host
merge `hookSpecificOutput.tool_input` over the model's arguments, and cannot ask (an
ask is dropped). AfterTool replaces a tool's output with a deny whose `reason` the model
receives instead (as the tool's error). BeforeAgent always answers a `hookSpecificOutput`
object.
"""

from __future__ import annotations

from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "gemini-cli"
PROJECT_ENV = ("GEMINI_PROJECT_DIR",)

# Host event name (as registered in settings.json) by the lower-case CLI name.
HOST_EVENTS = {
    "beforetool": "BeforeTool",
    "aftertool": "AfterTool",
    "beforeagent": "BeforeAgent",
    "precompress": "PreCompress",
    "sessionstart": "SessionStart",
    "aftermodel": "AfterModel",
    "afteragent": "AfterAgent",
    "sessionend": "SessionEnd",
}
EVENTS = {
    "beforetool": ev.PRE_TOOL_USE,
    "aftertool": ev.POST_TOOL_USE,
    "beforeagent": ev.USER_PROMPT_SUBMIT,
    "precompress": ev.PRE_COMPACT,
    "sessionstart": ev.SESSION_START,
    "aftermodel": ev.AFTER_MODEL,  # usage capture only; the reference forgot to dispatch it
    "afteragent": ev.STOP,
    "sessionend": ev.SESSION_END,
}


def parse(payload: dict, host_event: str) -> HookEvent:
    event = common.snake_event(PLATFORM_ID, EVENTS, payload, host_event, project_env=PROJECT_ENV)
    tool_input = event.tool_input
    if event.tool == "Read":
        common.copy_alias(tool_input, "file_path", ("absolute_path",))
    elif event.tool == "WebFetch":  # web_fetch takes a prompt that embeds the URLs
        url = common.first_url(tool_input.get("prompt"))
        if url:
            common.copy_alias(tool_input, "url", ("URL", "Url"))
            tool_input.setdefault("url", url)
    return event


def tool_prefix(server: str) -> str:
    """`mcp_<server>_`: the host keeps letters, digits and `_-.:` of the server name."""
    kept = "".join(c if c.isascii() and (c.isalnum() or c in "_-.:") else "_" for c in server)
    return f"mcp_{kept}_"


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event == ev.PRE_TOOL_USE:
        return _render_before_tool(decision)
    if decision is not None and decision.action == ev.REPLACE_OUTPUT:
        # AfterTool deny: the host drops the tool's output and sends `reason` instead.
        if event.event == ev.POST_TOOL_USE and decision.context:
            return common.json_out({"decision": "deny", "reason": decision.context})
        return HookOutput()
    context = common.context_of(decision)
    host_name = HOST_EVENTS.get(event.host_event, "")
    if event.event == ev.USER_PROMPT_SUBMIT:  # BeforeAgent always answers an object
        return common.hso(host_name or "BeforeAgent", additionalContext=context or "")
    if context and event.event in (ev.SESSION_START, ev.POST_TOOL_USE):
        return common.hso(host_name, additionalContext=context)
    return HookOutput()


def _render_before_tool(decision: Decision | None) -> HookOutput:
    if decision is None or decision.action == ev.ASK:  # the host has no ask
        return HookOutput()
    if decision.action == ev.DENY:
        return common.json_out({"decision": "deny", "reason": decision.reason})
    if decision.action == ev.MODIFY and isinstance(decision.updated_input, dict):
        return common.json_out({"hookSpecificOutput": {"tool_input": decision.updated_input}})
    # A tip (CONTEXT) is not sent: Gemini CLI 0.61 never shows BeforeTool additionalContext
    # to the model (measured), and a tip the model never sees is only noise.
    return HookOutput()


# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("user", "project")
# Registered events and their matchers (regex on the tool name; "" = all). AfterTool sees
# every tool: session capture needs them all. AfterModel and SessionEnd have no handler.
MATCHERS = {
    "BeforeTool": "run_shell_command|read_file|read_many_files|grep_search|search_file_content"
    "|web_fetch|invoke_agent|mcp_.*",
    "AfterTool": "",
    "BeforeAgent": "",
    "PreCompress": "",
    "SessionStart": "",
    "AfterAgent": "",
}


def config_paths(project_dir: str = "") -> dict[str, str]:
    """Hooks and `mcpServers` share one settings.json per scope."""
    import os

    user = os.path.join(os.path.expanduser("~"), ".gemini", "settings.json")
    paths = {"user": user, "user_mcp": user}
    if project_dir:
        project = os.path.join(project_dir, ".gemini", "settings.json")
        paths.update(project=project, project_mcp=project)
    return paths


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, MATCHERS)


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    path = config_paths(project_dir)["project" if project_dir else "user"]
    entries = {
        host: inst.nested(line, MATCHERS[host]) for host, line in hook_commands(hook_prefix).items()
    }
    return inst.install_json(path, entries, path, inst.stdio_server(server_command))


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    path = config_paths(project_dir)["project" if project_dir else "user"]
    return inst.uninstall_json(path, path)


def plugin_installed() -> str:
    """Our extension when Gemini CLI has it installed (`~/.gemini/extensions/ctxmode`), else ""."""
    import os

    home = os.path.dirname(config_paths()["user"])
    manifest = os.path.join(home, "extensions", "ctxmode", "gemini-extension.json")
    return f"the extension in {os.path.dirname(manifest)}" if os.path.isfile(manifest) else ""


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Gemini CLI",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=tool_prefix,
    project_env=PROJECT_ENV,
    client_names=("gemini-cli-mcp-client",),
    mcp_config=common.settings_servers(config_paths),
    can_deny=True,
    can_modify_input=True,
    can_replace_output=True,
    can_inject_context=True,
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        plugin_installed=plugin_installed,
    ),
)
