"""Indexing: text, streams, files and directories chunked into the knowledge-base tables.

Each source (a unique label) is replaced atomically in one BEGIN IMMEDIATE transaction,
with its secrets filtered first. Files are streamed block by block (a 100 MB log is
never held whole) and re-indexed before a search when their content changed.
"""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

from ctxmode.policy import secrets
from ctxmode.storage import db
from ctxmode.store import merging, packing, terms
from ctxmode.store.chunking import FORMATS, Chunk, iter_chunks, nbytes
from ctxmode.store.records import IndexResult, StoreInputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.store.directory import DirectoryIndexResult

BATCH_CHUNKS = 256
MAX_SOURCE_VOCABULARY = 200_000
READ_BLOCK = 1 << 20
MAX_PENDING_LINE = 1 << 20  # a "line" longer than this is handed on in pieces
REDACT_BLOCK = 64 * 1024  # characters of lines filtered for secrets at once
REDACT_BLOCK_MAX = 4 << 20  # ... or more, to keep a private key in one block
SNIFF_BYTES = 8192
STALE_CHECK_INTERVAL_S = 2.0
# File sources a search checks for changes on disk, round robin: the check costs the same
# at 300 files and at 30,000 (the files of the hits are checked on every search as well).
STALE_CHECK_BATCH = 400
# Project root -> the source id the next round-robin check starts after; per process, as
# the MCP server opens a KnowledgeBase for each call.
_stale_cursor: dict[str | None, int] = {}

MARKDOWN_EXT = frozenset({".md", ".markdown", ".mdx", ".mdown", ".rst", ".adoc"})
JSON_EXT = frozenset({".json", ".jsonc", ".geojson", ".ipynb"})
CODE_EXT = frozenset(
    str.split(
        """.py .pyi .js .mjs .cjs .jsx .ts .tsx .go .rs .java .kt .kts .scala .c .h .cc .cpp .cxx
    .hpp .hh .cs .rb .php .swift .m .mm .sh .bash .zsh .fish .ps1 .lua .sql .r .pl .pm .ex .exs
    .erl .hs .ml .mli .clj .dart .vue .svelte .css .scss .less .html .htm .xml .toml .yaml .yml
    .ini .cfg .gradle .tf .proto .graphql .zig .nim .jl"""
    )
)


