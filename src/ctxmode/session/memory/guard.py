"""The workspace guard: is the current directory inside the session's workspace?"""

from __future__ import annotations

import os
from dataclasses import dataclass

EXIT_WRONG_WORKSPACE = 3


@dataclass(frozen=True)
class GuardResult:
    cwd: str
    workspace: str
    inside: bool


def is_inside(path: str, parent: str) -> bool:
    """True when `path` is `parent` or below it, after resolving symlinks on both."""
    path, parent = os.path.realpath(path), os.path.realpath(parent)
    try:
        return os.path.commonpath([path, parent]) == parent
    except ValueError:  # different drives on Windows
        return False


def check_workspace(cwd: str, workspace: str) -> GuardResult:
    return GuardResult(
        cwd=os.path.realpath(cwd),
        workspace=os.path.realpath(workspace),
        inside=is_inside(cwd, workspace),
    )


def mismatch_message(session: str, result: GuardResult) -> str:
    return (
        f"ctxmode: stopped: the current directory {result.cwd}\n"
        f"  is not inside the workspace of session '{session}': {result.workspace}\n"
        f"  cd {result.workspace}, or add --confirm to act here once, or rebind the session:\n"
        f"  ctxmode session switch --session {session} --workspace {result.cwd}"
    )
