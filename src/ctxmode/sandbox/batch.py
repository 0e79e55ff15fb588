"""Running a list of labelled shell commands under one time budget, as one text.

With concurrency 1 the commands run in order and share the budget: once it is
spent (or a command times out), the rest are skipped with a note. They share the
per-call output cap the same way (side by side: in equal shares). With more, a
pool of workers pulls commands in order; each starts with whatever budget is
left and is skipped if none is. Output keeps the input order, each command's
output (stdout and stderr interleaved) becoming a `# <label>` section.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ctxmode.sandbox import budget
from ctxmode.sandbox.runner import ExecResult, effective_timeout_ms, run_code

MAX_CONCURRENCY = 8
SECTION_TEXT_MAX = 8 * 1024 * 1024  # per section in `text()`: bounds memory for huge outputs


@dataclass
class BatchSection:
    """One command's part of the batch."""

    label: str
    command: str
    result: ExecResult | None = None  # None when the command never ran
    note: str | None = None  # skipped, timed out, non-zero exit, executor error

    @property
    def skipped(self) -> bool:
        return self.result is None

    @property
    def byte_count(self) -> int:
        return self.result.stdout.byte_count if self.result else 0

    def iter_text(self, max_bytes: int | None = None) -> Iterator[str]:
        """`# <label>`, the output (middle left out beyond `max_bytes`), the note."""
        yield f"# {self.label}\n\n"
        if self.result is not None:
            stdout = self.result.stdout
            if max_bytes is None:
                yield from stdout.iter_text()
            else:
                yield stdout.bounded_text(max_bytes)
            last = stdout.head if stdout.complete else stdout.tail
            if stdout.byte_count and not last.endswith("\n"):
                yield "\n"
        if self.note:
            yield f"({self.note})\n"
        yield "\n"


@dataclass
class BatchResult:
    sections: list[BatchSection]
    duration_ms: int
    timeout_ms: int
    concurrency: int

    @property
    def total_bytes(self) -> int:
        return sum(section.byte_count for section in self.sections)

    def section_sizes(self) -> list[tuple[str, int]]:
        return [(section.label, section.byte_count) for section in self.sections]

    def iter_text(self, max_section_bytes: int | None = None) -> Iterator[str]:
        """All sections in order, in pieces (to index as one source)."""
        for section in self.sections:
            yield from section.iter_text(max_section_bytes)

    def text(self, max_section_bytes: int | None = SECTION_TEXT_MAX) -> str:
        """All sections as one text; a section beyond `max_section_bytes` keeps its two ends."""
        return "".join(self.iter_text(max_section_bytes))

    def close(self) -> None:
        for section in self.sections:
            if section.result is not None:
                section.result.close()

    def __enter__(self) -> BatchResult:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _note_for(result: ExecResult, budget_ms: int) -> str | None:
    if result.error:
        return f"executor error: {result.error}"
    if result.timed_out:
        return f"timed out — batch budget of {budget_ms} ms exhausted"
    parts = list(result.notes)
    if result.exit_code not in (0, None):
        parts.insert(0, f"exit code {result.exit_code}")
    return "; ".join(parts) or None


def run_batch(
    commands: list[tuple[str, str]],
    *,
    cwd: str,
    timeout_ms: int | None = None,
    concurrency: int = 1,
    extra_env: dict[str, str] | None = None,
) -> BatchResult:
    """Run `(label, shell command)` pairs within one budget of `timeout_ms` (default 120 s)."""
    started = time.monotonic()
    budget_ms = effective_timeout_ms(timeout_ms)
    deadline = started + budget_ms / 1000
    workers = max(1, min(int(concurrency), MAX_CONCURRENCY, len(commands) or 1))
    sections = [BatchSection(label, command) for label, command in commands]
    gave_up = False  # sequential mode: a timeout ends the batch
    # One output cap for the whole call: in order, each command gets what the earlier
    # ones left; side by side, each gets an equal share.
    cap = budget.output_cap()
    share = cap // workers

    def run_one(section: BatchSection) -> None:
        nonlocal gave_up
        remaining_ms = int((deadline - time.monotonic()) * 1000)
        if remaining_ms < 1 or gave_up:
            section.note = "skipped — batch time budget exhausted"
            return
        output_cap = share if workers > 1 else cap - sum(s.byte_count for s in sections)
        if output_cap < 1:
            section.note = f"skipped — the call's {cap // (1024 * 1024)} MB output cap is used up"
            return
        try:
            result = run_code(
                "shell",
                section.command,
                cwd=cwd,
                timeout_ms=remaining_ms,
                extra_env=extra_env,
                merge_stderr=True,
                output_cap_bytes=output_cap,
            )
        except Exception as exc:  # one command's failure must not sink its siblings
            section.note = f"executor error: {exc}"
            return
        section.result = result
        section.note = _note_for(result, budget_ms)
        if result.timed_out and workers == 1:
            gave_up = True

    if workers == 1:
        for section in sections:
            run_one(section)
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ctxmode-batch") as pool:
            list(pool.map(run_one, sections))
    return BatchResult(
        sections=sections,
        duration_ms=int((time.monotonic() - started) * 1000),
        timeout_ms=budget_ms,
        concurrency=workers,
    )
