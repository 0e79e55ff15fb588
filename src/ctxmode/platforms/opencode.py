"""OpenCode: an in-process JS plugin forwarding to our Python rules (Kilo reuses it all).

OpenCode has no command hooks; it loads plugin modules named in its config's `plugin`
list. Ours (package data `ctxmode/plugins/opencode/index.js`, over the shared
`bridge.js`) sends `tool.execute.before` (throwing denies the call with our reason;
changing `output.args` rewrites it), `tool.execute.after` (assigning `output.output`
replaces what the model reads), user messages, the compaction hook and the system-prompt
transform to `ctxmode hook opencode <event>`. The rules are `ctxmode.hooks.plugin_rules`;
this module only translates.

The shim's payload: `tool`, `input` (the call's arguments), `callId`, `sessionId`, `cwd`,
`tools` (our MCP tools under the names OpenCode gives them, `<server>_<tool>`, once the
server is connected), `config`, and for `after` `result` = `{output, metadata}` (the
metadata's long strings dropped; bash's `exit`, a truncated output's `outputPath`).
"""

from __future__ import annotations

from ctxmode.fastjson import dumps
from ctxmode.hooks.plugin_rules import ToolResult
from ctxmode.platforms._common import shim_answer, shim_hook_commands, shim_parser
from ctxmode.vocab import event as ev
from ctxmode.vocab import fields
from ctxmode.vocab.event import Decision, HookEvent, HookOutput
from ctxmode.vocab.platform import Installer, Platform
from ctxmode.vocab.toolnames import SERVER_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: keep the hook path light
    from collections.abc import Callable

    from ctxmode.platforms._install import Change

    # (config file, keys inside it) for each place the host keeps MCP servers, first found wins
    McpPlaces = tuple[tuple[str, tuple[str, ...]], ...]

PLATFORM_ID = "opencode"
EVENTS = {
    "before": ev.PRE_TOOL_USE,  # tool.execute.before
    "after": ev.POST_TOOL_USE,  # tool.execute.after
    "system": ev.SESSION_START,  # experimental.chat.system.transform: the routing block
    "prompt": ev.USER_PROMPT_SUBMIT,  # chat.message
    "compacting": ev.PRE_COMPACT,  # experimental.session.compacting
    "compacted": ev.SESSION_START,  # the first system transform after a compaction: the guide
}
# Read's argument is `filePath` here; the rules read `file_path`.
ARGUMENT_ALIASES = {"filePath": "file_path"}


def tool_result(payload: dict) -> ToolResult:
    """What the tool returned; a bash output the host truncated points at its full file."""
    result = fields.obj(payload, "result")
    output = result.get("output")
    metadata = fields.obj(result, "metadata")
    code = metadata.get("exit")
    full = metadata.get("outputPath")
    cut = metadata.get("truncated") is True
    return ToolResult(
        output if isinstance(output, str) else "",
        is_error=result.get("isError") is True,
        exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        full_stdout_path=full if isinstance(full, str) and cut else "",
        host_cut=cut,
    )


def parser_for(platform_id: str) -> Callable[[dict, str], HookEvent]:
    """The shim's payload read as every plugin host's, and a shell call's `workdir` (bash
    runs there, relative to the project) as the directory its command runs in."""
    parse_payload = shim_parser(platform_id, EVENTS, tool_result, ARGUMENT_ALIASES)

    def parse(payload: dict, host_event: str) -> HookEvent:
        event = parse_payload(payload, host_event)
        workdir = event.tool_input.get("workdir")
        if isinstance(workdir, str) and workdir and "\0" not in workdir:
            import os

            event.raw = {**event.raw, "cwd": os.path.join(event.project_dir, workdir)}
        return event

    return parse


def render_with_rewrites(
    event: HookEvent, decision: Decision | None, aliases: dict[str, str] = ARGUMENT_ALIASES
) -> HookOutput:
    """`shim_answer`, plus a rewrite as the arguments it changed (`{args}`, under the host's
    names: `aliases`): the shim patches the call's input with them before the tool runs."""
    if decision is not None and event.event == ev.PRE_TOOL_USE and decision.action == ev.MODIFY:
        changed = changed_arguments(event, decision.updated_input, aliases)
        return HookOutput(dumps({"args": changed}))
    return shim_answer(event, decision)


def changed_arguments(
    event: HookEvent, updated: dict | None, aliases: dict[str, str] = ARGUMENT_ALIASES
) -> dict:
    """The arguments a rewrite changed, under the host's own names (`aliases`: theirs ->
    ours; the shim merges them)."""
    theirs = {ours: theirs for theirs, ours in aliases.items()}
    return {
        theirs.get(key, key): value
        for key, value in (updated or {}).items()
        if event.tool_input.get(key, object()) != value
    }


# --------------------------------------------------------------- installer (off the hook path)

PLUGIN_DIR = "ctxmode-plugin"  # beside the config; not `plugin(s)/`, which the host loads whole
PLUGIN_FILES = ("index.js",)  # plus the shared bridge.js and the launch file


def config_dir(app: str, project_dir: str) -> str:
    import os

    if project_dir:
        return os.path.join(project_dir, f".{app}")
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, app)


def config_file(app: str, name: str, project_dir: str) -> str:
    """`<name>.jsonc` when that is the one there, else `<name>.json` (project: the root's)."""
    import os

    base = project_dir or config_dir(app, "")
    jsonc = os.path.join(base, f"{name}.jsonc")
    return jsonc if os.path.exists(jsonc) else os.path.join(base, f"{name}.json")


