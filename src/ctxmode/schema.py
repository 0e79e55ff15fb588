"""The per-project database: its numbered migrations and how to open it.

Migration N brings a database to `PRAGMA user_version` N. Append new migrations
at the end of `MIGRATIONS`; never edit one that has shipped.
"""

from __future__ import annotations

import sqlite3

from ctxmode import db, project


def _v1_meta(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


MIGRATIONS: list[db.Migration] = [
    _v1_meta,
]


def open_project_db(root: str) -> sqlite3.Connection:
    """Open the database of the resolved project `root`, recording the root in `meta`."""
    conn = db.open_database(project.project_db_path(root), MIGRATIONS)
    stored = conn.execute("SELECT value FROM meta WHERE key = 'project_root'").fetchone()
    if stored is None or stored[0] != root:
        with db.write_transaction(conn):
            conn.execute(
                "INSERT INTO meta(key, value) VALUES('project_root', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (root,),
            )
    return conn
