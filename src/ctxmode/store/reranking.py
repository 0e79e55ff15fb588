"""Re-ranking: the fused top chunks scored by match shape, then made diverse by source.

Shape: coverage weighted by term rarity, proximity, adjacency, same line, title,
definition lines, words as typed, the query verbatim; plus whether the source is named
after a term and opens with a summary; added to the fused score (so the fused order
still counts). Repeats from one source are demoted.
"""

from __future__ import annotations

import math
import re
import sqlite3
from dataclasses import dataclass

from ctxmode.store import snippets, terms
from ctxmode.store.planning import Plan
from ctxmode.store.retrieval import match_count
from ctxmode.store.shapes import opens_definition, surface
from ctxmode.store.tuning import (
    ADJACENT_GAP,
    GIST_CHARS,
    NAMESPACE_PREFIX,
    PREFIX_NAMED,
    SAME_SOURCE_PENALTY,
    SINGLE_TERM_DEFINES,
    WEIGHTS,
)


@dataclass
class Candidate:
    chunk_id: int
    fused: float
    score: float = 0.0
    title: str = ""
    content: str = ""  # highlighted (\x02 ... \x03)


def highlighted(
    conn: sqlite3.Connection, plan: Plan, chunk_ids: list[int]
) -> dict[int, tuple[str, str]]:
    """Title and content of each chunk with its matches marked (one query for them all)."""
    words = [w for t in plan.terms for w in t.searched()]
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
    """Per query term (as `term_keys` lists them), its share of the query's information:
    inverse chunk frequency, normalised to sum to 1 ("ssh" outweighs "out")."""
    total = max(1, conn.execute("SELECT max(id) FROM kb_chunks").fetchone()[0] or 1)
    raw = []
    for t in plan.terms:
        if not any(w.rstrip("*").split() for w in t.every_word):
            continue
        found = match_count(conn, terms.fts_any(t.searched()), plan.counts)
        raw.append(math.log(1.0 + total / max(found, 1)))
    whole = sum(raw) or 1.0
    return [r / whole for r in raw]


def term_forms(plan: Plan) -> list[list[str]]:
    """Per query term (as `term_keys` lists them), the words as typed (or corrected)."""
    forms = []
    for t in plan.terms:
        words = [w.rstrip("*") for w in t.every_word if w.rstrip("*").split()]
        if words:
            forms.append(words)
    return forms


def term_keys(plan: Plan) -> list[set[str]]:
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
    known: dict[str, int | None] = {}  # a chunk repeats its matched words: each looked up once

    def term_of(token: str) -> int | None:
        if token not in known:
            known[token] = _term_of(token, keys)
        return known[token]

    found = []
    for start, end in spans:
        index = term_of(text[start:end])
        if index is not None:
            found.append((start, end, index))
    if len({m[2] for m in found}) < len(keys) and terms.CAMEL_HINT.search(text):
        for token in _CAMEL_TOKEN.finditer(text):
            for part in terms.CAMEL_PART.finditer(token.group()):
                index = term_of(part.group()) if part.end() - part.start() >= 3 else None
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
        defined |= _headed_by(plain_title, title_matches, forms)
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


def _headed_by(
    title: str, matches: list[tuple[int, int, int]], forms: list[list[str]] | None = None
) -> set[int]:
    """Terms that open the last part of a heading path: the section is about them
    ("Process > `process.nextTick(callback)`"), not one that mentions them in passing
    ("`queueMicrotask()` vs. `process.nextTick()`")."""
    last = title.rfind(" > ")
    part = last + 3 if last >= 0 else 0
    opening = _FIRST_WORD.search(title, part)
    if opening is None:
        return set()
    # A method heads its section after its receiver: `readable.readableHighWaterMark`.
    member = _RECEIVER.match(title, opening.start())
    heads = {opening.start(), member.end() if member else -1}
    found = {term for start, _, term in matches if start in heads}
    # "util.promisify.custom" heads its own section, not that of "util.promisify".
    named = _NAME.match(title, opening.start())  # always matches, maybe empty
    name = [p.lower() for p in terms.WORD.findall(named.group() if named else "")]
    return {t for t in found if not forms or t >= len(forms) or not _longer_name(name, forms[t])}


