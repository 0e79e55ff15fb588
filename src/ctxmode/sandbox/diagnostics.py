"""Finding the lines of an output that must never be cut: errors, diagnostics, the summary.

Pure and incremental: `DiagnosticCollector.feed(text)` takes complete lines in
pieces of any size (a 50 MB output is fed a megabyte at a time) and keeps a
bounded, de-duplicated selection. A fast keyword search over each piece finds
candidate lines, so only those lines cost Python work.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from ctxmode.sandbox.failures import Failure, FailureCollector

# Candidate lines are found fast: ASCII-lowered bytes searched with `bytes.find` for each
# keyword (C speed), plus one regex whose every branch starts with a literal.
_KEYWORDS: tuple[bytes, ...] = (
    b"error", b"exception", b"traceback", b"fatal", b"panic", b"fail", b"abort", b"assert",
    b"segmentation fault", b"core dumped", b"denied", b"not found", b"no such file", b"cannot",
    b"undefined", b"refused", b"killed", b"warning:", b"passed", b"passing", b"test result",
    b"problem", b"tests:", b"ran ", b"found ",
)  # fmt: skip
_LITERAL_CANDIDATES = re.compile(
    rb"\.[A-Za-z]\w{0,7}:\d|-->|File \""
    rb"|\n(?:[ \t]+at |ok\b|PASS\b|FAIL\b|OK\b|# (?:pass|fail)|\d+ (?:passing|failing|examples?))"
)

# Final "how did it go" lines of test runners, compilers and linters (the last one wins).
_SUMMARY = re.compile(
    r"^=+ .*\b(?:passed|failed|errors?|no tests ran)\b.*=+\s*$"  # pytest
    r"|^test result: "  # cargo test
    r"|^(?:ok|FAIL)\s+\S+\s+[\d.]+s"  # go test, per package
    r"|^(?:PASS|FAIL)\s*$"  # go test, whole run
    r"|^Tests?:\s+.*\d+ total"  # jest, vitest
    r"|^\s*\d+ (?:passing|failing)\b"  # mocha
    r"|^# (?:pass|fail) \d+"  # node --test
    r"|^\d+ examples?, \d+ failures?"  # rspec
    r"|^Ran \d+ tests? in "  # unittest
    r"|^(?:OK|FAILED) \(.*\)\s*$"  # unittest, phpunit
    r"|^Found \d+ errors?"  # tsc, mypy
    r"|^\S*\s*\d+ problems? \("  # eslint
    r"|^Tests: \d+, Assertions: \d+"  # phpunit
    r"|^\d+ tests? completed, \d+ failed"  # Gradle
    r"|^\s*(?:\w+:\s*)?\d+ passed, \d+ failed",  # the plain form any runner may print
    re.IGNORECASE,
)

# Lines that are diagnostics (a subset of the candidates: success words alone are not).
_DIAGNOSTIC = re.compile(
    r"error|exception|traceback|fatal|panic|fail|abort|assert|segmentation fault|core dumped"
    r"|denied|not found|no such file|cannot|undefined(?::| reference| symbol)|refused|killed"
    r"|warning:|^\s+at\s|^\s*-->|(?<![\w./\\-])[\w./\\-]+\.[A-Za-z]\w{0,7}:\d+|File \"[^\"]+\", line \d+",
    re.IGNORECASE,
)

MAX_LINE_CHARS = 300


@dataclass(frozen=True)
class Diagnostics:
    """The error lines kept from an output (first and last ones when there were many)."""

    lines: tuple[str, ...]
    omitted: int  # diagnostic lines dropped between the first and the last ones
    summary: str | None
    failures: tuple[Failure, ...] = ()  # failing tests and compiler problems, each with its message
    failures_omitted: int = 0  # more of them than were kept


def clip_line(line: str, limit: int = MAX_LINE_CHARS) -> str:
    line = line.rstrip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


class DiagnosticCollector:
    """Collects diagnostic lines and the last summary line from text fed in pieces."""

    def __init__(self, max_lines: int = 80) -> None:
        self._first_limit = max_lines // 2
        self._first: list[str] = []
        self._first_set: set[str] = set()
        self._last: deque[str] = deque(maxlen=max_lines - self._first_limit)
        self._dropped = 0  # lines pushed out of `_last` (a later repeat may count again)
        self._summary: str | None = None
        self._failures = FailureCollector()

    def feed(self, data: bytes | str) -> None:
        """Scan `data`, which must end at a line boundary (or be the final piece)."""
        self._failures.feed(data)
        if isinstance(data, str):
            data = data.encode("utf-8", errors="replace")
        lowered = data.lower()  # ASCII only, so offsets stay aligned
        starts: set[int] = set()
        for keyword in _KEYWORDS:
            position = lowered.find(keyword)
            while position >= 0:
                starts.add(data.rfind(b"\n", 0, position) + 1)
                line_end = data.find(b"\n", position)
                if line_end < 0:
                    break
                position = lowered.find(keyword, line_end)
        for match in _LITERAL_CANDIDATES.finditer(b"\n" + data):
            if match.group().startswith(b"\n"):
                starts.add(match.start())  # the line begins right after that newline
            else:
                starts.add(data.rfind(b"\n", 0, match.start() - 1) + 1)
        for start in sorted(starts):
            end = data.find(b"\n", start)
            line = data[start : end if end >= 0 else len(data)]
            self._consider(line.decode("utf-8", errors="replace"))

    def _consider(self, line: str) -> None:
        probe = line[:2000]  # bounds regex work on giant lines
        if not probe.strip():
            return
        if _SUMMARY.search(probe):
            self._summary = clip_line(line.strip())
            return
        if not _DIAGNOSTIC.search(probe):
            return
        kept = clip_line(line)
        if kept in self._first_set or kept in self._last:
            return
        if len(self._first) < self._first_limit:
            self._first.append(kept)
            self._first_set.add(kept)
            return
        if len(self._last) == self._last.maxlen:
            self._dropped += 1
        self._last.append(kept)

    def result(self) -> Diagnostics:
        failures, failures_omitted = self._failures.result()
        return Diagnostics(
            lines=(*self._first, *self._last),
            omitted=self._dropped,
            summary=self._summary,
            failures=failures,
            failures_omitted=failures_omitted,
        )


def scan_text(text: str, max_lines: int = 80) -> Diagnostics:
    collector = DiagnosticCollector(max_lines)
    collector.feed(text)
    return collector.result()
