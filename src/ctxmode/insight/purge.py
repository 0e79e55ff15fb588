"""The dashboard's one write: purging a project or a session, after a confirmation page.

The POST must carry the per-launch CSRF token from that page and, when the browser says
where it comes from, come from this dashboard's own origin.
"""

from __future__ import annotations

import contextlib
import secrets

from starlette.requests import Request

from ctxmode.insight.projects import Project
from ctxmode.storage import db, purge, schema


def allowed(request: Request, form: dict[str, str], csrf: str, port: int) -> bool:
    given = form.get("csrf", "")
    if not given or not secrets.compare_digest(given, csrf) or form.get("confirm") != "yes":
        return False
    origin = request.headers.get("origin")
    if origin is not None and origin not in (
        f"http://127.0.0.1:{port}",
        f"http://localhost:{port}",
    ):
        return False
    return request.headers.get("sec-fetch-site", "same-origin") == "same-origin"


def run(target: Project, session_id: str) -> str:
    """Purge one session of `target`, or the whole project when `session_id` is empty."""
    conn = db.open_database(target.db_path, schema.MIGRATIONS)
    with contextlib.closing(conn):
        if session_id:
            removed = purge.purge_session(conn, session_id)
            return f"Purged session {session_id}: {removed} rows removed."
        sources, removed = purge.purge_project(conn)
    return (
        f"Purged {target.root or target.key}: {sources} knowledge-base sources and "
        f"{removed} session, event and statistics rows."
    )
