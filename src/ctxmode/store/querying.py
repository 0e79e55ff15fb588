"""Querying: searches over the knowledge-base tables, hits with snippets, last-use marks."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from ctxmode.storage import db
from ctxmode.store import search as searching
from ctxmode.store import snippets, terms
from ctxmode.store.records import Hit, QueryResult, StoreInputError

LAST_USED_RESOLUTION_S = 60.0


class Querying:
    """The querying half of `KnowledgeBase` (a mixin over its connection)."""

    conn: sqlite3.Connection
    _maybe_refresh: Callable[[], None]  # from the indexing half: changed files first
    refresh_labels: Callable[[set[str]], int]

    def search(
        self,
        queries: list[str],
        *,
        limit: int = 3,
        source: str | None = None,
        content_type: str | None = None,
        snippet_chars: int = 1500,
        mark_used: bool = True,
    ) -> list[QueryResult]:
        """For each query, the best `limit` chunks with snippets around the matching lines.

        `mark_used=False` searches without writing: no stale-file refresh, no last-use mark
        (for readers of a read-only connection, such as the dashboard).
        """
        if content_type not in (None, "code", "prose"):
            raise StoreInputError(f"content type must be code or prose, not {content_type!r}")
        limit = max(1, int(limit))
        if mark_used:
            self._maybe_refresh()
        results = [self._search_one(q, limit, source, content_type, snippet_chars) for q in queries]
        if mark_used and self.refresh_labels({hit.source for r in results for hit in r.hits}):
            # a hit came from a file changed since: answer from what it says now
            results = [
                self._search_one(q, limit, source, content_type, snippet_chars) for q in queries
            ]
        if mark_used:
            self._touch({hit.chunk_id for r in results for hit in r.hits})
        return results

    def _search_one(
        self, query: str, limit: int, source: str | None, content_type: str | None, chars: int
    ) -> QueryResult:
        plan = searching.plan_query(self.conn, query)
        found = searching.run_query(self.conn, plan, limit, source, content_type)
        if not found:
            return QueryResult(query, [], plan.corrected_query)
        meta = {
            row[0]: row
            for row in self.conn.execute(
                "SELECT c.id, c.kind, s.label, s.indexed_at FROM kb_chunks c "
                "JOIN kb_sources s ON s.id = c.source_id WHERE c.id IN "
                f"({','.join('?' * len(found))})",
                [c.chunk_id for c in found],
            )
        }
        words = [w for t in plan.terms for w in t.every_word]
        hits = []
        for cand in found:
            row = meta[cand.chunk_id]
            title, _ = snippets.strip_marks(cand.title)
            snippet = snippets.make_snippet(cand.content, chars, words, _names(title, plan))
            hits.append(
                Hit(
                    row["label"],
                    title,
                    snippet,
                    row["kind"],
                    row["indexed_at"],
                    round(cand.score, 6),
                    cand.chunk_id,
                )
            )
        return QueryResult(query, hits, plan.corrected_query)

    def _touch(self, chunk_ids: set[int]) -> None:
        """Mark the sources of hits as used (retention is by last use), at most once a minute."""
        if not chunk_ids:
            return
        now = time.time()
        marks = ",".join("?" * len(chunk_ids))
        stale = [
            row[0]
            for row in self.conn.execute(
                "SELECT DISTINCT s.id FROM kb_sources s JOIN kb_chunks c ON c.source_id = s.id "
                f"WHERE c.id IN ({marks}) AND s.last_used_at < ?",
                [*chunk_ids, now - LAST_USED_RESOLUTION_S],
            )
        ]
        if stale:  # a read first: most searches need no write lock at all
            with db.write_transaction(self.conn):
                self.conn.executemany(
                    "UPDATE kb_sources SET last_used_at = ? WHERE id = ?",
                    [(now, source_id) for source_id in stale],
                )


def _names(title: str, plan: searching.Plan) -> bool:
    """Whether a chunk's own heading (its title's last part) names every query term."""
    said = terms.WORD.findall(title.rpartition(" > ")[2].lower())
    if not said or not plan.terms:
        return False

    def named(word: str) -> bool:
        parts = word.rstrip("*").split()
        return bool(parts) and all(
            any(token.startswith(terms.stem_prefix(p)) for token in said) for p in parts
        )

    return all(any(named(w) for w in t.every_word) for t in plan.terms)
