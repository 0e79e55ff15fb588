"""Query planning: what each query term is searched as.

Parse the terms (stopwords dropped, but kept for the phrase); check each against the
index; expand fragments to real words through the trigram index over the vocabulary, or
as a prefix (an identifier's short last part completed from the chunks holding the rest
of it); correct each misspelt word on its own (vocabulary words that begin alike,
else share trigrams, re-ranked by edit distance, then by how common they are; a known
word one edit from a word far more sources spell so is searched as both; an adverb also
as its adjective).
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ctxmode.store import matching, terms
from ctxmode.store.terms import QueryTerm
from ctxmode.store.tuning import (
    COMMONER_BY,
    COMPLETED_FRAGMENT,
    COMPLETION_SCAN,
    COMPLETIONS_MAX,
    EXPANSIONS_PER_TERM,
    FARTHER_CHECKED,
    FRAGMENT_CANDIDATES,
    IDF_CAP,
    PHRASE_MAX_TERMS,
    PREFIX_CANDIDATES,
    RARE_WORD_CHUNKS,
    TYPO_CANDIDATES,
    TYPO_RANKED,
    TYPO_RATIO,
)


@dataclass
class TermPlan:
    """How one query term is searched: its words (original or corrected) and expansions."""

    term: QueryTerm
    words: list[str]  # words or phrases (space-joined parts) searched as-is; a correction last
    expansions: list[str] = field(default_factory=list)  # vocabulary words containing it
    corrected: str | None = None
    # The phrases its prefix word stands for ("udp co*": "udp cork", "udp connect"), as the
    # index is asked for them; empty when FTS5 expands the prefix itself.
    completions: list[str] = field(default_factory=list)

    @property
    def every_word(self) -> list[str]:
        return list(dict.fromkeys([*self.words, *self.expansions]))

    def searched(self, with_expansions: bool = True) -> list[str]:
        """The words as the index is asked for them: a prefix word as its completions."""
        words = self.every_word if with_expansions else self.words
        if not self.completions:
            return words
        swapped = (self.completions if w.endswith("*") else [w] for w in words)
        return list(dict.fromkeys(w for group in swapped for w in group))


@dataclass
class Plan:
    terms: list[TermPlan]
    corrected_query: str | None
    # Every word of the query in order, stopwords kept and typos fixed ("copy on write").
    spoken: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # FTS expression -> chunks matched

    def phrase(self) -> str | None:
        """The query's words in order, as a text would spell them, for a short query: with
        its stopwords, which a phrase needs ("copy on write" is not "copy write")."""
        words = [t.words[-1] for t in self.terms if t.words]
        if not 2 <= len(words) <= PHRASE_MAX_TERMS or any(w.endswith("*") for w in words):
            return None
        if len(words) == len(self.terms) and 0 < len(self.spoken) <= 2 * PHRASE_MAX_TERMS:
            return " ".join(self.spoken)
        return " ".join(words)

    def group(self, with_expansions: bool) -> list[str]:
        return [
            terms.fts_any(t.searched(with_expansions))
            for t in self.terms
            if t.words or (with_expansions and t.expansions)
        ]


def _containing(conn: sqlite3.Connection, fragment: str) -> list[str]:
    """Vocabulary words that contain `fragment` (3+ chars): the best few, prefixes first."""
    if len(fragment) < 3:
        return []
    rows = conn.execute(
        "SELECT v.word, v.freq FROM kb_vocab_tri t JOIN kb_vocab v ON v.id = t.rowid "
        "WHERE kb_vocab_tri MATCH ? LIMIT ?",
        ('"' + fragment + '"', FRAGMENT_CANDIDATES),
    ).fetchall()
    words = [(w, f) for w, f in rows if w != fragment]
    words.sort(key=lambda wf: (not wf[0].startswith(fragment), len(wf[0]), -wf[1]))
    return [w for w, _ in words[:EXPANSIONS_PER_TERM]]


def _same_start(conn: sqlite3.Connection, word: str, limit: int) -> list[str]:
    """Vocabulary words of a similar length that begin like `word` (an index range scan).

    Trigrams miss transpositions in short words ("defualt" shares one trigram with
    "default"); a typo rarely touches the first letters, so these are the first candidates.
    A swap across the end of that beginning ("qoutes" for "quotes") is looked up as well.
    """
    size = 2 if len(word) <= 6 else 3
    swapped = word[: size - 1] + word[size : size + 1] + word[size - 1]
    sql = (
        "SELECT word FROM kb_vocab WHERE word >= ? AND word < ? "
        "AND length(word) BETWEEN ? AND ? LIMIT ?"
    )
    bounds = (len(word) - limit, len(word) + limit, PREFIX_CANDIDATES)
    return [
        row[0]
        for prefix in {word[:size], swapped}
        for row in conn.execute(sql, (prefix, prefix + "\U0010ffff", *bounds))
    ]


def _sharing_trigrams(conn: sqlite3.Connection, word: str) -> list[str]:
    """Vocabulary words sharing the most trigrams with `word` (typos in the first letters):
    ranked among the words holding one of its rarer trigrams (`matching.any_term`), as
    ranking every word that shares a common one ("ing", "ion") grew with the vocabulary."""
    grams = ['"' + g + '"' for g in terms.trigrams(word)]
    if not grams:
        return []
    counts = [
        conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM kb_vocab_tri WHERE kb_vocab_tri MATCH ? LIMIT ?)",
            (g, TYPO_RANKED + 1),
        ).fetchone()[0]
        for g in grams
    ]
    rows = conn.execute(
        "SELECT v.word FROM kb_vocab_tri t JOIN kb_vocab v ON v.id = t.rowid "
        "WHERE kb_vocab_tri MATCH ? ORDER BY rank LIMIT ?",
        (matching.any_term(grams, counts, TYPO_RANKED), TYPO_CANDIDATES),
    ).fetchall()
    return [row[0] for row in rows]


def _within(word: str, candidates: Iterable[str], limit: int) -> list[tuple[int, str]]:
    """(edit distance, candidate) for the candidates within `limit` edits of `word`."""
    letters, counts = set(word), Counter(word)
    found = []
    for cand in set(candidates):
        # Each edit changes the count of at most two letters by one: lower bounds on the
        # distance, the letter set's first (cheap), then the letter counts' (far fewer pass).
        if cand == word or len(letters.symmetric_difference(cand)) > 2 * limit:
            continue
        other = Counter(cand)
        if (counts - other).total() + (other - counts).total() > 2 * limit:
            continue
        distance = terms.edit_distance(word, cand, limit)
        if distance <= limit:
            found.append((distance, cand))
    return found


def corrections(conn: sqlite3.Connection, word: str, most: int = 5) -> list[str]:
    """Vocabulary words within the allowed edit distance of `word`: closest first, and among
    equally close ones the words in most chunks ("default" before a stray "defalt")."""
    limit = terms.max_typo_distance(word)
    scored = _within(word, _same_start(conn, word, limit), limit)
    if not scored or min(d for d, _ in scored) > 1:
        scored += _within(word, _sharing_trigrams(conn, word), limit)
    if not scored:
        return []
    scored = sorted(set(scored))
    best = scored[0][0]
    tied = [c for d, c in scored if d == best]
    if len(tied) > 1:  # then the one keeping most of the word's ends ("environment")
        tied.sort(key=lambda c: (-_chunk_frequency(conn, c), -_shared_ends(word, c), c))
    farther = [c for d, c in scored if d == best + 1]
    commoner = _far_commoner(conn, word, tied[0], farther)
    if commoner:  # "tempory": "temporary" (2 edits) over a stray "tempor" (1 edit)
        tied = [commoner, *tied]
    closest = tied[:most]
    return closest + [c for d, c in scored if d > best and c not in closest][: most - len(closest)]


def _far_commoner(
    conn: sqlite3.Connection, word: str, closest: str, farther: list[str]
) -> str | None:
    """Among words one edit farther than `closest`, the commonest if it is in far more
    chunks (TYPO_RATIO times): a rare near word is likelier a stray than what was meant."""
    if not farther:
        return None
    needed = TYPO_RATIO * max(_chunk_frequency(conn, closest, IDF_CAP), 1)
    if needed > IDF_CAP:
        return None
    likely = sorted(farther, key=lambda c: (-_shared_ends(word, c), c))[:FARTHER_CHECKED]
    best, best_found = None, 0
    for cand in likely:
        found = _chunk_frequency(conn, cand, IDF_CAP)
        if found >= needed and found > best_found:
            best, best_found = cand, found
    return best


def _chunk_frequency(conn: sqlite3.Connection, word: str, cap: int = 1000) -> int:
    """How many chunks match `word` (stemmed, as a search would), counted up to `cap`."""
    return conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM kb_fts WHERE kb_fts MATCH ? LIMIT ?)",
        (terms.fts_phrase(word), cap),
    ).fetchone()[0]


def _common_start(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _shared_ends(a: str, b: str) -> int:
    """Length of the common prefix plus the common suffix of two words."""
    return _common_start(a, b) + _common_start(a[::-1], b[::-1])


def correct_word(conn: sqlite3.Connection, word: str) -> str | None:
    """The closest vocabulary word within the allowed edit distance, or None."""
    found = corrections(conn, word, most=1)
    return found[0] if found else None


def _commoner_spelling(conn: sqlite3.Connection, word: str) -> str | None:
    """A word one edit away in far more chunks ("change" for "chnage"): a misspelling the
    corpus repeats is still a misspelling. Counted as a search counts (stemmed), so a
    typo whose stem is a real word's ("modifed", "modification") stays uncorrected."""
    most = IDF_CAP // TYPO_RATIO
    own = _chunk_frequency(conn, word, most + 1)
    if own > most:  # nothing could be that much commoner
        return None
    needed = TYPO_RATIO * max(own, 1)
    # Only words that begin alike: a trigram search per known word would cost more than
    # the whole query, and a misspelling rarely touches the first letters.
    # Stems can tie ("environent" and "environment" both search as "environ"): then the
    # one keeping more of the word's ends.
    best, best_key = None, (0, 0)
    for _, near in sorted(_within(word, _same_start(conn, word, 1), 1)):
        found = _chunk_frequency(conn, near, IDF_CAP)
        key = (found, _shared_ends(word, near))
        if found >= needed and key > best_key:
            best, best_key = near, key
    return best


