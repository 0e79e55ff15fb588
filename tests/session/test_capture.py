"""The hook-level entry points: startup rules and retention, history indexing, prompt fallback."""

from __future__ import annotations

import time
from pathlib import Path

from ctxmode.session import capture, store
from ctxmode.storage import db, schema
from ctxmode.store.knowledge import KnowledgeBase
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import HookEvent


def hook(root: Path, name: str, sid: str = "s", **fields: object) -> HookEvent:
    return HookEvent("claude-code", name, session_id=sid, project_dir=str(root), **fields)  # type: ignore[arg-type]


def test_startup_records_instruction_files_and_drops_idle_sessions(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("Always use tabs.\n")
    (tmp_path / "AGENTS.md").write_text("Run make check.\n")
    capture.capture_prompt(hook(tmp_path, ev.USER_PROMPT_SUBMIT, sid="stale", prompt="old work"))
    capture.pre_compact(hook(tmp_path, ev.PRE_COMPACT, sid="stale"))
    conn = schema.open_project_db(str(tmp_path))
    try:
        with db.write_transaction(conn):
            conn.execute(
                "UPDATE session_meta SET last_event_at = ? WHERE session_id = 'stale'",
                (time.time() - 30 * 86400,),
            )
        assert KnowledgeBase(conn).get_source("session-events:stale") is not None
    finally:
        conn.close()

    assert (
        capture.session_start(hook(tmp_path, ev.SESSION_START, sid="new", source="startup")) == ""
    )

    conn = schema.open_project_db(str(tmp_path))
    try:
        rules = [
            (e.type, e.data.split("\n")[0])
            for e in store.load_events(conn, "new")
            if e.category == "rule"
        ]
        assert ("rule", "CLAUDE.md") in rules and ("rule", "AGENTS.md") in rules
        assert ("rule_content", "CLAUDE.md") in rules
        assert store.load_events(conn, "stale") == [] and store.meta(conn, "stale") == {}
        assert KnowledgeBase(conn).get_source("session-events:stale") is None
    finally:
        conn.close()


def test_the_full_history_is_searchable_after_compaction(tmp_path: Path) -> None:
    capture.capture_prompt(
        hook(tmp_path, ev.USER_PROMPT_SUBMIT, prompt="Migrate the zanzibar importer")
    )
    for i in range(60):
        capture.capture_tool_call(
            hook(
                tmp_path,
                ev.POST_TOOL_USE,
                tool="Read",
                tool_input={"file_path": f"/x/quokka_{i}.py"},
            )
        )
    guide = capture.pre_compact(hook(tmp_path, ev.PRE_COMPACT), budget=600)
    assert "quokka_0.py" not in guide  # left out of the small guide ...
    with KnowledgeBase.open(str(tmp_path)) as kb:
        hits = kb.search(["quokka_0"], source="session-events")[0].hits
    assert hits and "quokka_0" in hits[0].snippet  # ... but found by search


def test_a_prompt_after_compaction_gets_the_guide_once_when_the_host_can_show_it(
    tmp_path: Path,
) -> None:
    capture.capture_prompt(hook(tmp_path, ev.USER_PROMPT_SUBMIT, prompt="Port the CLI to click"))
    capture.pre_compact(hook(tmp_path, ev.PRE_COMPACT))
    silent = capture.capture_prompt(
        hook(tmp_path, ev.USER_PROMPT_SUBMIT, prompt="go on"), can_show=False
    )
    assert silent == ""
    shown = capture.capture_prompt(
        hook(tmp_path, ev.USER_PROMPT_SUBMIT, prompt="go on"), can_show=True
    )
    assert "Port the CLI to click" in shown
    assert (
        capture.capture_prompt(hook(tmp_path, ev.USER_PROMPT_SUBMIT, prompt="more"), can_show=True)
        == ""
    )


def test_a_corrupt_database_is_replaced_and_capture_goes_on(tmp_path: Path) -> None:
    from ctxmode.storage import project

    capture.capture_prompt(hook(tmp_path, ev.USER_PROMPT_SUBMIT, prompt="first"))
    db_path = Path(project.project_db_path(project.resolve_project_root(cwd=str(tmp_path))))
    for suffix in ("-wal", "-shm"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)
    db_path.write_bytes(b"this is not a database" * 100)
    capture.capture_prompt(hook(tmp_path, ev.USER_PROMPT_SUBMIT, prompt="second"))
    conn = schema.open_project_db(str(tmp_path))
    try:
        assert [e.data for e in store.load_events(conn, "s") if e.type == "user_prompt"] == [
            "second"
        ]
    finally:
        conn.close()
    assert list(db_path.parent.glob(db_path.name + ".corrupt-*"))
