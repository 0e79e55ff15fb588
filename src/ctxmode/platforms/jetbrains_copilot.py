"""JetBrains Copilot: the VS Code Copilot hook wire under another name.

Same events, payloads and envelopes; the project directory comes from the IDE's
`IDEA_INITIAL_DIRECTORY`, and MCP servers are added in the IDE's settings UI.
"""

from __future__ import annotations

from ctxmode.platforms import vscode_copilot
from ctxmode.platforms.vscode_copilot import EVENTS, HOST_EVENTS, render
from ctxmode.vocab.event import HookEvent
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "jetbrains-copilot"
PROJECT_ENV = ("IDEA_INITIAL_DIRECTORY",)

__all__ = ["EVENTS", "HOST_EVENTS", "PLATFORM_ID", "parse", "render"]


def parse(payload: dict, host_event: str) -> HookEvent:
    return vscode_copilot.parse_copilot(PLATFORM_ID, payload, host_event, PROJECT_ENV)


# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("project",)
INSTALL_EVENTS = ("PreToolUse", "PostToolUse", "PreCompact", "SessionStart", "Stop")
INSTALL_NOTE = (
    "JetBrains: if the IDE does not list the context-mode MCP server, open Settings > Tools > "
    "GitHub Copilot > Model Context Protocol > Configure and add the same entry there."
)


def config_paths(project_dir: str = "") -> dict[str, str]:
    """Hooks in the project (the VS Code file); the MCP server in the plugin's user mcp.json."""
    import os

    base = project_dir or os.getcwd()
    if os.name == "nt":
        data = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
    else:
        data = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return {
        "hooks": os.path.join(base, ".github", "hooks", "context-mode.json"),
        "mcp": os.path.join(data, "github-copilot", "intellij", "mcp.json"),
        "instructions": os.path.join(base, ".github", "copilot-instructions.md"),
    }


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, INSTALL_EVENTS)


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms._install import shared

    paths = config_paths(project_dir)
    hooks, mcp = vscode_copilot.install_copilot_hooks(
        paths, hook_commands(hook_prefix), server_command
    )
    return [hooks, shared(mcp)]  # the plugin's one MCP config serves every project


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms._install import shared

    hooks, mcp = vscode_copilot.uninstall_copilot_hooks(config_paths(project_dir))
    return [hooks, shared(mcp)]


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="JetBrains Copilot",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: f"{server}_",
    project_env=PROJECT_ENV,
    mcp_config=lambda project_dir: ((config_paths(project_dir)["mcp"], ("servers",)),),
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
        note=INSTALL_NOTE,
    ),
)
