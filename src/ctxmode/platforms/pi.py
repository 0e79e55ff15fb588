"""Pi coding agent: an in-process extension forwarding to our Python rules.

Pi loads extensions (`<dir>/index.js`) from `~/.pi/agent/extensions/` and a project's
`.pi/extensions/`; it has no MCP client, so ours (package data `ctxmode/plugins/pi/`, over
the shared `bridge.js`) starts `ctxmode serve` and registers our tools under their bare
names. It sends `tool_call` (a `{deny}` answer blocks the call), `tool_result` (an
`{output}` answer replaces its content), the prompt, the compaction and the routing
block's request to `ctxmode hook pi <event>`. The rules are `ctxmode.hooks.plugin_rules`;
this module only translates.

The shim's payload: `tool`, `input`, `callId`, `sessionId`, `cwd`, `tools` (the tools it
registered), `config`, and for `after` `result` = `{output, isError, fullOutputPath,
truncated}`: `fullOutputPath` is the file holding the whole output when the host showed
part of it (Pi's spilled shell output, OMP's `artifact://N`, a truncated read's file).
"""

from __future__ import annotations

from ctxmode.hooks.plugin_rules import ToolResult
from ctxmode.platforms import opencode
from ctxmode.platforms._common import shim_hook_commands, shim_parser
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform

PLATFORM_ID = "pi"
# The shim sends OpenCode's event names: `before` (tool_call), `after` (tool_result),
# `system` (the first `context` of a session: the routing block), `prompt`
# (before_agent_start), `compacting` (session_before_compact) and `compacted` (the first
# `context` after session_compact: the guide).
EVENTS = opencode.EVENTS
# Pi's and OMP's read takes `path`; the rules read `file_path`.
ARGUMENT_ALIASES = {"path": "file_path"}
EXIT_LINE = "Command exited with code "  # Pi's and OMP's last line after a non-zero exit


def tool_result(payload: dict) -> ToolResult:
    """What the tool returned; a shell output the host cut points at the file holding all
    of it. A command that ran and exited non-zero is an exit code, as on every other host
    (Pi and OMP flag it as a failed tool), so its big output is cut like any other, its
    error lines and exit code kept; a tool that failed to run stays a failure."""
    result = fields.obj(payload, "result")
    output = result.get("output")
    text = output if isinstance(output, str) else ""
    full = result.get("fullOutputPath")
    failed = result.get("isError") is True
    code = exit_code(text) if failed else None
    return ToolResult(
        text,
        is_error=failed and code is None,
        exit_code=code,
        full_stdout_path=full if isinstance(full, str) and result.get("truncated") is True else "",
    )


def render(event: HookEvent, decision: Decision | None) -> HookOutput:
    """OpenCode's answer, under Pi's argument names."""
    return opencode.render_with_rewrites(event, decision, ARGUMENT_ALIASES)


def exit_code(text: str) -> int | None:
    """N when `text` ends with the host's "Command exited with code N" line, else None.

    OMP puts its own note about what it cut (`[Showing lines 1-275 and 530-803 of 803;
    ... Read artifact://1 for full output]`) after that line: such bracketed lines at
    the end are passed over.
    """
    rest = text.rstrip()
    while True:
        rest, _, last = rest.rpartition("\n")
        if not (last.startswith("[") and last.endswith("]")):
            break
        rest = rest.rstrip()
    number = last[len(EXIT_LINE) :]
    return int(number) if last.startswith(EXIT_LINE) and number.isdigit() else None


# --------------------------------------------------------------- installer (off the hook path)

EXTENSION_DIR = "ctxmode"  # Pi loads `extensions/<name>/index.js`
SHIM_FILES = ("index.js", "mcp.js")  # plus the shared bridge.js and the launch file


def extensions_dir(app: str, project_dir: str) -> str:
    """The host's extension folder: the project's `.<app>/extensions`, else the agent dir's
    (`PI_CODING_AGENT_DIR`, which OMP honours too, or `~/.<app>/agent`)."""
    import os

    if project_dir:
        return os.path.join(project_dir, f".{app}", "extensions")
    agent = os.environ.get("PI_CODING_AGENT_DIR") or os.path.join(
        os.path.expanduser("~"), f".{app}", "agent"
    )
    return os.path.join(agent, "extensions")


def _extension_changes(
    platform_id: str, directory: str, hook_prefix: str, server_command: list[str], remove: bool
) -> list:
    """Our extension (Pi's shim, which OMP loads too) in `directory`, starting `server_command`."""
    from ctxmode.platforms._shim import launch_config, shim_changes

    launch = launch_config(platform_id, hook_prefix, serve=server_command)
    return shim_changes(directory, "pi", SHIM_FILES, launch, remove)


def installer_for(platform_id: str, app: str, note: str) -> Installer:
    def directory(project_dir: str) -> str:
        import os

        return os.path.join(extensions_dir(app, project_dir), EXTENSION_DIR)

    def config_paths(project_dir: str = "") -> dict[str, str]:
        return {"extension": directory(project_dir)}

    def install_changes(hook_prefix: str, server_command: list[str], project_dir: str = "") -> list:
        return _extension_changes(
            platform_id, directory(project_dir), hook_prefix, list(server_command), False
        )

    def uninstall_changes(project_dir: str = "") -> list:
        return _extension_changes(platform_id, directory(project_dir), "", [], True)

    return Installer(
        scopes=("user", "project"),
        config_paths=config_paths,
        hook_commands=shim_hook_commands(platform_id, EVENTS),
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        note=note,
    )


def platform_for(platform_id: str, name: str, installer: Installer) -> Platform:
    return Platform(
        id=platform_id,
        name=name,
        events=EVENTS,
        parse=shim_parser(platform_id, EVENTS, tool_result, ARGUMENT_ALIASES),
        render=render,
        tool_prefix=lambda server: "",  # the extension registers our tools under their own names
        can_deny=True,
        # tool_call may change the input: Pi runs the mutated `event.input` (the model's own
        # message keeps the call it made), OMP the `{input}` a handler returns
        can_modify_input=True,
        can_replace_output=True,
        can_inject_context=True,  # a message at the head of every request
        plugin_host=True,
        installer=installer,
        client_names=(f"ctxmode-{platform_id}",),  # the extension's MCP client
    )


PLATFORM = platform_for(
    PLATFORM_ID,
    "Pi",
    installer_for(
        PLATFORM_ID,
        "pi",
        "Pi loads the ctxmode extension (and with it our ctx_* tools) on its next start.",
    ),
)
