"""`ctxmode-wrap [--host HOST] [--project DIR] -- COMMAND`: run a shell command, keep bulky
output out of the context.

The command text runs through the user's shell (same cwd, environment, stdin; exit
code preserved). Output up to the threshold (CTXMODE_WRAP_THRESHOLD, default 5,000
bytes) is written back byte for byte, stdout to stdout and stderr to stderr, in the
order it arrived. Above it, the whole output is indexed in the project's knowledge base
and a notice of at most 2,048 bytes is printed instead, naming the label and the
HOST's search tool. If indexing fails the output is printed as it is: nothing is lost.

COMMAND is one word holding shell text (`-- 'pytest -q | tail'`), or several words that
are joined back into shell text, each quoted as needed (`-- pytest -q`). HOST names the
platform whose tool names the notice uses; DIR the project (default: found from the
cwd). Routing rewrites commands to this console script (see `ctxmode.launch`); until the
output turns out to need indexing only the standard library and
`ctxmode.wrapper.capture` are imported.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.wrapper.capture import Captured

USAGE = "usage: ctxmode-wrap [--host HOST[=TOOL_PREFIX]] [--project DIR] -- COMMAND...\n"


def parse_args(args: list[str]) -> tuple[str, str, str] | None:
    """(host, project dir, command text) from the command line, None when it is malformed."""
    options = {"--host": "", "--project": ""}
    index = 0
    while index < len(args) and args[index] != "--":
        name, equals, value = args[index].partition("=")
        if name not in options:
            return None
        if not equals:
            index += 1
            if index >= len(args):
                return None
            value = args[index]
        options[name] = value
        index += 1
    words = args[index + 1 :]
    if not words:
        return None
    if len(words) == 1:
        return options["--host"], options["--project"], words[0]
    from ctxmode.launch import sh_quote

    return options["--host"], options["--project"], " ".join(sh_quote(word) for word in words)


def threshold() -> int:
    from ctxmode import settings

    return settings.integer(settings.WRAP_THRESHOLD)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            continue
        except OSError:  # our reader went away (`| head`): nothing left to tell it
            return


def _write_spools(captured: Captured) -> None:
    from ctxmode.wrapper.capture import STDERR, STDOUT

    for stream, spool in zip((STDOUT, STDERR), captured.spools, strict=True):
        for piece in spool.iter_lines_bytes():
            _write(stream, piece)


def main(argv: list[str] | None = None) -> None:
    parsed = parse_args(sys.argv[1:] if argv is None else argv)
    if parsed is None:
        _write(2, USAGE.encode())
        raise SystemExit(2)
    host, project_dir, command = parsed
    host_id, named, prefix = host.partition("=")  # the prefix the hook found, if it says
    from ctxmode.wrapper.capture import run_captured

    captured = run_captured(command, threshold())
    if not captured.spilled:
        for stream, data in captured.chunks:
            _write(stream, data)
        raise SystemExit(captured.exit_code)
    from ctxmode.hooks import wrap_history

    wrap_history.record(project_dir, command)
    try:
        from ctxmode.wrapper.notice import build_notice

        notice = build_notice(captured, command, host_id, project_dir, prefix if named else None)
    except Exception as error:  # the store is unusable: print everything, as the bare command would
        from ctxmode.paths import append_log

        append_log("wrap-errors.log", f"indexing wrapped output failed: {error!r}")
        _write_spools(captured)
        _write(2, f"\nctxmode: the output could not be indexed ({error})\n".encode())
        raise SystemExit(captured.exit_code) from None
    _write(1, (notice.rstrip("\n") + "\n").encode("utf-8"))
    raise SystemExit(captured.exit_code)
