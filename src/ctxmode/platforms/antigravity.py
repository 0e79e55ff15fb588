"""Antigravity IDE: no hooks; our MCP server in its `mcp_config.json`, the routing block in GEMINI.md.

The IDE reads the project's GEMINI.md as rules: that file is the only routing it gets.
It names MCP tools `mcp__<server>__<tool>` (not checked on a real binary: the IDE does
not install from a registry).
"""

from __future__ import annotations

from ctxmode.platforms import _mcp_only
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "antigravity"

# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("project",)  # the server goes into the user's MCP config, the rules into the project


def config_paths(project_dir: str = "") -> dict[str, str]:
    import os

    project = project_dir or os.getcwd()
    return {
        "mcp": os.path.join(os.path.expanduser("~"), ".gemini", "antigravity", "mcp_config.json"),
        "instructions": os.path.join(project, "GEMINI.md"),
    }


def hook_commands(command: str) -> dict[str, str]:
    return {}


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    server = inst.stdio_server(server_command)
    path = config_paths(project_dir)["mcp"]
    return [inst.shared(inst.json_change(path, lambda d, p: inst.put_server(d, p, server)))]


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    path = config_paths(project_dir)["mcp"]
    change = inst.json_change(path, inst.drop_server, delete_when=inst.only_keys())
    return [inst.shared(change)]  # one user MCP config for every project


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Antigravity IDE",
    events=_mcp_only.EVENTS,
    parse=_mcp_only.parser(PLATFORM_ID),
    render=_mcp_only.render,
    tool_prefix=lambda server: f"mcp__{server}__",
    mcp_config=lambda project_dir: ((config_paths(project_dir)["mcp"], ("mcpServers",)),),
    can_deny=False,
    can_modify_input=False,
    can_replace_output=False,
    can_inject_context=False,
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        instructions=lambda project_dir: config_paths(project_dir)["instructions"],
    ),
)
