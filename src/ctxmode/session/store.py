"""Session tables in the per-project database: events, meta, snapshots, detector state.

Every function takes an open connection; writers expect the caller to hold one
`db.write_transaction` for the whole hook call. Secrets are redacted here, at the one
door every event and every detector key goes through. Hot path: stdlib `time` and our modules.
"""

from __future__ import annotations

import time

from ctxmode import settings
from ctxmode.policy.secrets import redact
from ctxmode.session.model import Captured, StoredEvent
from ctxmode.storage.project import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

DEDUP_WINDOW = 5  # an event equal to one of the session's last 5 is an immediate repeat


def event_cap() -> int:
    return settings.integer(settings.SESSION_EVENT_CAP)


def data_hash(kind: str, data: str) -> str:
    return sha256_hex(f"{kind}\x00{data}".encode("utf-8", "replace"))[:16]


# ------------------------------------------------------------------ meta


def touch_session(
    conn: sqlite3.Connection,
    session_id: str,
    project_dir: str,
    platform: str,
    *,
    tool_call: bool = False,
) -> None:
    """Create the session row if needed and record activity now."""
    now = time.time()
    conn.execute(
        "INSERT INTO session_meta(session_id, project_dir, platform, started_at, last_event_at, tool_calls) "
        "VALUES (?,?,?,?,?,?) ON CONFLICT(session_id) DO UPDATE SET last_event_at = excluded.last_event_at, "
        "tool_calls = tool_calls + excluded.tool_calls",
        (session_id, project_dir, platform, now, now, int(tool_call)),
    )


def meta(conn: sqlite3.Connection, session_id: str) -> dict:
    row = conn.execute("SELECT * FROM session_meta WHERE session_id = ?", (session_id,)).fetchone()
    return dict(row) if row is not None else {}


# ------------------------------------------------------------------ events


def insert_events(
    conn: sqlite3.Connection,
    session_id: str,
    events: list[Captured],
    *,
    agent_id: str = "",
    project_dir: str = "",
) -> list[int | None]:
    """Store `events` (redacted); immediate repeats are skipped (None), then the cap applies."""
    if not events:
        return []
    recent = {
        (row[0], row[1])
        for row in conn.execute(
            "SELECT type, data_hash FROM session_events WHERE session_id = ? ORDER BY id DESC LIMIT ?",
            (session_id, DEDUP_WINDOW),
        )
    }
    ids: list[int | None] = []
    added = 0
    now = time.time()
    for event in events:
        data = redact(event.data)
        digest = data_hash(event.type, data)
        if (event.type, digest) in recent:
            ids.append(None)
            continue
        recent.add((event.type, digest))
        cursor = conn.execute(
            "INSERT INTO session_events(session_id, agent_id, category, type, priority, data, "
            "data_hash, ref, project_dir, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (session_id, agent_id, event.category, event.type, event.priority, data, digest,
             event.ref, project_dir, now),
        )  # fmt: skip
        ids.append(cursor.lastrowid)
        added += 1
    if added:
        conn.execute(
            "UPDATE session_meta SET event_count = event_count + ?, last_event_at = ? WHERE session_id = ?",
            (added, now, session_id),
        )
        enforce_cap(conn, session_id)
    return ids


def enforce_cap(conn: sqlite3.Connection, session_id: str, cap: int | None = None) -> int:
    """Evict the least important events (lowest priority, oldest first) above the cap."""
    cap = event_cap() if cap is None else cap
    row = conn.execute(
        "SELECT event_count FROM session_meta WHERE session_id = ?", (session_id,)
    ).fetchone()
    count = row[0] if row is not None else 0
    if count <= cap:
        return 0
    # event_count is a cheap running count; recount exactly before deleting anything.
    count = conn.execute(
        "SELECT COUNT(*) FROM session_events WHERE session_id = ?", (session_id,)
    ).fetchone()[0]
    excess = count - cap
    if excess > 0:
        conn.execute(
            "DELETE FROM session_events WHERE id IN (SELECT id FROM session_events WHERE session_id = ? "
            "ORDER BY priority ASC, id ASC LIMIT ?)",
            (session_id, excess),
        )
    conn.execute(
        "UPDATE session_meta SET event_count = ? WHERE session_id = ?",
        (min(count, cap), session_id),
    )
    return max(0, excess)


