from hypothesis import given
from hypothesis import strategies as st

from ctxmode.store.snippets import make_snippet, strip_marks


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


@given(st.text(min_size=1), st.integers(0, 5000), st.integers(20, 2000))
def test_snippets_are_bounded_and_contain_the_match(filler, position, budget):
    filler = filler.replace("\x02", "").replace("\x03", "") or "f"
    text = (filler * (6000 // len(filler) + 1))[:6000]
    position = min(position, len(text))
    marked = text[:position] + "\x02NEEDLE\x03" + text[position:]
    snippet = make_snippet(marked, budget)
    assert len(snippet) <= budget
    if budget >= 40:
        assert "NEEDLE" in snippet


def test_strip_marks_returns_spans():
    assert strip_marks("a \x02bc\x03 d") == ("a bc d", [(2, 4)])
