"""OpenClaw: a Gateway plugin forwarding to our Python rules.

OpenClaw runs plugin hooks only inside its Gateway. Our plugin (package data under
`ctxmode/plugins/openclaw/`, over the shared `bridge.js`) sends `before_tool_call` (a
`{block, blockReason}` answer denies the call; a `{params}` answer rewrites it), the
tool-result middleware (the one seam that can replace what the model reads; the manifest
declares it), `before_prompt_build` (the routing block, appended to the system prompt of
each run; the resume guide after a compaction) and the compaction hooks. The rules are
`ctxmode.hooks.plugin_rules`; this module only translates.

OpenClaw hands the middleware only a window of a long shell output and keeps no file of
it, so before a shell call runs we tee its output into a spool file (`tee_command`);
the middleware's event then indexes that file, the whole output, and removes it. A spool
whose result never came is swept by a later tee. A command that could outlive the call
(a background job) is not teed: the pipe would hold the call open.

Another MCP server's tool (`<server>__<tool>`; the shim names the configured servers in
`mcpServers`) gets the same Tier 2 as on other hosts, but only for a result the middleware
saw whole: OpenClaw hands it each text block cut at MIDDLEWARE_TEXT_CHARS (its
tool-result-middleware's sanitizing step) and keeps the whole result nowhere a plugin can
read, so a longer block passes as the host cuts it (docs/mcp-results.md).

The shim's payload: `tool`, `input` (the call's params), `callId`, `sessionId`, `cwd`,
`tools` (the names of the tools the host offered in this run, once known), `config`,
`mcpServers`, and for `after` `result` = `{text, isError, exitCode, longestBlock}` (the
characters of its longest text block), for `prompt` the user's `prompt`.
"""

from __future__ import annotations

from ctxmode.fastjson import dumps
from ctxmode.hooks.plugin_rules import ToolResult, is_shell
from ctxmode.platforms._common import shim_answer, shim_hook_commands, shim_parser
from ctxmode.vocab import event as ev
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform
from ctxmode.vocab.toolnames import SERVER_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: keep the hook path light
    from collections.abc import Callable

PLATFORM_ID = "openclaw"
EVENTS = {
    "before": ev.PRE_TOOL_USE,  # before_tool_call
    "after": ev.POST_TOOL_USE,  # the agent tool-result middleware
    "system": ev.SESSION_START,  # before_prompt_build: the routing block
    "prompt": ev.USER_PROMPT_SUBMIT,  # before_prompt_build's prompt
    "compacting": ev.PRE_COMPACT,  # before_compaction
    "compacted": ev.SESSION_START,  # the first prompt build after a compaction: the guide
}
SPOOL_DIR = "openclaw-spool"  # under the data root's tmp dir: one file per teed call
# A spool whose result never came (the tool crashed, the Gateway was killed) is left
# behind; each new tee sweeps those older than any call runs, and all but the newest few.
SPOOL_MAX_AGE_S = 6 * 3600
SPOOL_MAX_FILES = 64
NO_TEE_PROGRAMS = frozenset(("nohup", "setsid", "disown", "daemonize"))
# OpenClaw 2026.9.6 cuts each text block it hands a tool-result middleware to this many
# UTF-16 units (one fewer when the cut would split a surrogate pair).
MIDDLEWARE_TEXT_CHARS = 100_000


def tool_result(payload: dict) -> ToolResult:
    """What the tool returned; a teed shell call's whole output is in its spool file."""
    import os

    result = fields.obj(payload, "result")
    text = result.get("text")
    code = result.get("exitCode")
    longest = result.get("longestBlock")
    spool = spool_path(payload)
    return ToolResult(
        text if isinstance(text, str) else "",
        is_error=result.get("isError") is True,
        exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        full_stdout_path=spool if spool and os.path.exists(spool) else "",
        host_cut=isinstance(longest, int) and longest >= MIDDLEWARE_TEXT_CHARS - 1,
    )


parse = shim_parser(PLATFORM_ID, EVENTS, tool_result)


def spool_path(payload: dict) -> str:
    """Where a shell call's teed output goes: one file per session and call ("" if unnamed)."""
    import os

    from ctxmode import paths

    call = fields.text(payload, "callId")
    if not call:
        return ""
    key = f"{fields.session_id(payload)}-{call}"
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)
    return os.path.join(paths.data_root(), "tmp", SPOOL_DIR, name[:200] + ".out")


def can_tee(command: str) -> bool:
    """Whether piping `command`'s output through tee keeps its behaviour: no background job
    or detaching program (tee would wait for it), and the scanner read all of it."""
    from ctxmode.policy.shell import scan

    found = scan(command)
    if found.over_budget:
        return False
    return not any(c.op == "&" or c.program in NO_TEE_PROGRAMS for c in found.commands)