def _likely_typo_of(conn: sqlite3.Connection, word: str) -> str | None:
    """A far commoner word one edit away from a vocabulary word: the corpus has its typos
    too ("recieve", "seperate"), so being in the vocabulary proves little."""
    if len(word) < 5:
        return None
    commoner = _commoner_spelling(conn, word)
    if commoner:
        return commoner
    # A word in a chunk or three: any close word, even one differing in its first letters.
    found = _chunk_frequency(conn, word, RARE_WORD_CHUNKS + 1)
    if found > RARE_WORD_CHUNKS:
        return None
    fixed = correct_word(conn, word)
    if fixed is None or terms.edit_distance(word, fixed, 1) > 1:
        return None
    needed = COMMONER_BY * max(found, 1)
    return fixed if _chunk_frequency(conn, fixed, needed) >= needed else None


def _in_vocabulary(conn: sqlite3.Connection, word: str) -> bool:
    return conn.execute("SELECT 1 FROM kb_vocab WHERE word = ?", (word,)).fetchone() is not None


def _matches_anything(conn: sqlite3.Connection, word: str) -> bool:
    return _matches(conn, terms.fts_any([word]))


def _matches(conn: sqlite3.Connection, match: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM kb_fts WHERE kb_fts MATCH ? LIMIT 1", (match,)).fetchone()
        is not None
    )


