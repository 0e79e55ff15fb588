"""Answering one query against the knowledge-base tables.

Pipeline: parse and quote the terms (stopwords dropped, but kept for the phrase); check
each against the index; expand fragments to real words through the trigram index over
the vocabulary, or as a prefix; correct each misspelt word on its own (vocabulary words
that begin alike, else share trigrams, re-ranked by edit distance, then by how common
they are; a known word one edit from a word far more sources spell so is searched as
both; an adverb also as its adjective); run the ranked FTS5 queries (every term, topped
up with all-but-one, commonest left out first, else the rarest terms; all terms NEAR each
other; a short query as an exact phrase; the fragment expansions; for an identifier,
the matching chunks where it heads a definition); fuse them by reciprocal rank; re-rank
the top by match shape (coverage weighted by term rarity, proximity, adjacency, same
line, title, definition lines, words as typed, the query verbatim), by whether the
source is named after a term and opens with a summary, added to the fused score (so the
fused order still counts); demote repeats from one source.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import zip_longest

from ctxmode.store import snippets, terms
from ctxmode.store.terms import QueryTerm

RRF_K = 60
CANDIDATE_DEPTH = 20  # chunks each ranked list contributes
RERANK_POOL = 15  # fused chunks whose matches are examined
SAME_SOURCE_PENALTY = 0.1  # per hit already shown from the same source
NAMED_WEIGHT = 1.0  # boost for a source named after the query's terms (tar(1) for "tar")
LEAD_WEIGHT = 0.3  # boost for a source's first chunk (its summary: a man page's NAME)
EXPANSIONS_PER_TERM = 6
TYPO_CANDIDATES = 200
PREFIX_CANDIDATES = 2000
RARE_WORD_CHUNKS = 3  # a vocabulary word in at most this many chunks may be a typo ...
COMMONER_BY = 30  # ... of a word one edit away that is in this many times more chunks
TYPO_RATIO = 20  # a word is a likely typo of one an edit away in this many times more chunks
FRAGMENT_CANDIDATES = 300
FARTHER_CHECKED = 4  # words one edit farther than the closest whose frequency is compared
RERANK_WEIGHT = 0.5
ADJACENT_GAP = 12  # chars between two terms that still count as "next to each other"
DEFINITION_LEAD = 24  # a term that opens a line may sit inside its first word ("PR_SET_", "--")
SINGLE_TERM_DEFINES = 4.0  # a definition line weighs more when the query is one term
DEFINITION_LINE = 48  # a definition line is short: "SO_REUSEPORT (since Linux 3.9)"
GIST_CHARS = 120  # the opening of a chunk's body that says what it is about
PHRASE_MAX_TERMS = 4  # queries this short are also searched as one exact phrase
PARTIAL_FROM_TERMS = 4  # questions this long also search with each term left out
PARTIAL_SKIPS = 6  # ... each of the commonest few left out in turn
DEFINITION_TERMS = 2  # queries of at most this many terms also look for definition lines ...
DEFINITION_SCAN = 300  # ... when at most this many chunks match them
IDF_CAP = 2000  # chunk frequencies are counted up to this (a common word is common enough)


@dataclass
class TermPlan:
    """How one query term is searched: its words (original or corrected) and expansions."""

    term: QueryTerm
    words: list[str]  # words or phrases (space-joined parts) searched as-is; a correction last
    expansions: list[str] = field(default_factory=list)  # vocabulary words containing it
    corrected: str | None = None

    @property
    def every_word(self) -> list[str]:
        return list(dict.fromkeys([*self.words, *self.expansions]))


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
            terms.fts_any(t.every_word if with_expansions else t.words)
            for t in self.terms
            if t.words or (with_expansions and t.expansions)
        ]


@dataclass
class Candidate:
    chunk_id: int
    fused: float
    score: float = 0.0
    title: str = ""
    content: str = ""  # highlighted (\x02 ... \x03)


# ---------------------------------------------------------------- planning


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
    """
    prefix = word[: 2 if len(word) <= 6 else 3]
    rows = conn.execute(
        "SELECT word FROM kb_vocab WHERE word >= ? AND word < ? "
        "AND length(word) BETWEEN ? AND ? LIMIT ?",
        (prefix, prefix + "\U0010ffff", len(word) - limit, len(word) + limit, PREFIX_CANDIDATES),
    ).fetchall()
    return [row[0] for row in rows]


