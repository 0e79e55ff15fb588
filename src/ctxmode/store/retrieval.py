"""Retrieval and fusion: the ranked FTS5 lists for a planned query, fused by reciprocal rank.

The lists: every term (topped up with all-but-one, commonest left out first, else the
rarest terms); all terms NEAR each other; a short query as an exact phrase; the fragment
expansions; for an identifier, the matching chunks where it heads a definition.
"""

from __future__ import annotations

import re
import sqlite3
from itertools import zip_longest

from ctxmode.store import matching, terms
from ctxmode.store.planning import Plan
from ctxmode.store.shapes import WORD_START, defines_any, surface
from ctxmode.store.tuning import (
    ANY_TERM_ROWS,
    DEFINITION_SCAN,
    DEFINITION_TERMS,
    IDF_CAP,
    PARTIAL_FILL,
    PARTIAL_FROM_TERMS,
    PARTIAL_SKIPS,
    RRF_K,
)


def filter_sql(source: str | None, content_type: str | None) -> tuple[str, list[object]]:
    """Joins and conditions that restrict FTS matches to a source label and chunk kind.

    The FTS table drives the query (CROSS JOIN fixes that order): `rowid IN (subquery)`
    would make FTS5 re-run the MATCH once per candidate row, seconds on a big source.
    """
    clauses: list[str] = []
    params: list[object] = []
    if source:
        escaped = source.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        clauses.append("s.label LIKE ? ESCAPE '\\'")
        params.append(f"%{escaped}%")
    if content_type:
        clauses.append("c.kind = ?")
        params.append(content_type)
    if not clauses:
        return "", []
    sql = (
        " CROSS JOIN kb_chunks c ON c.id = kb_fts.rowid"
        " CROSS JOIN kb_sources s ON s.id = c.source_id"
        " WHERE " + " AND ".join(clauses) + " AND"
    )
    return sql, params


Ranked = list[tuple[int, float]]  # (chunk id, bm25 relevance, higher is better)


def _ranked(
    conn: sqlite3.Connection, match: str, limit: int, filters: tuple[str, list[object]]
) -> Ranked:
    joins = filters[0] or " WHERE"
    sql = (
        f"SELECT kb_fts.rowid, kb_fts.rank FROM kb_fts{joins} kb_fts MATCH ? "
        "ORDER BY kb_fts.rank LIMIT ?"
    )
    return [(row[0], -row[1]) for row in conn.execute(sql, [*filters[1], match, limit])]


def fuse(lists: list[Ranked]) -> dict[int, float]:
    """Reciprocal rank fusion: each list adds 1/(k + rank) for every chunk it ranks."""
    fused: dict[int, float] = {}
    for ranked in lists:
        for rank, (chunk_id, _) in enumerate(ranked, 1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    return fused


def match_count(conn: sqlite3.Connection, match: str, known: dict[str, int]) -> int:
    """How many chunks an FTS5 expression matches, counted up to IDF_CAP; remembered in
    `known` (a plan's counts), as ranking and weighting ask about the same terms."""
    if match not in known:
        known[match] = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM kb_fts WHERE kb_fts MATCH ? LIMIT ?)",
            (match, IDF_CAP),
        ).fetchone()[0]
    return known[match]


def _partial_matches(
    conn: sqlite3.Connection,
    groups: list[str],
    depth: int,
    filters: tuple[str, list[object]],
    known: dict[str, int],
) -> Ranked:
    """Chunks with all terms but one, the commonest term left out first (it says least),
    interleaved; topped up with fewer and fewer terms until PARTIAL_FILL chunks are
    found; if still none, any term."""
    counts = [match_count(conn, g, known) for g in groups]
    commonest_first = sorted(range(len(groups)), key=lambda i: (-counts[i], i))
    lists = []
    if len(groups) >= 3:
        for skip in commonest_first[:PARTIAL_SKIPS]:
            rest = groups[:skip] + groups[skip + 1 :]
            lists.append(_ranked(conn, " AND ".join(rest), depth, filters))
    found: dict[int, float] = {}
    for row in zip_longest(*lists):
        for item in row:
            if item is not None:
                found.setdefault(item[0], item[1])
    # One chunk holding six words of a long question is not the only one worth seeing:
    # fewer and fewer terms, the rarest kept (they say most).
    for keep in range(len(groups) - 2, 1, -1):
        if len(found) >= PARTIAL_FILL:
            break
        match = " AND ".join(groups[i] for i in sorted(commonest_first[-keep:]))
        for chunk_id, score in _ranked(conn, match, depth, filters):
            found.setdefault(chunk_id, score)
    if found:
        return list(found.items())[:depth]
    return _ranked(conn, _any_term(conn, groups, known), depth, filters)


