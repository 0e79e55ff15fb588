"""Run one command as a child subreaper and end every process it started when it ends.

Started by `process.run_process` as `python -I -S reaper.py [--output-cap N] <argv...>`
(standard library only, no ctxmode import). On Linux it marks itself a child subreaper,
so whatever the command starts is re-parented here when its parent exits, even past
`setsid` or a double fork, instead of escaping to init. Then, when the command exits, or
on SIGTERM / SIGINT / SIGHUP (a timeout, the server stopping), or once the process that
started us is gone, every descendant is ended (SIGTERM, a short grace on a signal,
SIGKILL) and reaped. The exit status is the command's own (a signal death is passed on as
one).

With `--output-cap N` the command writes into pipes and the reaper copies what it reads to
its own stdout and stderr (the spool files), N + 1 bytes at most, and drops the rest: a
command printing without end (`yes`) cannot fill the disk while the server, busy on a
loaded machine, has yet to look at the spool's size and stop it, and a backgrounded one
goes on running with its log full.
"""

from __future__ import annotations

import _signal as signal  # the C module: `signal` would import enum, tripling start-up
import os
import select
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
GRACE_S = 0.5  # after a stop signal: how long descendants get to exit on SIGTERM
SWEEP_LIMIT_S = 5.0  # a fork bomb is SIGKILLed for at most this long
CHECK_S = 0.05  # how often the wait looks at stop signals and at our parent
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# Python ignores SIGPIPE and friends; the command starts with every default restored.
DEFAULT_IN_CHILD = (*STOP_SIGNALS, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGQUIT)


def become_subreaper() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def descendants(root: int) -> list[int]:
    """Every process below `root` (children first found, then theirs), read from /proc."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(name))
    found: list[int] = []
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), ()):
            found.append(child)
            pending.append(child)
    return found


def signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except (ProcessLookupError, PermissionError):
            pass


def reap_all() -> None:
    """Collect every child that has exited (all of them are ours to reap)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_descendants(me: int, grace_s: float) -> None:
    """SIGTERM everything below us, wait up to `grace_s`, then SIGKILL until none is left."""
    if grace_s > 0:
        signal_all(descendants(me), signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            reap_all()
            if not descendants(me):
                return
            time.sleep(0.02)
    deadline = time.monotonic() + SWEEP_LIMIT_S
    while time.monotonic() < deadline:
        reap_all()
        left = descendants(me)
        if not left:
            return
        signal_all(left, signal.SIGKILL)
        time.sleep(0.005)


class Relay:
    """Copies the command's pipes to our stdout and stderr, `cap` + 1 bytes at most.

    One pipe when our stdout and stderr are the same file (their interleaving kept), else
    one each. What comes past the cap is read and dropped; so is everything after a write
    the disk refused, as the command's own write would have failed."""

    CHUNK = 1024 * 1024

    def __init__(self, cap: int) -> None:
        self.left = cap + 1  # one byte past the cap: the server's check sees it crossed
        self.targets: dict[int, int] = {}  # read end -> our fd
        self.ends: dict[int, int] = {}  # the command's fd -> write end
        shared = os.path.samestat(os.fstat(1), os.fstat(2))
        for target in (1,) if shared else (1, 2):
            read_end, write_end = os.pipe()
            self.targets[read_end] = target
            self.ends[target] = write_end
        self.ends.setdefault(2, self.ends[1])
        self.failed = False

    def file_actions(self) -> list[tuple[int, int, int]]:
        return [(os.POSIX_SPAWN_DUP2, end, fd) for fd, end in self.ends.items()]

    def started(self) -> None:
        """Close our copies of the write ends: end of file comes when the command's go."""
        for end in set(self.ends.values()):
            os.close(end)

    def readable(self) -> list[int]:
        return list(self.targets)

    def copy(self, read_end: int) -> None:
        data = os.read(read_end, self.CHUNK)
        if not data:
            os.close(read_end)
            del self.targets[read_end]
            return
        view = memoryview(data)[: self.left]
        self.left -= len(view)
        while view and not self.failed:
            try:
                view = view[os.write(self.targets[read_end], view) :]
            except OSError:
                self.failed = True

    def drain(self, limit_s: float) -> None:
        """Copy what is left once the command and its descendants are gone."""
        deadline = time.monotonic() + limit_s
        while self.readable() and time.monotonic() < deadline:
            ready, _, _ = select.select(self.readable(), [], [], CHECK_S)
            for read_end in ready:
                self.copy(read_end)


def wait_for(child: int, parent: int, stopped: list[int], relay: Relay | None) -> int | None:
    """The child's wait status, or None once a stop signal came or our parent is gone."""
    pidfd = None
    try:
        pidfd = os.pidfd_open(child)
    except (AttributeError, OSError):
        pass
    try:
        while not stopped and os.getppid() == parent:
            pipes = relay.readable() if relay is not None else []
            watched = pipes + ([pidfd] if pidfd is not None else [])
            if watched:
                try:
                    ready, _, _ = select.select(watched, [], [], CHECK_S)
                except InterruptedError:
                    ready = []
                if relay is not None:
                    for read_end in set(ready) & set(pipes):
                        relay.copy(read_end)
            pid, status = os.waitpid(child, os.WNOHANG)
            if pid:
                return status
            if not watched:
                time.sleep(CHECK_S)
        return None
    finally:
        if pidfd is not None:
            os.close(pidfd)


def main(argv: list[str]) -> None:
    relay = None
    if argv[:1] == ["--output-cap"] and len(argv) > 1 and argv[1].isdigit():
        relay, argv = Relay(int(argv[1])), argv[2:]
    if not argv:
        sys.stderr.write("usage: reaper.py [--output-cap N] <program> [args...]\n")
        raise SystemExit(2)
    become_subreaper()
    me, parent = os.getpid(), os.getppid()
    stopped: list[int] = []
    for signum in STOP_SIGNALS:
        signal.signal(signum, lambda number, _frame: stopped.append(number))
    actions = relay.file_actions() if relay is not None else []
    try:
        child = os.posix_spawnp(
            argv[0], argv, os.environ, setsigdef=DEFAULT_IN_CHILD, file_actions=actions
        )
    except OSError as exc:
        sys.stderr.write(f"cannot start {argv[0]}: {exc.strerror}\n")
        raise SystemExit(127) from None
    if relay is not None:
        relay.started()
    status = wait_for(child, parent, stopped, relay)
    end_descendants(me, 0.0 if status is not None else GRACE_S)
    if relay is not None:
        relay.drain(GRACE_S)
    if status is None:
        code = -(stopped[0] if stopped else signal.SIGTERM)
    else:
        code = os.waitstatus_to_exitcode(status)
    if code < 0:  # died of a signal: die of the same one, so our parent sees it
        try:
            signal.signal(-code, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP cannot be handled, so are default already
        os.kill(me, -code)
        time.sleep(1)  # a signal that does not kill by default (SIGCHLD...) falls through
    raise SystemExit(code & 0xFF)


if __name__ == "__main__":
    main(sys.argv[1:])
