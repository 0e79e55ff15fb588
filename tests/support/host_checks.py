"""Assertions every real-host test makes on what the fake model received."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from support.fake_model import Reply, Request, call

ROUTING_MARKER = "<ctxmode_routing>"
NEEDLE = "NEEDLE-from-the-middle-4242"
OUR_TOOLS = (
    "ctx_batch_execute",
    "ctx_execute",
    "ctx_execute_file",
    "ctx_fetch_and_index",
    "ctx_index",
    "ctx_search",
)


def offered_our_tools(request: Request, name_of: str) -> None:
    """The MCP server started: each of our tools is in the tool list under the host's name.

    `name_of` is the host's naming with `{tool}` in it, e.g. "mcp__context-mode__{tool}".
    """
    offered = set(request.tool_names())
    absent = [
        name_of.format(tool=tool) for tool in OUR_TOOLS if name_of.format(tool=tool) not in offered
    ]
    assert not absent, f"not offered to the model: {absent}; offered: {sorted(offered)}"


def named_tools_exist(text: str, pattern: str, request: Request) -> list[str]:
    """Every tool name matching `pattern` in `text` (what we told the model) is offered."""
    named = sorted(set(re.findall(pattern, text)))
    offered = set(request.tool_names())
    unknown = [name for name in named if name not in offered]
    assert not unknown, f"we named tools the host does not offer: {unknown}"
    return named


def routing_block_once(request: Request) -> str:
    """Our routing block reached the model exactly once (as is, or HTML-escaped: Gemini CLI
    and Qwen Code escape hook context); its text as the model got it."""
    text = request.text()
    escaped = ROUTING_MARKER.replace("<", "&lt;").replace(">", "&gt;")
    count = text.count(ROUTING_MARKER) + text.count(escaped)
    assert count == 1, f"the routing block reached the model {count} times"
    start = max(text.find(ROUTING_MARKER), text.find(escaped))
    end = text.find("/ctxmode_routing", start)
    return text[start:end]


def nudge_once(request: Request, nudge: str, pattern: str) -> None:
    """A tip we emitted (`nudge`, exactly as our hook wrote it) reached the model once,
    naming only tools the host offers."""
    count = request.text().count(nudge)
    assert count == 1, f"the tip reached the model {count} times: {nudge[:80]}"
    named_tools_exist(nudge, pattern, request)


def tool_named_in(text: str, pattern: str) -> str:
    """The first tool name matching `pattern` in a deny reason (the model calls that one)."""
    found = re.search(pattern, text)
    assert found, f"no tool name matching {pattern!r} in: {text[:500]}"
    return found.group(0)


def execute_named_tool(pattern: str) -> Callable[[Request], Reply]:
    """A turn calling ctx_execute by the name matching `pattern` in the last tool result
    (our deny reason or redirect: what a model would do with it)."""

    def turn(request: Request) -> Reply:
        name = tool_named_in(request.tool_results()[-1], pattern)
        return call(name, language="shell", code="echo FACT-$((40 + 2))")

    return turn


def tallied_events(platform_id: str, home: Path) -> set[str]:
    """The canonical events our hook answered for `platform_id`, from the hook tally: under
    the test's data root, or under the host run's HOME, where hooks keep it because the
    host runs without our CTXMODE_DIR (`hosts.KEPT_ENV`; hosts given it do pass it on)."""
    roots = [Path(os.environ["CTXMODE_DIR"]), home / ".local" / "share" / "ctxmode"]
    calls = []
    for log in (root / "logs" / "hook-calls.jsonl" for root in roots):
        if log.exists():
            lines = log.read_text(encoding="utf-8").splitlines()
            calls += [json.loads(line) for line in lines if line.strip()]
    return {call["ev"] for call in calls if call.get("host") == platform_id}


def big_log(work: Path, needle: str = NEEDLE, line: int = 2_500) -> None:
    """`work/big.log`: about 300 KB of log lines (50 bytes each) with `needle` on `line`,
    by default in the middle."""
    lines = [
        f"2026-12-01 12:00:{n % 60:02d} worker-{n % 7} processed batch {n} ok" for n in range(5_700)
    ]
    lines[line] = f"2026-12-01 12:00:00 worker-3 {needle} checksum verified"
    (work / "big.log").write_text("\n".join(lines) + "\n")
    assert (work / "big.log").stat().st_size > 290_000
