"""Kimi Code CLI: Claude-style JSON hooks declared as `[[hooks]]` in config.toml.

The host acts on PreToolUse only through `permissionDecision: "deny"`; it drops
`ask`, `updatedInput` and `additionalContext`. A command redirect therefore becomes
a deny carrying the guidance (the reference dropped it, so curl/wget went through).

Hook context never reaches the model here, so the routing block goes into an
instruction file. kimi-cli 1.52 puts into its system prompt the `AGENTS.md` and
`.kimi/AGENTS.md` of every directory from the project root (the nearest `.git`) down
to the work dir, and reads no user-wide file. Setup writes `.kimi/AGENTS.md`: only
Kimi reads it, whereas `AGENTS.md` also reaches hosts that name our tools differently.
"""

from __future__ import annotations

import os

from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "kimi"

HOST_EVENTS = {
    "pretooluse": "PreToolUse",
    "posttooluse": "PostToolUse",
    "precompact": "PreCompact",
    "sessionstart": "SessionStart",
    "sessionend": "SessionEnd",
    "userpromptsubmit": "UserPromptSubmit",
    "stop": "Stop",
}
EVENTS = {
    "pretooluse": ev.PRE_TOOL_USE,
    "posttooluse": ev.POST_TOOL_USE,
    "precompact": ev.PRE_COMPACT,
    "sessionstart": ev.SESSION_START,
    "sessionend": ev.SESSION_END,
    "userpromptsubmit": ev.USER_PROMPT_SUBMIT,
    "stop": ev.STOP,
}
HOST_NAMES = {EVENTS[cli]: host for cli, host in HOST_EVENTS.items()}


def parse(payload: dict, host_event: str) -> HookEvent:
    event = common.snake_event(
        PLATFORM_ID, EVENTS, payload, host_event, output_keys=("tool_output", "tool_response")
    )
    if event.event == ev.SESSION_START and event.source not in ("startup", "resume"):
        event.source = "startup"  # the host sends only startup | resume
    return event


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event == ev.PRE_TOOL_USE:
        return _render_pre_tool_use(decision)
    if event.event in (ev.POST_TOOL_USE, ev.SESSION_START, ev.USER_PROMPT_SUBMIT):
        context = common.context_of(decision) or ""
        return common.hso(HOST_NAMES[event.event], additionalContext=context)
    return common.json_out({})


def _render_pre_tool_use(decision: Decision | None) -> HookOutput:
    reason = ""
    if decision is not None and decision.action == ev.DENY:
        reason = decision.reason or "Blocked by ctxmode."
    elif decision is not None:
        reason = ev.redirect_reason(decision)
    if reason:
        return common.hso("PreToolUse", permissionDecision="deny", permissionDecisionReason=reason)
    return common.hso("PreToolUse")


# --------------------------------------------------------------- installer (off the hook path)

# Hooks and the MCP server live in the user's config whatever the scope (Kimi reads no
# project config); the scope picks the project whose `.kimi/AGENTS.md` gets the block.
# So they are shared: `--uninstall --project DIR` takes out DIR's block only (the other
# projects keep their routing); a user-level `--uninstall` removes them and the block
# of the current project (another project's: `--uninstall --project DIR`).
SCOPES = ("user", "project")
HOOK_TIMEOUT_S = 30
# JS regex on the tool name; None: no matcher (every tool). SessionEnd has no handler.
MATCHERS = {
    # Kimi's own tool names, and ours, which keep their bare names (measured with kimi-cli
    # 1.52). No Grep or Agent: their tip and subagent rewrite are dropped by this host.
    "PreToolUse": "Shell|ReadFile|FetchURL|ctx_execute|ctx_execute_file|ctx_batch_execute|mcp__.*",
    "PostToolUse": None,
    "PreCompact": None,
    "SessionStart": None,
    "UserPromptSubmit": None,
    "Stop": None,
}


def config_paths(project_dir: str = "") -> dict[str, str]:
    home = config_home()
    return {
        "config": os.path.join(home, "config.toml"),
        "mcp": os.path.join(home, "mcp.json"),
        "instructions": instructions(project_dir),
    }


