"""Choosing the files of a directory to index: globs, extensions, depth, .gitignore, symlinks."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass

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
    from ctxmode.project import find_git_root

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


def walk_files(root: str, options: WalkOptions) -> Iterator[tuple[str, str]]:
    """(relative posix path, absolute path) of the files to index, in sorted order."""
    root = os.path.abspath(root)
    seen_dirs: set[str] = set()

    def visit(directory: str, rel: str, depth: int, specs: list) -> Iterator[tuple[str, str]]:
        real = os.path.realpath(directory)
        if real in seen_dirs:  # a symlink loop
            return
        seen_dirs.add(real)
        if options.respect_gitignore:
            spec = _gitignore(directory)
            if spec is not None:
                specs = [*specs, (rel, "", spec)]
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            relpath = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_symlink() and not options.follow_symlinks:
                continue
            if entry.is_dir(follow_symlinks=options.follow_symlinks):
                if entry.name in ALWAYS_SKIPPED_DIRS or depth + 1 > options.max_depth:
                    continue
                if options.exclude and _matches(relpath, options.exclude):
                    continue
                if specs and _ignored(relpath, True, specs):
                    continue
                yield from visit(entry.path, relpath, depth + 1, specs)
            elif entry.is_file(follow_symlinks=options.follow_symlinks):
                if specs and _ignored(relpath, False, specs):
                    continue
                if wanted(relpath, options):
                    yield relpath, entry.path

    yield from visit(root, "", 0, _ancestor_specs(root) if options.respect_gitignore else [])
