"""The overview's figures: bytes kept out of the context per day, tool and host, and what was steered.

Two measured sources, disjoint by construction: MCP tool calls of our server
(`tool_calls`, kept-out already capped at what the host would have shown) and Tier-2
output replacements recorded by the hook tally (only other servers' MCP tools are ever
replaced, so no byte is counted twice; the same cap rule is applied). Redirects, denies
and nudges are COUNTED: what a stopped request would have returned is unknown.
"""

from __future__ import annotations

import functools
import sqlite3
import time
from collections import defaultdict
from dataclasses import dataclass, field

from ctxmode import stats
from ctxmode.insight.hooklog import HookCall
from ctxmode.insight.projects import PerFileCache, Scope

MCP_HOST = "MCP client without a name"
STEERED_ACTIONS = {"modify": "redirected", "deny": "denied", "ask": "asked", "context": "nudged"}


@dataclass
class Measured:
    """Measured bytes for one group: output handled, returned to the model, kept out."""

    calls: int = 0
    processed: int = 0
    returned: int = 0
    kept_out: int = 0

    def add(self, calls: int, processed: int, returned: int, kept_out: int) -> None:
        self.calls += calls
        self.processed += processed
        self.returned += returned
        self.kept_out += kept_out

    @property
    def tokens(self) -> int:
        return stats.estimated_tokens(self.kept_out)

    @property
    def share_reached(self) -> float | None:
        """Of what the model would have read (returned + kept out), the share it did read.

        Not returned / handled: indexing a file handles bytes the model would never have
        read raw, so that ratio would flatter us.
        """
        seen = self.returned + self.kept_out
        return self.returned / seen if seen else None


@dataclass
class Overview:
    total: Measured = field(default_factory=Measured)
    by_day: dict[str, Measured] = field(default_factory=lambda: defaultdict(Measured))
    by_tool: dict[str, Measured] = field(default_factory=lambda: defaultdict(Measured))
    by_host: dict[str, Measured] = field(default_factory=lambda: defaultdict(Measured))
    # (host, tool, what happened, rule) -> how many times; no bytes attached
    steered: dict[tuple[str, str, str, str], int] = field(default_factory=lambda: defaultdict(int))
    steered_by_day: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    token_rule: str = stats.TOKEN_RULE


def _tool_call_days(conn: sqlite3.Connection) -> list[tuple]:
    """(day, tool, client, calls, handled, returned, kept out) per day, tool and MCP client."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(tool_calls)")}
    client = "client" if "client" in columns else "''"  # schema v5 did not record it yet
    return conn.execute(  # whole days since the epoch: integer maths, not date()
        f"SELECT CAST(at / 86400 AS INTEGER), tool, {client}, count(*), sum(bytes_processed), "
        "sum(bytes_returned), sum(bytes_kept_out) FROM tool_calls GROUP BY 1, 2, 3"
    ).fetchall()


def _add_tool_calls(overview: Overview, scope: Scope, cache: PerFileCache) -> None:
    for item, conn in scope.connections():
        rows = cache.get(item.db_path, "tool-call-days", functools.partial(_tool_call_days, conn))
        for day, tool, client, calls, processed, returned, kept in rows:
            host = f"{client} (MCP client)" if client else MCP_HOST
            for group in (
                overview.total,
                overview.by_day[day_of(day * 86400)],
                overview.by_tool[tool],
                overview.by_host[host],
            ):
                group.add(calls, processed, returned, kept)


@functools.lru_cache(maxsize=4096)
def day_of(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(timestamp))


def _add_hook_calls(overview: Overview, decided: list[HookCall]) -> None:
    for call in decided:
        if call.action == "replace_output":
            kept = stats.kept_out(call.bytes_in, call.bytes_out)
            tool = f"{call.tool} (hook)"
            for group in (
                overview.total,
                overview.by_day[day_of(call.at // 86400 * 86400)],
                overview.by_tool[tool],
                overview.by_host[call.host],
            ):
                group.add(1, call.bytes_in, call.bytes_out, kept)
        elif call.action in STEERED_ACTIONS and call.kind:
            what = STEERED_ACTIONS[call.action]
            overview.steered[(call.host, call.tool, what, call.kind)] += 1
            overview.steered_by_day[day_of(call.at // 86400 * 86400)] += 1
        elif call.action in ("deny", "ask"):  # a permission rule: no routing kind
            what = STEERED_ACTIONS[call.action]
            overview.steered[(call.host, call.tool, what, "permission rule")] += 1
            overview.steered_by_day[day_of(call.at // 86400 * 86400)] += 1


def overview(scope: Scope, decided: list[HookCall], cache: PerFileCache) -> Overview:
    """Figures for `scope`; `decided` holds the hook calls of the scope that decided something."""
    result = Overview()
    _add_tool_calls(result, scope, cache)
    _add_hook_calls(result, decided)
    return result
