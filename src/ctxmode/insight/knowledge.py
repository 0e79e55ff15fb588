"""The knowledge-base page: each project's sources, and the same ranked search `ctx_search` runs."""

from __future__ import annotations

from dataclasses import dataclass

from ctxmode.insight.projects import Project, Scope
from ctxmode.store.knowledge import KnowledgeBase, QueryResult, SourceInfo

SEARCH_LIMIT = 3  # what ctx_search returns per query by default


@dataclass(frozen=True)
class ProjectSources:
    project: Project
    sources: list[SourceInfo]  # newest indexed first

    @property
    def byte_count(self) -> int:
        return sum(s.byte_count for s in self.sources)

    @property
    def chunk_count(self) -> int:
        return sum(s.chunk_count for s in self.sources)


def sources(scope: Scope) -> list[ProjectSources]:
    return [
        ProjectSources(item, KnowledgeBase(conn).sources()) for item, conn in scope.connections()
    ]


def search(scope: Scope, query: str) -> list[tuple[Project, QueryResult]]:
    """Each project's ranked hits for `query`, without marking anything used (read-only)."""
    found = []
    for item, conn in scope.connections():
        result = KnowledgeBase(conn).search([query], limit=SEARCH_LIMIT, mark_used=False)[0]
        found.append((item, result))
    return found
