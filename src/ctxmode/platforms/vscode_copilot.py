"""VS Code Copilot agent hooks: `.github/hooks/*.json`, PascalCase events.

Every PreToolUse answer goes inside `hookSpecificOutput` with `hookEventName`, as the
VS Code hooks reference documents (the reference wrote deny/ask flat, which the host
does not describe). A rewrite is `allow` + the complete `updatedInput`: VS Code ignores
one that does not match the tool's schema, so the input keeps its sibling fields.
"""

from __future__ import annotations

from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "vscode-copilot"
PROJECT_ENV = ("VSCODE_CWD",)
REWRITE_REASON = "Routed to the ctxmode sandbox"

HOST_EVENTS = {
    "pretooluse": "PreToolUse",
    "posttooluse": "PostToolUse",
    "precompact": "PreCompact",
    "sessionstart": "SessionStart",
    "userpromptsubmit": "UserPromptSubmit",
    "stop": "Stop",
}
EVENTS = {
    "pretooluse": ev.PRE_TOOL_USE,
    "posttooluse": ev.POST_TOOL_USE,
    "precompact": ev.PRE_COMPACT,
    "sessionstart": ev.SESSION_START,
    "userpromptsubmit": ev.USER_PROMPT_SUBMIT,
    "stop": ev.STOP,
}

HOST_NAMES = {EVENTS[cli]: host for cli, host in HOST_EVENTS.items()}


def parse(payload: dict, host_event: str) -> HookEvent:
    return parse_copilot(PLATFORM_ID, payload, host_event, PROJECT_ENV)


def parse_copilot(
    platform: str, payload: dict, host_event: str, project_env: tuple[str, ...]
) -> HookEvent:
    """The VS Code hook payload, shared with JetBrains Copilot."""
    event = common.snake_event(platform, EVENTS, payload, host_event, project_env=project_env)
    tool_input = event.tool_input
    if event.tool == "Read":
        common.copy_alias(tool_input, "file_path", ("filePath",))
    elif event.raw.get("tool_name") == "fetch_webpage":  # not a plain fetch: takes `urls`
        urls = tool_input.get("urls")
        if isinstance(urls, list) and urls and isinstance(urls[0], str):
            event.tool = "WebFetch"
            tool_input.setdefault("url", urls[0])
    return event


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event == ev.PRE_TOOL_USE:
        return render_pre_tool_use(decision)
    context = common.context_of(decision)
    if context and event.event in (ev.SESSION_START, ev.POST_TOOL_USE, ev.USER_PROMPT_SUBMIT):
        return common.hso(HOST_NAMES[event.event], additionalContext=context)
    return HookOutput()


def render_pre_tool_use(decision: Decision | None) -> HookOutput:
    if decision is None:
        return HookOutput()
    if decision.action in (ev.DENY, ev.ASK):
        fields: dict[str, object] = {"permissionDecision": decision.action}
        if decision.reason:
            fields["permissionDecisionReason"] = decision.reason
        return common.hso("PreToolUse", **fields)
    if decision.action == ev.MODIFY and isinstance(decision.updated_input, dict):
        return common.hso(
            "PreToolUse",
            permissionDecision="allow",
            permissionDecisionReason=REWRITE_REASON,
            updatedInput=decision.updated_input,
        )
    if decision.action == ev.CONTEXT and decision.context:
        return common.hso("PreToolUse", additionalContext=decision.context)
    return HookOutput()


# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("project",)  # the user-level hooks dir (~/.copilot/hooks) is Copilot CLI's too
INSTALL_EVENTS = ("PreToolUse", "PostToolUse", "PreCompact", "SessionStart", "UserPromptSubmit",
                  "Stop")  # fmt: skip


def config_paths(project_dir: str = "") -> dict[str, str]:
    import os

    base = project_dir or os.getcwd()
    return {
        "hooks": os.path.join(base, ".github", "hooks", "context-mode.json"),
        "mcp": os.path.join(base, ".vscode", "mcp.json"),
        "instructions": os.path.join(base, ".github", "copilot-instructions.md"),
    }


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, INSTALL_EVENTS)


def install_copilot_hooks(
    paths: dict[str, str], commands: dict[str, str], server_command: list[str]
) -> list:
    """Flat `{type, command}` hooks (VS Code fires them for every tool: no matcher) and a
    `servers` entry (shared with JetBrains Copilot)."""
    from ctxmode.platforms import _install as inst

    entries = {host: {"type": "command", "command": line} for host, line in commands.items()}
    server = inst.stdio_server(server_command, type="stdio")
    return inst.install_json(paths["hooks"], entries, paths["mcp"], server, mcp_key="servers")


def uninstall_copilot_hooks(paths: dict[str, str]) -> list:
    from ctxmode.platforms import _install as inst

    return inst.uninstall_json(
        paths["hooks"], paths["mcp"], mcp_key="servers", delete_when=inst.only_keys()
    )


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    paths = config_paths(project_dir)
    return install_copilot_hooks(paths, hook_commands(hook_prefix), server_command)


def uninstall_changes(project_dir: str = "") -> list:
    return uninstall_copilot_hooks(config_paths(project_dir))


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="VS Code Copilot",
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
    ),
)
