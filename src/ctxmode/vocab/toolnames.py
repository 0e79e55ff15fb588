"""Tool names across hosts: canonical names for routing (Claude Code's) and our own tools.

Shared data, not per host: every host's aliases map onto Claude Code's names.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

ALIASES: dict[str, str] = {
    **dict.fromkeys(
        (
            "run_shell_command", "run_command", "bash", "shell", "shell_command", "exec_command",
            "container.exec", "local_shell", "exec", "Shell", "run_in_terminal", "execute_bash",
            "pwsh",
        ),
        "Bash",
    ),
    **dict.fromkeys(
        ("read_file", "read_many_files", "view_file", "view", "read", "fs_read"), "Read"
    ),
    **dict.fromkeys(("grep_search", "search_file_content", "grep", "grep_files", "search"), "Grep"),
    **dict.fromkeys(
        ("web_fetch", "webfetch", "read_url_content", "fetch", "mcp_web_fetch", "mcp_fetch_tool"), "WebFetch"
    ),
    "agent": "Agent",
    "ReadFile": "Read",  # Kimi CLI
    "FetchURL": "WebFetch",  # Kimi CLI
    "task": "Agent",  # Copilot CLI's subagent tool
    "invoke_agent": "Agent",  # Gemini CLI's
    "write_file": "Write",
    "fs_write": "Write",
    "edit": "Edit",
    "glob": "Glob",
    "todo_write": "TodoWrite",
    "ask_user_question": "AskUserQuestion",
    "list_directory": "LS",
    "list_dir": "LS",
    "save_memory": "Memory",
    "skill": "Skill",
    "exit_plan_mode": "ExitPlanMode",
    "search_web": "WebSearch",
}  # fmt: skip

OWN_TOOLS = frozenset(
    (
        "ctx_execute", "ctx_execute_file", "ctx_batch_execute", "ctx_index", "ctx_search",
        "ctx_fetch_and_index", "ctx_stats", "ctx_doctor", "ctx_purge", "ctx_upgrade", "ctx_insight",
    )
)  # fmt: skip


def search_call(search_tool: str, label: str) -> str:
    """The exact call that searches one indexed source, for a model to copy from a result."""
    return f'{search_tool}(queries=["<what you need>"], source="{label}")'


SERVER_NAME = "context-mode"  # the MCP server name `ctxmode setup` registers
OWN_SERVER_MARKERS = ("context-mode", "context_mode", "ctxmode")
SEPARATORS = ("__", "/", ":", "_", "-")


def runs_ctxmode(entry: object) -> bool:
    """An MCP server entry (`command` + `args`) that starts ctxmode, whatever its name."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")  # OpenCode and Kilo: the whole argv as one list
    words = list(command) if isinstance(command, list) else [command]
    args = entry.get("args")
    words += args if isinstance(args, list) else []
    return any(isinstance(word, str) and "ctxmode" in word for word in words)


def canonical_tool_name(name: str) -> str:
    """The routing name for a host tool name; unknown names are returned unchanged."""
    return ALIASES.get(name, name)


def _names_own_server(prefix: str) -> bool:
    lowered = prefix.lower()
    return any(marker in lowered for marker in OWN_SERVER_MARKERS)


def own_tool(name: str) -> str:
    """`ctx_execute` etc. when `name` is one of our MCP tools under any host's naming, else "".

    Recognizes bare names (Cursor, Codex), `mcp__<server>__ctx_x` (Claude, Gemini, Qwen),
    `mcp_<server>_ctx_x` (Gemini), `<server>_ctx_x` (VS Code, OpenCode), `<server>-ctx_x`
    (Copilot CLI), `@<server>/ctx_x` (Kiro), `<server>/ctx_x` (agy), `mcp:<server>:ctx_x` (Zed)
    and `MCP:ctx_x` (Cursor), where <server> is ours.
    """
    if name in OWN_TOOLS:
        return name
    cut = name.rfind("ctx_")
    if cut <= 0:
        return ""
    leaf, prefix = name[cut:], name[:cut]
    if leaf not in OWN_TOOLS or not prefix.endswith(SEPARATORS):
        return ""
    if prefix.upper() == "MCP:" or _names_own_server(prefix):
        return leaf
    return ""


def _named_server(name: str) -> tuple[str, str] | None:
    """(server, tool) of the forms a name alone settles: `mcp__<server>__<tool>` (Claude Code,
    Qwen Code, Codex), `@<server>/<tool>` (Kiro), `MCP:<tool>` (Cursor, server unknown)."""
    if name.startswith("mcp__"):
        server, _, tool = name[5:].partition("__")
        return (server, tool) if server and tool else None
    if name.startswith("@") and "/" in name:
        server, _, tool = name[1:].partition("/")
        return (server, tool) if server and tool else None
    if name.startswith("MCP:") and len(name) > 4:
        return "", name[4:]
    return None


def mcp_tool(name: str, servers: Callable[[], Iterable[str]]) -> tuple[str, str] | None:
    """(server, tool) when `name` is a tool of another MCP server than ours, else None.

    `servers()`: the server names in the host's MCP config, asked only for the forms a name
    alone does not settle: Gemini CLI's `mcp_<server>_<tool>` (either may hold `_`),
    Copilot CLI's `<server>-<tool>`, OpenCode's `<server>_<tool>`, OpenClaw's
    `<server>__<tool>` (the longest configured server that prefixes the name wins).
    """
    found = _named_server(name)
    if found is None:
        bare = name[4:] if name.startswith("mcp_") else name
        for server in sorted(servers(), key=len, reverse=True):
            for separator in ("__", "_", "-", "/", ":"):
                if bare.startswith(server + separator) and len(bare) > len(server) + 1:
                    found = server, bare[len(server) + len(separator) :]
                    break
            if found:
                break
        if found is None and bare != name and "_" in bare:  # Gemini, server not configured
            server, _, tool = bare.partition("_")
            found = server, tool
    if found is None or own_tool(name) or (found[0] and _names_own_server(found[0])):
        return None
    return found
