from hypothesis import given
from hypothesis import strategies as st

from ctxmode.store.snippets import make_snippet, opening_prose, strip_marks


def mark(text: str, word: str) -> str:
    return text.replace(word, f"\x02{word}\x03")


def test_short_content_is_returned_whole():
    assert make_snippet(mark("a needle b", "needle"), 100) == "a needle b"


def test_windows_around_two_distant_matches_are_joined_with_ellipses():
    lines = [f"line {i} filler text" for i in range(200)]
    lines[20] = "alpha is here"
    lines[150] = "beta is there"
    text = "\n".join(lines)
    snippet = make_snippet(mark(mark(text, "alpha"), "beta"), 400)
    assert "alpha is here" in snippet and "beta is there" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) <= 400


def test_fallback_word_search_when_nothing_is_marked():
    text = "x\n" * 500 + "the Answer line\n" + "y\n" * 500
    assert "the Answer line" in make_snippet(text, 100, ["answer"])


def test_no_match_at_all_gives_the_start():
    snippet = make_snippet("word " * 1000, 50)
    assert snippet.endswith("…") and len(snippet) <= 50


@given(st.text(min_size=1), st.integers(0, 5000), st.integers(20, 2000), st.booleans())
def test_snippets_are_bounded_and_contain_the_match(filler, position, budget, headed):
    filler = filler.replace("\x02", "").replace("\x03", "") or "f"
    text = (filler * (6000 // len(filler) + 1))[:6000]
    position = min(position, len(text))
    marked = text[:position] + "\x02NEEDLE\x03" + text[position:]
    snippet = make_snippet(marked, budget, headed=headed)
    assert len(snippet) <= budget
    if budget >= 40:
        assert "NEEDLE" in snippet


def test_strip_marks_returns_spans():
    assert strip_marks("a \x02bc\x03 d") == ("a bc d", [(2, 4)])


def marks(text: str, *words: str) -> str:
    for word in words:
        text = text.replace(word, f"\x02{word}\x03")
    return text


def test_the_line_with_most_distinct_query_words_wins_over_earlier_lines():
    lines = [f"threads here {i}, nothing else of note on this line" for i in range(40)]
    lines[30] = "Specify the number of worker threads to use."
    snippet = make_snippet(marks("\n".join(lines), "threads", "worker"), 200, ["worker", "threads"])
    assert "Specify the number of worker threads to use." in snippet


def test_an_inflected_repeat_does_not_count_as_another_query_word():
    lines = [f"filler line {i} with words that do not matter" for i in range(60)]
    lines[10] = "threads and more threads, thread after thread"
    lines[50] = "the worker threads"
    marked = marks("\n".join(lines), "threads", "thread", "worker")
    snippet = make_snippet(marked, 120, ["worker", "threads"])
    assert "the worker threads" in snippet


def test_a_definition_line_brings_the_sentence_describing_it():
    text = "\n".join(
        [f"intro line {i} about other things." for i in range(40)]
        + [
            "       rebase.autoStash",
            "           When set to true, automatically create a temporary stash entry",
            "           before the operation begins, and apply it after the operation",
            "           ends.",
        ]
        + [f"outro line {i} about other things." for i in range(40)]
    )
    snippet = make_snippet(marks(text, "autoStash"), 400, ["autostash"])
    assert "automatically create a temporary stash entry" in snippet
    assert "before the operation begins" in snippet


def test_a_sentence_started_on_the_line_before_comes_along():
    lines = [f"unrelated sentence number {i}." for i in range(50)]
    lines[25] = "Setting threads to a special value, the number of"
    lines[26] = "worker threads is chosen automatically."
    snippet = make_snippet(marks("\n".join(lines), "worker"), 150, ["worker"])
    assert "Setting threads to a special value" in snippet


API_SECTION = (
    "<!-- YAML\nadded: v8.0.0\n\nchanges: none\n-->\n\n* `original` {Function}\n"
    "* Returns: {Function}\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n"
    "Takes a function following the common error-first callback style, and returns\n"
    "a version that returns promises.\n\n"
)


def test_the_opening_prose_of_a_section_skips_metadata_lists_and_code():
    start, end = opening_prose(API_SECTION)
    assert API_SECTION[start:end].startswith("Takes a function following")
    assert API_SECTION[start:end].endswith("returns promises.")
    assert (
        opening_prose("* a list item only\n\n```\ncode with many words in it here\n```\n") is None
    )


@given(st.text(alphabet=st.sampled_from("ab <!->`*\n"), max_size=300))
def test_the_opening_prose_is_a_paragraph_of_the_text_or_nothing(text):
    found = opening_prose(text)
    if found is not None:
        start, end = found
        assert 0 <= start < end <= len(text)
        assert text[start].isalpha() and "\n\n" not in text[start:end]


def test_a_section_headed_by_the_query_shows_what_it_is_before_its_examples():
    usage = "const stat = \x02util\x03.\x02promisify\x03(fs.stat);\n"
    marked = API_SECTION + ("```js\n" + usage + "x();\n" * 30 + "```\n\n") * 6
    assert "Takes a function" in make_snippet(marked, 600, ["util.promisify"], headed=True)
    assert "Takes a function" not in make_snippet(marked, 600, ["util.promisify"])
