"""Run a command with its output streamed through unchanged while a bounded digest is taken.

The child's stdout and stderr go byte for byte to ours; memory stays constant however
much it prints. Its exit code becomes ours (128 + N when a signal N killed it).
SIGTERM and SIGHUP are forwarded to it; so is SIGINT, unless the terminal already
delivered Ctrl-C to it (we share its foreground process group).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType

from ctxmode.session.memory.digest import StreamDigest

_CHUNK = 65536
EXIT_NOT_FOUND = 127
EXIT_NOT_EXECUTABLE = 126
_DRAIN_AFTER_EXIT_S = 5.0  # a background grandchild may keep the pipes open for ever
_FORWARDED = (
    signal.SIGINT,
    signal.SIGTERM,
    *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else []),
)


@dataclass
class RunResult:
    exit_code: int
    stdout: StreamDigest = field(default_factory=StreamDigest)
    stderr: StreamDigest = field(default_factory=StreamDigest)
    launch_error: str | None = None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _pump(source: int, target: int, digest: StreamDigest) -> None:
    """Copy `source` to `target` until EOF, feeding the digest; stop copying if `target` closes."""
    copying = True
    try:
        while chunk := os.read(source, _CHUNK):
            digest.feed(chunk)
            if copying:
                try:
                    _write_all(target, chunk)
                except (BrokenPipeError, OSError):
                    # Our reader went away (`| head`): close the pipe so the child gets
                    # SIGPIPE, as it would have without us in between.
                    copying = False
                    break
    finally:
        digest.close()
        os.close(source)


def _feed_stdin(pipe: int, data: bytes) -> None:
    try:
        _write_all(pipe, data)
    except OSError:
        pass  # the child does not read its stdin: that is its business
    finally:
        with contextlib.suppress(OSError):
            os.close(pipe)


def _in_terminal_foreground() -> bool:
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            if os.isatty(fd):
                return os.tcgetpgrp(fd) == os.getpgrp()
    return False


@contextlib.contextmanager
def _forward_signals(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    def forward(signum: int, _frame: FrameType | None) -> None:
        if signum == signal.SIGINT and _in_terminal_foreground():
            return  # Ctrl-C reached the child directly; a second one would be one too many
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signum)

    previous = {}
    for signum in _FORWARDED:
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            previous[signum] = signal.signal(signum, forward)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run_streaming(
    argv: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    stdin_data: bytes | None = None,
    stdout_fd: int | None = None,
    stderr_fd: int | None = None,
) -> RunResult:
    """Run `argv`, streaming its output to our stdout/stderr, and return code + digests."""
    out_fd = sys.stdout.fileno() if stdout_fd is None else stdout_fd
    err_fd = sys.stderr.fileno() if stderr_fd is None else stderr_fd
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE if stdin_data is not None else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
    except FileNotFoundError:
        return RunResult(EXIT_NOT_FOUND, launch_error=f"command not found: {argv[0]}")
    except OSError as exc:
        return RunResult(EXIT_NOT_EXECUTABLE, launch_error=f"cannot run {argv[0]}: {exc}")
    result = RunResult(0)
    assert proc.stdout is not None and proc.stderr is not None
    threads = [
        threading.Thread(
            target=_pump, args=(os.dup(proc.stdout.fileno()), out_fd, result.stdout), daemon=True
        ),
        threading.Thread(
            target=_pump, args=(os.dup(proc.stderr.fileno()), err_fd, result.stderr), daemon=True
        ),
    ]
    # The pumps own duplicates; the originals are closed so the file objects never warn.
    proc.stdout.close()
    proc.stderr.close()
    if stdin_data is not None:
        assert proc.stdin is not None
        stdin_fd = os.dup(proc.stdin.fileno())
        proc.stdin.close()
        threads.append(
            threading.Thread(target=_feed_stdin, args=(stdin_fd, stdin_data), daemon=True)
        )
    with _forward_signals(proc):
        for thread in threads:
            thread.start()
        code = proc.wait()
        for thread in threads:
            thread.join(_DRAIN_AFTER_EXIT_S)
    result.exit_code = 128 - code if code < 0 else code
    return result
