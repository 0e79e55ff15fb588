"""Session benchmark: debugging sessions on real host binaries, without and with ctxmode.

Run: `.venv/bin/python bench/session.py` (after `.ci/install-hosts`): every host, every
scenario, the 20 test runs in one session and the other steps in another (about 30
minutes); `--quick` runs one session of five test runs covering every runner, size,
failure position and exit status (about 10 minutes for all eleven hosts, most of it
OpenCode, Kilo and OpenClaw); `--hosts claude-code,opencode` and `--scenarios
pytest,go/pass-large` (families or step names) choose; `--detail` prints every step and
the facts it lost. A host not installed is reported and skipped.

Each host runs offline against a scripted compliant model on 127.0.0.1
(`tests/support/debug_session.py`): test runs of pytest, jest, go test, cargo test and a
project's own scripts (`./run_tests.sh`, `bash scripts/ci.sh`, `make check`,
`./scripts/test`) in each runner's real format, 1 KB to 350 KB, failing at the start,
middle or end of the run or passing; and (family `other`) a 200 KB log, a 60 KB source
file read, a grep over a tree, `git log` of 200 commits, a docs page fetch. Facts: each
failing test's id and its assertion message, a passing run's summary line, one line
hidden in each other step; a fact counts when it was in what the host sent the model.
Printed per host and family (for `--quick`: its one session): the bytes the model
received for its tool calls and the facts in them, without ctxmode and with it (after
`ctxmode setup <host>`), and the target: every fact, in at most max(half the bytes
without ctxmode, 24 KB); then a summary line per host. Exit code is always 0: a
benchmark, not a gate (tests/platforms/real/test_session.py runs one fixed session on
two hosts).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.debug_session import (
    BY_NAME,
    FAMILIES,
    HOSTS,
    QUICK,
    STEPS,
    Score,
    StepScore,
    run_session,
)
from support.hosts import HostWorld, offline_netns

FLOOR = 24 * 1024


def sessions(scenarios: str, quick: bool) -> dict[str, list[str]]:
    """The sessions to run, each a name and its steps in order: the test runs in one
    long session (as a debugging session goes: run, read, run again), the rest in another."""
    if quick:
        return {"quick": list(QUICK)}
    wanted = scenarios.split(",") if scenarios else list(FAMILIES)
    unknown = [name for name in wanted if name not in FAMILIES and name not in BY_NAME]
    if unknown:
        raise SystemExit(f"unknown scenarios {unknown}; families: {', '.join(FAMILIES)}")
    grouped: dict[str, list[str]] = {}
    for step in STEPS:
        if step.family in wanted or step.name in wanted:
            grouped.setdefault("other" if step.family == "other" else "tests", []).append(step.name)
    return grouped


@dataclass
class Tally:
    """One host's bytes and facts over some steps, without and with ctxmode."""

    without: int = 0
    with_: int = 0
    found_without: int = 0
    found: int = 0
    facts: int = 0

    def add(self, without: StepScore, with_: StepScore) -> None:
        self.without += without.bytes
        self.with_ += with_.bytes
        self.found_without += without.found
        self.found += with_.found
        self.facts += len(with_.facts)

    @property
    def met(self) -> bool:
        return self.found == self.facts and self.with_ <= max(self.without // 2, FLOOR)


def kb(size: int) -> str:
    return f"{size / 1024:.1f}"


def row(host: str, family: str, tally: Tally) -> None:
    target = max(tally.without // 2, FLOOR)
    print(f"{host:<12} {family:<7} {kb(tally.without):>9} {tally.found_without:>3}/{tally.facts:<3} "
          f"{kb(tally.with_):>9} {tally.found:>3}/{tally.facts:<3} {kb(target):>7}  "
          f"{'yes' if tally.met else 'NO'}", flush=True)  # fmt: skip


def detail(without: Score, with_: Score) -> None:
    for name, mine in with_.steps.items():
        theirs = without.steps[name]
        lost = [fact for fact, found in mine.facts.items() if not found]
        print(f"{'':14}{name:<36} {kb(theirs.bytes):>8} {theirs.found:>2}/{len(theirs.facts):<2}"
              f" {kb(mine.bytes):>8} {mine.found:>2}/{len(mine.facts):<2}"
              f"{'  lost: ' + '; '.join(lost)[:90] if lost else ''}", flush=True)  # fmt: skip


def run_host(
    host: str, plan: dict[str, list[str]], netns: str | None, show: bool
) -> tuple[Tally, list[bool]]:
    """The host's sessions, without and with ctxmode; a row per family printed; the host's
    total, and for each family whether it met the target."""
    total, met = Tally(), []
    for session, names in plan.items():
        try:
            with tempfile.TemporaryDirectory(prefix="ctxmode-bench-session-") as root:
                without = run_session(HostWorld(Path(root, "without"), netns), host, False, names)
                with_ = run_session(HostWorld(Path(root, "with"), netns), host, True, names)
        except pytest.skip.Exception as skipped:
            print(f"{host:<12} skipped: {skipped}", flush=True)
            break
        except Exception as error:  # a host that failed: say so, go on with the rest
            print(f"{host:<12} {session:<7} failed: {str(error).splitlines()[0][:200]}", flush=True)
            continue
        families: dict[str, Tally] = {}
        for name in names:
            family = session if session == "quick" else BY_NAME[name].family
            families.setdefault(family, Tally()).add(without.steps[name], with_.steps[name])
            total.add(without.steps[name], with_.steps[name])
        for family, tally in families.items():
            row(host, family, tally)
            met.append(tally.met)
        if show:
            detail(without, with_)
    return total, met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default=",".join(HOSTS), help=f"of {', '.join(HOSTS)}")
    parser.add_argument("--scenarios", default="", help=f"families ({', '.join(FAMILIES)}) "
                        "or step names; default: all")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="one session: " + ", ".join(QUICK))
    parser.add_argument("--detail", action="store_true", help="print every step")
    args = parser.parse_args()
    plan = sessions(args.scenarios, args.quick)
    hosts = args.hosts.split(",")
    if unknown := [host for host in hosts if host not in HOSTS]:
        raise SystemExit(f"unknown hosts {unknown}; hosts: {', '.join(HOSTS)}")
    print(f"{'host':<12} {'family':<7} {'without KB':>9} {'facts':>7} {'with KB':>9} "
          f"{'facts':>7} {'target':>7}  met")  # fmt: skip
    summary = []
    with offline_netns() as netns:
        for host in hosts:
            started = time.monotonic()
            summary.append(
                (host, run_host(host, plan, netns, args.detail), time.monotonic() - started)
            )
    print()
    for host, (tally, met), elapsed in summary:
        ratio = f"{tally.with_ / tally.without:.0%}" if tally.without else "-"
        print(f"{host}: facts {tally.found}/{tally.facts} with ctxmode ({tally.found_without} "
              f"without), {kb(tally.with_)} KB of {kb(tally.without)} KB ({ratio}); "
              f"target met in {sum(met)}/{len(met)} families; {elapsed:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
