"""Everything ctxmode keeps under a data root, as bytes a test can scan for a secret.

Chunk text is stored zlib-packed (`ctxmode.store.packing`), so a scan of the files' raw
bytes would miss a secret inside it: the packed chunks are read back as text too.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from ctxmode.store import packing


def stored_bytes(data_root: Path) -> bytes:
    """The raw bytes of every file under `data_root`, then every chunk's title and text."""
    raw = b"".join(path.read_bytes() for path in data_root.rglob("*") if path.is_file())
    texts: list[str] = []
    for database in data_root.rglob("*.db"):
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as conn:
            packing.register(conn)
            try:
                rows = conn.execute("SELECT title, content FROM kb_chunks").fetchall()
            except sqlite3.OperationalError:  # not a project database (session memory)
                continue
            texts.extend(f"{title}\n{content}" for title, content in rows)
    return raw + "\n".join(texts).encode("utf-8", "surrogatepass")
