"""The knowledge base: index text, files and directories into a project's SQLite file; search it.

Each source (a unique label) is replaced atomically in one BEGIN IMMEDIATE
transaction. Files are streamed block by block (a 100 MB log is never held whole),
re-indexed on the next search when their content changed, and every source is kept
until it has gone unused for the retention period (`prune`), never by file age.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import math
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from ctxmode import db, schema
from ctxmode.errors import CtxmodeError
from ctxmode.policy import secrets
from ctxmode.store import search as searching
from ctxmode.store import snippets, terms
from ctxmode.store.chunking import FORMATS, Chunk, iter_chunks, nbytes

BATCH_CHUNKS = 256
MAX_SOURCE_VOCABULARY = 200_000
READ_BLOCK = 1 << 20
MAX_PENDING_LINE = 1 << 20  # a "line" longer than this is handed on in pieces
REDACT_BLOCK = 64 * 1024  # characters of lines filtered for secrets at once
REDACT_BLOCK_MAX = 4 << 20  # ... or more, to keep a private key in one block
SNIFF_BYTES = 8192
STALE_CHECK_INTERVAL_S = 2.0
LAST_USED_RESOLUTION_S = 60.0

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


TERMS_SAMPLE_CHUNKS = 2_000  # chunks read to find a source's distinctive terms


class StoreInputError(CtxmodeError, ValueError):
    """Input the knowledge base refuses (missing, empty, binary, not UTF-8); nothing changed."""


@dataclass(frozen=True)
class IndexResult:
    label: str
    chunk_count: int
    code_chunk_count: int
    byte_count: int


@dataclass
class DirectoryIndexResult:
    label_prefix: str
    indexed: int = 0
    skipped_binary: int = 0
    failed: int = 0
    capped: int = 0  # files left out because of max_files
    chunk_count: int = 0
    code_chunk_count: int = 0
    byte_count: int = 0
    results: list[IndexResult] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (relative path, message)


@dataclass(frozen=True)
class Hit:
    source: str
    title: str
    snippet: str
    content_type: str
    indexed_at: float
    score: float
    chunk_id: int


@dataclass(frozen=True)
class QueryResult:
    query: str
    hits: list[Hit]
    corrected_query: str | None = None


@dataclass(frozen=True)
class SourceInfo:
    label: str
    file_path: str | None
    url: str | None
    chunk_count: int
    code_chunk_count: int
    byte_count: int
    indexed_at: float
    last_used_at: float


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


def _sniff_binary(path: str) -> bool:
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


def _source_info(row: sqlite3.Row) -> SourceInfo:
    return SourceInfo(
        row["label"],
        row["file_path"],
        row["url"],
        row["chunk_count"],
        row["code_chunk_count"],
        row["byte_count"],
        row["indexed_at"],
        row["last_used_at"],
    )


class KnowledgeBase:
    """Sources, chunks and search over one project database connection."""

    def __init__(self, conn: sqlite3.Connection, *, owns_connection: bool = False) -> None:
        self.conn = conn
        self._owns = owns_connection
        self._last_stale_check = 0.0
        # 8 MB: page reads stay rare, and a 50 MB output indexed in one transaction does
        # not grow the process by a page cache four times that size.
        conn.execute("PRAGMA cache_size = -8192")
        conn.execute("PRAGMA temp_store = MEMORY")
        row = conn.execute("SELECT value FROM meta WHERE key = 'project_root'").fetchone()
        self.root: str | None = row[0] if row else None

    @classmethod
    def open(cls, project_root: str) -> KnowledgeBase:
        return cls(schema.open_project_db(project_root), owns_connection=True)

    def close(self) -> None:
        if self._owns:
            self.conn.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ indexing

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
            binary = _sniff_binary(real)
        except OSError as exc:
            raise StoreInputError(f"cannot read {path}: {exc.strerror}") from None
        if stat.st_size == 0:
            raise StoreInputError(f"nothing to index: {path} is empty")
        if binary:
            raise StoreInputError(f"{path} looks binary (NUL bytes); not indexed")
        fmt = fmt or format_for_path(real)
        _check_format(fmt)
        label = label or self._default_label(real)
        stream = _FileStream(real)
        meta = {"fmt": fmt, "file_path": real, "url": None, "session_id": None}
        # Line formats stream block by block; JSON is parsed whole (still read in blocks).
        try:
            return self._replace_source(
                label,
                stream.lines(),
                meta,
                lambda: (stream.sha.hexdigest(), stat.st_mtime, stream.size),
                not secrets.explicit_redaction_off(),
            )
        except OSError as exc:
            raise StoreInputError(f"cannot read {path}: {exc.strerror}") from None

    def _default_label(self, real: str) -> str:
        if self.root and (real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep)):
            return os.path.relpath(real, self.root).replace(os.sep, "/")
        return real

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
            source_id = conn.execute(
                "INSERT INTO kb_sources(label, fmt, file_path, url, session_id, indexed_at, "
                "last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (label, meta["fmt"], meta["file_path"], url, meta["session_id"], now, now),
            ).lastrowid
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
                rows.append((source_id, chunk.title, chunk.content, " ".join(parts), chunk.kind))
                count += 1
                code += chunk.kind == "code"
                size += nbytes(chunk.content)
            self.conn.executemany(
                "INSERT INTO kb_chunks(source_id, title, content, terms, kind) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            if len(vocab) < MAX_SOURCE_VOCABULARY:  # bounded: a huge log stays cheap to hold
                vocab |= terms.vocabulary_of_tokens(tokens)
        return count, code, size, json.dumps(sorted(vocab))

    def index_directory(
        self,
        path: str,
        *,
        label_prefix: str | None = None,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
        max_depth: int = 5,
        max_files: int = 200,
        extensions: list[str] | None = None,
        respect_gitignore: bool = True,
        follow_symlinks: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> DirectoryIndexResult:
        """Index each wanted file under `path` as its own source "<prefix>:<relpath>"."""
        from ctxmode.store.walk import WalkOptions, walk_files  # pathspec: only when needed

        real = os.path.realpath(path)
        if not os.path.isdir(real):
            raise StoreInputError(f"no such directory: {path}")
        exts = tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in extensions or ())
        options = WalkOptions(
            tuple(include or ()),
            tuple(exclude or ()),
            exts,
            max_depth,
            respect_gitignore,
            follow_symlinks,
        )
        prefix = label_prefix or os.path.basename(real.rstrip(os.sep)) or real
        result = DirectoryIndexResult(prefix)
        files = list(islice(walk_files(real, options), max_files + 1))
        if len(files) > max_files:
            result.capped = sum(1 for _ in walk_files(real, options)) - max_files
            files = files[:max_files]
        for done, (relpath, abspath) in enumerate(files, 1):
            self._index_one(abspath, relpath, prefix, result)
            if progress:
                progress(done, len(files))
        return result

    def _index_one(
        self, abspath: str, relpath: str, prefix: str, out: DirectoryIndexResult
    ) -> None:
        try:
            if _sniff_binary(abspath):
                out.skipped_binary += 1
                return
            indexed = self.index_file(abspath, f"{prefix}:{relpath}")
        except StoreInputError as exc:
            if "binary" in str(exc):
                out.skipped_binary += 1
            else:
                out.failed += 1
                out.errors.append((relpath, str(exc)))
            return
        except OSError as exc:
            out.failed += 1
            out.errors.append((relpath, str(exc)))
            return
        out.indexed += 1
        out.results.append(indexed)
        out.chunk_count += indexed.chunk_count
        out.code_chunk_count += indexed.code_chunk_count
        out.byte_count += indexed.byte_count

    # ------------------------------------------------------------ sources

    def sources(self) -> list[SourceInfo]:
        rows = self.conn.execute("SELECT * FROM kb_sources ORDER BY indexed_at DESC, id DESC")
        return [_source_info(row) for row in rows]

    def get_source(self, label: str) -> SourceInfo | None:
        row = self.conn.execute("SELECT * FROM kb_sources WHERE label = ?", (label,)).fetchone()
        return _source_info(row) if row else None

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
        self.conn.execute("DELETE FROM kb_chunks WHERE source_id = ?", (row[0],))
        self.conn.execute("DELETE FROM kb_sources WHERE id = ?", (row[0],))
        return True

    def delete_source(self, label: str) -> bool:
        with db.write_transaction(self.conn):
            return self._delete(label)

    def purge(self) -> int:
        """Remove every source, chunk and vocabulary word; the number of sources removed."""
        with db.write_transaction(self.conn):
            removed = self.conn.execute("SELECT count(*) FROM kb_sources").fetchone()[0]
            self.conn.execute("INSERT INTO kb_fts(kb_fts) VALUES('delete-all')")
            self.conn.execute("INSERT INTO kb_vocab_tri(kb_vocab_tri) VALUES('delete-all')")
            for table in ("kb_chunks", "kb_sources", "kb_vocab"):
                self.conn.execute(f"DELETE FROM {table}")
        return removed

    def prune(self, max_idle_days: float) -> int:
        """Remove sources not indexed or found by a search for `max_idle_days`; how many."""
        cutoff = time.time() - max_idle_days * 86400
        with db.write_transaction(self.conn):
            labels = [
                row[0]
                for row in self.conn.execute(
                    "SELECT label FROM kb_sources WHERE max(last_used_at, indexed_at) < ?",
                    (cutoff,),
                )
            ]
            for label in labels:
                self._delete(label)
        return len(labels)

    def chunk_count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM kb_chunks").fetchone()[0]

    def distinctive_terms(self, label: str, limit: int = 40) -> list[str]:
        """Words that tell this source's chunks apart: in a few chunks but not most; no numbers."""
        source = self.get_source(label)
        if source is None:
            return []
        # A sample of at most TERMS_SAMPLE_CHUNKS chunks, read row by row: a 50 MB output
        # must not be loaded whole (ids are contiguous within a source, so `id % stride`
        # spreads the sample evenly).
        stride = max(1, math.ceil(source.chunk_count / TERMS_SAMPLE_CHUNKS))
        rows = self.conn.execute(
            "SELECT c.title, c.content FROM kb_chunks c JOIN kb_sources s ON s.id = c.source_id "
            "WHERE s.label = ? AND c.id % ? = 0",
            (label, stride),
        )
        total = 0
        df: Counter[str] = Counter()
        for title, content in rows:
            total += 1
            df.update(
                w
                for w in terms.vocabulary(title + "\n" + content)
                if w not in terms.STOPWORDS and not any(ch.isdigit() for ch in w)
            )
        if not df:
            return []
        ceiling = max(2, math.ceil(0.4 * total)) if total >= 3 else total
        floor = 2 if total >= 3 else 1

        def score(word: str) -> float:
            return math.log((total + 1) / df[word]) + min(len(word) / 20, 0.5)

        chosen = [w for w, n in df.items() if floor <= n <= ceiling] or list(df)
        chosen.sort(key=lambda w: (-score(w), w))
        return chosen[:limit]

    # ------------------------------------------------------------ staleness

    def refresh_stale(self) -> int:
        """Re-index file sources whose content changed on disk; how many were re-indexed."""
        rows = self.conn.execute(
            "SELECT label, file_path, fmt, content_hash, file_mtime, file_size FROM kb_sources "
            "WHERE file_path IS NOT NULL"
        ).fetchall()
        refreshed = 0
        for row in rows:
            try:
                stat = os.stat(row["file_path"])
            except OSError:
                continue  # gone or unreadable: keep what we know
            if stat.st_mtime == row["file_mtime"] and stat.st_size == row["file_size"]:
                continue
            try:
                if _file_digest(row["file_path"]) == row["content_hash"]:
                    with db.write_transaction(self.conn):
                        self.conn.execute(
                            "UPDATE kb_sources SET file_mtime = ?, file_size = ? WHERE label = ?",
                            (stat.st_mtime, stat.st_size, row["label"]),
                        )
                    continue
                self.index_file(row["file_path"], row["label"], fmt=row["fmt"])
                refreshed += 1
            except (OSError, StoreInputError):
                continue
        return refreshed

    def _maybe_refresh(self) -> None:
        now = time.monotonic()
        if now - self._last_stale_check >= STALE_CHECK_INTERVAL_S:
            self._last_stale_check = now
            self.refresh_stale()

    # ------------------------------------------------------------ search

    def search(
        self,
        queries: list[str],
        *,
        limit: int = 3,
        source: str | None = None,
        content_type: str | None = None,
        snippet_chars: int = 1500,
        mark_used: bool = True,
    ) -> list[QueryResult]:
        """For each query, the best `limit` chunks with snippets around the matching lines.

        `mark_used=False` searches without writing: no stale-file refresh, no last-use mark
        (for readers of a read-only connection, such as the dashboard).
        """
        if content_type not in (None, "code", "prose"):
            raise StoreInputError(f"content type must be code or prose, not {content_type!r}")
        limit = max(1, int(limit))
        if mark_used:
            self._maybe_refresh()
        results = [self._search_one(q, limit, source, content_type, snippet_chars) for q in queries]
        if mark_used:
            self._touch({hit.chunk_id for r in results for hit in r.hits})
        return results

    def _search_one(
        self, query: str, limit: int, source: str | None, content_type: str | None, chars: int
    ) -> QueryResult:
        plan = searching.plan_query(self.conn, query)
        found = searching.run_query(self.conn, plan, limit, source, content_type)
        if not found:
            return QueryResult(query, [], plan.corrected_query)
        meta = {
            row[0]: row
            for row in self.conn.execute(
                "SELECT c.id, c.kind, s.label, s.indexed_at FROM kb_chunks c "
                "JOIN kb_sources s ON s.id = c.source_id WHERE c.id IN "
                f"({','.join('?' * len(found))})",
                [c.chunk_id for c in found],
            )
        }
        words = [w for t in plan.terms for w in t.every_word]
        hits = []
        for cand in found:
            row = meta[cand.chunk_id]
            title, _ = snippets.strip_marks(cand.title)
            snippet = snippets.make_snippet(cand.content, chars, words)
            hits.append(
                Hit(
                    row["label"],
                    title,
                    snippet,
                    row["kind"],
                    row["indexed_at"],
                    round(cand.score, 6),
                    cand.chunk_id,
                )
            )
        return QueryResult(query, hits, plan.corrected_query)

    def _touch(self, chunk_ids: set[int]) -> None:
        """Mark the sources of hits as used (retention is by last use), at most once a minute."""
        if not chunk_ids:
            return
        now = time.time()
        marks = ",".join("?" * len(chunk_ids))
        stale = [
            row[0]
            for row in self.conn.execute(
                "SELECT DISTINCT s.id FROM kb_sources s JOIN kb_chunks c ON c.source_id = s.id "
                f"WHERE c.id IN ({marks}) AND s.last_used_at < ?",
                [*chunk_ids, now - LAST_USED_RESOLUTION_S],
            )
        ]
        if stale:  # a read first: most searches need no write lock at all
            with db.write_transaction(self.conn):
                self.conn.executemany(
                    "UPDATE kb_sources SET last_used_at = ? WHERE id = ?",
                    [(now, source_id) for source_id in stale],
                )
