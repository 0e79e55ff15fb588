"""Splitting text into searchable chunks of at most 4 KB each, whatever the input.

Markdown splits on headings (breadcrumb titles), plain text on paragraphs, code
on top-level definitions, JSON on key paths with arrays batched (a record with prose, such
as an issue or a comment, is a chunk of its own titled with its path and identity). The line-based
chunkers are generators over lines, so a 100 MB file streams through them.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

MAX_CHUNK_BYTES = 4096
SMALL_SECTION_BYTES = 300  # markdown sections smaller than this join the next one
MERGED_TITLE_NAMES = 4
PLAIN_TARGET_BYTES = 2048  # small paragraphs are packed together up to this size
CODE_MERGE_BYTES = 1024  # tiny definitions (constants, imports) share a chunk
WINDOW_LINES = 40
WINDOW_OVERLAP = 2
TITLE_CHARS = 80

Kind = Literal["code", "prose"]
FORMATS = ("markdown", "plain", "json", "code")


@dataclass(frozen=True)
class Chunk:
    title: str
    content: str
    kind: Kind


# ---------------------------------------------------------------- byte-capped splitting


def nbytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def split_long_line(line: str, cap: int = MAX_CHUNK_BYTES) -> list[str]:
    """Cut one over-long line into pieces of at most `cap` UTF-8 bytes.

    Cuts never fall inside a character and prefer whitespace in the second half.
    """
    data = line.encode("utf-8")
    pieces: list[str] = []
    pos = 0
    while len(data) - pos > cap:
        end = pos + cap
        while end > pos and (data[end] & 0xC0) == 0x80:  # continuation byte: back off
            end -= 1
        space = max(data.rfind(b" ", pos + cap // 2, end), data.rfind(b"\n", pos + cap // 2, end))
        if space > pos:
            end = space + 1
        pieces.append(data[pos:end].decode("utf-8"))
        pos = end
    pieces.append(data[pos:].decode("utf-8"))
    return pieces


def pack_lines(lines: Iterable[str], cap: int = MAX_CHUNK_BYTES) -> Iterator[str]:
    """Greedily join lines (each keeping its newline) into pieces of at most `cap` bytes."""
    buf: list[str] = []
    size = 0
    for line in lines:
        n = nbytes(line)
        if n > cap:
            if buf:
                yield "".join(buf)
                buf, size = [], 0
            *full, rest = split_long_line(line, cap)
            yield from full
            buf, size = [rest], nbytes(rest)
            continue
        if size + n > cap and buf:
            yield "".join(buf)
            buf, size = [], 0
        buf.append(line)
        size += n
    if buf:
        yield "".join(buf)


def capped(chunks: Iterable[Chunk], cap: int = MAX_CHUNK_BYTES) -> Iterator[Chunk]:
    """Every chunk at most `cap` bytes: oversized ones split by lines, parts titled "T (n)"."""
    for chunk in chunks:
        if nbytes(chunk.content) <= cap:
            yield chunk
            continue
        for i, piece in enumerate(pack_lines(chunk.content.splitlines(keepends=True), cap)):
            title = chunk.title if i == 0 else f"{chunk.title} ({i + 1})"
            yield Chunk(title, piece, chunk.kind)


def _first_line(text: str, fallback: str = "Untitled") -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
    return fallback


def _nonblank(lines: list[str]) -> bool:
    return any(line.strip() for line in lines)


# ---------------------------------------------------------------- markdown

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class _Packer:
    """Collects blocks of lines into chunks of at most the cap; numbers continuation parts."""

    def __init__(self, title: str, cap: int = MAX_CHUNK_BYTES) -> None:
        self.title = title
        self.cap = cap
        self.parts = 0
        self.buf: list[str] = []
        self.size = 0
        self.code = False

    def _emit(self, content: str, code: bool) -> Iterator[Chunk]:
        if not content.strip():
            return
        self.parts += 1
        title = self.title if self.parts == 1 else f"{self.title} ({self.parts})"
        yield Chunk(title, content.strip("\n"), "code" if code else "prose")

    def flush(self) -> Iterator[Chunk]:
        if self.buf:
            yield from self._emit("".join(self.buf), self.code)
        self.buf, self.size, self.code = [], 0, False

    def add(self, lines: list[str], code: bool) -> Iterator[Chunk]:
        size = sum(nbytes(line) for line in lines)
        if self.size + size > self.cap:
            yield from self.flush()
        if size > self.cap:
            for piece in pack_lines(lines, self.cap):
                yield from self._emit(piece, code)
            return
        if self.buf:
            self.buf.append("\n")  # keep blocks apart as in the source
        self.buf.extend(lines)
        self.size += size + 1
        self.code = self.code or code


def iter_markdown(lines: Iterable[str]) -> Iterator[Chunk]:
    """Markdown lines to chunks: H1-H6 sections, fenced blocks whole unless over the cap."""
    crumbs: list[tuple[int, str]] = []
    packer = _Packer("Untitled")
    block: list[str] = []
    block_size = 0
    fence: str | None = None

    def end_block(code: bool) -> Iterator[Chunk]:
        nonlocal block, block_size
        if block and (code or _nonblank(block)):
            yield from packer.add(block, code)
        block, block_size = [], 0

    for line in lines:
        if not line.endswith("\n"):
            line += "\n"
        if fence is not None:
            block.append(line)
            block_size += nbytes(line)
            if line.lstrip(" ").startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
                yield from end_block(code=True)
            elif block_size > 4 * MAX_CHUNK_BYTES:  # a giant fence: emit it as it streams
                yield from packer.add(block, code=True)
                block, block_size = [], 0
            continue
        heading = _HEADING.match(line.rstrip("\r\n"))
        if heading:
            yield from end_block(code=False)
            yield from packer.flush()
            level = len(heading.group(1))
            crumbs = [c for c in crumbs if c[0] < level]
            crumbs.append((level, heading.group(2).strip() or "Untitled"))
            packer = _Packer(" > ".join(text for _, text in crumbs))
            continue
        opening = _FENCE.match(line)
        if opening:
            yield from end_block(code=False)
            fence = opening.group(1)
            block, block_size = [line], nbytes(line)
            continue
        if not line.strip():
            yield from end_block(code=False)
            continue
        block.append(line)
        block_size += nbytes(line)
        if block_size > 4 * MAX_CHUNK_BYTES:  # a paragraph without blank lines: stream it
            yield from end_block(code=False)
    yield from end_block(code=fence is not None)
    yield from packer.flush()


_PART_SUFFIX = re.compile(r" \(\d+\)$")


def merged_title(titles: list[str]) -> str:
    """Breadcrumbs of merged sections: the shared path once, then each section's rest.

    ["t(1) > NAME", "t(1) > SYNOPSIS"] -> "t(1) > NAME, SYNOPSIS";
    ["A > B", "A > B > C"] -> "A > B > C".
    """
    paths = [t.split(" > ") for t in titles if t != "Untitled"] or [["Untitled"]]
    shared = 0
    while all(len(p) > shared for p in paths) and len({p[shared] for p in paths}) == 1:
        shared += 1
    shared = min(shared, max(len(p) for p in paths) - 1)  # keep at least one name
    rests = [" > ".join(p[shared:]) for p in paths]
    rests = [r for r in dict.fromkeys(rests) if r]
    if len(rests) > MERGED_TITLE_NAMES:
        rests = [*rests[:MERGED_TITLE_NAMES], "…"]
    head = " > ".join(paths[0][:shared])
    return " > ".join(x for x in (head, ", ".join(rests)) if x)


def _parent(title: str) -> str:
    """ "A > B > C" -> "A > B"; "" for a top-level title."""
    return title.rsplit(" > ", 1)[0] if " > " in title else ""


def merge_small_sections(chunks: Iterable[Chunk]) -> Iterator[Chunk]:
    """A tiny section (a man page's NAME line) joins its next sibling section when both fit in
    one chunk: alone it has too little text to rank, or to show as a useful snippet."""
    held: Chunk | None = None
    titles: list[str] = []
    for chunk in chunks:
        if held is not None:
            name = chunk.title.rsplit(" > ", 1)[-1]
            joined = f"{held.content}\n\n{name}\n{chunk.content}"
            siblings = _parent(titles[-1]) == _parent(chunk.title) != ""
            fits = nbytes(joined) <= MAX_CHUNK_BYTES
            if siblings and fits and _PART_SUFFIX.search(chunk.title) is None:
                kind: Kind = "code" if "code" in (held.kind, chunk.kind) else "prose"
                held = Chunk(held.title, joined, kind)
                titles.append(chunk.title)
            else:
                yield Chunk(merged_title(titles), held.content, held.kind)
                held = None
        if held is None:
            held, titles = chunk, [chunk.title]
        if nbytes(held.content) >= SMALL_SECTION_BYTES:
            yield Chunk(merged_title(titles), held.content, held.kind)
            held = None
    if held is not None:
        yield Chunk(merged_title(titles), held.content, held.kind)


def iter_markdown_merged(lines: Iterable[str]) -> Iterator[Chunk]:
    return merge_small_sections(iter_markdown(lines))


def chunk_markdown(text: str) -> list[Chunk]:
    return list(capped(iter_markdown_merged(text.splitlines(keepends=True))))


# ---------------------------------------------------------------- plain text


def _windows(lines: list[str]) -> Iterator[list[str]]:
    """Overlapping line windows (for long runs without blank lines, such as logs)."""
    step = WINDOW_LINES - WINDOW_OVERLAP
    for start in range(0, max(len(lines) - WINDOW_OVERLAP, 1), step):
        yield lines[start : start + WINDOW_LINES]


class _Pages:
    """Lines split at form feed lines (page breaks), one page at a time."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self.ended = False

    def page(self) -> Iterator[str]:
        for line in self._lines:
            if line.rstrip("\r\n") == "\f":
                return
            yield line
        self.ended = True


def iter_plain(lines: Iterable[str]) -> Iterator[Chunk]:
    """Plain text: paragraphs packed up to ~2 KB; long paragraphs as overlapping line windows.

    A form feed line is a page break: a page after one is a chunk of its own when it fits
    the cap (a command's output marks each failing test's block so: one search hit each).
    """
    pages = _Pages(lines)
    yield from _iter_paragraphs(pages.page())
    while not pages.ended:
        page = pages.page()
        head: list[str] = []
        size = 0
        for line in page:
            head.append(line)
            size += nbytes(line)
            if size > MAX_CHUNK_BYTES:
                break
        if size > MAX_CHUNK_BYTES:
            yield from _iter_paragraphs(itertools.chain(head, page))
            continue
        content = "".join(head).strip("\n")
        if content.strip():
            yield Chunk(_first_line(content), content, "prose")


def _iter_paragraphs(lines: Iterable[str]) -> Iterator[Chunk]:
    """Paragraphs packed up to ~2 KB; long paragraphs as overlapping line windows."""
    buf: list[str] = []
    size = 0
    para: list[str] = []

    def emit(content_lines: list[str]) -> Iterator[Chunk]:
        content = "".join(content_lines).strip("\n")
        if content.strip():
            for piece in pack_lines(content.splitlines(keepends=True)):
                yield Chunk(_first_line(piece), piece.strip("\n"), "prose")

    def end_paragraph() -> Iterator[Chunk]:
        nonlocal buf, size, para
        if not _nonblank(para):
            para = []
            return
        psize = sum(nbytes(line) for line in para)
        if len(para) > WINDOW_LINES or psize > MAX_CHUNK_BYTES:
            yield from emit(buf)
            buf, size = [], 0
            for window in _windows(para):
                yield from emit(window)
        else:
            if size + psize > PLAIN_TARGET_BYTES and buf:
                yield from emit(buf)
                buf, size = [], 0
            buf.extend(para if not buf else ["\n", *para])
            size += psize
        para = []

    for line in lines:
        if not line.endswith("\n"):
            line += "\n"
        if line.strip():
            para.append(line)
            if len(para) >= 50 * WINDOW_LINES:  # stream huge paragraphs window by window
                tail = para[-WINDOW_OVERLAP:]
                para = para[:-WINDOW_OVERLAP]
                yield from end_paragraph()
                para = tail
        else:
            yield from end_paragraph()
    yield from end_paragraph()
    yield from emit(buf)


def chunk_plain(text: str) -> list[Chunk]:
    return list(capped(iter_plain(text.splitlines(keepends=True))))


# ---------------------------------------------------------------- code

_DEFINITION = re.compile(
    r"^(?:(?:export|pub(?:\([a-z]+\))?|async|default|static|public|private|protected|"
    r"abstract|final|extern|unsafe|override|open|internal|sealed|data|inline)\s+)*"
    r"(?:def|class|function\*?|fn|func|interface|struct|enum|impl|trait|type|const|let|var|"
    r"module|namespace|package|object|macro_rules!|union|record)\b"
)
_PREAMBLE = re.compile(r"^(?:@|#|//|/\*|\*|--|;)")


def iter_code(lines: Iterable[str]) -> Iterator[Chunk]:
    """Source code: a chunk per top-level definition (comments and decorators attached)."""
    section: list[str] = []
    lead = 0  # index in `section` where a trailing run of comments/decorators starts
    pending: list[str] = []
    pending_size = 0

    def flush_pending() -> Iterator[Chunk]:
        nonlocal pending, pending_size
        if _nonblank(pending):
            title = _first_line("".join(line for line in pending if not _PREAMBLE.match(line)))
            for i, piece in enumerate(pack_lines(pending)):
                yield Chunk(title if i == 0 else f"{title} ({i + 1})", piece.strip("\n"), "code")
        pending, pending_size = [], 0

    def close_section(upto: int) -> Iterator[Chunk]:
        nonlocal pending_size
        body = section[:upto]
        size = sum(nbytes(line) for line in body)
        # Small sections (imports, constants) share a chunk; a real definition gets its own.
        if pending and (size > CODE_MERGE_BYTES // 2 or pending_size + size > CODE_MERGE_BYTES):
            yield from flush_pending()
        pending.extend(body)
        pending_size += size
        if pending_size > CODE_MERGE_BYTES // 2:
            yield from flush_pending()

    for line in lines:
        if not line.endswith("\n"):
            line += "\n"
        top = not line[0].isspace()
        if top and _DEFINITION.match(line) and _nonblank(section[:lead]):
            yield from close_section(lead)
            del section[:lead]
        section.append(line)
        if line.strip() and not (top and _PREAMBLE.match(line)):
            lead = len(section)
        if len(section) >= 10 * WINDOW_LINES:  # a very long definition: stream it
            yield from close_section(len(section))
            section, lead = [], 0
    yield from close_section(len(section))
    yield from flush_pending()


def chunk_code(text: str) -> list[Chunk]:
    return list(capped(iter_code(text.splitlines(keepends=True))))


# ---------------------------------------------------------------- JSON

BATCH_BYTES = MAX_CHUNK_BYTES * 9 // 10  # sizes are estimates; leave a margin
IDENTITY_FIELDS = ("id", "name", "title", "path", "slug", "key", "label")
# A record (an issue, a comment) is named by its number or id, its title and its author.
RECORD_ID_FIELDS = ("number", "id", "key", "slug", "path", "name", "label")
RECORD_TITLE_FIELDS = ("title", "name", "subject", "summary")
RECORD_AUTHOR_FIELDS = ("user", "author", "login", "from", "by")
PROSE_CHARS = 60  # a string this long with spaces in it is prose: its dict is a record
INLINE_BYTES = 200  # a small container without records is shown on its field's line


def _sizes(value: Any, sizes: dict[int, int]) -> int:
    """Approximate serialised size of every container, computed once bottom-up (linear)."""
    if isinstance(value, dict):
        total = 2 + sum(nbytes(str(k)) + 4 + _sizes(v, sizes) for k, v in value.items())
    elif isinstance(value, list):
        total = 2 + sum(2 + _sizes(v, sizes) for v in value)
    elif isinstance(value, str):
        return nbytes(value) + 2  # escapes ignored: the batch margin absorbs them
    else:
        return len(repr(value))
    sizes[id(value)] = total
    return total


def _identity(value: Any) -> str | None:
    if isinstance(value, dict):
        for field in IDENTITY_FIELDS:
            if isinstance(value.get(field), (str, int)) and not isinstance(value[field], bool):
                return str(value[field])
    return None


def _batch_title(path: str, items: list[tuple[int, Any]]) -> str:
    names = [name for _, v in items if (name := _identity(v))]
    first, last = items[0][0], items[-1][0]
    if len(names) == len(items):
        label = ", ".join(names) if len(names) <= 3 else f"{names[0]}…{names[-1]}"
    else:
        label = f"[{first}]" if first == last else f"[{first}-{last}]"
    return f"{path} > {label}" if path != "(root)" else label


_COMPACT = json.JSONEncoder(ensure_ascii=False)


def _dump(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False)


def _dump_batch(items: list[tuple[int, Any]]) -> str:
    """One compact item per line: the size is what `_sizes` predicted, so no re-measuring."""
    return "[\n" + ",\n".join(_COMPACT.encode(v) for _, v in items) + "\n]"


@dataclass(frozen=True)
class _Facts:
    """What one pass over a parsed JSON value learned: container sizes, record holders."""

    bytes: dict[int, int]  # id(container) -> approximate serialised size
    holders: set[int]  # ids of the containers that are or hold a record


def _is_prose(value: Any) -> bool:
    return isinstance(value, str) and len(value) >= PROSE_CHARS and " " in value


def _is_record(value: Any) -> bool:
    """A dict with prose of its own: an issue, a comment, a message; each its own chunk."""
    return isinstance(value, dict) and any(_is_prose(v) for v in value.values())


def _mark_records(value: Any, holders: set[int]) -> bool:
    """Whether `value` is or holds a record; the ids of every container that does go into
    `holders` (computed once, bottom-up)."""
    if isinstance(value, dict):
        children = [_mark_records(v, holders) for v in value.values()]
        found = any(children) or _is_record(value)
    elif isinstance(value, list):
        found = any([_mark_records(v, holders) for v in value])
    else:
        return False
    if found:
        holders.add(id(value))
    return found


def _scalar_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return _COMPACT.encode(value)


def _named(value: Any) -> str | None:
    """What a small nested value is called: an author {"login": "ana"} is "ana"."""
    if isinstance(value, dict):
        for field in ("login", "name", "username", *IDENTITY_FIELDS):
            if isinstance(value.get(field), str):
                return value[field]
        return None
    return value if isinstance(value, str) else None


def record_name(record: dict[str, Any], index: int) -> str:
    """How a record is named in a chunk title: "412: Worker pool hangs", "90133 by ayeshak"."""
    ident = next((record[f] for f in RECORD_ID_FIELDS if _plain_scalar(record.get(f))), None)
    title = next((record[f] for f in RECORD_TITLE_FIELDS if isinstance(record.get(f), str)), None)
    author = next((_named(record[f]) for f in RECORD_AUTHOR_FIELDS if f in record), None)
    name = str(ident) if ident is not None else f"[{index}]"
    if title and title != name:
        name = f"{name}: {_first_line(title)}"
    return f"{name} by {author}" if author else name


def _plain_scalar(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _field_line(key: str, value: Any) -> str:
    """One field of a record as text: prose as written (its newlines kept, so every word is
    a word to the index), a small list or object on one line ("labels: bug, runtime")."""
    if isinstance(value, list) and all(_named(v) is not None for v in value):
        return f"{key}: {', '.join(str(_named(v)) for v in value)}"
    if isinstance(value, dict) and _named(value) is not None and len(value) <= 3:
        return f"{key}: {_named(value)}"
    return f"{key}: {_scalar_text(value)}"


def _dicts(value: Any) -> bool:
    """A list of objects in a record is a thread (replies, events): each item a record;
    unless each is only a name ("labels": [{"name": "bug"}]), shown on one line."""
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        return False
    return not all(len(v) <= 2 and _named(v) is not None for v in value)


def _walk_record(record: dict[str, Any], path: str, facts: _Facts) -> Iterator[Chunk]:
    """A record's own fields as one chunk titled by its path; its nested records each in
    theirs below it ("issues > 412: ... > comments > 90133 by ayeshak")."""
    lines, nested = [], []
    for key, value in record.items():
        big = isinstance(value, (dict, list)) and facts.bytes.get(id(value), 0) > INLINE_BYTES
        if big or id(value) in facts.holders or _dicts(value):
            nested.append((key, value))
        else:
            lines.append(_field_line(str(key), value))
    if lines:
        yield Chunk(path, "\n".join(lines), "prose")
    for key, value in nested:
        walk = _walk_records if _dicts(value) else _walk_json
        yield from walk(value, f"{path} > {key}", facts)


def _walk_records(items: list[Any], path: str, facts: _Facts) -> Iterator[Chunk]:
    """Each object of a list of records as a record, named by its identity."""
    for index, item in enumerate(items):
        name = record_name(item, index) if isinstance(item, dict) else f"[{index}]"
        child = name if path == "(root)" else f"{path} > {name}"
        if isinstance(item, dict):  # a short comment is a record all the same
            yield from _walk_record(item, child, facts)
        else:
            yield from _walk_json(item, child, facts)


def _walk_json(value: Any, path: str, facts: _Facts) -> Iterator[Chunk]:
    if isinstance(value, list) and id(value) in facts.holders:
        yield from _walk_records(value, path, facts)
        return
    if _is_record(value):
        yield from _walk_record(value, path, facts)
        return
    size = facts.bytes.get(id(value), 0)
    if not isinstance(value, (dict, list)) or (
        size <= MAX_CHUNK_BYTES and id(value) not in facts.holders
    ):
        text = _dump(value) if 2 * size <= MAX_CHUNK_BYTES else _COMPACT.encode(value)
        yield Chunk(path, text, "code")
        return
    if isinstance(value, dict):
        scalars = {k: v for k, v in value.items() if not isinstance(v, (dict, list))}
        if scalars:
            yield Chunk(path, _dump(scalars), "code")
        for key, child in value.items():
            if isinstance(child, (dict, list)):
                child_path = str(key) if path == "(root)" else f"{path} > {key}"
                yield from _walk_json(child, child_path, facts)
        return
    batch: list[tuple[int, Any]] = []
    batch_size = 0
    for index, item in enumerate(value):
        item_size = facts.bytes.get(id(item)) or nbytes(_COMPACT.encode(item))
        if item_size > MAX_CHUNK_BYTES:
            if batch:
                yield Chunk(_batch_title(path, batch), _dump_batch(batch), "code")
                batch, batch_size = [], 0
            name = _identity(item) or f"[{index}]"
            yield from _walk_json(item, f"{path} > {name}", facts)
            continue
        if batch and batch_size + item_size > BATCH_BYTES:
            yield Chunk(_batch_title(path, batch), _dump_batch(batch), "code")
            batch, batch_size = [], 0
        batch.append((index, item))
        batch_size += item_size + 2
    if batch:
        yield Chunk(_batch_title(path, batch), _dump_batch(batch), "code")


def iter_json(text: str) -> Iterator[Chunk]:
    """JSON: key paths as titles, arrays batched; invalid JSON falls back to plain text."""
    try:
        value = json.loads(text)
    except ValueError:
        yield from iter_plain(text.splitlines(keepends=True))
        return
    facts = _Facts({}, set())
    _sizes(value, facts.bytes)
    _mark_records(value, facts.holders)
    yield from _walk_json(value, "(root)", facts)


def chunk_json(text: str) -> list[Chunk]:
    return list(capped(iter_json(text)))


# ---------------------------------------------------------------- dispatch

_LINE_CHUNKERS = {"markdown": iter_markdown_merged, "plain": iter_plain, "code": iter_code}


def iter_chunks(lines: Iterable[str], fmt: str) -> Iterator[Chunk]:
    """Chunks (each capped) of a stream of lines in a line-based format."""
    if fmt == "json":
        yield from capped(iter_json("".join(lines)))
        return
    if fmt not in _LINE_CHUNKERS:
        raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    yield from capped(_LINE_CHUNKERS[fmt](lines))


def chunk_text(text: str, fmt: str = "markdown") -> list[Chunk]:
    """Chunks of `text` in format markdown, plain, json or code."""
    if fmt == "json":
        return chunk_json(text)
    return list(iter_chunks(text.splitlines(keepends=True), fmt))