def _sharing_trigrams(conn: sqlite3.Connection, word: str) -> list[str]:
    """Vocabulary words sharing the most trigrams with `word` (typos in the first letters)."""
    grams = terms.trigrams(word)
    if not grams:
        return []
    rows = conn.execute(
        "SELECT v.word FROM kb_vocab_tri t JOIN kb_vocab v ON v.id = t.rowid "
        "WHERE kb_vocab_tri MATCH ? ORDER BY rank LIMIT ?",
        (" OR ".join('"' + g + '"' for g in grams), TYPO_CANDIDATES),
    ).fetchall()
    return [row[0] for row in rows]


def _within(word: str, candidates: Iterable[str], limit: int) -> list[tuple[int, str]]:
    """(edit distance, candidate) for the candidates within `limit` edits of `word`."""
    letters = set(word)
    found = []
    for cand in set(candidates):
        # Each edit changes at most two letters of the letter set: a cheap lower bound.
        if cand == word or len(letters.symmetric_difference(cand)) > 2 * limit:
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
    best, best_found = None, 0
    for _, near in sorted(_within(word, _same_start(conn, word, 1), 1)):
        found = _chunk_frequency(conn, near, IDF_CAP)
        if found >= needed and found > best_found:
            best, best_found = near, found
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
    match = terms.fts_any([word])
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
    if len(word) < 3:
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


def _plan_phrase(conn: sqlite3.Connection, term: QueryTerm) -> TermPlan:
    """Several-part term (foo-bar, sqlite3.connect, O_NONBL): the phrase, fixed or as a prefix."""
    if _matches_anything(conn, term.word):
        return TermPlan(term, [term.word])
    unknown = [i for i, p in enumerate(term.parts) if len(p) >= 3 and not _in_vocabulary(conn, p)]
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
    prefix = term.word + "*"  # the last part is a fragment: "o nonbl" -> O_NONBLOCK
    if _matches_anything(conn, prefix):
        return TermPlan(term, [prefix])
    return TermPlan(term, [])


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
    fixed = {}
    for p in plans:
        if p.corrected and p.words:
            fixed.update(zip(p.term.parts, p.words[-1].split(), strict=False))
    spoken = [fixed.get(w, w) for w in terms.query_words(raw)]
    return Plan(plans, corrected, spoken)


# ---------------------------------------------------------------- running


def _filter_sql(source: str | None, content_type: str | None) -> tuple[str, list[object]]:
    """Joins and conditions that restrict FTS matches to a source label and chunk kind.

    The FTS table drives the query (CROSS JOIN fixes that order): `rowid IN (subquery)`
    would make FTS5 re-run the MATCH once per candidate row, seconds on a big source.
    """
    clauses, params = [], []
    if source:
        escaped = source.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        clauses.append("s.label LIKE ? ESCAPE '\\'")
        params.append(f"%{escaped}%")
    if content_type:
        clauses.append("c.kind = ?")
        params.append(content_type)
    if not clauses:
        return "", []
    sql = (
        " CROSS JOIN kb_chunks c ON c.id = kb_fts.rowid"
        " CROSS JOIN kb_sources s ON s.id = c.source_id"
        " WHERE " + " AND ".join(clauses) + " AND"
    )
    return sql, params


Ranked = list[tuple[int, float]]  # (chunk id, bm25 relevance, higher is better)


def _ranked(
    conn: sqlite3.Connection, match: str, limit: int, filters: tuple[str, list[object]]
) -> Ranked:
    joins = filters[0] or " WHERE"
    sql = (
        f"SELECT kb_fts.rowid, kb_fts.rank FROM kb_fts{joins} kb_fts MATCH ? "
        "ORDER BY kb_fts.rank LIMIT ?"
    )
    return [(row[0], -row[1]) for row in conn.execute(sql, [*filters[1], match, limit])]


def _fuse(lists: list[Ranked]) -> dict[int, float]:
    """Reciprocal rank fusion: each list adds 1/(k + rank) for every chunk it ranks."""
    fused: dict[int, float] = {}
    for ranked in lists:
        for rank, (chunk_id, _) in enumerate(ranked, 1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    return fused


def _match_count(conn: sqlite3.Connection, match: str, known: dict[str, int]) -> int:
    """How many chunks an FTS5 expression matches, counted up to IDF_CAP; remembered in
    `known` (a plan's counts), as ranking and weighting ask about the same terms."""
    if match not in known:
        known[match] = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM kb_fts WHERE kb_fts MATCH ? LIMIT ?)",
            (match, IDF_CAP),
        ).fetchone()[0]
    return known[match]