def format_for_path(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext in MARKDOWN_EXT:
        return "markdown"
    if ext in JSON_EXT:
        return "json"
    if ext in CODE_EXT:
        return "code"
    return "plain"


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise StoreInputError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def looks_binary(path: str) -> bool:
    with open(path, "rb") as f:
        return b"\x00" in f.read(SNIFF_BYTES)


class _FileStream:
    """Lines of a UTF-8 file read block by block, hashing and counting the bytes as they pass."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sha = hashlib.sha256()
        self.size = 0

    def lines(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        pending = ""
        first = True
        try:
            with open(self.path, "rb") as f:
                while block := f.read(READ_BLOCK):
                    self.sha.update(block)
                    self.size += len(block)
                    if b"\x00" in block:
                        raise StoreInputError(f"{self.path} looks binary (NUL bytes); not indexed")
                    text = pending + decoder.decode(block)
                    if first:
                        text, first = text.removeprefix("\ufeff"), False
                    lines = text.splitlines(keepends=True)
                    pending = lines.pop() if lines and not lines[-1].endswith("\n") else ""
                    if len(pending) > MAX_PENDING_LINE:
                        lines.append(pending)
                        pending = ""
                    yield from lines
                pending += decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise StoreInputError(f"{self.path} is not valid UTF-8 text; not indexed") from None
        if pending:
            yield pending


class _TextStream:
    """Lines of text arriving in pieces, hashed as they pass (the `_FileStream` of strings)."""

    def __init__(self, pieces: Iterable[str]) -> None:
        self.pieces = pieces
        self.sha = hashlib.sha256()

    def lines(self) -> Iterator[str]:
        pending = ""
        for piece in self.pieces:
            piece = piece.replace("\x00", "")
            self.sha.update(piece.encode("utf-8", "replace"))
            lines = (pending + piece).splitlines(keepends=True)
            pending = lines.pop() if lines and not lines[-1].endswith(("\n", "\r")) else ""
            if len(pending) > MAX_PENDING_LINE:
                lines.append(pending)
                pending = ""
            yield from lines
        if pending:
            yield pending


def _redacted_lines(lines: Iterable[str]) -> Iterator[str]:
    """`lines` with secrets filtered, a block of about `REDACT_BLOCK` characters at a time.

    A block never ends inside a private key (up to `REDACT_BLOCK_MAX`), so a key is
    filtered whole however the text arrived and however it is chunked afterwards.
    """
    block: list[str] = []
    size = 0
    in_key = False
    for line in lines:
        block.append(line)
        size += len(line)
        if "PRIVATE KEY" in line:
            in_key = "BEGIN" in line or ("END" not in line and in_key)
        if size >= REDACT_BLOCK and (not in_key or size >= REDACT_BLOCK_MAX):
            yield from secrets.redact("".join(block)).splitlines(keepends=True)
            block, size = [], 0
    if block:
        yield from secrets.redact("".join(block)).splitlines(keepends=True)


def _file_digest(path: str) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(READ_BLOCK):
            sha.update(block)
    return sha.hexdigest()


class Indexing:
    """The indexing half of `KnowledgeBase` (a mixin over its connection)."""

    conn: sqlite3.Connection
    root: str | None
    _last_stale_check: float

    def index_text(
        self,
        label: str,
        text: str,
        fmt: str = "markdown",
        *,
        file_path: str | None = None,
        session_id: str | None = None,
        url: str | None = None,
        redact: bool = True,
    ) -> IndexResult:
        """Index `text` as source `label`, replacing whatever that label held.

        Secrets are filtered from what is stored (`redact`; see `_replace_source`).
        """
        _check_format(fmt)
        if not label or not label.strip():
            raise StoreInputError("a source label is required")
        if not text.strip():
            raise StoreInputError(f"nothing to index for {label!r}: the content is empty")
        if "\x00" in text:
            raise StoreInputError(f"content for {label!r} looks binary (NUL characters)")
        try:
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        except UnicodeEncodeError:
            raise StoreInputError(f"content for {label!r} is not valid Unicode text") from None
        meta = {"fmt": fmt, "file_path": file_path, "url": url, "session_id": session_id}
        lines = text.splitlines(keepends=True)
        return self._replace_source(label, lines, meta, lambda: (digest, None, None), redact)

    def index_stream(
        self,
        label: str,
        pieces: Iterable[str],
        fmt: str = "plain",
        *,
        session_id: str | None = None,
        redact: bool = True,
    ) -> IndexResult:
        """Index text arriving in pieces (a 50 MB command output) without joining it in memory.

        NUL characters are dropped rather than refusing the whole output: a stray binary
        byte in a log must not cost the rest of it. Secrets are filtered (`redact`).
        """
        _check_format(fmt)
        if not label or not label.strip():
            raise StoreInputError("a source label is required")
        stream = _TextStream(pieces)
        meta = {"fmt": fmt, "file_path": None, "url": None, "session_id": session_id}
        return self._replace_source(
            label, stream.lines(), meta, lambda: (stream.sha.hexdigest(), None, None), redact
        )

    def index_file(
        self, path: str, label: str | None = None, *, fmt: str | None = None
    ) -> IndexResult:
        """Index a UTF-8 file (format from its extension), streaming it block by block.

        A file is indexed on request, so its secrets are filtered unless `CTXMODE_REDACT=off`.
        """
        real = os.path.realpath(path)
        if not os.path.exists(real):
            raise StoreInputError(f"no such file: {path}")
        if not os.path.isfile(real):
            raise StoreInputError(f"not a regular file: {path}")
        try:
            stat = os.stat(real)
            binary = looks_binary(real)
        except OSError as exc:
            raise StoreInputError(f"cannot read {path}: {exc.strerror}") from None
        if stat.st_size == 0:
            raise StoreInputError(f"nothing to index: {path} is empty")
        if binary:
            raise StoreInputError(f"{path} looks binary (NUL bytes); not indexed")
        fmt = fmt or format_for_path(real)
        _check_format(fmt)
        label = label or self.default_label(real)
        redact = not secrets.explicit_redaction_off()
        unchanged = self._unchanged(label, real, fmt, redact, stat)
        if unchanged is not None:
            return unchanged
        held = self.conn.execute("SELECT file_path FROM kb_sources WHERE label = ?", (label,))
        previous = (held.fetchone() or (None,))[0]
        stream = _FileStream(real)
        meta = {"fmt": fmt, "file_path": real, "url": None, "session_id": None}
        # Line formats stream block by block; JSON is parsed whole (still read in blocks).
        try:
            result = self._replace_source(
                label,
                stream.lines(),
                meta,
                lambda: (stream.sha.hexdigest(), stat.st_mtime, stream.size),
                redact,
            )
        except OSError as exc:
            raise StoreInputError(f"cannot read {path}: {exc.strerror}") from None
        if previous and previous != real:  # a label given twice: say which file it replaced
            return dataclasses.replace(result, replaced_file=previous)
        return result

    def default_label(self, real: str) -> str:
        """A file's label: its path from the project root, else its absolute path.

        One label per file however its path was spelled (`./a`, `../x/a`, through a folder).
        """
        if self.root and (real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep)):
            return os.path.relpath(real, self.root).replace(os.sep, "/")
        return real

    def _unchanged(
        self, label: str, real: str, fmt: str, redact: bool, stat: os.stat_result
    ) -> IndexResult | None:
        """The stored source when `real` is already indexed as `label` and unchanged since.

        Unchanged means the same size and modification time, as `refresh_stale` judges it;
        the source counts as used, so retention keeps it.
        """
        row = self.conn.execute(
            "SELECT id, chunk_count, code_chunk_count, byte_count FROM kb_sources "
            "WHERE label = ? AND file_path = ? AND fmt = ? AND file_mtime = ? AND file_size = ? "
            "AND redacted = ?",
            (label, real, fmt, stat.st_mtime, stat.st_size, redact),
        ).fetchone()
        if row is None:
            return None
        with db.write_transaction(self.conn):
            self.conn.execute(
                "UPDATE kb_sources SET last_used_at = ? WHERE id = ?", (time.time(), row[0])
            )
        return IndexResult(label, row[1], row[2], row[3], unchanged=True)

    def _replace_source(
        self,
        label: str,
        lines: Iterable[str],
        meta: dict[str, Any],
        fingerprint: Callable[[], tuple[str, float | None, int | None]],
        redact: bool,
    ) -> IndexResult:
        """Chunk `lines` and store them as source `label`; with `redact`, secrets filtered first.

        Every way text comes in passes here, so this is the knowledge base's one filter.
        """
        url = meta["url"]
        if redact:
            lines = _redacted_lines(lines)
            url = url and secrets.redact(url)
        chunks = iter_chunks(lines, meta["fmt"])
        now = time.time()
        conn = self.conn
        with db.write_transaction(conn):
            self._delete(label)
            if meta["file_path"]:  # one source per file: an earlier label of it goes
                self._delete_file_sources(meta["file_path"])
            inserted = conn.execute(
                "INSERT INTO kb_sources(label, fmt, file_path, url, session_id, indexed_at, "
                "last_used_at, redacted) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (label, meta["fmt"], meta["file_path"], url, meta["session_id"], now, now, redact),
            )
            source_id = int(inserted.lastrowid or 0)  # an INSERT's rowid is always set
            count, code, size, words = self._insert_chunks(source_id, chunks)
            if count == 0:
                raise StoreInputError(f"nothing to index for {label!r}: the content is empty")
            conn.execute(
                "INSERT INTO kb_fts(rowid, title, content, terms) "
                "SELECT id, title, content, terms FROM kb_chunks WHERE source_id = ?",
                (source_id,),
            )
            # One statement, the loop in SQLite: new words only (the trigger indexes them).
            conn.execute(
                "INSERT OR IGNORE INTO kb_vocab(word, freq) SELECT value, 1 FROM json_each(?)",
                (words,),
            )
            digest, mtime, file_size = fingerprint()
            conn.execute(
                "UPDATE kb_sources SET chunk_count = ?, code_chunk_count = ?, byte_count = ?, "
                "content_hash = ?, file_mtime = ?, file_size = ? WHERE id = ?",
                (count, code, size, digest, mtime, file_size, source_id),
            )
            merging.note_written(conn, size)
        return IndexResult(label, count, code, size)

    def _insert_chunks(self, source_id: int, chunks: Iterable[Chunk]) -> tuple[int, int, int, str]:
        """Insert the chunks; counts, bytes, and the source's vocabulary as a JSON array."""
        count = code = size = 0
        vocab: set[str] = set()
        iterator = iter(chunks)
        while batch := list(islice(iterator, BATCH_CHUNKS)):
            rows = []
            tokens: set[str] = set()
            for chunk in batch:
                chunk_tokens = set(terms.WORD.findall(chunk.content))
                chunk_tokens.update(terms.WORD.findall(chunk.title))
                parts = terms.identifier_parts_of_tokens(chunk_tokens)
                tokens |= chunk_tokens
                tokens.update(parts)
                content = packing.pack(chunk.content)
                rows.append((source_id, chunk.title, content, " ".join(parts), chunk.kind))
                count += 1
                code += chunk.kind == "code"
                size += nbytes(chunk.content)
            self.conn.executemany(
                "INSERT INTO kb_chunk_rows(source_id, title, content, terms, kind) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            if len(vocab) < MAX_SOURCE_VOCABULARY:  # bounded: a huge log stays cheap to hold
                vocab |= terms.vocabulary_of_tokens(tokens)
        return count, code, size, json.dumps(sorted(vocab))

    def index_directory(self, path: str, **options: Any) -> DirectoryIndexResult:
        """Index each chosen file under `path` as its own source (see `store.directory`)."""
        from ctxmode.store.directory import index_directory  # pathspec: only when needed

        return index_directory(self, path, **options)

    def _delete(self, label: str) -> bool:
        """Remove a source and its chunks (inside the caller's transaction)."""
        row = self.conn.execute("SELECT id FROM kb_sources WHERE label = ?", (label,)).fetchone()
        if row is None:
            return False
        self.conn.execute(
            "INSERT INTO kb_fts(kb_fts, rowid, title, content, terms) "
            "SELECT 'delete', id, title, content, terms FROM kb_chunks WHERE source_id = ?",
            (row[0],),
        )
        self.conn.execute("DELETE FROM kb_chunk_rows WHERE source_id = ?", (row[0],))
        self.conn.execute("DELETE FROM kb_sources WHERE id = ?", (row[0],))
        return True

    def _delete_file_sources(self, real: str) -> None:
        """Remove every source of the file `real` (inside the caller's transaction)."""
        rows = self.conn.execute("SELECT label FROM kb_sources WHERE file_path = ?", (real,))
        for (label,) in rows.fetchall():
            self._delete(label)

    def refresh_stale(self, batch: int | None = None) -> int:
        """Re-index file sources whose content changed on disk; how many were re-indexed.

        With `batch`, only that many, continuing where the last batch stopped."""
        select = (
            "SELECT id, label, file_path, fmt, content_hash, file_mtime, file_size "
            "FROM kb_sources WHERE file_path IS NOT NULL"
        )
        if batch is None:
            rows = self.conn.execute(select).fetchall()
        else:
            after = _stale_cursor.get(self.root, 0)
            rows = self.conn.execute(
                f"{select} AND id > ? ORDER BY id LIMIT ?", (after, batch)
            ).fetchall()
            _stale_cursor[self.root] = rows[-1]["id"] if len(rows) == batch else 0
        return sum(self._refresh_file(row) for row in rows)

    def refresh_labels(self, labels: set[str]) -> int:
        """`refresh_stale` for the file sources named in `labels` only."""
        if not labels:
            return 0
        marks = ",".join("?" * len(labels))
        rows = self.conn.execute(
            "SELECT id, label, file_path, fmt, content_hash, file_mtime, file_size "
            f"FROM kb_sources WHERE file_path IS NOT NULL AND label IN ({marks})",
            sorted(labels),
        ).fetchall()
        return sum(self._refresh_file(row) for row in rows)

    def _refresh_file(self, row: sqlite3.Row) -> bool:
        """Re-index one file source if its content changed on disk; whether it was."""
        try:
            stat = os.stat(row["file_path"])
        except OSError:
            return False  # gone or unreadable: keep what we know
        if stat.st_mtime == row["file_mtime"] and stat.st_size == row["file_size"]:
            return False
        try:
            if _file_digest(row["file_path"]) == row["content_hash"]:
                with db.write_transaction(self.conn):
                    self.conn.execute(
                        "UPDATE kb_sources SET file_mtime = ?, file_size = ? WHERE id = ?",
                        (stat.st_mtime, stat.st_size, row["id"]),
                    )
                return False
            self.index_file(row["file_path"], row["label"], fmt=row["fmt"])
        except (OSError, StoreInputError):
            return False
        return True

    def _maybe_refresh(self) -> None:
        now = time.monotonic()
        if now - self._last_stale_check >= STALE_CHECK_INTERVAL_S:
            self._last_stale_check = now
            self.refresh_stale(STALE_CHECK_BATCH)