def tee_command(command: str, spool: str) -> str:
    """`command` with its stdout and stderr also written to `spool`, exit status kept.

    The command runs in a subshell of its own (its `exit` ends only that), on lines of its
    own (a trailing comment or heredoc stays intact). A POSIX pipeline's status is tee's,
    so the command's status comes back on fd 3 through a command substitution, while tee
    writes to the original stdout kept on fd 4. Where `spool` cannot be written (a
    sandboxed exec sees another filesystem) the output and status are still the command's.
    """
    import shlex

    return (
        "exec 4>&1\n"
        f"ctxmode_status=$({{ {{ (\n{command}\n) 2>&1 3>&- 4>&-; echo $? >&3; }}"
        f" | tee {shlex.quote(spool)} 2>/dev/null >&4; }} 3>&1)\n"
        'exit "${ctxmode_status:-1}"'
    )


def _tee(event: HookEvent) -> HookOutput:
    """A rewrite of a shell call that tees its output, or the no-op."""
    import os

    command = event.tool_input.get("command")
    spool = spool_path(event.raw)
    if not is_shell(fields.text(event.raw, "tool")) or not isinstance(command, str):
        return HookOutput()
    if not spool or not command.strip() or not can_tee(command):
        return HookOutput()
    try:
        os.makedirs(os.path.dirname(spool), exist_ok=True)
    except OSError:
        return HookOutput()
    sweep_spools(os.path.dirname(spool))
    return HookOutput(dumps({"params": {"command": tee_command(command, spool)}}))


def sweep_spools(directory: str, now: float | None = None) -> int:
    """Remove the spool files in `directory` older than SPOOL_MAX_AGE_S and those past the
    newest SPOOL_MAX_FILES; returns how many went. A file another process removed or
    still holds open is no error (on POSIX an open file's writer keeps writing safely)."""
    import os
    import time

    cutoff = (time.time() if now is None else now) - SPOOL_MAX_AGE_S
    found = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                try:
                    if entry.is_file(follow_symlinks=False):
                        found.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
                except OSError:
                    continue
    except OSError:
        return 0
    found.sort(reverse=True)  # newest first
    removed = 0
    for rank, (mtime, path) in enumerate(found):
        if mtime >= cutoff and rank < SPOOL_MAX_FILES:
            continue
        try:
            os.remove(path)
            removed += 1
        except OSError:
            continue
    return removed


def _drop_spool(event: HookEvent) -> None:
    import contextlib
    import os

    spool = spool_path(event.raw)
    if spool:
        with contextlib.suppress(OSError):
            os.remove(spool)


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    """The shim's answer (`shim_answer`); a shell call we let run is teed (its rewrite is
    the answer), and once its result was judged, the spool file goes."""
    if event.event == ev.POST_TOOL_USE:
        _drop_spool(event)
    if event.event == ev.PRE_TOOL_USE and decision is None:
        return _tee(event)
    return shim_answer(event, decision)


# --------------------------------------------------------------- installer (off the hook path)

PLUGIN_ID = SERVER_NAME  # the manifest's id and the `plugins.entries` key
PLUGIN_DIR = "ctxmode-plugin"  # in the state dir, named in `plugins.load.paths`
PLUGIN_FILES = ("index.js", "openclaw.plugin.json", "package.json")  # + bridge.js, launch file
SET_TOOL_SEARCH = "setToolSearch"  # in our entry's config: setup turned `tools.toolSearch` off
ADDED_TO_ALLOW = "addedToAllow"  # in our entry's config: setup put our id in `plugins.allow`
NOTE = (
    "The OpenClaw Gateway loads the ctxmode plugin and the context-mode MCP server "
    "(tools named context-mode__ctx_*) when it (re)starts."
)


def state_dir() -> str:
    import os

    configured = os.environ.get("OPENCLAW_STATE_DIR")
    return os.path.abspath(os.path.expanduser(configured or "~/.openclaw"))


def config_file() -> str:
    import os

    configured = os.environ.get("OPENCLAW_CONFIG_PATH")
    if configured:
        return os.path.abspath(os.path.expanduser(configured))
    return os.path.join(state_dir(), "openclaw.json")


def plugin_dir() -> str:
    import os

    return os.path.join(state_dir(), PLUGIN_DIR)


def config_paths(project_dir: str = "") -> dict[str, str]:
    return {"config": config_file(), "plugin": plugin_dir()}


