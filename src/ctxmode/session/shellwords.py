"""A small quote-aware splitter for shell command lines (no `shlex` on the hook path).

Good enough to find `git commit -m "msg"`, `cd dir`, `pip install x` inside
`a && b; c | d`: quotes and backslashes are honoured, nothing is expanded.
"""

from __future__ import annotations

WRAPPERS = frozenset(("sudo", "env", "time", "command", "exec", "nohup"))


def segments(command: str) -> list[list[str]]:
    """The simple commands of a command line, each as its list of words."""
    out: list[list[str]] = []
    words: list[str] = []
    word: list[str] = []
    in_word = False
    quote = ""
    i, n = 0, len(command)
    while i < n:
        char = command[i]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"' and i + 1 < n and command[i + 1] in '"\\$`':
                i += 1
                word.append(command[i])
            else:
                word.append(char)
        elif char in "'\"":
            quote, in_word = char, True
        elif char == "\\" and i + 1 < n:
            i += 1
            word.append(command[i])
            in_word = True
        elif char in " \t":
            if in_word:
                words.append("".join(word))
                word, in_word = [], False
        elif char in ";&|\n":
            if in_word:
                words.append("".join(word))
                word, in_word = [], False
            if words:
                out.append(words)
            words = []
            if i + 1 < n and command[i + 1] == char and char in "&|":
                i += 1
        else:
            word.append(char)
            in_word = True
        i += 1
    if in_word:
        words.append("".join(word))
    if words:
        out.append(words)
    return out


def strip_prefix(words: list[str]) -> list[str]:
    """Words without leading `VAR=value` assignments and `sudo`/`env`/`time`/`command`."""
    i = 0
    while i < len(words):
        word = words[i]
        assignment = "=" in word and word.split("=", 1)[0].isidentifier()
        if not (assignment or word in WRAPPERS):
            break
        i += 1
    return words[i:]


def program(words: list[str]) -> str:
    """The base name of the program a simple command runs ("" if none)."""
    words = strip_prefix(words)
    return words[0].rsplit("/", 1)[-1] if words else ""
