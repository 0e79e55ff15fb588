"""run_code with real subprocesses: languages, process model, timeouts, background, env."""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox import process, runner, runtimes, shape_output
from ctxmode.sandbox.output import Spool
from ctxmode.sandbox.process import stop_background_processes
from ctxmode.sandbox.runner import run_code

HAS_NODE = shutil.which("node") is not None
needs_node = pytest.mark.skipif(not HAS_NODE, reason="node is not installed")


def test_python_runs_in_the_given_cwd_with_both_streams(project: Path) -> None:
    code = "import os, sys\nprint(os.getcwd())\nprint('to stderr', file=sys.stderr)"
    with run_code("python", code, cwd=str(project)) as result:
        assert result.exit_code == 0
        assert result.classification == kinds.OK
        assert result.stdout.text().strip() == str(project)
        assert result.stderr.text() == "to stderr\n"
        assert not result.is_error


def test_python_can_import_modules_from_the_working_directory(project: Path) -> None:
    (project / "helper_mod.py").write_text("VALUE = 42\n")
    with run_code("python", "import helper_mod; print(helper_mod.VALUE)", cwd=str(project)) as r:
        assert r.stdout.text() == "42\n"


def test_shell_runs_in_the_project(project: Path) -> None:
    (project / "marker.txt").write_text("x")
    with run_code("shell", "ls; echo done", cwd=str(project)) as result:
        assert result.stdout.text() == "marker.txt\ndone\n"


@needs_node
def test_javascript_runs_as_an_es_module_with_import_and_require(project: Path) -> None:
    code = (
        "import path from 'node:path';\n"
        "import { readFileSync } from 'node:fs';\n"
        "const os = require('os');\n"
        "console.log(path.basename('/a/b.txt'), typeof readFileSync, typeof os.cpus);\n"
        "console.log(await Promise.resolve('top-level await'));\n"
    )
    with run_code("javascript", code, cwd=str(project)) as result:
        assert result.stderr.text() == ""
        assert result.stdout.text() == "b.txt function function\ntop-level await\n"


@needs_node
def test_javascript_imports_packages_from_the_project_node_modules(project: Path) -> None:
    package = project / "node_modules" / "greeter"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "greeter", "main": "index.js"}')
    (package / "index.js").write_text("module.exports = { hello: () => 'hello from greeter' };")
    code = "import greeter from 'greeter';\nconsole.log(greeter.hello());"
    with run_code("javascript", code, cwd=str(project)) as result:
        assert result.stdout.text() == "hello from greeter\n", result.stderr.text()


@needs_node
def test_javascript_error_lines_point_at_the_submitted_code(project: Path) -> None:
    code = "const a = 1;\nthrow new Error('boom');\n"
    with run_code("javascript", code, cwd=str(project)) as result:
        assert result.is_error
        assert ":2" in result.stderr.text()  # line 2 of what was submitted
        assert any("Error: boom" in line for line in result.diagnostics.lines)


def test_stdin_is_closed(project: Path) -> None:
    with run_code("python", "import sys; print(repr(sys.stdin.read()))", cwd=str(project)) as r:
        assert r.stdout.text() == "''\n"
    with run_code("shell", "cat; echo after-cat", cwd=str(project), timeout_ms=20_000) as r:
        assert r.stdout.text() == "after-cat\n"
        assert not r.timed_out


def test_timeout_kills_the_whole_process_group(
    project: Path, pid_is_gone: Callable[[int], bool], eventually: Callable[..., bool]
) -> None:
    code = "sleep 1000 & echo $!\nsleep 1000 & echo $!\n( sleep 1000 & echo $! ; wait )\nwait\n"
    with run_code("shell", code, cwd=str(project), timeout_ms=1500) as result:
        assert result.timed_out
        pids = [int(line) for line in result.stdout.text().split()]
        assert len(pids) == 3
        for pid in pids:
            assert eventually(lambda: pid_is_gone(pid)), f"grandchild {pid} survived"  # noqa: B023
        assert result.classification == kinds.TIMEOUT_PARTIAL
        assert "timed out after 1500 ms" in result.notes[0]


