"""The contract every host fulfils: one `Platform` object per host module.

A host module builds its `Platform` at import time and the hook entry point hands it
to the runner, so the hooks core never imports or names a host. Plain slotted classes,
read-only once built: this module is on the hook path, where `dataclasses` costs more
than a decision.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: keep `collections` off the hook path
    from collections.abc import Callable, Mapping

    from ctxmode.vocab.event import Decision, HookEvent, HookOutput


class _Frozen:
    """Attributes are set once, in `__init__`; any later assignment is a bug."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only ({name})")

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)


def no_mcp_config(project_dir: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """For hosts that show our tools under bare names: the registered name does not matter."""
    return ()


McpSources = tuple[tuple[str, tuple[str, ...]], ...]  # (JSON file, keys to its servers), ...


def no_plugin(environ: Mapping[str, str]) -> tuple[str, McpSources]:
    """For hosts where ctxmode is never one of the host's plugins."""
    return "", ()


class Installer(_Frozen):
    """What `ctxmode setup <id>` uses, off the hook path (the functions import lazily).

    `scopes`: "user" and/or "project"; `config_paths(project_dir="")`: the files it
    touches; `hook_commands(prefix)`: host event -> command line for the installed events;
    `install_changes(prefix, server_command, project_dir="")` and
    `uninstall_changes(project_dir="")`: lists of `_install.Change` ("" = user scope);
    `note`: shown after a successful setup; `profiles`: the host keeps named profiles
    (`ctxmode setup <id> --profile NAME`), passed to both change functions as `chosen`;
    `instructions(project_dir="")`: the instruction file the host reads at start, for
    hosts that cannot inject context there (setup writes the routing block into it),
    else None; `threshold`: the host's plugin replaces outputs over a size setup can
    set (`ctxmode setup <id> --threshold BYTES`), passed to `install_changes` as
    `threshold` (None: keep what the last setup wrote); `plugin_installed()`: where the
    host has ctxmode installed as its plugin or extension (the repository's
    `plugins/<host>`), else "" (for `ctxmode doctor`).
    """

    __slots__ = (
        "config_paths",
        "hook_commands",
        "install_changes",
        "instructions",
        "note",
        "plugin_installed",
        "profiles",
        "scopes",
        "threshold",
        "uninstall_changes",
    )
    scopes: tuple[str, ...]
    config_paths: Callable[..., dict[str, str]]
    hook_commands: Callable[[str], dict[str, str]]
    install_changes: Callable[..., list]
    uninstall_changes: Callable[..., list]
    note: str
    profiles: bool
    instructions: Callable[[str], str] | None
    threshold: bool
    plugin_installed: Callable[[], str]

    def __init__(
        self,
        *,
        scopes: tuple[str, ...],
        config_paths: Callable[..., dict[str, str]],
        hook_commands: Callable[[str], dict[str, str]],
        install_changes: Callable[..., list],
        uninstall_changes: Callable[..., list],
        note: str = "",
        profiles: bool = False,
        instructions: Callable[[str], str] | None = None,
        threshold: bool = False,
        plugin_installed: Callable[[], str] = lambda: "",
    ) -> None:
        self._set(
            scopes=scopes,
            config_paths=config_paths,
            hook_commands=hook_commands,
            install_changes=install_changes,
            uninstall_changes=uninstall_changes,
            note=note,
            profiles=profiles,
            instructions=instructions,
            threshold=threshold,
            plugin_installed=plugin_installed,
        )


class Platform(_Frozen):
    """One host: its wire (events, parse, render), naming, capabilities and installer.

    - `id`: the name in `ctxmode hook <id> <event>` and `ctxmode setup <id>`;
      `name`: how people call the host;
    - `events`: host event name (lower-case, as on the command line) -> canonical event;
    - `parse(payload, host_event) -> HookEvent`; `render(event, decision | None) ->
      HookOutput`, the exact envelope including the host's no-op (also for an unknown
      event, canonical name "");
    - `tool_prefix(server) -> str`: what the host puts before a tool of MCP server
      `server` in the names it shows the model (`tool_name` appends the tool);
      `mcp_config(project_dir) -> ((file, keys), ...)`: where the host keeps its MCP
      servers (the table at `keys` in each JSON file, most specific first), so the name
      our server was really registered under can be read (none: bare tool names);
      `plugin_mcp_config(environ) -> (name_prefix, ((file, keys), ...))`: when the
      environment says ctxmode runs as one of the host's plugins, the plugin's MCP config
      and what the host puts before a server name of it (Claude Code: `plugin_<name>_`);
      ("", ()) otherwise;
      `client_names`: how the host's MCP client introduces itself (`clientInfo.name` at
      initialize; a name starting with one of these is this host), so the server can
      name its tools the way this host shows them; `project_env`: the environment
      variables in which the host names the project directory to its hooks;
      `env_markers`: variables the host sets for everything it starts (hooks, plugins,
      MCP servers), so a process can tell which host started it; `env_shadows`: ids of
      hosts whose markers this host sets too (a fork keeping its parent's variables):
      when both match, this host is the one;
    - capabilities, as the real host behaves: `can_deny` (block a call with a reason the
      model sees), `can_modify_input` (rewrite a tool's arguments), `can_replace_output`
      (PostToolUse replaces what the model receives), `can_inject_context` (context
      added at session start reaches the model); `rewrites_input()`: whether the host as
      installed runs a rewritten input now (a version may decide; default
      `can_modify_input`);
    - core switches: `pin_cwd` (pin our shell tools' `cwd` to the project dir),
      `tool_search_bootstrap` (MCP schemas load lazily, so subagents are told to load
      our tools first), `read_window` (the (offset, limit) line arguments of the host's
      file-read tool, which a rewrite may set to bound a big read; None: not bounded);
    - `installer`: what `ctxmode setup` writes.
    """

    __slots__ = (
        "can_deny",
        "can_inject_context",
        "can_modify_input",
        "can_replace_output",
        "client_names",
        "env_markers",
        "env_shadows",
        "events",
        "id",
        "installer",
        "mcp_config",
        "name",
        "parse",
        "pin_cwd",
        "plugin_host",
        "plugin_mcp_config",
        "project_env",
        "read_window",
        "render",
        "rewrites_input",
        "tool_prefix",
        "tool_search_bootstrap",
    )
    id: str
    name: str
    events: dict[str, str]
    parse: Callable[[dict, str], HookEvent]
    render: Callable[[HookEvent, Decision | None], HookOutput]
    tool_prefix: Callable[[str], str]
    mcp_config: Callable[[str], tuple[tuple[str, tuple[str, ...]], ...]]
    plugin_mcp_config: Callable[[Mapping[str, str]], tuple[str, McpSources]]
    can_deny: bool
    can_modify_input: bool
    can_replace_output: bool
    can_inject_context: bool
    pin_cwd: bool
    tool_search_bootstrap: bool
    plugin_host: bool
    read_window: tuple[str, str] | None
    rewrites_input: Callable[[], bool]
    client_names: tuple[str, ...]
    project_env: tuple[str, ...]
    env_markers: tuple[str, ...]
    env_shadows: tuple[str, ...]
    installer: Installer

    def __init__(
        self,
        *,
        id: str,
        name: str,
        events: dict[str, str],
        parse: Callable[[dict, str], HookEvent],
        render: Callable[[HookEvent, Decision | None], HookOutput],
        tool_prefix: Callable[[str], str],
        can_deny: bool,
        can_modify_input: bool,
        can_replace_output: bool,
        can_inject_context: bool,
        installer: Installer,
        mcp_config: Callable[[str], tuple[tuple[str, tuple[str, ...]], ...]] = no_mcp_config,
        plugin_mcp_config: Callable[[Mapping[str, str]], tuple[str, McpSources]] = no_plugin,
        pin_cwd: bool = False,
        tool_search_bootstrap: bool = False,
        plugin_host: bool = False,
        read_window: tuple[str, str] | None = None,
        rewrites_input: Callable[[], bool] | None = None,
        client_names: tuple[str, ...] = (),
        project_env: tuple[str, ...] = (),
        env_markers: tuple[str, ...] = (),
        env_shadows: tuple[str, ...] = (),
    ) -> None:
        self._set(
            id=id,
            name=name,
            events=events,
            parse=parse,
            render=render,
            tool_prefix=tool_prefix,
            can_deny=can_deny,
            can_modify_input=can_modify_input,
            can_replace_output=can_replace_output,
            can_inject_context=can_inject_context,
            installer=installer,
            mcp_config=mcp_config,
            plugin_mcp_config=plugin_mcp_config,
            pin_cwd=pin_cwd,
            tool_search_bootstrap=tool_search_bootstrap,
            plugin_host=plugin_host,
            read_window=read_window,
            rewrites_input=rewrites_input or (lambda: can_modify_input),
            client_names=client_names,
            project_env=project_env,
            env_markers=env_markers,
            env_shadows=env_shadows,
        )

    def tool_name(self, tool: str, server: str) -> str:
        """`tool` of MCP server `server` as this host names it to the model."""
        return self.tool_prefix(server) + tool

    def __repr__(self) -> str:
        return f"Platform({self.id!r})"
