"""run_batch: labelled shell commands under one time budget, as one sectioned text."""

from __future__ import annotations

from pathlib import Path

from ctxmode.sandbox.batch import run_batch


def test_sections_keep_input_order_labels_and_sizes(project: Path) -> None:
    commands = [("first", "echo one"), ("second", "echo two >&2; echo three"), ("third", "exit 4")]
    with run_batch(commands, cwd=str(project), timeout_ms=30_000) as batch:
        text = batch.text()
        assert text.index("# first") < text.index("# second") < text.index("# third")
        assert "# first\n\none\n" in text
        assert "two\nthree\n" in text  # stderr interleaved with stdout, in order
        assert "(exit code 4)" in text
        assert batch.section_sizes() == [("first", 4), ("second", 10), ("third", 0)]
        assert batch.total_bytes == 14


def test_sequential_batch_shares_one_budget_and_skips_the_rest(project: Path) -> None:
    commands = [("quick", "echo quick"), ("slow", "echo begun; sleep 60"), ("never", "echo never")]
    with run_batch(commands, cwd=str(project), timeout_ms=1_500, concurrency=1) as batch:
        quick, slow, never = batch.sections
        assert quick.result is not None and quick.note is None
        assert slow.result is not None and slow.result.timed_out
        assert "batch budget of 1500 ms exhausted" in (slow.note or "")
        assert never.skipped and "skipped" in (never.note or "")
        text = batch.text()
        assert "begun" in text and "never\n" not in text.replace("# never", "")


def test_parallel_batch_runs_everything_within_the_budget(project: Path) -> None:
    commands = [(f"job{i}", f"echo out{i}") for i in range(6)]
    with run_batch(commands, cwd=str(project), timeout_ms=30_000, concurrency=3) as batch:
        assert batch.concurrency == 3
        assert [s.label for s in batch.sections] == [f"job{i}" for i in range(6)]
        assert all(
            s.result and s.result.stdout.text() == f"out{i}\n" for i, s in enumerate(batch.sections)
        )


def test_parallel_batch_times_out_slow_commands_and_keeps_the_others(project: Path) -> None:
    commands = [("slow", "sleep 60"), ("fast", "echo fast")]
    with run_batch(commands, cwd=str(project), timeout_ms=1_500, concurrency=8) as batch:
        assert batch.concurrency == 2
        slow, fast = batch.sections
        assert slow.result is not None and slow.result.timed_out
        assert fast.result is not None and fast.result.stdout.text() == "fast\n"


def test_a_command_failing_to_start_does_not_sink_the_batch(project: Path) -> None:
    with run_batch([("bad", "echo x")], cwd=str(project / "missing")) as batch:
        assert "executor error: working directory not found" in (batch.sections[0].note or "")


def test_batch_text_keeps_both_ends_of_a_huge_section(project: Path) -> None:
    command = "echo FIRST; seq 1 200000; echo LAST"
    with run_batch([("big", command), ("small", "printf tail")], cwd=str(project)) as batch:
        text = batch.text(max_section_bytes=10_000)
        assert len(text.encode()) < 12_000
        assert "FIRST" in text and "LAST" in text and "bytes left out here" in text
        assert text.endswith("# small\n\ntail\n\n")
        assert "".join(batch.iter_text()).count("\n") > 200_000  # unbounded when asked


def test_the_output_cap_holds_for_the_whole_call(project: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTXMODE_CALL_DISK_CAP", "2000000")  # the output gets half
    flood = "head -c 700000 /dev/zero | tr '\\0' x"
    commands = [("a", flood), ("b", flood), ("c", flood)]
    with run_batch(commands, cwd=str(project), timeout_ms=30_000) as batch:
        assert batch.total_bytes <= 1_000_000
        assert "past the cap dropped" in (batch.sections[1].note or "")
        assert "output cap is used up" in (batch.sections[2].note or "")
    with run_batch(commands, cwd=str(project), timeout_ms=30_000, concurrency=3) as batch:
        assert batch.total_bytes <= 1_000_000
