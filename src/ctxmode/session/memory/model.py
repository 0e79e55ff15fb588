"""Plain records of session memory: a session and one entry of its history."""

from __future__ import annotations

from dataclasses import dataclass

ROLES = ("user", "tool", "summary", "checkpoint")


@dataclass(frozen=True)
class Session:
    id: str
    workspace: str
    summary: str
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class Entry:
    id: int
    role: str
    content: str
    created_at: str
    verified: bool | None = None  # checkpoints only: confirmed or not

    @property
    def label(self) -> str:
        """`tool`, `checkpoint confirmed`, `checkpoint UNVERIFIED`."""
        if self.role != "checkpoint":
            return self.role
        return "checkpoint confirmed" if self.verified else "checkpoint UNVERIFIED"
