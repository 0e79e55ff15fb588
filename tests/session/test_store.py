"""Session storage: de-duplication, the priority cap, redaction, retention, snapshots, purge."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxmode.session import purge_rows, stats_section, store
from ctxmode.session.model import CRITICAL, LOW, NORMAL, Captured
from ctxmode.storage import db, schema


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = schema.open_project_db(str(tmp_path))
    yield connection
    connection.close()


def add(conn: sqlite3.Connection, sid: str, *events: Captured) -> list[int | None]:
    with db.write_transaction(conn):
        store.touch_session(conn, sid, "/p", "test")
        return store.insert_events(conn, sid, list(events))


def stored(conn: sqlite3.Connection, sid: str) -> list[tuple[str, str]]:
    return [(e.type, e.data) for e in store.load_events(conn, sid)]


def test_immediate_repeats_are_skipped_but_later_ones_kept(conn: sqlite3.Connection) -> None:
    read = Captured("file", "file_read", NORMAL, "a.py")
    assert add(conn, "s", read, read)[1] is None
    for i in range(5):
        add(conn, "s", Captured("file", "file_read", NORMAL, f"other{i}.py"))
    assert add(conn, "s", read)[0] is not None
    assert stored(conn, "s").count(("file_read", "a.py")) == 2


def test_the_cap_evicts_the_least_important_first(
    conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXMODE_SESSION_EVENT_CAP", "10")
    add(conn, "s", Captured("prompt", "user_prompt", CRITICAL, "the first request"))
    add(conn, "s", Captured("file", "file_edit", CRITICAL, "src/core.py"))
    for i in range(30):
        add(conn, "s", Captured("file", "file_search", LOW, f"noise {i}"))
    rows = stored(conn, "s")
    assert len(rows) == 10
    assert ("user_prompt", "the first request") in rows and ("file_edit", "src/core.py") in rows
    assert ("file_search", "noise 29") in rows and ("file_search", "noise 0") not in rows
    assert store.meta(conn, "s")["event_count"] == 10


SECRETS = {
    "token": "use ghp_abcdefghijklmnopqrstuvwxyz0123456789 to push",
    "key": "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    "password": "mysql -u root --password hunter2pw",
    "header": "curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://api.x.dev",
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----",
    "dsn": "DATABASE_URL=postgres://app:s3cr3tpass@db.internal:5432/app",
}


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_secrets_are_redacted_before_storage(conn: sqlite3.Connection, name: str) -> None:
    add(conn, "s", Captured("prompt", "user_prompt", CRITICAL, SECRETS[name]))
    data = stored(conn, "s")[0][1]
    assert "[FILTERED]" in data
    for secret in (
        "ghp_abcdefghij",
        "sk-proj-abc",
        "hunter2pw",
        "abcdef0123456789abcdef",
        "MIIEowIBAAK",
        "s3cr3tpass",
    ):
        assert secret not in data


def test_text_without_secret_hints_is_stored_verbatim(conn: sqlite3.Connection) -> None:
    add(conn, "s", Captured("prompt", "user_prompt", CRITICAL, "Fix the parser, keep it small"))
    assert stored(conn, "s") == [("user_prompt", "Fix the parser, keep it small")]


def test_idle_sessions_are_found_by_last_activity(conn: sqlite3.Connection) -> None:
    add(conn, "old", Captured("prompt", "user_prompt", CRITICAL, "x"))
    add(conn, "fresh", Captured("prompt", "user_prompt", CRITICAL, "y"))
    with db.write_transaction(conn):
        conn.execute(
            "UPDATE session_meta SET last_event_at = ? WHERE session_id = 'old'",
            (time.time() - 9 * 86400,),
        )
    assert store.idle_sessions(conn, 7) == ["old"]
    with db.write_transaction(conn):
        store.delete_sessions(conn, ["old"])
    assert stored(conn, "old") == [] and stored(conn, "fresh")


def test_the_newest_unconsumed_snapshot_is_claimed_once(conn: sqlite3.Connection) -> None:
    with db.write_transaction(conn):
        for sid, text in (("a", "guide A"), ("b", "guide B")):
            store.touch_session(conn, sid, "/p", "t")
            store.save_snapshot(conn, sid, text, 2048, 1)
        conn.execute(
            "UPDATE session_snapshots SET created_at = created_at + 10 WHERE session_id = 'b'"
        )
    with db.write_transaction(conn):
        assert store.claim_newest_snapshot(conn, "new") == ("b", "guide B")
        assert store.claim_newest_snapshot(conn, "new2") == ("a", "guide A")
        assert store.claim_newest_snapshot(conn, "new3") is None
    assert store.meta(conn, "a")["compact_count"] == 1


def test_stats_section_and_purge(conn: sqlite3.Connection) -> None:
    add(
        conn,
        "s1",
        Captured("prompt", "user_prompt", CRITICAL, "x"),
        Captured("file", "file_edit", CRITICAL, "a"),
    )
    add(conn, "s2", Captured("prompt", "user_prompt", CRITICAL, "y"))
    with db.write_transaction(conn):
        store.save_snapshot(conn, "s1", "guide", 2048, 2)
        store.record_injection(conn, "s1", 5)
    report = stats_section(conn, None)
    assert "sessions: 2" in report and "compactions: 1" in report and "(5 bytes)" in report
    assert "prompt 2" in report and "file 1" in report
    assert "prompt 1" in stats_section(conn, "s2")
    assert purge_rows(conn, "s1") >= 3
    assert stored(conn, "s1") == [] and stored(conn, "s2")
    assert purge_rows(conn, None) >= 2
    assert "No session events" in stats_section(conn, None)
