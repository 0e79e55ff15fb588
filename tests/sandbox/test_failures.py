"""Failing tests and compiler errors: found in each runner's real output format, shown
first in every notice within its budget, and each one a chunk of its own in the index.

The fixtures in tests/fixtures/runners are real runs (pytest, unittest, cargo test, node's
TAP reporter, generated on a dev box) or written from each runner's documented format.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.diagnostics import DiagnosticCollector
from ctxmode.sandbox.failures import FailureCollector, mark_blocks
from ctxmode.sandbox.indexed_notice import index_with_notice, project_knowledge
from ctxmode.sandbox.output import Spool, summarize_spool
from ctxmode.sandbox.shaping import NOTICE_BYTES, CommandRun
from ctxmode.store.chunking import chunk_plain

FIXTURES = Path(__file__).parent.parent / "fixtures" / "runners"
PREFIX = "mcp__context-mode__"

# runner fixture -> (failing test id, a part of its first assertion or error line)
EXPECTED = {
    "pytest": [
        ("test_billing.py::test_refund_rounds_half_even", "assert 41 == 42"),
        ("test_billing.py::TestCurrency::test_parse_rejects_blank", "blank currency code"),
        ("test_billing.py::test_param[2]", "n was 2"),
    ],
    "pytest_quiet": [("test_billing.py::test_refund_rounds_half_even", "assert 41 == 42")],
    "unittest": [
        ("test_unit.BillingTest.test_refund", "AssertionError: 41 != 42"),
        ("test_unit.BillingTest.test_crash", "KeyError: 'missing'"),
    ],
    "cargo": [
        ("tests::refund_rounds_half_even", "assertion `left == right` failed"),
        ("tests::parses_currency", "index out of bounds"),
    ],
    "node_tap": [("refund rounds half even", "41 !== 42")],
    "jest": [
        ("refunds › rounds half to even", "Received: 41"),
        ("refunds › rejects a blank currency", "Cannot read properties of undefined"),
        ("Test suite failed to run", "Cannot find module './signature'"),
    ],
    "vitest": [
        ("src/refund.test.ts > refunds > rounds half to even", "expected 41 to be 42"),
        ("src/refund.test.ts > refunds > keeps the currency", "Cannot read properties"),
    ],
    "mocha": [
        ("Refund rounds half to even", "41 !== 42"),
        ("Refund rejects a blank currency", "Cannot read properties of undefined"),
    ],
    "go_test": [
        ("TestRefundRoundsHalfEven", "Refund(41.5) = 41; want 42"),
        ("TestParseCurrency/blank", "want ErrBlank"),
    ],
    "go_test_verbose": [
        ("TestRefundRoundsHalfEven", "Refund(41.5) = 41; want 42"),
        ("TestParseCurrency/blank", "want ErrBlank"),
    ],
    "gradle": [
        ("RefundTest > roundsHalfToEven()", "expected: <42> but was: <41>"),
        ("shop.CurrencyTest > rejectsBlank()", "IllegalStateException: blank currency code"),
    ],
    "maven": [
        ("shop.RefundTest.roundsHalfToEven", "expected: <42> but was: <41>"),
        ("shop.RefundTest.keepsCurrency", "NullPointerException"),
    ],
    "rspec": [
        ("Refund rounds half to even", "expected: 42"),
        ("Currency.parse rejects a blank code", "blank currency code"),
    ],
    "phpunit": [
        ("Tests\\RefundTest::testRoundsHalfToEven", "Failed asserting that 41 is identical to 42"),
        ("Tests\\CurrencyTest::testRejectsBlank", "must be of type string, null given"),
    ],
    "compilers": [
        ("src/refund.c:12:5", "implicit declaration of function 'round_half_even'"),
        ("src/refund.ts:7:14", "error TS2322"),
        ("shop/billing.py:31", "Incompatible return value type"),
        ("shop/cart.py:1:8", "F401"),
        ("./billing/refund.go:14:2", "undefined: roundHalfEven"),
        ("src/refund.rs:9:18", "error[E0308]: mismatched types"),
        ("/home/dev/shop/web/refund.js:3:10", "'unused' is defined but never used"),
    ],
}


def fixture(name: str) -> str:
    return (FIXTURES / f"{name}.txt").read_text()


def found_in(text: str, pieces: int = 1) -> dict[str, str]:
    """Failing test id -> its message, from `text` fed in `pieces` roughly equal pieces."""
    collector = FailureCollector()
    lines = text.splitlines(keepends=True)
    step = max(1, len(lines) // pieces)
    for start in range(0, len(lines), step):
        collector.feed("".join(lines[start : start + step]))
    return {failure.test: failure.message for failure in collector.result()[0]}


@pytest.mark.parametrize("runner", sorted(EXPECTED))
@pytest.mark.parametrize("pieces", [1, 7])
def test_each_failing_test_is_found_with_its_first_error_line(runner: str, pieces: int) -> None:
    found = found_in(fixture(runner), pieces)
    for test, message in EXPECTED[runner]:
        (key,) = [key for key in found if key.endswith(test)]
        assert message in found[key], (runner, key, found[key])


def test_runs_without_failures_report_none() -> None:
    passing = (
        "tests/test_a.py::test_one PASSED\n=== 12 passed in 0.3s ===\n"
        "--- PASS: TestAdd (0.00s)\nok  \texample.com/m\t0.002s\n"
        "test tests::it_adds ... ok\n  3 passing (4ms)\nsrc/pkg/mod_23.py:12:# TODO(security)\n"
    )
    assert found_in(passing) == {}


def test_colour_codes_do_not_hide_a_failure() -> None:
    coloured = (
        "\x1b[1m\x1b[31m  ● \x1b[22m\x1b[39mcart › totals\n\n    \x1b[31mTypeError: nope\x1b[39m\n"
    )
    assert found_in(coloured) == {"cart › totals": "TypeError: nope"}


def test_a_warning_flood_does_not_push_an_error_out_of_first_place() -> None:
    warnings = "".join(f"src/m{i}.c:{i}:1: warning: unused variable 'v{i}'\n" for i in range(400))
    collector = FailureCollector()
    collector.feed(warnings + "src/main.c:3:5: error: expected ';' before '}' token\n")
    failures, omitted = collector.result()
    assert failures[0].test == "src/main.c:3:5" and failures[0].kind == "error"
    assert omitted == 401 - len(failures)


# Compiler problems are single lines, not blocks: every test runner's fixture but theirs.
@pytest.mark.parametrize("runner", sorted(set(EXPECTED) - {"compilers"}))
def test_each_failure_block_is_one_chunk_titled_by_its_opening_line(runner: str) -> None:
    chunks = chunk_plain("".join(mark_blocks([fixture(runner)])))
    for test, message in EXPECTED[runner]:
        short = " ".join(re.split(r"::|›| > ", test)[-1].split()[-3:])
        holding = [c for c in chunks if message in c.content and short in c.content]
        if runner in ("pytest_quiet", "go_test_verbose", "mocha", "node_tap", "rspec"):
            assert holding, (runner, test)  # the message and the name share one chunk
            continue
        assert any(short in c.title for c in holding), (runner, test, [c.title for c in chunks])


# ------------------------------------------------------------------ huge outputs, any position


def pytest_section(failures: list[tuple[str, str]]) -> str:
    blocks = "".join(
        f"{'_' * 20} {name} {'_' * 20}\n\n    def {name}():\n>       check()\nE       {message}\n\n"
        f"tests/test_shop.py:88: AssertionError\n"
        for name, message in failures
    )
    summary = "".join(
        f"FAILED tests/test_shop.py::{name} - {message}\n" for name, message in failures
    )
    return f"{'=' * 30} FAILURES {'=' * 30}\n{blocks}{'=' * 20} short test summary info\n{summary}"


def go_section(failures: list[tuple[str, str]]) -> str:
    return "".join(f"--- FAIL: {n} (0.00s)\n    shop_test.go:14: {m}\n" for n, m in failures)


def cargo_section(failures: list[tuple[str, str]]) -> str:
    return "".join(
        f"---- tests::{n} stdout ----\n\nthread 'tests::{n}' panicked at src/lib.rs:9:5:\n{m}\n\n"
        for n, m in failures
    )


def jest_section(failures: list[tuple[str, str]]) -> str:
    return "".join(
        f"  ● shop › {n}\n\n    {m}\n\n      at Object.<anonymous> (shop.test.js:6:26)\n\n"
        for n, m in failures
    )


def unittest_section(failures: list[tuple[str, str]]) -> str:
    return "".join(
        f"{'=' * 70}\nFAIL: {n} (test_shop.ShopTest.{n})\n{'-' * 70}\n"
        f'Traceback (most recent call last):\n  File "/p/test_shop.py", line 9, in {n}\n'
        f"    self.check()\n{m}\n\n"
        for n, m in failures
    )


SECTIONS: dict[str, Callable[[list[tuple[str, str]]], str]] = {
    "pytest": pytest_section, "go": go_section, "cargo": cargo_section, "jest": jest_section,
    "unittest": unittest_section,
}  # fmt: skip
NOISE_LINE = "tests/test_module_{:02d}.py::test_case_{:05d} PASSED\n"


def notice_for(project: Path, text: str, exit_code: int) -> tuple[str, str]:
    """The wrapper's notice for `text` printed by a command that exited `exit_code`."""
    spool = Spool(str(project))
    spool_err = Spool(str(project))
    data = text.encode()
    for start in range(0, len(data), 65536):  # written as a command would, in pieces
        os.write(spool.fileno(), data[start : start + 65536])
    collector = DiagnosticCollector()
    stdout = summarize_spool(spool, collector)
    stderr = summarize_spool(spool_err, collector)
    outcome = kinds.Outcome("command", exit_code, stdout_blank=stdout.is_blank)
    run = CommandRun(exit_code, kinds.classify(outcome), stdout, stderr, collector.result())
    label = "cmd:tests:hypothesis"
    try:
        notice = index_with_notice(
            run, label=label, prefix=PREFIX, project_dir=str(project), inline_limit=-1
        )
    finally:
        spool.close()
        spool_err.close()
    return notice, label


