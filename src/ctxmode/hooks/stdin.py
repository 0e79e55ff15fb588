"""Read a hook payload from stdin without ever hanging, and parse it without `import json`.

Hosts sometimes keep the pipe open after writing (or never write at all), so reading
stops after an idle timeout with no new bytes. Partial input at the timeout is an
error, never half-parsed: a truncated `tool_response` must not pass as a payload.
Parsing uses the C scanner of `_json` directly; `import json` costs more than a decision.
"""

from __future__ import annotations

import _signal  # the C half of `signal`: in memory from start-up
import os
import sys

from ctxmode import fastjson, settings
from ctxmode.errors import CtxmodeError

READ_CHUNK = 1 << 20
BOM = "\ufeff"


class PayloadError(CtxmodeError, ValueError):
    """Stdin held no usable payload (partial input, malformed JSON, not an object)."""


def idle_timeout_ms() -> int:
    """The stdin idle timeout from the environment (1..600000 ms), else the default."""
    return settings.integer(settings.HOOK_STDIN_IDLE_MS)


def read_stdin(fd: int = 0, idle_ms: int | None = None) -> bytes:
    """All bytes up to EOF; b"" if nothing arrived within the idle timeout.

    Raises PayloadError when the writer went idle after sending only part of a payload.
    """
    idle_ms = idle_timeout_ms() if idle_ms is None else idle_ms
    if sys.platform == "win32":  # neither select() nor SIGALRM work on Windows pipes
        return _read_with_thread(fd, idle_ms)
    chunks: list[bytes] = []
    if _read_with_alarm(fd, idle_ms, chunks):
        return b"".join(chunks)
    return _read_with_poll(fd, idle_ms)


class _Idle(Exception):
    """Raised by the alarm: no byte arrived within the idle timeout."""


def _on_alarm(signum: int, frame: object) -> None:
    raise _Idle


def _read_with_alarm(fd: int, idle_ms: int, chunks: list[bytes]) -> bool:
    """Blocking reads, each one interrupted by SIGALRM after `idle_ms` without a byte.

    The hook process's way: `_signal` (the C half of `signal`, whose Python half would load
    `enum`) is in memory from start-up, while `select` is a shared library to load. Fills
    `chunks` up to EOF and returns True; returns False, having read nothing, when the alarm
    is not ours to use (not the main thread, or a timer or handler already set, e.g. by a
    test runner's timeout), and `_read_with_poll` reads instead.
    """
    if _signal.getitimer(_signal.ITIMER_REAL)[0] or (
        _signal.getsignal(_signal.SIGALRM) != _signal.SIG_DFL
    ):
        return False
    try:
        _signal.signal(_signal.SIGALRM, _on_alarm)
    except ValueError:  # not the main thread
        return False
    try:
        while chunk := _timed_read(fd, idle_ms):
            chunks.append(chunk)
    except _Idle:  # as with select(), bytes arriving just as the timer fires are late
        _timed_out(chunks, idle_ms)  # PayloadError if part of a payload came
        chunks.clear()
    finally:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, _signal.SIG_DFL)
    return True


def _timed_read(fd: int, idle_ms: int) -> bytes:
    """One `os.read` (b"" at EOF or on a closed stdin), given up by `_Idle` after `idle_ms`."""
    _signal.setitimer(_signal.ITIMER_REAL, idle_ms / 1000)
    try:
        return os.read(fd, READ_CHUNK)
    except OSError:  # closed or invalid stdin: treat as end of input
        return b""
    finally:
        _signal.setitimer(_signal.ITIMER_REAL, 0)


def _read_with_poll(fd: int, idle_ms: int) -> bytes:
    """`read_stdin` where the alarm is not ours: select() waits for each chunk."""
    import select

    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    chunks: list[bytes] = []
    while True:
        if not poller.poll(idle_ms):
            return _timed_out(chunks, idle_ms)
        try:
            chunk = os.read(fd, READ_CHUNK)
        except OSError:  # closed or invalid stdin: treat as end of input
            chunk = b""
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _timed_out(chunks: list[bytes], idle_ms: int) -> bytes:
    received = sum(len(chunk) for chunk in chunks)
    if received:
        raise PayloadError(f"stdin idle for {idle_ms} ms with {received} bytes buffered")
    return b""


def _read_with_thread(fd: int, idle_ms: int) -> bytes:
    import threading

    chunks: list[bytes] = []
    progressed = threading.Event()
    finished = threading.Event()

    def pump() -> None:
        try:
            while chunk := os.read(fd, READ_CHUNK):
                chunks.append(chunk)
                progressed.set()
        except OSError:
            pass
        finished.set()
        progressed.set()

    threading.Thread(target=pump, daemon=True).start()
    while not finished.is_set():
        if not progressed.wait(idle_ms / 1000):
            return _timed_out(chunks, idle_ms)
        progressed.clear()
    return b"".join(chunks)


_WHITESPACE = " \t\n\r"


def loads(text: str) -> object:
    """Parse one JSON document; PayloadError (with the position) otherwise."""
    try:
        return fastjson.loads(text)
    except ValueError as error:
        raise PayloadError(str(error)) from None


def parse_payload(data: bytes) -> dict:
    """Decode stdin bytes into the payload object: BOM stripped, empty input -> {}."""
    text = data.decode("utf-8", "replace")
    if text.startswith(BOM):
        text = text[1:]
    if not text.strip(_WHITESPACE):
        return {}
    value = loads(text)
    if not isinstance(value, dict):
        raise PayloadError(f"payload is a JSON {type(value).__name__}, not an object")
    return value