def _partial_matches(
    conn: sqlite3.Connection,
    groups: list[str],
    depth: int,
    filters: tuple[str, list[object]],
    known: dict[str, int],
) -> Ranked:
    """Chunks with all terms but one, the commonest term left out first (it says least),
    interleaved; if none, the rarest terms together, the commonest dropped one by one;
    if still none, any term."""
    counts = [_match_count(conn, g, known) for g in groups]
    commonest_first = sorted(range(len(groups)), key=lambda i: (-counts[i], i))
    lists = []
    if len(groups) >= 3:
        for skip in commonest_first[:PARTIAL_SKIPS]:
            rest = groups[:skip] + groups[skip + 1 :]
            lists.append(_ranked(conn, " AND ".join(rest), depth, filters))
    if not any(lists):
        for keep in range(len(groups) - 2, 1, -1):
            rarest = sorted(commonest_first[-keep:])
            ranked = _ranked(conn, " AND ".join(groups[i] for i in rarest), depth, filters)
            if ranked:
                return ranked
        # OR ranks every chunk holding any term: the slow path, kept last
        return _ranked(conn, " OR ".join(groups), depth, filters)
    merged: dict[int, float] = {}
    for row in zip_longest(*lists):
        for item in row:
            if item is not None:
                merged.setdefault(item[0], item[1])
    return list(merged.items())[:depth]


def candidate_lists(
    conn: sqlite3.Connection,
    plan: Plan,
    limit: int,
    depth: int,
    filters: tuple[str, list[object]],
) -> list[Ranked]:
    """Ranked chunks: every term (topped up with all-but-one), all terms near each other,
    and fragments expanded to the words containing them. Each is one list for the fusion."""
    groups = plan.group(with_expansions=False)
    lists: list[Ranked] = []
    if groups:
        ranked = _ranked(conn, " AND ".join(groups), depth, filters)
        if len(groups) > 1 and (len(ranked) < limit or len(groups) >= PARTIAL_FROM_TERMS):
            seen = {chunk_id for chunk_id, _ in ranked}
            more = _partial_matches(conn, groups, depth, filters, plan.counts)
            ranked += [item for item in more if item[0] not in seen][: depth - len(ranked)]
        lists.append(ranked)
        firsts = [terms.fts_phrase(t.words[-1]) for t in plan.terms if t.words]
        if 1 < len(firsts) <= 8:  # stopwords were dropped, so "near", not an exact phrase
            near = f"NEAR({' '.join(firsts)}, {2 * len(firsts)})"
            lists.append(_ranked(conn, near, depth, filters))
            phrase = plan.phrase()
            if phrase:  # the words in this order, side by side
                lists.append(_ranked(conn, terms.fts_phrase(phrase), depth, filters))
    lists.append(_definitions(conn, plan, filters))
    if any(t.expansions for t in plan.terms):
        expanded = plan.group(with_expansions=True)
        ranked = _ranked(conn, " AND ".join(expanded), depth, filters)
        if not ranked and len(expanded) > 1:
            ranked = _ranked(conn, " OR ".join(expanded), depth, filters)
        lists.append(ranked)
    return [r for r in lists if r]


_WORD_START = r"(?<![^\W_])"  # no letter or digit just before


def _surface(word: str) -> str:
    """A regex for a searched word or phrase as a text spells it: its parts joined by any
    separator ("rlimit nofile" finds RLIMIT_NOFILE), a prefix ("o nonbl*") left open."""
    body = r"[\W_]{1,3}".join(re.escape(p) for p in word.rstrip("*").split())
    return _WORD_START + body + ("" if word.endswith("*") else r"(?![^\W_])")


