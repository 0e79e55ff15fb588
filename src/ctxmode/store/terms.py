"""Words: tokenising like FTS5's unicode61, identifier parts, stopwords, query terms, edit distance.

Pure functions over strings; no SQL here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# unicode61 keeps letters and digits and splits on everything else (including "_").
WORD = re.compile(r"[^\W_]+")
# A case change inside a word: createWidget, parseJSON, XMLHttpRequest (cheap pre-check).
CAMEL_HINT = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

VOCAB_MIN, VOCAB_MAX = 3, 32
MAX_QUERY_TERMS = 12  # a pasted paragraph is searched by its first dozen content words

# English function words and question phrasing. Words that carry meaning in technical
# text (once, off, over, up, down, out, before, after, not, no) are deliberately kept.
STOPWORDS = frozenset(
    str.split(
        """a about am an and any are as at be because been being both but by can could did do
    does doing each for from had has have having he her here hers herself him himself his how
    i if in into is it its itself just me my myself nor of on or our ours ourselves she should
    so some such than that the their theirs them themselves then there these they this those
    to too very was we were what when where which while who whom why will with would you your
    yours yourself yourselves get gets got use used using via please show shows tell give want
    wants need needs way ways much many"""
    )
)


def identifier_parts_of_tokens(tokens: Iterable[str]) -> list[str]:
    """The lower-cased parts of the camelCase tokens ("createWidget" -> create, widget)."""
    parts: dict[str, None] = {}
    for token in tokens:
        # str predicates are C-fast; the regex only runs on mixed-case tokens.
        if not (token.islower() or token.isupper() or token.istitle()) and CAMEL_HINT.search(token):
            for part in CAMEL_PART.findall(token):
                parts[part.lower()] = None
    return list(parts)


def identifier_parts(text: str) -> list[str]:
    """The lower-cased parts of camelCase identifiers in `text`."""
    return identifier_parts_of_tokens(set(WORD.findall(text)))


def is_vocabulary_word(word: str) -> bool:
    """Words worth correcting towards: 3-32 chars, some letters, not an id or hash."""
    if not VOCAB_MIN <= len(word) <= VOCAB_MAX:
        return False
    if word.isalpha():
        return True
    return not word.isdigit() and sum(map(str.isdigit, word)) <= 3


def vocabulary_of_tokens(tokens: Iterable[str]) -> set[str]:
    """The lower-cased vocabulary words among raw tokens (as `WORD.findall` returns them)."""
    return {w for w in {t.lower() for t in tokens} if is_vocabulary_word(w)}


def vocabulary(text: str) -> set[str]:
    """The lower-cased words of `text` that go into the vocabulary."""
    return vocabulary_of_tokens(set(WORD.findall(text)))


@dataclass(frozen=True)
class QueryTerm:
    """One whitespace-separated piece of a query: `sqlite3.connect` -> parts (sqlite3, connect)."""

    text: str
    parts: tuple[str, ...]

    @property
    def fts(self) -> str:
        """An FTS5 string literal: always quoted, so no operator or punctuation can break it."""
        return '"' + " ".join(self.parts) + '"'

    @property
    def word(self) -> str:
        return " ".join(self.parts)


def inflection_base(word: str) -> str:
    """A word without its regular English inflection, for telling two query words apart:
    "directories" and "directory", "locked" and "locking" share one. Cruder than porter
    (the index's stemmer) and more cautious: a short stem is kept ("string" is not "str")."""
    for suffix, replacement, stem in _INFLECTIONS:
        if word.endswith(suffix) and len(word) - len(suffix) >= stem and not word.endswith("ss"):
            word = word[: -len(suffix)] + replacement
            break
    return word.removesuffix("e")


# (suffix, replacement, shortest stem left)
_INFLECTIONS = (("ies", "y", 3), ("ing", "", 4), ("ed", "", 4), ("es", "", 3), ("s", "", 3))


def parse_query(raw: str) -> list[QueryTerm]:
    """Terms of a raw query; repeats (also inflected ones: "directory ... directories") and
    stopwords dropped (unless only stopwords remain)."""
    terms: list[QueryTerm] = []
    seen: set[tuple[str, ...]] = set()
    for piece in raw.split():
        parts = tuple(p.lower() for p in WORD.findall(piece))
        key = tuple(inflection_base(p) for p in parts)
        if parts and key not in seen:
            seen.add(key)
            terms.append(QueryTerm(piece, parts))
    content = [t for t in terms if not (len(t.parts) == 1 and t.parts[0] in STOPWORDS)]
    return (content or terms)[:MAX_QUERY_TERMS]


def query_words(raw: str) -> list[str]:
    """Every word of a raw query in order, lower-cased, stopwords and repeats kept."""
    return [w.lower() for w in WORD.findall(raw)]


def fts_phrase(word: str) -> str:
    """A quoted FTS5 phrase; a trailing "*" makes its last token a prefix."""
    if word.endswith("*"):
        return '"' + word[:-1].replace('"', "") + '"*'
    return '"' + word.replace('"', "") + '"'


def fts_any(words: Iterable[str]) -> str:
    """An FTS5 OR-group of quoted words/phrases."""
    quoted = [fts_phrase(w) for w in words]
    return quoted[0] if len(quoted) == 1 else "(" + " OR ".join(quoted) + ")"


def max_typo_distance(word: str) -> int:
    return 1 if len(word) <= 4 else 2 if len(word) <= 12 else 3


def edit_distance(a: str, b: str, limit: int) -> int:
    """Edit distance where swapping two neighbours counts as one edit (optimal string
    alignment), or `limit + 1` as soon as it must exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return previous[-1]


def trigrams(word: str) -> list[str]:
    return list(dict.fromkeys(word[i : i + 3] for i in range(len(word) - 2)))


def stem_prefix(word: str) -> str:
    """A crude stem used to recognise inflected forms in text (the index uses porter)."""
    if len(word) <= 4:
        return word
    return word[: max(4, len(word) - 3)]
