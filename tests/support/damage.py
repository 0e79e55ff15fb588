"""Damaging a real SQLite file the way a bad disk would: garbage over some of a table's pages."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def table_pages(path: Path, table: str) -> list[int]:
    """The leaf pages holding `table`'s rows, read from `dbstat`."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno",
            (table,),
        ).fetchall()
        return [row[0] for row in rows]
    finally:
        conn.close()


def damage_pages(path: Path, table: str, every: int = 3) -> int:
    """Overwrite every `every`-th leaf page of `table` (the first included) with garbage;
    returns how many were hit.

    The file must be checkpointed (no open connection, no -wal left).
    """
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    pages = table_pages(path, table)[::every]
    with open(path, "r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * page_size)
            handle.write(b"\xde\xad\xbe\xef" * (page_size // 4))
    return len(pages)
