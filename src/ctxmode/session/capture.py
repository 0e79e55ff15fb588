"""Session continuity at each hook: capture events, build the snapshot, inject the guide.

Called by `ctxmode.hooks.handlers` with the normalized event; each entry point opens the
project database once and does all its writes in ONE transaction. Host-free: what a host
can show is passed in (`search_tool`, `can_show`).
"""

from __future__ import annotations

import os

from ctxmode import settings
from ctxmode.session import store
from ctxmode.session.model import CRITICAL, LOW, NOISE, NORMAL, Captured, clip, one_line
from ctxmode.storage import db

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from typing import TypeVar

    from ctxmode.vocab.event import HookEvent

    T = TypeVar("T")

DEFAULT_RETENTION_DAYS = 7.0
PROJECT_INSTRUCTION_FILES = (
    "CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", "QWEN.md",
    "KIMI.md", ".github/copilot-instructions.md",
)  # fmt: skip
HISTORY_LABEL = "session-events:"
HOOK_BUSY_MS = 3_000  # a host waits on its hook: better to lose one event than stall the tool call


def retention_days() -> float:
    return settings.number(settings.SESSION_RETENTION_DAYS)


def project_root(event: HookEvent) -> str:
    from ctxmode.storage import project

    return project.resolve_project_root(cwd=event.project_dir or None)


def open_db(event: HookEvent) -> sqlite3.Connection:
    """The project database, waiting at most HOOK_BUSY_MS for a lock (then the call is skipped).

    An existing, current database is opened directly: the full open (migrations, integrity
    check, recovery) scans the whole file, a cost that grows with the knowledge base and
    that every tool call would pay. Anything unusual takes the full path.
    """
    import sqlite3

    from ctxmode.storage import project, schema

    root = project_root(event)
    path = project.project_db_path(root)
    if os.path.exists(path):
        conn = None
        try:
            conn = db.connect(path, timeout=HOOK_BUSY_MS / 1000)
            if conn.execute("PRAGMA user_version").fetchone()[0] == len(schema.MIGRATIONS):
                return conn
        except sqlite3.DatabaseError:
            pass
        if conn is not None:
            conn.close()
    conn = schema.open_project_db(root)
    conn.execute(f"PRAGMA busy_timeout = {HOOK_BUSY_MS}")
    return conn


def _raw_text(event: HookEvent, *names: str) -> str:
    for name in names:
        value = event.raw.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


# ------------------------------------------------------------------ PostToolUse


def capture_tool_call(event: HookEvent) -> int:
    """Store what one tool call tells us; returns the number of events stored."""
    from ctxmode.session import detect
    from ctxmode.session.extract import ToolCall, tool_events

    if not event.tool:
        return 0
    call = ToolCall(event.tool, event.tool_input, event.tool_output, event.project_dir, event.raw)
    events = tool_events(call)
    conn = open_db(event)
    try:
        with db.write_transaction(conn):
            sid = event.session_id
            store.touch_session(conn, sid, event.project_dir, event.platform, tool_call=True)
            events = detect.cwd_change(conn, sid, event.project_dir) + events
            ids = store.insert_events(
                conn, sid, events, agent_id=event.agent_id, project_dir=event.project_dir
            )
            error_id = next(
                (i for e, i in zip(events, ids, strict=True) if e.type == "error_tool"), None
            )
            if error_id is None and any(e.type == "error_tool" for e in events):
                error_id = _last_error_id(conn, sid)  # a repeat: keep pointing at the stored one
            derived = detect.after_call(conn, sid, call, events, error_id)
            store.insert_events(
                conn, sid, derived, agent_id=event.agent_id, project_dir=event.project_dir
            )
        return len([i for i in ids if i is not None]) + len(derived)
    finally:
        conn.close()