def instructions(project_dir: str = "") -> str:
    """The project's `.kimi/AGENTS.md`; user scope: the project of the current directory,
    since Kimi has no user-wide instruction file."""
    from ctxmode.storage.project import resolve_project_root

    return os.path.join(project_dir or resolve_project_root(), ".kimi", "AGENTS.md")


def config_home() -> str:
    """Where this machine's Kimi reads its config.

    Kimi Code uses `$KIMI_CODE_HOME` (~/.kimi-code); the kimi-cli release on PyPI uses
    `$KIMI_SHARE_DIR` (~/.kimi). An explicit variable wins; else ~/.kimi when only it
    exists (kimi-cli is what is installed), else ~/.kimi-code.
    """
    for name in ("KIMI_CODE_HOME", "KIMI_SHARE_DIR"):
        if os.environ.get(name):
            return os.path.expanduser(os.environ[name])
    code, cli = os.path.expanduser("~/.kimi-code"), os.path.expanduser("~/.kimi")
    return cli if os.path.isdir(cli) and not os.path.isdir(code) else code


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, MATCHERS)


def _hook_tables(commands: dict[str, str]) -> list[dict]:
    """Our `[[hooks]]` tables: exactly event, matcher?, command, timeout (the host rejects more)."""
    tables = []
    for host, line in commands.items():
        table: dict = {"event": host}
        if MATCHERS[host] is not None:
            table["matcher"] = MATCHERS[host]
        tables.append({**table, "command": line, "timeout": HOOK_TIMEOUT_S})
    return tables


def _is_our_hook_section(path: tuple[str, ...], array: bool, body: dict) -> bool:
    from ctxmode.platforms import _install as inst

    return path == ("hooks",) and array and inst.is_our_command(body.get("command"))


def _ours(text: str) -> list:
    from ctxmode.platforms import _install as inst

    hooks = inst.parse_toml("", text).get("hooks")
    hooks = hooks if isinstance(hooks, list) else []
    return [h for h in hooks if isinstance(h, dict) and inst.is_our_command(h.get("command"))]


def _with_hooks(text: str, tables: list[dict]) -> str:
    from ctxmode.platforms import _install as inst

    if _ours(text) == tables:
        return text
    text = inst.drop_sections(text, _is_our_hook_section)
    for table in tables:
        lines = [f"{key} = {_toml_value(value)}" for key, value in table.items()]
        text = inst.append_block(text, "[[hooks]]\n" + "\n".join(lines) + "\n")
    return text


def _toml_value(value: object) -> str:
    from ctxmode.platforms import _install as inst

    return str(value) if isinstance(value, int) else inst.toml_string(str(value))


def _foreign(document: dict) -> dict:
    """The config minus our `[[hooks]]` tables (what a TOML edit must leave as it was)."""
    from ctxmode.platforms import _install as inst

    hooks = document.get("hooks")
    if isinstance(hooks, list):
        kept = [
            h for h in hooks if not (isinstance(h, dict) and inst.is_our_command(h.get("command")))
        ]
        if kept:
            document["hooks"] = kept
        else:
            del document["hooks"]
    return document


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    tables = _hook_tables(hook_commands(hook_prefix))
    config = inst.toml_change(paths["config"], lambda text: _with_hooks(text, tables), _foreign)
    server = inst.stdio_server(server_command)
    mcp = inst.json_change(paths["mcp"], lambda d, p: inst.put_server(d, p, server))
    return [inst.shared(config), inst.shared(mcp)]


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    config = inst.toml_change(
        paths["config"], lambda text: inst.drop_sections(text, _is_our_hook_section), _foreign
    )
    mcp = inst.json_change(paths["mcp"], inst.drop_server)
    return [inst.shared(config), inst.shared(mcp)]


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Kimi Code CLI",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: "",  # the real kimi-cli lists MCP tools by their bare names
    can_deny=True,
    can_modify_input=False,
    can_replace_output=False,
    can_inject_context=False,  # the host ignores hook context: the block is in .kimi/AGENTS.md
    installer=Installer(
        scopes=SCOPES,
        config_paths=config_paths,
        hook_commands=hook_commands,
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        instructions=instructions,
        note="Kimi reads instructions per project only: the routing block is in this "
        "project's .kimi/AGENTS.md; for another project run "
        "`ctxmode setup kimi --project DIR`.",
    ),
)