def _longer_name(name: list[str], words: list[str]) -> bool:
    """Whether a heading's name continues a searched identifier into a longer one."""
    for word in words:
        parts = word.rstrip("*").split()
        if len(parts) > 1 and len(name) > len(parts) and name[: len(parts)] == parts:
            return True
    return False


_NAME = re.compile(r"[\w.]*")


_FIRST_WORD = re.compile(r"[^\W_]")
_RECEIVER = re.compile(r"\w+\.(?=\w)")


def _says(lowered: str, word: str) -> bool:
    """Whether lower-cased text holds a searched word as typed; a several-part word with
    any separators between its parts ("util promisify" in "util.promisify")."""
    if " " not in word:
        return word in lowered
    return re.search(surface(word), lowered) is not None


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


@dataclass(frozen=True)
class Source:
    source_id: int
    label: str
    lead: bool  # the chunk opens a structured document: its summary (a man page's NAME)
    headed: bool  # chunk titles are headings or key paths, not just the first line
    records: bool  # JSON: each chunk a record of its own (an issue, a comment), not a repeat
    title: str  # as stored (no highlights)

    def diversity_key(self, chunk_id: int) -> tuple[int, int]:
        """What a hit counts as a repeat of: its source, or itself for a record."""
        return (self.source_id, chunk_id if self.records else 0)


def chunk_sources(conn: sqlite3.Connection, chunk_ids: list[int]) -> dict[int, Source]:
    """Each chunk's source. A log's or a changelog's first chunk is no summary: plain text
    and code get no lead."""
    marks = ",".join("?" * len(chunk_ids))
    rows = conn.execute(
        "SELECT c.id, c.source_id, s.label, s.fmt = 'markdown' AND c.id = "
        "(SELECT min(id) FROM kb_chunks WHERE source_id = c.source_id), s.fmt != 'plain', "
        "s.fmt = 'json' AND c.kind = 'prose', c.title "
        f"FROM kb_chunks c JOIN kb_sources s ON s.id = c.source_id WHERE c.id IN ({marks})",
        chunk_ids,
    ).fetchall()
    return {
        row[0]: Source(row[1], row[2], bool(row[3]), bool(row[4]), bool(row[5]), row[6])
        for row in rows
    }


def named_share(label: str, plan: Plan, weights: list[float]) -> float:
    """The (weighted) share of the query's terms that name the source: "tar" for the tar
    manual, "signal" for signal(7). The document named after a term is its reference; an
    identifier's first part names the call it belongs to (CLONE_NEWPID: clone(2)), for less."""
    space, colon, rest = label.lower().partition(":")
    if not colon:
        space, rest = "", space
    name = set(terms.WORD.findall(rest))
    # The collection a label names first ("nodejs:fs") is named by its beginning ("node").
    share = 0.0
    searched = [t for t in plan.terms if any(w.rstrip("*").split() for w in t.every_word)]
    for weight, t in zip(weights, searched, strict=False):
        words = [w.rstrip("*") for w in t.every_word]
        if any(set(w.split()) <= name or _opens(space, w) for w in words):
            share += weight
        elif len(t.term.parts) > 1 and t.term.parts[0] in name and len(t.term.parts[0]) >= 3:
            share += PREFIX_NAMED * weight  # CLONE_NEWPID is clone(2)'s flag
    return share


def _opens(space: str, word: str) -> bool:
    return len(word) >= NAMESPACE_PREFIX and space.isalpha() and space.startswith(word)


def diverse(
    scored: list[Candidate], source_of: dict[int, tuple[int, int]], limit: int
) -> list[Candidate]:
    """The best `limit`, each further hit from an already shown source slightly demoted, so
    three near-identical chunks of one changelog do not hide every other source."""
    remaining = sorted(scored, key=lambda c: (c.score, c.fused), reverse=True)
    shown: dict[tuple[int, int], int] = {}
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