def plugin_url(app: str, project_dir: str) -> str:
    import os
    from pathlib import Path

    return Path(os.path.join(config_dir(app, project_dir), PLUGIN_DIR, "index.js")).as_uri()


def plugin_config(launch_text: str | None, threshold: int | None) -> dict:
    """The plugin settings to write: those the last setup wrote, `threshold` if given."""
    import json

    try:
        kept = json.loads(launch_text or "{}").get("config")
    except (ValueError, AttributeError):
        kept = None
    config = dict(kept) if isinstance(kept, dict) else {}
    if threshold is not None:
        config["maxResultBytes"] = threshold
    return config


def _plugin_changes(
    platform_id: str,
    app: str,
    hook_prefix: str,
    project_dir: str,
    remove: bool,
    threshold: int | None = None,
) -> list[Change]:
    import os

    from ctxmode.platforms._install import read_text
    from ctxmode.platforms._shim import LAUNCH_FILE, launch_config, shim_changes

    directory = os.path.join(config_dir(app, project_dir), PLUGIN_DIR)
    config = plugin_config(read_text(os.path.join(directory, LAUNCH_FILE)), threshold)
    launch = launch_config(platform_id, hook_prefix, config=config)
    return shim_changes(directory, "opencode", PLUGIN_FILES, launch, remove)


def _config_edit(url: str, server: dict | None) -> Callable[[dict, str], None]:
    """Our plugin URL into `plugin` and our server into `mcp` (server None: take both out)."""
    from ctxmode.platforms._install import InstallError
    from ctxmode.vocab.toolnames import runs_ctxmode

    def edit(document: dict, path: str) -> None:
        plugins = document.get("plugin", [])
        servers = document.get("mcp", {})
        if not isinstance(plugins, list) or not isinstance(servers, dict):
            raise InstallError(
                f"{path}: `plugin` or `mcp` has the wrong type; fix it first, nothing changed"
            )
        plugins = [entry for entry in plugins if entry != url]
        if runs_ctxmode(servers.get(SERVER_NAME)):
            servers = {k: v for k, v in servers.items() if k != SERVER_NAME}
        if server is not None:
            plugins.append(url)
            servers = {**servers, SERVER_NAME: server}
        for key, value in (("plugin", plugins), ("mcp", servers)):
            if value:
                document[key] = value
            else:
                document.pop(key, None)

    return edit


def installer_for(platform_id: str, app: str, config_name: str, note: str) -> Installer:
    def config_paths(project_dir: str = "") -> dict[str, str]:
        import os

        return {
            "config": config_file(app, config_name, project_dir),
            "plugin": os.path.join(config_dir(app, project_dir), PLUGIN_DIR),
        }

    def install_changes(
        hook_prefix: str,
        server_command: list[str],
        project_dir: str = "",
        threshold: int | None = None,
    ) -> list:
        from ctxmode.platforms._install import json_change

        server = {"type": "local", "command": list(server_command), "enabled": True}
        edit = _config_edit(plugin_url(app, project_dir), server)
        path = config_file(app, config_name, project_dir)
        return [
            json_change(path, edit),
            *_plugin_changes(platform_id, app, hook_prefix, project_dir, False, threshold),
        ]

    def uninstall_changes(project_dir: str = "") -> list:
        from ctxmode.platforms._install import json_change

        edit = _config_edit(plugin_url(app, project_dir), None)
        path = config_file(app, config_name, project_dir)
        return [json_change(path, edit), *_plugin_changes(platform_id, app, "", project_dir, True)]

    return Installer(
        scopes=("user", "project"),
        config_paths=config_paths,
        hook_commands=shim_hook_commands(platform_id, EVENTS),
        install_changes=install_changes,
        uninstall_changes=uninstall_changes,
        note=note,
        threshold=True,
    )


def mcp_config_for(app: str, config_name: str) -> Callable[[str], McpPlaces]:
    """Where the host keeps its MCP servers (`mcp`): the project's config, then the user's."""

    def mcp_config(project_dir: str) -> McpPlaces:
        user = ((config_file(app, config_name, ""), ("mcp",)),)
        return (
            ((config_file(app, config_name, project_dir), ("mcp",)), *user) if project_dir else user
        )

    return mcp_config


def platform_for(
    platform_id: str,
    name: str,
    installer: Installer,
    *,
    mcp_config: Callable[[str], McpPlaces],
    env_markers: tuple[str, ...],
    env_shadows: tuple[str, ...] = (),
) -> Platform:
    return Platform(
        id=platform_id,
        name=name,
        events=EVENTS,
        parse=parser_for(platform_id),
        render=render_with_rewrites,
        tool_prefix=lambda server: f"{server}_",  # OpenCode names MCP tools `<server>_<tool>`
        can_deny=True,
        can_modify_input=True,  # tool.execute.before may change `output.args`
        can_replace_output=True,
        can_inject_context=True,  # the system-prompt transform
        plugin_host=True,
        installer=installer,
        mcp_config=mcp_config,
        client_names=(platform_id,),  # the MCP client's `clientInfo.name` is the host's id
        env_markers=env_markers,
        env_shadows=env_shadows,
    )


PLATFORM = platform_for(
    PLATFORM_ID,
    "OpenCode",
    installer_for(
        PLATFORM_ID,
        "opencode",
        "opencode",
        "OpenCode loads the ctxmode plugin and the context-mode MCP server on its next start.",
    ),
    mcp_config=mcp_config_for("opencode", "opencode"),
    env_markers=("OPENCODE", "OPENCODE_PID"),
)
