"""Reading the hook tally (`logs/hook-calls.jsonl` and its rotated `.1`) and the hook error log.

The tally only grows between rotations, so a `HookLog` keeps what it parsed and reads
just the bytes appended since; a rotation (the file shrank or changed inode) starts over.
It keeps only what pages use (the calls that decided something, and timings by group),
so a page never walks tens of thousands of calls.
Unparseable lines (a half-written last line, a foreign edit) are skipped.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass

from ctxmode.hooks.tally import LOG_NAME

ERROR_LOG = "hook-errors.log"


@dataclass(frozen=True)
class HookCall:
    at: float
    host: str
    event: str
    tool: str
    session_id: str
    project_dir: str
    ms: float
    action: str  # "" when the hook let the call through untouched
    kind: str  # the routing rule's name for a redirect/deny ("" for others)
    bytes_in: int  # a replaced output's measured size, before and after (0 otherwise)
    bytes_out: int


def _parse(line: bytes) -> HookCall | None:
    try:
        raw = json.loads(line)
        return HookCall(
            float(raw["t"]),
            str(raw.get("host", "")),
            str(raw.get("ev", "")),
            str(raw.get("tool", "")),
            str(raw.get("sid", "")),
            str(raw.get("dir", "")),
            float(raw.get("ms", 0.0)),
            str(raw.get("act", "")),
            str(raw.get("kind", "")),
            int(raw.get("bytes_in", 0)),
            int(raw.get("bytes_out", 0)),
        )
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


LatencyKey = tuple[str, str, str]  # (project dir, host, event)


class _File:
    """One log file read incrementally, kept as what the pages need: the calls that decided
    something (few), and every call's milliseconds grouped by directory, host and event."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._reset(None)

    def _reset(self, identity: tuple[int, int] | None) -> None:
        self.identity = identity
        self.offset = 0
        self.decided: list[HookCall] = []
        self.ms: dict[LatencyKey, list[float]] = {}

    def refresh(self) -> None:
        try:
            info = os.stat(self.path)
        except OSError:
            self._reset(None)
            return
        identity = (info.st_dev, info.st_ino)
        if identity != self.identity or info.st_size < self.offset:
            self._reset(identity)
        if info.st_size == self.offset:
            return
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read(info.st_size - self.offset)
        complete = data.rfind(b"\n") + 1  # a line still being written waits for next time
        for line in data[:complete].splitlines():
            call = _parse(line)
            if call is None:
                continue
            self.ms.setdefault((call.project_dir, call.host, call.event), []).append(call.ms)
            if call.action:
                self.decided.append(call)
        self.offset += complete


class HookLog:
    """The tally (rotated file first), re-read cheaply: only appended bytes are parsed."""

    def __init__(self, logs_dir: str) -> None:
        path = os.path.join(logs_dir, LOG_NAME)
        self._files = (_File(path + ".1"), _File(path))
        self._lock = threading.Lock()

    def _refresh(self) -> None:
        for item in self._files:
            item.refresh()

    def decided(self) -> list[HookCall]:
        """Calls that redirected, denied, nudged or replaced something, oldest first."""
        with self._lock:
            self._refresh()
            return [call for item in self._files for call in item.decided]

    def latency_samples(self) -> dict[LatencyKey, list[float]]:
        """Every call's in-process milliseconds by (project dir, host, event)."""
        with self._lock:
            self._refresh()
            merged: dict[LatencyKey, list[float]] = {}
            for item in self._files:
                for key, values in item.ms.items():
                    merged.setdefault(key, []).extend(values)
            return merged


def error_lines(logs_dir: str, most: int = 50) -> list[str]:
    """The last `most` lines of the hook error log (the rotated copy first), newest last."""
    lines: list[str] = []
    for name in (ERROR_LOG + ".1", ERROR_LOG):
        try:
            with open(os.path.join(logs_dir, name), "rb") as handle:
                handle.seek(max(0, os.fstat(handle.fileno()).st_size - 200_000))
                lines += handle.read().decode("utf-8", "replace").splitlines()
        except OSError:
            continue
    return [line for line in lines if line.strip()][-most:]
