"""`ctxmode run` in real processes: injection, guard, allowed commands, digest, signals."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import CTXMODE, ctx

PY = sys.executable


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace with session `pa` holding one entry; python may receive the context."""
    path = tmp_path / "prod" / "archive"
    path.mkdir(parents=True)
    monkeypatch.setenv("CTXMODE_ALLOWED_COMMANDS", f"{os.path.basename(PY)},python*")
    ctx(
        "session",
        "record",
        "--session",
        "pa",
        "--role",
        "user",
        "--content",
        "why did the 02:00 import fail?",
        cwd=path,
    )
    return path


def show(work: Path) -> str:
    return ctx("session", "show", "--session", "pa", cwd=work).stdout


def test_env_injection_puts_the_block_in_ctx_block(work: Path) -> None:
    child = "import os; b=os.environ['CTX_BLOCK']; print(b == open(os.environ['CTX_BLOCK_FILE']).read()); print(b)"
    result = ctx("run", "--session", "pa", "--", PY, "-c", child, cwd=work)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("Session pa ")
    assert "why did the 02:00 import fail?" in result.stdout
    assert f"Session workspace: {work.resolve()}" in result.stdout
    # The block file lives only as long as the child.
    assert list((Path(os.environ["CTXMODE_DIR"]) / "run").iterdir()) == []


def test_stdin_injection_feeds_the_block_to_the_child(work: Path) -> None:
    child = "import sys; print(sys.stdin.read().splitlines()[0])"
    result = ctx("run", "--session", "pa", "--inject", "stdin", "--", PY, "-c", child, cwd=work)
    assert result.stdout.startswith("Session pa ")


def test_arg_injection_appends_a_context_argument(work: Path) -> None:
    child = "import sys; print(sys.argv[1:3], sys.argv[3] == '--context', sys.argv[4][:10])"
    result = ctx(
        "run", "--session", "pa", "--inject", "arg", "--", PY, "-c", child, "a", "b", cwd=work
    )
    assert result.stdout.strip() == "['a', 'b'] True Session pa"