def load_events(conn: sqlite3.Connection, session_id: str) -> list[StoredEvent]:
    """Every stored event of the session, oldest first."""
    return [
        StoredEvent(
            row[0], row[1], row[2], row[3], row[4], agent_id=row[5], ref=row[6], created_at=row[7]
        )
        for row in conn.execute(
            "SELECT id, category, type, priority, data, agent_id, ref, created_at FROM session_events "
            "WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
    ]


# ------------------------------------------------------------------ detector state


def get_state(conn: sqlite3.Connection, session_id: str, prefix: str) -> dict[str, str]:
    """Detector state keys starting with `prefix` (LIKE-free: prefixes hold no wildcards)."""
    return {
        row[0]: row[1]
        for row in conn.execute(
            "SELECT key, value FROM session_detector WHERE session_id = ? AND key >= ? AND key < ?",
            (session_id, prefix, prefix + "\uffff"),
        )
    }


def set_state(conn: sqlite3.Connection, session_id: str, key: str, value: str) -> None:
    """Store detector state; keys and values are filtered like events (they hold commands)."""
    key, value = redact(key), redact(value)
    conn.execute(
        "INSERT INTO session_detector(session_id, key, value) VALUES (?,?,?) "
        "ON CONFLICT(session_id, key) DO UPDATE SET value = excluded.value",
        (session_id, key, value),
    )


def delete_state(conn: sqlite3.Connection, session_id: str, key: str) -> None:
    conn.execute("DELETE FROM session_detector WHERE session_id = ? AND key = ?", (session_id, key))


# ------------------------------------------------------------------ snapshots


def save_snapshot(
    conn: sqlite3.Connection, session_id: str, text: str, budget: int, event_count: int
) -> None:
    """Store (replacing) the session's resume snapshot, unconsumed, and count the compaction."""
    conn.execute(
        "INSERT INTO session_snapshots(session_id, snapshot, byte_count, budget, event_count, created_at) "
        "VALUES (?,?,?,?,?,?) ON CONFLICT(session_id) DO UPDATE SET snapshot = excluded.snapshot, "
        "byte_count = excluded.byte_count, budget = excluded.budget, event_count = excluded.event_count, "
        "created_at = excluded.created_at, consumed_at = NULL, consumed_by = NULL",
        (session_id, text, len(text.encode("utf-8")), budget, event_count, time.time()),
    )
    conn.execute(
        "UPDATE session_meta SET compact_count = compact_count + 1 WHERE session_id = ?",
        (session_id,),
    )


def claim_snapshot(conn: sqlite3.Connection, session_id: str, consumer: str) -> str | None:
    """The session's own unconsumed snapshot, marked consumed by `consumer`; None if none."""
    row = conn.execute(
        "UPDATE session_snapshots SET consumed_at = ?, consumed_by = ? "
        "WHERE session_id = ? AND consumed_at IS NULL RETURNING snapshot",
        (time.time(), consumer, session_id),
    ).fetchone()
    return row[0] if row is not None else None


def claim_newest_snapshot(conn: sqlite3.Connection, consumer: str) -> tuple[str, str] | None:
    """Atomically claim the newest unconsumed snapshot of any session: (session_id, text)."""
    row = conn.execute(
        "UPDATE session_snapshots SET consumed_at = ?, consumed_by = ? WHERE id = ("
        "SELECT id FROM session_snapshots WHERE consumed_at IS NULL AND session_id != ? "
        "ORDER BY created_at DESC, id DESC LIMIT 1) AND consumed_at IS NULL RETURNING session_id, snapshot",
        (time.time(), consumer, consumer),
    ).fetchone()
    return (row[0], row[1]) if row is not None else None


def has_unconsumed_snapshot(conn: sqlite3.Connection, session_id: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM session_snapshots WHERE session_id = ? AND consumed_at IS NULL",
        (session_id,),
    ).fetchone()
    return row is not None


def record_injection(conn: sqlite3.Connection, session_id: str, byte_count: int) -> None:
    conn.execute(
        "UPDATE session_meta SET snapshot_bytes_injected = snapshot_bytes_injected + ?, "
        "injections = injections + 1 WHERE session_id = ?",
        (byte_count, session_id),
    )


# ------------------------------------------------------------------ retention and purge

SESSION_TABLES = ("session_events", "session_snapshots", "session_detector", "session_meta")


def delete_sessions(conn: sqlite3.Connection, session_ids: list[str]) -> int:
    """Delete every row of the given sessions; returns the number of rows removed."""
    removed = 0
    for start in range(0, len(session_ids), 500):
        batch = session_ids[start : start + 500]
        marks = ",".join("?" * len(batch))
        for table in SESSION_TABLES:
            removed += conn.execute(
                f"DELETE FROM {table} WHERE session_id IN ({marks})", batch
            ).rowcount
    return removed


def idle_sessions(conn: sqlite3.Connection, max_idle_days: float, keep: str = "") -> list[str]:
    """Sessions whose last activity is older than `max_idle_days` (never `keep`)."""
    cutoff = time.time() - max_idle_days * 86_400
    return [
        row[0]
        for row in conn.execute(
            "SELECT session_id FROM session_meta WHERE last_event_at < ? AND session_id != ?",
            (cutoff, keep),
        )
    ]
