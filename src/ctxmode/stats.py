"""Honest accounting of what ctxmode kept out of the model's context.

Indexing is not saving: bytes only count as kept out when the model would
otherwise have seen them, and a call's saving is capped at what the host would
have shown anyway (a host truncates long tool output itself).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from ctxmode import settings
from ctxmode.storage import db

# Claude Code cuts Bash output at 30,000 characters; other hosts cut similarly or earlier.
DEFAULT_HOST_OUTPUT_CAP = settings.integer(settings.HOST_OUTPUT_CAP, environ={})
BYTES_PER_TOKEN = 4
TOKEN_RULE = "tokens are estimated as bytes / 4 (about four bytes of English or code per token)"


def estimated_tokens(byte_count: int) -> int:
    """An estimate, never a count: no tokenizer of the host's model runs here."""
    return byte_count // BYTES_PER_TOKEN


def host_output_cap() -> int:
    return settings.integer(settings.HOST_OUTPUT_CAP)


def kept_out(bytes_processed: int, bytes_returned: int, cap: int | None = None) -> int:
    """Bytes the model did not have to read: what the host would have shown, less what we returned."""
    visible = min(bytes_processed, host_output_cap() if cap is None else cap)
    return max(0, visible - bytes_returned)


@dataclass(frozen=True)
class ToolCall:
    tool: str
    bytes_processed: int = 0
    bytes_returned: int = 0
    bytes_indexed: int = 0
    saves_context: bool = True  # False for calls whose input the model would never have read raw
    cache_hit: bool = False
    is_error: bool = False
    session_key: str = ""
    client: str = ""  # the MCP client's name from initialize ("" when it gave none)


def record(conn: sqlite3.Connection, call: ToolCall) -> None:
    saved = kept_out(call.bytes_processed, call.bytes_returned) if call.saves_context else 0
    with db.write_transaction(conn):
        conn.execute(
            "INSERT INTO tool_calls(at, session_key, tool, bytes_processed, bytes_returned, "
            "bytes_indexed, bytes_kept_out, cache_hit, is_error, client) "
            "VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                time.time(),
                call.session_key,
                call.tool,
                call.bytes_processed,
                call.bytes_returned,
                call.bytes_indexed,
                saved,
                int(call.cache_hit),
                int(call.is_error),
                call.client,
            ),
        )


@dataclass(frozen=True)
class ToolTotals:
    tool: str
    calls: int
    bytes_processed: int
    bytes_returned: int
    bytes_indexed: int
    bytes_kept_out: int
    cache_hits: int
    errors: int


def totals(
    conn: sqlite3.Connection, since: float = 0.0, session_key: str | None = None
) -> list[ToolTotals]:
    where = "WHERE at >= ?"
    params: list[object] = [since]
    if session_key is not None:
        where += " AND session_key = ?"
        params.append(session_key)
    rows = conn.execute(
        "SELECT tool, count(*), sum(bytes_processed), sum(bytes_returned), sum(bytes_indexed), "
        f"sum(bytes_kept_out), sum(cache_hit), sum(is_error) FROM tool_calls {where} "
        "GROUP BY tool ORDER BY sum(bytes_kept_out) DESC, tool",
        params,
    ).fetchall()
    return [ToolTotals(*row) for row in rows]


def size_text(n: int) -> str:
    """A byte count for people: `512 B`, `9.8 KB`, `12.3 MB`."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def render_report(rows: list[ToolTotals], title: str) -> str:
    if not rows:
        return f"{title}\nNo tool calls recorded yet."
    lines = [title, "tool | calls | processed | returned | indexed | kept out | cache hits"]
    for r in rows:
        lines.append(
            f"{r.tool} | {r.calls} | {size_text(r.bytes_processed)} | {size_text(r.bytes_returned)} | "
            f"{size_text(r.bytes_indexed)} | {size_text(r.bytes_kept_out)} | {r.cache_hits}"
        )
    kept = sum(r.bytes_kept_out for r in rows)
    returned = sum(r.bytes_returned for r in rows)
    lines.append(
        f"Total: {sum(r.calls for r in rows)} calls, {size_text(returned)} returned to context, "
        f"{size_text(kept)} kept out (~{estimated_tokens(kept):,} tokens; {TOKEN_RULE})."
    )
    lines.append(
        "Kept out = what the host would have shown (capped at its output limit) minus what "
        "was returned; indexing and searching alone count as zero."
    )
    return "\n".join(lines)
