"""Wrapper start-up benchmark: what `ctxmode._wrap` adds to a command's wall time.

Run: `.venv/bin/python bench/wrapper.py` (optionally `--runs 40`).

Each sample is a fresh `bash -c <text>` process, as a host's shell tool runs a command:
  bare      `<command>`                          (the baseline, measured in the same run)
  wrapped   `<the fast wrapper form> <command>`  (what routing rewrites a command to)
  floor     `<venv python> -I -S -c pass` (any Python wrapper's lower bound)
interleaved, for three commands: `true` (pure start-up), a 4 KB output (passed through
byte for byte) and a 200 KB output (indexed, a notice printed). Prints p50/p95 of each,
the added milliseconds, the part of them beyond the interpreter floor, and the added CPU
time (user + system of the whole process tree: steadier than wall time on a busy box).
Target: the small-output cases add <= 30 ms at p50 (the floor: 13-19 ms on an idle box).
Exit code is always 0: a benchmark, not a gate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from ctxmode.launch import sh_quote, wrapped_command

COMMANDS = {
    "true": "true",
    "4 KB out": "head -c 4000 /dev/zero | tr '\\0' x",
    "200 KB out": "seq 1 40000 | sed 's/$/ line of output/' | head -c 200000",
}


def time_shell(text: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds (user + system, the shell and all it waited for)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        ["bash", "-c", text],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return (time.perf_counter() - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "CTXMODE_DIR": data, "CTXMODE_PROJECT_DIR": data}
        floor_text = f"{sh_quote(sys.executable)} -I -S -c pass"
        floor = [time_shell(floor_text, env) for _ in range(args.runs)]
        f50, fc50 = (statistics.median(column) for column in zip(*floor, strict=True))
        print(f"interpreter floor: wall p50 {f50:.1f}ms, cpu p50 {fc50:.1f}ms")
        print(f"{'command':<12} {'bare':>8} {'wrapped':>9} {'added':>9} {'beyond floor':>13} "
              f"{'cpu added':>10} {'wrapped p95':>12}")  # fmt: skip
        for name, text in COMMANDS.items():
            wrapped = wrapped_command("claude-code", data, text)
            bare: list[tuple[float, float]] = []
            wrap: list[tuple[float, float]] = []
            time_shell(wrapped, env)  # warm the page cache and the .pyc files
            for _ in range(args.runs):
                bare.append(time_shell(text, env))
                wrap.append(time_shell(wrapped, env))
            b50, bc50 = (statistics.median(column) for column in zip(*bare, strict=True))
            w50, wc50 = (statistics.median(column) for column in zip(*wrap, strict=True))
            print(
                f"{name:<12} {b50:>6.1f}ms {w50:>7.1f}ms {w50 - b50:>+7.1f}ms "
                f"{w50 - b50 - f50:>+11.1f}ms {wc50 - bc50:>+8.1f}ms "
                f"{p([w for w, _ in wrap], 0.95):>10.1f}ms"
            )


if __name__ == "__main__":
    main()
