"""Qwen Code: command hooks in `~/.qwen/settings.json` on the Claude Code wire.

Same envelopes as Claude Code; Qwen's own tool names (`run_shell_command`, `read_file`,
`grep_search`, `web_fetch`, `agent`) are canonicalized by the shared alias table, our
tools are `mcp__context-mode__ctx_*`, and there is no lazy tool loading (no ToolSearch).
Two differences measured on 0.24.4: a PreToolUse `updatedInput` is not run (a rewrite
becomes a deny naming the command), and a tool's output is replaced through
`continue: false` + `stopReason` rather than Claude's fields.
"""

from __future__ import annotations

from ctxmode.platforms import _common as common
from ctxmode.platforms import claude_code
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "qwen-code"
SESSION_ENV = ("QWEN_SESSION_ID", "CLAUDE_SESSION_ID")
PROJECT_ENV = ("QWEN_PROJECT_DIR", "CLAUDE_PROJECT_DIR")

EVENTS = dict(claude_code.EVENTS)  # includes `stop`, which the reference's dispatcher forgot


def parse(payload: dict, host_event: str) -> HookEvent:
    event = claude_code.parse_claude_style(
        PLATFORM_ID, EVENTS, payload, host_event, SESSION_ENV, PROJECT_ENV
    )
    tool_input = event.tool_input
    if event.tool == "Read" and "file_path" not in tool_input:
        path = tool_input.get("absolute_path")
        if isinstance(path, str) and path:
            tool_input["file_path"] = path
    return event


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if decision is not None and decision.action == ev.REPLACE_OUTPUT:
        # 0.24 ignores Claude's updated*ToolOutput; a PostToolUse `continue: false` makes its
        # `stopReason` the tool's result and the turn goes on (measured on the binary).
        if event.event == ev.POST_TOOL_USE and decision.context:
            return common.json_out({"continue": False, "stopReason": decision.context})
        return HookOutput()
    # Measured on Qwen Code 0.24.4: PreToolUse updatedInput and additionalContext are dropped.
    return claude_code.render_claude_style(
        event, decision, replaces_output=False, rewrites=False, tool_tips=False
    )


# --------------------------------------------------------------- installer (off the hook path)

MATCHERS = {
    # No `agent`: the subagent block is a rewrite, which this host drops.
    "PreToolUse": "run_shell_command|read_file|read_many_files|grep_search|web_fetch|mcp__.*",
    "PostToolUse": "",
    "PostToolUseFailure": "run_shell_command",
    "PreCompact": "",
    "SessionStart": "",
    "UserPromptSubmit": "",
    "Stop": "",
}


SCOPES = ("user", "project")


def config_paths(project_dir: str = "") -> dict[str, str]:
    """Hooks and the MCP server share one settings.json per scope."""
    import os

    user = os.path.join(os.path.expanduser("~"), ".qwen", "settings.json")
    found = {"user": user, "user_mcp": user}
    if project_dir:
        project = os.path.join(project_dir, ".qwen", "settings.json")
        found.update(project=project, project_mcp=project)
    return found


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, claude_code.HOST_EVENTS, MATCHERS)


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    server = inst.stdio_server(server_command)
    commands = hook_commands(hook_prefix)
    paths = config_paths(project_dir)
    return claude_code.install_claude_style(paths, commands, MATCHERS, server, project_dir)


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    path = config_paths(project_dir)["project" if project_dir else "user"]
    # The host stamps a settings file it reads with "$version": with ours gone, only that
    # stamp left means nothing of the user's is in it.
    return inst.uninstall_json(path, path, delete_when=inst.only_keys("$version"))


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Qwen Code",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: f"mcp__{server}__",
    project_env=PROJECT_ENV,
    client_names=("qwen-cli-mcp-client",),
    mcp_config=common.settings_servers(config_paths),
    can_deny=True,
    # Measured on Qwen Code 0.24.4: a PreToolUse `updatedInput` only reaches the next hook;
    # the tool runs with the model's arguments. Rewrites are rendered as denies.
    can_modify_input=False,
    can_replace_output=True,
    can_inject_context=True,
    pin_cwd=True,
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
    ),
)
