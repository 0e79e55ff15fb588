"""The per-project database: its numbered migrations and how to open it.

Migration N brings a database to `PRAGMA user_version` N. Append new migrations
at the end of `MIGRATIONS`; never edit one that has shipped.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

from ctxmode.storage import db, project
from ctxmode.store import packing


def _v1_meta(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _v2_tool_calls(conn: sqlite3.Connection) -> None:
    # One row per MCP tool call: what it handled, returned, indexed and honestly kept out.
    conn.execute(
        """CREATE TABLE tool_calls (
            id INTEGER PRIMARY KEY,
            at REAL NOT NULL,
            session_key TEXT NOT NULL DEFAULT '',
            tool TEXT NOT NULL,
            bytes_processed INTEGER NOT NULL DEFAULT 0,
            bytes_returned INTEGER NOT NULL DEFAULT 0,
            bytes_indexed INTEGER NOT NULL DEFAULT 0,
            bytes_kept_out INTEGER NOT NULL DEFAULT 0,
            cache_hit INTEGER NOT NULL DEFAULT 0,
            is_error INTEGER NOT NULL DEFAULT 0
        )"""
    )
    conn.execute("CREATE INDEX tool_calls_at ON tool_calls(at)")


def _v3_knowledge_base(conn: sqlite3.Connection) -> None:
    # Sources and their chunks; kb_fts is an external-content porter index over the chunks
    # (`terms` holds camelCase identifier parts); kb_vocab is every distinct word with its
    # chunk count, and kb_vocab_tri a trigram index over the vocabulary (not over the text)
    # that turns fragments and typos into real words. (No executescript: it would COMMIT
    # the migration's transaction.)
    for statement in (
        """CREATE TABLE kb_sources (
            id INTEGER PRIMARY KEY,
            label TEXT NOT NULL UNIQUE,
            fmt TEXT NOT NULL DEFAULT 'markdown',
            file_path TEXT,
            url TEXT,
            session_id TEXT,
            content_hash TEXT,
            file_mtime REAL,
            file_size INTEGER,
            chunk_count INTEGER NOT NULL DEFAULT 0,
            code_chunk_count INTEGER NOT NULL DEFAULT 0,
            byte_count INTEGER NOT NULL DEFAULT 0,
            indexed_at REAL NOT NULL,
            last_used_at REAL NOT NULL
        )""",
        "CREATE INDEX kb_sources_file_path ON kb_sources(file_path) WHERE file_path IS NOT NULL",
        """CREATE TABLE kb_chunks (
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES kb_sources(id),
            title TEXT NOT NULL,
            content TEXT NOT NULL,
            terms TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL
        )""",
        "CREATE INDEX kb_chunks_source ON kb_chunks(source_id)",
        """CREATE VIRTUAL TABLE kb_fts USING fts5(
            title, content, terms,
            content='kb_chunks', content_rowid='id', tokenize='porter unicode61'
        )""",
        "INSERT INTO kb_fts(kb_fts, rank) VALUES('rank', 'bm25(5.0, 1.0, 0.5)')",
        """CREATE TABLE kb_vocab (
            id INTEGER PRIMARY KEY,
            word TEXT NOT NULL UNIQUE,
            freq INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE VIRTUAL TABLE kb_vocab_tri USING fts5(
            word, content='kb_vocab', content_rowid='id', tokenize='trigram'
        )""",
        """CREATE TRIGGER kb_vocab_added AFTER INSERT ON kb_vocab BEGIN
            INSERT INTO kb_vocab_tri(rowid, word) VALUES (new.id, new.word);
        END""",
    ):
        conn.execute(statement)


def _v4_fetch_cache(conn: sqlite3.Connection) -> None:
    # What ctx_fetch_and_index fetched under each label: the URL (a label's chunks only count
    # as a cache hit for the same URL), when, and what came back; hits counted for stats.
    conn.execute(
        """CREATE TABLE fetch_cache (
            label TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            final_url TEXT NOT NULL,
            fetched_at REAL NOT NULL,
            status INTEGER NOT NULL,
            content_type TEXT NOT NULL,
            kind TEXT NOT NULL,
            byte_count INTEGER NOT NULL,
            chunk_count INTEGER NOT NULL,
            title TEXT,
            hits INTEGER NOT NULL DEFAULT 0
        )"""
    )


def _v5_session_events(conn: sqlite3.Connection) -> None:
    # Session continuity. `priority`: HIGHER number = MORE important (1 noise .. 5 critical);
    # the per-session cap evicts the lowest priority, oldest first. `ref` links an
    # error_resolved event to the error it fixed. Detector state (error -> fix, retry
    # loops) lives in session_detector because every hook call is a new process.
    for statement in (
        """CREATE TABLE session_events (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            agent_id TEXT NOT NULL DEFAULT '',
            category TEXT NOT NULL,
            type TEXT NOT NULL,
            priority INTEGER NOT NULL DEFAULT 3,
            data TEXT NOT NULL,
            data_hash TEXT NOT NULL,
            ref INTEGER,
            project_dir TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL
        )""",
        "CREATE INDEX session_events_session ON session_events(session_id, id)",
        "CREATE INDEX session_events_priority ON session_events(session_id, priority, id)",
        """CREATE TABLE session_meta (
            session_id TEXT PRIMARY KEY,
            project_dir TEXT NOT NULL DEFAULT '',
            platform TEXT NOT NULL DEFAULT '',
            started_at REAL NOT NULL,
            last_event_at REAL NOT NULL,
            event_count INTEGER NOT NULL DEFAULT 0,
            tool_calls INTEGER NOT NULL DEFAULT 0,
            compact_count INTEGER NOT NULL DEFAULT 0,
            snapshot_bytes_injected INTEGER NOT NULL DEFAULT 0,
            injections INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX session_meta_last ON session_meta(last_event_at)",
        """CREATE TABLE session_snapshots (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL UNIQUE,
            snapshot TEXT NOT NULL,
            byte_count INTEGER NOT NULL,
            budget INTEGER NOT NULL,
            event_count INTEGER NOT NULL,
            created_at REAL NOT NULL,
            consumed_at REAL,
            consumed_by TEXT
        )""",
        """CREATE TABLE session_detector (
            session_id TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (session_id, key)
        ) WITHOUT ROWID""",
    ):
        conn.execute(statement)


def _v6_tool_call_client(conn: sqlite3.Connection) -> None:
    # The name the MCP client gave at initialize (e.g. "claude-code"): per-host figures.
    conn.execute("ALTER TABLE tool_calls ADD COLUMN client TEXT NOT NULL DEFAULT ''")


def _v7_source_redacted(conn: sqlite3.Connection) -> None:
    # Whether a source's secrets were filtered: an unchanged file is skipped on a re-index
    # only when it was stored the way the redaction setting asks for now.
    conn.execute("ALTER TABLE kb_sources ADD COLUMN redacted INTEGER NOT NULL DEFAULT 1")


def _v8_packed_chunks(conn: sqlite3.Connection) -> None:
    # Chunk text is stored compressed (store.packing) in kb_chunk_rows; kb_chunks becomes
    # the view that reads it back, under the name the search index reads its text from, so
    # the index itself is kept as it is. The text already stored is packed here; its freed
    # pages are reused by what is indexed next.
    packing.register(conn)
    for statement in (
        "ALTER TABLE kb_chunks RENAME TO kb_chunk_rows",
        f"UPDATE kb_chunk_rows SET content = {packing.PACK_FUNCTION}(content)",
        f"""CREATE VIEW kb_chunks AS SELECT id, source_id, title,
            {packing.UNPACK_FUNCTION}(content) AS content, terms, kind FROM kb_chunk_rows""",
    ):
        conn.execute(statement)


MIGRATIONS: list[db.Migration] = [
    _v1_meta,
    _v2_tool_calls,
    _v3_knowledge_base,
    _v4_fetch_cache,
    _v5_session_events,
    _v6_tool_call_client,
    _v7_source_redacted,
    _v8_packed_chunks,
]


def _after_salvage(conn: sqlite3.Connection) -> None:
    # Chunks lost with a damaged page leave their source short (or empty): count again,
    # drop what has nothing left, and rebuild the search index over what was copied.
    packing.register(conn)
    conn.execute(
        "UPDATE kb_sources SET chunk_count = "
        "(SELECT count(*) FROM kb_chunks WHERE source_id = kb_sources.id)"
    )
    conn.execute("DELETE FROM kb_sources WHERE chunk_count = 0")
    conn.execute("INSERT INTO kb_fts(kb_fts) VALUES('rebuild')")


# What a damaged project database hands on to its replacement (parents before children).
SALVAGE = db.Salvage(
    tables=(
        ("kb_sources", "sources"),
        ("kb_chunk_rows", "chunks"),
        ("kb_vocab", ""),
        ("session_meta", ""),
        ("session_events", "session events"),
        ("session_snapshots", ""),
    ),
    finish=_after_salvage,
    earlier_names={"kb_chunk_rows": "kb_chunks"},  # before chunk text was packed (_v8)
)


def open_project_db(root: str) -> sqlite3.Connection:
    """Open the database of the resolved project `root`, recording the root in `meta`."""
    path = project.project_db_path(root)
    conn = db.open_database(path, MIGRATIONS, SALVAGE)
    try:
        packing.register(conn)
        stored = conn.execute("SELECT value FROM meta WHERE key = 'project_root'").fetchone()
        if stored is None or stored[0] != root:
            with db.write_transaction(conn):
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES('project_root', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (root,),
                )
    except sqlite3.Error as exc:
        conn.close()
        raise db.storage_error(path, exc) from None
    return conn


@contextlib.contextmanager
def project_database(root: str) -> Iterator[sqlite3.Connection]:
    """`open_project_db` for one call: every SQLite failure in the block becomes a
    `db.DatabaseError` naming the file (damage found on the way is repaired first)."""
    with db.storage_faults(project.project_db_path(root), MIGRATIONS, SALVAGE):
        conn = open_project_db(root)
        try:
            yield conn
        finally:
            conn.close()
