"""What every tool handler shares: the server's project and session, and the `Reply` shape.

Handlers run in worker threads and open their own database connections through
`ServerState` (a `sqlite3.Connection` never crosses threads). The database modules
are imported there, on the first call: the server answers `initialize` and
`tools/list` without them.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from ctxmode import paths, settings
from ctxmode.server import arguments as a
from ctxmode.server.throttle import SearchThrottle
from ctxmode.storage import project

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from ctxmode.store.knowledge import KnowledgeBase


def retention_days() -> float:
    """How long an unused source is kept."""
    return settings.number(settings.RETENTION_DAYS)


@dataclass
class Reply:
    text: str
    is_error: bool = False
    bytes_processed: int = 0  # raw bytes the tool handled for the model
    bytes_indexed: int = 0
    saves_context: bool = True  # False when the model would never have read the input raw
    cache_hit: bool = False


@dataclass
class ServerState:
    project_root: str
    session_key: str
    throttle: SearchThrottle = field(default_factory=SearchThrottle)
    started_at: float = field(default_factory=time.time)  # sources indexed since are this session's
    client: str = ""  # the MCP client's name, learnt from its first tool call
    # `ctx_search` as the connected client shows it to the model (set at initialize)
    search_tool: str = "ctx_search"
    _first_call_done: bool = field(default=False, init=False, repr=False)
    _first_call_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @classmethod
    def create(cls, project_dir: str | None = None) -> ServerState:
        root = project.resolve_project_root(project_dir)
        return cls(project_root=root, session_key=f"mcp-{os.getpid()}-{int(time.time())}")

    @contextlib.contextmanager
    def database(self) -> Iterator[sqlite3.Connection]:
        from ctxmode.storage import schema

        with schema.project_database(self.project_root) as conn:
            yield conn

    @contextlib.contextmanager
    def knowledge(self) -> Iterator[KnowledgeBase]:
        from ctxmode.store.knowledge import KnowledgeBase

        with self.database() as conn:
            yield KnowledgeBase(conn)

    def record_call(self, tool: str, reply: Reply) -> None:
        from ctxmode import stats

        call = stats.ToolCall(
            tool=tool,
            bytes_processed=reply.bytes_processed,
            bytes_returned=len(reply.text.encode("utf-8", "replace")),
            bytes_indexed=reply.bytes_indexed,
            saves_context=reply.saves_context,
            cache_hit=reply.cache_hit,
            is_error=reply.is_error,
            session_key=self.session_key,
            client=self.client,
        )
        with contextlib.suppress(Exception), self.database() as conn:
            stats.record(conn, call)

    def before_first_call(self) -> None:
        """Housekeeping the server owes its project once, run before the first tool call's
        handler (in its thread) rather than at start, so `initialize` is answered without
        opening the database. What it hits (a recovery) reaches the model with that call's
        reply; a failure is logged and never stops the call."""
        with self._first_call_lock:
            if self._first_call_done:
                return
            self._first_call_done = True
            try:
                self.prune_idle_sources()
            except Exception as exc:  # retention must never stop a tool from answering
                paths.log_traceback("server-errors.log", exc, "pruning idle sources failed")

    def prune_idle_sources(self) -> int:
        """Drop knowledge-base sources unused (not indexed, not found) for the retention period."""
        days = retention_days()
        with self.knowledge() as kb:
            return kb.prune(days)

    def resolve_dir(self, cwd: str | None) -> str:
        if not cwd:
            return self.project_root
        path = os.path.realpath(os.path.join(self.project_root, os.path.expanduser(cwd)))
        if not os.path.isdir(path):
            raise a.ArgumentError(f"cwd '{cwd}' is not a directory")
        return path
