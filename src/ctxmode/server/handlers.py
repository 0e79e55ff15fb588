"""The tool name -> handler table the MCP server dispatches on.

Every handler takes the server's `ServerState` and the raw argument dict and returns a
`Reply`; the modules below hold them, grouped by what they work on.
"""

from __future__ import annotations

from collections.abc import Callable

from ctxmode.server import admin_tools, exec_tools, knowledge_tools
from ctxmode.server.state import Reply, ServerState

HANDLERS: dict[str, Callable[[ServerState, dict], Reply]] = {
    "ctx_execute": exec_tools.handle_execute,
    "ctx_execute_file": exec_tools.handle_execute_file,
    "ctx_batch_execute": exec_tools.handle_batch,
    "ctx_index": knowledge_tools.handle_index,
    "ctx_search": knowledge_tools.handle_search,
    "ctx_fetch_and_index": knowledge_tools.handle_fetch,
    "ctx_stats": admin_tools.handle_stats,
    "ctx_doctor": admin_tools.handle_doctor,
    "ctx_upgrade": admin_tools.handle_upgrade,
    "ctx_purge": admin_tools.handle_purge,
    "ctx_insight": admin_tools.handle_insight,
}
