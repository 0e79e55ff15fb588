"""Match-shape features of highlighted chunks."""

from ctxmode.store import reranking, terms

FILLER = "Nothing of interest is said in this paragraph about anything at all.\n"


def test_query_words_inside_camel_case_identifiers_count_as_matches():
    keys = [{"keep"}, {"aliv"}]
    marked = "Set TCPKeepAlive to yes.\n"
    _, found = reranking._matches(marked, keys)
    assert {term for _, _, term in found} == {0, 1}
    f = reranking.features("", marked, keys)
    assert f.coverage == 1.0 and f.line == 1.0


def test_a_phrase_as_typed_outweighs_the_same_words_around_punctuation():
    assert reranking._verbatim("an ascii bell character (07)", "bell character") == 1.0
    assert reranking._verbatim("write a <bell> character.", "bell character") == 0.5
    assert reranking._verbatim("named paste buffers", "paste buffer") == 1.0
    assert reranking._verbatim("a character bell", "bell character") == 0.0


def test_an_identifier_typed_with_other_separators_counts_as_found_as_typed():
    keys = [{"util", "promisify"}]
    marked = "Call \x02util\x03.\x02promisify\x03 on it."
    assert reranking.features("", marked, keys, forms=[["util promisify"]]).exact == 1


def test_a_heading_that_opens_with_the_term_defines_it_and_one_mentioning_it_does_not():
    keys = [{terms.stem_prefix("process"), terms.stem_prefix("nexttick")}]
    body = "Adds callback to the next tick queue."
    own = reranking.features("Process > `\x02process\x03.\x02nextTick\x03(callback)`", body, keys)
    passing = reranking.features(
        "`queueMicrotask()` vs. `\x02process\x03.\x02nextTick\x03()`", body, keys
    )
    assert own.defines > 0
    assert passing.defines == 0


def test_terms_in_the_opening_words_of_a_chunk_count_for_more_than_later_ones():
    keys = [{"last"}, {terms.stem_prefix("lines")}]
    opening = "tail - output the \x02last\x03 \x02lines\x03 of files\n" + FILLER * 3
    later = "tail - output some part of files\n" + FILLER * 3 + "the \x02last\x03 \x02lines\x03\n"
    assert (
        reranking.features("", opening, keys).boost() > reranking.features("", later, keys).boost()
    )


def test_a_method_heads_its_section_after_its_receiver():
    keys = [{terms.stem_prefix("readablehighwatermark")}]
    body = "Returns the value of `highWaterMark` passed when creating this `Readable`."
    own = reranking.features("Stream > `readable.\x02readableHighWaterMark\x03`", body, keys)
    passing = reranking.features("Stream > `new stream.Duplex(options)`", body, keys)
    assert own.defines > passing.defines


def test_records_of_one_json_source_are_not_demoted_as_repeats():
    cands = [reranking.Candidate(i, 1.0, 1.0 - i / 100) for i in (1, 2, 3)]
    records = {1: (7, 1), 2: (7, 2), 3: (8, 3)}
    repeats = {1: (7, 0), 2: (7, 0), 3: (8, 0)}
    assert [c.chunk_id for c in reranking.diverse(cands, records, 2)] == [1, 2]
    assert [c.chunk_id for c in reranking.diverse(cands, repeats, 2)] == [1, 3]


def test_a_heading_naming_a_longer_identifier_does_not_define_the_shorter_one():
    keys = [{"util", terms.stem_prefix("promisify")}]
    forms = [["util promisify"]]
    body = "Takes a function following the error-first callback style."
    own = reranking.features(
        "Util > `\x02util\x03.\x02promisify\x03(original)`", body, keys, forms=forms
    )
    longer = reranking.features(
        "Util > `util.promisify(original)` > `\x02util\x03.\x02promisify\x03.custom`",
        body,
        keys,
        forms=forms,
    )
    assert own.defines > 0
    assert longer.defines == 0
