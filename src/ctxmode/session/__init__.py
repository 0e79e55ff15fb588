"""Session continuity: events captured at each hook, a budgeted resume guide after compaction.

Import-light on purpose (hook path): the two entry points below import their modules lazily.
`ctxmode.session.memory` (command-line session memory) is a separate subpackage.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3


def stats_section(conn: sqlite3.Connection, session_id: str | None = None) -> str:
    """The session part of `ctx_stats`: events by category, compactions, snapshot bytes injected."""
    from ctxmode.session.report import stats_section as build

    return build(conn, session_id)


def purge_rows(conn: sqlite3.Connection, session_id: str | None = None) -> int:
    """Delete one session's rows (None: every session of the project); returns rows removed."""
    from ctxmode.session.report import purge_rows as purge

    return purge(conn, session_id)