def _definitions(conn: sqlite3.Connection, plan: Plan, filters: tuple[str, list[object]]) -> Ranked:
    """Chunks of a short query's matches where a term opens a definition line, best first.

    BM25 favours short chunks that merely mention a term over the long reference section
    that defines it ("RLIMIT_NOFILE" in getrlimit(2)); when few chunks match, every one is
    read for a definition line, so that section reaches the re-ranking.
    """
    groups = plan.group(with_expansions=True)
    if not groups or len(groups) > DEFINITION_TERMS:
        return []
    # A lone term is what the query asks about; beside other words, only an identifier
    # ("--vacuum-size", "O_CLOEXEC") is one a reference would define on a line of its own.
    named = plan.terms if len(groups) == 1 else [t for t in plan.terms if len(t.term.parts) > 1]
    words = [w for t in named for w in t.every_word if w.rstrip("*").split()]
    if not words:
        return []
    match = " AND ".join(groups)
    found = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM kb_fts WHERE kb_fts MATCH ? LIMIT ?)",
        (match, DEFINITION_SCAN + 1),
    ).fetchone()[0]
    if not found or found > DEFINITION_SCAN:
        return []
    ranked = _ranked(conn, match, DEFINITION_SCAN, filters)
    marks = ",".join("?" * len(ranked))
    contents = dict(
        conn.execute(
            f"SELECT id, content FROM kb_chunks WHERE id IN ({marks})", [c for c, _ in ranked]
        )
    )
    surfaces = [re.compile(_surface(w).removeprefix(_WORD_START)) for w in words]
    return [
        (chunk_id, score)
        for chunk_id, score in ranked
        if _defines_any(contents[chunk_id], surfaces)
    ]


def _defines_any(text: str, surfaces: list[re.Pattern[str]]) -> bool:
    """Whether any word (as a pattern over lower-cased text) opens a definition in `text`.
    The patterns begin with a literal, which the regex engine finds fast; only the matches
    near a line's start are looked at more closely."""
    lowered = text.lower()
    for pattern in surfaces:
        for found in pattern.finditer(lowered):
            at = found.start()
            if (
                (at == 0 or not lowered[at - 1].isalnum())
                and at - lowered.rfind("\n", 0, at) <= DEFINITION_LEAD + 8
                and opens_definition(text, at)
            ):
                return True
    return False


def _highlighted(
    conn: sqlite3.Connection, plan: Plan, chunk_ids: list[int]
) -> dict[int, tuple[str, str]]:
    """Title and content of each chunk with its matches marked (one query for them all)."""
    words = [w for t in plan.terms for w in t.every_word]
    marks = ",".join("?" * len(chunk_ids))
    found = {
        row[0]: (row[1], row[2])
        for row in conn.execute(
            "SELECT rowid, highlight(kb_fts, 0, char(2), char(3)), "
            "highlight(kb_fts, 1, char(2), char(3)) "
            f"FROM kb_fts WHERE kb_fts MATCH ? AND rowid IN ({marks})",
            (terms.fts_any(words), *chunk_ids),
        )
    }
    missing = [c for c in chunk_ids if c not in found]
    if missing:  # cannot happen for a ranked chunk, but never fail a search over it
        marks = ",".join("?" * len(missing))
        for row in conn.execute(
            f"SELECT id, title, content FROM kb_chunks WHERE id IN ({marks})", missing
        ):
            found[row[0]] = (row[1], row[2])
    return found


def term_weights(conn: sqlite3.Connection, plan: Plan) -> list[float]:
    """Per query term (as `_term_keys` lists them), its share of the query's information:
    inverse chunk frequency, normalised to sum to 1 ("ssh" outweighs "out")."""
    total = max(1, conn.execute("SELECT max(id) FROM kb_chunks").fetchone()[0] or 1)
    raw = []
    for t in plan.terms:
        if not any(w.rstrip("*").split() for w in t.every_word):
            continue
        found = _match_count(conn, terms.fts_any(t.every_word), plan.counts)
        raw.append(math.log(1.0 + total / max(found, 1)))
    whole = sum(raw) or 1.0
    return [r / whole for r in raw]


def _term_forms(plan: Plan) -> list[list[str]]:
    """Per query term (as `_term_keys` lists them), the words as typed (or corrected)."""
    forms = []
    for t in plan.terms:
        words = [w.rstrip("*") for w in t.every_word if w.rstrip("*").split()]
        if words:
            forms.append(words)
    return forms


def _term_keys(plan: Plan) -> list[set[str]]:
    """Per query term, the stem prefixes that identify its tokens in highlighted text."""
    keys = []
    for t in plan.terms:
        parts = {p for w in t.every_word for p in w.rstrip("*").split()}
        if parts:
            keys.append({terms.stem_prefix(p) for p in parts})
    return keys


