"""Indexing a directory: choose its files within a byte budget, index each, count what was left out.

Nothing is left out silently: every file the walk passes over, and every file that does
not fit the budget or cannot be indexed, is counted under its reason (`walk.SkipTally`)
so a caller can say what was skipped and why before it finishes.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ctxmode import settings
from ctxmode.errors import CtxmodeError, was_interrupted
from ctxmode.stats import size_text
from ctxmode.store import walk
from ctxmode.store.indexing import looks_binary
from ctxmode.store.records import IndexResult, StoreInputError

if TYPE_CHECKING:
    from ctxmode.store.indexing import Indexing

# How a reason reads after "N skipped, ".
REASON_TEXT = {
    walk.GITIGNORED: "ignored by .gitignore",
    walk.TOOL_DIR: "tool files and directories (.git, node_modules, ...)",
    walk.TOO_DEEP: "deeper than the depth limit",
    walk.FILTERED: "not matching the extension/include/exclude filters",
    walk.SYMLINK: "symbolic link, not followed",
    walk.UNREADABLE: "unreadable",
    walk.BINARY: "binary",
    walk.EMPTY: "empty",
    walk.OVER_MAX_FILES: "over the file limit",
    walk.OVER_MAX_BYTES: "over the byte budget",
    walk.FAILED: "failed to index",
}


@dataclass
class DirectoryIndexResult:
    label_prefix: str  # the caller's prefix ("<prefix>:<relpath>"), else the folder's own label
    explicit_prefix: bool = False  # False: each file is labelled by its path, as when alone
    indexed: int = 0
    unchanged: int = 0  # files indexed before and unchanged since: skipped, still searchable
    planned: int = 0  # files chosen to index (an interrupted run did fewer)
    replaced: list[tuple[str, str]] = field(default_factory=list)  # (label, file it held)
    chunk_count: int = 0
    code_chunk_count: int = 0
    byte_count: int = 0  # bytes stored
    read_bytes: int = 0  # bytes of the files indexed
    max_bytes: int = 0  # the budget this run had
    results: list[IndexResult] = field(default_factory=list)
    skipped: walk.SkipTally = field(default_factory=walk.SkipTally)

    @property
    def source_filter(self) -> str:
        """The `source` filter that finds this folder's files ("" at the project root)."""
        if self.explicit_prefix:
            return self.label_prefix
        return "" if self.label_prefix == "." else self.label_prefix.rstrip("/") + "/"

    @property
    def labels_text(self) -> str:
        """How the sources are named, for a reply: `docs/<file>` or `api:<file>`."""
        if self.explicit_prefix:
            return f"{self.label_prefix}:<file>"
        return f"{self.source_filter}<file>" if self.source_filter else "<path in the project>"

    @property
    def skipped_binary(self) -> int:
        return self.skipped.count(walk.BINARY)

    @property
    def failed(self) -> int:
        return self.skipped.count(walk.FAILED)

    @property
    def capped(self) -> int:
        return self.skipped.count(walk.OVER_MAX_FILES) + self.skipped.count(walk.OVER_MAX_BYTES)

    @property
    def errors(self) -> list[tuple[str, str]]:
        failed = self.skipped.get(walk.FAILED)
        return list(failed.messages) if failed else []

    def as_json(self) -> dict[str, object]:
        skipped = {
            reason: {
                "count": entry.count,
                "bytes": entry.byte_count,
                "largest": [{"path": path, "bytes": size} for size, path in entry.largest],
                **({"errors": dict(entry.messages)} if entry.messages else {}),
            }
            for reason, entry in self.skipped.items()
        }
        return {
            "label_prefix": self.label_prefix,
            "indexed_files": self.indexed,
            "unchanged_files": self.unchanged,
            "replaced": [{"label": label, "was": held} for label, held in self.replaced],
            "indexed_bytes": self.read_bytes,
            "max_bytes": self.max_bytes,
            "sections": self.chunk_count,
            "code_sections": self.code_chunk_count,
            "stored_bytes": self.byte_count,
            "skipped": skipped,
        }


def skipped_lines(result: DirectoryIndexResult) -> list[str]:
    """One line per reason something was left out: how many, and the largest examples."""
    lines = []
    for reason, entry in sorted(result.skipped.items(), key=lambda item: -item[1].count):
        examples = ", ".join(
            f"{path} ({size_text(size)})" if size else path for size, path in entry.largest
        )
        size = f" ({size_text(entry.byte_count)})" if entry.byte_count else ""
        lines.append(f"{entry.count} skipped, {REASON_TEXT[reason]}{size}: {examples}")
        lines.extend(f"  {path}: {message}" for path, message in entry.messages)
    return lines


