"""Each round of work adds one sentence to the session summary, so it summarises itself."""

from __future__ import annotations

from ctxmode.session.memory.digest import StreamDigest, render_digest
from ctxmode.session.memory.rounds import MAX_ROUND_LINES, grown_summary, round_sentence


def digest_of(command: str, exit_code: int, stdout: bytes, stderr: bytes = b"") -> str:
    out, err = StreamDigest(), StreamDigest()
    out.feed(stdout)
    err.feed(stderr)
    out.close()
    err.close()
    return render_digest(command, exit_code, out, err)


def test_a_run_reads_as_what_ran_how_it_ended_and_what_it_found():
    run = digest_of("grep -m1 ERROR import.log", 0, b"02:13 ERROR importer: disk full\n")
    assert round_sentence(run) == (
        "Ran `grep -m1 ERROR import.log`: exit 0, "
        "first error: 02:13 ERROR importer: disk full."  # the last line, said once
    )
    counted = digest_of("grep -c ERROR import.log", 0, b"3\n")
    assert round_sentence(counted) == "Ran `grep -c ERROR import.log`: exit 0, last output: 3."
    quiet = digest_of("make clean", 2, b"", b"")
    assert round_sentence(quiet) == "Ran `make clean`: exit 2."


def test_any_other_tool_result_reads_as_its_first_line():
    assert round_sentence("\n  3 tests failed in test_io.py\nmore detail\n") == (
        "Tool result: 3 tests failed in test_io.py."
    )


def test_a_sentence_stays_one_short_line_however_big_the_result():
    sentence = round_sentence("x" * 10_000 + "\nsecond line")
    assert "\n" not in sentence and len(sentence) <= 200


def test_the_summary_keeps_a_hand_written_first_line_and_adds_rounds_below_it():
    summary = grown_summary("", "Ran `a`: exit 0.")
    assert summary == "Ran `a`: exit 0."
    summary = grown_summary("why did the import fail?", "Ran `a`: exit 0.")
    summary = grown_summary(summary, "Ran `b`: exit 1.")
    assert summary.splitlines() == [
        "why did the import fail?",
        "Ran `a`: exit 0.",
        "Ran `b`: exit 1.",
    ]


def test_only_the_newest_rounds_are_kept_and_the_rest_are_counted():
    summary = "triage"
    for n in range(MAX_ROUND_LINES + 5):
        summary = grown_summary(summary, f"Ran `step {n}`: exit 0.")
    lines = summary.splitlines()
    assert lines[:2] == ["triage", "earlier rounds: 5 left out"]
    assert (
        lines[2] == "Ran `step 5`: exit 0."
        and lines[-1] == f"Ran `step {MAX_ROUND_LINES + 4}`: exit 0."
    )
    assert len(lines) == MAX_ROUND_LINES + 2
