"""Keep file access inside the project: resolve a path and refuse it if it escapes the root.

`resolve_within(root, "../x")` resolves `..` and symlinks (relative paths against the
project root, `~` expanded) and raises `PathOutsideProject` when the real location is not
the root or below it. Comparison ignores case on macOS and Windows, whose default file
systems do. Standard library only.
"""

from __future__ import annotations

import os
import sys

from ctxmode.errors import CtxmodeError

_CASE_INSENSITIVE = sys.platform in ("darwin", "win32")


class PathOutsideProject(CtxmodeError, ValueError):
    """A path resolves outside the project root; the message says how to allow it."""

    def __init__(self, candidate: str, resolved: str, project_root: str) -> None:
        self.candidate = candidate
        self.resolved = resolved
        self.project_root = project_root
        rule = "Read(/" + resolved.replace("\\", "/") + ")"
        super().__init__(
            f"{candidate!r} resolves to {resolved!r}, outside the project {project_root!r}."
            f' To allow it, add "{rule}" to permissions.allow in .claude/settings.json.'
        )


def resolve_within(project_root: str, candidate: str) -> str:
    """The real absolute path of `candidate`; PathOutsideProject if it escapes the root."""
    if "\0" in candidate:
        raise ValueError(f"path contains a NUL character: {candidate!r}")
    root = os.path.realpath(project_root)
    path = os.path.expanduser(candidate)
    resolved = os.path.realpath(path if os.path.isabs(path) else os.path.join(root, path))
    if not is_within(root, resolved):
        raise PathOutsideProject(candidate, resolved, root)
    return resolved


def is_within(root: str, path: str) -> bool:
    """Whether absolute `path` is `root` or below it (lexically; resolve both first)."""
    root, path = _fold(root), _fold(path)
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def _fold(path: str) -> str:
    path = os.path.normpath(path)
    if os.name == "nt":
        return os.path.normcase(path)
    return path.lower() if _CASE_INSENSITIVE else path
