"""Snippets: the lines of a chunk that matched a query, with a little context, within a budget.

Input is the chunk content as FTS5 `highlight()` returns it (matches between \\x02 and
\\x03), so what counts as a match is exactly what the index matched (stems included).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

OPEN, CLOSE = "\x02", "\x03"
ELLIPSIS = "…"
CONTEXT_LINE_CHARS = 200  # neighbouring lines shorter than this come along as context
LONG_LINE_RADIUS = 240  # within a long line, keep this much either side of the match

Span = tuple[int, int]


def strip_marks(marked: str) -> tuple[str, list[Span]]:
    """The plain text and the (start, end) spans that were marked."""
    text: list[str] = []
    spans: list[Span] = []
    pos = 0
    start = 0
    for piece in re.split(r"([\x02\x03])", marked):
        if piece == OPEN:
            start = pos
        elif piece == CLOSE:
            spans.append((start, pos))
        else:
            text.append(piece)
            pos += len(piece)
    return "".join(text), spans


def find_words(text: str, words: Iterable[str]) -> list[Span]:
    """Fallback matching: case-insensitive occurrences of `words` (3+ chars)."""
    lowered = text.lower()
    spans: list[Span] = []
    for word in {w.lower() for w in words if len(w) >= 3}:
        start = lowered.find(word)
        while start >= 0:
            spans.append((start, start + len(word)))
            start = lowered.find(word, start + 1)
    return sorted(spans)


def _snap_left(text: str, pos: int, match_start: int) -> int:
    """Move a cut forward to the next space (never past the match)."""
    space = text.find(" ", pos, min(pos + 20, match_start))
    return space + 1 if space >= 0 else pos


def _snap_right(text: str, pos: int, match_end: int) -> int:
    """Move a cut back to the previous space (never before the match)."""
    space = text.rfind(" ", max(pos - 20, match_end), pos)
    return space if space >= 0 else pos


def _line_window(text: str, span: Span) -> Span:
    """The matching line (or the part of a long line around the match) plus short neighbours."""
    start = text.rfind("\n", 0, span[0]) + 1
    end = text.find("\n", span[1])
    end = len(text) if end < 0 else end
    if end - start > 2 * LONG_LINE_RADIUS:
        return (
            _snap_left(text, max(start, span[0] - LONG_LINE_RADIUS), span[0]),
            _snap_right(text, min(end, span[1] + LONG_LINE_RADIUS), span[1]),
        )
    if start > 0:
        prev = text.rfind("\n", 0, start - 1) + 1
        if start - prev <= CONTEXT_LINE_CHARS:
            start = prev
    if end < len(text):
        nxt = text.find("\n", end + 1)
        nxt = len(text) if nxt < 0 else nxt
        if nxt - end <= CONTEXT_LINE_CHARS:
            end = nxt
    return start, end


def _merge(windows: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(windows):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _score(text: str, window: Span, spans: list[Span]) -> tuple[int, int]:
    inside = [text[s:e].lower() for s, e in spans if window[0] <= s and e <= window[1]]
    return len(set(inside)), len(inside)


def _clip(text: str, window: Span, spans: list[Span], budget: int) -> Span:
    """Shrink a window to `budget` chars, centred on its first match."""
    first = next((s for s, e in spans if window[0] <= s < window[1]), window[0])
    start = max(window[0], first - budget // 3)
    return start, min(window[1], start + budget)


def make_snippet(marked: str, max_chars: int, fallback_words: Iterable[str] = ()) -> str:
    """At most `max_chars` of the chunk: windows around the matching lines, "…" where cut."""
    text, spans = strip_marks(marked)
    if len(text) <= max_chars:
        return text
    spans = spans or find_words(text, fallback_words)
    if not spans:
        return text[: max_chars - 1].rstrip() + ELLIPSIS
    windows = _merge([_line_window(text, span) for span in spans])
    ranked = sorted(windows, key=lambda w: _score(text, w, spans), reverse=True)
    chosen: list[Span] = []
    used = 0
    for window in ranked:
        cost = window[1] - window[0] + 2 * len(ELLIPSIS) + 2
        if used + cost > max_chars:
            if not chosen:  # the best window alone is too long: keep its match, clip the rest
                chosen.append(_clip(text, window, spans, max_chars - 2 * len(ELLIPSIS) - 2))
            continue
        chosen.append(window)
        used += cost
    chosen.sort()
    parts: list[str] = []
    for i, (start, end) in enumerate(chosen):
        piece = text[start:end].strip("\n")
        if start > 0 and (i == 0 or chosen[i - 1][1] < start - 1):
            piece = ELLIPSIS + piece
        if end < len(text) and i == len(chosen) - 1:
            piece = piece + ELLIPSIS
        parts.append(piece)
    return "\n".join(parts)[:max_chars]
