"""The tool name -> handler table the MCP server dispatches on.

Every handler takes the server's `ServerState` and the raw argument dict and returns a
`Reply`; the modules named below hold them, grouped by what they work on. A module is
imported on the first call of one of its tools: listing the tools needs none of them,
and they bring in the sandbox, the knowledge base and SQLite.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ctxmode.server.state import Reply, ServerState

Handler = Callable[[ServerState, dict], Reply]

EXEC, KNOWLEDGE, ADMIN = (
    "ctxmode.server.exec_tools",
    "ctxmode.server.knowledge_tools",
    "ctxmode.server.admin_tools",
)

# tool name -> (module, function)
HANDLERS: dict[str, tuple[str, str]] = {
    "ctx_execute": (EXEC, "handle_execute"),
    "ctx_execute_file": (EXEC, "handle_execute_file"),
    "ctx_batch_execute": (EXEC, "handle_batch"),
    "ctx_index": (KNOWLEDGE, "handle_index"),
    "ctx_search": (KNOWLEDGE, "handle_search"),
    "ctx_fetch_and_index": (KNOWLEDGE, "handle_fetch"),
    "ctx_stats": (ADMIN, "handle_stats"),
    "ctx_doctor": (ADMIN, "handle_doctor"),
    "ctx_upgrade": (ADMIN, "handle_upgrade"),
    "ctx_purge": (ADMIN, "handle_purge"),
    "ctx_insight": (ADMIN, "handle_insight"),
}


def handler_for(tool: str) -> Handler:
    """The handler of a tool in `HANDLERS`, importing its module on the first call."""
    module, function = HANDLERS[tool]
    __import__(module)  # the import statement's path, which `-X importtime` logs
    handler: Handler = getattr(sys.modules[module], function)
    return handler
