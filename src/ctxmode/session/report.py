"""Session numbers for `ctx_stats` / `ctxmode stats`, and purging session rows."""

from __future__ import annotations

import sqlite3

from ctxmode.session import store
from ctxmode.session.capture import HISTORY_LABEL
from ctxmode.storage import db


def stats_section(conn: sqlite3.Connection, session_id: str | None = None) -> str:
    """Events by category, compactions and snapshot bytes injected (one session or all)."""
    where, params = ("WHERE session_id = ?", [session_id]) if session_id else ("", [])
    categories = conn.execute(
        f"SELECT category, COUNT(*) FROM session_events {where} GROUP BY category "
        "ORDER BY COUNT(*) DESC, category",
        params,
    ).fetchall()
    totals = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(compact_count), 0), COALESCE(SUM(snapshot_bytes_injected), 0), "
        f"COALESCE(SUM(injections), 0), COALESCE(SUM(tool_calls), 0) FROM session_meta {where}",
        params,
    ).fetchone()
    sessions, compactions, injected, injections, tool_calls = totals
    title = f"Session {session_id}" if session_id else "Sessions (this project)"
    if not sessions:
        return f"{title}\nNo session events captured yet."
    lines = [
        title,
        f"sessions: {sessions} | tool calls seen: {tool_calls} | compactions: {compactions} | "
        f"guides injected: {injections} ({injected:,} bytes)",
    ]
    if categories:
        lines.append("events by category: " + ", ".join(f"{c} {n}" for c, n in categories))
    return "\n".join(lines)


def purge_rows(conn: sqlite3.Connection, session_id: str | None = None) -> int:
    """Delete session rows (and their indexed histories); returns the number of rows removed."""
    if session_id is None:
        ids = [row[0] for row in conn.execute("SELECT session_id FROM session_meta")]
        ids += [
            row[0]
            for row in conn.execute("SELECT DISTINCT session_id FROM session_events")
            if row[0] not in ids
        ]
    else:
        ids = [session_id]
    with db.write_transaction(conn):
        removed = store.delete_sessions(conn, ids)
    labels = [
        row[0]
        for row in conn.execute(
            "SELECT label FROM kb_sources WHERE label LIKE ?", (HISTORY_LABEL + "%",)
        )
        if session_id is None or row[0] == HISTORY_LABEL + session_id
    ]
    if labels:
        from ctxmode.store.knowledge import KnowledgeBase

        kb = KnowledgeBase(conn)
        for label in labels:
            kb.delete_source(label)
    return removed
