"""The context block: summary first, a window of full entries, folded older ones, the budget."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.session.memory.block import BlockInput, build_block
from ctxmode.session.memory.model import Entry


def entries(n: int, size: int = 30, role: str = "tool") -> list[Entry]:
    return [
        Entry(i, role, f"entry-{i} " + "x" * size, "2026-11-30T11:00:00+00:00")
        for i in range(1, n + 1)
    ]


def block(items: list[Entry], **overrides: object) -> str:
    values: dict[str, object] = {
        "session": "prod-archive-log",
        "summary": "triaging the import failure",
        "entries": items,
        "total_entries": len(items),
        "window": 8,
        "max_chars": 2000,
        "cwd": "/data/prod/archive",
        "workspace": "/data/prod/archive",
    }
    values.update(overrides)
    return build_block(BlockInput(**values))  # type: ignore[arg-type]


def test_summary_comes_first_then_entries_then_cwd_and_workspace() -> None:
    text = block(entries(3), cwd="/data/prod/archive/2024")
    lines = text.splitlines()
    assert lines[1] == "Summary: triaging the import failure"
    assert text.index("Summary:") < text.index("entry-1") < text.index("entry-3")
    assert lines[-2:] == [
        "Current directory: /data/prod/archive/2024",
        "Session workspace: /data/prod/archive",
    ]


def test_the_last_window_entries_are_full_and_older_ones_folded_to_one_line() -> None:
    items = [
        Entry(i, "tool", f"step {i}\nline two of {i}", "2026-11-30T11:00") for i in range(1, 11)
    ]
    text = block(items, window=4)
    recent = text[text.index("Recent entries:") :]
    for i in range(7, 11):
        assert f"step {i}\nline two of {i}" in recent
    earlier = text[text.index("Earlier entries:") : text.index("Recent entries:")]
    for i in range(1, 7):
        assert f"step {i} line two of {i}" in earlier  # folded: one line each
    assert "folded" not in earlier  # everything fitted: no marker


def test_the_default_window_is_eight() -> None:
    text = block(entries(12))
    recent = text[text.index("Recent entries:") :]
    assert "entry-5 " in recent and "entry-4 " not in recent


def test_over_budget_older_entries_fold_out_with_a_visible_marker() -> None:
    text = block(entries(200, size=60), max_chars=2000)
    assert len(text) <= 2000
    assert "[... " in text and "earlier entries folded ...]" in text
    assert "entry-200 " in text  # the newest survives
    assert "Session workspace: /data/prod/archive" in text


def test_a_huge_newest_entry_is_cut_in_the_middle_with_a_marker() -> None:
    huge = [Entry(1, "tool", "HEAD " + "y" * 50_000 + " TAIL", "2026-11-30T11:00")]
    text = block(huge, max_chars=1500)
    assert len(text) <= 1500
    assert "HEAD" in text and "TAIL" in text and "chars folded ...]" in text


def test_unverified_checkpoints_are_marked() -> None:
    items = [
        Entry(1, "checkpoint", "disk full is the cause", "t", verified=True),
        Entry(2, "checkpoint", "errors start at 02:13", "t", verified=False),
    ]
    text = block(items)
    assert "checkpoint confirmed t] disk full is the cause" in text
    assert "checkpoint UNVERIFIED t] errors start at 02:13" in text


def test_entries_never_loaded_are_counted_in_the_marker() -> None:
    text = block(entries(5), total_entries=505)
    assert "[... 500 earlier entries folded ...]" in text


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 60),
    size=st.integers(0, 3000),
    summary=st.text(max_size=5000),
    window=st.integers(1, 20),
    max_chars=st.integers(300, 5000),
)
def test_the_block_never_exceeds_its_budget(
    n: int, size: int, summary: str, window: int, max_chars: int
) -> None:
    text = block(entries(n, size), summary=summary, window=window, max_chars=max_chars)
    assert len(text) <= max_chars


def test_a_block_showing_an_unverified_checkpoint_says_not_to_act_on_it() -> None:
    unverified = Entry(1, "checkpoint", "disk full is the cause", "2026-11-30T11:00", False)
    text = block([unverified])
    assert text.splitlines()[1] == (
        "Checkpoints marked UNVERIFIED are unconfirmed findings: do not use them as the basis "
        "of a further action; verify them first."
    )
    confirmed = Entry(1, "checkpoint", "disk full is the cause", "2026-11-30T11:00", True)
    assert "do not use them" not in block([confirmed, *entries(2)])


def test_an_unverified_checkpoint_folded_into_the_summary_keeps_the_rule() -> None:
    text = block(entries(2), summary="checkpoints: (UNVERIFIED) errors start at 02:13")
    assert "do not use them as the basis of a further action" in text


def test_the_summary_keeps_one_round_per_line() -> None:
    text = block(entries(1), summary="triage\nRan `a`: exit 0.\nRan `b`:   exit 1.")
    assert "Summary: triage\nRan `a`: exit 0.\nRan `b`: exit 1.\n" in text
