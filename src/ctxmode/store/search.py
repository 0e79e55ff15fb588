"""Answering one query against the knowledge-base tables: the pipeline, end to end.

planning (what each term is searched as: typos fixed, fragments expanded) -> retrieval
(ranked FTS5 lists, fused by reciprocal rank) -> re-ranking (match shape, diversity).
The tuning constants of every stage live in `tuning`.
"""

from __future__ import annotations

import sqlite3

from ctxmode.store import threads
from ctxmode.store.planning import Plan, TermPlan, plan_query
from ctxmode.store.reranking import (
    Candidate,
    Source,
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
    CUE_WEIGHT,
    LEAD_WEIGHT,
    NAMED_WEIGHT,
    NOT_ANSWER_WEIGHT,
    REPLY_WEIGHT,
    RERANK_POOL,
    RERANK_WEIGHT,
    THREAD_SHARE,
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
    pooled = dict(pool)
    replies, post_of = _replies_of(conn, pooled, sources)
    pool += [(reply, fused) for reply, fused in replies.items() if reply not in pooled]
    asks = threads.asked(plan.spoken, len(plan.terms))
    out = []
    marked = highlighted(conn, plan, [chunk_id for chunk_id, _ in pool])
    for chunk_id, score in pool:
        title, content = marked[chunk_id]
        origin = sources[chunk_id]
        heading = title if origin.headed else ""  # a plain chunk's title is its first line
        boost = (
            features(heading, content, keys, weights, forms, phrase).boost()
            + LEAD_WEIGHT * origin.lead
            + NAMED_WEIGHT * named_share(origin.label, plan, weights)
        )
        if asks and chunk_id in replies:  # answered in a reply, not in the post
            boost += REPLY_WEIGHT + CUE_WEIGHT * threads.answer_cue(asks, content)
        if chunk_id in replies:
            post = sources[post_of[chunk_id]].title
            boost -= NOT_ANSWER_WEIGHT * threads.unlikely_answer(post, origin.title, content)
        out.append(Candidate(chunk_id, score, score / top + RERANK_WEIGHT * boost, title, content))
    return diverse(out, {c: src.diversity_key(c) for c, src in sources.items()}, limit)


def _replies_of(
    conn: sqlite3.Connection, pool: dict[int, float], sources: dict[int, Source]
) -> tuple[dict[int, float], dict[int, int]]:
    """Every record of the threads the pool's JSON records belong to, each with its fused
    score or a share of its thread's best (`sources` gains those not in the pool); and
    each reply's post."""
    records = [(c, s.source_id, s.title) for c, s in sources.items() if s.records]
    if not records:
        return {}, {}
    best: dict[int, float] = {}  # thread root -> the best fused score of its pooled records
    for record, root in threads.roots(conn, records).items():
        best[root] = max(best.get(root, 0.0), pool[record])
    sources.update(chunk_sources(conn, [r for r in best if r not in sources]))
    posts = [(root, sources[root].source_id, sources[root].title) for root in best]
    found = threads.replies(conn, posts)
    sources.update(chunk_sources(conn, [r for r in found if r not in sources]))
    scores = {reply: pool.get(reply, THREAD_SHARE * best[root]) for reply, root in found.items()}
    return scores, found
