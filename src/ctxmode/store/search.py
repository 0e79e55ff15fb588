"""Answering one query against the knowledge-base tables.

Pipeline: parse and quote the terms; check each against the index; expand fragments
to real words through the trigram index over the vocabulary; correct typos (trigram
candidates re-ranked by edit distance); run porter AND (then OR), exact-phrase and
fragment-expanded queries; fuse them by reciprocal rank; re-rank the top by term
coverage, proximity, phrase adjacency and title matches, keeping the fused score.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from ctxmode.store import snippets, terms
from ctxmode.store.terms import QueryTerm

RRF_K = 60
EXPANSIONS_PER_TERM = 6
TYPO_CANDIDATES = 200
FRAGMENT_CANDIDATES = 300
RERANK_WEIGHT = 0.8
ADJACENT_GAP = 12  # chars between two terms that still count as "next to each other"


@dataclass
class TermPlan:
    """How one query term is searched: its words (original or corrected) and expansions."""

    term: QueryTerm
    words: list[str]  # words or phrases (space-joined parts) searched as-is
    expansions: list[str] = field(default_factory=list)  # vocabulary words containing it
    corrected: str | None = None

    @property
    def every_word(self) -> list[str]:
        return list(dict.fromkeys([*self.words, *self.expansions]))


@dataclass
class Plan:
    terms: list[TermPlan]
    corrected_query: str | None

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


def _in_index(conn: sqlite3.Connection, term: QueryTerm) -> bool:
    if len(term.parts) == 1:
        row = conn.execute("SELECT 1 FROM kb_vocab WHERE word = ?", (term.parts[0],)).fetchone()
        if row:
            return True
    row = conn.execute("SELECT 1 FROM kb_fts WHERE kb_fts MATCH ? LIMIT 1", (term.fts,)).fetchone()
    return row is not None


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


def correct_word(conn: sqlite3.Connection, word: str) -> str | None:
    """The closest vocabulary word within the allowed edit distance, or None."""
    grams = terms.trigrams(word)
    if not grams:
        return None
    rows = conn.execute(
        "SELECT v.word FROM kb_vocab_tri t JOIN kb_vocab v ON v.id = t.rowid "
        "WHERE kb_vocab_tri MATCH ? ORDER BY rank LIMIT ?",
        (" OR ".join('"' + g + '"' for g in grams), TYPO_CANDIDATES),
    ).fetchall()
    candidates = {row[0] for row in rows}
    if len(word) <= 6:
        # Short words share few trigrams with their typo ("htpp" has none of "http"'s):
        # also try the words with the same first two letters and a similar length.
        rows = conn.execute(
            "SELECT word FROM kb_vocab WHERE word >= ? AND word < ? "
            "AND length(word) BETWEEN ? AND ? LIMIT ?",
            (word[:2], word[:2] + "\U0010ffff", len(word) - 1, len(word) + 1, 4 * TYPO_CANDIDATES),
        ).fetchall()
        candidates.update(row[0] for row in rows)
    limit = terms.max_typo_distance(word)
    scored = []
    for candidate in candidates:
        distance = terms.edit_distance(word, candidate, limit)
        if distance <= limit:
            scored.append((distance, candidate))
    if not scored:
        return None
    best = min(d for d, _ in scored)
    tied = [c for d, c in scored if d == best]
    if len(tied) == 1:
        return tied[0]
    return max(tied, key=lambda c: (_chunk_frequency(conn, c), c))


def _chunk_frequency(conn: sqlite3.Connection, word: str, cap: int = 1000) -> int:
    """How many chunks contain `word` (counted up to `cap`): common words win typo ties."""
    return conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM kb_fts WHERE kb_fts MATCH ? LIMIT ?)",
        ('"' + word + '"', cap),
    ).fetchone()[0]


def plan_query(conn: sqlite3.Connection, raw: str) -> Plan:
    plans: list[TermPlan] = []
    corrected_any = False
    for term in terms.parse_query(raw):
        single = term.parts[0] if len(term.parts) == 1 else None
        known = _in_index(conn, term)
        # A fragment ("createWid") searches the vocabulary words that contain it.
        expansions = _containing(conn, single) if single and not known else []
        if known:
            plans.append(TermPlan(term, [term.word], expansions))
        elif expansions:
            plans.append(TermPlan(term, [], expansions))
        else:
            fixed = correct_word(conn, single) if single else None
            if fixed:
                corrected_any = True
                plans.append(TermPlan(term, [fixed], [], corrected=fixed))
            else:
                plans.append(TermPlan(term, []))
    corrected = None
    if corrected_any:
        corrected = " ".join(p.corrected or p.term.text for p in plans)
    return Plan(plans, corrected)


# ---------------------------------------------------------------- running


def _filter_sql(source: str | None, content_type: str | None) -> tuple[str, list[object]]:
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
        " AND rowid IN (SELECT c.id FROM kb_chunks c JOIN kb_sources s ON s.id = c.source_id"
        " WHERE " + " AND ".join(clauses) + ")"
    )
    return sql, params


def _ranked(
    conn: sqlite3.Connection, match: str, limit: int, filters: tuple[str, list[object]]
) -> list[int]:
    sql = f"SELECT rowid FROM kb_fts WHERE kb_fts MATCH ?{filters[0]} ORDER BY rank LIMIT ?"
    return [row[0] for row in conn.execute(sql, [match, *filters[1], limit])]


def _fuse(lists: list[list[int]]) -> dict[int, float]:
    fused: dict[int, float] = {}
    for ranked in lists:
        for rank, chunk_id in enumerate(ranked, 1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    return fused


def _partial_matches(
    conn: sqlite3.Connection, groups: list[str], depth: int, filters: tuple[str, list[object]]
) -> list[list[int]]:
    """When no chunk has every term: chunks with all terms but one (AND is cheap), else any."""
    lists = []
    if len(groups) >= 3:
        for skip in range(min(len(groups), 6)):
            rest = groups[:skip] + groups[skip + 1 :]
            lists.append(_ranked(conn, " AND ".join(rest), depth, filters))
    if not any(lists):  # OR ranks every chunk holding any term: the slow path, kept last
        lists = [_ranked(conn, " OR ".join(groups), depth, filters)]
    return lists


def candidate_lists(
    conn: sqlite3.Connection,
    plan: Plan,
    limit: int,
    depth: int,
    filters: tuple[str, list[object]],
) -> list[list[int]]:
    """Ranked chunk ids from porter AND/OR, the exact phrase, and fragment expansion."""
    groups = plan.group(with_expansions=False)
    lists: list[list[int]] = []
    if groups:
        ranked = _ranked(conn, " AND ".join(groups), depth, filters)
        lists.append(ranked)
        if len(ranked) < limit and len(groups) > 1:
            lists.extend(_partial_matches(conn, groups, depth, filters))
        words = [t.words[0] for t in plan.terms if t.words]
        if 1 < len(words) <= 6:
            lists.append(_ranked(conn, '"' + " ".join(words) + '"', depth, filters))
    if any(t.expansions for t in plan.terms):
        expanded = plan.group(with_expansions=True)
        ranked = _ranked(conn, " AND ".join(expanded), depth, filters)
        if not ranked and len(expanded) > 1:
            ranked = _ranked(conn, " OR ".join(expanded), depth, filters)
        lists.append(ranked)
    return [r for r in lists if r]


def _highlight(conn: sqlite3.Connection, plan: Plan, chunk_id: int) -> tuple[str, str]:
    words = [w for t in plan.terms for w in t.every_word]
    row = conn.execute(
        "SELECT highlight(kb_fts, 0, char(2), char(3)), highlight(kb_fts, 1, char(2), char(3)) "
        "FROM kb_fts WHERE kb_fts MATCH ? AND rowid = ?",
        (terms.fts_any(words), chunk_id),
    ).fetchone()
    if row is None:  # matched only through a filterless path; show it unmarked
        row = conn.execute(
            "SELECT title, content FROM kb_chunks WHERE id = ?", (chunk_id,)
        ).fetchone()
    return row[0], row[1]


def _term_keys(plan: Plan) -> list[set[str]]:
    """Per query term, the stem prefixes that identify it in highlighted text."""
    keys = []
    for t in plan.terms:
        words = t.every_word
        if words:
            keys.append({terms.stem_prefix(w.split()[0]) for w in words})
    return keys


def _matches(marked: str, keys: list[set[str]]) -> list[tuple[int, int, int]]:
    """(start, end, term index) of each marked token that belongs to a query term."""
    text, spans = snippets.strip_marks(marked)
    found = []
    for start, end in spans:
        token = text[start:end].lower()
        for index, prefixes in enumerate(keys):
            if any(token.startswith(p) or p.startswith(token) for p in prefixes):
                found.append((start, end, index))
                break
    return found


def _min_span(matches: list[tuple[int, int, int]], needed: int) -> int | None:
    """Shortest char window holding one match of each of `needed` terms (sliding window)."""
    best = None
    counts: dict[int, int] = {}
    left = 0
    for right, (_, end, term) in enumerate(matches):
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


def rerank_boost(title: str, content: str, keys: list[set[str]]) -> float:
    """0..1: share of terms present, how close together, adjacent pairs, terms in the title."""
    n = len(keys)
    if n == 0:
        return 0.0
    in_content = _matches(content, keys)
    in_title = {m[2] for m in _matches(title, keys)}
    present = {m[2] for m in in_content} | in_title
    coverage = len(present) / n
    title_share = len(in_title) / n
    if n == 1:
        return 0.6 * coverage + 0.4 * title_share
    span = _min_span(in_content, n) if len(present) == n else None
    proximity = 1.0 / (1.0 + span / (40.0 * n)) if span is not None else 0.0
    adjacent = 0
    for i in range(n - 1):
        ends = [e for _, e, t in in_content if t == i]
        starts = [s for s, _, t in in_content if t == i + 1]
        if any(0 <= s - e <= ADJACENT_GAP for e in ends for s in starts[:50]):
            adjacent += 1
    phrase = adjacent / (n - 1)
    return 0.35 * coverage + 0.25 * proximity + 0.25 * phrase + 0.15 * title_share


def run_query(
    conn: sqlite3.Connection,
    plan: Plan,
    limit: int,
    source: str | None,
    content_type: str | None,
) -> list[Candidate]:
    """The best `limit` chunks for a planned query, highlighted and scored."""
    depth = max(3 * limit, 10)
    filters = _filter_sql(source, content_type)
    fused = _fuse(candidate_lists(conn, plan, limit, depth, filters))
    if not fused:
        return []
    pool = sorted(fused.items(), key=lambda kv: kv[1], reverse=True)[: max(2 * limit, 10)]
    top = pool[0][1]
    keys = _term_keys(plan)
    out = []
    for chunk_id, score in pool:
        title, content = _highlight(conn, plan, chunk_id)
        boost = rerank_boost(title, content, keys)
        out.append(Candidate(chunk_id, score, score / top + RERANK_WEIGHT * boost, title, content))
    out.sort(key=lambda c: (c.score, c.fused), reverse=True)
    return out[:limit]
