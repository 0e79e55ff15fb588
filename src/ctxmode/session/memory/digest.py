"""A bounded digest of a command's output, fed chunk by chunk while it streams past.

Memory stays constant whatever the output size: line and byte counts, the first few
error-looking lines, and the last non-empty line (each capped).
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass, field

MAX_ERROR_LINES = 5
MAX_LINE_CHARS = 200
_MAX_PARTIAL = 4096  # the part of an unfinished line kept for matching
_ERROR = re.compile(
    rb"(?i)\b(error|errors|failed|failure|fatal|exception|traceback|panic|denied|"
    rb"not found|no such file|segmentation fault)\b"
)


def _shorten(line: bytes) -> str:
    text = line.decode("utf-8", errors="replace").strip()
    return text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 3] + "..."


@dataclass
class StreamDigest:
    """Counts and notable lines of one stream (stdout or stderr)."""

    bytes: int = 0
    lines: int = 0
    error_lines: list[str] = field(default_factory=list)
    error_count: int = 0
    last_line: str = ""
    # `builtins.bytes`: in this class `bytes` names the byte count above.
    _partial: builtins.bytes = b""

    def feed(self, chunk: builtins.bytes) -> None:
        self.bytes += len(chunk)
        start = 0
        while (newline := chunk.find(b"\n", start)) >= 0:
            self._take(chunk[start:newline])
            start = newline + 1
        # An unfinished (maybe giant) line: keep its tail, enough for "last line" and matching.
        self._partial = (self._partial + chunk[start:])[-_MAX_PARTIAL:]

    def close(self) -> None:
        if self._partial:
            self._take(b"")

    def _take(self, piece: builtins.bytes) -> None:
        line = (self._partial + piece[-_MAX_PARTIAL:])[-_MAX_PARTIAL:]
        self._partial = b""
        self.lines += 1
        if line.strip():
            self.last_line = _shorten(line)
        if _ERROR.search(line):
            self.error_count += 1
            if len(self.error_lines) < MAX_ERROR_LINES:
                self.error_lines.append(_shorten(line))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render_digest(command: str, exit_code: int, out: StreamDigest, err: StreamDigest) -> str:
    """The entry recorded for one `ctxmode run`: the command, its exit code, what it printed."""
    lines = [
        f"$ {command}",
        f"exit {exit_code}; stdout {_plural(out.lines, 'line')} ({out.bytes} bytes), "
        f"stderr {_plural(err.lines, 'line')} ({err.bytes} bytes)",
    ]
    errors = (err.error_lines + out.error_lines)[:MAX_ERROR_LINES]
    unseen = err.error_count + out.error_count - len(errors)
    if errors:
        lines.append(f"error lines{f' (+{unseen} more)' if unseen else ''}:")
        lines.extend(f"  {line}" for line in errors)
    if out.last_line:
        lines.append(f"last stdout line: {out.last_line}")
    if err.last_line and err.last_line not in errors:
        lines.append(f"last stderr line: {err.last_line}")
    return "\n".join(lines)
