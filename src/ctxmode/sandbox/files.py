"""Which file `run_file` may hand to code: inside the project after resolving links, or allowed.

Pure path logic plus two existence checks; the permission rules themselves live in
`ctxmode.policy` and arrive as the `allow_outside` callable.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ctxmode.errors import CtxmodeError


class FileAccessError(CtxmodeError, ValueError):
    """The file given to `run_file` cannot be used (missing, not a file)."""


class PathOutsideProjectError(FileAccessError):
    """The file resolves outside the project root and no allow rule covers it."""

    def __init__(self, path: str, resolved: str, root: str) -> None:
        self.path, self.resolved, self.root = path, resolved, root
        self.suggested_rule = f"Read({resolved})"
        super().__init__(
            f"File access blocked: {path} resolves to {resolved}, outside the project root "
            f"{root}. To allow it, add {self.suggested_rule} to permissions.allow."
        )


def resolve_file_in_project(
    path: str,
    project_root: str,
    allow_outside: Callable[[str], bool] | None = None,
) -> str:
    """The real path of `path` (relative to the project root or absolute) if it may be read.

    Symlinks and `..` are resolved first, so neither can escape the root. A path
    outside the root passes only when `allow_outside(resolved_path)` says so.
    """
    root = os.path.realpath(project_root)
    expanded = os.path.expanduser(path)
    resolved = os.path.realpath(os.path.join(root, expanded))
    inside = resolved == root or resolved.startswith(root.rstrip(os.sep) + os.sep)
    if not inside and not (allow_outside is not None and allow_outside(resolved)):
        raise PathOutsideProjectError(path, resolved, root)
    if not os.path.isfile(resolved):
        reason = "is not a regular file" if os.path.exists(resolved) else "does not exist"
        raise FileAccessError(f"{path} {reason}")
    return resolved
