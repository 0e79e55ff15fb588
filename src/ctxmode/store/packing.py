"""Chunk text as stored: zlib-compressed where that saves room, read back through SQL.

A chunk's content is most of a knowledge base's bytes, and text compresses to about a
third; the search index keeps its own copy of the words, so the stored text is only read
back for the few chunks a search re-ranks and shows. The `kb_chunks` view unpacks it with
`ctx_unpack`, which every connection reading that view needs (`register`).
"""

from __future__ import annotations

import sqlite3
import zlib

UNPACK_FUNCTION = "ctx_unpack"
PACK_FUNCTION = "ctx_pack"
SMALLEST_PACKED = 128  # bytes of UTF-8: shorter text stays as it is (zlib saves nothing)
LEVEL = 6


def pack(text: str) -> str | bytes:
    """`text` as stored: compressed bytes when shorter, else the text itself."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) < SMALLEST_PACKED:
        return text
    packed = zlib.compress(raw, LEVEL)
    return packed if len(packed) < len(raw) else text


def unpack(value: str | bytes | None) -> str | None:
    """The text `pack` stored (text stored before packing existed passes unchanged)."""
    if isinstance(value, bytes):
        return zlib.decompress(value).decode("utf-8", "surrogatepass")
    return value


def register(conn: sqlite3.Connection) -> None:
    """Make `ctx_unpack` (and `ctx_pack`, for migrating text stored plain) known to `conn`."""
    conn.create_function(UNPACK_FUNCTION, 1, unpack, deterministic=True)
    conn.create_function(PACK_FUNCTION, 1, pack, deterministic=True)
