"""Claude Code: JSON command hooks in `~/.claude/settings.json`.

PreToolUse answers in `hookSpecificOutput` with a permission decision; a command redirect
(an `echo` of guidance) becomes a deny carrying the guidance, other rewrites (the wrapper,
Agent prompts, a pinned cwd) are a plain `updatedInput`, which Claude Code 2.1 runs.
PreCompact and Stop always answer `{}`; PostToolUse can replace an MCP tool's output (`updatedMCPToolOutput`).
"""

from __future__ import annotations

from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, McpSources, Platform

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

PLATFORM_ID = "claude-code"
SESSION_ENV = ("CLAUDE_SESSION_ID",)
PROJECT_ENV = ("CLAUDE_PROJECT_DIR",)

# Host event names by the lower-case CLI name.
SERVERS = ("mcpServers",)

HOST_EVENTS = {
    "pretooluse": "PreToolUse",
    "posttooluse": "PostToolUse",
    "posttoolusefailure": "PostToolUseFailure",
    "precompact": "PreCompact",
    "sessionstart": "SessionStart",
    "userpromptsubmit": "UserPromptSubmit",
    "stop": "Stop",
    "sessionend": "SessionEnd",
}
EVENTS = {
    "pretooluse": ev.PRE_TOOL_USE,
    "posttooluse": ev.POST_TOOL_USE,
    "posttoolusefailure": ev.POST_TOOL_USE_FAILURE,
    "precompact": ev.PRE_COMPACT,
    "sessionstart": ev.SESSION_START,
    "userpromptsubmit": ev.USER_PROMPT_SUBMIT,
    "stop": ev.STOP,
    "sessionend": ev.SESSION_END,
}
ALWAYS_ANSWER_EMPTY_OBJECT = frozenset((ev.PRE_COMPACT, ev.STOP))


def parse_claude_style(
    platform: str,
    events: dict[str, str],
    payload: dict,
    host_event: str,
    session_env: tuple[str, ...],
    project_env: tuple[str, ...],
) -> HookEvent:
    """A HookEvent from a Claude-wire payload (shared with Qwen Code)."""
    event = common.snake_event(
        platform, events, payload, host_event, session_env=session_env, project_env=project_env
    )
    if event.event == ev.PRE_COMPACT:
        event.source = fields.text(event.raw, "trigger")  # manual | auto
    return event


def parse(payload: dict, host_event: str) -> HookEvent:
    return parse_claude_style(PLATFORM_ID, EVENTS, payload, host_event, SESSION_ENV, PROJECT_ENV)


def render_claude_style(
    event: HookEvent,
    decision: Decision | None,
    replaces_output: bool,
    rewrites: bool = True,
    tool_tips: bool = True,
) -> HookOutput:
    """The Claude-wire envelope for any event (shared with Qwen Code, which replaces a tool's
    output its own way and says so with `replaces_output=False`).

    `rewrites`: the host runs a PreToolUse `updatedInput` (Qwen Code 0.24 does not: it
    only hands it to the next hook); if not, a command rewrite becomes a deny with its
    reason and other rewrites are dropped. `tool_tips`: the host shows the model a
    PreToolUse `additionalContext` (Qwen Code 0.24 drops it); if not, none is sent.
    """
    if event.event in ALWAYS_ANSWER_EMPTY_OBJECT:
        return HookOutput("{}")
    if decision is None:
        return HookOutput()
    host_name = HOST_EVENTS.get(event.host_event, "")
    if event.event == ev.PRE_TOOL_USE:
        if decision.action == ev.CONTEXT and not tool_tips:
            return HookOutput()
        return _render_pre_tool_use(decision, rewrites)
    if decision.action == ev.CONTEXT and decision.context and host_name:
        return common.hso(host_name, additionalContext=decision.context)
    if decision.action == ev.REPLACE_OUTPUT and event.event == ev.POST_TOOL_USE and replaces_output:
        from ctxmode.hooks.posttooluse import replacement_like

        replaced = replacement_like(event.tool_output, decision.context)
        if event.tool.startswith("mcp__"):  # the field older versions know, for MCP tools only
            return common.hso("PostToolUse", updatedMCPToolOutput=replaced)
        # Built-in tools (2.1.33x): the same JSON shape as the original, or it is ignored.
        return common.hso("PostToolUse", updatedToolOutput=replaced)
    return HookOutput()


def _render_pre_tool_use(decision: Decision, rewrites: bool) -> HookOutput:
    action = decision.action
    if action == ev.DENY:
        return _deny(decision.reason or "Blocked by ctxmode.")
    if action == ev.ASK:
        if decision.reason:  # shown to the user at the confirmation prompt
            return common.hso("PreToolUse", permissionDecision="ask",
                              permissionDecisionReason=decision.reason)  # fmt: skip
        return common.hso("PreToolUse", permissionDecision="ask")
    if action == ev.MODIFY and isinstance(decision.updated_input, dict):
        # A redirect that only echoes guidance is clearer to the model as a deny; a real
        # rewrite (a command run through `ctxmode wrap`) runs: Claude Code honours it.
        redirect = ev.unwrap_echo(decision.updated_input.get("command"))
        if redirect or (not rewrites and ev.redirect_reason(decision)):
            return _deny(ev.redirect_reason(decision))
        if not rewrites:
            return HookOutput()  # the host would drop the new input anyway
        meta = decision.meta or {}
        if meta.get("allowed_by") or meta.get("read_only"):
            # The host checks its rules on the rewritten command, which the user's rule for
            # the original no longer matches, and runs read-only commands without asking
            # but cannot tell the rewrite is one: say allow, as it would have.
            why = (
                f"allowed by the user's rule {meta['allowed_by']}"
                if meta.get("allowed_by")
                else "a read-only command, which runs without asking"
            )
            return common.hso("PreToolUse", permissionDecision="allow",
                              permissionDecisionReason=why,
                              updatedInput=decision.updated_input)  # fmt: skip
        if decision.context:  # e.g. a bounded read says where the whole file is
            return common.hso("PreToolUse", updatedInput=decision.updated_input,
                              additionalContext=decision.context)  # fmt: skip
        return common.hso("PreToolUse", updatedInput=decision.updated_input)
    if action == ev.CONTEXT and decision.context:
        return common.hso("PreToolUse", additionalContext=decision.context)
    return HookOutput()