def _term_of(token: str, keys: list[set[str]]) -> int | None:
    token = token.lower()
    for index, prefixes in enumerate(keys):
        if any(token.startswith(p) or p.startswith(token) for p in prefixes):
            return index
    return None


def _matches(marked: str, keys: list[set[str]]) -> tuple[str, list[tuple[int, int, int]]]:
    """The text, and (start, end, term index) of each match of a query term: the tokens the
    index marked, and the camelCase parts it matched through the identifier-parts column
    ("keep" in TCPKeepAlive), which no highlight shows."""
    text, spans = snippets.strip_marks(marked)
    found = []
    for start, end in spans:
        index = _term_of(text[start:end], keys)
        if index is not None:
            found.append((start, end, index))
    if len({m[2] for m in found}) < len(keys) and terms.CAMEL_HINT.search(text):
        for token in _CAMEL_TOKEN.finditer(text):
            for part in terms.CAMEL_PART.finditer(token.group()):
                index = _term_of(part.group(), keys) if part.end() - part.start() >= 3 else None
                if index is not None:
                    found.append((token.start() + part.start(), token.start() + part.end(), index))
        found.sort()
    return text, found


_CAMEL_TOKEN = re.compile(r"[A-Za-z0-9]*(?:[a-z][A-Z]|[A-Z]{2}[a-z])[A-Za-z0-9]*")


def _min_span(matches: list[tuple[int, int, int]], needed: int) -> int | None:
    """Shortest char window holding one match of each of `needed` terms (sliding window)."""
    best = None
    counts: dict[int, int] = {}
    left = 0
    for _, end, term in matches:
        counts[term] = counts.get(term, 0) + 1
        while len(counts) == needed:
            span = end - matches[left][0]
            best = span if best is None else min(best, span)
            lterm = matches[left][2]
            counts[lterm] -= 1
            if not counts[lterm]:
                del counts[lterm]
            left += 1
    return best


def _line_facts(text: str, matches: list[tuple[int, int, int]]) -> tuple[set[int], set[int]]:
    """Terms that open a line ("SO_REUSEPORT (since ...)", "--autostash"): definitions; and
    the most distinct terms found together on one line."""
    defined: set[int] = set()
    per_line: dict[int, set[int]] = {}
    for start, _, term in matches:
        if opens_definition(text, start):
            defined.add(term)
        per_line.setdefault(text.rfind("\n", 0, start) + 1, set()).add(term)
    return defined, max(per_line.values(), key=len, default=set())


def opens_definition(text: str, start: int) -> bool:
    """Whether the word at `start` heads a tagged paragraph: it opens a short line (a
    parenthetical aside), and the next line, indented deeper, describes it. That is the
    "RLIMIT_NOFILE" line above its explanation, not a passing mention or a list of flags."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    if line_end < 0:
        return False
    lead = text[line_start:start]
    # The word itself may follow a prefix ("PR_SET_", "--") or an option's short alias
    # ("-R, --dereference-recursive"), but no words: then it is mentioned, not defined.
    opening = lead.lstrip().replace(", ", ",")
    if len(opening) > DEFINITION_LEAD or any(ch.isspace() for ch in opening):
        return False
    line = _ASIDE.sub("", text[line_start:line_end].strip())
    following = text[line_end + 1 : line_end + 200].split("\n", 1)[0]
    indent = len(lead) - len(lead.lstrip())
    deeper = len(following) - len(following.lstrip()) > indent
    if line.endswith(_CODE_ENDS) or following.rstrip().endswith(_CODE_ENDS):
        return False  # code ("process.nextTick(() => {" above a call), not a tagged paragraph
    return len(line) <= DEFINITION_LINE and deeper and len(_WORDS.findall(following)) >= 4


_WORDS = re.compile(r"[A-Za-z]{2,}")
_CODE_ENDS = ("{", "(", "[", ";", "=>")  # how a line of C-like code ends; prose does not
_ASIDE = re.compile(r"\s*\([^()]*\)$")  # "(since Linux 2.6.28; Linux-specific)"


WEIGHTS = {"coverage": 0.3, "proximity": 0.15, "phrase": 0.15, "line": 0.2, "title": 0.1,
           "defines": 0.1, "exact": 0.1, "verbatim": 0.15, "gist": 0.1}  # fmt: skip


@dataclass(frozen=True)
class Features:
    """How well a chunk's matches fit the query, each 0..1."""

    coverage: float  # share of the terms present
    proximity: float  # how close together all terms occur
    phrase: float  # share of neighbouring query terms adjacent in the text
    line: float  # most terms found on a single line, as a share
    title: float  # share of the terms in the title
    defines: float  # share of the terms opening a line
    exact: float  # share of the terms found as typed, not only as another inflection
    verbatim: float  # 1 when the query's words occur just as typed, in order, space-separated
    gist: float = 0.0  # share of the terms in the opening words of the body (what it is about)

    def boost(self) -> float:
        return sum(weight * getattr(self, name) for name, weight in WEIGHTS.items())


