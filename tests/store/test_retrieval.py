"""Ranked FTS5 candidate lists, on real SQLite files."""

import pytest

from ctxmode.store import planning, retrieval
from ctxmode.store.knowledge import KnowledgeBase


@pytest.fixture
def kb(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        yield kb


def test_a_long_query_no_chunk_nearly_covers_falls_back_to_its_rarest_terms_first(kb):
    for n in range(40):
        kb.index_text(f"common{n}", f"# Common {n}\nHow to run the thing {n} with node.\n")
    kb.index_text("timers", "# Timers\nSchedules repeated callbacks every few milliseconds.\n")
    plan = planning.plan_query(kb.conn, "run thing node every few milliseconds")
    ranked = retrieval._partial_matches(kb.conn, plan.group(False), 20, ("", []), {})
    timers = kb.conn.execute("SELECT id FROM kb_chunks WHERE content LIKE '%milli%'").fetchone()
    assert ranked[0][0] == timers[0]


def test_a_long_question_is_topped_up_with_fewer_of_its_rarest_terms(kb):
    # Leaving out one term at a time finds a single chunk; fewer terms find more.
    kb.index_text("one", "# One\nRun a callback right after events in node.\n")
    for n in range(5):
        kb.index_text(f"cb{n}", f"# Cb {n}\nA callback runs after events {n}.\n")
    for n in range(30):
        kb.index_text(f"f{n}", f"# F {n}\nThe node runs {n}; turn right.\n")
    plan = planning.plan_query(kb.conn, "run callback right after events node")
    ranked = retrieval._partial_matches(kb.conn, plan.group(False), 20, ("", []), {})
    assert len(ranked) > 1
