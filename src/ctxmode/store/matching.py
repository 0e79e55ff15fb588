"""FTS5 match expressions that rank fewer rows for the same order: any of several terms.

Ranking (bm25) scores every row a query matches, whatever its LIMIT, and an OR of common
words matches most of an index: that cost grew with the corpus.
"""

from __future__ import annotations


def any_term(groups: list[str], counts: list[int], rows: int) -> str:
    """An FTS5 expression for rows holding any of `groups` (each matching `counts` rows),
    ranked as their OR is but only over the rows of its rarest groups (together in at most
    `rows` rows, the rarest one at least).

    The common groups still score in those rows exactly as in the OR: NOT leaves its right
    side no matches to score. A row holding common groups only is left out; a group's
    rarity is most of what it scores, so such a row rarely ranks among the first.
    """
    order = sorted(range(len(groups)), key=lambda i: (counts[i], i))
    anchors, matched = {order[0]}, counts[order[0]]
    for i in order[1:]:
        if matched + counts[i] > rows:
            break
        anchors.add(i)
        matched += counts[i]
    every = " OR ".join(groups)
    rest = [g for i, g in enumerate(groups) if i not in anchors]
    if not rest:
        return every
    rare = " OR ".join(groups[i] for i in sorted(anchors))
    return f"({every}) NOT (({' OR '.join(rest)}) NOT ({rare}))"
