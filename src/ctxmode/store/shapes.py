"""How a searched word looks in a chunk's text: its spelling there, and definition lines."""

from __future__ import annotations

import re

from ctxmode.store.tuning import (
    DEFINITION_LEAD,
    DEFINITION_LINE,
)

WORD_START = r"(?<![^\W_])"  # no letter or digit just before


def surface(word: str) -> str:
    """A regex for a searched word or phrase as a text spells it: its parts joined by any
    separator ("rlimit nofile" finds RLIMIT_NOFILE), a prefix ("o nonbl*") left open."""
    body = r"[\W_]{1,3}".join(re.escape(p) for p in word.rstrip("*").split())
    return WORD_START + body + ("" if word.endswith("*") else r"(?![^\W_])")


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
    # A short tag may share its line with the description, set apart by a run of spaces:
    # "SOCK_NONBLOCK   Set the O_NONBLOCK file status flag ...", continued indented deeper.
    tag = _SAME_LINE_TAG.match(text, start, line_end)
    if tag and deeper and len(_WORDS.findall(text[tag.end() : line_end])) >= 4:
        return True
    return len(line) <= DEFINITION_LINE and deeper and len(_WORDS.findall(following)) >= 4


_WORDS = re.compile(r"[A-Za-z]{2,}")
_SAME_LINE_TAG = re.compile(r"\S{1,40} {2,}(?=\S)")


_CODE_ENDS = ("{", "(", "[", ";", "=>")  # how a line of C-like code ends; prose does not
_ASIDE = re.compile(r"\s*\([^()]*\)$")  # "(since Linux 2.6.28; Linux-specific)"


def defines_any(text: str, surfaces: list[re.Pattern[str]]) -> bool:
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