def _any_term(conn: sqlite3.Connection, groups: list[str], known: dict[str, int]) -> str:
    """`matching.any_term` over `groups`, each counted up to ANY_TERM_ROWS (past it, a group
    is no anchor whatever its count); a count below IDF_CAP is the plan's own."""
    counts = []
    for group in groups:
        found = match_count(conn, group, known)
        if found >= IDF_CAP:
            found = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM kb_fts WHERE kb_fts MATCH ? LIMIT ?)",
                (group, ANY_TERM_ROWS + 1),
            ).fetchone()[0]
        counts.append(found)
    return matching.any_term(groups, counts, ANY_TERM_ROWS)


def candidate_lists(
    conn: sqlite3.Connection,
    plan: Plan,
    limit: int,
    depth: int,
    filters: tuple[str, list[object]],
) -> list[Ranked]:
    """Ranked chunks: every term (topped up with all-but-one), all terms near each other,
    and fragments expanded to the words containing them. Each is one list for the fusion."""
    groups = plan.group(with_expansions=False)
    lists: list[Ranked] = []
    every: Ranked | None = None  # all matches of every term, if at most DEFINITION_SCAN
    if groups:
        # Ranking scores every match whatever the LIMIT: one query serves both lists.
        ranked = _ranked(conn, " AND ".join(groups), max(depth, DEFINITION_SCAN + 1), filters)
        every, ranked = ranked if len(ranked) <= DEFINITION_SCAN else None, ranked[:depth]
        if len(groups) > 1 and (len(ranked) < limit or len(groups) >= PARTIAL_FROM_TERMS):
            seen = {chunk_id for chunk_id, _ in ranked}
            more = _partial_matches(conn, groups, depth, filters, plan.counts)
            ranked += [item for item in more if item[0] not in seen][: depth - len(ranked)]
        lists.append(ranked)
        firsts = [terms.fts_phrase(t.words[-1]) for t in plan.terms if t.words]
        if 1 < len(firsts) <= 8:  # stopwords were dropped, so "near", not an exact phrase
            near = f"NEAR({' '.join(firsts)}, {2 * len(firsts)})"
            lists.append(_ranked(conn, near, depth, filters))
            phrase = plan.phrase()
            if phrase:  # the words in this order, side by side
                lists.append(_ranked(conn, terms.fts_phrase(phrase), depth, filters))
    lists.append(_definitions(conn, plan, filters, every))
    if any(t.expansions for t in plan.terms):
        expanded = plan.group(with_expansions=True)
        ranked = _ranked(conn, " AND ".join(expanded), depth, filters)
        if not ranked and len(expanded) > 1:
            ranked = _ranked(conn, _any_term(conn, expanded, plan.counts), depth, filters)
        lists.append(ranked)
    return [r for r in lists if r]


def _definitions(
    conn: sqlite3.Connection,
    plan: Plan,
    filters: tuple[str, list[object]],
    every: Ranked | None,
) -> Ranked:
    """Chunks of a short query's matches where a term opens a definition line, best first
    (`every`: the matches of the terms without expansions, when there are few).

    BM25 favours short chunks that merely mention a term over the long reference section
    that defines it ("RLIMIT_NOFILE" in getrlimit(2)); when few chunks match, every one is
    read for a definition line, so that section reaches the re-ranking.
    """
    groups = plan.group(with_expansions=True)
    if not groups or len(groups) > DEFINITION_TERMS:
        return []
    # A lone term is what the query asks about; beside other words, only an identifier
    # ("--vacuum-size", "O_CLOEXEC") is one a reference would define on a line of its own.
    named = plan.terms if len(groups) == 1 else [t for t in plan.terms if len(t.term.parts) > 1]
    words = [w for t in named for w in t.every_word if w.rstrip("*").split()]
    if not words:
        return []
    if any(t.expansions for t in plan.terms):
        ranked = _ranked(conn, " AND ".join(groups), DEFINITION_SCAN + 1, filters)
    else:
        ranked = every or []
    if not ranked or len(ranked) > DEFINITION_SCAN:
        return []
    marks = ",".join("?" * len(ranked))
    contents = dict(
        conn.execute(
            f"SELECT id, content FROM kb_chunks WHERE id IN ({marks})", [c for c, _ in ranked]
        )
    )
    surfaces = [re.compile(surface(w).removeprefix(WORD_START)) for w in words]
    return [
        (chunk_id, score) for chunk_id, score in ranked if defines_any(contents[chunk_id], surfaces)
    ]
