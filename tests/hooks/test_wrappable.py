"""Wrap-by-default and the predictions for hosts where a wrap costs the model a turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.hooks import wrap_history
from ctxmode.hooks.bulky import EVERY_COMMAND, HISTORY, wrap_reason

# Hosts whose rewrite is silent: anything the wrapper runs unchanged.
EVERY = [
    "sort small.txt",
    "sed -n 1,5p small.txt",
    "python3 -c 'print(1)'",
    "cat small.txt | tr a-z A-Z",
    "FOO=1 sort small.txt",
    "docker compose up -d",
    "docker run -d nginx",
    "pm2 start app.js",
    "sort -r small.txt",
    "sort small.txt; echo 'error: x' >&2; exit 3",
]
# What would do something else inside the wrapper: left to the host's shell.
LEFT_ALONE = [
    "export A=1",
    "source .venv/bin/activate",
    "A=1; sort small.txt",
    "sort small.txt && B=2",
    "nohup ./serve.sh &",
    "sort small.txt &",
    "setsid ./serve.sh",
    "npm run dev",
    "pnpm start",
    "python3 manage.py runserver",
    "python3 -m http.server 8000",
    "docker compose up",
    "tail -f big.log",
    "vim small.txt",
    "python3",
    "git commit",
    "git rebase -i HEAD~3",
    "ll",
    "f() { sort small.txt; }; f",
    "sort small.txt > sorted.txt",
    "pwd",
    "echo hi",
    "echo one && echo two; pwd",
    "sort small.txt | head -5",
]
# Hosts where a wrap costs a turn: a project's scripts and task runners are predicted.
PREDICTED = [
    "./run_tests.sh",
    "scripts/ci.sh --fast",
    "bin/check",
    "bash test.sh",
    "sh ./test.sh",
    "python3 manage.py test",
    "make check",
    "just test",
    "task build",
    "npm run typecheck",
    "yarn run e2e",
    "uv run pytest",
    "poetry run python -m app.check",
    "env CI=1 ./run_tests.sh",
]


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "big.log").write_text("line of log output\n" * 5000)
    (tmp_path / "small.txt").write_text("small\n")
    for name in ("test.sh", "manage.py", "run_tests.sh", "scripts/ci.sh", "bin/check"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("#!/bin/sh\necho\n")
        (tmp_path / name).chmod(0o755)
    tools = tmp_path / "tools"  # programs this machine may lack, on PATH for the test
    tools.mkdir()
    for name in ("docker", "pm2"):
        (tools / name).write_text("#!/bin/sh\n")
        (tools / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    return str(tmp_path)


@pytest.mark.parametrize("command", EVERY)
def test_where_the_rewrite_is_silent_every_command_is_wrapped(command: str, cwd: str) -> None:
    assert wrap_reason(command, cwd, user=[], every=True) == EVERY_COMMAND
    assert wrap_reason(command, cwd, user=[]) is None  # not predicted to be bulky


@pytest.mark.parametrize("command", LEFT_ALONE)
def test_what_the_wrapper_would_change_is_left_to_the_hosts_shell(command: str, cwd: str) -> None:
    assert wrap_reason(command, cwd, user=[], every=True) is None


@pytest.mark.parametrize("command", PREDICTED)
def test_project_scripts_and_task_runners_are_predicted(command: str, cwd: str) -> None:
    assert wrap_reason(command, cwd, user=[]) not in (None, EVERY_COMMAND)


def test_a_command_bulky_before_in_this_project_is_wrapped_the_next_time(cwd: str) -> None:
    assert wrap_reason("sort  small.txt", cwd, user=[]) is None
    wrap_history.record(cwd, "sort small.txt")
    history = wrap_history.load(cwd)
    assert wrap_reason("sort  small.txt", cwd, user=[], history=history) == HISTORY
    assert wrap_reason("sort other.txt", cwd, user=[], history=history) is None


def test_the_history_keeps_the_newest_commands_within_its_bound(cwd: str) -> None:
    for n in range(wrap_history.KEEP + 5):
        wrap_history.record(cwd, f"./report.sh --part {n}")
    kept = wrap_history.load(cwd)
    assert f"./report.sh --part {wrap_history.KEEP + 4}" in kept
    assert len(kept) <= wrap_history.KEEP
    wrap_history.record(cwd, "x" * (wrap_history.MAX_COMMAND_CHARS + 1))  # not kept, no error
    assert len(wrap_history.load(cwd)) <= wrap_history.KEEP


PIECES = [*"ab =;&|<>()$`'\"\\\n{}*-./", "cd ", "export ", "cat ", "make ", "./x "]


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from(PIECES), max_size=20).map("".join))
def test_the_policy_answers_any_text_and_never_wraps_twice(text: str) -> None:
    for every in (True, False):
        wrap_reason(text, "/", user=[], every=every)
        assert wrap_reason("ctxmode-wrap --host x -- " + text, "/", user=[], every=every) is None
