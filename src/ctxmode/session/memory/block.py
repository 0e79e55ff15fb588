"""The context block handed to a command: summary, recent entries in full, older ones folded.

Pure: plain data in, one string out, never longer than the budget. What is cut is said
with a visible `[... folded ...]` marker, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxmode.session.memory.model import Entry

FOLD_LINE_CHARS = 120
UNVERIFIED = "UNVERIFIED"
UNVERIFIED_RULE = (
    "Checkpoints marked UNVERIFIED are unconfirmed findings: do not use them as the basis "
    "of a further action; verify them first."
)


@dataclass(frozen=True)
class BlockInput:
    session: str
    summary: str
    entries: list[Entry]  # oldest first; may be only the newest part of the history
    total_entries: int  # how many the session holds in all
    window: int
    max_chars: int
    cwd: str
    workspace: str


def fold_marker(count: int, what: str) -> str:
    return f"[... {count} {what} folded ...]"


def entry_header(entry: Entry) -> str:
    return f"[#{entry.id} {entry.label} {entry.created_at[:16].replace('T', ' ')}]"


def folded_line(entry: Entry) -> str:
    """One line: header and the start of the content, with how much was left out."""
    text = " ".join(entry.content.split())
    line = f"{entry_header(entry)} {text}"
    if len(line) <= FOLD_LINE_CHARS:
        return line
    kept = line[: FOLD_LINE_CHARS - 24]
    return f"{kept} [... {len(line) - len(kept)} chars folded]"


def full_entry(entry: Entry) -> str:
    return f"{entry_header(entry)} {entry.content.rstrip()}"


def cut_middle(text: str, limit: int) -> str:
    """`text` in at most `limit` chars: head and tail around a fold marker."""
    if len(text) <= limit:
        return text
    marker = fold_marker(len(text), "chars")  # an upper bound on the width of the real one
    room = limit - len(marker) - 2
    if room <= 0:
        return text[: max(limit, 0)]
    head = room * 2 // 3
    tail = room - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n{fold_marker(cut, 'chars')}\n{text[len(text) - tail :] if tail else ''}"


@dataclass
class _Parts:
    head: list[str]
    summary: str
    older_dropped: int
    folded: list[str]
    recent: list[str]
    foot: list[str]

    def render(self) -> str:
        lines = list(self.head)
        if self.summary:
            lines.append(f"Summary: {self.summary}")
        if self.folded or self.older_dropped:
            lines.append("Earlier entries:")
            if self.older_dropped:
                lines.append(fold_marker(self.older_dropped, "earlier entries"))
            lines.extend(self.folded)
        if self.recent:
            lines.append("Recent entries:")
            lines.extend(self.recent)
        lines.extend(self.foot)
        return "\n".join(lines)


def _summary_lines(summary: str) -> str:
    """The summary, one round per line, each line's whitespace collapsed."""
    return "\n".join(" ".join(line.split()) for line in summary.splitlines() if line.strip())


def _has_unverified(view: BlockInput) -> bool:
    return UNVERIFIED in view.summary or any(
        e.role == "checkpoint" and not e.verified for e in view.entries
    )


def build_block(view: BlockInput) -> str:
    """The block: its head (and the rule for unverified checkpoints, when it shows one),
    the summary, older entries folded, the recent ones in full, where we are."""
    window = max(view.window, 1)
    recent_entries = view.entries[-window:]
    older_entries = view.entries[: len(view.entries) - len(recent_entries)]
    unseen = view.total_entries - len(view.entries)  # older than anything loaded
    parts = _Parts(
        head=[
            f"Session {view.session} (ctxmode session memory, {view.total_entries} entries)",
            *([UNVERIFIED_RULE] if _has_unverified(view) else []),
        ],
        # The summary comes first but may take at most half of the budget.
        summary=cut_middle(_summary_lines(view.summary), view.max_chars // 2),
        older_dropped=max(unseen, 0),
        folded=[],
        recent=[full_entry(e) for e in recent_entries],
        foot=[f"Current directory: {view.cwd}", f"Session workspace: {view.workspace}"],
    )
    _fit_folded(parts, [folded_line(e) for e in older_entries], view.max_chars)
    # The summary grows a line a round: it gives way first, down to an eighth of the
    # budget (its head and newest lines), before the recent entries are folded.
    _shrink_summary(parts, view.max_chars, floor=view.max_chars // 8)
    _shrink_recent(parts, recent_entries, view.max_chars)
    _shrink_summary(parts, view.max_chars)
    return _hard_fit(parts, view.max_chars)


def _fit_folded(parts: _Parts, folded: list[str], max_chars: int) -> None:
    """Keep the newest folded lines that fit; count the rest in the marker."""
    parts.older_dropped += len(folded)
    room = max_chars - len(parts.render()) - len("\nEarlier entries:\n") - 40
    kept: list[str] = []
    for line in reversed(folded):
        if len(line) + 1 > room:
            break
        kept.append(line)
        room -= len(line) + 1
    parts.folded = kept[::-1]
    parts.older_dropped -= len(kept)


def _shrink_recent(parts: _Parts, recent: list[Entry], max_chars: int) -> None:
    """Over budget: fold, then drop, recent entries oldest first (the newest stays whole)."""
    while len(parts.recent) > 1 and len(parts.render()) > max_chars:
        oldest = recent[len(recent) - len(parts.recent)]
        line = folded_line(oldest)
        if parts.recent[0] != line:
            parts.recent[0] = line
        else:
            parts.recent.pop(0)
            parts.older_dropped += 1


def _shrink_summary(parts: _Parts, max_chars: int, floor: int = 0) -> None:
    over = len(parts.render()) - max_chars
    if over > 0 and len(parts.summary) > floor:
        parts.summary = cut_middle(parts.summary, max(len(parts.summary) - over, floor))


def _hard_fit(parts: _Parts, max_chars: int) -> str:
    """Last resort: cut the newest entry, then the whole block, around a marker."""
    block = parts.render()
    over = len(block) - max_chars
    if over > 0 and parts.recent:
        newest = parts.recent[-1]
        parts.recent[-1] = cut_middle(newest, max(len(newest) - over, 0))
        block = parts.render()
    return cut_middle(block, max_chars)
