"""What a query costs stays bounded as the corpus grows, and finds what it found before."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmode.store import matching, merging, planning, terms
from ctxmode.store.knowledge import KnowledgeBase
from ctxmode.store.terms import QueryTerm


@pytest.fixture
def kb(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        yield kb


def _ranked(kb, match):
    sql = "SELECT rowid, rank FROM kb_fts WHERE kb_fts MATCH ? ORDER BY rank"
    return [(row[0], round(row[1], 9)) for row in kb.conn.execute(sql, (match,))]


def test_any_term_ranks_only_the_rows_of_rare_terms_and_scores_them_as_the_or(kb):
    for n in range(60):
        kb.index_text(f"common{n}", f"# Server {n}\nThe server answers client {n}.\n")
    kb.index_text("rare", "# Epoll\nThe server spins on epoll while no client is connected.\n")
    kb.index_text("rare2", "# Spin\nA busy loop spins without epoll.\n")
    groups = ['"server"', '"client"', '"epoll"', '"spins"']
    counts = [62, 61, 2, 2]
    match = matching.any_term(groups, counts, 10)
    either = _ranked(kb, " OR ".join(groups))
    rare = {
        row[0]
        for row in kb.conn.execute("SELECT rowid FROM kb_fts WHERE kb_fts MATCH 'epoll OR spins'")
    }
    assert _ranked(kb, match) == [row for row in either if row[0] in rare]
    assert len(_ranked(kb, match)) <= 10
    # within the bound, nothing is left out
    assert matching.any_term(groups, counts, 1000) == " OR ".join(groups)


def test_a_short_fragment_is_completed_from_the_chunks_of_the_rest_of_its_term(kb):
    kb.index_text("ts", "# Tombstones\nSet TOMBSTONE_TTL or tombstone_type; tombstone-time too.\n")
    kb.index_text("other", "# Other\nThe tombstone of a deleted row; a type and a ttl.\n")
    plan = planning.plan_query(kb.conn, "tombstone_t")
    (term,) = plan.terms
    assert term.words == ["tombstone t*"]
    assert sorted(term.completions) == ["tombstone time", "tombstone ttl", "tombstone type"]
    as_prefix = {row[0] for row in _ranked(kb, '"tombstone t"*')}
    assert {row[0] for row in _ranked(kb, terms.fts_any(term.searched()))} == as_prefix
    assert kb.search(["tombstone_t"])[0].hits[0].source == "ts"


def test_a_fragment_that_completes_to_nothing_is_no_term(kb):
    kb.index_text("ts", "# Tombstones\nThe tombstone is kept.\n")
    assert planning._as_prefix(kb.conn, QueryTerm("tombstone_q", ("tombstone", "q"))) is None


words = st.text(alphabet="abcdeor", min_size=1, max_size=9)


@given(words, st.lists(words, max_size=30), st.integers(1, 3))
def test_the_letter_count_bound_never_drops_a_close_word(word, candidates, limit):
    expected = {
        (terms.edit_distance(word, c, limit), c)
        for c in candidates
        if c != word and terms.edit_distance(word, c, limit) <= limit
    }
    assert set(planning._within(word, candidates, limit)) == expected


def test_a_typo_in_the_first_letters_is_still_corrected_among_many_words_sharing_trigrams(kb):
    filler = " ".join(f"{p}ation{n}" for p in ("st", "nat", "rel") for n in range(400))
    kb.index_text("filler", f"# Filler\n{filler}\n")
    kb.index_text("doc", "# Doc\nThe configuration is read at startup.\n")
    assert planning.correct_word(kb.conn, "cnofiguration") == "configuration"


def test_the_index_is_merged_into_one_segment_each_time_a_share_of_it_was_written(kb):
    def segments():
        return kb.conn.execute("SELECT count(DISTINCT segid) FROM kb_fts_idx").fetchone()[0]

    def written():
        row = kb.conn.execute("SELECT value FROM meta WHERE key = 'kb_written_since_merge'")
        return int(row.fetchone()[0])

    merged_at, most_since = [], 0.0
    for n in range(80):
        kb.index_text(f"doc{n}", f"# Doc {n}\n" + f"words of document {n} " * 2000)
        held = kb.conn.execute("SELECT total(byte_count) FROM kb_sources").fetchone()[0]
        if written() == 0:
            merged_at.append(segments())
        if held * merging.MERGE_AFTER_SHARE >= merging.MERGE_AFTER_BYTES:
            most_since = max(most_since, written() / held)
    assert len(merged_at) >= 3 and set(merged_at) == {1}
    assert most_since < merging.MERGE_AFTER_SHARE
    assert kb.search(["document 7"])[0].hits
