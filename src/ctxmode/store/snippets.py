"""Snippets: the lines of a chunk that matched a query, with a little context, within a budget.

Input is the chunk content as FTS5 `highlight()` returns it (matches between \\x02 and
\\x03), so what counts as a match is exactly what the index matched (stems included).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ctxmode.store.terms import WORD, stem_prefix

OPEN, CLOSE = "\x02", "\x03"
ELLIPSIS = "…"
CONTEXT_LINE_CHARS = 200  # neighbouring lines shorter than this come along as context
LONG_LINE_RADIUS = 240  # within a long line, keep this much either side of the match
DEFINITION_LEAD = 24  # a match that opens a line may sit inside its first word ("PR_SET_")
SENTENCE_END = (".", "!", "?", ":", ";")
SENTENCE_LINES_BEFORE = 2  # at most this many earlier lines of the matching sentence
SENTENCE_LINES_AFTER = 3  # ... and later ones (the line, then the rest of its sentence)
ADJACENT_GAP = 3  # chars between two matches that still count as next to each other
OPENING_WORDS = 6  # a section's opening prose says something: at least this many words
OPENING_SHARE = 3  # ... and takes at most a third of the snippet

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


def _clip(text: str, window: Span, spans: list[Span], budget: int) -> Span:
    """Shrink a window to `budget` chars, centred on its first match."""
    first = next((s for s, e in spans if window[0] <= s < window[1]), window[0])
    start = max(window[0], first - budget // 3)
    return start, min(window[1], start + budget)


def _grouper(words: Iterable[str]) -> Callable[[str], str]:
    """Which query word a matched token stands for (so "thread" and "threads" count once).

    Tokens are compared by crude stem prefix with the parts of the query's words; a token
    that fits none stands for itself.
    """
    prefixes = sorted(
        {stem_prefix(p) for w in words for p in WORD.findall(w.lower())}, key=len, reverse=True
    )

    def group(token: str) -> str:
        token = token.lower()
        for prefix in prefixes:
            if token.startswith(prefix) or prefix.startswith(token):
                return prefix
        return stem_prefix(token)

    return group


@dataclass
class _Line:
    """One line holding matches: how well it answers the query."""

    start: int
    end: int
    groups: set[str] = field(default_factory=set)  # distinct query words on the line
    adjacent: int = 0  # neighbouring matches of different words ("worker threads")
    count: int = 0
    opens: bool = False  # a match opens the line: an option/constant being defined

    def score(self) -> tuple[int, int, int, int]:
        return len(self.groups), self.adjacent, self.opens, self.count


def _matched_lines(text: str, spans: list[Span], group: Callable[[str], str]) -> list[_Line]:
    lines: dict[int, _Line] = {}
    previous: tuple[int, str] | None = None  # (end, group) of the last match on the line
    for start, end in spans:
        line_start = text.rfind("\n", 0, start) + 1
        line = lines.get(line_start)
        if line is None:
            line_end = text.find("\n", start)
            line = lines[line_start] = _Line(line_start, len(text) if line_end < 0 else line_end)
            lead = text[line_start:start].lstrip()
            line.opens = len(lead) <= DEFINITION_LEAD and not any(c.isspace() for c in lead)
            previous = None
        name = group(text[start:end])
        if previous and previous[1] != name and 0 <= start - previous[0] <= ADJACENT_GAP:
            line.adjacent += 1
        line.groups.add(name)
        line.count += 1
        previous = (end, name)
    return list(lines.values())


def _window(text: str, line: _Line, spans: list[Span]) -> Span:
    """The matching line with the rest of its sentence: earlier lines back to the sentence
    start, later ones up to its end (so a definition like "rebase.autoStash" brings the
    line describing it). A long line is cut around its first match instead."""
    first = next(s for s, _ in spans if line.start <= s <= line.end)
    if line.end - line.start > 2 * LONG_LINE_RADIUS:
        return _line_window(text, (first, first))
    start, end = line.start, line.end
    for _ in range(SENTENCE_LINES_BEFORE):
        if start == 0:
            break
        prev_start = text.rfind("\n", 0, start - 1) + 1
        prev = text[prev_start : start - 1].rstrip()
        if not prev.strip() or prev.endswith(SENTENCE_END) or len(prev) > CONTEXT_LINE_CHARS:
            break
        start = prev_start
    for _ in range(SENTENCE_LINES_AFTER):
        last = text[text.rfind("\n", 0, end) + 1 : end].rstrip()
        if end >= len(text) or (last.endswith(SENTENCE_END) and end > line.end):
            break
        nxt_end = text.find("\n", end + 1)
        nxt_end = len(text) if nxt_end < 0 else nxt_end
        nxt = text[end + 1 : nxt_end]
        if not nxt.strip() or len(nxt) > CONTEXT_LINE_CHARS:
            break
        end = nxt_end
    return start, end


def _cost(windows: list[Span]) -> int:
    return sum(end - start + 2 * len(ELLIPSIS) + 1 for start, end in _merge(windows))


def opening_prose(text: str) -> Span | None:
    """The first paragraph of prose in a section: what the thing it is headed by does.

    Fenced code, HTML comments (metadata), lists, tables and quotes before it are skipped;
    prose opens with a letter and says something (OPENING_WORDS words or more).
    """
    fenced = commented = False
    for found in _PARAGRAPH.finditer(text):
        block = found.group().strip()
        head = block.lstrip()
        if commented or head.startswith("<!--"):
            commented = "-->" not in block
            continue
        if block.count("```") % 2:
            fenced = not fenced
            continue
        if fenced or head.startswith("```"):
            continue
        if head[:1].isalpha() and len(WORD.findall(block)) >= OPENING_WORDS:
            start = found.start() + len(found.group()) - len(found.group().lstrip())
            return start, found.start() + len(found.group().rstrip())
    return None


_PARAGRAPH = re.compile(r"(?:[^\n]+(?:\n|$))+")


def make_snippet(
    marked: str, max_chars: int, fallback_words: Iterable[str] = (), headed: bool = False
) -> str:
    """At most `max_chars` of the chunk: windows around its best-matching lines, "…" where cut.

    Lines rank by how many distinct query words they hold, then by how many of those sit
    next to each other, then whether a match opens the line (a definition), then matches.
    `fallback_words` are the query's words: used to tell its words apart, and to find
    matches when nothing is marked. `headed`: the chunk's heading names what the query
    searched, so its opening prose (what that thing is) comes first.
    """
    text, spans = strip_marks(marked)
    if len(text) <= max_chars:
        return text
    words = list(fallback_words)
    spans = spans or find_words(text, words)
    if not spans:
        return text[: max_chars - 1].rstrip() + ELLIPSIS
    lines = _matched_lines(text, spans, _grouper(words))
    ranked = sorted(lines, key=_Line.score, reverse=True)  # stable: earlier lines first on ties
    windows = [_window(text, line, spans) for line in ranked]
    opening = opening_prose(text) if headed else None
    if opening:  # after the best line, which always comes first
        windows.insert(1, (opening[0], min(opening[1], opening[0] + max_chars // OPENING_SHARE)))
    chosen: list[Span] = []
    for window in windows:
        if _cost([*chosen, window]) <= max_chars:
            chosen.append(window)
        elif not chosen:  # the best window alone is too long: keep its match, clip the rest
            chosen.append(_clip(text, window, spans, max_chars - 2 * len(ELLIPSIS) - 2))
    parts: list[str] = []
    merged = _merge(chosen)
    for i, (start, end) in enumerate(merged):
        piece = text[start:end].strip("\n")
        if start > 0:
            piece = ELLIPSIS + piece
        if end < len(text) and i == len(merged) - 1:
            piece = piece + ELLIPSIS
        parts.append(piece)
    return "\n".join(parts)[:max_chars]
