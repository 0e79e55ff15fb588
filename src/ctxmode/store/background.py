"""Index one file for a hook: `main([project_root, path, label])` when started detached.

`ctxmode.hooks.bigread` calls `index_file` directly for files it can index within a
hook's time, and starts `main` detached for bigger ones. Both skip the work when the file is already
indexed under `label` at its current size and mtime. Failures go to the log.
"""

from __future__ import annotations

import os

from ctxmode import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

LOG = "index-errors.log"


def main(argv: list[str]) -> None:
    index_file(*argv)


def index_file(project_root: str, path: str, label: str) -> bool:
    """Index `path` as `label` unless it already is at its current size and mtime."""
    try:
        from ctxmode.store.knowledge import KnowledgeBase

        with KnowledgeBase.open(project_root) as kb:
            if not _fresh(kb.conn, label, path):
                kb.index_file(path, label=label)
    except Exception as error:
        paths.append_log(LOG, f"indexing {path} as {label!r} failed: {error!r}")
        return False
    return True


def _fresh(conn: sqlite3.Connection, label: str, path: str) -> bool:
    info = os.stat(path)
    row = conn.execute(
        "SELECT file_size, file_mtime FROM kb_sources WHERE label = ?", (label,)
    ).fetchone()
    return row is not None and row[0] == info.st_size and row[1] == info.st_mtime
