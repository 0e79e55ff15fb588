"""One module per host. Each module defines, at module level:

- `PLATFORM_ID`: the id used in `ctxmode hook <platform> <event>` (platforms.md §C.2);
- `EVENTS`: dict host event name (lower-case, as on the command line) -> canonical
  event name from `ctxmode.hooks.event`;
- `parse(payload: dict, host_event: str) -> HookEvent`;
- `render(event: HookEvent, decision: Decision | None) -> HookOutput` (the exact
  envelope, including the host's no-op when `decision` is None);
- `TOOL_PREFIX`: how our MCP tools are named on this host (platforms.md §C.10),
  e.g. "mcp__context-mode__" so guidance reads `<prefix>ctx_execute`;
- plus, off the hook path, config paths and an installer used by `ctxmode setup`.

Only this package names hosts. `REGISTRY` maps platform ids to module names so the
hook entry imports just the one module it needs.
"""

REGISTRY: dict[str, str] = {}