def test_timeout_keeps_partial_output_and_is_not_an_error(project: Path) -> None:
    code = "import time\nprint('started', flush=True)\ntime.sleep(60)"
    with run_code("python", code, cwd=str(project), timeout_ms=1500) as result:
        assert result.timed_out
        assert result.stdout.text() == "started\n"
        assert not result.is_error
        reply = shape_output(result)
        assert "started" in reply.text and "timed out after 1500 ms" in reply.text


def test_timeout_without_output_is_an_error(project: Path) -> None:
    with run_code("shell", "sleep 60", cwd=str(project), timeout_ms=500) as result:
        assert result.classification == kinds.TIMEOUT
        assert result.is_error
        assert "Execution timed out after 500 ms" in shape_output(result).text


def test_timeout_comes_from_the_environment_when_not_given(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXMODE_EXEC_TIMEOUT_MS", "700")
    with run_code("shell", "sleep 60", cwd=str(project)) as result:
        assert result.timed_out
        assert result.timeout_ms == 700
    monkeypatch.delenv("CTXMODE_EXEC_TIMEOUT_MS")
    assert runner.effective_timeout_ms(None) == 120_000
    assert runner.effective_timeout_ms(5) == 5


def test_background_detaches_and_returns_what_came_so_far(
    project: Path, pid_is_gone: Callable[[int], bool], eventually: Callable[..., bool]
) -> None:
    code = "echo started\nexec sleep 1000"
    with run_code("shell", code, cwd=str(project), timeout_ms=800, background=True) as result:
        assert result.backgrounded and not result.is_error
        assert result.classification == kinds.BACKGROUNDED
        assert result.stdout.text() == "started\n"
        assert result.pid is not None and not pid_is_gone(result.pid)
        assert result.log_dir is not None and os.path.isdir(result.log_dir)
        assert "still running" in shape_output(result).text
    assert stop_background_processes() >= 1
    assert pid_is_gone(result.pid)
    assert eventually(lambda: not os.path.exists(result.log_dir))


def test_background_run_that_finishes_early_returns_normally(project: Path) -> None:
    with run_code("shell", "echo quick", cwd=str(project), background=True) as result:
        assert not result.backgrounded
        assert result.exit_code == 0 and result.stdout.text() == "quick\n"


def test_work_dir_lives_under_the_data_root_and_is_removed(project: Path, data_root: Path) -> None:
    code = "import os; print(os.environ['TMPDIR'])"
    with run_code("python", code, cwd=str(project)) as result:
        work_dir = result.stdout.text().strip()
    assert work_dir.startswith(str(data_root / "tmp" / "exec-"))
    assert not os.path.exists(work_dir)
    assert [p.name for p in (data_root / "tmp").iterdir()] == []


def test_stale_work_dirs_of_dead_owners_are_swept(data_root: Path) -> None:
    root = process.tmp_root()
    stale = Path(root) / "exec-stale"
    stale.mkdir()
    (stale / "owner.pid").write_text("999999999")
    live = Path(root) / "exec-live"
    live.mkdir()
    (live / "owner.pid").write_text(str(os.getpid()))
    assert process.sweep_stale_work_dirs(root) == 1
    assert not stale.exists() and live.exists()


def test_fifty_megabytes_of_stdout_stay_out_of_memory_and_out_of_the_reply(
    project: Path,
) -> None:
    code = (
        "import sys\n"
        "block = ('x' * 99 + '\\n') * 10_000\n"
        "for _ in range(50): sys.stdout.write(block)\n"
        "print('Traceback (most recent call last):', file=sys.stderr)\n"
        "print('ValueError: the needle at the end', file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    tracemalloc.start()
    try:
        with run_code("python", code, cwd=str(project)) as result:
            reply = shape_output(result)
            pieces = sum(1 for _ in result.stdout.iter_text())
            _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.stdout.byte_count == 50_000_000
    assert peak < 12_000_000, f"peak Python memory {peak} bytes"
    assert pieces > 10  # streamed from the spool in bounded pieces
    assert len(reply.text.encode()) < 5_000
    assert "ValueError: the needle at the end" in reply.text
    assert "exit 3" in reply.text
    assert reply.is_error


FAST_WRITERS = {
    "yes": ("shell", "yes"),
    # Ignores SIGTERM and writes 1 MB per call: a grace period would let it run on.
    "python ignoring SIGTERM": (
        "python",
        "import signal, sys\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "block = 'x' * (1 << 20)\nwhile True:\n    sys.stdout.write(block)\n",
    ),
}


@pytest.mark.parametrize("writer", FAST_WRITERS, ids=str)
def test_output_over_the_cap_kills_the_process_and_keeps_only_the_cap(
    project: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    monkeypatch.setenv("CTXMODE_CALL_DISK_CAP", "4000000")  # the output gets half
    language, code = FAST_WRITERS[writer]
    with run_code(language, code, cwd=str(project), timeout_ms=60_000) as result:
        assert result.classification == kinds.OUTPUT_CAPPED
        assert result.is_error
        assert result.total_bytes <= 2_000_000
        assert sum(len(piece.encode()) for piece in result.iter_text()) <= 2_000_000 + 20
        assert "output capped at 1.9 MB" in result.notes[0], result.notes
        assert "dropped" in result.notes[0] and "killed" in result.notes[0]


def test_output_written_past_the_cap_before_any_check_is_cut_too(project: Path) -> None:
    code = "echo done >&2; head -c 3000000 /dev/zero | tr '\\0' x"
    with run_code("shell", code, cwd=str(project), output_cap_bytes=1_000_000) as result:
        assert result.total_bytes == 1_000_000
        assert result.stderr.head == "done\n"  # stderr keeps its share
        # Whether a check saw it before it ended or not, the note states cap and loss.
        assert re.match(
            r"output capped at 1\.0 MB: ([0-9.]+ MB|output) past the cap dropped", result.notes[0]
        )


def test_interpreter_start_up_hooks_are_scrubbed_and_credentials_pass(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hook = tmp_path / "hook.sh"
    hook.write_text("echo HOOK-RAN\n")
    monkeypatch.setenv("BASH_ENV", str(hook))
    monkeypatch.setenv("ENV", str(hook))
    monkeypatch.setenv("PERL5OPT", "-MNonExistent::Module")
    monkeypatch.setenv("GITHUB_TOKEN", "secret-token-value")
    code = 'echo "token=$GITHUB_TOKEN bash_env=${BASH_ENV:-unset}"'
    with run_code("shell", code, cwd=str(project)) as result:
        assert result.stdout.text() == "token=secret-token-value bash_env=unset\n"
    if shutil.which("perl"):
        with run_code("perl", 'print "perl ok\\n";', cwd=str(project)) as result:
            assert result.stdout.text() == "perl ok\n", result.stderr.text()


def test_python_start_up_variables_are_scrubbed(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    startup = tmp_path / "startup.py"
    startup.write_text("print('STARTUP RAN')\n")
    monkeypatch.setenv("PYTHONSTARTUP", str(startup))
    monkeypatch.setenv("PYTHONINSPECT", "1")
    monkeypatch.setenv("PYTHONWARNINGS", "error")
    code = "import os, warnings\nwarnings.warn('just a warning')\nprint(os.environ.get('PYTHONSTARTUP'))"
    with run_code("python", code, cwd=str(project), timeout_ms=20_000) as result:
        assert result.exit_code == 0, result.stderr.text()
        assert result.stdout.text() == "None\n"
        assert "STARTUP RAN" not in result.stdout.text() + result.stderr.text()


@needs_node
def test_node_options_cannot_break_node(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NODE_OPTIONS", "--require /nonexistent/preload.js")
    with run_code("javascript", "console.log('node ok')", cwd=str(project)) as result:
        assert result.stdout.text() == "node ok\n", result.stderr.text()


def test_extra_env_reaches_the_child(project: Path) -> None:
    with run_code("shell", 'echo "$MY_VAR"', cwd=str(project), extra_env={"MY_VAR": "v1"}) as r:
        assert r.stdout.text() == "v1\n"


def test_missing_runtime_is_a_clear_one_line_error(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with run_code("javascript", "console.log(1)", cwd=str(project)) as result:
        assert result.classification == kinds.RUNTIME_ERROR
        assert result.is_error
        assert result.error is not None and "\n" not in result.error
        assert "No javascript runtime found" in result.error and "Node.js" in result.error
        assert shape_output(result).text.startswith("Runtime error: No javascript runtime")


def test_runtimes_are_found_lazily_and_cached() -> None:
    first = runtimes.probe("shell")
    assert first is not None and first.name in ("bash", "sh", "zsh", "dash", "ksh")
    assert runtimes.probe("shell") is first
    assert runtimes.probe("SHELL") is first


def test_unknown_language_and_missing_cwd(project: Path) -> None:
    with pytest.raises(ValueError, match="unsupported language 'cobol'"):
        run_code("cobol", "x", cwd=str(project))
    with run_code("shell", "echo", cwd=str(project / "nope")) as result:
        assert result.classification == kinds.RUNTIME_ERROR
        assert "working directory not found" in (result.error or "")


def test_exit_classification(project: Path) -> None:
    with run_code("shell", "echo 'no match here'; exit 1", cwd=str(project)) as result:
        assert result.classification == kinds.SOFT_FAILURE and not result.is_error
    with run_code("shell", "exit 1", cwd=str(project)) as result:
        assert result.classification == kinds.ERROR and result.is_error
    with run_code("shell", "echo out; exit 2", cwd=str(project)) as result:
        assert result.is_error
    with run_code("python", "print('out'); raise SystemExit(1)", cwd=str(project)) as result:
        assert result.is_error
        assert shape_output(result).text.startswith("Exit code: 1")


def test_shell_exit_1_with_output_is_shown_without_an_error(project: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    with run_code("shell", "grep -c zzz a.txt", cwd=str(project)) as result:
        reply = shape_output(result)
        assert not reply.is_error
        assert reply.text.startswith("0")


# ---------------------------------------------------------------- other languages

HELLO = {
    "ruby": 'puts "hello"',
    "go": 'fmt.Println("hello")',
    "rust": 'println!("hello");',
    "php": 'echo "hello\\n";',
    "perl": 'print "hello\\n";',
    "r": 'cat("hello\\n")',
    "elixir": 'IO.puts("hello")',
    "csharp": 'Console.WriteLine("hello");',
    "typescript": "const who: string = 'hello';\nconsole.log(who);",
}


@pytest.mark.parametrize("language", sorted(HELLO))
def test_other_languages_say_hello_or_skip(language: str, project: Path) -> None:
    if runtimes.probe(language) is None:
        pytest.skip(f"no {language} runtime installed")
    with run_code(language, HELLO[language], cwd=str(project), timeout_ms=110_000) as result:
        assert result.stdout.text() == "hello\n", result.stderr.text()
        assert result.exit_code == 0


def test_typescript_without_a_runtime_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, project: Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with run_code("typescript", "console.log(1)", cwd=str(project)) as result:
        assert "tsx" in (result.error or "") and "Node.js >= 22.6" in (result.error or "")


def test_rust_compile_error_is_reported_with_its_diagnostics(project: Path) -> None:
    if runtimes.probe("rust") is None:
        pytest.skip("rustc is not installed")
    with run_code("rust", 'let x: i32 = "text";', cwd=str(project)) as result:
        assert result.classification == kinds.COMPILE_ERROR
        assert result.is_error
        assert any("error" in line for line in result.diagnostics.lines)


def test_processes_left_running_by_a_finished_call_are_stopped(
    project: Path, pid_is_gone: Callable[[int], bool], eventually: Callable[..., bool]
) -> None:
    with run_code("shell", "sleep 1000 &\necho $!", cwd=str(project)) as result:
        assert result.exit_code == 0
        pid = int(result.stdout.text())
    assert eventually(lambda: pid_is_gone(pid))  # SIGKILL was sent; death is asynchronous


def test_importing_the_sandbox_does_not_import_mcp() -> None:
    import subprocess
    import sys

    code = "import sys, ctxmode.sandbox; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _running(pid: int) -> bool:
    """Whether `pid` is alive (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return False


def _pids(path: Path) -> list[int]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ""
        if text.count("\n") >= 1:
            return [int(line) for line in text.split()]
        time.sleep(0.02)  # the escaped process writes its pid on its own schedule
    raise AssertionError(f"no pid written to {path}")


# Each writes the pid of a process that left the call's process group, then lingers.
ESCAPES = {
    "setsid &": "setsid sh -c 'echo $$ >> {f}; exec sleep 300' & sleep 0.3",
    "setsid -f": "setsid -f sh -c 'echo $$ >> {f}; exec sleep 300'; sleep 0.3",
    "double fork": "( ( sh -c 'echo $$ >> {f}; exec sleep 300' & ) & ); sleep 0.3",
    "python daemon": (
        'python3 -c "import os, time\nif os.fork() == 0:\n    os.setsid()\n'
        "    if os.fork() == 0:\n        open('{f}', 'a').write(f'{{os.getpid()}}\\\\n')\n"
        '        time.sleep(300)\n    os._exit(0)\nos.wait()"; sleep 0.3'
    ),
}
needs_reaper = pytest.mark.skipif(not process.USE_REAPER, reason="child subreapers: Linux only")


@needs_reaper
@pytest.mark.parametrize("escape", ESCAPES, ids=str)
def test_nothing_a_call_started_outlives_it(project: Path, tmp_path: Path, escape: str) -> None:
    pid_file = tmp_path / "pids"
    code = ESCAPES[escape].format(f=pid_file)
    with run_code("shell", code, cwd=str(project), timeout_ms=30_000) as result:
        assert result.exit_code == 0, (result.stdout.head, result.stderr.head)
    (pid,) = _pids(pid_file)
    assert not _running(pid), f"{escape}: pid {pid} outlived its call"


@needs_reaper
def test_a_flood_is_held_at_the_cap_however_late_the_server_looks(
    project: Path, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "POLL_S", 1.0)  # a server too busy to look for a second:
    monkeypatch.setattr(process, "FAST_POLL_S", 1.0)  # `yes` alone writes GBs in that time

    class NamedSpool(Spool):  # an unnamed spool's size cannot be watched from outside
        def __init__(self, directory: str, name: str | None = None) -> None:
            super().__init__(directory, name or "stdout.log")

    monkeypatch.setattr(runner, "Spool", NamedSpool)
    peak, done = [0], threading.Event()

    def watch() -> None:
        while not done.is_set():
            spools = (data_root / "tmp").rglob("*.log")
            peak[0] = max(peak[0], sum(p.stat().st_size for p in spools if p.is_file()))
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with run_code("shell", "yes", cwd=str(project), output_cap_bytes=1_000_000) as result:
            assert result.classification == kinds.OUTPUT_CAPPED
    finally:
        done.set()
        watcher.join()
    assert 0 < peak[0] <= 1_000_001


@needs_reaper
def test_a_backgrounded_flood_runs_on_with_its_log_held_at_the_cap(project: Path) -> None:
    code = "sleep 0.5; yes"  # floods once no one watches its output any more
    with run_code(
        "shell", code, cwd=str(project), timeout_ms=200, background=True,
        output_cap_bytes=1_000_000,
    ) as result:  # fmt: skip
        assert result.backgrounded and result.log_dir
        time.sleep(1.5)  # `yes` would write GBs meanwhile
        log = Path(result.log_dir) / "stdout.log"
        assert _running(result.pid) and log.stat().st_size <= 1_000_001
    assert stop_background_processes() >= 1


@needs_reaper
def test_a_timed_out_call_ends_its_escaped_processes_too(project: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    code = f"setsid -f sh -c 'trap \"\" TERM; echo $$ >> {pid_file}; exec sleep 300'; sleep 300"
    with run_code("shell", code, cwd=str(project), timeout_ms=1_500) as result:
        assert result.timed_out
    (pid,) = _pids(pid_file)
    assert not _running(pid)


@needs_reaper
def test_a_background_run_and_what_it_started_stop_with_the_server(
    project: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pids"
    code = f"setsid -f sh -c 'echo $$ >> {pid_file}; exec sleep 300'; exec sleep 300"
    with run_code("shell", code, cwd=str(project), timeout_ms=800, background=True) as result:
        assert result.backgrounded
    (pid,) = _pids(pid_file)
    assert _running(pid)  # asked for: it lives on after the call
    assert stop_background_processes() >= 1
    assert not _running(pid)
