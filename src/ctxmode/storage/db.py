"""Opening ctxmode's SQLite files: WAL, busy timeout, numbered migrations, and what a failure means.

Standard library only. Every write goes through `write_transaction` (BEGIN
IMMEDIATE), which is what keeps several hook and server processes writing to one
file without "database is locked" errors.

Only damage is treated as damage: a file SQLite calls "not a database" or
"malformed", confirmed by an integrity check, is moved aside and what is still
readable is copied into a new one (`ctxmode.storage.salvage`). A full disk, an I/O error, a
read-only directory, missing permissions or a lock become a `DatabaseError` naming
the file and the cause, and the file stays where it is.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence

from ctxmode import paths
from ctxmode.errors import EXIT_LOCKED, EXIT_STORAGE, CtxmodeError

Migration = Callable[[sqlite3.Connection], None]

BUSY_TIMEOUT_S = 10.0
# How long one BEGIN IMMEDIATE waits inside SQLite before `_begin_immediate` retries it.
# SQLite's own wait backs off to 100 ms sleeps, so a writer that has waited a while polls
# far less often than newcomers and can starve for the whole timeout when many processes
# write in a loop; short attempts keep every waiter polling at the same few-ms pace.
_WRITE_ATTEMPT_MS = 20

# SQLite's primary result codes (the low byte of an extended code) that we tell apart.
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = (
    3, 5, 6, 8, 10, 11, 13, 14, 26,
)  # fmt: skip
# Python 3.10 has no `sqlite_errorcode`: the same codes recognised by SQLite's own wording.
_CODE_BY_MESSAGE = (
    ("file is not a database", _NOTADB),
    ("malformed", _CORRUPT),
    ("disk is full", _FULL),
    ("disk i/o error", _IOERR),
    ("unable to open database file", _CANTOPEN),
    ("readonly database", _READONLY),
    ("is locked", _BUSY),
)
# 0: an error without a code (raised by ctxmode itself, e.g. a file system without WAL).
_STORAGE_CODES = frozenset({0, _PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL,
                            _CANTOPEN, _NOTADB})  # fmt: skip
_CAUSES = {
    _FULL: "the disk is full",
    _IOERR: "the disk reported an I/O error (is it full or failing?)",
    _CANTOPEN: "it cannot be opened (read-only or missing directory, or no permission)",
    _READONLY: "it or its directory is read-only",
    _PERM: "permission denied",
    _BUSY: "another process holds it locked",
    _LOCKED: "another process holds it locked",
}
_OS_CAUSES = {
    errno.ENOSPC: "the disk is full",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EDQUOT: "the disk quota is exceeded",
}
STORAGE_ERRNOS = frozenset(_OS_CAUSES)


class Salvage:
    """What to copy out of a damaged database into its replacement.

    `tables`: (table, what its rows are called in the report, "" for unreported), parents
    before children so foreign keys hold; `finish` runs after the copy in the same
    transaction (e.g. to rebuild an index over the copied rows). `earlier_names`: the name
    a table had before a migration renamed it, read where a damaged file predates that.
    """

    def __init__(
        self,
        tables: tuple[tuple[str, str], ...],
        finish: Migration | None = None,
        earlier_names: dict[str, str] | None = None,
    ):
        self.tables = tables
        self.finish = finish
        self.earlier_names = earlier_names or {}


class DatabaseError(CtxmodeError):
    """A database could not be opened, written or read; the message names the file and why."""

    exit_code = EXIT_STORAGE


class DatabaseLocked(DatabaseError):
    """Another process held the database longer than the busy timeout."""

    exit_code = EXIT_LOCKED


def result_code(exc: sqlite3.Error) -> int:
    """SQLite's primary result code for `exc` (0 when unknown)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    text = str(exc).lower()
    return next((code for words, code in _CODE_BY_MESSAGE if words in text), 0)


def is_storage_trouble(exc: sqlite3.Error) -> bool:
    """Whether `exc` is about the file or the disk (full, I/O, permissions, a lock, damage)
    rather than a mistake in our SQL, which is a bug and reported as one."""
    return result_code(exc) in _STORAGE_CODES


def is_damage(exc: BaseException) -> bool:
    """Whether SQLite says the file is not a database or is malformed (still to be confirmed)."""
    return isinstance(exc, sqlite3.Error) and result_code(exc) in (_CORRUPT, _NOTADB)


def storage_error(path: str, exc: sqlite3.Error | OSError) -> DatabaseError:
    """One line naming `path` and the cause of `exc` (the caller leaves the file as it is)."""
    if isinstance(exc, OSError):
        cause = _OS_CAUSES.get(exc.errno or 0, exc.strerror or str(exc))
        return DatabaseError(f"{path}: {cause} ({exc})")
    code = result_code(exc)
    cause = _CAUSES.get(code, "SQLite refused it")
    if code in (_BUSY, _LOCKED):
        return DatabaseLocked(
            f"database {path}: {cause} for more than {BUSY_TIMEOUT_S:g} s (SQLite: {exc}); "
            "try again when it is done"
        )
    return DatabaseError(f"database {path}: {cause} (SQLite: {exc}); the file was left as it is")