def features(
    title: str,
    content: str,
    keys: list[set[str]],
    weights: list[float] | None = None,
    forms: list[list[str]] | None = None,
    phrase: str | None = None,
) -> Features:
    """The match-shape features of one highlighted chunk. `weights` (one per term, summing
    to 1; equal if not given) make a rare term count for more than a common one; `forms`
    (the words as typed, per term) tell an exact match from a stemmed one; `phrase` is the
    query as the text would say it ("busy waiting", not "busy wait" or "busy-waiting")."""
    n = len(keys)
    if n == 0:
        return Features(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    weights = weights or [1.0 / n] * n

    def share(found: set[int]) -> float:
        return sum(weights[i] for i in found)

    # The heading is the chunk's first line: "emitter.once(eventName, listener)" holds
    # every term of "emitter once listener" side by side.
    text, in_content = _matches(f"{title}\n{content}" if title else content, keys)
    plain_title, title_matches = _matches(title, keys)
    in_title = {m[2] for m in title_matches}
    present = {m[2] for m in in_content} | in_title
    heading = len(plain_title) + 1 if title else 0
    defined, best_line = _line_facts(text, in_content)
    if heading:  # the heading's lines are no definition lines, but its last part may be one
        defined = _line_facts(text, [m for m in in_content if m[0] >= heading])[0]
        defined |= _headed_by(plain_title, title_matches)
    lowered = text.lower()
    # The opening words say what a chunk is about ("tail - output the last part of files");
    # a later mention may be in passing ("... all but the last NUM lines" in head(1)).
    gist = {m[2] for m in in_content if heading <= m[0] < heading + GIST_CHARS}
    exact = {i for i, words in enumerate(forms or []) if any(_says(lowered, w) for w in words)}
    if n == 1:  # one identifier: where it is defined is what matters
        defines = SINGLE_TERM_DEFINES * len(defined)
        return Features(
            len(present), 1.0, 1.0, len(best_line), len(in_title), defines, len(exact), 0.0
        )
    span = _min_span(in_content, n) if len(present) == n else None
    proximity = 1.0 / (1.0 + span / (40.0 * n)) if span is not None else 0.0
    adjacent = 0
    for i in range(n - 1):
        ends = [e for _, e, t in in_content if t == i]
        starts = [s for s, _, t in in_content if t == i + 1]
        if any(0 <= s - e <= ADJACENT_GAP for e in ends for s in starts[:50]):
            adjacent += 1
    return Features(
        share(present),
        proximity,
        adjacent / (n - 1),
        share(best_line),
        share(in_title),
        share(defined),
        share(exact),
        _verbatim(lowered, phrase),
        share(gist),
    )


def _headed_by(title: str, matches: list[tuple[int, int, int]]) -> set[int]:
    """Terms that open the last part of a heading path: the section is about them
    ("Process > `process.nextTick(callback)`"), not one that mentions them in passing
    ("`queueMicrotask()` vs. `process.nextTick()`")."""
    last = title.rfind(" > ")
    part = last + 3 if last >= 0 else 0
    opening = _FIRST_WORD.search(title, part)
    return {term for start, _, term in matches if opening and start == opening.start()}


_FIRST_WORD = re.compile(r"[^\W_]")


def _says(lowered: str, word: str) -> bool:
    """Whether lower-cased text holds a searched word as typed; a several-part word with
    any separators between its parts ("util promisify" in "util.promisify")."""
    if " " not in word:
        return word in lowered
    return re.search(_surface(word), lowered) is not None


def _verbatim(lowered: str, phrase: str | None) -> float:
    """1 when the text says the phrase as typed ("paste buffers" says "paste buffer"), half
    when only its words are in order, punctuation between ("copy-on-write", "<bell> char")."""
    if not phrase:
        return 0.0
    if f" {phrase}" in f" {' '.join(lowered.split())}":
        return 1.0
    spaced = re.compile(r"[\W_]{1,3}".join(re.escape(w) for w in phrase.split()))
    starts = (m.start() for m in spaced.finditer(lowered))
    return 0.5 if any(at == 0 or not lowered[at - 1].isalnum() for at in starts) else 0.0


def run_query(
    conn: sqlite3.Connection,
    plan: Plan,
    limit: int,
    source: str | None,
    content_type: str | None,
) -> list[Candidate]:
    """The best `limit` chunks for a planned query, highlighted and scored.

    score = fused (RRF) score relative to the best + RERANK_WEIGHT x the match-shape boost.
    """
    depth = max(3 * limit, CANDIDATE_DEPTH)
    filters = _filter_sql(source, content_type)
    lists = candidate_lists(conn, plan, limit, depth, filters)
    fused = _fuse(lists)
    if not fused:
        return []
    pool = sorted(fused.items(), key=lambda kv: kv[1], reverse=True)[: max(2 * limit, RERANK_POOL)]
    top = pool[0][1]
    keys, weights, forms = _term_keys(plan), term_weights(conn, plan), _term_forms(plan)
    phrase = plan.phrase()
    sources = _sources(conn, [chunk_id for chunk_id, _ in pool])
    out = []
    marked = _highlighted(conn, plan, [chunk_id for chunk_id, _ in pool])
    for chunk_id, score in pool:
        title, content = marked[chunk_id]
        source = sources[chunk_id]
        heading = title if source.headed else ""  # a plain chunk's title is its first line
        boost = (
            features(heading, content, keys, weights, forms, phrase).boost()
            + LEAD_WEIGHT * source.lead
            + NAMED_WEIGHT * named_share(source.label, plan, weights)
        )
        out.append(Candidate(chunk_id, score, score / top + RERANK_WEIGHT * boost, title, content))
    return _diverse(out, {c: src.source_id for c, src in sources.items()}, limit)


@dataclass(frozen=True)
class _Source:
    source_id: int
    label: str
    lead: bool  # the chunk opens a structured document: its summary (a man page's NAME)
    headed: bool  # chunk titles are headings or key paths, not just the first line


def _sources(conn: sqlite3.Connection, chunk_ids: list[int]) -> dict[int, _Source]:
    """Each chunk's source. A log's or a changelog's first chunk is no summary: plain text
    and code get no lead."""
    marks = ",".join("?" * len(chunk_ids))
    rows = conn.execute(
        "SELECT c.id, c.source_id, s.label, s.fmt = 'markdown' AND c.id = "
        "(SELECT min(id) FROM kb_chunks WHERE source_id = c.source_id), s.fmt != 'plain' "
        f"FROM kb_chunks c JOIN kb_sources s ON s.id = c.source_id WHERE c.id IN ({marks})",
        chunk_ids,
    ).fetchall()
    return {row[0]: _Source(row[1], row[2], bool(row[3]), bool(row[4])) for row in rows}


def named_share(label: str, plan: Plan, weights: list[float]) -> float:
    """The (weighted) share of the query's terms that name the source: "tar" for the tar
    manual, "signal" for signal(7). The document named after a term is its reference."""
    name = set(terms.WORD.findall(label.split(":", 1)[-1].lower()))
    share = 0.0
    searched = [t for t in plan.terms if any(w.rstrip("*").split() for w in t.every_word)]
    for weight, t in zip(weights, searched, strict=False):
        if any(set(w.rstrip("*").split()) <= name for w in t.every_word):
            share += weight
    return share


def _diverse(scored: list[Candidate], source_of: dict[int, int], limit: int) -> list[Candidate]:
    """The best `limit`, each further hit from an already shown source slightly demoted, so
    three near-identical chunks of one changelog do not hide every other source."""
    remaining = sorted(scored, key=lambda c: (c.score, c.fused), reverse=True)
    shown: dict[int, int] = {}
    chosen: list[Candidate] = []
    while remaining and len(chosen) < limit:
        best = max(
            remaining,
            key=lambda c: c.score - SAME_SOURCE_PENALTY * shown.get(source_of[c.chunk_id], 0),
        )
        remaining.remove(best)
        chosen.append(best)
        source = source_of[best.chunk_id]
        shown[source] = shown.get(source, 0) + 1
    return chosen
