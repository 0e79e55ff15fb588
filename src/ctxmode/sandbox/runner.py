"""run_code and run_file: submitted code in, an ExecResult (outcome, output, diagnostics) out.

Each call gets a work dir `<data root>/tmp/exec-*` (the script, compiled
binaries, the child's TMPDIR), removed when the process ends. The child runs in
`cwd` in its own session (so its whole process group can be killed), with stdin
closed and stdout/stderr written straight into spool files. On timeout the
group gets SIGTERM, a short grace, then SIGKILL; what was written so far is kept.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from ctxmode import settings
from ctxmode.sandbox import budget
from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.diagnostics import DiagnosticCollector, Diagnostics
from ctxmode.sandbox.environment import build_env
from ctxmode.sandbox.files import resolve_file_in_project
from ctxmode.sandbox.output import Spool, StreamOutput, empty_stream, summarize_spool
from ctxmode.sandbox.process import (
    ProcessEnd,
    make_work_dir,
    run_process,
    tmp_root,
    watch_background,
)
from ctxmode.sandbox.runtimes import (
    Program,
    RuntimeMissingError,
    check_language,
    resolve,
    write_program,
)

BACKGROUND_WAIT_MS = 3_000  # how long a background run is watched before it is detached


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


# ---------------------------------------------------------------- settings


def effective_timeout_ms(timeout_ms: int | None) -> int:
    """The argument if positive, else `CTXMODE_EXEC_TIMEOUT_MS`, else 120 s."""
    if timeout_ms is not None and timeout_ms > 0:
        return int(timeout_ms)
    return settings.integer(settings.EXEC_TIMEOUT_MS)


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
    output_cap_bytes: int | None = None,
) -> ExecResult:
    """Run `code` in `language` with `cwd` as working directory.

    `timeout_ms` (default: `CTXMODE_EXEC_TIMEOUT_MS`, else 120 s) bounds build and
    run together. With `background`, the process is watched for `timeout_ms` if
    given (else 3 s) and then left running; its output keeps going to files in
    `result.log_dir`. `file_path` (used by `run_file`) defines FILE_CONTENT and
    friends in the code. `merge_stderr` writes both streams into stdout, in order.
    At most `output_cap_bytes` (default `budget.output_cap()`, half of what one call may add
    to the data root) of output is kept, whatever the writer: past it the group is killed
    and the rest dropped (noted).
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
    work_dir = make_work_dir()
    spool_dir = work_dir if background else tmp_root()  # a background run's logs stay readable
    stdout = Spool(spool_dir, "stdout.log" if background else None)
    stderr = None if merge_stderr else Spool(spool_dir, "stderr.log" if background else None)
    end = ProcessEnd(None)
    cap = budget.output_cap() if output_cap_bytes is None else output_cap_bytes
    try:
        program = write_program(runtime, code, work_dir, cwd=cwd, file_path=file_path)
        env = _child_env(work_dir, program.env_prepend, extra_env)
        if file_path:
            env.setdefault("FILE_CONTENT_PATH", file_path)
        deadline = started + timeout / 1000
        wait_ms = timeout_ms if timeout_ms and timeout_ms > 0 else BACKGROUND_WAIT_MS
        detach_at = started + wait_ms / 1000 if background else None
        run = functools.partial(run_process, env=env, stdout=stdout, stderr=stderr, output_cap=cap)
        end = _build_and_run(program, cwd, work_dir, run, deadline, detach_at)
    except OSError as exc:
        end = ProcessEnd(None, start_error=f"could not start {language} ({runtime}): {exc}")
    except BaseException:
        for spool in (stdout, stderr):
            if spool is not None:
                spool.close()
        raise
    finally:
        if end.backgrounded and end.process is not None:
            watch_background(end.process, work_dir)
        else:
            shutil.rmtree(work_dir, ignore_errors=True)
    dropped = 0 if end.backgrounded else _cap_spools(stdout, stderr, cap)
    return _finish(language, stdout, stderr, end, started, timeout, work_dir, (cap, dropped))


def _build_and_run(
    program: Program,
    cwd: str,
    work_dir: str,
    run: Callable[..., ProcessEnd],
    deadline: float,
    detach_at: float | None,
) -> ProcessEnd:
    """Build steps run in the work dir under the deadline; the program runs in `cwd`.

    With `detach_at` (background mode) the program has no deadline: it is left
    running at `detach_at`.
    """
    for step in program.build:
        end = run(step, cwd=work_dir, deadline=deadline)
        if end.exit_code != 0:
            end.compile_failed = not (end.timed_out or end.output_capped)
            return end
    program_deadline = None if detach_at is not None else deadline
    return run(program.run, cwd=cwd, deadline=program_deadline, detach_at=detach_at)


def _cap_spools(stdout: Spool, stderr: Spool | None, cap: int) -> int:
    """Cut the spools to `cap` bytes together (stderr keeps its share); bytes dropped.

    The group is killed once the cap is passed, but a fast writer gets far past it
    between two checks (and a run can end before the first): what is kept is cut here.
    """
    out_size, err_size = stdout.size(), stderr.size() if stderr else 0
    if out_size + err_size <= cap:
        return 0
    keep_out = min(out_size, max(cap - err_size, cap // 2))
    keep_err = min(err_size, cap - keep_out)
    stdout.truncate(keep_out)
    if stderr is not None:
        stderr.truncate(keep_err)
    return out_size + err_size - keep_out - keep_err


def _finish(
    language: str,
    stdout: Spool,
    stderr: Spool | None,
    end: ProcessEnd,
    started: float,
    timeout_ms: int,
    work_dir: str,
    capped: tuple[int, int] = (0, 0),
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
        notes=_notes(end, elapsed_ms, timeout_ms, work_dir, capped),
        error=end.start_error,
        pid=end.process.pid if end.backgrounded and end.process else None,
        log_dir=work_dir if end.backgrounded else None,
    )


def _notes(
    end: ProcessEnd, elapsed_ms: int, timeout_ms: int, work_dir: str, capped: tuple[int, int]
) -> list[str]:
    cap, dropped = capped
    # The reaper passes a command's output on up to the cap plus one byte and drops the
    # rest uncounted: how much more it printed is then unknown.
    amount = budget.mb(dropped) if dropped > 1 else "output"
    kept = f"output capped at {budget.mb(cap)}: {amount} past the cap dropped" if dropped else ""
    if end.timed_out:
        killed = f"timed out after {timeout_ms} ms — process group killed, partial output kept"
        return [killed, kept] if kept else [killed]
    if end.output_capped or dropped:
        killed = " — process group killed" if end.output_capped else ""
        return [(kept or f"output capped at {budget.mb(cap)}") + killed]
    if end.backgrounded and end.process is not None:
        return [
            f"process backgrounded after {elapsed_ms} ms — still running (pid {end.process.pid});"
            f" its output continues in {work_dir}/stdout.log"
        ]
    if end.compile_failed:
        return [f"compilation failed (exit {end.exit_code})"]
    if end.exit_code is not None and end.exit_code < 0:
        return [f"killed by signal {signal.Signals(-end.exit_code).name}"]
    return []


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
