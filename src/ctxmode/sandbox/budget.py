"""What one tool call may add to the data root: the bound, the output's share of it, and a
guard that ends indexing before the database outgrows the rest.

A command printing without end (`yes`) writes its spool at hundreds of MB a second, and
indexing text grows the project database (with its write-ahead log) by up to about six
times the text's size before the log is folded back in: both count against one bound
(`CTXMODE_CALL_DISK_CAP`). The output keeps half of it at most; the guard counts each
piece indexed at that growth, and stops earlier if the files themselves grew more.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from ctxmode import settings

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: sqlite3 is loaded by whoever holds a connection
    import sqlite3

# Peak database + log growth per byte of text indexed, with room to spare (measured 4.6 to
# 6 on log lines, a repeated `y` and random hex words: `bench/call_bound.py`).
INDEX_GROWTH = 7


def call_cap() -> int:
    """The bound on what one call adds to the data root (`CTXMODE_CALL_DISK_CAP`)."""
    return settings.integer(settings.CALL_DISK_CAP)


def output_cap() -> int:
    """The output's share: half the bound. A program is stopped only past it (what it
    printed last, often the failure, is kept); the index of a large output is partial."""
    return call_cap() // 2


def mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


class IndexGuard:
    """Passes text pieces on to the indexer while their expected growth of the database
    (or the growth measured on its files at `db_path`, if known and more) stays within
    `room` bytes; then it stops and says so in `note()`."""

    def __init__(self, room: int, db_path: str = "") -> None:
        self._paths = (db_path, db_path + "-wal") if db_path else ()
        self._room = room
        self._start = self._size()
        self.passed_bytes = 0
        self.stopped = False

    def _size(self) -> int:
        total = 0
        for path in self._paths:
            try:
                total += os.stat(path).st_size
            except OSError:
                pass
        return total

    def grown(self) -> int:
        return max(0, self._size() - self._start)

    def pieces(self, pieces: Iterable[str]) -> Iterator[str]:
        for piece in pieces:
            size = len(piece.encode("utf-8", "replace"))
            expected = max(self.grown(), self.passed_bytes * INDEX_GROWTH)
            if expected + size * INDEX_GROWTH > self._room:
                self.stopped = True
                return
            self.passed_bytes += size
            yield piece

    def note(self) -> str:
        if not self.stopped:
            return ""
        return (
            f"indexing stopped after the first {mb(self.passed_bytes)} of output: one call adds"
            f" at most {mb(call_cap())} to ctxmode's data (CTXMODE_CALL_DISK_CAP)"
        )


def database_path(conn: sqlite3.Connection) -> str:
    """The main database file of an sqlite3 connection ("" for an in-memory one)."""
    try:
        row = conn.execute("PRAGMA database_list").fetchone()
    except Exception:
        return ""
    return str(row[2]) if row and row[2] else ""
