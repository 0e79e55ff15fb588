"""The housekeeping tools: ctx_stats, ctx_doctor, ctx_upgrade, ctx_purge and ctx_insight."""

from __future__ import annotations

import sys

from ctxmode import __version__, stats
from ctxmode.server import arguments as a
from ctxmode.server.state import Reply, ServerState
from ctxmode.storage import purge


def handle_stats(state: ServerState, args: dict) -> Reply:
    from ctxmode.session import stats_section

    with state.database() as conn:
        parts = [
            stats.render_report(stats.totals(conn, session_key=state.session_key), "This session"),
            stats.render_report(stats.totals(conn), "This project, all sessions"),
            stats_section(conn, None),
        ]
    return Reply("\n\n".join(parts), saves_context=False)


def handle_doctor(state: ServerState, args: dict) -> Reply:
    from ctxmode import doctor

    return Reply(doctor.render(doctor.run_checks(state.project_root)), saves_context=False)


def handle_upgrade(state: ServerState, args: dict) -> Reply:
    from ctxmode import doctor

    command = doctor.upgrade_command()
    return Reply(
        f"ctxmode {__version__}. To upgrade this installation run:\n\n    {command}\n\n"
        "then restart the host so it starts the new server.",
        saves_context=False,
    )


def handle_purge(state: ServerState, args: dict) -> Reply:
    confirm = a.as_bool(args, "confirm")
    session_id = a.as_str(args, "sessionId", None)
    scope = a.as_choice(
        args, "scope", ("session", "project"), "session" if session_id else "project"
    )
    if not confirm:
        return Reply(
            "Purge cancelled (confirm is false); nothing was deleted.", saves_context=False
        )
    if scope == "session":
        if not session_id:
            raise a.ArgumentError("scope 'session' needs 'sessionId'")
        with state.database() as conn:
            removed = purge.purge_session(conn, session_id)
        return Reply(f"Purged session {session_id}: {removed} rows removed.", saves_context=False)
    if session_id:
        raise a.ArgumentError("ambiguous: 'sessionId' given with scope 'project'; drop one")
    with state.database() as conn:
        sources, removed = purge.purge_project(conn)
    return Reply(
        f"Purged the project's knowledge base ({sources} sources) and {removed} session, "
        "event and statistics rows.",
        saves_context=False,
    )


def handle_insight(state: ServerState, args: dict) -> Reply:
    with state.knowledge() as kb:
        sources = kb.sources()
        rows = stats.totals(kb.conn)
    size = sum(s.byte_count for s in sources)
    lines = [
        _dashboard_line(state.project_root),
        f"Project: {state.project_root}",
        f"Knowledge base: {len(sources)} sources, {sum(s.chunk_count for s in sources)} sections, "
        f"{size / 1024:.1f} KB indexed.",
    ]
    for source in sorted(sources, key=lambda s: s.byte_count, reverse=True)[:8]:
        lines.append(
            f"  {source.label}: {source.chunk_count} sections, {source.byte_count / 1024:.1f} KB"
        )
    kept = sum(r.bytes_kept_out for r in rows)
    lines.append(
        f"Tool calls: {sum(r.calls for r in rows)}; kept out of context: {kept / 1024:.1f} KB "
        f"(~{stats.estimated_tokens(kept):,} tokens, estimated)."
    )
    lines.append(f"Server: ctxmode {__version__} on Python {sys.version.split()[0]}.")
    return Reply("\n".join(lines), saves_context=False)


def _dashboard_line(project_root: str) -> str:
    """The running dashboard's URL (started if none runs), opened on this project."""
    from ctxmode.insight import serve
    from ctxmode.storage import project

    try:
        url = serve.ensure_running(project_root)
    except (RuntimeError, OSError) as error:
        return f"Dashboard: could not start ({error}); run `ctxmode insight` in a terminal."
    return f"Dashboard (open in a browser): {url}&project={project.project_key(project_root)}"
