"""Deleting what ctxmode recorded: a project, one session, or only the knowledge base.

`ctx_purge`, the dashboard and `ctxmode purge` all delete through here.
"""

from __future__ import annotations

import sqlite3

from ctxmode.storage import db


def purge_session(conn: sqlite3.Connection, session_id: str) -> int:
    """Delete one session's events, snapshot and indexed history; the number of rows removed."""
    from ctxmode.session import purge_rows

    return purge_rows(conn, session_id)


def purge_project(conn: sqlite3.Connection) -> tuple[int, int]:
    """Empty the project's knowledge base, sessions and statistics: (sources, other rows) removed."""
    from ctxmode.session import purge_rows
    from ctxmode.store.knowledge import KnowledgeBase

    sources = KnowledgeBase(conn).purge()
    removed = purge_rows(conn, None)
    with db.write_transaction(conn):
        removed += conn.execute("DELETE FROM tool_calls").rowcount
    db.reclaim_space(conn)
    return sources, removed


def purge_knowledge(conn: sqlite3.Connection) -> tuple[int, bool]:
    """Empty the knowledge base, keeping sessions and statistics: (sources removed, whether
    the file shrank; it cannot while another process reads it)."""
    from ctxmode.store.knowledge import KnowledgeBase

    removed = KnowledgeBase(conn).purge()
    return removed, db.reclaim_space(conn)
