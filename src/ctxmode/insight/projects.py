"""The projects of a data root, each opened read-only: the dashboard never writes through these.

A project is one `<data root>/projects/<key>.db`; its root directory is the one the
database recorded in `meta`. Connections use SQLite's `mode=ro`, so even a bug in a
page cannot change what the hooks and the MCP server stored.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar, cast
from urllib.parse import quote

from ctxmode import paths
from ctxmode.errors import CtxmodeError
from ctxmode.storage import schema


class ProjectNotFound(CtxmodeError, LookupError):
    """No project with that key has a database under this data root."""


ALL = "all"
# Schema versions the pages can read (a database is migrated when ctxmode next writes to it;
# the dashboard, read-only, reads older ones as they are).
OLDEST_READABLE = 5
T = TypeVar("T")


@dataclass(frozen=True)
class Project:
    key: str  # the database file's name without `.db`
    root: str  # the project directory the database belongs to ("" if it never said)
    db_path: str

    @property
    def name(self) -> str:
        return os.path.basename(self.root.rstrip("/")) or self.key


def connect_read_only(db_path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(
        f"file:{quote(db_path)}?mode=ro", uri=True, timeout=5.0, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA query_only = ON")
    return conn


def _recorded_root(db_path: str) -> str | None:
    """The project root a database recorded; None if it is not a current ctxmode database."""
    try:
        with contextlib.closing(connect_read_only(db_path)) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if not OLDEST_READABLE <= version <= len(schema.MIGRATIONS):
                return None
            row = conn.execute("SELECT value FROM meta WHERE key = 'project_root'").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else ""


def discover(data_root: str | None = None) -> list[Project]:
    """Every readable, current project database under the data root, by root directory."""
    directory = os.path.join(data_root or paths.data_root(), "projects")
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".db"))
    except OSError:
        return []
    found = []
    for name in names:
        db_path = os.path.join(directory, name)
        root = _recorded_root(db_path)
        if root is not None:
            found.append(Project(name[: -len(".db")], root, db_path))
    return sorted(found, key=lambda p: (p.root, p.key))


@dataclass(frozen=True)
class Scope:
    """What one page shows: one project, or every project of the data root (`key` "all")."""

    key: str
    projects: tuple[Project, ...]

    @property
    def is_all(self) -> bool:
        return self.key == ALL

    def connections(self) -> Iterator[tuple[Project, sqlite3.Connection]]:
        """Each project with a read-only connection, closed when the caller moves on."""
        for item in self.projects:
            try:
                conn = connect_read_only(item.db_path)
            except sqlite3.Error:
                continue
            try:
                yield item, conn
            finally:
                conn.close()

    @cached_property
    def keys(self) -> frozenset[str]:
        return frozenset(p.key for p in self.projects)


def owner_of(directory: str, known: list[Project]) -> Project | None:
    """The project whose root holds `directory` (the deepest such root), if any."""
    holders = [
        item
        for item in known
        if (root := item.root.rstrip("/"))
        and (directory == root or directory.startswith(root + "/"))
    ]
    return max(holders, key=lambda item: len(item.root.rstrip("/")), default=None)


class PerFileCache:
    """Results computed from a database, reused until its file or write-ahead log changes.

    Every commit touches the `-wal` file (and a checkpoint the main file), so their sizes
    and modification times tell whether anything could have changed.
    """

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], tuple[tuple, object]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _state(db_path: str) -> tuple:
        state: list[tuple[int, int, int] | None] = []
        for path in (db_path, db_path + "-wal"):
            try:
                info = os.stat(path)
                state.append((info.st_ino, info.st_size, info.st_mtime_ns))
            except OSError:
                state.append(None)
        return tuple(state)

    def get(self, db_path: str, name: str, compute: Callable[[], T]) -> T:
        state = self._state(db_path)
        with self._lock:
            found = self._entries.get((db_path, name))
        if found is not None and found[0] == state:
            return cast(T, found[1])  # each name always caches the one type its compute returns
        value = compute()
        with self._lock:
            self._entries[(db_path, name)] = (state, value)
        return value


def scope_for(key: str, known: list[Project]) -> Scope:
    if key == ALL:
        return Scope(ALL, tuple(known))
    chosen = tuple(p for p in known if p.key == key)
    if not chosen:
        raise ProjectNotFound(f"no project {key!r} in this data root")
    return Scope(key, chosen)
