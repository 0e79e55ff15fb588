"""Glob matching for permission rules, without `re` or `fnmatch`: Bash patterns, where `*`
is the only wildcard, and Read path globs (`**/` any directories, `**` anything, `*` within
a segment, `?` one character), with the spellings of a path they are tried against.

Paths are compared with forward slashes, and case-folded on macOS and Windows.
"""

from __future__ import annotations

import os
import sys

CASE_INSENSITIVE = sys.platform in ("darwin", "win32")

# A path glob compiled for matching: its tokens ("**/", "**", "*", "?", "=literal").
Tokens = list[str]


def fold(path: str) -> str:
    """`path` as globs compare it: forward slashes, case-folded where the file system is."""
    path = path.replace("\\", "/")
    return path.lower() if CASE_INSENSITIVE else path


def star_match(pattern: str, text: str) -> bool:
    """Anchored glob where `*` (any run of characters) is the only wildcard."""
    pieces = pattern.split("*")
    if len(pieces) == 1:
        return pattern == text
    first, last = pieces[0], pieces[-1]
    if len(text) < len(first) + len(last) or not text.startswith(first) or not text.endswith(last):
        return False
    position, end = len(first), len(text) - len(last)
    for piece in pieces[1:-1]:
        found = text.find(piece, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def roots(project_dir: str) -> list[str]:
    """The project directory as written and, when a symlink leads there, as it really is."""
    if not project_dir:
        return []
    found = [os.path.abspath(project_dir)]
    real = os.path.realpath(project_dir)
    return found if real == found[0] else [*found, real]


def candidates(path: str, base: str) -> list[str]:
    """[raw path, absolute path (relative to `base`), realpath], folded, without repeats;
    the last one is what would really be read."""
    expanded = os.path.expanduser(path)
    absolute = os.path.normpath(os.path.join(base or os.getcwd(), expanded))
    try:
        real = os.path.realpath(absolute)
    except (OSError, ValueError):
        real = absolute
    real = fold(real)
    found = [form for form in dict.fromkeys((fold(path), fold(absolute))) if form != real]
    return [*found, real]


def path_globs(glob: str, roots: list[str]) -> tuple[list[Tokens], list[Tokens]]:
    """(globs matched against any spelling of a path, globs anchored at absolute locations):
    `//x` is the absolute `/x`, `~` the home directory, `/x` both absolute and under each
    root, and a relative glob matches as written and under each root."""
    glob = fold(glob)
    anchored: list[str] = []
    loose: list[str] = []
    if glob.startswith("//"):
        anchored.append(glob[1:])
    elif glob == "~" or glob.startswith("~/"):
        anchored.append(fold(os.path.expanduser(glob)))
    elif glob.startswith("/"):
        anchored.append(glob)
        anchored += [fold(root).rstrip("/") + glob for root in roots]
    else:
        loose.append(glob)
        relative = glob[2:] if glob.startswith("./") else glob
        anchored += [fold(root).rstrip("/") + "/" + relative for root in roots]
    anchored += [real for real in map(real_prefix, anchored) if real not in anchored]
    return [tokenize(g) for g in loose], [tokenize(g) for g in anchored]


def real_prefix(glob: str) -> str:
    """The glob with its wildcard-free directory prefix resolved through symlinks."""
    cut = min((glob.find(c) for c in "*?" if c in glob), default=len(glob))
    head = glob[: glob.rfind("/", 0, cut) + 1] if cut < len(glob) else glob
    if not head or head == "/":
        return glob
    try:
        real = os.path.realpath(head)
    except (OSError, ValueError):
        return glob
    suffix = "/" if head.endswith("/") and not real.endswith(("/", "\\")) else ""
    return fold(real) + suffix + glob[len(head) :]


def tokenize(glob: str) -> Tokens:
    tokens: Tokens = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            tokens.append("**/")
            i += 3
        elif glob.startswith("**", i):
            tokens.append("**")
            i += 2
        elif glob[i] in "*?":
            tokens.append(glob[i])
            i += 1
        else:
            j = i
            while j < len(glob) and glob[j] not in "*?":
                j += 1
            tokens.append("=" + glob[i:j])
            i = j
    return tokens


def path_glob_match(tokens: Tokens, path: str) -> bool:
    """Anchored match of a tokenized path glob (memoized: linear in tokens x path length)."""
    memo: dict[tuple[int, int], bool] = {}
    n = len(path)

    def match(t: int, s: int) -> bool:
        key = (t, s)
        if key in memo:
            return memo[key]
        if t == len(tokens):
            result = s == n
        else:
            token = tokens[t]
            if token == "?":
                result = s < n and path[s] != "/" and match(t + 1, s + 1)
            elif token == "*":
                end = path.find("/", s)
                end = n if end < 0 else end
                result = any(match(t + 1, k) for k in range(s, end + 1))
            elif token == "**":
                result = any(match(t + 1, k) for k in range(s, n + 1))
            elif token == "**/":
                result = match(t + 1, s) or any(
                    path[k] == "/" and match(t + 1, k + 1) for k in range(s, n)
                )
            else:
                literal = token[1:]
                result = path.startswith(literal, s) and match(t + 1, s + len(literal))
        memo[key] = result
        return result

    return match(0, 0)
