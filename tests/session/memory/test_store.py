"""The SQLite store: sessions, entries, secret filtering on write, compaction, concurrency."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmode.session.memory.store import MemoryStore, SessionNotFound


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    with MemoryStore(str(tmp_path / "memory.db")) as opened:
        yield opened


def test_entries_are_kept_in_order_with_their_roles(store: MemoryStore, tmp_path: Path) -> None:
    store.ensure("s", str(tmp_path))
    store.record("s", "user", "find the failing import")
    store.record("s", "checkpoint", "starts at 02:13", verified=False)
    store.record("s", "tool", "$ grep ...")
    roles = [(e.role, e.verified) for e in store.entries("s")]
    assert roles == [("user", None), ("checkpoint", False), ("tool", None)]
    assert [e.content for e in store.entries("s", newest=2)] == ["starts at 02:13", "$ grep ..."]


def test_secrets_are_filtered_before_they_are_written(store: MemoryStore, tmp_path: Path) -> None:
    store.ensure("s", str(tmp_path))
    store.record("s", "tool", "DB_PASSWORD=hunter2 curl -H 'Authorization: Bearer abc123'")
    store.set_summary("s", "token: ghp_" + "a1" * 18)
    raw = b"".join(Path(store.path).read_bytes() for _ in [0])
    wal = Path(store.path + "-wal")
    raw += wal.read_bytes() if wal.exists() else b""
    assert b"hunter2" not in raw and b"abc123" not in raw and b"a1a1a1" not in raw
    assert store.require("s").summary == "token: [FILTERED]"


def test_private_addresses_are_filtered_when_configured(tmp_path: Path) -> None:
    with MemoryStore(str(tmp_path / "m.db"), private_networks=True) as store:
        store.ensure("s", str(tmp_path))
        store.record("s", "tool", "connect 10.2.3.4 failed")
        assert store.entries("s")[0].content == "connect [FILTERED] failed"


def test_recording_into_a_missing_session_fails_cleanly(store: MemoryStore) -> None:
    with pytest.raises(SessionNotFound):
        store.record("nope", "user", "x")
    with pytest.raises(ValueError, match="role must be one of"):
        store.record("nope", "assistant", "x")


def test_delete_removes_the_session_and_its_entries(store: MemoryStore, tmp_path: Path) -> None:
    store.ensure("s", str(tmp_path))
    store.record("s", "user", "x")
    assert store.delete("s") is True
    assert store.get("s") is None and store.count("s") == 0
    assert store.delete("s") is False


def test_rebind_moves_the_workspace(store: MemoryStore, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    store.ensure("s", str(tmp_path))
    assert store.rebind("s", str(other)).workspace == os.path.realpath(other)


def test_compact_keeps_half_a_window_and_folds_the_rest_into_key_terms(
    store: MemoryStore, tmp_path: Path
) -> None:
    store.ensure("s", str(tmp_path))
    store.set_summary("s", "investigating importer failures")
    for i in range(10):
        store.record("s", "tool", f"importer crashed on batch {i}: ENOSPC on /var/spool")
    store.record("s", "checkpoint", "disk full is the cause", verified=True)
    store.record("s", "user", "now check the retention job")
    folded, kept = store.compact("s", window=8)
    assert (folded, kept) == (9, 4)
    assert store.count("s") == 4
    summary = store.require("s").summary
    assert summary.startswith("key terms: importer")
    assert "ENOSPC" in summary and "checkpoints: disk full is the cause" not in summary
    assert "9 entries compacted" in summary
    # The checkpoint was among the kept four, so it is still an entry.
    assert any(e.role == "checkpoint" for e in store.entries("s"))


WRITER = """
import sys
from ctxmode.commands.session import command
sys.stdin.readline()  # every writer starts when the test says go
for i in range(int(sys.argv[2])):
    try:
        command.main(["record", "--session", "shared", "--role", "tool",
                      "--content", f"writer {sys.argv[1]} entry {i}"], standalone_mode=False)
    except SystemExit:
        pass
"""


def test_eight_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    writers, per_writer = 8, 200
    workdir = tmp_path / "work"
    workdir.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(w), str(per_writer)],
            cwd=workdir,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for w in range(writers)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        proc.stdin.close()
    errors = []
    for proc in procs:
        assert proc.stderr is not None
        errors.append(proc.stderr.read().decode())
        proc.stderr.close()
        proc.wait(timeout=240)
    failures = "\n".join(error for error in errors if "Traceback" in error)
    assert [proc.returncode for proc in procs] == [0] * writers, failures
    with MemoryStore() as store:
        contents = [e.content for e in store.entries("shared")]
        assert store.all_sessions()[0][0].workspace == os.path.realpath(workdir)
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert len(contents) == writers * per_writer
    assert set(contents) == {
        f"writer {w} entry {i}" for w in range(writers) for i in range(per_writer)
    }
    for w in range(writers):  # each writer's entries are in the order it wrote them
        mine = [c for c in contents if c.startswith(f"writer {w} ")]
        assert mine == [f"writer {w} entry {i}" for i in range(per_writer)]
