"""Codex CLI: Claude-compatible JSON command hooks in `$CODEX_HOME/hooks.json`.

Codex accepts PreToolUse rewrites (`allow` + `updatedInput`) and advisory context only
from codex-cli 0.141.0 on. The installed version is read from `codex --version` only
when a decision needs it, and cached under the data root for an hour, keyed by the
binary's path, size and mtime so an upgrade is noticed at once. Without that support
a command redirect becomes a deny (the host requires a non-empty reason), other
rewrites and context are dropped, and `ask`, which the host rejects, is dropped too.
A PostToolUse `block` replaces what the model receives with its `reason` (0.171; the
output the hook sees is already the host's own ~10 KB cut of a long one).
"""

from __future__ import annotations

import os

from ctxmode import paths
from ctxmode.fastjson import dumps
from ctxmode.platforms import _common as common
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform
from ctxmode.vocab.toolnames import SERVER_NAME

PLATFORM_ID = "codex"
MIN_REWRITE_VERSION = (0, 141, 0)
PROBE_TIMEOUT_S = 2.0
CACHE_TTL_S = 3600.0
CACHE_FILE = "codex-version.json"
DEFAULT_DENY_REASON = "Blocked by ctxmode."

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


def parse(payload: dict, host_event: str) -> HookEvent:
    event = common.snake_event(
        PLATFORM_ID, EVENTS, payload, host_event, output_keys=("tool_response", "tool_output")
    )
    if event.tool == "Bash":
        _normalize_command(event.tool_input)
    return event


def _normalize_command(tool_input: dict) -> None:
    """Legacy shell tools send `cmd` or an argv list; routing reads one `command` string."""
    command = tool_input.get("command")
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) >= 3 and command[1] in ("-c", "-lc"):
            tool_input["command"] = command[2]  # ["bash", "-lc", "<script>"]
        else:
            tool_input["command"] = " ".join(command)
    else:
        common.copy_alias(tool_input, "command", ("cmd", "CommandLine"))


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    if event.event == ev.PRE_TOOL_USE:
        return _render_pre_tool_use(decision)
    if decision is not None and decision.action == ev.REPLACE_OUTPUT:
        if event.event == ev.POST_TOOL_USE and decision.context:
            # A PostToolUse block: the model receives `reason` in place of the tool's output.
            return common.json_out({"decision": "block", "reason": decision.context})
        return common.json_out({})
    if event.event in (ev.POST_TOOL_USE, ev.SESSION_START, ev.USER_PROMPT_SUBMIT):
        context = common.context_of(decision)
        if context:  # an empty one still reaches the model as an empty developer message
            return common.hso(HOST_NAMES[event.event], additionalContext=context)
    return common.json_out({})


HOST_NAMES = {EVENTS[cli]: host for cli, host in HOST_EVENTS.items()}


def _render_pre_tool_use(decision: Decision | None) -> HookOutput:
    if decision is None or decision.action == ev.ASK:
        return common.hso("PreToolUse")
    if decision.action == ev.DENY:
        return _deny(decision.reason)
    if decision.action == ev.MODIFY and isinstance(decision.updated_input, dict):
        if rewrite_supported():
            return common.hso(
                "PreToolUse", permissionDecision="allow", updatedInput=decision.updated_input
            )
        reason = ev.redirect_reason(decision)
        return _deny(reason) if reason else common.hso("PreToolUse")
    if decision.action == ev.CONTEXT and decision.context and rewrite_supported():
        return common.hso("PreToolUse", additionalContext=decision.context)
    return common.hso("PreToolUse")


def _deny(reason: str) -> HookOutput:
    return common.hso(
        "PreToolUse",
        permissionDecision="deny",
        permissionDecisionReason=reason or DEFAULT_DENY_REASON,
    )


# ------------------------------------------------------------ version probe


def rewrite_supported() -> bool:
    """True when the `codex` on PATH is at least 0.141.0 (rewrites and PreToolUse context)."""
    return version_tuple(installed_version()) >= MIN_REWRITE_VERSION


def version_tuple(text: str) -> tuple[int, ...]:
    """(0, 141, 0) from "codex-cli 0.141.0" (pre-release suffixes ignored); () if none."""
    for word in text.split():
        numbers = word.lstrip("v").split("-", 1)[0].split(".")
        if len(numbers) >= 2 and all(part.isdigit() for part in numbers):
            return tuple(int(part) for part in numbers)
    return ()


