"""Child processes and their work dirs: process groups, waiting, killing, backgrounding.

A child runs in its own session under `reaper.py`, a child subreaper (on Linux) that
ends every process the command started when it ends, even those that left the group
with `setsid` or a double fork. A timeout SIGTERMs the group (the reaper then ends
every descendant, with a short grace), and whatever is left when the leader exits is
killed too unless the run was backgrounded; background runs are stopped with the
server (`stop_background_processes`, also on SIGTERM and SIGHUP, see `server.app`).
Work dirs live under `<data root>/tmp/exec-*` with an `owner.pid` file, so dirs
left by a crashed server are swept on the next start.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from ctxmode import paths
from ctxmode.sandbox import budget, reaper
from ctxmode.sandbox.output import Spool

KILL_GRACE_S = 1.0  # between SIGTERM and SIGKILL
REAPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reaper.py")
USE_REAPER = sys.platform.startswith("linux")  # child subreapers are a Linux feature
POLL_S = 0.05  # how often a running child's output size is checked
FAST_POLL_S = 0.005  # ... while it writes fast (`yes`): the cap is overshot by less
FAST_WRITER_BYTES = 1024 * 1024  # written between two checks that make the next one sooner


# ---------------------------------------------------------------- work dirs


def tmp_root() -> str:
    """`<data root>/tmp`, where work dirs and spools live (never the system /tmp)."""
    return paths.ensure_dir(os.path.join(paths.data_root(), "tmp"))


_OWNER_FILE = "owner.pid"
_swept = False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_work_dirs(root: str, max_age_s: float = 86_400) -> int:
    """Remove work dirs whose owner process is gone (e.g. left by a crashed server)."""
    removed = 0
    for name in os.listdir(root):
        directory = os.path.join(root, name)
        if not name.startswith("exec-") or not os.path.isdir(directory):
            continue
        try:
            with open(os.path.join(directory, _OWNER_FILE), encoding="ascii") as handle:
                stale = not _pid_alive(int(handle.read().strip() or 0))
        except (OSError, ValueError):
            stale = time.time() - os.path.getmtime(directory) > max_age_s
        if stale:
            shutil.rmtree(directory, ignore_errors=True)
            removed += 1
    return removed


def make_work_dir() -> str:
    global _swept
    root = tmp_root()
    if not _swept:
        _swept = True
        sweep_stale_work_dirs(root)
    work_dir = tempfile.mkdtemp(prefix="exec-", dir=root)
    write_owner(work_dir, os.getpid())
    return work_dir


def write_owner(work_dir: str, pid: int) -> None:
    with open(os.path.join(work_dir, _OWNER_FILE), "w", encoding="ascii") as handle:
        handle.write(str(pid))


# ---------------------------------------------------------------- processes


@dataclass
class ProcessEnd:
    exit_code: int | None
    timed_out: bool = False
    backgrounded: bool = False
    output_capped: bool = False
    process: subprocess.Popen[bytes] | None = None  # set when backgrounded
    compile_failed: bool = False
    start_error: str | None = None


def kill_group(process: subprocess.Popen[bytes], grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM the process group, wait up to `grace_s` for the leader, then SIGKILL the group.

    Under the reaper the leader is the reaper: it ends every descendant within its own
    bounded time, so it gets that time too before the SIGKILL (which would stop it short).
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    reaper_time = reaper.GRACE_S + 2.0 if USE_REAPER else 0.0
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=grace_s + reaper_time)
    # Members that ignored SIGTERM (or were busy dying) still share the group id.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_process(
    argv: tuple[str, ...],
    *,
    cwd: str,
    env: Mapping[str, str],
    stdout: Spool,
    stderr: Spool | None,
    deadline: float | None,
    detach_at: float | None = None,
    output_cap: int | None = None,
) -> ProcessEnd:
    """Run `argv` until it exits, `deadline` passes, `detach_at` comes, or it has written
    more than `output_cap` bytes (default `budget.output_cap()`); then its group is killed."""
    cap = budget.output_cap() if output_cap is None else output_cap
    if USE_REAPER:  # the reaper also keeps the spools within the cap, however late we look
        _check_program(argv[0], env)
        argv = (sys.executable, "-I", "-S", REAPER, "--output-cap", str(cap), *argv)
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=stdout.fileno(),
        stderr=(stderr or stdout).fileno(),
        start_new_session=True,  # own process group: a timeout kills grandchildren too
    )
    with _ExitWatch(process) as watch:
        written = 0
        poll = FAST_POLL_S  # a writer from the start (`yes`) is caught within milliseconds
        while True:
            now = time.monotonic()
            limits = [t for t in (deadline, detach_at) if t is not None]
            exit_code = watch.wait(min([poll, *(t - now for t in limits)]))
            if exit_code is not None:
                return ProcessEnd(exit_code)
            now = time.monotonic()
            if detach_at is not None and now >= detach_at:
                return ProcessEnd(None, backgrounded=True, process=process)
            if deadline is not None and now >= deadline:
                kill_group(process)
                return ProcessEnd(process.returncode, timed_out=True)
            before, written = written, stdout.size() + (stderr.size() if stderr else 0)
            poll = FAST_POLL_S if written - before > FAST_WRITER_BYTES else POLL_S
            if written > cap:
                kill_group(process, grace_s=0)  # no grace: each moment adds hundreds of MB
                return ProcessEnd(process.returncode, output_capped=True)


def _check_program(program: str, env: Mapping[str, str]) -> None:
    """Raise what Popen would for a program that cannot be started (the reaper starts it)."""
    found = program if os.sep in program else shutil.which(program, path=env.get("PATH"))
    if not found or not os.access(found, os.X_OK) or os.path.isdir(found):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", program)


def _kill_leftovers(group_id: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group_id, signal.SIGKILL)


class _ExitWatch:
    """Waits for a child's exit: woken by a pidfd where Linux has them, else by polling."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self.pidfd = os.pidfd_open(process.pid)

    def wait(self, timeout_s: float) -> int | None:
        """The exit code, or None if still running after `timeout_s`.

        When the leader exits, what it left running in its group is killed: a call's
        processes end with the call unless it is backgrounded. With a pidfd this
        happens while the leader is still unreaped, so the group id cannot be reused.
        """
        timeout_s = max(timeout_s, 0.0)
        if self.pidfd is None:
            try:
                code = self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                return None
            _kill_leftovers(self.process.pid)
            return code
        readable, _, _ = select.select([self.pidfd], [], [], timeout_s)
        if not readable:
            return None
        _kill_leftovers(self.process.pid)
        return self.process.wait()

    def __enter__(self) -> _ExitWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pidfd is not None:
            os.close(self.pidfd)


_background: dict[int, subprocess.Popen[bytes]] = {}
_background_lock = threading.Lock()


def watch_background(process: subprocess.Popen[bytes], work_dir: str) -> None:
    """Remove the work dir once the backgrounded process exits."""

    def reap() -> None:
        process.wait()
        with _background_lock:
            _background.pop(process.pid, None)
        shutil.rmtree(work_dir, ignore_errors=True)

    with _background_lock:
        _background[process.pid] = process
    write_owner(work_dir, process.pid)
    threading.Thread(target=reap, name=f"ctxmode-bg-{process.pid}", daemon=True).start()


def stop_background_processes(grace_s: float = KILL_GRACE_S) -> int:
    """Terminate every backgrounded process group (called at server shutdown)."""
    with _background_lock:
        processes = list(_background.values())
    for process in processes:
        kill_group(process, grace_s)
    return len(processes)


atexit.register(stop_background_processes)
