"""A project's own test script fails on the real hosts: its failures reach the model, its
bulk does not.

`./run_tests.sh` prints ~120 KB with 3 failing tests and exits 1. Claude Code and Qwen
Code fire PostToolUseFailure (not PostToolUse) for a command that exits non-zero, and
Claude Code's can only add context; Codex hands its hooks only its own ~10 KB cut. So
the command has to go through the wrapper before it runs: a silent rewrite on Claude
Code, Codex, OpenCode and Kilo (whose plugin changes the call's arguments), a deny naming
the exact command on Qwen Code. Pi and OMP cut a big output themselves (Pi keeps its last
50 KB, OMP its head and tail around an elided middle), so their extension patches the
call's input to the wrapper before it runs. The scripted model follows what each result
says (the command to run instead, the search a notice names); what it received is read
from the fake model's log. OpenCode and Kilo do not tell the model a command's exit code;
the events they print (`run --format json`) show the one the wrapped command exited with.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.debug_session import RUN_INSTEAD, Step, run_steps
from support.failing_runner import FAILING_TESTS, FAILURE_MESSAGE, write_test_runner
from support.hosts import HostRun, HostWorld
from support.opencode_hosts import HOSTS as OPENCODE_HOSTS
from support.opencode_hosts import shell_commands, shell_exit_codes

SCRIPT = "./run_tests.sh"
NATIVE_BYTES = 120_000  # what the script prints
BOUND = 24 * 1024  # tool-result bytes the model may get for it, search included
OPENCODE_FAMILY = [host.id for host in OPENCODE_HOSTS]  # they show no exit code to the model


def project_with_failing_script(work: Path) -> None:
    (work / "tools").mkdir()
    write_test_runner(work / "tools" / "fake_pytest.py")
    script = work / "run_tests.sh"
    script.write_text('#!/bin/sh\nexec python3 "$(dirname "$0")/tools/fake_pytest.py" "$@"\n')
    script.chmod(0o755)


@pytest.mark.parametrize(
    "host", ["claude-code", "qwen-code", "codex", *OPENCODE_FAMILY, "pi", "omp"]
)
def test_a_failing_test_script_reaches_the_model_with_its_failures_and_bounded(
    world: HostWorld, host: str
) -> None:
    project_with_failing_script(world.work)
    facts = (*FAILING_TESTS, FAILURE_MESSAGE)
    steps = [Step("tests", "shell", SCRIPT, "FAILED", facts)]
    results, run = run_steps(world, host, steps, "Run the project's tests")
    seen = "\n".join(results)
    size = sum(len(result.encode("utf-8")) for result in results)
    assert results, run.describe()
    missing = [name for name in FAILING_TESTS if name not in seen]
    assert not missing and FAILURE_MESSAGE in seen, (missing, seen[:3000])
    assert size <= BOUND < NATIVE_BYTES, (size, [len(r) for r in results])
    assert "exit 1" in seen or "Exit code: 1" in seen or "exit code 1" in seen.lower(), seen[:2000]
    if host in OPENCODE_FAMILY:  # wrapped (no deny, no cut after the call), exit code kept
        assert RUN_INSTEAD not in seen and "ctxmode-wrap" not in seen, seen[:2000]
        # The wrapper's label (`cmd:`; indexed after the call it would be `tool:bash:`).
        assert 'source="cmd:run_tests.sh:' in seen, seen[-500:]
        assert shell_exit_codes(run) == [1], shell_commands(run)


def test_a_failed_command_that_printed_a_lot_is_wrapped_the_next_time_on_qwen_code(
    world: HostWorld,
) -> None:
    # Not predicted to be bulky: the first run reaches only PostToolUseFailure (Qwen Code
    # fires no PostToolUse for a non-zero exit), which remembers it for the project.
    command = "N=3; seq 1 3000; echo boom >&2; exit $N"
    steps = [Step(name, "shell", command, "boom", ("boom",)) for name in ("first", "again")]
    results, run = run_steps(world, "qwen-code", steps, "Run it twice")
    assert len(results) >= 3, run.describe()
    assert RUN_INSTEAD not in results[0] and "2999" in results[0]  # ran as it was
    assert RUN_INSTEAD in results[1] and f"-- '{command}'" in results[1]
    notice = results[2]  # the wrapper's, under the host's header
    assert "boom" in notice and "ctx_search(" in notice, notice
    assert "1500\n" not in notice and len(notice.encode()) <= 2048 + 512, notice


SMALL_FAILING = "printf 'line one\\nline two\\n'; echo 'error: it broke' >&2; printf tail; exit 3"


def shell_result(world: HostWorld, host: str, with_ctxmode: bool) -> tuple[str, HostRun]:
    steps = [Step("run", "shell", SMALL_FAILING, "x", ("it broke",))]
    results, run = run_steps(world, host, steps, "Run it", with_ctxmode)
    assert results, run.describe()
    result = re.sub(r"Wall time: [\d.]+ seconds", "Wall time: N seconds", results[0])
    return re.sub(r"Chunk ID: \w+", "Chunk ID: N", result), run  # Codex numbers each run


@pytest.mark.parametrize("host", ["claude-code", "codex", *OPENCODE_FAMILY, "pi", "omp"])
def test_a_small_failing_output_reaches_the_model_as_it_would_without_ctxmode(
    tmp_path: Path, netns: str | None, host: str
) -> None:
    # These hosts rewrite silently, so the command runs through the wrapper.
    bare, _ = shell_result(HostWorld(tmp_path / "bare", netns), host, with_ctxmode=False)
    wrapped, run = shell_result(HostWorld(tmp_path / "wrapped", netns), host, with_ctxmode=True)
    assert "it broke" in bare
    if host in OPENCODE_FAMILY:  # the host's own events: it ran the wrapper, which exited 3
        assert "ctxmode-wrap" in run.stdout and shell_exit_codes(run) == [3], run.describe()
    if host != "codex":  # one pipe for both streams: the bytes in the same order
        assert wrapped == bare
    else:  # Codex reads stdout and stderr from two pipes and joins what arrives: each
        # stream's order is kept, but which of two writes to different pipes comes first,
        # and so where a line without a newline ends up, is a race either way. The same
        # characters arrive, and each stream's lines in their order.
        assert sorted(wrapped.replace("\n", "")) == sorted(bare.replace("\n", ""))
        for fragment in ("error: it broke", "Process exited with code 3"):
            assert fragment in wrapped
        assert wrapped.index("line one") < wrapped.index("line two") < wrapped.index("tail")