def _last_error_id(conn: sqlite3.Connection, session_id: str) -> int | None:
    row = conn.execute(
        "SELECT id FROM session_events WHERE session_id = ? AND type = 'error_tool' ORDER BY id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return row[0] if row is not None else None


# ------------------------------------------------------------------ UserPromptSubmit


def capture_prompt(event: HookEvent, *, can_show: bool = False) -> str:
    """Store the prompt's events; returns a pending guide to inject ("" if none).

    A host with no SessionStart after compaction (it never sends `compact`) gets the
    guide on the first prompt after PreCompact instead, when it can show prompt context.
    """
    from ctxmode.session.prompts import prompt_events

    prompt = event.prompt or _raw_text(event, "prompt", "user_prompt", "message")
    events = prompt_events(prompt)
    conn = open_db(event)
    try:
        with db.write_transaction(conn):
            sid = event.session_id
            store.touch_session(conn, sid, event.project_dir, event.platform)
            pending = ""
            if can_show and not event.agent_id:
                pending = store.claim_snapshot(conn, sid, "prompt") or ""
                if pending:
                    store.record_injection(conn, sid, len(pending.encode("utf-8")))
            store.insert_events(
                conn, sid, events, agent_id=event.agent_id, project_dir=event.project_dir
            )
        return pending
    finally:
        conn.close()


# ------------------------------------------------------------------ Stop


def capture_stop(event: HookEvent) -> None:
    message = _raw_text(
        event, "last_assistant_message", "stopReason", "stop_reason", "prompt_response"
    )
    data = "turn ended" + (f": {one_line(message, 300)}" if message else "")
    conn = open_db(event)
    try:
        with db.write_transaction(conn):
            store.touch_session(conn, event.session_id, event.project_dir, event.platform)
            store.insert_events(
                conn, event.session_id, [Captured("session", "turn_end", LOW, data)],
                agent_id=event.agent_id, project_dir=event.project_dir,
            )  # fmt: skip
    finally:
        conn.close()


# ------------------------------------------------------------------ PreCompact


def pre_compact(
    event: HookEvent, *, search_tool: str = "ctx_search", budget: int | None = None
) -> str:
    """Build and store the resume snapshot under the byte budget; index the full history."""
    from ctxmode.session.guide import budget_from_env, build_guide

    budget = budget_from_env() if budget is None else budget
    sid = event.session_id
    conn = open_db(event)
    try:
        with db.write_transaction(conn):
            store.touch_session(conn, sid, event.project_dir, event.platform)
            events = store.load_events(conn, sid)
            compactions = store.meta(conn, sid).get("compact_count", 0) + 1
            text = build_guide(
                events,
                budget=budget,
                source="compact",
                compactions=compactions,
                search_tool=search_tool,
            )
            if text:
                store.save_snapshot(conn, sid, text, budget, len(events))
            marker = Captured(
                "compaction",
                "snapshot_built",
                NOISE,
                f"{len(text.encode('utf-8'))} bytes, {len(events)} events",
            )
            store.insert_events(conn, sid, [marker], project_dir=event.project_dir)
        index_history(conn, sid, events)
        return text
    finally:
        conn.close()


def index_history(conn: sqlite3.Connection, session_id: str, events: list) -> None:
    """Index the session's full event history in the knowledge base (source `session-events`)."""
    from ctxmode.session.guide import history_markdown

    if not events:
        return
    try:
        from ctxmode.store.knowledge import KnowledgeBase

        KnowledgeBase(conn).index_text(
            HISTORY_LABEL + session_id,
            history_markdown(events, session_id),
            "markdown",
            session_id=session_id,
        )
    except Exception as error:  # the guide matters more than the index: log, carry on
        from ctxmode import paths

        paths.append_log("hook-errors.log", f"session history indexing failed: {error!r}")


# ------------------------------------------------------------------ SessionStart


def session_start(event: HookEvent, *, search_tool: str = "ctx_search") -> str:
    """What to append after the routing block for this SessionStart source ("" = nothing).

    startup: rules from instruction files, idle sessions dropped; compact: the snapshot
    PreCompact built (or one built now); resume: this session's events, else the newest
    unconsumed snapshot of the project; clear: nothing.
    """
    source = event.source or "startup"
    sid = event.session_id
    conn = open_db(event)
    try:
        with db.write_transaction(conn):
            store.touch_session(conn, sid, event.project_dir, event.platform)
            marker = Captured("session", "session_start", NOISE, source)
            store.insert_events(conn, sid, [marker], project_dir=event.project_dir)
            text = _guide_for(conn, sid, source, search_tool)
            if text:
                size = len(text.encode("utf-8"))
                store.record_injection(conn, sid, size)
                consumed = Captured(
                    "session", "snapshot_consumed", NOISE, f"{size} bytes ({source})"
                )
                store.insert_events(conn, sid, [consumed], project_dir=event.project_dir)
            elif source == "startup":
                _record_rules(conn, event, sid)
            stale = (
                store.idle_sessions(conn, retention_days(), keep=sid) if source == "startup" else []
            )
            store.delete_sessions(conn, stale)
        if stale:
            _drop_history(conn, stale)
        return text
    finally:
        conn.close()


def _guide_for(conn: sqlite3.Connection, sid: str, source: str, search_tool: str) -> str:
    if source == "clear":
        return ""
    # The session's own snapshot first: hosts that never say `compact` (they send
    # startup, "new" or resume after compacting) still get their guide back.
    text = store.claim_snapshot(conn, sid, source)
    if text:
        return text
    if source == "compact":
        return _guide_now(conn, sid, "compact", search_tool)
    if source == "resume":
        return _resume(conn, sid, search_tool)
    return ""


def _guide_now(conn: sqlite3.Connection, sid: str, source: str, search_tool: str) -> str:
    from ctxmode.session.guide import budget_from_env, build_guide

    events = store.load_events(conn, sid)
    compactions = store.meta(conn, sid).get("compact_count", 0)
    return build_guide(
        events,
        budget=budget_from_env(),
        source=source,
        compactions=compactions,
        search_tool=search_tool,
    )


def _resume(conn: sqlite3.Connection, sid: str, search_tool: str) -> str:
    """The session's own events, else the newest unconsumed snapshot of the project."""
    row = conn.execute(
        "SELECT 1 FROM session_events WHERE session_id = ? AND type != 'session_start' LIMIT 1",
        (sid,),
    ).fetchone()
    if row is not None:
        return _guide_now(conn, sid, "resume", search_tool)
    claimed = store.claim_newest_snapshot(conn, sid)
    return claimed[1] if claimed is not None else ""


def _record_rules(conn: sqlite3.Connection, event: HookEvent, sid: str) -> None:
    """Record the project's instruction files as rules, and the session's settings."""
    root = event.project_dir or os.getcwd()
    events: list[Captured] = []
    for name in PROJECT_INSTRUCTION_FILES:
        path = os.path.join(root, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                content = handle.read(4_000)
        except OSError:
            continue
        events.append(Captured("rule", "rule", CRITICAL, name))
        if content.strip():
            events.append(Captured("rule", "rule_content", LOW, f"{name}\n{clip(content, 1_800)}"))
    settings = [
        f"{key}: {value}"
        for key in ("model", "permission_mode")
        if isinstance(value := event.raw.get(key), str) and value
    ]
    if settings:
        events.append(Captured("env", "session_settings", NORMAL, ", ".join(settings)))
    store.insert_events(conn, sid, events, project_dir=event.project_dir)


def _drop_history(conn: sqlite3.Connection, session_ids: list[str]) -> None:
    labels = [HISTORY_LABEL + sid for sid in session_ids]
    marks = ",".join("?" * len(labels))
    found = conn.execute(
        f"SELECT label FROM kb_sources WHERE label IN ({marks})", labels
    ).fetchall()
    if not found:
        return
    from ctxmode.store.knowledge import KnowledgeBase

    kb = KnowledgeBase(conn)
    for row in found:
        kb.delete_source(row[0])


def guarded(function: Callable[..., T], *args: object, **kwargs: object) -> T | None:
    """`function(...)`, or None after logging: continuity must never break a hook's answer."""
    try:
        return function(*args, **kwargs)
    except Exception as error:
        import traceback

        from ctxmode import paths

        detail = "".join(traceback.format_exception(error)).strip().replace("\n", " | ")
        paths.append_log("hook-errors.log", f"session continuity: {detail}")
        return None
