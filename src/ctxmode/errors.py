"""The one base class for every error ctxmode raises on purpose, and the exit codes.

A `CtxmodeError` carries a one-line message a user can act on; the command line prints
it and exits with its `exit_code` (`ctxmode.cli`), the MCP server returns it as a tool
error (`ctxmode.server.app`). Anything else that escapes is a bug: logged with its
traceback under the data root, summarized in one line. Standard library only, no
imports: the hook path loads this module.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import NoReturn

EXIT_OK = 0
EXIT_ERROR = 1  # the command could not do what was asked (bad input, missing file, ...)
EXIT_USAGE = 2  # unknown option or missing argument (click's own code)
EXIT_WRONG_WORKSPACE = 3  # `ctxmode session`/`run` outside the session's workspace
EXIT_STORAGE = 4  # the data root is full, read-only, unreadable or not ours to write
EXIT_LOCKED = 5  # another process held the database longer than the busy timeout
EXIT_INTERNAL = 70  # a bug: the traceback is in <data root>/logs/errors.log


class CtxmodeError(Exception):
    """An error raised on purpose: `str(error)` is one line that says what to do."""

    exit_code = EXIT_ERROR


_interrupted = [False]


def on_interrupt(signum: int, frame: object) -> NoReturn:
    """The command line's SIGINT handler: remembers the Ctrl-C, then raises it as usual.

    SQLite turns any exception raised in Python code it calls (`ctx_unpack`, which reads
    packed chunk text back) into an OperationalError, so a Ctrl-C landing there arrives as
    a database error: `was_interrupted` tells the two apart."""
    _interrupted[0] = True
    raise KeyboardInterrupt


def was_interrupted() -> bool:
    return _interrupted[0]
