"""The audit log of context reads: one line per read, `<data root>/logs/session-audit.log`."""

from __future__ import annotations

import datetime
import os

from ctxmode import paths
from ctxmode.policy.secrets import redact

AUDIT_LOG = "session-audit.log"
_MAX_COMMAND_CHARS = 300


def audit_path() -> str:
    return os.path.join(paths.logs_dir(), AUDIT_LOG)


def audit_line(session: str, command: str, now: datetime.datetime | None = None) -> str:
    """`<ISO time>\tsession=<name>\tcommand=<what read it>` (secrets filtered, one line)."""
    moment = now or datetime.datetime.now(datetime.timezone.utc)
    what = " ".join(redact(command).split())[:_MAX_COMMAND_CHARS]
    return f"{moment.isoformat(timespec='seconds')}\tsession={session}\tcommand={what}"


def record_read(session: str, command: str) -> None:
    """Append one line; an unwritable log never stops the command (paths.append_log)."""
    paths.append_log(AUDIT_LOG, audit_line(session, command))
