"""A failing test run on the real Claude Code: each failing test's id and first error line
reach the model inside the command's result, and the search the notice names finds the
failure's whole block.

Two runners: pytest's format (which ctxmode knows) and GoogleTest's, run through `make`
(which it has no rules for: its failures reach the model as error lines). Both exit
non-zero, the path on which Claude Code can no longer replace a result after the run.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from platforms.real.test_claude_code import OFFLINE_ENV, setup, trust_work_dir
from support.debug_session import SEARCH_CALL
from support.fake_model import Reply, Request, call, reply
from support.hosts import HostWorld, npm_host

FAILING = {
    "RefundTest.RoundsHalfEven": "refund_test.cc:14: Failure",
    "CurrencyTest.RejectsBlank": "currency_test.cc:9: Failure",
    "WebhookTest.SignatureExpiry": "webhook_test.cc:31: Failure",
}
# GoogleTest's own output: each test's run, its failure inline, and the list at the end.
GTEST = textwrap.dedent(
    """\
    #!/usr/bin/env python3
    import sys
    failing = {failing!r}
    names = list(failing)
    at = {{1: names[0], 1300: names[1], 2590: names[2]}}  # start, middle, end of the run
    out = ["[==========] Running 2600 tests from 40 test suites."]
    for i in range(2600):
        name = at.get(i, f"LedgerTest{{i % 40:02d}}.Case{{i:04d}}")
        out.append(f"[ RUN      ] {{name}}")
        if name in failing:
            out += [failing[name], "Expected equality of these values:", "  refund(41.5)",
                    "    Which is: 41", "  42", f"[  FAILED  ] {{name}} (0 ms)"]
        else:
            out.append(f"[       OK ] {{name}} (0 ms)")
    out += ["[==========] 2600 tests from 40 test suites ran. (52 ms total)",
            "[  PASSED  ] 2597 tests.", "[  FAILED  ] 3 tests, listed below:"]
    out += [f"[  FAILED  ] {{n}}" for n in names] + ["", " 3 FAILED TESTS"]
    print("\\n".join(out))
    sys.exit(1)
    """
).format(failing=FAILING)


def _gtest_project(work: Path) -> tuple[str, dict[str, str], str]:
    runner = work / "build" / "shop_tests"
    runner.parent.mkdir()
    runner.write_text(GTEST)
    runner.chmod(0o755)
    (work / "Makefile").write_text("check:\n\t./build/shop_tests\n")
    return "make check", FAILING, "Which is: 41"


def _pytest_project(work: Path) -> tuple[str, dict[str, str], str]:
    from support.failing_runner import FAILING_TESTS, FAILURE_MESSAGE, write_test_runner

    (work / "bin").mkdir()
    write_test_runner(work / "bin" / "pytest")
    wanted = {f"tests/test_billing.py::{name}": FAILURE_MESSAGE for name in FAILING_TESTS}
    return "./bin/pytest -q tests", wanted, "assert got == want"


def _pytest_exit_0_project(work: Path) -> tuple[str, dict[str, str], str]:
    """The same run through a pipeline that ends well: exit 0, failures all the same."""
    command, wanted, in_block = _pytest_project(work)
    return f"{command} | cat", wanted, in_block


PROJECTS = {
    "pytest": _pytest_project,
    "gtest-via-make": _gtest_project,
    "pytest-exit-0": _pytest_exit_0_project,
}


@pytest.mark.parametrize("runner", sorted(PROJECTS))
def test_a_failing_runs_tests_and_first_error_lines_reach_the_model(
    world: HostWorld, runner: str
) -> None:
    binary = npm_host("claude-code", "claude")
    trust_work_dir(world)
    setup(world)
    command, failing, in_block = PROJECTS[runner](world.work)
    first = next(iter(failing)).rsplit("::", 1)[-1]

    def search_as_the_notice_says(request: Request) -> Reply:
        found = SEARCH_CALL.search(request.tool_results()[-1])
        if found is None:
            return reply("the notice named no search")
        return call(found.group(1), queries=[first], source=found.group(2))

    turns = [call("Bash", command=command, description="run the tests"),
             search_as_the_notice_says, reply("done")]  # fmt: skip
    with world.fake_model(turns) as model:
        run = world.run(
            [binary, "-p", "Run the tests", "--output-format", "stream-json", "--verbose",
             "--include-hook-events", "--model", "claude-sonnet-4-5", "--max-turns", "6",
             "--allowedTools", "Bash,mcp__context-mode"],
            env=world.env(ANTHROPIC_BASE_URL=model.url, **OFFLINE_ENV),
        )  # fmt: skip
    assert run.returncode == 0, run.describe()

    notice = model.main_requests[1].tool_results()[-1]
    assert ("exit 0" if runner.endswith("exit-0") else "Exit code") in notice, notice
    assert len(notice.encode()) <= 2048 + 200, len(notice.encode())  # the host adds a line
    for test, message in failing.items():
        assert test in notice and message in notice, (test, message, notice)
    searched = model.main_requests[2].tool_results()[-1]
    assert first in searched and in_block in searched, searched[:3000]
    print(notice)  # shown with -s
