"""Dashboard page times at scale: 1,000 sessions, 200,000 events, 50,000 tool calls.

Run: `.venv/bin/python bench/insight.py` (optionally `--runs 20`).

Fills a throwaway data root (one project holding it all, plus a hook tally of 40,000
calls), starts the real `ctxmode insight` server and times each page over HTTP: the
first load (which parses the tally) and the p50/p95 of the next `--runs` loads, against
the `/health` probe measured in the same run (the server's floor). Target: every page's
p50 under 300 ms. Exit code is always 0: a benchmark, not a gate.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

SESSIONS = 1_000
EVENTS = 200_000
TOOL_CALLS = 50_000
SOURCES = 300
HOOK_CALLS = 40_000
DAY = 86_400.0
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
CATEGORIES = ("file", "prompt", "error", "git", "task", "session", "decision", "env")
TOOLS = ("ctx_execute", "ctx_batch_execute", "ctx_execute_file", "ctx_fetch_and_index")


def fill_database(project: str, now: float) -> None:
    from ctxmode.storage import db, schema
    from ctxmode.store.knowledge import KnowledgeBase

    rng = random.Random(7)
    conn = schema.open_project_db(project)
    per_session = EVENTS // SESSIONS
    with db.write_transaction(conn):
        for s in range(SESSIONS):
            sid = f"bench-session-{s:04d}"
            start = now - 30 * DAY + s * 2_500
            conn.execute(
                "INSERT INTO session_meta(session_id, project_dir, platform, started_at, "
                "last_event_at, event_count, tool_calls, compact_count) VALUES (?,?,?,?,?,?,?,?)",
                (sid, project, "claude-code", start, start + per_session * 10, per_session,
                 per_session // 2, s % 3),
            )  # fmt: skip
            conn.executemany(
                "INSERT INTO session_events(session_id, category, type, priority, data, "
                "data_hash, project_dir, created_at) VALUES (?,?,?,?,?,?,?,?)",
                [
                    (sid, (c := rng.choice(CATEGORIES)), "user_prompt" if c == "prompt" else c,
                     rng.randint(1, 5), f"event {i} of {sid}: edited src/module_{i % 50}.py",
                     f"{s}-{i}", project, start + i * 10)
                    for i in range(per_session)
                ],
            )  # fmt: skip
        conn.executemany(
            "INSERT INTO tool_calls(at, session_key, tool, bytes_processed, bytes_returned, "
            "bytes_kept_out) VALUES (?,?,?,?,?,?)",
            [
                (now - rng.random() * 30 * DAY, "mcp-1", rng.choice(TOOLS), (n := rng.randint(0, 200_000)),
                 (r := min(n, rng.randint(200, 3_000))), max(0, min(n, 30_000) - r))
                for _ in range(TOOL_CALLS)
            ],
        )  # fmt: skip
    kb = KnowledgeBase(conn)
    for i in range(SOURCES):
        text = "\n\n".join(
            f"## Section {j}\n\nThe retry budget of service {i} is {j}; backoff doubles."
            for j in range(8)
        )
        kb.index_text(f"source-{i:03d}", text, "markdown")
    conn.close()


def fill_tally(data_root: str, project: str, now: float) -> None:
    rng = random.Random(11)
    os.makedirs(os.path.join(data_root, "logs"), exist_ok=True)
    with open(os.path.join(data_root, "logs", "hook-calls.jsonl"), "w", encoding="utf-8") as out:
        for i in range(HOOK_CALLS):
            line = {"t": now - (HOOK_CALLS - i) * 60, "host": "claude-code", "ev": "pre_tool_use",
                    "tool": "Bash", "sid": f"bench-session-{i % SESSIONS:04d}", "dir": project,
                    "ms": round(rng.uniform(2, 40), 2)}  # fmt: skip
            if i % 10 == 0:
                line.update(act="modify", kind="bash-redirected")
            out.write(json.dumps(line) + "\n")


def fetch_ms(url: str) -> float:
    start = time.perf_counter()
    with DIRECT.open(url, timeout=60) as response:
        response.read()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed loads per page")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxmode-bench-insight-") as root:
        os.environ["CTXMODE_DIR"] = data_root = os.path.join(root, "data")
        project = os.path.join(os.path.realpath(root), "project")
        os.makedirs(project)
        now = time.time()
        started = time.perf_counter()
        fill_database(project, now)
        fill_tally(data_root, project, now)
        print(f"filled in {time.perf_counter() - started:.1f} s: {SESSIONS:,} sessions, "
              f"{EVENTS:,} events, {TOOL_CALLS:,} tool calls, {SOURCES} sources, "
              f"{HOOK_CALLS:,} tallied hook calls")  # fmt: skip
        server = subprocess.Popen(
            [sys.executable, "-m", "ctxmode", "insight", "--no-browser", "--project", project],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            url = server.stdout.readline().split()[2]  # type: ignore[union-attr]
            measure(url, args.runs, project)
        finally:
            server.terminate()
            server.wait(timeout=10)
            server.stdout.close()  # type: ignore[union-attr]


def measure(url: str, runs: int, project: str) -> None:
    from ctxmode.storage.project import project_key

    base, token = url.split("/?t=")
    key = project_key(project)
    pages = {
        "health (floor)": "/health?",
        "overview": "/?",
        "sessions": "/sessions?",
        "one session": f"/sessions/{key}/bench-session-0500?",
        "knowledge": "/knowledge?",
        "knowledge search": "/knowledge?q=retry+budget+backoff&",
        "hooks": "/hooks?",
        "overview, all": "/?project=all&",
        "sessions, all": "/sessions?project=all&",
    }
    print(f"{'page':20} {'first ms':>9} {'p50 ms':>8} {'p95 ms':>8} {'p50/floor':>10}")
    floor = None
    for name, path in pages.items():
        target = f"{base}{path}t={token}"
        first = fetch_ms(target)
        times = sorted(fetch_ms(target) for _ in range(runs))
        p50 = statistics.median(times)
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        floor = floor or p50
        verdict = "" if p50 < 300 else "  over the 300 ms target"
        print(f"{name:20} {first:9.1f} {p50:8.1f} {p95:8.1f} {p50 / floor:9.1f}x{verdict}")


if __name__ == "__main__":
    main()
