import hashlib
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmode import paths
from ctxmode.session.memory.store import MEMORY_MIGRATIONS, MEMORY_SALVAGE, MemoryStore
from ctxmode.storage import db, project, salvage, schema
from ctxmode.store.knowledge import KnowledgeBase
from support.damage import damage_pages


@pytest.fixture(autouse=True)
def no_notices_left_behind():
    """Recoveries here leave notices for the next command: take them, as a command would."""
    yield
    db.take_notices()


def test_fresh_database_is_wal_and_migrated(tmp_path):
    conn = db.open_database(str(tmp_path / "x.db"), schema.MIGRATIONS)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(schema.MIGRATIONS)


def test_migrations_apply_in_place_on_an_older_database(tmp_path):
    path = str(tmp_path / "x.db")
    calls = []

    def first(conn):
        conn.execute("CREATE TABLE a (x)")

    def second(conn):
        calls.append("second")
        conn.execute("ALTER TABLE a ADD COLUMN y")

    db.open_database(path, [first]).close()
    conn = db.open_database(path, [first, second])
    assert calls == ["second"]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    conn.execute("INSERT INTO a(x, y) VALUES (1, 2)")


def test_newer_schema_than_known_is_a_clear_error(tmp_path):
    path = str(tmp_path / "x.db")
    db.open_database(path, [lambda c: None, lambda c: None]).close()
    with pytest.raises(db.DatabaseError, match="newer"):
        db.open_database(path, [lambda c: None])


def test_corrupt_file_is_moved_aside_and_recreated(tmp_path, data_root):
    path = tmp_path / "x.db"
    path.write_bytes(b"this is not a database at all" * 100)
    conn = db.open_database(str(path), schema.MIGRATIONS)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(schema.MIGRATIONS)
    kept = [p for p in os.listdir(tmp_path) if ".corrupt-" in p]
    assert len(kept) == 1
    assert (tmp_path / kept[0]).read_bytes().startswith(b"this is not a database")
    log = Path(paths.logs_dir(), "db.log").read_text()
    assert kept[0] in log


def test_failed_write_transaction_rolls_back(tmp_path):
    conn = db.open_database(str(tmp_path / "x.db"), schema.MIGRATIONS)
    with pytest.raises(RuntimeError), db.write_transaction(conn):
        conn.execute("INSERT INTO meta VALUES ('k', 'v')")
        raise RuntimeError("boom")
    assert conn.execute("SELECT count(*) FROM meta WHERE key='k'").fetchone()[0] == 0


