"""One sentence per round of work, and the session summary those sentences grow. Pure.

Each tool result recorded (each `ctxmode run`, each `session record --role tool`) adds
one line to the summary, so a session summarises itself as it goes; a summary set by hand
is kept as the first line, and only the newest rounds are kept when there are many.
"""

from __future__ import annotations

MAX_SENTENCE_CHARS = 200
MAX_ROUND_LINES = 30
_EARLIER = "earlier rounds:"  # the line counting rounds that were left out


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _rest_of(lines: list[str], prefix: str) -> str | None:
    """What follows `prefix` on the first line starting with it."""
    for line in lines:
        if line.startswith(prefix):
            return line[len(prefix) :].strip() or None
    return None


def _line_after(lines: list[str], prefix: str) -> str | None:
    """The line after the first line starting with `prefix`."""
    for index, line in enumerate(lines[:-1]):
        if line.startswith(prefix):
            return lines[index + 1].strip()
    return None


def round_sentence(content: str) -> str:
    """The tool result `content` in one sentence.

    A `ctxmode run` digest (`$ command`, `exit N; ...`, error and last lines) reads as
    "Ran `grep -c ERROR import.log`: exit 0, last output: 3."; anything else as its first
    non-empty line.
    """
    lines = [line for line in content.strip().splitlines() if line.strip()]
    if len(lines) >= 2 and lines[0].startswith("$ ") and lines[1].startswith("exit "):
        parts = [lines[1].split(";", 1)[0]]
        first_error = _line_after(lines, "error lines")
        if first_error:
            parts.append(f"first error: {first_error}")
        last = _rest_of(lines, "last stdout line:")
        if last and last != first_error:
            parts.append(f"last output: {last}")
        command = _clip(lines[0][2:], 80)
        return _clip(f"Ran `{command}`: {', '.join(parts)}", MAX_SENTENCE_CHARS - 1) + "."
    first = lines[0] if lines else "(empty)"
    return _clip(f"Tool result: {first}", MAX_SENTENCE_CHARS - 1).rstrip(".") + "."


def grown_summary(summary: str, sentence: str) -> str:
    """`summary` with `sentence` as its last line, at most MAX_ROUND_LINES round lines kept.

    The first line stays when it is not a round (a summary set by hand, or the key terms
    of a `session truncate`); rounds left out are counted on one line after it.
    """
    lines = summary.splitlines() if summary.strip() else []
    head: list[str] = []
    if lines and not _is_round(lines[0]):
        head.append(lines.pop(0))
    earlier = 0
    if lines and lines[0].startswith(_EARLIER):
        count = lines.pop(0).removeprefix(_EARLIER).split()[:1]
        earlier = int(count[0]) if count and count[0].isdigit() else 0
    lines.append(sentence)
    dropped = max(len(lines) - MAX_ROUND_LINES, 0)
    earlier += dropped
    counted = [f"{_EARLIER} {earlier} left out"] if earlier else []
    return "\n".join([*head, *counted, *lines[dropped:]])


def _is_round(line: str) -> bool:
    return line.startswith(("Ran `", "Tool result: ", _EARLIER))
