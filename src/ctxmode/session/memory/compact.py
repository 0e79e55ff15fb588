"""`session truncate`: fold old entries into a key-term summary. Pure."""

from __future__ import annotations

import re
from collections import Counter

from ctxmode.session.memory.model import Entry

MAX_KEY_TERMS = 24
MAX_CHECKPOINT_CHARS = 400
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_./:-]{2,60}")
_STOPWORD_TEXT = """the and for are but not you all any can had her was one our out day get has him his how
    man new now old see two way who boy did its let put say she too use that with have this will
    your from they know want been good much some time very when come here just like long make
    many more only over such take than them well were what where which while into then there these
    those would could should about after again also because before being between both each
    exit stdout stderr line lines bytes last error errors filtered summary key terms entries
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def key_terms(texts: list[str], limit: int = MAX_KEY_TERMS) -> list[str]:
    """The most frequent meaningful words (ties: first seen first), case kept from first use."""
    counts: Counter[str] = Counter()
    first_form: dict[str, str] = {}
    for text in texts:
        for word in _WORD.findall(text):
            word = word.strip(".:-/")
            lower = word.lower()
            if len(word) < 3 or lower in _STOPWORDS or word == "FILTERED":
                continue
            counts[lower] += 1
            first_form.setdefault(lower, word)
    order = {word: i for i, word in enumerate(first_form)}
    ranked = sorted(counts, key=lambda w: (-counts[w], order[w]))
    return [first_form[w] for w in ranked[:limit]]


def compacted_summary(summary: str, folded: list[Entry]) -> str:
    """The new summary: key terms of the old summary and the folded entries, plus checkpoints."""
    terms = key_terms([summary, *(e.content for e in folded)])
    parts = [f"key terms: {', '.join(terms)}"] if terms else []
    checkpoints = [
        ("" if e.verified else "(UNVERIFIED) ") + " ".join(e.content.split())
        for e in folded
        if e.role == "checkpoint"
    ]
    if checkpoints:
        text = "; ".join(checkpoints)
        if len(text) > MAX_CHECKPOINT_CHARS:
            text = text[: MAX_CHECKPOINT_CHARS - 3] + "..."
        parts.append(f"checkpoints: {text}")
    if folded:
        parts.append(f"{len(folded)} entries compacted up to #{folded[-1].id}")
    return "; ".join(parts)
