"""What replaces another MCP server's bulky result: a notice that keeps what a model acts on.

The whole result is indexed first (`index_result`), one line per row so that any row is
found by one `ctx_search`: a JSON result as one `path = value` line per leaf (a long
string value as its own lines), anything else line by line. The notice then keeps, within
NOTICE_BYTES, what its kind needs: for a page's accessibility snapshot the URL, title,
headings and the interactive elements' refs; for JSON the shape (keys, array lengths) and
the first items; for a table its header, row count and first rows; for text its head and
tail lines. Its last line is the exact search call. Off the hook's fast path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from ctxmode.sandbox.shaping import head_lines
from ctxmode.vocab.toolnames import search_call

NOTICE_BYTES = 6_000  # well under the 10 KB a model should get for one result
LINE_CHARS = 200  # a shown line (the index keeps it whole)
PIECE_LINES = 400  # lines handed to the index at a time
INTERACTIVE = frozenset((
    "button", "link", "textbox", "checkbox", "radio", "combobox", "menuitem", "tab", "option",
    "searchbox", "switch", "slider", "spinbutton", "listbox", "menuitemcheckbox", "treeitem",
))  # fmt: skip
SNAPSHOT_LINE = re.compile(r'^\s*- (\w+)(?: "((?:[^"\\]|\\.)*)")?')  # `- role "name" [ref=e7] ...`
REF = re.compile(r"\[ref=(\w+)\]")
LEVEL = re.compile(r"\[level=(\d)\]")
PAGE_FACT = re.compile(r"^\s*-?\s*(Page (?:URL|Title)|URL|Title):\s*(.+)$", re.MULTILINE)


def kind_of(text: str) -> tuple[str, object]:
    """("snapshot" | "json" | "table" | "text", the parsed JSON value or None)."""
    if text.count("[ref=") >= 5:
        return "snapshot", None
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            return "json", json.loads(stripped)
        except ValueError:
            pass
    lines = text.splitlines()[:60]
    if len(lines) >= 5 and sum(line.lstrip().startswith("|") for line in lines) >= len(lines) * 0.8:
        return "table", None
    return "text", None


def json_lines(value: object, path: str = "") -> Iterator[str]:
    """One `path = value` line per leaf; a string holding lines gives each line its own."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_lines(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_lines(item, f"{path}[{index}]")
    elif isinstance(value, str) and "\n" in value:
        yield f"{path} ="
        yield from value.splitlines()
    else:
        yield f"{path} = {json.dumps(value, ensure_ascii=False)}"


def indexable_lines(text: str, kind: str, value: object) -> Iterator[str]:
    return json_lines(value) if kind == "json" else iter(text.splitlines())


def pieces(lines: Iterator[str]) -> Iterator[str]:
    batch: list[str] = []
    for line in lines:
        batch.append(line + "\n")
        if len(batch) == PIECE_LINES:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def _clip(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def _within(lines: list[str], budget: int, more: str) -> str:
    """As many of `lines` as fit `budget` bytes, and `more` (formatted with the rest) if cut."""
    kept, used = [], len(more.encode("utf-8")) + 12  # room for the `more` line
    for line in lines:
        size = len(line.encode("utf-8")) + 1
        if used + size > budget:
            break
        kept.append(line)
        used += size
    rest = len(lines) - len(kept)
    return "\n".join(kept + ([more.format(rest)] if rest else []))


def snapshot_summary(text: str, budget: int) -> str:
    facts = [f"{name}: {_clip(value.strip())}" for name, value in PAGE_FACT.findall(text)][:4]
    headings, elements = [], []
    for line in text.splitlines():
        found = SNAPSHOT_LINE.match(line)
        if not found:
            continue
        role, name = found.group(1), found.group(2) or ""
        ref = REF.search(line, found.end())
        if role == "heading":
            level = LEVEL.search(line, found.end())
            headings.append(
                _clip(f'heading "{name}"' + (f" [level={level.group(1)}]" if level else ""))
            )
        elif role in INTERACTIVE and ref:
            elements.append(_clip(f'{role} "{name}" [ref={ref.group(1)}]'))
    head = "\n".join(facts)
    room = budget - len(head.encode("utf-8")) - 100  # the section lines
    heading_text = _within(headings, room // 3, "… {} more headings")
    room -= len(heading_text.encode("utf-8"))
    element_text = _within(elements, room, "… {} more interactive elements: search by their name")
    return "\n".join([head, f"--- headings ({len(headings)}) ---", heading_text,
                      f"--- interactive elements ({len(elements)}) ---", element_text])  # fmt: skip


def _shape(value: object, depth: int = 0) -> str:
    if isinstance(value, dict):
        if depth >= 2:
            return f"{{{len(value)} keys}}"
        inner = ", ".join(
            f"{key}: {_shape(item, depth + 1)}" for key, item in list(value.items())[:12]
        )
        return "{" + inner + (", …" if len(value) > 12 else "") + "}"
    if isinstance(value, list):
        first = _shape(value[0], depth + 1) if value else ""
        return f"[{len(value)} × {first}]" if value else "[]"
    if isinstance(value, str):
        return f"string({len(value)} chars)" if len(value) > 40 else json.dumps(value)
    return json.dumps(value)


def json_summary(value: object, budget: int) -> str:
    shape = _clip(_shape(value)) if len(_shape(value)) < 600 else _shape(value)[:600] + "…"
    lines = [_clip(line) for line in json_lines(value)]
    first = _within(lines[:200], budget - len(shape.encode("utf-8")) - 60, "… {} more lines")
    return f"shape: {shape}\n--- first values ---\n{first}"


def table_summary(text: str, budget: int) -> str:
    lines = text.splitlines()
    header = [line for line in lines[:2] if line.lstrip().startswith("|")]
    rows = [line for line in lines[len(header) :] if line.lstrip().startswith("|")]
    body = _within([_clip(row) for row in rows[:100]], budget - 200, "… {} more rows")
    return "\n".join([f"{len(rows):,} rows", *(_clip(line) for line in header), body])


def text_summary(text: str, budget: int) -> str:
    lines = [_clip(line) for line in text.splitlines()]
    head = _within(lines[:80], budget * 2 // 3, "…")
    tail = _within(lines[-20:][::-1], budget // 3, "…").split("\n")[::-1]
    return f"{head}\n[… {len(lines):,} lines in all …]\n" + "\n".join(tail)


SUMMARIES = {"snapshot": snapshot_summary, "table": table_summary, "text": text_summary}


def notice(text: str, kind: str, value: object, *, tool: str, label: str, prefix: str,
           chunks: int, note: str = "") -> str:  # fmt: skip
    """The bounded notice for `text` (indexed under `label` in `chunks` chunks)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    header = (f"[{tool} · {size:,} bytes · {kind} · kept out of the context by ctxmode, "
              f'every line indexed as "{label}" ({chunks} chunks)]')  # fmt: skip
    search = "Search it: " + search_call(prefix + "ctx_search", label)
    room = NOTICE_BYTES - len(header.encode()) - len(search.encode()) - len(note.encode()) - 40
    body = json_summary(value, room) if kind == "json" else SUMMARIES[kind](text, room)
    body = head_lines(body, room).rstrip("\n")
    return "\n".join(part for part in (header, body, note, search) if part)