def installed_version() -> str:
    """The `codex --version` output, from the cache when the binary is unchanged; "" if absent."""
    binary = _which("codex")
    if not binary:
        return ""
    try:
        stat = os.stat(binary)
    except OSError:
        return ""
    key = {"path": binary, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    cached = _read_cache()
    import time

    now = time.time()
    if cached and all(cached.get(name) == value for name, value in key.items()):
        age = now - cached.get("at", 0) if isinstance(cached.get("at"), (int, float)) else -1
        if 0 <= age < CACHE_TTL_S and isinstance(cached.get("version"), str):
            return cached["version"]
    version = _probe(binary)
    _write_cache({**key, "at": now, "version": version})
    return version


def _which(name: str) -> str:
    suffixes = ("",) if os.name != "nt" else (".exe", ".cmd", ".bat", "")
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        for suffix in suffixes:
            candidate = os.path.join(directory or ".", name + suffix)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return ""


def _probe(binary: str) -> str:
    import subprocess

    try:
        done = subprocess.run(
            [binary, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return ""
    return done.stdout.strip()[:200] if done.returncode == 0 else ""


def _cache_path() -> str:
    return os.path.join(paths.data_root(), "cache", CACHE_FILE)


def _read_cache() -> dict:
    try:
        with open(_cache_path(), encoding="utf-8") as handle:
            return common.json_object(handle.read(4096))
    except (OSError, ValueError):
        return {}


def _write_cache(entry: dict) -> None:
    """Best effort, atomic: a failed write only costs a probe next time."""
    try:
        target = _cache_path()
        paths.ensure_dir(os.path.dirname(target))
        paths.write_atomic(target, dumps(entry))
    except (OSError, ValueError):
        pass


# --------------------------------------------------------------- installer (off the hook path)

SCOPES = ("user", "project")
# Rust regex, no look-around. PreToolUse: shell (current and legacy names), grep, fetch,
# our own tools (bare names) and every MCP tool; the other events see every tool.
MATCHERS = {
    "PreToolUse": "Bash|shell|shell_command|exec_command|local_shell|container\\.exec|grep_files"
    "|web_fetch|WebFetch|ctx_execute|ctx_execute_file|ctx_batch_execute|mcp__.*",
    "PostToolUse": None,
    "PreCompact": None,
    "SessionStart": None,
    "UserPromptSubmit": None,
    "Stop": None,
}
INSTALL_NOTE = (
    "Codex: open /hooks in Codex once to review and trust the new hooks "
    "(untrusted hooks are skipped); project hooks load only in a trusted project."
)


def config_paths(project_dir: str = "") -> dict[str, str]:
    home = os.path.expanduser(os.environ.get("CODEX_HOME") or os.path.join("~", ".codex"))
    found = {"hooks": os.path.join(home, "hooks.json"), "config": os.path.join(home, "config.toml")}
    if project_dir:
        found["project_hooks"] = os.path.join(project_dir, ".codex", "hooks.json")
        found["project_config"] = os.path.join(project_dir, ".codex", "config.toml")
    return found


def hook_commands(command: str) -> dict[str, str]:
    """Host event name -> command line, for an installer (`command` runs `ctxmode hook`)."""
    from ctxmode.platforms._install import hook_lines

    return hook_lines(command, PLATFORM_ID, HOST_EVENTS, None)


def _server_table(text: str, server_command: list[str]) -> str:
    """`text` with `[mcp_servers.context-mode]` running ctxmode (any other entry by that
    name replaced); unchanged when it already says exactly that."""
    from ctxmode.platforms import _install as inst

    command, args = server_command[0], server_command[1:]
    wanted = {"command": command, "args": args}
    current = inst.parse_toml("", text).get("mcp_servers", {})
    if isinstance(current, dict) and current.get(SERVER_NAME) == wanted:
        return text
    kept = inst.drop_sections(text, _is_our_server_section)
    block = (
        f"[mcp_servers.{SERVER_NAME}]\n"
        f"command = {inst.toml_string(command)}\n"
        f"args = [{', '.join(inst.toml_string(arg) for arg in args)}]\n"
    )
    return inst.append_block(kept, block)


def _is_our_server_section(path: tuple[str, ...], array: bool, body: dict) -> bool:
    return path[:2] == ("mcp_servers", "context-mode")


def _without_server(text: str) -> str:
    from ctxmode.platforms import _install as inst

    current = inst.parse_toml("", text).get("mcp_servers", {})
    if not isinstance(current, dict) or not inst.is_our_server(current.get(SERVER_NAME)):
        return text
    return inst.drop_sections(text, _is_our_server_section)


def _foreign(document: dict) -> dict:
    """The config minus our server entry (what a TOML edit must leave as it was)."""

    servers = document.get("mcp_servers")
    if isinstance(servers, dict):
        servers.pop(SERVER_NAME, None)
        if not servers:
            del document["mcp_servers"]
    return document


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    prefix = "project_" if project_dir else ""
    entries = {
        host: inst.nested(line, MATCHERS[host]) for host, line in hook_commands(hook_prefix).items()
    }
    hooks = inst.install_json(paths[prefix + "hooks"], entries, "", {})
    config = inst.toml_change(
        paths[prefix + "config"], lambda t: _server_table(t, server_command), _foreign
    )
    return [*hooks, config]


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms import _install as inst

    paths = config_paths(project_dir)
    prefix = "project_" if project_dir else ""
    hooks = inst.uninstall_json(paths[prefix + "hooks"], "", delete_when=inst.only_keys())
    return [*hooks, inst.toml_change(paths[prefix + "config"], _without_server, _foreign)]


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="Codex CLI",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: "",  # members of a per-server namespace keep bare names
    can_deny=True,
    can_modify_input=True,  # from codex-cli 0.141.0 on; older ones get a deny
    rewrites_input=rewrite_supported,
    can_replace_output=True,
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