def _plugin_changes(hook_prefix: str, remove: bool) -> list:
    from ctxmode.platforms._shim import launch_config, shim_changes

    launch = launch_config(PLATFORM_ID, hook_prefix)
    return shim_changes(plugin_dir(), "openclaw", PLUGIN_FILES, launch, remove)


def _table(document: dict, path: str, *keys: str) -> dict:
    """The object at `keys` (created empty when absent), or an InstallError."""
    from ctxmode.platforms._install import InstallError

    table = document
    for key in keys:
        table = table.setdefault(key, {})
        if not isinstance(table, dict):
            raise InstallError(f"{path}: `{'.'.join(keys)}` is not an object; fix it first")
    return table


def _prune(document: dict, *keys: str) -> None:
    """Drop the empty objects along `keys`, innermost first (what install created)."""
    for depth in range(len(keys), 0, -1):
        parent = document
        for key in keys[: depth - 1]:
            parent = parent.get(key, {})
        if parent.get(keys[depth - 1]) in ({}, []):
            del parent[keys[depth - 1]]


def _config_edit(server: dict | None) -> Callable[[dict, str], None]:
    """Ours into the config (server None: take everything of ours out, exactly)."""
    from ctxmode.platforms._install import InstallError
    from ctxmode.vocab.toolnames import runs_ctxmode

    directory = plugin_dir()

    def edit(document: dict, path: str) -> None:
        load = _table(document, path, "plugins", "load")
        paths = load.get("paths", [])
        if not isinstance(paths, list):
            raise InstallError(f"{path}: `plugins.load.paths` is not a list; fix it first")
        entries = _table(document, path, "plugins", "entries")
        servers = _table(document, path, "mcp", "servers")
        tools = _table(document, path, "tools")
        ours = fields.obj(fields.obj(entries, PLUGIN_ID), "config")
        we_set, we_allowed = ours.get(SET_TOOL_SEARCH) is True, ours.get(ADDED_TO_ALLOW) is True
        # A user's plugin allowlist keeps every plugin not on it from loading, ours too.
        allow = _table(document, path, "plugins").get("allow")
        allow = allow if isinstance(allow, list) else None
        if allow is not None and we_allowed and PLUGIN_ID in allow:
            allow.remove(PLUGIN_ID)
        load["paths"] = [entry for entry in paths if entry != directory]
        entries.pop(PLUGIN_ID, None)
        if runs_ctxmode(servers.get(SERVER_NAME)):
            servers.pop(SERVER_NAME)
        if we_set and tools.get("toolSearch") is False:
            tools.pop("toolSearch")
        if server is not None:
            load["paths"].append(directory)
            # Our tools must be callable by name, not behind the host's tool_search.
            set_now = "toolSearch" not in tools or we_set
            allow_now = allow is not None and PLUGIN_ID not in allow
            if allow is not None and allow_now:
                allow.append(PLUGIN_ID)
            entries[PLUGIN_ID] = {
                "enabled": True,
                "hooks": {"allowConversationAccess": True, "allowPromptInjection": True},
                "config": {SET_TOOL_SEARCH: set_now, ADDED_TO_ALLOW: allow_now},
            }
            servers[SERVER_NAME] = server
            if set_now:
                tools["toolSearch"] = False
        for keys in (("plugins", "load", "paths"), ("plugins", "entries"), ("mcp", "servers")):
            _prune(document, *keys)
        _prune(document, "tools")

    return edit


def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
    from ctxmode.platforms._install import json_change

    server = {"command": server_command[0], "args": list(server_command[1:])}
    return [json_change(config_file(), _config_edit(server)), *_plugin_changes(hook_prefix, False)]


def uninstall_changes(project_dir: str = "") -> list:
    from ctxmode.platforms._install import json_change

    return [json_change(config_file(), _config_edit(None)), *_plugin_changes("", True)]


PLATFORM = Platform(
    id=PLATFORM_ID,
    name="OpenClaw",
    events=EVENTS,
    parse=parse,
    render=render,
    tool_prefix=lambda server: f"{server}__",  # MCP tools are `<server>__<tool>`
    can_deny=True,
    can_modify_input=False,  # params can be rewritten, but our rules turn a rewrite into a deny
    can_replace_output=True,  # through the tool-result middleware only
    can_inject_context=True,  # before_prompt_build's appendSystemContext
    client_names=("openclaw-bundle-mcp",),  # its MCP clientInfo.name (2026.9.6)
    plugin_host=True,
    installer=Installer(
        scopes=("user",),
        config_paths=config_paths,
        hook_commands=shim_hook_commands(PLATFORM_ID, EVENTS),
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        note=NOTE,
    ),
)
