"""One line per answered hook call in `<data root>/logs/hook-calls.jsonl`.

The dashboard (`ctxmode insight`) reads it for what the hook path decided (redirects
and denies counted, never given invented sizes), the bytes a Tier-2 output
replacement really kept out, and how long each call took inside the process. Hot
path: one O_APPEND write of a short line, no lock, never raises. The file is renamed
to `.1` past MAX_BYTES, so the tally keeps between one and two files' worth of calls.
"""

from __future__ import annotations

import os
import time

from ctxmode import fastjson, paths
from ctxmode.vocab.event import REPLACE_OUTPUT, Decision, HookEvent

LOG_NAME = "hook-calls.jsonl"
MAX_BYTES = 4_000_000
FIELD_CHARS = 200  # ids and paths are clipped: a line stays one small write


def line(event: HookEvent, decision: Decision | None, elapsed_ms: float) -> str:
    """The JSON line for one call: when, host, event, tool, session, project, answer, time."""
    record = {
        "t": round(time.time(), 3),
        "host": event.platform,
        "ev": event.event,
        "tool": event.tool[:FIELD_CHARS],
        "sid": event.session_id[:FIELD_CHARS],
        "dir": event.project_dir[:FIELD_CHARS],
        "ms": round(elapsed_ms, 2),
    }
    if decision is not None:
        record["act"] = decision.action
        kind = decision.meta.get("type") if isinstance(decision.meta, dict) else None
        if isinstance(kind, str):
            record["kind"] = kind
        if decision.action == REPLACE_OUTPUT:  # measured: both texts are in hand
            record.update(_replaced_sizes(event, decision))
    return fastjson.dumps(record) + "\n"


def _replaced_sizes(event: HookEvent, decision: Decision) -> dict[str, int]:
    from ctxmode.hooks.mcp_result import result_text
    from ctxmode.hooks.posttooluse import shell_output_text

    measured = (decision.meta or {}).get("bytes")  # a cut output: all of it, spilled part too
    if not isinstance(measured, int):
        original = result_text(event.tool_output) or shell_output_text(event.tool_output) or ""
        measured = len(original.encode("utf-8", "replace"))
    return {
        "bytes_in": measured,
        "bytes_out": len((decision.context or "").encode("utf-8", "replace")),
    }


def record(event: HookEvent, decision: Decision | None, started: float) -> None:
    """Append this call's line (`started`: `time.perf_counter()` when the call began)."""
    try:
        text = line(event, decision, (time.perf_counter() - started) * 1000)
        path = os.path.join(paths.logs_dir(), LOG_NAME)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except FileNotFoundError:
            paths.ensure_dir(paths.logs_dir())
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, text.encode("utf-8", "replace"))
            full = os.fstat(fd).st_size > MAX_BYTES
        finally:
            os.close(fd)
        if full:
            os.replace(path, path + ".1")
    except Exception as error:  # the tally must never cost the host its answer
        paths.append_log("hook-errors.log", f"hook tally not written: {error!r}")