def test_a_context_larger_than_arg_max_reaches_the_child_through_the_env(work: Path) -> None:
    arg_max = os.sysconf("SC_ARG_MAX")
    config = Path(os.environ["CTXMODE_CONFIG_DIR"]) / "config.toml"
    config.write_text(f'[[scopes]]\npath = "{work}"\nwindow = 8\nmax_chars = {arg_max * 2}\n')
    piece = "".join(f"line {i} of a very large log excerpt\n" for i in range(arg_max // 150))
    for _ in range(5):
        ctx(
            "session",
            "record",
            "--session",
            "pa",
            "--role",
            "tool",
            "--content",
            "-",
            stdin=piece,
            cwd=work,
        )
    expected = ctx("session", "build", "--session", "pa", cwd=work).stdout.rstrip("\n")
    assert len(expected.encode()) > arg_max
    child = (
        "import os, hashlib; data = open(os.environ['CTX_BLOCK_FILE'], 'rb').read(); "
        "print(len(data), hashlib.sha256(data).hexdigest()); print(os.environ['CTX_BLOCK'])"
    )
    result = ctx("run", "--session", "pa", "--", PY, "-c", child, cwd=work)
    assert result.returncode == 0, result.stderr
    size, digest = result.stdout.splitlines()[0].split()
    assert int(size) == len(expected.encode())
    assert digest == hashlib.sha256(expected.encode()).hexdigest()
    assert "read it from $CTX_BLOCK_FILE" in result.stdout.splitlines()[1]
    # The same block cannot be an argument: a clear error, and the command does not run.
    marker = work / "ran"
    as_arg = ctx(
        "run",
        "--session",
        "pa",
        "--inject",
        "arg",
        "--",
        PY,
        "-c",
        f"open({str(marker)!r}, 'w')",
        cwd=work,
    )
    assert as_arg.returncode == 2
    assert "too large for a command-line argument" in as_arg.stderr
    assert not marker.exists()


def test_commands_outside_allowed_commands_run_without_context(work: Path) -> None:
    env = {**os.environ, "CTXMODE_ALLOWED_COMMANDS": "grep"}
    child = "import os; print('CTX_BLOCK' in os.environ, 'CTX_BLOCK_FILE' in os.environ)"
    result = ctx("run", "--session", "pa", "--", PY, "-c", child, cwd=work, env=env)
    assert result.returncode == 0
    assert result.stdout.strip() == "False False"
    assert result.stderr == ""  # left out of a configured list on purpose: no noise
    asked = ctx(
        "run", "--session", "pa", "--inject", "stdin", "--", PY, "-c", child, cwd=work, env=env
    )
    assert asked.stdout.strip() == "False False"
    assert "not in allowed_commands" in asked.stderr
    # Nothing configured at all: nothing receives the context, and the user is told.
    env.pop("CTXMODE_ALLOWED_COMMANDS")
    result = ctx("run", "--session", "pa", "--", PY, "-c", child, cwd=work, env=env)
    assert result.stdout.strip() == "False False"
    assert "not in allowed_commands" in result.stderr
    # Each run is recorded all the same.
    assert show(work).count(f"$ {PY} -c") == 3


def test_allowed_commands_from_the_config_file(work: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CTXMODE_ALLOWED_COMMANDS"}
    config = Path(os.environ["CTXMODE_CONFIG_DIR"]) / "config.toml"
    config.write_text('allowed_commands = ["python*"]\n')
    child = "import os; print('CTX_BLOCK' in os.environ)"
    result = ctx("run", "--session", "pa", "--", PY, "-c", child, cwd=work, env=env)
    assert result.stdout.strip() == "True"


def test_run_records_the_command_exit_code_and_a_digest(work: Path) -> None:
    child = (
        "import sys; print('scanning 3 files'); print('ERROR: disk full on /var'); "
        "print('password=hunter2'); print('done: 1 failure', file=sys.stderr); sys.exit(7)"
    )
    result = ctx("run", "--session", "pa", "--", PY, "-c", child, cwd=work)
    assert result.returncode == 7
    assert result.stdout == "scanning 3 files\nERROR: disk full on /var\npassword=hunter2\n"
    assert result.stderr == "done: 1 failure\n"
    shown = show(work)
    assert "exit 7; stdout 3 lines" in shown and "stderr 1 line" in shown
    assert "  ERROR: disk full on /var" in shown
    assert "last stdout line: password=[FILTERED]" in shown
    assert "hunter2" not in shown
    audit = (Path(os.environ["CTXMODE_DIR"]) / "logs" / "session-audit.log").read_text()
    assert "\tsession=pa\tcommand=run " in audit


def test_run_outside_the_workspace_stops_before_running_anything(
    work: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "test" / "logs"
    elsewhere.mkdir(parents=True)
    marker = tmp_path / "ran"
    touch = ["--", PY, "-c", f"open({str(marker)!r}, 'w').write('x')"]
    stopped = ctx("run", "--session", "pa", *touch, cwd=elsewhere)
    assert stopped.returncode == 3
    assert "is not inside the workspace of session 'pa'" in stopped.stderr
    assert not marker.exists()
    confirmed = ctx("run", "--session", "pa", "--confirm", *touch, cwd=elsewhere)
    assert confirmed.returncode == 0 and marker.exists()
    assert f"(ran outside the workspace, in {elsewhere.resolve()}, with --confirm)" in show(work)
    marker.unlink()
    ctx("session", "switch", "--session", "pa", "--workspace", str(elsewhere), cwd=work)
    assert ctx("run", "--session", "pa", *touch, cwd=elsewhere).returncode == 0
    assert marker.exists()


def test_output_streams_through_byte_for_byte(work: Path) -> None:
    child = (
        "import sys; data = bytes(range(256)) * 8192; sys.stdout.buffer.write(data); "
        "sys.stderr.buffer.write(b'\\xff\\x00err')"
    )
    result = subprocess.run(
        [*CTXMODE, "run", "--session", "pa", "--", PY, "-c", child],
        cwd=work,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout == bytes(range(256)) * 8192
    assert result.stderr == b"\xff\x00err"


def test_a_missing_command_exits_127_and_is_recorded(work: Path) -> None:
    result = ctx("run", "--session", "pa", "--", "no-such-command-xyz", cwd=work)
    assert result.returncode == 127
    assert "command not found: no-such-command-xyz" in result.stderr
    assert "exit 127" in show(work)


SIGNAL_CHILD = """
import signal, sys, time
def stop(signum, frame):
    print(f"child got {signal.Signals(signum).name}", flush=True)
    sys.exit(5)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
print("ready", flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_are_forwarded_to_the_child(work: Path, signum: int) -> None:
    proc = subprocess.Popen(
        [*CTXMODE, "run", "--session", "pa", "--", PY, "-c", SIGNAL_CHILD],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signum)  # to ctxmode only, as `kill` would
    out, _err = proc.communicate(timeout=60)
    assert out == f"child got {signal.Signals(signum).name}\n".encode()
    assert proc.returncode == 5


def test_a_child_killed_by_a_signal_gives_128_plus_n(work: Path) -> None:
    child = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    assert ctx("run", "--session", "pa", "--", PY, "-c", child, cwd=work).returncode == 137


def test_each_round_adds_a_sentence_to_the_summary_the_next_round_reads(work: Path) -> None:
    ctx("run", "--session", "pa", "--", PY, "-c", "print('02:13 ERROR disk full')", cwd=work)
    ctx("session", "record", "--session", "pa", "--role", "tool",
        "--content", "df: /var at 100%", cwd=work)  # fmt: skip
    ctx("session", "checkpoint", "--session", "pa", "disk full caused it", cwd=work)
    child = "import os; print(os.environ['CTX_BLOCK'])"
    block = ctx("run", "--session", "pa", "--", PY, "-c", child, cwd=work).stdout

    summary = block[block.index("Summary:") : block.index("Recent entries:")]
    assert "Ran `" in summary and "first error: 02:13 ERROR disk full" in summary
    assert "Tool result: df: /var at 100%." in summary
    assert "Checkpoints marked UNVERIFIED are unconfirmed findings: do not use them" in block
    shown = show(work)
    stored = shown[shown.index("summary: ") : shown.index("\n[#")].splitlines()
    assert stored[0].startswith("summary: Ran `")  # a question or a checkpoint adds none
    assert stored[1] == "Tool result: df: /var at 100%."
    assert stored[2].startswith("Ran `")  # the last run added its own sentence when it ended
    assert len(stored) == 3
