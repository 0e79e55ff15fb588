"""Session memory in SQLite: `<data root>/memory.db`, one row per session, one per entry.

Every write is one BEGIN IMMEDIATE transaction, so several processes recording into
one session lose nothing. Every text is passed through secret redaction before it
is written.
"""

from __future__ import annotations

import datetime
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from ctxmode import paths
from ctxmode.errors import CtxmodeError
from ctxmode.policy.secrets import redact
from ctxmode.session.memory.compact import compacted_summary
from ctxmode.session.memory.model import ROLES, Entry, Session
from ctxmode.session.memory.rounds import grown_summary, round_sentence
from ctxmode.storage import db


class SessionNotFound(CtxmodeError, LookupError):
    """The named session does not exist."""


def _v1_sessions(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            workspace TEXT NOT NULL,
            summary TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )"""
    )
    roles = ", ".join(f"'{r}'" for r in ROLES)
    conn.execute(
        f"""CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ({roles})),
            content TEXT NOT NULL,
            verified INTEGER,
            created_at TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX messages_session ON messages(session_id, id)")


MEMORY_MIGRATIONS: list[db.Migration] = [_v1_sessions]
# What a damaged memory.db hands on to its replacement.
MEMORY_SALVAGE = db.Salvage(tables=(("sessions", "sessions"), ("messages", "entries")))


def memory_db_path() -> str:
    return os.path.join(paths.data_root(), "memory.db")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _session(row: sqlite3.Row) -> Session:
    return Session(
        row["id"], row["workspace"], row["summary"], row["created_at"], row["updated_at"]
    )


def _entry(row: sqlite3.Row) -> Entry:
    verified = None if row["verified"] is None else bool(row["verified"])
    return Entry(row["id"], row["role"], row["content"], row["created_at"], verified)


class MemoryStore:
    """Sessions and their entries. Use as a context manager, or call `close()`."""

    def __init__(self, path: str | None = None, *, private_networks: bool = False) -> None:
        self.path = path or memory_db_path()
        self.private_networks = private_networks
        self.conn = db.open_database(self.path, MEMORY_MIGRATIONS, MEMORY_SALVAGE)

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    def _clean(self, text: str) -> str:
        return redact(text, private_networks=self.private_networks)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with db.write_transaction(self.conn) as conn:
            yield conn

    # --- reading ------------------------------------------------------------------------
    def get(self, session_id: str) -> Session | None:
        row = self.conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return _session(row) if row else None

    def require(self, session_id: str) -> Session:
        session = self.get(session_id)
        if session is None:
            raise SessionNotFound(f"no session named '{session_id}'")
        return session

    def all_sessions(self) -> list[tuple[Session, int]]:
        """Every session with its entry count, most recently updated first."""
        rows = self.conn.execute(
            """SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS n
               FROM sessions s ORDER BY s.updated_at DESC, s.id"""
        ).fetchall()
        return [(_session(row), row["n"]) for row in rows]

    def count(self, session_id: str, *, with_summaries: bool = True) -> int:
        where = "" if with_summaries else " AND role != 'summary'"
        return self.conn.execute(
            f"SELECT count(*) FROM messages WHERE session_id = ?{where}", (session_id,)
        ).fetchone()[0]

    def entries(
        self, session_id: str, newest: int | None = None, *, with_summaries: bool = True
    ) -> list[Entry]:
        """The session's entries, oldest first; only the `newest` N when given.

        `with_summaries=False` leaves out the `summary` entries (the block shows the
        current summary once, first).
        """
        where = "" if with_summaries else " AND role != 'summary'"
        limit = -1 if newest is None else newest
        rows = self.conn.execute(
            f"SELECT * FROM messages WHERE session_id = ?{where} ORDER BY id DESC LIMIT ?",
            (session_id, limit),
        ).fetchall()
        return [_entry(row) for row in reversed(rows)]

    # --- writing ------------------------------------------------------------------------
    def ensure(self, session_id: str, workspace: str) -> Session:
        """The session, created bound to `workspace` if it does not exist yet."""
        now = _now()
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO sessions (id, workspace, summary, created_at, updated_at)"
                " VALUES (?, ?, '', ?, ?)",
                (session_id, os.path.realpath(workspace), now, now),
            )
        return self.require(session_id)

    def record(
        self, session_id: str, role: str, content: str, *, verified: bool | None = None
    ) -> int:
        """Append one entry (secrets filtered); returns its id. The session must exist."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
        if role != "checkpoint":
            verified = None
        content = self._clean(content)
        now = _now()
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO messages (session_id, role, content, verified, created_at)"
                " SELECT id, ?, ?, ?, ? FROM sessions WHERE id = ?",
                (role, content, None if verified is None else int(verified), now, session_id),
            )
            if cursor.rowcount == 0:
                raise SessionNotFound(f"no session named '{session_id}'")
            if role == "summary":
                conn.execute("UPDATE sessions SET summary = ? WHERE id = ?", (content, session_id))
            elif role == "tool":  # each round adds its sentence: the summary grows on its own
                conn.execute(
                    "UPDATE sessions SET summary = ? WHERE id = ?",
                    (self._grown_summary(conn, session_id, content), session_id),
                )
            conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
            return int(cursor.lastrowid or 0)

    @staticmethod
    def _grown_summary(conn: sqlite3.Connection, session_id: str, content: str) -> str:
        row = conn.execute("SELECT summary FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return grown_summary(row[0], round_sentence(content))

    def set_summary(self, session_id: str, summary: str) -> int:
        """Replace the summary (also kept in the history as a `summary` entry)."""
        return self.record(session_id, "summary", summary)

    def rebind(self, session_id: str, workspace: str) -> Session:
        """Bind the session (created if missing) to another workspace."""
        self.ensure(session_id, workspace)
        with self._write() as conn:
            conn.execute(
                "UPDATE sessions SET workspace = ?, updated_at = ? WHERE id = ?",
                (os.path.realpath(workspace), _now(), session_id),
            )
        return self.require(session_id)

    def delete(self, session_id: str) -> bool:
        """Remove the session and all its entries; False if there was none."""
        with self._write() as conn:
            conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
            cursor = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        return cursor.rowcount > 0

    def compact(self, session_id: str, window: int) -> tuple[int, int]:
        """Keep the newest `max(1, window // 2)` entries; fold the rest into the summary.

        Returns (entries folded, entries kept). Done in one transaction, so an entry
        recorded meanwhile is either folded or kept, never lost.
        """
        keep = max(1, window // 2)
        with self._write() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise SessionNotFound(f"no session named '{session_id}'")
            rows = conn.execute(
                "SELECT * FROM messages WHERE session_id = ? ORDER BY id", (session_id,)
            ).fetchall()
            folded = [_entry(r) for r in rows[: max(len(rows) - keep, 0)]]
            if folded:
                summary = self._clean(compacted_summary(row["summary"], folded))
                conn.execute(
                    "DELETE FROM messages WHERE session_id = ? AND id <= ?",
                    (session_id, folded[-1].id),
                )
                conn.execute(
                    "UPDATE sessions SET summary = ?, updated_at = ? WHERE id = ?",
                    (summary, _now(), session_id),
                )
        return len(folded), len(rows) - len(folded)
