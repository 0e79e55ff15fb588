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


def test_a_swap_across_the_first_letters_is_corrected_to_the_commoner_word(kb):
    # "qoutes" begins like the stray "qouted" (one edit) and not like "quotes" (one swap).
    kb.index_text("stray", "# stray\nThe value is qouted twice.\n", fmt="plain")
    for n in range(5):
        kb.index_text(f"doc{n}", f"# doc {n}\nStrings are printed without quotes, item {n}.\n")
    assert planning.plan_query(kb.conn, "qoutes").corrected_query == "quotes"


def test_a_misspelling_the_corpus_repeats_is_corrected_to_the_spelling_sharing_its_ends(kb):
    # "environent" and "environment" stem alike, so they are in as many chunks; the word
    # meant keeps more of the typo's beginning and end.
    for n in range(3):
        kb.index_text(f"typo{n}", f"# t{n}\nset the enviroment and the environent {n}\n")
    for n in range(80):
        kb.index_text(f"doc{n}", f"# doc {n}\nThe environment of process {n}.\n")
    assert planning.plan_query(kb.conn, "enviroment").corrected_query == "environment"
