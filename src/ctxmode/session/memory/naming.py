"""Which session a command means: an explicit name, a scope's name, or one derived from the place.

The rule, first match wins:
1. `--session NAME` or the `CTXMODE_SESSION` environment variable;
2. the `session` of the longest config scope containing the current directory;
3. derived: the last two components of the workspace, plus the `--task` word if given
   (`/data/prod/archive` -> `prod-archive`; with `--task log`, `prod-archive-log`). The
   name depends on the place only, so every terminal, script and agent working in one
   directory reaches the same session (two parallel efforts there name theirs apart).
A derived name also matches an existing session made in a parent directory, so working in
`/data/prod/archive/2024` continues `prod-archive`.
"""

from __future__ import annotations

import os
import re

from ctxmode.errors import CtxmodeError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 80


class SessionNameError(CtxmodeError, ValueError):
    """A session name that is empty once cleaned."""


def clean_name(name: str) -> str:
    """Session names are path-, shell- and log-safe: `[A-Za-z0-9._-]`, at most 80 chars."""
    cleaned = _UNSAFE.sub("-", name.strip()).strip("-.")[:MAX_NAME]
    if not cleaned:
        raise SessionNameError(f"not a usable session name: {name!r}")
    return cleaned


def derived_name(workspace: str, word: str | None = None) -> str:
    parts = [p for p in os.path.realpath(workspace).split(os.sep) if p][-2:] or ["root"]
    return clean_name("-".join([*parts, word] if word else parts))


def ancestors(path: str) -> list[str]:
    """`path` (resolved) and each of its parents, nearest first."""
    path = os.path.realpath(path)
    chain = [path]
    while (parent := os.path.dirname(chain[-1])) != chain[-1]:
        chain.append(parent)
    return chain
