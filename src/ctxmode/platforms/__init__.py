"""One module per host. Each module defines, at module level:

- `PLATFORM_ID`: the id used in `ctxmode hook <platform> <event>` (platforms.md §C.2);
- `EVENTS`: dict host event name (lower-case, as on the command line) -> canonical
  event name from `ctxmode.hooks.event`;
- `parse(payload: dict, host_event: str) -> HookEvent`;
- `render(event: HookEvent, decision: Decision | None) -> HookOutput` (the exact
  envelope, including the host's no-op when `decision` is None);
- `TOOL_PREFIX`: how our MCP tools are named on this host (platforms.md §C.10),
  e.g. "mcp__context-mode__" so guidance reads `<prefix>ctx_execute`;
- plus, off the hook path, the installer used by `ctxmode setup` (imports inside the
  functions, helpers from `ctxmode.platforms._install`): `SCOPES` ("user" and/or
  "project"), `config_paths(project_dir="")`, `hook_commands(prefix)` (host event ->
  command line, for the events installed), `install_changes(prefix, server_command,
  project_dir="")` and `uninstall_changes(project_dir="")` (lists of `_install.Change`;
  `project_dir` "" = user scope), and an optional `INSTALL_NOTE` shown after setup.

Optional module attributes read by the hook runner (`getattr(module, NAME, default)`):

- `PIN_CWD` (False): pin our own shell tools' `cwd` to the project dir (routing.md §7.1);
- `TOOL_SEARCH_BOOTSTRAP` (False): the host loads MCP tool schemas lazily, so subagent
  prompts get the "load ctx_* tools through ToolSearch first" line (routing.md §6);
- `CAN_REPLACE_OUTPUT` (False): PostToolUse may answer `Decision.replace_output(text)`
  for oversized external-MCP output.

`render` must accept every event its `EVENTS` maps to, and an event it does not know
(canonical name "") for which it returns the host's generic no-op.
Shared payload helpers (session id chain §C.5, project dir chain §C.6, typed field
lookups) live in `ctxmode.hooks.fields`; the tool alias table (§C.11) in
`ctxmode.hooks.toolnames`.

Only this package names hosts. `REGISTRY` maps platform ids to module names so the
hook entry imports just the one module it needs.
"""

REGISTRY: dict[str, str] = {
    "claude-code": "ctxmode.platforms.claude_code",
    "qwen-code": "ctxmode.platforms.qwen_code",
    "gemini-cli": "ctxmode.platforms.gemini_cli",
    "vscode-copilot": "ctxmode.platforms.vscode_copilot",
    "jetbrains-copilot": "ctxmode.platforms.jetbrains_copilot",
    "copilot-cli": "ctxmode.platforms.copilot_cli",
    "cursor": "ctxmode.platforms.cursor",
    "codex": "ctxmode.platforms.codex",
    "kimi": "ctxmode.platforms.kimi",
    "kiro": "ctxmode.platforms.kiro",
    "antigravity-cli": "ctxmode.platforms.antigravity_cli",
}
