"""Zed: no hooks; our MCP server in `context_servers`, the routing block in the project's AGENTS.md.

Zed's agent offers a context server's tools under their own names (`ctx_execute`), and
reads the project's AGENTS.md as rules: that file is the only routing Zed gets.
"""

from __future__ import annotations

from ctxmode.platforms import _mcp_only
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "zed"

# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("project",)  # the server goes into the user's settings, the rules into the project
SERVERS_KEY = "context_servers"


def config_paths(project_dir: str = "") -> dict[str, str]:
    import os

    if os.name == "nt":
        base = os.path.join(os.environ.get("APPDATA") or os.path.expanduser("~"), "Zed")
    else:
        config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(
            os.path.expanduser("~"), ".config"
        )
        base = os.path.join(config, "zed")
    project = project_dir or os.getcwd()
    return {
        "settings": os.path.join(base, "settings.json"),
        "instructions": os.path.join(project, "AGENTS.md"),
    }


def hook_commands(command: str) -> dict[str, str]:
    return {}


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    server = {"source": "custom", **inst.stdio_server(server_command), "env": {}}
    path = config_paths(project_dir)["settings"]
    change = inst.json_change(path, lambda d, p: inst.put_server(d, p, server, SERVERS_KEY))
    return [inst.shared(change)]  # one user settings file for every project


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    path = config_paths(project_dir)["settings"]
    return [inst.shared(inst.json_change(path, lambda d, p: inst.drop_server(d, p, SERVERS_KEY)))]


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Zed",
    events=_mcp_only.EVENTS,
    parse=_mcp_only.parser(PLATFORM_ID),
    render=_mcp_only.render,
    tool_prefix=lambda server: "",  # context server tools keep their own names
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
