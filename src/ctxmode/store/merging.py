"""Keeping the search indexes in one segment: merged whole once enough was written since.

Every indexing transaction adds a segment to FTS5's index, and its automatic merges
leave a dozen at 200 MB: each query term is then looked up, and its matches merged, in
each of them (a query cost 20-25% more at the 95th percentile than over one segment).
Merging is work in proportion to the index, so it waits until a share of what the index
holds was written since the last merge: each byte indexed is rewritten a few times at
most, however the corpus grew.
"""

from __future__ import annotations

import sqlite3

MERGE_AFTER_SHARE = 0.25  # of the text indexed, (re)written since the last merge
MERGE_AFTER_BYTES = 256 * 1024  # ... and at least this much
_WRITTEN_KEY = "kb_written_since_merge"


def note_written(conn: sqlite3.Connection, size: int) -> bool:
    """Count `size` bytes of text as indexed (inside the indexing transaction) and merge
    the indexes when due; whether they were merged."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_WRITTEN_KEY,)).fetchone()
    written = (int(row[0]) if row else 0) + size
    held = conn.execute("SELECT total(byte_count) FROM kb_sources").fetchone()[0]
    merge = written >= MERGE_AFTER_BYTES and written >= MERGE_AFTER_SHARE * held
    if merge:
        conn.execute("INSERT INTO kb_fts(kb_fts) VALUES('optimize')")
        conn.execute("INSERT INTO kb_vocab_tri(kb_vocab_tri) VALUES('optimize')")
        written = 0
    conn.execute(
        "INSERT INTO meta(key, value) VALUES(?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (_WRITTEN_KEY, str(written)),
    )
    return merge
