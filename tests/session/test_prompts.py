"""The prompt extractor: decisions are corrections and preferences, measured on a labelled set."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ctxmode.session.prompts import decision_clauses, prompt_events

_spec = importlib.util.spec_from_file_location(
    "decision_prompts", Path(__file__).with_name("decision_prompts.py")
)
assert _spec is not None and _spec.loader is not None
_labels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_labels)
LABELLED = _labels.LABELLED


def test_the_labelled_set_is_big_and_varied() -> None:
    assert len(LABELLED) >= 60
    kinds = {kind.split("-")[0] for _, _, kind in LABELLED}
    assert {
        "correction",
        "preference",
        "question",
        "request",
        "log",
        "de",
        "fr",
        "ja",
        "zh",
    } <= kinds


def test_decision_precision_and_recall_on_the_labelled_set() -> None:
    tp = fp = fn = 0
    wrong = []
    for prompt, is_decision, kind in LABELLED:
        found = bool(decision_clauses(prompt))
        tp += found and is_decision
        fp += found and not is_decision
        fn += is_decision and not found
        if found != is_decision:
            wrong.append((kind, prompt[:60]))
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    assert precision >= 0.9, wrong
    assert recall >= 0.8, wrong


def test_a_plain_request_with_commas_is_not_a_decision() -> None:
    events = prompt_events("Refactor the loader, split the parser, and add tests for both.")
    assert [e.type for e in events if e.category == "decision"] == []
    assert events[0].type == "user_prompt"


def test_host_injected_pseudo_prompts_are_ignored() -> None:
    assert prompt_events("<system-reminder>the todo list changed</system-reminder>") == []
    assert prompt_events("<task-notification>agent done</task-notification>") == []


def test_goal_role_blocker_and_rejection_are_recognised() -> None:
    types = lambda text: {e.type for e in prompt_events(text)}  # noqa: E731
    assert "goal" in types("/goal ship the parser rewrite by Friday")
    assert "role" in types("You are a senior Rust reviewer. Be terse.")
    assert "blocker" in types(
        "It crashes:\nTraceback (most recent call last):\n  File x\nValueError: bad"
    )
    assert "blocker_resolved" in types("fixed: the import works now")
    assert "rejected" in types("That didn't work, revert it.")
    assert "constraint" in types("It has to run on Python 3.8, no new dependencies.")


def test_a_long_paste_is_a_data_reference_and_urls_are_external_refs() -> None:
    events = prompt_events("See https://example.com/issue and #42\n" + "log line\n" * 200)
    types = [e.type for e in events]
    assert "data" in types
    refs = [e.data for e in events if e.type == "external_ref"]
    assert "https://example.com/issue" in refs and "#42" in refs


@given(st.text(max_size=3000))
def test_any_prompt_gives_bounded_events_without_crashing(text: str) -> None:
    events = prompt_events(text)
    assert all(len(e.data) <= 2000 for e in events)
    if events:
        assert events[0].type == "user_prompt"


@given(st.text(min_size=1, max_size=200).map(lambda s: s.rstrip() + "?"))
def test_a_plain_question_is_never_a_decision_unless_a_polite_correction(text: str) -> None:
    for clause in decision_clauses(text):
        assert not clause.rstrip().endswith("?") or clause.lower().startswith(
            ("can", "could", "would", "will")
        )
