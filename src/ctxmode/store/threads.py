"""Threads in JSON records: the replies below a matched post, and the cues of an answer.

An issue's opening post repeats the words of a question about it; the answer sits in a
reply that may share none of them ("why does the pool hang" is answered by "Root cause:
... task_done() is never called"). So every record of a thread the query matched (its
post, or any reply: the asker's "two months offline" is answered by its neighbour) joins
the re-ranking. For a question, or a symptom in a few words ("webhook delivered twice"),
a reply counts for more than the post that restates the problem (the reply's title still
names the issue), and one that reads like an answer (a cause for "why", a fix otherwise)
for a little more.
"""

from __future__ import annotations

import re
import sqlite3

from ctxmode.store.tuning import ANSWER_MIN_WORDS, THREAD_SCAN

QUESTION_OPENERS = frozenset(
    "how why what which when where who whom does do did is are can could should".split()  # noqa: SIM905
)
_CAUSE_ASKED = frozenset({"why", "cause", "causes", "caused", "reason"})
_CAUSE_CUES = re.compile(
    r"\b(?:root cause|caused? by|because|due to|the reason|the cause|that is the cause|"
    r"that's it|found it|the leak|found the|turn(?:s|ed) out|got it|this is an? |"
    r"the (?:real )?(?:cause|culprit|bottleneck|problem) (?:is|was))\b",
    re.IGNORECASE,
)
_FIX_CUES = re.compile(
    r"\b(?:workaround|fix(?:ed)? (?:by|in)|you can|instead|set `|run `|pass `|use `|"
    r"switch(?:ed)? to|start (?:the|with)|add `|raise)\b",
    re.IGNORECASE,
)

# A reply that opens by guessing ("Could be a corrupted cache", "Maybe the disk is slow?")
# is a suggestion the thread usually disproves later, not its answer.
_GUESS = re.compile(
    r"^(?:body: )?(?:could (?:it )?be|maybe|perhaps|might be|"
    r"are you|do you|did you|have you|is it)\b",
    re.IGNORECASE | re.MULTILINE,
)

_CUES_FOR = {"cause": (_CAUSE_CUES,), "answer": (_FIX_CUES,), "either": (_CAUSE_CUES, _FIX_CUES)}


def asked(spoken: list[str], term_count: int) -> str | None:
    """What a query of `term_count` search terms asks for: "cause" (why ...), "answer" (another
    question), "either" (a symptom in a few words, "webhook delivered twice": its cause or
    its fix), or None (a lone identifier: "E_CHUNK_DIGEST" is looked up where it is named)."""
    if spoken and spoken[0] in QUESTION_OPENERS:
        return "cause" if _CAUSE_ASKED & set(spoken) else "answer"
    return "either" if term_count >= 2 else None


def answer_cue(kind: str | None, text: str) -> float:
    """1 when a reply's text reads like what the query asks for (a cause for "cause", a fix
    for "answer", either for "either"), else 0."""
    return 1.0 if any(c.search(text) for c in _CUES_FOR.get(kind or "", ())) else 0.0


def author(title: str) -> str | None:
    """Who wrote a record, from its chunk title ("... > 92010 by oeze" -> "oeze")."""
    last = title.rpartition(" > ")[2]
    name = last.rpartition(" by ")[2] if " by " in last else ""
    return name or None


def only_asks(text: str) -> bool:
    """A reply whose last line is a question asks for more; it does not answer."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return bool(lines) and lines[-1].rstrip().endswith("?")


def guesses(text: str) -> bool:
    """A reply that opens a line with a guess or a question back ("Maybe the disk is slow")."""
    return bool(_GUESS.search(text))


def too_short(text: str) -> bool:
    """A reply of a few words ("Same with Podman.", "3.0.4.") confirms or thanks; it has
    no room to explain a cause or a fix."""
    longest = max(text.splitlines(), key=len, default="")  # a record's prose field
    return len(longest.split()) < ANSWER_MIN_WORDS


def unlikely_answer(post_title: str, reply_title: str, text: str) -> float:
    """How little a reply looks like an answer, 0..1: the asker's own follow-up (the one
    who asked rarely answers), a reply that only asks back, one too short to explain
    anything and one that opens with a guess each count half."""
    asker = author(post_title)
    by_asker = asker is not None and author(reply_title) == asker
    doubts = by_asker + only_asks(text) + too_short(text) + guesses(text)
    return min(1.0, 0.5 * doubts)


def roots(conn: sqlite3.Connection, records: list[tuple[int, int, str]]) -> dict[int, int]:
    """record chunk id -> the chunk id of the thread it belongs to (the outermost record
    its title sits below; itself for an opening post), for (chunk id, source id, title)
    records. A matched comment's answer may be its neighbour, not a reply to it."""
    found: dict[int, int] = {}
    for chunk_id, source_id, title in records:
        found[chunk_id] = chunk_id
        for earlier_id, earlier_title in conn.execute(
            "SELECT id, title FROM kb_chunks WHERE id >= ? AND id < ? AND source_id = ? "
            "ORDER BY id",
            (chunk_id - THREAD_SCAN, chunk_id, source_id),
        ):
            if title.startswith(earlier_title + " > "):
                found[chunk_id] = earlier_id
                break
    return found


def replies(conn: sqlite3.Connection, posts: list[tuple[int, int, str]]) -> dict[int, int]:
    """reply chunk id -> its post's chunk id, for (chunk id, source id, title) posts. A
    record's replies are chunked right after it, titled below its title."""
    found: dict[int, int] = {}
    for chunk_id, source_id, title in posts:
        below = title + " > "
        for reply_id, reply_title in conn.execute(
            "SELECT id, title FROM kb_chunks WHERE id > ? AND id <= ? AND source_id = ?",
            (chunk_id, chunk_id + THREAD_SCAN, source_id),
        ):
            if not reply_title.startswith(below):
                break
            found.setdefault(reply_id, chunk_id)
    return found
