"""What the knowledge base hands back (results, hits, source facts) and the input it refuses."""

from __future__ import annotations

from dataclasses import dataclass

from ctxmode.errors import CtxmodeError


class StoreInputError(CtxmodeError, ValueError):
    """Input the knowledge base refuses (missing, empty, binary, not UTF-8); nothing changed."""


@dataclass(frozen=True)
class IndexResult:
    label: str
    chunk_count: int
    code_chunk_count: int
    byte_count: int
    unchanged: bool = False  # a file indexed before, unchanged since: nothing was redone
    replaced_file: str | None = None  # the other file this label held until now


@dataclass(frozen=True)
class Hit:
    source: str
    title: str
    snippet: str
    content_type: str
    indexed_at: float
    score: float
    chunk_id: int


@dataclass(frozen=True)
class QueryResult:
    query: str
    hits: list[Hit]
    corrected_query: str | None = None


@dataclass(frozen=True)
class SourceInfo:
    label: str
    file_path: str | None
    url: str | None
    chunk_count: int
    code_chunk_count: int
    byte_count: int
    indexed_at: float
    last_used_at: float
