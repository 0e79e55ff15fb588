"""Which project a call belongs to, and the database file that holds it.

Standard library only (the hook path resolves projects). The project root is the
explicit one, else `CTXMODE_PROJECT_DIR`, else the git root above the current
directory (a `.git` directory or, for worktrees, a `.git` file), else the
directory itself. Each git worktree has its own root, so its own database.
"""

from __future__ import annotations

import os
import sys

from ctxmode import paths, settings


def find_git_root(start: str) -> str | None:
    """The nearest directory at or above `start` holding a `.git` entry."""
    current = start
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def resolve_project_root(explicit: str | None = None, cwd: str | None = None) -> str:
    """The resolved (symlink-free, absolute) project root for this call."""
    chosen = explicit or settings.text(settings.PROJECT_DIR)
    base = os.path.realpath(cwd or os.getcwd())
    if chosen:
        return os.path.realpath(os.path.join(base, os.path.expanduser(chosen)))
    return find_git_root(base) or base


def sha256_hex(data: bytes) -> str:
    """The C sha256 without `hashlib`, whose import loads OpenSSL (2-4 ms on each hook call
    that resolves a project or keys a session event)."""
    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]
        else:
            from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # a build without the C module
        from hashlib import sha256
    digest: str = sha256(data).hexdigest()
    return digest


def project_key(root: str) -> str:
    """Stable 16-hex key for a resolved project root."""
    normalized = root.replace("\\", "/").rstrip("/") or "/"
    if os.name == "nt" or sys.platform == "darwin":
        normalized = normalized.lower()
    return sha256_hex(normalized.encode("utf-8"))[:16]


def project_db_path(root: str) -> str:
    """`<data root>/projects/<key>.db` for a resolved project root."""
    return os.path.join(paths.projects_dir(), project_key(root) + ".db")
