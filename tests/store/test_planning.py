"""Query planning: corrections, completions and expansions, on real SQLite files."""

import pytest

from ctxmode.store import planning
from ctxmode.store.knowledge import KnowledgeBase


@pytest.fixture
def kb(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        yield kb


def test_an_identifier_typed_up_to_its_last_part_is_completed_not_corrected(kb):
    kb.index_text("tcp", "# tcp\nTCP_FASTOPEN enables Fast Open on the listener socket.\n")
    kb.index_text("fast", "# fast\nThe TCP fast path skips the slow checks.\n")
    plan = planning.plan_query(kb.conn, "TCP_FASTO")
    assert plan.corrected_query is None
    assert plan.terms[0].words == ["tcp fasto*"]


def test_a_number_is_never_corrected(kb):
    kb.index_text("t", "# t\nWait 10s, then retry.\n")
    assert planning.plan_query(kb.conn, "100 retry").corrected_query is None
