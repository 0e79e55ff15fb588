"""Wrapper latency benchmark: what the wrapper adds to a command's wall time, per command.

Run: `.venv/bin/python bench/wrapper.py` (optionally `--runs 40`).

Each sample is a fresh `bash -c <text>` process, as a host's shell tool runs a command:
  bare      `<command>`                    (the baseline, measured in the same run)
  PATH      `ctxmode-wrap --host H -- <command>`, the console script found on PATH
            (what routing writes when the host's PATH has our venv's bin dir)
  absolute  `/venv/bin/ctxmode-wrap --host H -- <command>` (what it writes otherwise)
  -I -S     `<venv python> -I -S -c "...from ctxmode._wrap import main..." --host H -- <command>`
            (no console script: the import-light interpreter line, for comparison)
  floor     `<venv python> -I -S -c pass` (any Python wrapper's lower bound)
interleaved, for five commands: `true` (pure start-up), a 4 KB output (passed through byte
for byte), a failing command with a little stderr, a 200 KB output (indexed, a notice
printed) and a failing 120 KB test run. Prints, per command and form, the wrapped p50 and
p95 and what the wrapper adds at p50 and p95 (wrapped minus bare at the same quantile),
and the added CPU time at p50 (user + system of the whole process tree: steadier than
wall time on a busy box). Target: the small-output cases add <= 30 ms at p50 (the floor:
13-19 ms on an idle box). Exit code is always 0: a benchmark, not a gate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from ctxmode.launch import WRAP_SCRIPT, fast_module_prefix, sh_quote

COMMANDS = {
    "true": "true",
    "4 KB out": "head -c 4000 /dev/zero | tr '\\0' x",
    "fails, stderr": "echo 'error: no such file' >&2; exit 2",
    "200 KB out": "seq 1 40000 | sed 's/$/ line of output/' | head -c 200000",
    "120 KB, fails": (
        'for i in $(seq 1 2600); do echo "tests/test_m.py::test_case_$i PASSED"; done; '
        "echo 'FAILED tests/test_b.py::test_refund - AssertionError: assert 41 == 42'; exit 1"
    ),
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


def forms(data: str) -> dict[str, tuple[str, dict[str, str]]]:
    """Form name -> (the wrapper prefix to put before `-- <command>`, extra environment)."""
    bin_dir = os.path.dirname(os.path.abspath(sys.executable))
    script = os.path.join(bin_dir, WRAP_SCRIPT)
    module = fast_module_prefix("ctxmode._wrap")
    found = {
        "-I -S": (f"{module} --host claude-code", {}),
        "absolute": (f"{sh_quote(script)} --host claude-code", {}),
        "PATH": (f"{WRAP_SCRIPT} --host claude-code", {"PATH": f"{bin_dir}:{os.defpath}"}),
    }
    return found if os.access(script, os.X_OK) else {"-I -S": found["-I -S"]}


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
        print(f"{'command':<14} {'form':<9} {'bare p50':>9} {'wrapped p50':>12} "
              f"{'wrapped p95':>12} {'added p50':>10} {'added p95':>10} {'cpu added':>10}")  # fmt: skip
        for name, text in COMMANDS.items():
            runs = {form: (f"{prefix} -- {sh_quote(text)}", {**env, **extra})
                    for form, (prefix, extra) in forms(data).items()}  # fmt: skip
            for wrapped, form_env in runs.values():
                time_shell(wrapped, form_env)  # warm the page cache and the .pyc files
            bare: list[tuple[float, float]] = []
            timed: dict[str, list[tuple[float, float]]] = {form: [] for form in runs}
            for _ in range(args.runs):
                bare.append(time_shell(text, env))
                for form, (wrapped, form_env) in runs.items():
                    timed[form].append(time_shell(wrapped, form_env))
            b_wall = [w for w, _ in bare]
            bc50 = statistics.median(c for _, c in bare)
            for form, samples in timed.items():
                wall = [w for w, _ in samples]
                wc50 = statistics.median(c for _, c in samples)
                w50, w95 = p(wall, 0.5), p(wall, 0.95)
                print(
                    f"{name:<14} {form:<9} {p(b_wall, 0.5):>7.1f}ms {w50:>10.1f}ms "
                    f"{w95:>10.1f}ms {w50 - p(b_wall, 0.5):>+8.1f}ms "
                    f"{w95 - p(b_wall, 0.95):>+8.1f}ms {wc50 - bc50:>+8.1f}ms"
                )


if __name__ == "__main__":
    main()