def _deny(reason: str) -> HookOutput:
    return common.hso("PreToolUse", permissionDecision="deny", permissionDecisionReason=reason)


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    return render_claude_style(event, decision, replaces_output=True)


# --------------------------------------------------------------- installer (off the hook path)

# Which tools each hook needs to see (host matchers are regexes). PostToolUse sees every
# tool: session capture records edits, commands, errors and tasks from all of them.
MATCHERS = {
    "PreToolUse": "Bash|Read|Grep|WebFetch|Agent|Task|mcp__.*",
    "PostToolUse": "",
    "PostToolUseFailure": "Bash",
    "PreCompact": "",
    "SessionStart": "",
    "UserPromptSubmit": "",
    "Stop": "",
}


SCOPES = ("user", "project")


def config_paths(project_dir: str = "") -> dict[str, str]:
    """Hooks in settings.json; the MCP server in `.claude.json` (user) or `.mcp.json` (project)."""
    import os

    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    base = os.path.expanduser(configured or "~/.claude")
    # Without CLAUDE_CONFIG_DIR the user-scope MCP file sits in the home dir, not ~/.claude.
    state = os.path.join(base if configured else os.path.expanduser("~"), ".claude.json")
    found = {"user": os.path.join(base, "settings.json"), "user_mcp": state}
    if project_dir:
        found["project"] = os.path.join(project_dir, ".claude", "settings.json")
        found["project_mcp"] = os.path.join(project_dir, ".mcp.json")
    return found


def mcp_config(project_dir: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The project's `.mcp.json`, this project in `.claude.json`, then the user's servers."""
    paths = config_paths(project_dir)
    found = ((paths["project_mcp"], SERVERS),) if project_dir else ()
    state = paths["user_mcp"]
    return (*found, (state, ("projects", project_dir, *SERVERS)), (state, SERVERS))


PLUGIN_MANIFEST = (".claude-plugin", "plugin.json")


def plugin_mcp_config(environ: Mapping[str, str]) -> tuple[str, McpSources]:
    """Our plugin's MCP config when a plugin of Claude Code started us (`CLAUDE_PLUGIN_ROOT`).

    Claude Code names a plugin's server `plugin_<plugin>_<server>` in tool names
    (`mcp__plugin_ctxmode_context-mode__ctx_search`); the plugin's name is in its
    manifest, its servers in the manifest or the plugin's `.mcp.json`.
    """
    import os

    root = environ.get("CLAUDE_PLUGIN_ROOT", "")
    if not root:
        return "", ()
    manifest = os.path.join(root, *PLUGIN_MANIFEST)
    name = _manifest_name(manifest)
    if not name:
        return "", ()
    return f"plugin_{name}_", ((os.path.join(root, ".mcp.json"), SERVERS), (manifest, SERVERS))


def _manifest_name(path: str) -> str:
    from ctxmode import fastjson

    try:
        with open(path, encoding="utf-8") as handle:
            document = fastjson.loads(handle.read(65536))
    except (OSError, ValueError):
        return ""
    name = document.get("name") if isinstance(document, dict) else None
    return name if isinstance(name, str) else ""


def plugin_installed() -> str:
    """Our plugin when the user's settings enable it (`enabledPlugins`), else ""."""
    from ctxmode.platforms._install import parse_json, read_text

    path = config_paths()["user"]
    enabled = parse_json(path, read_text(path)).get("enabledPlugins")
    found = [
        key
        for key, on in (enabled.items() if isinstance(enabled, dict) else ())
        if on is True and key.startswith("ctxmode@")
    ]
    return f"the plugin {found[0]} (enabled in {path})" if found else ""


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, MATCHERS)


def install_claude_style(
    paths: dict[str, str],
    commands: dict[str, str],
    matchers: dict[str, str],
    server: dict,
    project_dir: str,
) -> list:
    """Claude-shaped hooks and an `mcpServers` entry (shared with Qwen Code)."""
    from ctxmode.platforms import _install as inst

    scope = "project" if project_dir else "user"
    entries = {host: inst.nested(line, matchers.get(host, "")) for host, line in commands.items()}
    return inst.install_json(paths[scope], entries, paths[f"{scope}_mcp"], server)


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    server = inst.stdio_server(server_command, type="stdio")
    commands = hook_commands(hook_prefix)
    return install_claude_style(config_paths(project_dir), commands, MATCHERS, server, project_dir)


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    scope = "project" if project_dir else "user"
    return inst.uninstall_json(paths[scope], paths[f"{scope}_mcp"])


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Claude Code",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: f"mcp__{server}__",
    project_env=PROJECT_ENV,
    client_names=("claude-code",),
    mcp_config=mcp_config,
    plugin_mcp_config=plugin_mcp_config,
    can_deny=True,
    can_modify_input=True,
    can_replace_output=True,
    can_inject_context=True,
    pin_cwd=True,
    tool_search_bootstrap=True,  # Claude Code loads MCP tool schemas lazily (ToolSearch)
    read_window=("offset", "limit"),  # Read's line window; an updatedInput sets it
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        plugin_installed=plugin_installed,
    ),
)
