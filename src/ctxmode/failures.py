"""What a user is told about an exception: ours as it is, storage trouble by its cause, a bug as a bug.

Shared by the command line and the MCP server, each of which turns the result into
its own shape (a line on stderr and an exit code; a tool error) in one place.
"""

from __future__ import annotations

import sqlite3

from ctxmode import paths
from ctxmode.errors import EXIT_INTERNAL, CtxmodeError
from ctxmode.storage import db


class InternalError(CtxmodeError):
    """A bug: the message says where its traceback was logged."""

    exit_code = EXIT_INTERNAL


def explain(error: Exception, *, database: str, log: str, context: str) -> CtxmodeError:
    """`error` as a one-line `CtxmodeError`.

    `database` names the file (or place) a bare SQLite failure is about; anything we
    did not raise on purpose is logged with its traceback to `<data root>/logs/<log>`.
    """
    if isinstance(error, CtxmodeError):
        return error
    if isinstance(error, sqlite3.Error) and db.is_storage_trouble(error):
        return db.storage_error(database, error)
    if isinstance(error, OSError) and error.errno in db.STORAGE_ERRNOS:
        return db.storage_error(str(error.filename or data_root_or_placeholder()), error)
    where = paths.log_traceback(log, error, context)
    summary = " ".join(str(error).split())[:200]
    return InternalError(f"internal error ({type(error).__name__}: {summary}); {where}")


def data_root_or_placeholder() -> str:
    """The data root's path for a message; a placeholder when it is itself the problem."""
    try:
        return paths.data_root()
    except CtxmodeError:
        return "the data root"
