"""JetBrains Copilot: the VS Code Copilot hook wire under another name (platforms.md §A.5).

Same events, payloads and envelopes; the project directory comes from the IDE's
`IDEA_INITIAL_DIRECTORY`, and MCP servers are added in the IDE's settings UI.
"""

from __future__ import annotations

from ctxmode.hooks.event import HookEvent
from ctxmode.platforms import vscode_copilot
from ctxmode.platforms.vscode_copilot import EVENTS, HOST_EVENTS, render

PLATFORM_ID = "jetbrains-copilot"
TOOL_PREFIX = "context-mode_"
PROJECT_ENV = ("IDEA_INITIAL_DIRECTORY",)

__all__ = ["EVENTS", "HOST_EVENTS", "PLATFORM_ID", "TOOL_PREFIX", "parse", "render"]


def parse(payload: dict, host_event: str) -> HookEvent:
    return vscode_copilot.parse_copilot(PLATFORM_ID, payload, host_event, PROJECT_ENV)


def config_paths(project_dir: str = "") -> dict[str, str]:
    import os

    base = project_dir or os.getcwd()
    return {
        "hooks": os.path.join(base, ".github", "hooks", "context-mode.json"),
        "instructions": os.path.join(base, ".github", "copilot-instructions.md"),
    }


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    return {host: f"{command} {PLATFORM_ID} {cli}" for cli, host in HOST_EVENTS.items()}
