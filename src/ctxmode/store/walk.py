"""Choosing the files of a directory to index: globs, extensions, depth, .gitignore, symlinks."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import pathspec

# Never worth indexing, whatever .gitignore says.
ALWAYS_SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".idea",
        ".DS_Store",
    }
)


# Why a file (or a directory) was left out; the keys of `--json` output.
GITIGNORED = "gitignored"
TOOL_DIR = "tool_directory"
TOO_DEEP = "too_deep"
FILTERED = "filtered"
SYMLINK = "symlink"
UNREADABLE = "unreadable"
BINARY = "binary"
EMPTY = "empty"
OVER_MAX_FILES = "over_max_files"
OVER_MAX_BYTES = "over_max_bytes"
FAILED = "failed"
LARGEST_KEPT = 5


@dataclass
class Skipped:
    """The entries left out for one reason: how many, their bytes, the largest few."""

    count: int = 0
    byte_count: int = 0
    largest: list[tuple[int, str]] = field(default_factory=list)  # (size, path), biggest first
    messages: list[tuple[str, str]] = field(default_factory=list)  # (path, why), the first few


class SkipTally(dict[str, Skipped]):
    """Skipped entries by reason."""

    def add(self, reason: str, path: str, size: int = 0, message: str | None = None) -> None:
        entry = self.setdefault(reason, Skipped())
        entry.count += 1
        entry.byte_count += size
        if len(entry.largest) < LARGEST_KEPT or size > entry.largest[-1][0]:
            ranked = sorted([*entry.largest, (size, path)], key=lambda item: -item[0])
            entry.largest = ranked[:LARGEST_KEPT]  # ties keep the first seen (sorted walk)
        if message and len(entry.messages) < 10:
            entry.messages.append((path, message))

    def count(self, reason: str) -> int:
        return self[reason].count if reason in self else 0


@dataclass(frozen=True)
class WalkOptions:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()  # lower-case, with the dot
    max_depth: int = 5
    respect_gitignore: bool = True
    follow_symlinks: bool = False


def _matches(relpath: str, patterns: tuple[str, ...]) -> bool:
    name = relpath.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(relpath, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _gitignore(directory: str) -> pathspec.GitIgnoreSpec | None:
    path = os.path.join(directory, ".gitignore")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return pathspec.GitIgnoreSpec.from_lines(f)
    except OSError:
        return None


# (base directory inside the walked root, path of the root seen from the .gitignore's
# directory when that lies above the root, the rules)
IgnoreSpec = tuple[str, str, pathspec.GitIgnoreSpec]


def _ignored(relpath: str, is_dir: bool, specs: list[IgnoreSpec]) -> bool:
    """Whether any .gitignore from the repository root down to this entry's directory ignores it."""
    for base, outer, spec in specs:
        sub = outer + (relpath[len(base) + 1 :] if base else relpath)
        if spec.match_file(sub + ("/" if is_dir else "")):
            return True
    return False


def _ancestor_specs(root: str) -> list[IgnoreSpec]:
    """The .gitignore files between the git repository's root and the walked directory.

    Indexing `docs/` of a repository must honour the repository's top-level .gitignore, as
    git does; outside a repository only the walked tree's own files count.
    """
    from ctxmode.storage.project import find_git_root

    top = find_git_root(root)
    if top is None or top == root:
        return []
    specs: list[IgnoreSpec] = []
    directory = top
    for part in os.path.relpath(root, top).split(os.sep):
        spec = _gitignore(directory)
        if spec is not None:
            specs.append(("", os.path.relpath(root, directory).replace(os.sep, "/") + "/", spec))
        directory = os.path.join(directory, part)
    return specs


def wanted(relpath: str, options: WalkOptions) -> bool:
    """Whether a file passes the include/exclude globs and the extension filter."""
    if options.extensions and os.path.splitext(relpath)[1].lower() not in options.extensions:
        return False
    if options.include and not _matches(relpath, options.include):
        return False
    return not (options.exclude and _matches(relpath, options.exclude))