def _plan_word(conn: sqlite3.Connection, term: QueryTerm) -> TermPlan:
    """One-word term: as is, or with its typo fixed, or via the words containing it.

    A corrected word keeps the original alongside when the original occurs at all, so a
    correction can add matches but never lose the ones the word had.
    """
    word = term.parts[0]
    if len(word) < 3 or word.isdigit():  # a number is never a misspelt word ("100%")
        return TermPlan(term, [word])
    # Porter keeps an adverb apart from its adjective ("repeatedly" never finds "repeated").
    if len(word) > 6 and word.endswith("ly") and _in_vocabulary(conn, word[:-2]):
        return TermPlan(term, [word, word[:-2]])
    if _in_vocabulary(conn, word):
        fixed = _likely_typo_of(conn, word)
        return TermPlan(term, [word, fixed], corrected=fixed) if fixed else TermPlan(term, [word])
    fixed = correct_word(conn, word)
    if _matches_anything(conn, word):
        # Porter matched an inflection; the word itself may still be a typo of a real one
        # ("emiter" stems to "emit"): keep both, but only for a single-edit correction.
        if fixed and terms.edit_distance(word, fixed, 1) <= 1:
            return TermPlan(term, [word, fixed], corrected=fixed)
        return TermPlan(term, [word])
    expansions = _containing(conn, word)  # "createWid" -> createwidget
    if expansions and expansions[0].startswith(word):  # a word's beginning, not a typo
        return TermPlan(term, [], expansions)
    if fixed:  # words merely containing a misspelt word are noise ("atach" -> datachunk)
        return TermPlan(term, [fixed], corrected=fixed)
    return TermPlan(term, [], expansions)


