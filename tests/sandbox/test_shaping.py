"""Shaping output for context: inline, cut with diagnostics, or intent search in the real store."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.diagnostics import Diagnostics, scan_text
from ctxmode.sandbox.output import StreamOutput
from ctxmode.sandbox.runner import run_code
from ctxmode.sandbox.shaping import (
    StoreKnowledge,
    matching_lines,
    searchable_terms,
    shape_output,
    unique_label,
)
from ctxmode.store.knowledge import KnowledgeBase


@dataclass
class Run:
    """Plain data with the shape of a finished run (what shaping reads)."""

    stdout_text: str
    stderr_text: str = ""
    exit_code: int | None = 0
    classification: str = kinds.OK
    language: str = "python"
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    timeout_ms: int = 120_000

    def __post_init__(self) -> None:
        self.stdout = StreamOutput(len(self.stdout_text.encode()), self.stdout_text)
        self.stderr = StreamOutput(len(self.stderr_text.encode()), self.stderr_text)
        self.diagnostics: Diagnostics = scan_text(self.stdout_text + "\n" + self.stderr_text)

    def iter_text(self) -> Iterator[str]:
        yield self.stdout_text


@pytest.fixture
def kb(project: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open(str(project)) as knowledge_base:
        yield knowledge_base


NOISE = "".join(f"INFO step {i}: processing record batch without trouble\n" for i in range(400))
FAILURES = (
    "Traceback (most recent call last):\n"
    '  File "/srv/app/worker.py", line 88, in handle\n'
    "KeyError: 'customer_id'\n"
    "FAILED tests/test_worker.py::test_handle - KeyError: 'customer_id'\n"
    "    at Object.<anonymous> (/srv/web/index.js:14:7)\n"
    "--- FAIL: TestQueue (0.01s)\n"
    "src/lib.rs:10:5: error: mismatched types\n"
)
SUMMARY = "=================== 1 failed, 41 passed in 3.10s ===================\n"


def test_small_output_is_returned_as_is() -> None:
    reply = shape_output(Run("hello\nworld\n"))
    assert reply.text == "hello\nworld"
    assert not reply.is_error and not reply.cut and reply.label is None


def test_small_failure_shows_exit_code_and_both_streams() -> None:
    run = Run("partial\n", "boom: bad input\n", exit_code=2, classification=kinds.ERROR)
    reply = shape_output(run)
    assert reply.text == "Exit code: 2\nstdout:\npartial\nstderr:\nboom: bad input"
    assert reply.is_error


def test_empty_output_says_so() -> None:
    assert shape_output(Run("")).text == "(no output, exit 0)"


def test_large_output_keeps_every_error_line_and_the_summary(kb: KnowledgeBase) -> None:
    text = NOISE + FAILURES + NOISE + SUMMARY
    run = Run(text, exit_code=1, classification=kinds.ERROR)
    reply = shape_output(run, knowledge=StoreKnowledge(kb))
    assert len(reply.text.encode()) < 5_000
    # A failing test is listed once, with its first error line; every other error line as is.
    shown = {"FAILED tests/test_worker.py::test_handle - KeyError: 'customer_id'":
             "tests/test_worker.py::test_handle: KeyError: 'customer_id'",
             "--- FAIL: TestQueue (0.01s)": "TestQueue"}  # fmt: skip
    for line in FAILURES.splitlines():
        assert shown.get(line, line) in reply.text, line
    assert SUMMARY.strip() in reply.text
    assert "INFO step 0:" in reply.text  # head
    assert reply.text.count("INFO step 399:") >= 1  # tail
    assert reply.is_error and reply.cut
    assert reply.label is not None and reply.label.startswith("exec:python:")
    assert f'source="{reply.label}"' in reply.text
    assert kb.get_source(reply.label) is not None


def test_large_output_without_a_store_says_it_was_not_indexed() -> None:
    reply = shape_output(Run(NOISE + FAILURES + NOISE))
    assert "not indexed" in reply.text
    assert "KeyError: 'customer_id'" in reply.text
    assert reply.label is None


def test_intent_search_returns_matching_lines_under_unique_labels(kb: KnowledgeBase) -> None:
    knowledge = StoreKnowledge(kb)
    first = Run(NOISE + "WARN upstream gateway timeout contacting billing\n" + NOISE)
    second = Run(NOISE + "WARN upstream gateway timeout contacting shipping\n" + NOISE)
    reply1 = shape_output(first, intent="gateway timeout", knowledge=knowledge)
    reply2 = shape_output(second, intent="gateway timeout", knowledge=knowledge)
    assert reply1.label != reply2.label
    assert "WARN upstream gateway timeout contacting billing" in reply1.text
    assert "WARN upstream gateway timeout contacting shipping" in reply2.text
    assert len(reply1.text.encode()) < 5_000
    # the first run's index survives the second
    for label, word in ((reply1.label, "billing"), (reply2.label, "shipping")):
        hits = kb.search([word], limit=3, source=label)[0].hits
        assert hits and all(hit.source == label for hit in hits)


def test_intent_reply_keeps_errors_and_lists_searchable_words(kb: KnowledgeBase) -> None:
    run = Run(NOISE + FAILURES + NOISE + SUMMARY, exit_code=1, classification=kinds.ERROR)
    reply = shape_output(run, intent="record batch", knowledge=StoreKnowledge(kb))
    assert "KeyError: 'customer_id'" in reply.text
    assert SUMMARY.strip() in reply.text
    terms_line = next(line for line in reply.text.splitlines() if line.startswith("Searchable"))
    assert not any(ch.isdigit() for ch in terms_line)


def test_intent_reply_with_many_errors_stays_under_budget(kb: KnowledgeBase) -> None:
    errors = "".join(f"src/mod{i}.py:{i}: error: undefined name 'thing{i}'\n" for i in range(400))
    run = Run(NOISE + errors + SUMMARY, exit_code=1, classification=kinds.ERROR)
    reply = shape_output(run, intent="undefined name thing", knowledge=StoreKnowledge(kb))
    assert len(reply.text.encode()) < 5_000
    assert "src/mod0.py:0: error" in reply.text  # the first error is always kept
    assert "more in the indexed output" in reply.text
    assert SUMMARY.strip() in reply.text


def test_the_reply_never_echoes_the_code(project: Path, kb: KnowledgeBase) -> None:
    code = "# CODE_MARKER_7f3a\nfor i in range(2000): print('row', i, 'value')\n"
    with run_code("python", code, cwd=str(project)) as result:
        for intent in (None, "value"):
            reply = shape_output(result, intent=intent, knowledge=StoreKnowledge(kb))
            assert "CODE_MARKER_7f3a" not in reply.text
            assert reply.cut


def test_unique_labels_are_never_reused() -> None:
    labels = {unique_label("exec:shell") for _ in range(200)}
    assert len(labels) == 200
    assert all(label.startswith("exec:shell:") for label in labels)


def test_matching_lines_prefers_lines_with_intent_words() -> None:
    snippet = "200 OK /health\nGET /api 500 Internal Server Error\nretrying\n"
    assert matching_lines(snippet, "server errors", context=0) == [
        "GET /api 500 Internal Server Error"
    ]
    assert matching_lines(snippet, "zebra") == ["200 OK /health"]


def test_matching_lines_show_their_neighbours_and_mark_gaps() -> None:
    snippet = "\n".join(f"line {i}" for i in range(10)) + "\nline 5 needle\n" + "tail\n" * 5
    shown = matching_lines(snippet, "needle", context=1)
    assert shown == ["line 9", "line 5 needle", "tail"]
    two = matching_lines("a key\nb\nc\nd\ne\nf key\n", "key", limit=2, context=1)
    assert two == ["a key", "b", "…", "e", "f key"]


def test_searchable_terms_drop_numbers_and_ids() -> None:
    terms = ["404", "timeout", "a1b2c3d4", "req123456", "gateway", "v2", "pha"]
    assert searchable_terms(terms) == ["timeout", "a1b2c3d4", "gateway"]


def test_matching_lines_prefer_lines_with_more_intent_words() -> None:
    snippet = "worker alpha ok\nworker beta ok\nworker beta crashed\nworker gamma ok\n"
    assert matching_lines(snippet, "worker crashed", limit=1, context=0) == ["worker beta crashed"]
    assert matching_lines(snippet, "worker crashed", limit=2, context=0) == [
        "worker alpha ok",
        "…",
        "worker beta crashed",
    ]


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=400),
            st.sampled_from(["error: boom", "FAILED t.py::x", "at f (a.js:1:2)", "== 1 failed =="]),
        ),
        max_size=300,
    ),
    exit_code=st.sampled_from([0, 1, 2]),
)
def test_every_reply_fits_the_budget_and_keeps_the_summary(
    lines: list[str], exit_code: int
) -> None:
    text = "\n".join(lines) + "\n"
    kind = kinds.OK if exit_code == 0 else kinds.ERROR
    run = Run(text, "warning: stderr says hi\n", exit_code=exit_code, classification=kind)
    reply = shape_output(run)
    if run.stdout.byte_count + run.stderr.byte_count > 5_000:
        assert len(reply.text.encode()) < 5_000
        if run.diagnostics.summary:
            assert run.diagnostics.summary in reply.text
    assert reply.is_error == (exit_code != 0)


def test_a_failing_store_still_lets_the_output_through(project: Path) -> None:
    closed = KnowledgeBase.open(str(project))
    closed.close()  # every write now fails, as a broken database would
    run = Run(
        NOISE + "error: the line that matters\n" + NOISE, exit_code=1, classification=kinds.ERROR
    )
    reply = shape_output(run, intent="matters", knowledge=StoreKnowledge(closed))
    assert "full output could not be indexed" in reply.text
    assert "error: the line that matters" in reply.text
    assert reply.label is None and reply.is_error


def test_binary_output_is_indexed_without_its_nul_bytes(kb: KnowledgeBase) -> None:
    reply = shape_output(Run("\x00\x01 payload marker\n" * 600), knowledge=StoreKnowledge(kb))
    assert reply.label is not None
    assert kb.search(["payload marker"], limit=1, source=reply.label)[0].hits
