import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmode import db, paths, schema


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
        "import sys; from ctxmode import db, schema\n"
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
