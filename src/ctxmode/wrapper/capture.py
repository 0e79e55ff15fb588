"""Run a shell command with its stdout and stderr captured in arrival order.

Standard library only, and cheap to import (`_signal` rather than `signal`, which pulls
in `enum`; `os.posix_spawn` rather than `subprocess`): the wrapper's start-up cost is
paid on every wrapped command. Output is held in memory, as (stream, bytes) chunks in the
order they were read, while its total stays within a threshold; past it, both streams
spill into two unnamed temporary files, so a 50 MB output costs disk, not memory.

The child shares our cwd, environment, stdin and process group (so a host that kills
the group on its timeout reaches it as it would the bare command). SIGINT, SIGTERM and
SIGHUP sent to us are passed on to it; SIGPIPE and SIGXFSZ are reset to their defaults in
it (Python ignores them, and a child would inherit that). After the child exits, the
pipes are drained for at most DRAIN_AFTER_EXIT_S: a process it started to keep running
(a dev server, a daemon) may hold them open. Then those pipes are handed to a detached
`cat` that reads them to the end: closing them instead would kill such a process with
SIGPIPE at its next write, and the bare command would have let it live.

When our stdout and stderr are the same file (a host reading both from one pipe), the
child gets one pipe for both, so the bytes arrive interleaved exactly as without us;
otherwise each stream keeps its own order and the two are merged in the order read.
Spilled output is kept up to SPOOL_CAP_BYTES (a never-ending `yes` must not fill the
disk before the host's timeout); the rest is counted, not kept.
"""

from __future__ import annotations

import _signal
import os
import select
import time

STDOUT, STDERR = 1, 2
READ_BYTES = 65536
DRAIN_AFTER_EXIT_S = 2.0
POLL_MS_WITHOUT_PIDFD = 50
EXIT_CANNOT_RUN = 126
SPOOL_CAP_BYTES = 256 * 1024 * 1024
_FORWARDED = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)
_RESET_IN_CHILD = (_signal.SIGPIPE, _signal.SIGXFSZ)


class Captured:
    """What a run printed and how it ended.

    `chunks` holds the output in arrival order while it fits the threshold; once it
    does not, `spilled` is True, `chunks` is empty and `spools` holds the two files
    (stdout, stderr), each positioned at its end.
    """

    __slots__ = ("chunks", "dropped", "exit_code", "sizes", "spilled", "spools")

    def __init__(self) -> None:
        self.chunks: list[tuple[int, bytes]] = []
        self.sizes = [0, 0, 0]  # indexed by STDOUT / STDERR
        self.spilled = False
        self.spools: tuple = ()  # two `ctxmode.sandbox.output.Spool`s once spilled
        self.dropped = 0  # bytes not kept: past SPOOL_CAP_BYTES, or the disk was full
        self.exit_code = 0

    @property
    def total(self) -> int:
        return self.sizes[STDOUT] + self.sizes[STDERR]

    def add(self, stream: int, data: bytes, threshold: int) -> None:
        self.sizes[stream] += len(data)
        if self.spilled:
            self._write(stream, data)
            return
        self.chunks.append((stream, data))
        if self.total > threshold:
            self._spill()

    def _spill(self) -> None:
        # Spilling means the output will be indexed: the store's modules load anyway.
        import tempfile

        from ctxmode.sandbox.output import Spool

        self.spools = (Spool(tempfile.gettempdir()), Spool(tempfile.gettempdir()))
        self.spilled = True
        for stream, data in self.chunks:
            self._write(stream, data)
        self.chunks = []

    def _write(self, stream: int, data: bytes) -> None:
        view = memoryview(data)
        if self.total - self.dropped > SPOOL_CAP_BYTES:
            self.dropped += len(view)
            return
        try:
            while view:
                view = view[os.write(self.spools[stream - 1].fileno(), view) :]
        except OSError:  # disk full: keep draining the child, count what is lost
            self.dropped += len(view)


def choose_shell(environ: dict[str, str] | None = None) -> str:
    """The shell the command text was written for: the one that started us if it is a
    shell, else `$SHELL`, else /bin/sh."""
    env = os.environ if environ is None else environ
    candidates = []
    try:
        candidates.append(os.readlink(f"/proc/{os.getppid()}/exe"))
    except OSError:
        pass
    candidates += [env.get("SHELL", ""), "/bin/sh"]
    for path in candidates:
        name = os.path.basename(path)
        if name in ("bash", "zsh", "sh", "dash", "ksh", "mksh") and os.access(path, os.X_OK):
            return path
    return "/bin/sh"


