"""Answering one query against the knowledge-base tables: the pipeline, end to end.

planning (what each term is searched as: typos fixed, fragments expanded) -> retrieval
(ranked FTS5 lists, fused by reciprocal rank) -> re-ranking (match shape, diversity).
The tuning constants of every stage live in `tuning`.
"""

from __future__ import annotations

import sqlite3

from ctxmode.store.planning import Plan, TermPlan, plan_query
from ctxmode.store.reranking import (
    Candidate,
    chunk_sources,
    diverse,
    features,
    highlighted,
    named_share,
    term_forms,
    term_keys,
    term_weights,
)
from ctxmode.store.retrieval import candidate_lists, filter_sql, fuse
from ctxmode.store.tuning import (
    CANDIDATE_DEPTH,
    LEAD_WEIGHT,
    NAMED_WEIGHT,
    RERANK_POOL,
    RERANK_WEIGHT,
)

__all__ = ["Candidate", "Plan", "TermPlan", "plan_query", "run_query"]


def run_query(
    conn: sqlite3.Connection,
    plan: Plan,
    limit: int,
    source: str | None,
    content_type: str | None,
) -> list[Candidate]:
    """The best `limit` chunks for a planned query, highlighted and scored.

    score = fused (RRF) score relative to the best + RERANK_WEIGHT x the match-shape boost.
    """
    depth = max(3 * limit, CANDIDATE_DEPTH)
    filters = filter_sql(source, content_type)
    lists = candidate_lists(conn, plan, limit, depth, filters)
    fused = fuse(lists)
    if not fused:
        return []
    pool = sorted(fused.items(), key=lambda kv: kv[1], reverse=True)[: max(2 * limit, RERANK_POOL)]
    top = pool[0][1]
    keys, weights, forms = term_keys(plan), term_weights(conn, plan), term_forms(plan)
    phrase = plan.phrase()
    sources = chunk_sources(conn, [chunk_id for chunk_id, _ in pool])
    out = []
    marked = highlighted(conn, plan, [chunk_id for chunk_id, _ in pool])
    for chunk_id, score in pool:
        title, content = marked[chunk_id]
        source = sources[chunk_id]
        heading = title if source.headed else ""  # a plain chunk's title is its first line
        boost = (
            features(heading, content, keys, weights, forms, phrase).boost()
            + LEAD_WEIGHT * source.lead
            + NAMED_WEIGHT * named_share(source.label, plan, weights)
        )
        out.append(Candidate(chunk_id, score, score / top + RERANK_WEIGHT * boost, title, content))
    return diverse(out, {c: src.source_id for c, src in sources.items()}, limit)