def _completions(conn: sqlite3.Connection, term: QueryTerm) -> list[str] | None:
    """The phrases a several-part term completes to as a prefix, read from the chunks
    holding the rest of it ("udp co": "udp cork", "udp connect"); None when FTS5 expands
    the prefix itself: a fragment long enough, or a head in too many chunks to read.

    FTS5 expands "co*" to every word beginning so in the whole index, for each query that
    names it, and for each chunk a highlight asks about: that grew with the corpus.
    """
    *head, fragment = term.parts
    if len(fragment) >= COMPLETED_FRAGMENT:
        return None
    ids = [
        row[0]
        for row in conn.execute(
            "SELECT rowid FROM kb_fts WHERE kb_fts MATCH ? LIMIT ?",
            (terms.fts_phrase(" ".join(head)), COMPLETION_SCAN + 1),
        )
    ]
    if len(ids) > COMPLETION_SCAN:
        return None
    # Each head word as the index matches it (any inflection), then the fragment's words.
    heads = r"[\W_]+".join(re.escape(terms.stem_prefix(h)) + r"[^\W_]*" for h in head)
    # (It opens with a literal for speed: whether a word starts there is checked after.)
    pattern = re.compile(rf"{heads}[\W_]+({re.escape(fragment)}[^\W_]*)")
    found: dict[str, int] = {}
    marks = ",".join("?" * len(ids))
    for row in conn.execute(
        f"SELECT title, content, terms FROM kb_chunks WHERE id IN ({marks})", ids
    ):
        text = "\n".join(row).lower()
        for match in pattern.finditer(text):
            if match.start() == 0 or not text[match.start() - 1].isalnum():
                found[match[1]] = found.get(match[1], 0) + 1
    if len(found) > COMPLETIONS_MAX:
        return None
    ordered = sorted(found, key=lambda w: (-found[w], w))
    return [" ".join([*head, word]) for word in ordered]


def _as_prefix(conn: sqlite3.Connection, term: QueryTerm) -> TermPlan | None:
    """The term searched with its last part as a fragment ("o nonbl" -> O_NONBLOCK), if
    that matches anything."""
    prefix = term.word + "*"
    completions = _completions(conn, term)
    if completions is None:
        return TermPlan(term, [prefix]) if _matches_anything(conn, prefix) else None
    if not completions or not _matches(conn, terms.fts_any(completions)):
        return None
    return TermPlan(term, [prefix], completions=completions)


def _plan_phrase(conn: sqlite3.Connection, term: QueryTerm) -> TermPlan:
    """Several-part term (foo-bar, sqlite3.connect, O_NONBL): the phrase, fixed or as a prefix."""
    if _matches_anything(conn, term.word):
        return TermPlan(term, [term.word])
    unknown = [i for i, p in enumerate(term.parts) if len(p) >= 3 and not _in_vocabulary(conn, p)]
    # An identifier typed up to its last part is being completed, not misspelt: "TCP_FASTO"
    # is TCP_FASTOPEN, not "TCP fast" (the phrase must still match as a prefix).
    if unknown in ([], [len(term.parts) - 1]) and (completed := _as_prefix(conn, term)):
        return completed
    if len(unknown) == 1:  # "cherry-pik": the first correction that makes a known phrase
        i = unknown[0]
        for fixed in corrections(conn, term.parts[i]):
            parts = [*term.parts[:i], fixed, *term.parts[i + 1 :]]
            if _matches_anything(conn, " ".join(parts)):
                return TermPlan(term, [" ".join(parts)], corrected=_respelt(term, parts))
    elif unknown:  # "sched-setafinity-polcy": each misspelt part fixed on its own
        parts = list(term.parts)
        for i in unknown:
            parts[i] = correct_word(conn, parts[i]) or parts[i]
        if parts != list(term.parts) and _matches_anything(conn, " ".join(parts)):
            return TermPlan(term, [" ".join(parts)], corrected=_respelt(term, parts))
    return _as_prefix(conn, term) or TermPlan(term, [])


def _respelt(term: QueryTerm, parts: list[str]) -> str:
    """The term as typed, with its corrected parts put in ("cherry-pik" -> "cherry-pick")."""
    text = term.text
    for old, new in zip(term.parts, parts, strict=True):
        if old != new:
            text = re.sub(re.escape(old), new, text, count=1, flags=re.IGNORECASE)
    return text


def plan_query(conn: sqlite3.Connection, raw: str) -> Plan:
    plans = [
        _plan_word(conn, term) if len(term.parts) == 1 else _plan_phrase(conn, term)
        for term in terms.parse_query(raw)
    ]
    corrected = None
    if any(p.corrected for p in plans):
        corrected = " ".join(p.corrected or p.term.text for p in plans)
    fixed: dict[str, str] = {}
    for p in plans:
        if p.corrected and p.words:
            fixed.update(zip(p.term.parts, p.words[-1].split(), strict=False))
    spoken = [fixed.get(w, w) for w in terms.query_words(raw)]
    return Plan(plans, corrected, spoken)
