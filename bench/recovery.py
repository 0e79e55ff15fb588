"""Recovery benchmark: how much of a damaged project database comes back, and how fast.

Run: `.venv/bin/python bench/recovery.py` (options: `--sources 2000`, `--every 10`).

Builds a project database through the real knowledge base (`--sources` documents, a few
sections each, plus session events), overwrites every `--every`-th leaf page of its
chunks with garbage, then lets a real read find the damage: the integrity check
confirms it, the file is moved aside and what is readable is copied into a new one.
Prints what came back against what was there, and the repair time against the time
SQLite's own backup takes to copy the healthy file (measured in the same run).
Exit code 0: a benchmark, not a gate.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from ctxmode.storage import db, project, schema
from ctxmode.store.knowledge import KnowledgeBase
from support.damage import damage_pages


def build(root: str, sources: int) -> None:
    with schema.project_database(root) as conn:
        kb = KnowledgeBase(conn)
        for i in range(sources):
            body = "".join(f"## Part {p}\n\n" + f"alpha beta marker{i} " * 150 for p in range(3))
            kb.index_text(f"doc-{i}", f"# Doc {i}\n\n{body}", "markdown")
        with db.write_transaction(conn):
            conn.executemany(
                "INSERT INTO session_events(session_id, category, type, data, data_hash, "
                "created_at) VALUES ('s1', 'file', 'file_read', ?, ?, 0)",
                [(f"read {i}", str(i)) for i in range(sources)],
            )


def counts(path: Path) -> tuple[int, int, int]:
    conn = sqlite3.connect(path)
    try:
        return tuple(  # type: ignore[return-value]
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("kb_sources", "kb_chunk_rows", "session_events")
        )
    finally:
        conn.close()


def backup_seconds(path: Path, scratch: Path) -> float:
    started = time.perf_counter()
    source, target = sqlite3.connect(path), sqlite3.connect(scratch / "copy.db")
    source.backup(target)
    source.close()
    target.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sources", type=int, default=2000)
    parser.add_argument("--every", type=int, default=10)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="ctxmode-recovery-"))
    os.environ["CTXMODE_DIR"] = str(scratch / "data")
    root = str(scratch / "project")
    os.makedirs(root)
    try:
        build(root, args.sources)
        path = Path(project.project_db_path(root))
        before = counts(path)
        baseline = backup_seconds(path, scratch)
        damaged = damage_pages(path, "kb_chunk_rows", every=args.every)
        started = time.perf_counter()
        try:
            with schema.project_database(root) as conn:
                conn.execute("SELECT count(*) FROM kb_chunks WHERE content LIKE '%?%'").fetchone()
        except db.DatabaseError:
            pass
        repair = time.perf_counter() - started
        after = counts(path)
        print(f"database: {path.stat().st_size / 1e6:.1f} MB, {damaged} chunk pages damaged")
        for name, was, now in zip(
            ("sources", "chunks", "session events"), before, after, strict=True
        ):
            print(f"{name:15} {now:6} of {was:6} recovered ({now / max(was, 1):.1%})")
        print(f"repair: {repair:.2f} s; healthy backup copy: {baseline:.2f} s "
              f"(ratio {repair / max(baseline, 1e-9):.1f}x)")  # fmt: skip
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
