"""The wrapper as hosts run it: the fast command line routing writes, in a real shell."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.launch import wrapped_command
from ctxmode.sandbox.shaping import NOTICE_BYTES
from ctxmode.store.knowledge import KnowledgeBase

HOST = "claude-code"


def wrap(command: str, project: Path, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    """Run `command` through the wrapper the way a host's shell tool would."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(  # type: ignore[call-overload]
        ["bash", "-c", wrapped_command(HOST, str(project), command)],
        cwd=project,
        timeout=60,
        check=False,
        **kwargs,
    )


def bare(command: str, project: Path, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(  # type: ignore[call-overload]
        ["bash", "-c", command], cwd=project, timeout=60, check=False, **kwargs
    )


# pieces of output, each written by its own `cat` to stdout or stderr, in order
pieces = st.lists(st.tuples(st.sampled_from(["out", "err"]), st.binary(max_size=700)), max_size=6)


def script(tmp: Path, parts: list[tuple[str, bytes]], exit_code: int) -> str:
    lines = []
    for index, (stream, data) in enumerate(parts):
        path = tmp / f"piece{index}"
        path.write_bytes(data)
        lines.append(f"cat {path}" + (" >&2" if stream == "err" else ""))
    return "; ".join([*lines, f"exit {exit_code}"])


@settings(max_examples=25)
@given(parts=pieces, exit_code=st.integers(0, 255))
def test_small_output_passes_through_byte_identical(
    tmp_path_factory: pytest.TempPathFactory, parts: list[tuple[str, bytes]], exit_code: int
) -> None:
    tmp = tmp_path_factory.mktemp("wrap")
    command = script(tmp, parts, exit_code)
    wrapped, plain = wrap(command, tmp), bare(command, tmp)
    assert wrapped.returncode == plain.returncode == exit_code
    assert wrapped.stdout == plain.stdout == b"".join(d for s, d in parts if s == "out")
    assert wrapped.stderr == plain.stderr == b"".join(d for s, d in parts if s == "err")


@settings(max_examples=15)
@given(parts=pieces, exit_code=st.integers(0, 3))
def test_interleaving_is_exact_when_the_host_reads_both_streams_from_one_pipe(
    tmp_path_factory: pytest.TempPathFactory, parts: list[tuple[str, bytes]], exit_code: int
) -> None:
    tmp = tmp_path_factory.mktemp("wrap")
    command = script(tmp, parts, exit_code)
    wrapped = wrap(command, tmp, stderr=subprocess.STDOUT)
    assert wrapped.stdout == b"".join(d for _, d in parts)
    assert wrapped.returncode == exit_code


def test_cwd_environment_stdin_and_compound_commands_are_the_shells(tmp_path: Path) -> None:
    command = 'read line; echo "$line|$WRAP_TEST|$(pwd)" | tr a-z A-Z && false || echo or-branch'
    result = wrap(
        command, tmp_path, input=b"abc\n", stdin=None, env={**os.environ, "WRAP_TEST": "v1"}
    )
    assert result.stdout == f"ABC|V1|{str(tmp_path).upper()}\nor-branch\n".encode()
    assert result.returncode == 0


def test_a_command_killed_by_a_signal_exits_128_plus_the_signal(tmp_path: Path) -> None:
    # What the host's shell reports as $? for the bare command, too.
    assert bare("kill -SEGV $$", tmp_path).returncode == -signal.SIGSEGV
    assert wrap("kill -SEGV $$", tmp_path).returncode == 128 + signal.SIGSEGV


def test_big_output_is_indexed_and_replaced_by_a_bounded_notice(tmp_path: Path) -> None:
    command = (
        'for i in $(seq 1 3000); do echo "tests/test_noise.py::test_case_$i PASSED"; done; '
        "echo 'FAILED tests/test_calc.py::test_divide - ZeroDivisionError: division by zero'; "
        "echo 'E   AssertionError: expected 42 got 41' >&2; "
        "echo '=== 1 failed, 3000 passed in 2.31s ==='; exit 1"
    )
    result = wrap(command, tmp_path)
    notice = result.stdout.decode()
    assert result.returncode == 1
    assert result.stderr == b""
    assert len(result.stdout) <= NOTICE_BYTES + 1
    assert "exit 1" in notice
    assert "FAILED tests/test_calc.py::test_divide" in notice
    assert "AssertionError: expected 42 got 41" in notice
    assert "1 failed, 3000 passed" in notice
    label = notice.split('source="', 1)[1].split('"', 1)[0]
    assert f'mcp__context-mode__ctx_search(queries=["<what you need>"], source="{label}")' in notice
    with KnowledgeBase.open(os.path.realpath(tmp_path)) as kb:
        hits = kb.search(["test_case_1517"], limit=3, source=label)[0].hits
    assert any("test_case_1517" in (hit.snippet or "") for hit in hits)


def test_binary_big_output_still_gets_a_notice(tmp_path: Path) -> None:
    result = wrap("head -c 300000 /dev/urandom; exit 5", tmp_path)
    assert result.returncode == 5
    assert len(result.stdout) <= NOTICE_BYTES + 1
    assert b"ctx_search" in result.stdout


def test_unusable_store_prints_the_whole_output_instead(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    env = {**os.environ, "CTXMODE_DIR": str(blocker / "data")}
    result = wrap("seq 1 5000; echo oops >&2; exit 3", tmp_path, env=env)
    expected = "".join(f"{i}\n" for i in range(1, 5001)).encode()
    assert result.stdout == expected
    assert result.stderr.startswith(b"oops\n") and b"could not be indexed" in result.stderr
    assert result.returncode == 3


def test_sigterm_is_forwarded_and_what_was_printed_still_arrives(tmp_path: Path) -> None:
    command = "trap 'echo got-term; exit 7' TERM; echo started; sleep 20 & wait"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys;from ctxmode._wrap import main;main(sys.argv[1:])",
         "--host", HOST, "--project", str(tmp_path), "--", command],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )  # fmt: skip
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert out == b"started\ngot-term\n"
    assert proc.returncode == 7


