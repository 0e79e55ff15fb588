"""Big reads: a file over the read threshold is indexed whole before the model is told so.

Up to SYNC_INDEX_BYTES the hook indexes it itself (a few hundred milliseconds, on a path
taken only by big reads), so the model's very next search finds it. A bigger file would
take longer than a hook may: the hook starts a detached indexer (the fast interpreter
form, its own session, stdio on /dev/null) and returns. The label is the file's path relative to the project root, as `ctx_index` would
name it, so a later `ctx_index` of the same file replaces rather than duplicates it.
Hook path: standard library only.
"""

from __future__ import annotations

import os

from ctxmode import paths, settings

WINDOW_LINES = 300  # lines a bounded read shows
SYNC_INDEX_BYTES = 2_000_000


def read_threshold() -> int:
    return settings.integer(settings.READ_THRESHOLD)


def read_path(tool_input: dict) -> str:
    """The file a read names, under whichever argument name its host gives it."""
    for key in ("file_path", "path", "absolute_path", "AbsolutePath", "FilePath"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def project_file(path: str, cwd: str) -> tuple[str, str, int] | None:
    """(real path, project root, size) of the regular file `path` (relative to `cwd`)
    when it lies within the project `cwd` is in; None for anything else."""
    from ctxmode.policy.containment import resolve_within
    from ctxmode.storage import project

    if not path:
        return None
    root = project.resolve_project_root(cwd or None)
    try:
        real = resolve_within(root, resolve(path, cwd))
        info = os.stat(real)
    except (OSError, ValueError):  # outside the project (PathOutsideProject), gone, unreadable
        return None
    return (real, root, info.st_size) if (info.st_mode & 0o170000) == 0o100000 else None


def file_label(real_path: str, project_root: str) -> str:
    """The path relative to the project root ('/'-separated), else the absolute path."""
    root = project_root.rstrip(os.sep)
    if real_path.startswith(root + os.sep):
        return os.path.relpath(real_path, root).replace(os.sep, "/")
    return real_path


def index_file(real_path: str, project_root: str, label: str, size: int) -> bool:
    """Index now, or start the detached indexer for a big file; False (logged) on failure."""
    if size <= SYNC_INDEX_BYTES:
        from ctxmode.store.background import index_file as index_now

        return index_now(project_root, real_path, label)
    return start_indexing(real_path, project_root, label)


def ensure_indexed(real_path: str, project_root: str, label: str, size: int) -> bool:
    """Whether the file is in its project's knowledge base (looked up; else indexed now, or
    being indexed by the detached indexer); False (logged) when it could not be."""
    try:
        from ctxmode.store.knowledge import KnowledgeBase

        with KnowledgeBase.open(project_root) as kb:
            if kb.get_source(label) is not None:
                return True
    except Exception as error:  # an unusable store: say nothing rather than something false
        paths.append_log("hook-errors.log", f"cannot look up {label}: {error!r}")
        return False
    return index_file(real_path, project_root, label, size)


def start_indexing(real_path: str, project_root: str, label: str) -> bool:
    """Spawn the detached indexer; False (logged) if it could not start."""
    from ctxmode.launch import fast_module_argv

    argv = fast_module_argv("ctxmode.store.background", [project_root, real_path, label])
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        os.posix_spawn(
            argv[0],
            argv,
            os.environ,
            file_actions=[(os.POSIX_SPAWN_DUP2, devnull, fd) for fd in (0, 1, 2)],
            setsid=True,  # outlives the hook, and the host's kill of the hook's group
        )
    except OSError as error:
        paths.append_log("hook-errors.log", f"cannot start indexing {real_path}: {error!r}")
        return False
    finally:
        os.close(devnull)
    return True


def resolve(path: str, base: str) -> str:
    """`path` (relative ones against `base`) with symlinks resolved."""
    return os.path.realpath(path if os.path.isabs(path) or not base else os.path.join(base, path))
