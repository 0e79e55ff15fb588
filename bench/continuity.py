"""Continuity benchmark: does the guide after compaction still carry the working state?

Run: `.venv/bin/python bench/continuity.py` (options: `--budget 2048`, `--runs 21`, `--seed 7`).

1. Plays a scripted Claude Code session through the real hook code (runner.run: parse,
   handlers, session capture, render): 200 meaningful events (prompts with decisions, task
   lists, edits, a failing test then its fix, an error left unfixed, a branch, commits, a
   cd) buried in 2,000 noise events (reads, greps, ls, git status, searches, fetches).
2. Runs PreCompact and SessionStart(compact) as real hook processes and reads the guide
   out of the host envelope.
3. Checks fact probes against the guide (critical ones: last request, open tasks, recent
   files, the unresolved error, the fixed error gone, decisions, branch, cwd).
4. Measures hook cost: p50 of `ctxmode hook claude-code posttooluse` (console script) and
   of the fast form against `python3 -c pass`, interleaved in the same run.
Prints probes kept, guide bytes and the budget. Exit code 0: a benchmark, not a gate.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import ctxmode

SRC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(ctxmode.__file__)))
SESSION = "5e55104e-0000-4000-8000-000000000001"
FAIL = "FAILED tests/test_{name}.py::test_edge - AssertionError\n===== 1 failed, 12 passed ====="
PASS = "===== 13 passed in 0.4s ====="


def meaningful(root: str) -> list[tuple[str, dict]]:
    """200 events that matter, in order, as (hook event, payload extra) pairs."""
    out: list[tuple[str, dict]] = []

    def prompt(text: str) -> None:
        out.append(("userpromptsubmit", {"prompt": text}))

    def tool(name: str, tool_input: dict, stdout: str = "") -> None:
        response = {"stdout": stdout, "stderr": "", "interrupted": False}
        out.append(
            (
                "posttooluse",
                {"tool_name": name, "tool_input": tool_input, "tool_response": response},
            )
        )

    def todos(items: list[tuple[str, str]]) -> None:
        tool(
            "TodoWrite", {"todos": [{"content": c, "status": s, "activeForm": c} for c, s in items]}
        )

    modules = ["ingest", "schema", "writer", "reader", "cli", "config", "retry", "metrics"]
    prompt("/goal make the ingest pipeline resumable after crashes")
    prompt("It has to run on Python 3.9, no new dependencies.")
    tool("Read", {"file_path": f"{root}/CLAUDE.md"}, "Use ruff. Keep functions short.")
    tool("Bash", {"command": "python -m venv .venv && pip install pytest-timeout"})
    tool(
        "Bash",
        {"command": "git checkout -b feature/resumable-ingest"},
        "Switched to a new branch 'feature/resumable-ingest'",
    )
    decisions = [
        "Use sqlite for the checkpoint store instead of JSON files.",
        "Never swallow exceptions in the writer, log and re-raise.",
        "From now on, keep each commit under 200 lines.",
        "Don't touch the public CLI flags.",
        "Always add a regression test before fixing a bug.",
        "Prefer dataclasses over dicts for records.",
    ]
    tasks = [f"Make {m} resumable" for m in modules]
    for step, module in enumerate(modules):
        prompt(f"Now make the {module} stage resumable")
        if step < len(decisions):
            prompt(decisions[step])
        status = [
            (t, "completed" if i < step else "in_progress" if i == step else "pending")
            for i, t in enumerate(tasks)
        ]
        todos(status)
        for part in range(3):
            tool(
                "Edit",
                {
                    "file_path": f"{root}/src/pipeline/{module}.py",
                    "old_string": "a",
                    "new_string": f"b{part}",
                },
            )
            tool("Read", {"file_path": f"{root}/src/pipeline/{module}.py"}, "x")
        tool(
            "Write", {"file_path": f"{root}/tests/test_{module}.py", "content": "def test(): pass"}
        )
        tool("Bash", {"command": f"pytest tests/test_{module}.py"}, FAIL.format(name=module))
        tool(
            "Edit",
            {"file_path": f"{root}/src/pipeline/{module}.py", "old_string": "b", "new_string": "c"},
        )
        tool("Bash", {"command": f"pytest tests/test_{module}.py"}, PASS)
        tool(
            "Bash",
            {"command": f"git add -A && git commit -m 'Make {module} resumable'"},
            "[feature 1a2b] ok",
        )
        tool("Grep", {"pattern": f"{module}_state", "path": "src"})
    tool(
        "Bash",
        {"command": "cd services/api && pytest tests/test_endpoints.py"},
        "FAILED tests/test_endpoints.py::test_resume_token - KeyError: 'cursor'\n1 failed",
    )
    todos(
        [(t, "completed") for t in tasks[:6]]
        + [
            (tasks[6], "in_progress"),
            (tasks[7], "pending"),
            ("Document the checkpoint format", "pending"),
        ]
    )
    while len(out) < 199:
        tool("Read", {"file_path": f"{root}/src/pipeline/{random.choice(modules)}.py"}, "x")
    prompt("Fix the resume token KeyError in the API tests, then document the checkpoint format")
    return out[:200]


def noise(root: str, n: int, rng: random.Random) -> list[tuple[str, dict]]:
    kinds = [
        lambda i: ("Read", {"file_path": f"{root}/vendor/lib_{i % 300}/mod.py"}, "code"),
        lambda i: ("Grep", {"pattern": f"symbol_{i}", "path": "vendor"}, ""),
        lambda i: ("Glob", {"pattern": f"**/*_{i % 50}.py"}, ""),
        lambda i: ("Bash", {"command": f"ls -la vendor/lib_{i % 300}"}, "total 8"),
        lambda i: (
            "Bash",
            {"command": "git status"},
            "On branch feature/resumable-ingest\nnothing to commit",
        ),
        lambda i: ("Bash", {"command": f"git log --oneline -n {i % 9 + 1}"}, "1a2b ok"),
        lambda i: ("mcp__context-mode__ctx_search", {"queries": [f"q{i}"]}, "results"),
        lambda i: ("WebFetch", {"url": f"https://docs.example.com/p/{i}", "prompt": "x"}, "page"),
    ]
    events = []
    for i in range(n):
        name, tool_input, stdout = rng.choice(kinds)(i)
        response = {"stdout": stdout, "stderr": "", "interrupted": False}
        events.append(
            (
                "posttooluse",
                {"tool_name": name, "tool_input": tool_input, "tool_response": response},
            )
        )
    return events


def play(events: list[tuple[str, dict]], root: str) -> None:
    from ctxmode.hooks.runner import run

    for hook_event, extra in events:
        payload = json.dumps({"session_id": SESSION, "cwd": root, **extra}).encode()
        run("claude-code", hook_event, lambda data=payload: data)


def hook_process(event: str, payload: dict, env: dict[str, str], root: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ctxmode", "hook", "claude-code", event],
        input=json.dumps({"session_id": SESSION, "cwd": root, **payload}).encode(),
        capture_output=True, env=env, cwd=root, timeout=60, check=False,
    )  # fmt: skip
    return done.stdout.decode()


PROBES = [
    # (name, critical, text that must be in the guide, or "!text" that must not be)
    ("last request", True, "Fix the resume token KeyError in the API tests"),
    ("open task: retry", True, "Make retry resumable"),
    ("open task: metrics", True, "Make metrics resumable"),
    ("open task: docs", True, "Document the checkpoint format"),
    ("completed task gone", True, "!Make ingest resumable"),
    ("file: metrics.py", True, "src/pipeline/metrics.py"),
    ("file: test_metrics.py", True, "tests/test_metrics.py"),
    ("file: retry.py", True, "src/pipeline/retry.py"),
    ("file: config.py", False, "src/pipeline/config.py"),
    ("unresolved error", True, "test_resume_token"),
    ("fixed error gone", True, "!test_metrics.py::test_edge"),
    ("decision: sqlite", True, "sqlite for the checkpoint store"),
    ("decision: exceptions", True, "Never swallow exceptions"),
    ("decision: commit size", True, "keep each commit under 200 lines"),
    ("decision: CLI flags", True, "touch the public CLI flags"),
    ("decision: regression test", True, "regression test before fixing"),
    ("decision: dataclasses", True, "dataclasses over dicts"),
    ("current branch", True, "feature/resumable-ingest"),
    ("cwd", True, "services/api"),
    ("last commit", False, "commit: Make metrics resumable"),
    ("goal", False, "resumable after crashes"),
    ("constraint", False, "Python 3.9"),
    ("rule file", False, "CLAUDE.md"),
    ("environment", False, "pip install pytest-timeout"),
]


def check(guide: str) -> list[tuple[str, bool, bool]]:
    results = []
    for name, critical, text in PROBES:
        kept = text[1:] not in guide if text.startswith("!") else text in guide
        results.append((name, critical, kept))
    return results


def p50(command: list[str], stdin: bytes, env: dict[str, str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            command,
            input=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
        )
        times.append((time.perf_counter() - start) * 1000)
    return times


def hook_cost(env: dict[str, str], root: str, runs: int) -> None:
    payload = json.dumps({"session_id": "cost", "cwd": root, "tool_name": "Bash", "tool_input": {"command": "ls"},
                          "tool_response": {"stdout": "a\nb", "stderr": ""}}).encode()  # fmt: skip
    console = shutil.which("ctxmode", path=os.path.dirname(sys.executable)) or "ctxmode"
    fast = [sys.executable, "-I", "-S", "-c",
            f"import sys;sys.path.insert(0,{SRC_DIR!r});from ctxmode._hook import main;main(sys.argv[1:])"]  # fmt: skip
    commands = {
        "python3 -c pass": ([shutil.which("python3") or "python3", "-c", "pass"], b""),
        "venv python -I -S -c pass": ([sys.executable, "-I", "-S", "-c", "pass"], b""),
        "ctxmode hook claude-code posttooluse": (
            [console, "hook", "claude-code", "posttooluse"],
            payload,
        ),
        "fast form posttooluse": ([*fast, "claude-code", "posttooluse"], payload),
    }
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):  # interleaved, so load changes hit every command alike
        for name, (command, stdin) in commands.items():
            samples[name].extend(p50(command, stdin, env, 1))
    base = statistics.median(samples["python3 -c pass"])
    print(f"\nhook cost (p50 of {runs} runs, cwd {root}):")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"  {name:<40} {median:7.1f} ms  {median / base:5.2f}x python3 -c pass")
    ratio = statistics.median(samples["ctxmode hook claude-code posttooluse"]) / base
    print(
        f"  target: ctxmode hook posttooluse <= 2.00x python3 -c pass -> {'met' if ratio <= 2 else 'MISSED'} ({ratio:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--budget", type=int, default=2048)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ctxmode-continuity-") as tmp:
        root = os.path.join(tmp, "project")
        os.makedirs(os.path.join(root, ".git"))
        os.environ["CTXMODE_DIR"] = os.path.join(tmp, "data")
        os.environ["CTXMODE_SNAPSHOT_BUDGET"] = str(args.budget)
        env = dict(os.environ)
        rng = random.Random(args.seed)
        random.seed(args.seed)

        signal = meaningful(root)
        clutter = noise(root, 2000, rng)
        stream: list[tuple[str, dict]] = []
        positions = sorted(rng.sample(range(len(signal) + len(clutter)), len(signal)))
        signal_iter, clutter_iter = iter(signal), iter(clutter)
        for i in range(len(signal) + len(clutter)):
            stream.append(
                next(signal_iter) if positions and i == positions[0] else next(clutter_iter)
            )
            if positions and i == positions[0]:
                positions.pop(0)
        # The last request is the user's last word before compaction.
        stream.remove(signal[-1])
        stream.append(signal[-1])

        start = time.perf_counter()
        play(stream, root)
        played = time.perf_counter() - start
        hook_process("precompact", {"trigger": "auto"}, env, root)
        out = hook_process("sessionstart", {"source": "compact"}, env, root)
        context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        guide = context[context.find("<session_guide") :]

        results = check(guide)
        critical = [r for r in results if r[1]]
        size = len(guide.encode("utf-8"))
        print(
            f"session: {len(signal)} meaningful + {len(clutter)} noise events, played through the hook code in {played:.1f}s"
        )
        print(
            f"guide: {size} bytes, budget {args.budget} bytes -> {'within' if size <= args.budget else 'OVER'} budget"
        )
        print(f"probes kept: {sum(r[2] for r in results)}/{len(results)}; "
              f"critical kept: {sum(r[2] for r in critical)}/{len(critical)}")  # fmt: skip
        for name, is_critical, kept in results:
            print(f"  {'ok ' if kept else 'MISS'} {'*' if is_critical else ' '} {name}")
        print("\n" + guide)
        hook_cost(env, root, args.runs)


if __name__ == "__main__":
    main()