@settings(
    max_examples=30,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking a 120 KB run is slow
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    runner=st.sampled_from(sorted(SECTIONS)),
    count=st.integers(1, 50),
    position=st.floats(0, 1),
    exit_code=st.sampled_from([0, 1, 2, 101]),
    noise_lines=st.integers(2_600, 4_000),
)
def test_every_failing_test_reaches_the_notice_wherever_it_is_printed(
    project: Path, runner: str, count: int, position: float, exit_code: int, noise_lines: int
) -> None:
    failures = [(f"test_refund_case_{k}_q{k * 7}", f"AssertionError: expected {k} got {k + 1}")
                for k in range(count)]  # fmt: skip
    noise = [NOISE_LINE.format(i % 40, i) for i in range(noise_lines)]  # 120 KB and more
    cut = int(position * len(noise))
    text = "".join(noise[:cut]) + SECTIONS[runner](failures) + "".join(noise[cut:])
    notice, label = notice_for(project, text, exit_code)

    assert len(notice.encode()) <= NOTICE_BYTES
    assert notice.rstrip().endswith(f'source="{label}")')
    section = re.split(r" failing tests? \(each with its first error line\) ---\n", notice)[1]
    section = section.split("\n--- ")[0]  # up to the next part of the notice
    with_message = [n for n, m in failures if re.search(rf"{n}\b.*: {re.escape(m)}", section)]
    named = [n for n, _ in failures if re.search(rf"{n}\b", section)]
    more = re.search(r"… (\d+) more not shown", section)
    assert len(named) + (int(more.group(1)) if more else 0) == count, notice
    assert len(with_message) >= min(count, 3), notice  # the first ones with their message
    # Each failure is one chunk: a search for one finds its block with its message.
    name, message = failures[count // 2]
    with project_knowledge(str(project)) as kb:
        hits = kb.search([name], limit=1, source=label)[0].hits
    assert hits and message in hits[0].snippet and name in hits[0].snippet, hits


def test_a_reply_shaped_for_an_intent_leads_with_the_failures_too(project: Path) -> None:
    from ctxmode.sandbox.output import StreamOutput
    from ctxmode.sandbox.shaping import StoreKnowledge, shape_output

    noise = "".join(NOISE_LINE.format(i % 40, i) for i in range(1_500))
    text = noise + fixture("cargo") + noise
    collector = DiagnosticCollector()
    collector.feed(text)
    stdout = StreamOutput(len(text.encode()), text)
    run = CommandRun(101, kinds.ERROR, stdout, StreamOutput(0, ""), collector.result())
    with project_knowledge(str(project)) as kb:
        reply = shape_output(run, intent="slow tests", knowledge=StoreKnowledge(kb))
    lines = reply.text.splitlines()
    assert lines[1] == "--- 2 failing tests (each with its first error line) ---"
    assert lines[2].startswith("tests::refund_rounds_half_even: assertion `left == right` failed")
    assert lines[3].startswith("tests::parses_currency: index out of bounds")


FIXTURE_LINES = sorted({line for name in EXPECTED for line in fixture(name).splitlines()})


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(st.one_of(st.sampled_from(FIXTURE_LINES), st.text(max_size=60)), max_size=80),
    cuts=st.lists(st.integers(0, 80), max_size=6),
)
def test_any_mix_of_runner_lines_is_read_the_same_whole_or_in_pieces(
    lines: list[str], cuts: list[int]
) -> None:
    lines = [line.replace("\n", " ").replace("\r", " ") + "\n" for line in lines]
    whole = FailureCollector()
    whole.feed("".join(lines))
    pieces = FailureCollector()
    bounds = sorted({0, len(lines), *(min(c, len(lines)) for c in cuts)})
    for start, end in itertools.pairwise(bounds):
        pieces.feed("".join(lines[start:end]))
    assert pieces.result() == whole.result()
    failures, _ = whole.result()
    assert all(len(f.test) <= 160 and len(f.message) <= 200 for f in failures)
