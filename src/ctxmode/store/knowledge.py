"""The knowledge base: index text, files and directories into a project's SQLite file; search it.

`KnowledgeBase` is the one front door: its indexing half lives in `indexing`, its
querying half in `querying`; here are the connection and the sources as a whole (list,
delete, purge, prune by last use, never by file age).
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections import Counter

from ctxmode.storage import db, schema
from ctxmode.store import packing, terms
from ctxmode.store.indexing import Indexing
from ctxmode.store.querying import Querying
from ctxmode.store.records import (
    Hit,
    IndexResult,
    QueryResult,
    SourceInfo,
    StoreInputError,
)

__all__ = [
    "Hit",
    "IndexResult",
    "KnowledgeBase",
    "QueryResult",
    "SourceInfo",
    "StoreInputError",
]

TERMS_SAMPLE_CHUNKS = 2_000  # chunks read to find a source's distinctive terms


def _source_info(row: sqlite3.Row) -> SourceInfo:
    return SourceInfo(
        row["label"],
        row["file_path"],
        row["url"],
        row["chunk_count"],
        row["code_chunk_count"],
        row["byte_count"],
        row["indexed_at"],
        row["last_used_at"],
    )


class KnowledgeBase(Indexing, Querying):
    """Sources, chunks and search over one project database connection."""

    def __init__(self, conn: sqlite3.Connection, *, owns_connection: bool = False) -> None:
        self.conn = conn
        self._owns = owns_connection
        self._last_stale_check = 0.0
        packing.register(conn)  # chunk text is read through the kb_chunks view
        # 8 MB: page reads stay rare, and a 50 MB output indexed in one transaction does
        # not grow the process by a page cache four times that size.
        conn.execute("PRAGMA cache_size = -8192")
        conn.execute("PRAGMA temp_store = MEMORY")
        row = conn.execute("SELECT value FROM meta WHERE key = 'project_root'").fetchone()
        self.root: str | None = row[0] if row else None

    @classmethod
    def open(cls, project_root: str) -> KnowledgeBase:
        return cls(schema.open_project_db(project_root), owns_connection=True)

    def close(self) -> None:
        if self._owns:
            self.conn.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sources(self) -> list[SourceInfo]:
        rows = self.conn.execute("SELECT * FROM kb_sources ORDER BY indexed_at DESC, id DESC")
        return [_source_info(row) for row in rows]

    def get_source(self, label: str) -> SourceInfo | None:
        row = self.conn.execute("SELECT * FROM kb_sources WHERE label = ?", (label,)).fetchone()
        return _source_info(row) if row else None

    def delete_source(self, label: str) -> bool:
        with db.write_transaction(self.conn):
            return self._delete(label)

    def purge(self) -> int:
        """Remove every source, chunk and vocabulary word; the number of sources removed."""
        with db.write_transaction(self.conn):
            removed = self.conn.execute("SELECT count(*) FROM kb_sources").fetchone()[0]
            self.conn.execute("INSERT INTO kb_fts(kb_fts) VALUES('delete-all')")
            self.conn.execute("INSERT INTO kb_vocab_tri(kb_vocab_tri) VALUES('delete-all')")
            for table in ("kb_chunk_rows", "kb_sources", "kb_vocab"):
                self.conn.execute(f"DELETE FROM {table}")
        return removed

    def prune(self, max_idle_days: float) -> int:
        """Remove sources not indexed or found by a search for `max_idle_days`; how many."""
        cutoff = time.time() - max_idle_days * 86400
        with db.write_transaction(self.conn):
            labels = [
                row[0]
                for row in self.conn.execute(
                    "SELECT label FROM kb_sources WHERE max(last_used_at, indexed_at) < ?",
                    (cutoff,),
                )
            ]
            for label in labels:
                self._delete(label)
        return len(labels)

    def chunk_count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM kb_chunks").fetchone()[0]

    def distinctive_terms(self, label: str, limit: int = 40) -> list[str]:
        """Words that tell this source's chunks apart: in a few chunks but not most; no numbers."""
        source = self.get_source(label)
        if source is None:
            return []
        # A sample of at most TERMS_SAMPLE_CHUNKS chunks, read row by row: a 50 MB output
        # must not be loaded whole (ids are contiguous within a source, so `id % stride`
        # spreads the sample evenly).
        stride = max(1, math.ceil(source.chunk_count / TERMS_SAMPLE_CHUNKS))
        rows = self.conn.execute(
            "SELECT c.title, c.content FROM kb_chunks c JOIN kb_sources s ON s.id = c.source_id "
            "WHERE s.label = ? AND c.id % ? = 0",
            (label, stride),
        )
        total = 0
        df: Counter[str] = Counter()
        for title, content in rows:
            total += 1
            df.update(
                w
                for w in terms.vocabulary(title + "\n" + content)
                if w not in terms.STOPWORDS and not any(ch.isdigit() for ch in w)
            )
        if not df:
            return []
        ceiling = max(2, math.ceil(0.4 * total)) if total >= 3 else total
        floor = 2 if total >= 3 else 1

        def score(word: str) -> float:
            return math.log((total + 1) / df[word]) + min(len(word) / 20, 0.5)

        chosen = [w for w, n in df.items() if floor <= n <= ceiling] or list(df)
        chosen.sort(key=lambda w: (-score(w), w))
        return chosen[:limit]