class IndexingInterrupted(CtxmodeError, KeyboardInterrupt):
    """Ctrl-C during a directory: the files done so far are indexed whole, the rest not at all.

    Still a KeyboardInterrupt, so whatever stops on Ctrl-C stops on it too."""

    def __init__(self, result: DirectoryIndexResult) -> None:
        super().__init__()
        self.result = result


def replaced_lines(result: DirectoryIndexResult) -> list[str]:
    """What an explicit prefix given to two folders cost: the labels that changed file."""
    if not result.replaced:
        return []
    label, held = result.replaced[0]
    return [
        f"{len(result.replaced)} sources held files of another folder until now and were "
        f"replaced (e.g. {label} was {held}): give each folder its own --source, or none"
    ]


def select_files(
    root: str,
    options: walk.WalkOptions,
    max_bytes: int,
    max_files: int | None,
    skipped: walk.SkipTally,
) -> list[tuple[str, str, int]]:
    """The walked files that fit the budget, in walk order; the rest counted in `skipped`.

    A file too big for what is left of the budget is skipped and the walk goes on: smaller
    files after it still fit, and the report names the big ones to exclude or allow.
    """
    chosen: list[tuple[str, str, int]] = []
    total = 0
    for relpath, abspath, size in walk.walk_files(root, options, skipped):
        if size == 0:
            skipped.add(walk.EMPTY, relpath)
            continue
        try:
            binary = looks_binary(abspath)
        except OSError as exc:
            skipped.add(walk.UNREADABLE, relpath, size, exc.strerror)
            continue
        if binary:  # before the budget: a binary never costs it anything
            skipped.add(walk.BINARY, relpath, size)
        elif max_files is not None and len(chosen) >= max_files:
            skipped.add(walk.OVER_MAX_FILES, relpath, size)
        elif total + size > max_bytes:
            skipped.add(walk.OVER_MAX_BYTES, relpath, size)
        else:
            chosen.append((relpath, abspath, size))
            total += size
    return chosen


def index_directory(
    kb: Indexing,
    path: str,
    *,
    label_prefix: str | None = None,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    max_depth: int = 5,
    max_files: int | None = None,
    max_bytes: int | None = None,
    extensions: list[str] | None = None,
    respect_gitignore: bool = True,
    follow_symlinks: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> DirectoryIndexResult:
    """Index each chosen file under `path` as its own source "<prefix>:<relpath>".

    Without `label_prefix` a file is labelled by its path (`KnowledgeBase.default_label`),
    as when indexed alone, so two folders of the same name never share labels. A file
    unchanged since it was last indexed is skipped and counted. `max_bytes` (default: the
    `CTXMODE_INDEX_MAX_BYTES` setting) bounds the bytes read; `progress(done_bytes,
    total_bytes)` is called after each file. Each file is one transaction: a Ctrl-C raises
    `IndexingInterrupted` carrying what was done, and leaves no file half indexed.
    """
    real = os.path.realpath(path)
    if not os.path.isdir(real):
        raise StoreInputError(f"no such directory: {path}")
    exts = tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in extensions or ())
    options = walk.WalkOptions(
        tuple(include or ()), tuple(exclude or ()), exts, max_depth, respect_gitignore,
        follow_symlinks,
    )  # fmt: skip
    budget = settings.integer(settings.INDEX_MAX_BYTES) if max_bytes is None else max_bytes
    prefix = label_prefix or kb.default_label(real)
    result = DirectoryIndexResult(prefix, bool(label_prefix), max_bytes=budget)
    files = select_files(real, options, budget, max_files, result.skipped)
    result.planned = len(files)
    total, done = sum(size for _, _, size in files), 0
    try:
        for relpath, abspath, size in files:
            _index_one(kb, abspath, relpath, size, result)
            done += size
            if progress:
                progress(done, total)
    except KeyboardInterrupt:
        raise IndexingInterrupted(result) from None
    except sqlite3.OperationalError:
        if was_interrupted():  # the Ctrl-C landed in Python code SQLite was running
            raise IndexingInterrupted(result) from None
        raise
    return result


def _index_one(
    kb: Indexing, abspath: str, relpath: str, size: int, out: DirectoryIndexResult
) -> None:
    label = f"{out.label_prefix}:{relpath}" if out.explicit_prefix else None
    try:
        indexed = kb.index_file(abspath, label)
    except (StoreInputError, OSError) as exc:
        reason = walk.BINARY if "binary" in str(exc) else walk.FAILED
        out.skipped.add(reason, relpath, size, None if reason == walk.BINARY else str(exc))
        return
    if indexed.unchanged:
        out.unchanged += 1
        return
    if indexed.replaced_file:
        out.replaced.append((indexed.label, indexed.replaced_file))
    out.indexed += 1
    out.read_bytes += size
    out.results.append(indexed)
    out.chunk_count += indexed.chunk_count
    out.code_chunk_count += indexed.code_chunk_count
    out.byte_count += indexed.byte_count
