"""Running submitted code in a child process: temp dir, process group, timeout, output spools.

Each call gets a work dir `<data root>/tmp/exec-*` (the script, compiled
binaries, the child's TMPDIR), removed when the process ends. The child runs in
`cwd` in its own session (so its whole process group can be killed), with stdin
closed and stdout/stderr written straight into spool files. On timeout the
group gets SIGTERM, a short grace, then SIGKILL; what was written so far is kept.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from ctxmode import paths
from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.diagnostics import DiagnosticCollector, Diagnostics
from ctxmode.sandbox.environment import build_env
from ctxmode.sandbox.output import Spool, StreamOutput, empty_stream, summarize_spool
from ctxmode.sandbox.runtimes import (
    Program,
    RuntimeMissingError,
    check_language,
    resolve,
    write_program,
)

DEFAULT_TIMEOUT_MS = 120_000
TIMEOUT_ENV = "CTXMODE_EXEC_TIMEOUT_MS"
BACKGROUND_WAIT_MS = 3_000  # how long a background run is watched before it is detached
KILL_GRACE_S = 1.0  # between SIGTERM and SIGKILL
OUTPUT_CAP_BYTES = 100 * 1024 * 1024  # stdout + stderr; past it the group is killed
POLL_S = 0.05


@dataclass
class ExecResult:
    """How a run ended and what it printed (call `close()` to drop the spooled output)."""

    language: str
    exit_code: int | None
    classification: str
    stdout: StreamOutput
    stderr: StreamOutput
    diagnostics: Diagnostics
    duration_ms: int
    timeout_ms: int
    timed_out: bool = False
    backgrounded: bool = False
    notes: list[str] = field(default_factory=list)
    error: str | None = None  # why the program could not start
    pid: int | None = None  # of a backgrounded process
    log_dir: str | None = None  # where a backgrounded process keeps writing its output

    @property
    def is_error(self) -> bool:
        return kinds.is_error(self.classification)

    @property
    def total_bytes(self) -> int:
        return self.stdout.byte_count + self.stderr.byte_count

    def iter_text(self, chunk_bytes: int = 1024 * 1024) -> Iterator[str]:
        """The full output in bounded pieces: stdout, then a marked stderr section."""
        yield from self.stdout.iter_text(chunk_bytes)
        if self.stderr.byte_count:
            yield "\n--- stderr ---\n"
            yield from self.stderr.iter_text(chunk_bytes)

    def close(self) -> None:
        for stream in (self.stdout, self.stderr):
            if stream.spool is not None:
                stream.spool.close()

    def __enter__(self) -> ExecResult:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FileAccessError(ValueError):
    """The file given to `run_file` cannot be used (missing, not a file)."""


class PathOutsideProjectError(FileAccessError):
    """The file resolves outside the project root and no allow rule covers it."""

    def __init__(self, path: str, resolved: str, root: str) -> None:
        self.path, self.resolved, self.root = path, resolved, root
        self.suggested_rule = f"Read({resolved})"
        super().__init__(
            f"File access blocked: {path} resolves to {resolved}, outside the project root "
            f"{root}. To allow it, add {self.suggested_rule} to permissions.allow."
        )


# ---------------------------------------------------------------- settings and dirs


def effective_timeout_ms(timeout_ms: int | None) -> int:
    """The argument if positive, else `CTXMODE_EXEC_TIMEOUT_MS`, else 120 s."""
    if timeout_ms is not None and timeout_ms > 0:
        return int(timeout_ms)
    configured = os.environ.get(TIMEOUT_ENV, "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return DEFAULT_TIMEOUT_MS


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


def _make_work_dir() -> str:
    global _swept
    root = tmp_root()
    if not _swept:
        _swept = True
        sweep_stale_work_dirs(root)
    work_dir = tempfile.mkdtemp(prefix="exec-", dir=root)
    _write_owner(work_dir, os.getpid())
    return work_dir


def _write_owner(work_dir: str, pid: int) -> None:
    with open(os.path.join(work_dir, _OWNER_FILE), "w", encoding="ascii") as handle:
        handle.write(str(pid))


# ---------------------------------------------------------------- process handling


@dataclass
class _ProcessEnd:
    exit_code: int | None
    timed_out: bool = False
    backgrounded: bool = False
    output_capped: bool = False
    process: subprocess.Popen[bytes] | None = None  # set when backgrounded
    compile_failed: bool = False
    start_error: str | None = None


def kill_group(process: subprocess.Popen[bytes], grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM the process group, wait up to `grace_s` for the leader, then SIGKILL the group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=grace_s)
    # Members that ignored SIGTERM (or were busy dying) still share the group id.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _run_process(
    argv: tuple[str, ...],
    *,
    cwd: str,
    env: Mapping[str, str],
    stdout: Spool,
    stderr: Spool | None,
    deadline: float | None,
    detach_at: float | None = None,
) -> _ProcessEnd:
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
        while True:
            now = time.monotonic()
            limits = [t for t in (deadline, detach_at) if t is not None]
            exit_code = watch.wait(min([POLL_S, *(t - now for t in limits)]))
            if exit_code is not None:
                return _ProcessEnd(exit_code)
            now = time.monotonic()
            if detach_at is not None and now >= detach_at:
                return _ProcessEnd(None, backgrounded=True, process=process)
            if deadline is not None and now >= deadline:
                kill_group(process)
                return _ProcessEnd(process.returncode, timed_out=True)
            written = stdout.size() + (stderr.size() if stderr else 0)
            if written > OUTPUT_CAP_BYTES:
                kill_group(process)
                return _ProcessEnd(process.returncode, output_capped=True)


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


def _watch_background(process: subprocess.Popen[bytes], work_dir: str) -> None:
    """Remove the work dir once the backgrounded process exits."""

    def reap() -> None:
        process.wait()
        with _background_lock:
            _background.pop(process.pid, None)
        shutil.rmtree(work_dir, ignore_errors=True)

    with _background_lock:
        _background[process.pid] = process
    _write_owner(work_dir, process.pid)
    threading.Thread(target=reap, name=f"ctxmode-bg-{process.pid}", daemon=True).start()


def stop_background_processes(grace_s: float = KILL_GRACE_S) -> int:
    """Terminate every backgrounded process group (called at server shutdown)."""
    with _background_lock:
        processes = list(_background.values())
    for process in processes:
        kill_group(process, grace_s)
    return len(processes)


atexit.register(stop_background_processes)


# ---------------------------------------------------------------- public entry points


def _failed_start(language: str, message: str, started: float, timeout_ms: int) -> ExecResult:
    return ExecResult(
        language=language,
        exit_code=None,
        classification=kinds.RUNTIME_ERROR,
        stdout=empty_stream(),
        stderr=empty_stream(),
        diagnostics=Diagnostics((), 0, None),
        duration_ms=int((time.monotonic() - started) * 1000),
        timeout_ms=timeout_ms,
        error=message,
    )


def _child_env(
    work_dir: str, prepend: Mapping[str, str], extra: Mapping[str, str] | None
) -> dict[str, str]:
    env = build_env(tmp_dir=work_dir)
    for name, value in prepend.items():
        env[name] = value + os.pathsep + env[name] if env.get(name) else value
    if extra:
        env.update(extra)
    return env


def run_code(
    language: str,
    code: str,
    *,
    cwd: str,
    timeout_ms: int | None = None,
    background: bool = False,
    extra_env: dict[str, str] | None = None,
    file_path: str | None = None,
    merge_stderr: bool = False,
) -> ExecResult:
    """Run `code` in `language` with `cwd` as working directory.

    `timeout_ms` (default: `CTXMODE_EXEC_TIMEOUT_MS`, else 120 s) bounds build and
    run together. With `background`, the process is watched for `timeout_ms` if
    given (else 3 s) and then left running; its output keeps going to files in
    `result.log_dir`. `file_path` (used by `run_file`) defines FILE_CONTENT and
    friends in the code. `merge_stderr` writes both streams into stdout, in order.
    Raises ValueError for an unsupported language; a missing runtime or an unusable
    `cwd` comes back as a `runtime_error` result.
    """
    started = time.monotonic()
    language = check_language(language)
    timeout = effective_timeout_ms(timeout_ms)
    try:
        runtime = resolve(language)
    except RuntimeMissingError as exc:
        return _failed_start(language, str(exc), started, timeout)
    if not os.path.isdir(cwd):
        return _failed_start(language, f"working directory not found: {cwd}", started, timeout)
    work_dir = _make_work_dir()
    spool_dir = work_dir if background else tmp_root()  # a background run's logs stay readable
    stdout = Spool(spool_dir, "stdout.log" if background else None)
    stderr = None if merge_stderr else Spool(spool_dir, "stderr.log" if background else None)
    end = _ProcessEnd(None)
    try:
        program = write_program(runtime, code, work_dir, cwd=cwd, file_path=file_path)
        env = _child_env(work_dir, program.env_prepend, extra_env)
        if file_path:
            env.setdefault("FILE_CONTENT_PATH", file_path)
        deadline = started + timeout / 1000
        wait_ms = timeout_ms if timeout_ms and timeout_ms > 0 else BACKGROUND_WAIT_MS
        detach_at = started + wait_ms / 1000 if background else None
        end = _build_and_run(program, cwd, work_dir, env, stdout, stderr, deadline, detach_at)
    except OSError as exc:
        end = _ProcessEnd(None, start_error=f"could not start {language} ({runtime}): {exc}")
    except BaseException:
        for spool in (stdout, stderr):
            if spool is not None:
                spool.close()
        raise
    finally:
        if end.backgrounded and end.process is not None:
            _watch_background(end.process, work_dir)
        else:
            shutil.rmtree(work_dir, ignore_errors=True)
    return _finish(language, stdout, stderr, end, started, timeout, work_dir)


def _build_and_run(
    program: Program,
    cwd: str,
    work_dir: str,
    env: Mapping[str, str],
    stdout: Spool,
    stderr: Spool | None,
    deadline: float,
    detach_at: float | None,
) -> _ProcessEnd:
    """Build steps run in the work dir under the deadline; the program runs in `cwd`.

    With `detach_at` (background mode) the program has no deadline: it is left
    running at `detach_at`.
    """
    run = functools.partial(_run_process, env=env, stdout=stdout, stderr=stderr)
    for step in program.build:
        end = run(step, cwd=work_dir, deadline=deadline)
        if end.exit_code != 0:
            end.compile_failed = not (end.timed_out or end.output_capped)
            return end
    program_deadline = None if detach_at is not None else deadline
    return run(program.run, cwd=cwd, deadline=program_deadline, detach_at=detach_at)


def _finish(
    language: str,
    stdout: Spool,
    stderr: Spool | None,
    end: _ProcessEnd,
    started: float,
    timeout_ms: int,
    work_dir: str,
) -> ExecResult:
    collector = DiagnosticCollector()
    out = summarize_spool(stdout, collector)
    err = summarize_spool(stderr, collector) if stderr else empty_stream()
    elapsed_ms = int((time.monotonic() - started) * 1000)
    outcome = kinds.Outcome(
        language=language,
        exit_code=end.exit_code,
        stdout_blank=out.is_blank,
        timed_out=end.timed_out,
        backgrounded=end.backgrounded,
        output_capped=end.output_capped,
        compile_failed=end.compile_failed,
        start_error=end.start_error,
    )
    return ExecResult(
        language=language,
        exit_code=end.exit_code,
        classification=kinds.classify(outcome),
        stdout=out,
        stderr=err,
        diagnostics=collector.result(),
        duration_ms=elapsed_ms,
        timeout_ms=timeout_ms,
        timed_out=end.timed_out,
        backgrounded=end.backgrounded,
        notes=_notes(end, elapsed_ms, timeout_ms, work_dir),
        error=end.start_error,
        pid=end.process.pid if end.backgrounded and end.process else None,
        log_dir=work_dir if end.backgrounded else None,
    )


def _notes(end: _ProcessEnd, elapsed_ms: int, timeout_ms: int, work_dir: str) -> list[str]:
    if end.timed_out:
        return [f"timed out after {timeout_ms} ms — process group killed, partial output kept"]
    if end.backgrounded and end.process is not None:
        return [
            f"process backgrounded after {elapsed_ms} ms — still running (pid {end.process.pid});"
            f" its output continues in {work_dir}/stdout.log"
        ]
    if end.output_capped:
        mb = OUTPUT_CAP_BYTES // (1024 * 1024)
        return [f"output capped at {mb} MB — process group killed"]
    if end.compile_failed:
        return [f"compilation failed (exit {end.exit_code})"]
    if end.exit_code is not None and end.exit_code < 0:
        return [f"killed by signal {signal.Signals(-end.exit_code).name}"]
    return []


# ---------------------------------------------------------------- files


def resolve_file_in_project(
    path: str,
    project_root: str,
    allow_outside: Callable[[str], bool] | None = None,
) -> str:
    """The real path of `path` (relative to the project root or absolute) if it may be read.

    Symlinks and `..` are resolved first, so neither can escape the root. A path
    outside the root passes only when `allow_outside(resolved_path)` says so.
    """
    root = os.path.realpath(project_root)
    expanded = os.path.expanduser(path)
    resolved = os.path.realpath(os.path.join(root, expanded))
    inside = resolved == root or resolved.startswith(root.rstrip(os.sep) + os.sep)
    if not inside and not (allow_outside is not None and allow_outside(resolved)):
        raise PathOutsideProjectError(path, resolved, root)
    if not os.path.isfile(resolved):
        reason = "is not a regular file" if os.path.exists(resolved) else "does not exist"
        raise FileAccessError(f"{path} {reason}")
    return resolved


def run_file(
    path: str,
    language: str,
    code: str,
    *,
    project_root: str,
    cwd: str | None = None,
    timeout_ms: int | None = None,
    background: bool = False,
    extra_env: dict[str, str] | None = None,
    allow_outside: Callable[[str], bool] | None = None,
) -> ExecResult:
    """Run `code` with the file at `path` available as FILE_CONTENT (see `run_code`).

    The code also gets FILE_CONTENT_PATH and file_path (lower-case names in
    Elixir), and the FILE_CONTENT_PATH environment variable. Raises FileAccessError
    (PathOutsideProjectError for an escape) before anything runs.
    """
    resolved = resolve_file_in_project(path, project_root, allow_outside)
    return run_code(
        language,
        code,
        cwd=cwd or os.path.realpath(project_root),
        timeout_ms=timeout_ms,
        background=background,
        extra_env=extra_env,
        file_path=resolved,
    )
