"""Hook soak: 10,000 PostToolUse hook runs across 8 concurrent processes; none may be lost.

Run: `.venv/bin/python bench/soak.py` (optionally `--runs 2000 --workers 8`).

Every run is a fresh `<venv python> -I -S -c "...main(...)" claude-code posttooluse` (the
form `ctxmode setup` writes) fed a Write payload whose file name is a unique marker, so
8 writers contend for one project database the way parallel tool calls do. Afterwards
the session tables must hold every marker exactly once (none lost, none doubled), and
every run must have exited 0 without stderr. Latency p50/p95/p99 is reported against a
baseline measured in the same run, interleaved under the same concurrency: the bare
interpreter start `<venv python> -I -S -c pass`, one baseline call for every ten hooks.
Exit code 1 if anything was lost or failed (the soak's verdict), else 0; times never gate.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import ctxmode

SRC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(ctxmode.__file__)))
FAST_CODE = (
    f"import sys;sys.path.insert(0,{SRC_DIR!r});from ctxmode._hook import main;main(sys.argv[1:])"
)
BASELINE_EVERY = 10  # one bare-interpreter call per this many hook calls


def payload(project: str, worker: int, n: int) -> bytes:
    return json.dumps(
        {
            "session_id": f"soak-{worker}",
            "cwd": project,
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": f"{project}/soak-marker-{worker}-{n}.txt", "content": "x"},
            "tool_response": {"success": True},
        }
    ).encode()


def timed(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, str]:
    """Milliseconds, and a failure description ("" when it exited 0 and wrote no stderr)."""
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, timeout=60)
    elapsed = (time.perf_counter() - start) * 1000
    failed = done.returncode != 0 or done.stderr
    return elapsed, (f"exit {done.returncode}: {done.stderr[:200]!r}" if failed else "")


def worker(worker_id: int, runs: int, project: str, env: dict[str, str]) -> dict[str, list]:
    hook = [sys.executable, "-I", "-S", "-c", FAST_CODE, "claude-code", "posttooluse"]
    bare = [sys.executable, "-I", "-S", "-c", "pass"]
    result: dict[str, list] = {"hook": [], "bare": [], "failures": []}
    for n in range(runs):
        elapsed, failure = timed(hook, payload(project, worker_id, n), env)
        result["hook"].append(elapsed)
        if failure:
            result["failures"].append(f"worker {worker_id} run {n}: {failure}")
        if n % BASELINE_EVERY == 0:
            result["bare"].append(timed(bare, b"", env)[0])
    return result


def stored_markers(data_root: str) -> list[str]:
    """Every soak marker in the session events of every project database."""
    markers: list[str] = []
    for directory, _, files in os.walk(os.path.join(data_root, "projects")):
        for name in files:
            if not name.endswith(".db"):
                continue
            conn = sqlite3.connect(os.path.join(directory, name))
            try:
                rows = conn.execute(
                    "SELECT data FROM session_events WHERE session_id LIKE 'soak-%' "
                    "AND data LIKE '%soak-marker-%'"
                ).fetchall()
            finally:
                conn.close()
            for (data,) in rows:
                start = data.index("soak-marker-")
                markers.append(data[start:].split()[0].removesuffix(".txt"))
    return markers


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000, help="hook runs in all")
    parser.add_argument("--workers", type=int, default=8, help="hook processes at once")
    args = parser.parse_args()
    per_worker = max(1, args.runs // args.workers)
    with tempfile.TemporaryDirectory(prefix="ctxmode-soak-") as root:
        project = os.path.join(root, "project")
        os.makedirs(project)
        env = {**os.environ, "CTXMODE_DIR": os.path.join(root, "data"),
               "CTXMODE_MCP_READY": "1", "CTXMODE_SESSION_EVENT_CAP": str(10 * args.runs),
               "CLAUDE_CONFIG_DIR": os.path.join(root, "claude")}  # fmt: skip
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            futures = [
                pool.submit(worker, w, per_worker, project, env) for w in range(args.workers)
            ]
            results = [future.result() for future in futures]
        wall = time.monotonic() - started
        markers = stored_markers(env["CTXMODE_DIR"])
    report(results, markers, per_worker, args.workers, wall)


def report(results: list[dict[str, list]], markers: list[str], per_worker: int,
           workers: int, wall: float) -> None:  # fmt: skip
    expected = {f"soak-marker-{w}-{n}" for w in range(workers) for n in range(per_worker)}
    found = set(markers)
    lost = sorted(expected - found)
    doubled = len(markers) - len(found)
    failures = [failure for result in results for failure in result["failures"]]
    hooks = [t for result in results for t in result["hook"]]
    bare = [t for result in results for t in result["bare"]]
    print(f"hook soak: {len(hooks):,} posttooluse runs, {workers} at a time, {wall:.0f} s")
    print(f"  stored: {len(found):,} of {len(expected):,} markers; lost {len(lost)}, "
          f"doubled {doubled}; failed runs {len(failures)}")  # fmt: skip
    for line in lost[:5] + failures[:5]:
        print(f"    {line}")
    print(f"{'':24} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, values in (("hook (fast form)", hooks), ("baseline -I -S -c pass", bare)):
        print(f"{name:24} {percentile(values, 0.5):8.1f} {percentile(values, 0.95):8.1f} "
              f"{percentile(values, 0.99):8.1f} {max(values):8.1f}")  # fmt: skip
    for q in (0.5, 0.99):
        ratio = percentile(hooks, q) / percentile(bare, q)
        print(f"  hook / baseline p{round(q * 100)} = {ratio:.2f}x")
    raise SystemExit(1 if lost or doubled or failures else 0)


if __name__ == "__main__":
    main()