def test_concurrent_openers_migrate_once(tmp_path):
    path = tmp_path / "x.db"
    code = (
        "import sys; from ctxmode.storage import db, schema\n"
        "c = db.open_database(sys.argv[1], schema.MIGRATIONS)\n"
        "print(c.execute('PRAGMA user_version').fetchone()[0])\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert outs == [str(len(schema.MIGRATIONS))] * 6
    assert sqlite3.connect(path).execute("SELECT count(*) FROM meta").fetchone()[0] == 0


def test_project_db_records_its_root(tmp_path, data_root):
    conn = schema.open_project_db(str(tmp_path))
    assert conn.execute("SELECT value FROM meta WHERE key='project_root'").fetchone()[0] == str(
        tmp_path
    )
    assert str(data_root) in conn.execute("PRAGMA database_list").fetchone()[2]


def _project_with_history(root: Path, sources: int = 60) -> None:
    with schema.project_database(str(root)) as conn:
        kb = KnowledgeBase(conn)
        for i in range(sources):
            # hex words: chunk text is stored compressed, and this must still fill pages
            words = " ".join(
                hashlib.sha256(f"{i}.{n}".encode()).hexdigest()[:8] for n in range(300)
            )
            body = f"# Doc {i}\n\nalpha beta gamma marker{i} {words}\n"
            kb.index_text(f"doc-{i}", body, "markdown")
        with db.write_transaction(conn):
            conn.executemany(
                "INSERT INTO session_events(session_id, category, type, data, data_hash, "
                "created_at) VALUES ('s1', 'file', 'file_read', ?, ?, 0)",
                [(f"read {i}", str(i)) for i in range(25)],
            )


def _aside(directory: Path) -> list[str]:
    return [name for name in os.listdir(directory) if ".corrupt-" in name]


def test_damaged_pages_found_mid_call_are_repaired_and_what_was_readable_kept(tmp_path):
    _project_with_history(tmp_path)
    path = Path(project.project_db_path(str(tmp_path)))
    assert damage_pages(path, "kb_chunk_rows") > 0
    with pytest.raises(db.DatabaseError) as caught, schema.project_database(str(tmp_path)) as c:
        c.execute("SELECT count(*) FROM kb_chunks WHERE content LIKE '%nothing%'").fetchone()
    message = str(caught.value)
    assert "was damaged" in message and "run it again" in message
    assert re.search(r"recovered \d+ sources, \d+ chunks, 25 session events", message)
    assert len(_aside(path.parent)) == 1
    with schema.project_database(str(tmp_path)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kept = conn.execute("SELECT count(*) FROM kb_sources").fetchone()[0]
        assert 0 < kept < 60
        label = conn.execute("SELECT label FROM kb_sources LIMIT 1").fetchone()[0]
        hits = KnowledgeBase(conn).search([f"marker{label.split('-')[1]}"], limit=1)[0].hits
        assert hits and hits[0].source == label
    assert "was damaged" in Path(paths.logs_dir(), "db.log").read_text()


def test_a_damaged_file_from_before_chunk_text_was_packed_hands_on_its_chunks(tmp_path):
    # Migration 8 renamed kb_chunks to kb_chunk_rows: an older damaged file is read by the
    # old name, its plain text copied into the new table (read back unchanged).
    root = str(tmp_path)
    path = Path(project.project_db_path(root))
    before_packing = schema.MIGRATIONS[: schema.MIGRATIONS.index(schema._v8_packed_chunks)]
    old = db.open_database(str(path), before_packing)
    with db.write_transaction(old):
        for i in range(60):
            source = old.execute(
                "INSERT INTO kb_sources(label, indexed_at, last_used_at, chunk_count) "
                "VALUES (?, 0, 0, 1)",
                (f"doc-{i}",),
            ).lastrowid
            body = f"alpha marker{i} " + " ".join(f"w{i}x{n}" for n in range(400))
            old.execute(
                "INSERT INTO kb_chunks(source_id, title, content, terms, kind) "
                "VALUES (?, ?, ?, '', 'prose')",
                (source, f"Doc {i}", body),
            )
    old.close()
    assert damage_pages(path, "kb_chunks") > 0
    with schema.project_database(root) as conn:  # repaired as it opens
        chunks = conn.execute("SELECT count(*) FROM kb_chunk_rows").fetchone()[0]
        assert 0 < chunks < 60
        label = conn.execute("SELECT label FROM kb_sources LIMIT 1").fetchone()[0]
        hits = KnowledgeBase(conn).search([f"marker{label.split('-')[1]}"], limit=1)[0].hits
        assert hits and hits[0].source == label
    assert len(_aside(path.parent)) == 1


def test_a_file_that_passes_the_integrity_check_is_never_moved(tmp_path):
    _project_with_history(tmp_path, sources=2)
    root = str(tmp_path)
    path = project.project_db_path(root)
    claimed = sqlite3.DatabaseError("database disk image is malformed")
    with pytest.raises(db.DatabaseError, match="left as it is"), schema.project_database(root):
        raise claimed
    assert _aside(Path(path).parent) == []
    with schema.project_database(str(tmp_path)) as conn:
        assert conn.execute("SELECT count(*) FROM kb_sources").fetchone()[0] == 2


def test_a_second_repair_leaves_the_replacement_alone(tmp_path):
    path = tmp_path / "x.db"
    path.write_bytes(b"garbage" * 1000)
    conn, notice = salvage.replace_if_damaged(str(path), schema.MIGRATIONS, None)
    assert conn is not None and "moved it aside" in (notice or "")
    conn.close()
    assert salvage.replace_if_damaged(str(path), schema.MIGRATIONS, None) == (None, None)
    assert len(_aside(tmp_path)) == 1


def test_a_full_database_is_reported_as_full_not_as_a_failed_rollback(tmp_path):
    path = str(tmp_path / "x.db")
    conn = db.open_database(path, schema.MIGRATIONS)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 1}")  # SQLite's own SQLITE_FULL
    with (
        pytest.raises(db.DatabaseError) as caught,
        db.storage_faults(path, schema.MIGRATIONS),
        db.write_transaction(conn),
    ):
        conn.execute("INSERT INTO meta VALUES ('k', ?)", ("x" * 100_000,))
    assert "disk is full" in str(caught.value) and "rollback" not in str(caught.value)
    assert path in str(caught.value)
    assert not conn.in_transaction and _aside(tmp_path) == []


def test_an_unusable_directory_is_a_clear_error_and_nothing_moves(tmp_path):
    blocker = tmp_path / "projects"
    blocker.write_text("a file where the directory should be")
    with pytest.raises(db.DatabaseError, match=r"projects/x\.db: "):
        db.open_database(str(blocker / "x.db"), schema.MIGRATIONS)
    assert blocker.read_text() == "a file where the directory should be"


def test_result_codes_tell_damage_from_trouble():
    assert db.is_damage(sqlite3.DatabaseError("file is not a database"))
    for text in ("disk I/O error", "database or disk is full", "unable to open database file",
                 "attempt to write a readonly database", "database is locked"):  # fmt: skip
        assert not db.is_damage(sqlite3.OperationalError(text)), text
    locked = db.storage_error("/x.db", sqlite3.OperationalError("database is locked"))
    assert isinstance(locked, db.DatabaseLocked) and locked.exit_code == 5


def test_a_damaged_memory_database_keeps_its_readable_sessions(tmp_path):
    path = tmp_path / "memory.db"
    with MemoryStore(str(path)) as store:
        for i in range(40):
            store.ensure(f"s{i}", str(tmp_path))
            store.record(f"s{i}", "user", f"finding {i} " * 300)
    damage_pages(path, "messages", every=4)
    with (
        pytest.raises(db.DatabaseError, match=r"recovered 40 sessions, \d+ entries"),
        db.storage_faults(str(path), MEMORY_MIGRATIONS, MEMORY_SALVAGE),
        MemoryStore(str(path)) as store,
    ):
        store.conn.execute("SELECT count(*) FROM messages WHERE content LIKE '%x%'").fetchone()
    with MemoryStore(str(path)) as store:
        kept = sum(count for _session, count in store.all_sessions())
        assert 20 < kept < 40


def test_a_mistake_in_our_sql_is_a_bug_not_storage_trouble(tmp_path):
    path = str(tmp_path / "x.db")
    conn = db.open_database(path, schema.MIGRATIONS)
    with (
        pytest.raises(sqlite3.OperationalError, match="no such column"),
        db.storage_faults(path, schema.MIGRATIONS),
    ):
        conn.execute("SELECT nope FROM meta").fetchone()
    assert _aside(tmp_path) == []
