"""Which commands printed more than the wrapper's threshold before, in this project.

A host that would spend a model turn on a wrap (it can only deny with the command to
run instead) wraps only what is predicted to be bulky; a command that was bulky here
once is predicted to be bulky the next time. The wrapper and Tier 2 know an output's
size and `record` the command; the hook `load`s the list before each shell call.

One small text file per project beside its database (`<key>.bulky`), one command per
line (`bulky.history_key`), newest last, at most KEEP lines: the hook reads it with
plain file I/O, no SQLite.
"""

from __future__ import annotations

import os

from ctxmode import paths
from ctxmode.storage import project

KEEP = 300
MAX_READ_BYTES = 64 * 1024
MAX_COMMAND_CHARS = 200  # KEEP lines of it fit MAX_READ_BYTES


def history_path(project_dir: str) -> str:
    root = project.resolve_project_root(project_dir or None)
    return os.path.join(paths.projects_dir(), project.project_key(root) + ".bulky")


def load(project_dir: str) -> frozenset[str]:
    """The commands recorded for the project (empty when none or unreadable)."""
    try:
        with open(history_path(project_dir), "rb") as handle:
            data = handle.read(MAX_READ_BYTES)
    except (OSError, ValueError):
        return frozenset()
    return frozenset(data.decode("utf-8", "replace").splitlines())


def record(project_dir: str, command: str) -> None:
    """Remember `command` as bulky in its project; never raises (logged instead)."""
    from ctxmode.hooks.bulky import history_key

    key = history_key(command)
    if not key or len(key) > MAX_COMMAND_CHARS or "\n" in key:
        return
    try:
        path = history_path(project_dir)
        known = load(project_dir)
        if key in known:
            return
        paths.ensure_dir(os.path.dirname(path))
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(key + "\n")
        if len(known) >= KEEP:
            _trim(path)
    except Exception as error:
        paths.append_log("hook-errors.log", f"recording a bulky command failed: {error!r}")


def _trim(path: str) -> None:
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    paths.write_atomic(path, "".join(line + "\n" for line in lines[-KEEP // 2 :]))
