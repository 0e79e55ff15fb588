"""Session benchmark: a debugging session on real host binaries, without and with ctxmode.

Run: `.venv/bin/python bench/session.py` (every host; or e.g. `--hosts claude-code,codex`),
after `.ci/install-hosts`. Each host runs offline against a scripted compliant model on 127.0.0.1
(`tests/support/debug_session.py`: tests with 3 failures in ~120 KB of noise, a 200 KB
log, a 60 KB source file read, a grep over a tree, `git log` of 200 commits, a docs page
fetch). Printed per host: the bytes of every tool result the model received and how many
of the 6 facts were in them, without ctxmode and with it (after `ctxmode setup <host>`),
and the target: every fact, in at most max(half the bytes without ctxmode, 24 KB).
Exit code is always 0: a benchmark, not a gate (tests/platforms/real/test_session.py is).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.debug_session import FACTS, HOSTS, run_session
from support.hosts import HostWorld, offline_netns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default=",".join(HOSTS), help=f"of {', '.join(HOSTS)}")
    args = parser.parse_args()
    print(f"{'host':<12} {'without':>16} {'with ctxmode':>16} {'target':>9}  met")
    with offline_netns() as netns:
        for host in args.hosts.split(","):
            with tempfile.TemporaryDirectory() as root:
                without = run_session(HostWorld(Path(root, "without"), netns), host, False)
                with_ = run_session(HostWorld(Path(root, "with"), netns), host, True)
            target = max(without.tool_result_bytes // 2, 24 * 1024)
            met = with_.facts_found == len(FACTS) and with_.tool_result_bytes <= target
            print(
                f"{host:<12} {without.tool_result_bytes / 1024:>7.1f} KB {without.facts_found}/6 "
                f"{with_.tool_result_bytes / 1024:>8.1f} KB {with_.facts_found}/6 "
                f"{target / 1024:>6.1f} KB  {'yes' if met else 'NO'}"
            )


if __name__ == "__main__":
    main()
