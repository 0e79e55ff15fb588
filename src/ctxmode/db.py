"""Opening ctxmode's SQLite files: WAL, busy timeout, numbered migrations, corruption recovery.

Standard library only. Every write goes through `write_transaction` (BEGIN
IMMEDIATE), which is what keeps several hook and server processes writing to one
file without "database is locked" errors.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence

from ctxmode import paths

Migration = Callable[[sqlite3.Connection], None]

BUSY_TIMEOUT_S = 10.0


class DatabaseError(RuntimeError):
    """A database could not be opened or migrated, even after recovery."""


def connect(path: str, timeout: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, NORMAL sync."""
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal" and path != ":memory:":
        raise sqlite3.DatabaseError(f"could not switch {path} to WAL (got {mode})")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> int:
    """Apply the migrations after `PRAGMA user_version`, each in its own transaction.

    Migration N (1-based) brings the schema to user_version N. Returns the final version.
    """
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(migrations):
        raise DatabaseError(
            f"database schema version {version} is newer than this ctxmode knows "
            f"({len(migrations)}); upgrade ctxmode"
        )
    while version < len(migrations):
        with write_transaction(conn):
            # Re-read inside the write lock: another process may have migrated meanwhile.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version >= len(migrations):
                break
            migrations[version](conn)
            version += 1
            conn.execute(f"PRAGMA user_version = {version}")
    return version


def _move_aside(path: str, reason: str) -> str:
    """Rename a broken database (and its -wal/-shm) out of the way; keep it for recovery."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = f"{path}.corrupt-{stamp}-{os.getpid()}"
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(path + suffix, target + suffix)
    paths.append_log(
        "db.log",
        f"[{time.strftime('%Y-%m-%dT%H:%M:%S')}] moved unreadable database {path} "
        f"aside to {target}: {reason}",
    )
    return target


def _open_and_migrate(path: str, migrations: Sequence[Migration]) -> sqlite3.Connection:
    conn = connect(path)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
        migrate(conn, migrations)
    except BaseException:
        conn.close()
        raise
    return conn


def open_database(path: str, migrations: Sequence[Migration]) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at `path`.

    A file that is not a database, or fails its integrity check, is moved aside
    (named in `<data root>/logs/db.log`) and a fresh database is created.
    """
    paths.ensure_dir(os.path.dirname(os.path.abspath(path)))
    try:
        return _open_and_migrate(path, migrations)
    except DatabaseError:
        raise
    except sqlite3.DatabaseError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise DatabaseError(f"database {path} is locked by another process: {exc}") from exc
        if not os.path.exists(path):
            raise DatabaseError(f"cannot open database {path}: {exc}") from exc
        _move_aside(path, str(exc))
    try:
        return _open_and_migrate(path, migrations)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot create database {path}: {exc}") from exc