def test_a_daemon_holding_the_pipes_does_not_hang_the_wrapper(tmp_path: Path) -> None:
    start = time.monotonic()
    result = wrap("(sleep 30 &); echo done", tmp_path)
    assert result.stdout == b"done\n"
    assert time.monotonic() - start < 15


def test_threshold_setting(tmp_path: Path) -> None:
    env = {**os.environ, "CTXMODE_WRAP_THRESHOLD": "10"}
    result = wrap("echo this is more than ten bytes", tmp_path, env=env)
    assert b"ctx_search" in result.stdout


def test_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from ctxmode._wrap import main;main(['only-one'])"],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 2 and b"usage: ctxmode-wrap" in result.stderr


# --- what a wrapped command keeps from the bare one ------------------------------------


def wait_for(path: Path, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is not alive
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


def start_ticker(tmp: Path, how: str) -> str:
    """A script that leaves a process running that writes to the inherited stdout forever."""
    script = tmp / "start.sh"
    loop = "while true; do echo tick; sleep 0.1; done"
    script.write_text(
        "#!/bin/bash\n"
        + {
            "background": f"( {loop} ) &\necho $! > ticker.pid\n",
            "setsid": f"setsid bash -c 'echo $$ > ticker.pid; {loop}' &\n",
            "daemonized": (  # double fork, as `pm2 start` or a `-d` daemon does
                f"( setsid bash -c '( echo $BASHPID > ticker.pid; {loop} ) & exit 0' & )\n"
            ),
        }[how]
        + "echo started\n"
    )
    script.chmod(0o755)
    return "./start.sh"


@pytest.mark.parametrize("how", ["background", "setsid", "daemonized"])
def test_a_process_the_command_starts_to_keep_running_survives_the_wrapper(
    tmp_path: Path, how: str
) -> None:
    command = start_ticker(tmp_path, how)
    result = wrap(command, tmp_path)
    pid = int(wait_for(tmp_path / "ticker.pid"))
    try:
        assert result.returncode == 0 and b"started\n" in result.stdout
        time.sleep(1.0)  # it has written to its stdout since the wrapper exited
        assert alive(pid), "the process the command started died with the wrapper"
    finally:
        os.kill(pid, signal.SIGKILL)


def test_the_hosts_timeout_killing_the_process_group_ends_the_command(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        ["bash", "-c", wrapped_command(HOST, str(tmp_path), "echo $$ > sleeper.pid; sleep 30")],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # as hosts start a command: its own group, killed as one
    )
    pid = int(wait_for(tmp_path / "sleeper.pid"))
    os.killpg(proc.pid, signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode != 0
    time.sleep(0.2)
    assert not alive(pid)


def test_sigint_reaches_the_command_and_its_exit_code_is_kept(tmp_path: Path) -> None:
    command = "trap 'echo interrupted; exit 130' INT; echo ready; sleep 20 & wait"
    proc = subprocess.Popen(
        ["bash", "-c", wrapped_command(HOST, str(tmp_path), command)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert (out, proc.returncode) == (b"ready\ninterrupted\n", 130)


def test_stdin_is_the_commands_and_binary_output_passes_untouched(tmp_path: Path) -> None:
    data = bytes(range(256)) * 8
    result = wrap("cat; echo done >&2", tmp_path, input=data, stdin=None)
    assert (result.stdout, result.stderr, result.returncode) == (data, b"done\n", 0)


def test_the_console_script_reads_as_the_original_and_joins_plain_words(tmp_path: Path) -> None:
    wrapped = wrapped_command(HOST, str(tmp_path), "printf '%s|' a  b")
    assert wrapped.endswith("ctxmode-wrap --host claude-code -- 'printf '\"'\"'%s|'\"'\"' a  b'")
    plain = wrapped_command(HOST, str(tmp_path), "echo  a b")
    assert plain.endswith("ctxmode-wrap --host claude-code -- echo a b")
    assert wrap("echo  a b", tmp_path).stdout == b"a b\n"
    script = Path(sys.executable).parent / "ctxmode-wrap"
    several = subprocess.run(
        [script, "--", "printf", "%s|", "a b", "it's"], capture_output=True, check=False
    )
    assert several.stdout == b"a b|it's|"


def test_the_script_is_named_bare_only_when_path_finds_this_one_through_a_users_bin(
    tmp_path: Path,
) -> None:
    from ctxmode.launch import wrap_script

    bin_dir = Path(sys.executable).parent
    full = str(bin_dir / "ctxmode-wrap")
    user_bin = tmp_path / "user-bin"  # as pipx or `uv tool` link it into ~/.local/bin
    user_bin.mkdir()
    (user_bin / "ctxmode-wrap").symlink_to(full)
    assert wrap_script(search_path=f"{user_bin}:/usr/bin") == "ctxmode-wrap"
    # An activated virtualenv: a login shell's profile would not have its bin on PATH.
    assert wrap_script(search_path=f"{bin_dir}:/usr/bin") == full
    assert wrap_script(search_path="/usr/bin") == full
    other = tmp_path / "ctxmode-wrap"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    assert wrap_script(search_path=f"{tmp_path}:{user_bin}") == full


def test_a_bulky_run_is_remembered_for_the_project(tmp_path: Path) -> None:
    from ctxmode.hooks import wrap_history

    wrap("seq 1 3000", tmp_path)
    wrap("echo small", tmp_path)
    assert wrap_history.load(str(tmp_path)) == {"seq 1 3000"}


@settings(max_examples=100)
@given(words=st.lists(st.text(min_size=1).filter(lambda w: "\0" not in w), min_size=2, max_size=5))
def test_several_words_are_joined_into_text_that_splits_back_into_them(words: list[str]) -> None:
    import shlex

    from ctxmode._wrap import parse_args

    parsed = parse_args(["--host", "h", "--", *words])
    assert parsed is not None and shlex.split(parsed[2]) == words
