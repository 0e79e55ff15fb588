"""Finding error lines and summary lines in output fed in pieces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.classify import Outcome, classify, is_error
from ctxmode.sandbox.diagnostics import DiagnosticCollector, scan_text

PYTEST = """\
============================= test session starts ==============================
collected 13 items

tests/test_a.py ..F.......F..                                             [100%]

=================================== FAILURES ===================================
_________________________________ test_thing _________________________________

    def test_thing():
>       assert add(1, 2) == 4
E       assert 3 == 4

tests/test_a.py:12: AssertionError
=========================== short test summary info ============================
FAILED tests/test_a.py::test_thing - assert 3 == 4
FAILED tests/test_a.py::test_other - ValueError: bad
========================= 2 failed, 11 passed in 0.52s =========================
"""


def test_pytest_failures_and_summary_are_found() -> None:
    found = scan_text(PYTEST)
    assert (
        found.summary
        == "========================= 2 failed, 11 passed in 0.52s ========================="
    )
    assert "FAILED tests/test_a.py::test_thing - assert 3 == 4" in found.lines
    assert "tests/test_a.py:12: AssertionError" in found.lines
    assert "E       assert 3 == 4" in found.lines
    assert not any(line.startswith("collected") for line in found.lines)


def test_node_go_rust_and_python_diagnostics() -> None:
    text = "\n".join(
        [
            "TypeError: x is not a function",
            "    at main (/p/app.js:3:9)",
            "--- FAIL: TestParse (0.00s)",
            "    parse_test.go:14: got 1 want 2",
            "error[E0308]: mismatched types",
            "  --> src/main.rs:2:18",
            "Traceback (most recent call last):",
            '  File "/p/x.py", line 3, in <module>',
            "ZeroDivisionError: division by zero",
            "all good here",
            "test result: FAILED. 3 passed; 1 failed; 0 ignored",
        ]
    )
    found = scan_text(text)
    assert found.summary == "test result: FAILED. 3 passed; 1 failed; 0 ignored"
    assert "all good here" not in found.lines
    assert len(found.lines) == 9


def test_summary_forms_of_other_runners() -> None:
    for line in [
        "ok  \tgithub.com/x/y\t0.012s",
        "FAIL",
        "Tests:       1 failed, 4 passed, 5 total",
        "  3 passing (12ms)",
        "# fail 2",
        "4 examples, 1 failure",
        "Ran 7 tests in 0.003s",
        "FAILED (failures=1)",
        "Found 3 errors in 2 files",
        "unit: 5 passed, 1 failed",
    ]:
        assert scan_text(f"noise\n{line}\nmore noise\n").summary == line.strip(), line


def test_lines_are_deduplicated_and_bounded() -> None:
    text = "".join(f"error number {i}\n" for i in range(1000)) + "error number 5\n"
    found = scan_text(text, max_lines=20)
    assert found.lines[:10] == tuple(f"error number {i}" for i in range(10))
    assert found.lines[-1] == "error number 999"
    assert len(found.lines) == 20
    assert found.omitted == 980


def test_giant_lines_are_clipped() -> None:
    found = scan_text("fatal: " + "y" * 100_000 + "\n")
    assert len(found.lines[0]) == 300


@settings(max_examples=40, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["ok", "error: a", "x.py:3: b", "plain", "", "  at f (a.js:1:2)"])
    ),
    cut=st.integers(min_value=0, max_value=10_000),
)
def test_feeding_in_pieces_at_line_ends_equals_feeding_at_once(lines: list[str], cut: int) -> None:
    text = "".join(line + "\n" for line in lines)
    boundary = text.rfind("\n", 0, min(cut, len(text))) + 1
    collector = DiagnosticCollector()
    collector.feed(text[:boundary])
    collector.feed(text[boundary:])
    assert collector.result() == scan_text(text)


def test_classification_rules() -> None:
    def kind(language: str = "shell", code: int | None = 0, blank: bool = False, **kw: bool) -> str:
        return classify(Outcome(language, code, blank, **kw))

    assert kind() == kinds.OK
    assert kind(code=1) == kinds.SOFT_FAILURE
    assert kind(code=1, blank=True) == kinds.ERROR
    assert kind("python", code=1) == kinds.ERROR
    assert kind(code=2) == kinds.ERROR
    assert kind(code=None, timed_out=True) == kinds.TIMEOUT_PARTIAL
    assert kind(code=None, blank=True, timed_out=True) == kinds.TIMEOUT
    assert kind(code=None, backgrounded=True) == kinds.BACKGROUNDED
    assert kind("rust", code=1, compile_failed=True) == kinds.COMPILE_ERROR
    assert is_error(kinds.TIMEOUT) and not is_error(kinds.TIMEOUT_PARTIAL)
    assert not is_error(kinds.SOFT_FAILURE)
