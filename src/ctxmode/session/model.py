"""The vocabulary of session continuity: a captured event, its categories and priorities.

Priority: a HIGHER number is MORE important (1 = noise ... 5 = critical). The per-session
cap evicts the lowest priority first (oldest first among equals), so the last request,
tasks, edits, errors and decisions are the last to go (the reference had it backwards).
Hot path: no imports.
"""

from __future__ import annotations

CRITICAL = 5  # last request, tasks, file edits/writes, decisions, errors, rules, goals
HIGH = 4  # git commits/branch, cwd, error fixes, blockers, roles, subagent findings, answers
NORMAL = 3  # reads, env, skills, MCP use, plans, constraints, retries, redirects, rejections
LOW = 2  # searches, data references, external refs, slow tools, intent, turn ends
NOISE = 1  # session bookkeeping

MAX_DATA_CHARS = 2_000  # one event's text; longer text is cut with a marker


class Captured:
    """One event extracted from a hook call, before it is stored.

    `ref` links an event to an earlier one (error_resolved -> the error's row id).
    """

    __slots__ = ("category", "data", "priority", "ref", "type")

    def __init__(
        self, category: str, type: str, priority: int, data: str, ref: int | None = None
    ) -> None:
        self.category = category
        self.type = type
        self.priority = priority
        self.data = clip(data, MAX_DATA_CHARS)
        self.ref = ref

    def __repr__(self) -> str:
        return f"Captured({self.category!r}, {self.type!r}, {self.priority}, {self.data[:60]!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Captured) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__
        )


class StoredEvent:
    """One row of `session_events` as the guide builder sees it."""

    __slots__ = ("agent_id", "category", "created_at", "data", "id", "priority", "ref", "type")

    def __init__(
        self,
        id: int,
        category: str,
        type: str,
        priority: int,
        data: str,
        *,
        agent_id: str = "",
        ref: int | None = None,
        created_at: float = 0.0,
    ) -> None:
        self.id = id
        self.category = category
        self.type = type
        self.priority = priority
        self.data = data
        self.agent_id = agent_id
        self.ref = ref
        self.created_at = created_at

    def __repr__(self) -> str:
        return f"StoredEvent({self.id}, {self.category!r}, {self.type!r}, {self.data[:50]!r})"


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, the cut marked with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed to single spaces, then clipped."""
    return clip(" ".join(text.split()), limit)
