"""Other MCP servers' bulky results on real host binaries, without and with ctxmode.

Run: `.venv/bin/python bench/mcp_results.py` (every host; or e.g. `--hosts claude-code,kilo`,
`--server playwright`, `--hosts openclaw --lines 1150` for the ~90 KB log OpenClaw's result
middleware sees whole), after `.ci/install-hosts` (and `.ci/install-chromium` for Playwright).
Each host runs offline against a scripted model on 127.0.0.1 (`tests/support/mcp_session.py`)
that calls a third-party MCP server from npm: the official filesystem server reading a
330 KB log (needle: a line from its middle), or Playwright MCP snapshotting a 2,000-row page
(needle: row 1234), then the search our notice names. Printed per host: the bytes the model
received for the big result, and whether the needle reached it (natively: in the result;
with ctxmode: in the result or the one search), without ctxmode and with it.
Exit code is always 0: a benchmark, not a gate (tests/platforms/real/test_mcp_results.py is).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.hosts import HostWorld, offline_netns
from support.mcp_servers import PAGE_NEEDLE, orders_page, page_server, playwright
from support.mcp_session import (
    ALL_HOSTS,
    LOG_LINES,
    MIDDLE,
    CallThenSearch,
    big_log,
    mcp_session,
    reads,
)

HOSTS = [*ALL_HOSTS, "openclaw"]


def measure(
    world: HostWorld, host: str, server: str, with_ctxmode: bool, lines: int = LOG_LINES
) -> tuple[int, bool]:
    """(bytes the model got for the big result, needle reached) for one session."""
    if server == "fs":
        big_log(world.work / "app.log", lines)
        agent, needle, index = reads(world.work / "app.log"), MIDDLE, 0
        results, _ = mcp_session(world, host, agent, with_ctxmode=with_ctxmode)
    else:
        argv = playwright(world)
        with page_server(world, orders_page()) as url:
            steps = [("browser_navigate", {"url": url}), ("browser_snapshot", {})]
            agent = CallThenSearch(world.work, "", steps=steps, server="playwright",
                                   query="order 1234 Reykjavik")  # fmt: skip
            results, _ = mcp_session(world, host, agent, argv, with_ctxmode=with_ctxmode)
        needle, index = PAGE_NEEDLE, 1
    got = results[index] if len(results) > index else ""
    return len(got.encode("utf-8")), any(needle in result for result in results[index:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default=",".join(HOSTS), help=f"of {', '.join(HOSTS)}")
    parser.add_argument("--server", choices=("fs", "playwright"), default="fs")
    parser.add_argument("--lines", type=int, default=LOG_LINES, help="of the log (fs)")
    args = parser.parse_args()
    print(f"{args.server}: {'host':<12} {'without ctxmode':>22} {'with ctxmode':>22}")
    with offline_netns() as netns:
        for host in args.hosts.split(","):
            row = []
            for with_ctxmode in (False, True):
                with tempfile.TemporaryDirectory() as root:
                    world = HostWorld(Path(root), netns)
                    try:
                        size, reached = measure(world, host, args.server, with_ctxmode, args.lines)
                        row.append(
                            f"{size / 1024:>8.1f} KB, needle {'yes' if reached else 'no ':<3}"
                        )
                    except (AssertionError, OSError) as error:
                        row.append(f"{'failed':>22}")
                        print(f"  {host}: {str(error)[:200]}", file=sys.stderr)
            print(f"{args.server}: {host:<12} {row[0]:>22} {row[1]:>22}")


if __name__ == "__main__":
    main()