def connect(path: str, timeout: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, NORMAL sync."""
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal" and path != ":memory:":
            raise sqlite3.OperationalError(f"could not switch {path} to WAL (got {mode})")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def reclaim_space(conn: sqlite3.Connection) -> bool:
    """Give the pages freed by a large delete back to the file system; False if it could not.

    VACUUM rewrites the file (and needs every other connection idle); the WAL checkpoint
    then empties the write-ahead log. A database busy elsewhere keeps its size until the
    next purge: what was deleted is gone either way.
    """
    try:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.OperationalError:
        return False
    return True


def file_bytes(path: str) -> int:
    """Bytes a database takes on disk: the file, its write-ahead log and shared memory."""
    total = 0
    for part in (path, path + "-wal", path + "-shm"):
        with contextlib.suppress(OSError):
            total += os.path.getsize(part)
    return total


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception.

    SQLite rolls a transaction back by itself after some errors (a full disk, an I/O
    error): then there is nothing left to roll back, and a failing ROLLBACK must not
    replace the error that explains what happened.
    """
    _begin_immediate(conn)
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def _begin_immediate(conn: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, retried in short attempts until the connection's busy timeout."""
    budget_ms = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    if budget_ms <= _WRITE_ATTEMPT_MS:
        conn.execute("BEGIN IMMEDIATE")
        return
    deadline = time.monotonic() + budget_ms / 1000
    conn.execute(f"PRAGMA busy_timeout = {_WRITE_ATTEMPT_MS}")
    try:
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if result_code(exc) not in (_BUSY, _LOCKED) or time.monotonic() >= deadline:
                    raise
                # A sub-millisecond pause varied per process so that waiters do not retry
                # in lockstep (the clock's low digits are as good as a random draw here).
                time.sleep((time.perf_counter_ns() % 1000) / 1_000_000)
    finally:
        conn.execute(f"PRAGMA busy_timeout = {budget_ms}")


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


def open_and_migrate(path: str, migrations: Sequence[Migration]) -> sqlite3.Connection:
    """`connect` + `migrate`, with no recovery: SQLite's own exceptions propagate."""
    conn = connect(path)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
        migrate(conn, migrations)
    except BaseException:
        conn.close()
        raise
    return conn


# What recoveries said, for the command line or the MCP reply to pass on (see `take_notices`).
# Appending to and slicing a list are atomic under the GIL: the server's threads can share it.
_notices: list[str] = []


def take_notices() -> list[str]:
    """What happened to the databases since the last call (e.g. a recovery), oldest first."""
    taken = _notices[:]
    del _notices[: len(taken)]
    return taken


def open_database(
    path: str, migrations: Sequence[Migration], salvage: Salvage | None = None
) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at `path`.

    A file SQLite finds damaged, confirmed by an integrity check, is moved aside
    (named in `<data root>/logs/db.log` and in a notice) and replaced by a new
    database holding what `salvage` could still read from it. Every other failure
    raises `DatabaseError` and leaves the file where it is.
    """
    try:
        paths.ensure_dir(os.path.dirname(os.path.abspath(path)))
    except OSError as exc:
        raise storage_error(path, exc) from None
    try:
        return open_and_migrate(path, migrations)
    except sqlite3.Error as exc:
        if not is_storage_trouble(exc):
            raise
        if not is_damage(exc) or not os.path.exists(path):
            raise storage_error(path, exc) from None
    from ctxmode.storage import salvage as repair

    conn, notice = repair.replace_if_damaged(path, migrations, salvage)
    if notice:
        _notices.append(notice)
    if conn is not None:
        return conn
    try:  # not damaged after all (or another process already replaced it): open it as it is
        return open_and_migrate(path, migrations)
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None


@contextlib.contextmanager
def storage_faults(
    path: str, migrations: Sequence[Migration], salvage: Salvage | None = None
) -> Iterator[None]:
    """Turn storage failures inside the block into `DatabaseError` naming `path`.

    Damage found in the middle of a call (a malformed page) is repaired like damage
    found on opening, and reported. Close the block's connections inside the block:
    a connection still open on a file that is moved aside would write into it.
    """
    try:
        yield
    except sqlite3.Error as exc:
        if not is_storage_trouble(exc):
            raise
        if is_damage(exc) and os.path.exists(path):
            from ctxmode.storage import salvage as repair

            conn, notice = repair.replace_if_damaged(path, migrations, salvage)
            if conn is not None:
                conn.close()
            if notice:
                raise DatabaseError(f"{notice}; run it again") from None
        raise storage_error(path, exc) from None
