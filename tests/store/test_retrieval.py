"""Ranked FTS5 candidate lists, on real SQLite files."""

import pytest

from ctxmode.store import planning, retrieval
from ctxmode.store.knowledge import KnowledgeBase


@pytest.fixture
def kb(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        yield kb


def test_a_long_query_no_chunk_nearly_covers_falls_back_to_its_rarest_terms(kb):
    for n in range(40):
        kb.index_text(f"common{n}", f"# Common {n}\nHow to run the thing {n} with node.\n")
    kb.index_text("timers", "# Timers\nSchedules repeated callbacks every few milliseconds.\n")
    plan = planning.plan_query(kb.conn, "run thing node every few milliseconds")
    ranked = retrieval._partial_matches(kb.conn, plan.group(False), 20, ("", []), {})
    assert [chunk_id for chunk_id, _ in ranked] == [
        row[0] for row in kb.conn.execute("SELECT id FROM kb_chunks WHERE content LIKE '%milli%'")
    ]
