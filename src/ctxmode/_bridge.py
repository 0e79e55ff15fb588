"""`ctxmode._bridge <platform>`: one long-lived process answering a plugin shim in JSON lines.

A plugin host (DSH, OpenCode, ...) loads a JS shim in-process; instead of starting
`ctxmode hook <platform> <event>` for every tool call, the shim may keep this child and
write one request per line, `{"id": N, "event": "<host event>", ...payload}`. Each gets
one line back, `{"id": N, "answer": <what the hook would print, or null>}`, produced by
the same `hooks.runner.run` as the per-call hook, so both forms decide identically.
Requests are answered in order; a bad line is logged and answered null (when it has an
id), and stdin EOF ends the process with exit 0. Standard library and our small modules
only, launched in the fast form (`-I -S`) like the hook.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.vocab.platform import Platform

USAGE = "usage: ctxmode._bridge <platform>  (JSON lines on stdin, one answer line each)\n"


def _write(text: str) -> bool:
    data = text.encode("utf-8", "replace")
    while data:
        try:
            written = os.write(1, data)
        except BlockingIOError:
            continue
        except OSError:  # the shim is gone
            return False
        data = data[written:]
    return True


def answer_line(platform: Platform, line: bytes) -> str:
    """The reply line for one request line ("" when it carries no usable id)."""
    from ctxmode.hooks.runner import log_error, run
    from ctxmode.hooks.stdin import PayloadError, parse_payload

    try:
        request = parse_payload(line)
    except PayloadError as error:
        log_error(platform.id, "bridge", f"bad request line: {error}")
        return ""
    request_id = request.get("id")
    if not isinstance(request_id, int) or isinstance(request_id, bool):
        log_error(platform.id, "bridge", "request line without an integer id")
        return ""
    event = request.get("event")
    output = run(platform, event if isinstance(event, str) else "", lambda: line)
    if output.stderr:
        log_error(platform.id, str(event), output.stderr.strip())
    answer = output.stdout.strip() or "null"
    return f'{{"id": {request_id}, "answer": {answer}}}\n'


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        os.write(2, USAGE.encode())
        raise SystemExit(0)
    from ctxmode.hooks.runner import log_error
    from ctxmode.platforms import load

    try:
        platform = load(args[0])
    except Exception as error:  # a broken host module: the shim falls back to the host's way
        log_error(args[0], "bridge", f"cannot load platform module: {error!r}")
        raise SystemExit(0) from None
    if platform is None:
        os.write(2, f"ctxmode._bridge: unknown platform {args[0]!r}\n".encode())
        raise SystemExit(0)
    stdin = sys.stdin.buffer
    while True:
        try:
            line = stdin.readline()
        except (OSError, ValueError):
            break
        if not line:
            break  # EOF: the host is gone or closed us
        if not line.strip():
            continue
        try:
            reply = answer_line(platform, line)
        except Exception as error:  # never die on one request: the next may be fine
            log_error(platform.id, "bridge", repr(error))
            reply = ""
        if reply and not _write(reply):
            break
    raise SystemExit(0)