def git_listing(root: str) -> set[str] | None:
    """The files git would keep under `root` (tracked, or untracked and not ignored), as
    posix paths relative to it; None outside a work tree or when git cannot answer.

    Git's own view covers what a parse of `.gitignore` misses: the global excludes file,
    `.git/info/exclude`, and tracked files that a later rule would ignore.
    """
    import subprocess

    try:
        listed = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, timeout=60, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return {os.fsdecode(path) for path in listed.split(b"\0") if path}


def _parents(files: set[str]) -> set[str]:
    dirs = set()
    for path in files:
        while "/" in path:
            path = path.rsplit("/", 1)[0]
            if path in dirs:
                break
            dirs.add(path)
    return dirs


def walk_files(
    root: str, options: WalkOptions, skipped: SkipTally | None = None
) -> Iterator[tuple[str, str, int]]:
    """(relative posix path, absolute path, size) of the files to index, in sorted order.

    Whatever is left out is counted in `skipped` by reason; a directory left out counts
    once, with its path and no size (its files are never listed, which keeps the walk cheap).
    """
    root = os.path.abspath(root)
    tally = skipped if skipped is not None else SkipTally()
    listed = git_listing(root) if options.respect_gitignore else None
    listed_dirs = _parents(listed) if listed is not None else set()
    seen_dirs: set[str] = set()

    def dir_skip(relpath: str, depth: int, specs: list) -> str | None:
        if relpath.rsplit("/", 1)[-1] in ALWAYS_SKIPPED_DIRS:
            return TOOL_DIR
        if listed is not None and relpath not in listed_dirs:
            return GITIGNORED
        if listed is None and specs and _ignored(relpath, True, specs):
            return GITIGNORED
        if depth + 1 > options.max_depth:
            return TOO_DEEP
        return FILTERED if options.exclude and _matches(relpath, options.exclude) else None

    def file_skip(relpath: str, specs: list) -> str | None:
        if relpath.rsplit("/", 1)[-1] in ALWAYS_SKIPPED_DIRS:  # a worktree's .git file, .DS_Store
            return TOOL_DIR
        if listed is not None and relpath not in listed:
            return GITIGNORED
        if listed is None and specs and _ignored(relpath, False, specs):
            return GITIGNORED
        return None if wanted(relpath, options) else FILTERED

    def visit(directory: str, rel: str, depth: int, specs: list) -> Iterator[tuple[str, str, int]]:
        real = os.path.realpath(directory)
        if real in seen_dirs:  # a symlink loop
            return
        seen_dirs.add(real)
        if options.respect_gitignore and listed is None:
            spec = _gitignore(directory)
            if spec is not None:
                specs = [*specs, (rel, "", spec)]
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            tally.add(UNREADABLE, rel or ".", 0, exc.strerror)
            return
        for entry in entries:
            relpath = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_symlink() and not options.follow_symlinks:
                tally.add(SYMLINK, relpath)
            elif entry.is_dir(follow_symlinks=options.follow_symlinks):
                reason = dir_skip(relpath, depth, specs)
                if reason:
                    tally.add(reason, relpath + "/")
                else:
                    yield from visit(entry.path, relpath, depth + 1, specs)
            elif entry.is_file(follow_symlinks=options.follow_symlinks):
                try:
                    size = entry.stat(follow_symlinks=options.follow_symlinks).st_size
                except OSError as exc:
                    tally.add(UNREADABLE, relpath, 0, exc.strerror)
                    continue
                reason = file_skip(relpath, specs)
                if reason:
                    tally.add(reason, relpath, size)
                else:
                    yield relpath, entry.path, size

    use_ancestors = options.respect_gitignore and listed is None
    yield from visit(root, "", 0, _ancestor_specs(root) if use_ancestors else [])
