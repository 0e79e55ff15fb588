"""Command lines hosts run: quoting survives a real shell."""

from __future__ import annotations

import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.launch import sh_quote

words = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)


@settings(max_examples=40)
@given(word=words)
def test_sh_quote_gives_one_word_back_unchanged(word: str) -> None:
    result = subprocess.run(
        ["bash", "-c", f"printf %s {sh_quote(word)}"], capture_output=True, check=True
    )
    assert result.stdout.decode("utf-8", "surrogateescape") == word


def test_safe_words_stay_bare_and_expanding_ones_are_quoted() -> None:
    assert sh_quote("/usr/bin/python3.11") == "/usr/bin/python3.11"
    assert sh_quote("~/x") == "'~/x'"
    assert sh_quote("") == "''"
    assert sh_quote("it's") == "'it'\"'\"'s'"
