"""Replacing a damaged database: confirm the damage, move the file aside, copy what is readable.

Only reached when SQLite called a file "not a database" or "malformed". The
integrity check decides; a file that passes it is left alone. The damaged file (and
its -wal/-shm) is kept next to the new one as `<name>.corrupt-<time>-<pid>`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence

from ctxmode import paths
from ctxmode.storage import db

# Rows are read in rowid windows; a window that touches a damaged page is read again
# row by row (a point lookup reads only the page that holds the row).
WINDOW = 256
EMPTY_WINDOWS_TO_STOP = 64  # when the largest rowid itself is unreadable


def replace_if_damaged(
    path: str, migrations: Sequence[db.Migration], salvage: db.Salvage | None
) -> tuple[sqlite3.Connection | None, str | None]:
    """(new connection, what was done) when `path` is damaged; (None, None) when it is not.

    Holds a lock while it works, so that a second process finding the same damage
    waits, then sees the new file healthy and leaves it be.
    """
    with _repair_lock(path):
        finding = confirmed_damage(path)
        if finding is None:
            return None, None
        target = _move_aside(path, finding)
        try:
            conn = db.open_and_migrate(path, migrations)
        except sqlite3.Error as exc:
            raise db.storage_error(path, exc) from None
        recovered = _recover(target, conn, salvage)
    notice = f"database {path} was damaged ({finding}): moved it aside to {target}; "
    notice += recovered
    paths.append_log("db.log", f"[{time.strftime('%Y-%m-%dT%H:%M:%S')}] {notice}")
    return conn, notice


def confirmed_damage(path: str) -> str | None:
    """What the integrity check found wrong with `path`, or None if it passes (or is gone).

    A check that cannot run for another reason (I/O, permissions, a lock) raises
    `DatabaseError`: that is no evidence of damage.
    """
    if not os.path.exists(path):
        return None
    try:
        conn = sqlite3.connect(path, timeout=db.BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise db.storage_error(path, exc) from None
    try:
        rows = conn.execute("PRAGMA integrity_check(1)").fetchall()
    except sqlite3.Error as exc:
        if db.is_damage(exc):
            return str(exc) or "damaged"
        raise db.storage_error(path, exc) from None
    finally:
        conn.close()
    problems = " ".join(str(row[0]) for row in rows if row[0] != "ok")
    return " ".join(problems.split())[:300] or None


@contextlib.contextmanager
def _repair_lock(path: str) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): repairs are rare enough to go unguarded
        yield
        return
    try:
        handle = open(path + ".repair-lock", "a")  # noqa: SIM115 (held for the whole block)
    except OSError as exc:
        raise db.storage_error(path, exc) from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _move_aside(path: str, finding: str) -> str:
    """Rename the damaged file and its -wal/-shm out of the way, keeping them."""
    target = f"{path}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    try:
        os.replace(path, target)
    except OSError as exc:
        raise db.DatabaseError(
            f"database {path} is damaged ({finding}) but cannot be moved aside: {exc}"
        ) from None
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.replace(path + suffix, target + suffix)
    return target


def _recover(damaged: str, conn: sqlite3.Connection, salvage: db.Salvage | None) -> str:
    """Copy what `salvage` names from the damaged file into `conn`; say how much."""
    if salvage is None:
        return "started a new database"
    try:
        old = sqlite3.connect(damaged, isolation_level=None)
    except sqlite3.Error:
        return "nothing could be read from it: started a new database"
    try:
        with db.write_transaction(conn):
            for table, _noun in salvage.tables:
                _copy_table(old, conn, table, salvage.earlier_names.get(table))
            if salvage.finish is not None:
                salvage.finish(conn)
    except sqlite3.Error as exc:
        return f"recovering its contents failed ({exc}): started a new database"
    finally:
        old.close()
    counts = [
        f"{conn.execute(f'SELECT count(*) FROM {_quoted(table)}').fetchone()[0]} {noun}"
        for table, noun in salvage.tables
        if noun
    ]
    return f"recovered {', '.join(counts)} into a new database"


def _copy_table(
    old: sqlite3.Connection, new: sqlite3.Connection, table: str, earlier_name: str | None
) -> None:
    """Copy the readable rows of `table` (or, in a file from before it was renamed, of
    `earlier_name`) into the same table of `new`, in the columns both have."""
    source, old_columns = table, _columns(old, table)
    if not old_columns and earlier_name:
        source, old_columns = earlier_name, _columns(old, earlier_name)
    new_columns = {row[1] for row in new.execute(f"PRAGMA table_info({_quoted(table)})")}
    columns = ", ".join(_quoted(name) for name in old_columns if name in new_columns)
    if not columns:
        return
    count = columns.count(", ") + 1
    insert = f"INSERT OR IGNORE INTO {_quoted(table)} ({columns}) VALUES ({', '.join('?' * count)})"
    select = f"SELECT {columns} FROM {_quoted(source)} WHERE rowid"
    for row in readable_rows(old, source, select):
        with contextlib.suppress(sqlite3.IntegrityError):  # e.g. a chunk whose source was lost
            new.execute(insert, tuple(row))


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The columns of `table` in `conn`; none if it has no such table or its schema is unreadable."""
    try:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({_quoted(table)})")]
    except sqlite3.Error:
        return []


def readable_rows(conn: sqlite3.Connection, table: str, select: str) -> Iterator[tuple]:
    """The rows of `table` that can still be read, in rowid order (`select` ends in "WHERE rowid").

    SQLite stops a scan at the first damaged page it meets (stepping past a row can
    load the next page), so windows that fail are retried one rowid at a time: one
    bad page costs the rows it held, not the rest of the table.
    """
    try:
        last = conn.execute(f"SELECT max(rowid) FROM {_quoted(table)}").fetchone()[0] or 0
    except sqlite3.DatabaseError:
        last = None
    start, empty = 1, 0
    while start <= last if last is not None else empty < EMPTY_WINDOWS_TO_STOP:
        try:
            rows = conn.execute(f"{select} >= ? AND rowid < ?", (start, start + WINDOW)).fetchall()
        except sqlite3.DatabaseError:
            rows = [row for n in range(start, start + WINDOW) if (row := _row(conn, select, n))]
        empty = 0 if rows else empty + 1
        yield from rows
        start += WINDOW


def _row(conn: sqlite3.Connection, select: str, rowid: int) -> tuple | None:
    try:
        return conn.execute(f"{select} = ?", (rowid,)).fetchone()
    except sqlite3.DatabaseError:
        return None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
