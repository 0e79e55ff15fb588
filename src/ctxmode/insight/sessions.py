"""The sessions pages: every session of the scope, and one session's timeline and resume snapshot."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from ctxmode.insight.projects import Project, Scope

TIMELINE_LIMIT = 1_000  # newest events shown on a session's page


@dataclass(frozen=True)
class SessionRow:
    project: Project
    session_id: str
    platform: str
    started_at: float
    last_event_at: float
    event_count: int
    tool_calls: int
    compactions: int
    injections: int
    injected_bytes: int


@dataclass(frozen=True)
class Event:
    id: int
    at: float
    category: str
    type: str
    priority: int
    data: str
    agent_id: str


@dataclass(frozen=True)
class Snapshot:
    text: str
    byte_count: int
    budget: int
    event_count: int
    created_at: float
    consumed_at: float | None
    consumed_by: str | None


@dataclass(frozen=True)
class SessionDetail:
    row: SessionRow
    events: list[Event]  # oldest first, at most TIMELINE_LIMIT
    stored_events: int
    snapshot: Snapshot | None
    last_request: Event | None


_META = (
    "SELECT session_id, platform, started_at, last_event_at, event_count, tool_calls, "
    "compact_count, injections, snapshot_bytes_injected FROM session_meta"
)


def _row(project: Project, raw: sqlite3.Row) -> SessionRow:
    return SessionRow(project, *tuple(raw))


def list_sessions(scope: Scope, limit: int) -> tuple[list[SessionRow], int]:
    """The `limit` most recently active sessions of the scope, and how many there are."""
    rows: list[SessionRow] = []
    total = 0
    for item, conn in scope.connections():
        total += conn.execute("SELECT count(*) FROM session_meta").fetchone()[0]
        query = f"{_META} ORDER BY last_event_at DESC LIMIT ?"
        rows += [_row(item, raw) for raw in conn.execute(query, (limit,))]
    rows.sort(key=lambda r: r.last_event_at, reverse=True)
    return rows[:limit], total


def _events(conn: sqlite3.Connection, session_id: str) -> list[Event]:
    rows = conn.execute(
        "SELECT id, created_at, category, type, priority, data, agent_id FROM session_events "
        "WHERE session_id = ? ORDER BY id DESC LIMIT ?",
        (session_id, TIMELINE_LIMIT),
    ).fetchall()
    return [Event(*tuple(r)) for r in reversed(rows)]


def _snapshot(conn: sqlite3.Connection, session_id: str) -> Snapshot | None:
    row = conn.execute(
        "SELECT snapshot, byte_count, budget, event_count, created_at, consumed_at, consumed_by "
        "FROM session_snapshots WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    return Snapshot(*tuple(row)) if row else None


def _last_request(conn: sqlite3.Connection, session_id: str) -> Event | None:
    row = conn.execute(
        "SELECT id, created_at, category, type, priority, data, agent_id FROM session_events "
        "WHERE session_id = ? AND type = 'user_prompt' ORDER BY id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return Event(*tuple(row)) if row else None


def session_detail(scope: Scope, project_key: str, session_id: str) -> SessionDetail | None:
    for item, conn in scope.connections():
        if item.key != project_key:
            continue
        raw = conn.execute(f"{_META} WHERE session_id = ?", (session_id,)).fetchone()
        if raw is None:
            return None
        stored = conn.execute(
            "SELECT count(*) FROM session_events WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        return SessionDetail(
            _row(item, raw),
            _events(conn, session_id),
            stored,
            _snapshot(conn, session_id),
            _last_request(conn, session_id),
        )
    return None