def same_file(fd_a: int, fd_b: int) -> bool:
    """Are two descriptors the same open pipe or file (so writes to both interleave)?"""
    try:
        a, b = os.fstat(fd_a), os.fstat(fd_b)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _spawn(shell: str, command: str, out_w: int, err_w: int) -> int:
    return os.posix_spawn(
        shell,
        [shell, "-c", command],
        os.environ,
        file_actions=[
            (os.POSIX_SPAWN_DUP2, out_w, STDOUT),
            (os.POSIX_SPAWN_DUP2, err_w, STDERR),
        ],
        setsigdef=_RESET_IN_CHILD,
    )


class _Child:
    """The running child: forwards our signals to it and knows when it has exited."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.status: int | None = None
        self.pidfd = -1
        try:
            self.pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pass
        self._previous = {}
        for signum in _FORWARDED:
            try:
                self._previous[signum] = _signal.signal(signum, self._forward)
            except (OSError, ValueError):  # not the main thread
                pass

    def _forward(self, signum: int, _frame: object) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:
                pass

    def poll(self) -> bool:
        """True once the child has exited (its status is then in `status`)."""
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
        return self.status is not None

    def wait(self) -> int:
        if self.status is None:
            self.status = os.waitpid(self.pid, 0)[1]
        for signum, handler in self._previous.items():
            _signal.signal(signum, handler)
        if self.pidfd >= 0:
            os.close(self.pidfd)
        code = os.waitstatus_to_exitcode(self.status)
        return 128 - code if code < 0 else code


def run_captured(command: str, threshold: int, shell: str | None = None) -> Captured:
    """Run `command` through `shell -c`, capturing its output (see module docstring)."""
    captured = Captured()
    out_r, out_w = os.pipe()
    err_r, err_w = (out_r, out_w) if same_file(STDOUT, STDERR) else os.pipe()
    fds = {out_r, out_w, err_r, err_w}
    try:
        child = _Child(_spawn(shell or choose_shell(), command, out_w, err_w))
    except OSError as error:
        for fd in fds:
            os.close(fd)
        captured.add(STDERR, f"ctxmode: cannot start a shell: {error}\n".encode(), threshold)
        captured.exit_code = EXIT_CANNOT_RUN
        return captured
    for fd in {out_w, err_w}:
        os.close(fd)
    _pump(
        child,
        {out_r: STDOUT} if err_r == out_r else {out_r: STDOUT, err_r: STDERR},
        captured,
        threshold,
    )
    captured.exit_code = child.wait()
    return captured


def _pump(child: _Child, streams: dict[int, int], captured: Captured, threshold: int) -> None:
    """Read both pipes until EOF, or until the drain time after the child's exit runs out."""
    poller = select.poll()
    for fd in streams:
        poller.register(fd, select.POLLIN)
    if child.pidfd >= 0:
        poller.register(child.pidfd, select.POLLIN)
    deadline: float | None = None
    while streams:
        if deadline is not None:
            timeout: int | None = max(0, int((deadline - time.monotonic()) * 1000))
        else:  # a pidfd wakes the poll when the child exits; without one, look now and then
            timeout = None if child.pidfd >= 0 else POLL_MS_WITHOUT_PIDFD
        for fd, _mask in poller.poll(timeout):
            if fd == child.pidfd:
                poller.unregister(fd)
                child.poll()
                continue
            data = os.read(fd, READ_BYTES)
            if data:
                captured.add(streams[fd], data, threshold)
            else:
                poller.unregister(fd)
                os.close(fd)
                del streams[fd]
        if deadline is None and child.poll():
            deadline = time.monotonic() + DRAIN_AFTER_EXIT_S
        elif deadline is not None and time.monotonic() >= deadline:
            break
    if streams:
        hand_over(list(streams))
    for fd in streams:
        os.close(fd)


def hand_over(fds: list[int]) -> None:
    """Start a detached reader (own session, no terminal) that drains `fds` until every
    process still holding their write ends is gone."""
    # below 10 (dash keeps its own descriptors from 10 up), and no source clobbered
    targets = [fd for fd in range(3, 10) if fd not in fds][: len(fds)]
    script = " & ".join(f"cat <&{fd} >/dev/null" for fd in targets) + " & wait"
    actions: list[tuple] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDWR, 0)]
    actions += [(os.POSIX_SPAWN_DUP2, 0, 1), (os.POSIX_SPAWN_DUP2, 0, 2)]
    actions += [(os.POSIX_SPAWN_DUP2, fd, target) for fd, target in zip(fds, targets, strict=True)]
    try:
        os.posix_spawn("/bin/sh", ["sh", "-c", script], {"PATH": os.defpath}, file_actions=actions,
                       setsid=True, setsigdef=(*_FORWARDED, *_RESET_IN_CHILD))  # fmt: skip
    except OSError:
        pass  # no reader: the pipes close with us, as before
