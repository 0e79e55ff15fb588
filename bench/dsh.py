"""DSH benchmark: what the model receives with and without the adapter, and what it costs.

Run: `.venv/bin/python bench/dsh.py` (needs `.ci/install-hosts` to have installed DSH;
`--calls 200` for the latency part).

1. Bytes. The real `dsh headless`, offline against the fake model, runs one scripted turn
   of five bulky calls twice: before `ctxmode setup dsh` (the baseline, same run) and
   after it. The calls: `cat` of a 300 KB log, a pytest run with failures,
   `git log --stat` of this repository, a `read` of a 5,000-row file and a repo-wide
   `grep` for `raise ` (under 250 matches, so DSH shows them all; the needle is the text
   of a match from the middle of what it shows). Printed: bytes of each tool result the model received,
   both ways, and the saving. Then every needle (a line from the middle of each output) must be reachable:
   in the notice, or found by the one `ctx_search(queries, source: label)` the model is
   scripted to call for it through DSH. Target: >= 90% fewer bytes, every needle reachable.
2. Latency added per tool call: the shim's own `bridge.js` under Node asks Python about
   a stream of ordinary calls (pre-execute of `ls`, post-execute of a small result), as
   DSH's listeners do, in both forms: one long-lived child (`ctxmode._bridge`) and one
   fast-form process per call (`ctxmode hook dsh <event>`). Baseline in the same run:
   `node -e 0`-style no-op asks (the JS floor) and a bare `<python> -I -S -c pass`.
   Target: p50 <= 25 ms added per call.
Exit code is always 0: a benchmark, not a gate.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from ctxmode.launch import fast_hook_prefix  # noqa: E402
from ctxmode.platforms._shim import launch_config  # noqa: E402
from support.dsh_host import DSH, SETUP_OPTIONS, dsh_env  # noqa: E402
from support.fake_model import Reply, Request, ToolCall, reply  # noqa: E402
from support.hosts import HostWorld, offline_netns  # noqa: E402

KEYS = ("log", "tests", "git-log", "read", "grep")
BRIDGE_JS = REPO / "src" / "ctxmode" / "plugins" / "bridge.js"


# ------------------------------------------------------------------ the scripted session


def make_inputs(work: Path) -> dict[str, str]:
    """Write the files the calls read; return each call's needle."""
    lines = [
        f"2026-12-01 12:{n // 60 % 60:02d}:{n % 60:02d} worker-{n % 7} batch {n} ok"
        for n in range(6_000)
    ]
    lines[3_000] = "2026-12-01 12:50:00 worker-3 NEEDLE-log-3000 checksum mismatch resolved"
    (work / "big.log").write_text("\n".join(lines) + "\n")
    tests = work / "suite"
    tests.mkdir()
    body = ["import pytest", ""]
    for n in range(600):
        check = "assert n % 2 == 0 or n > -1" if n not in (217, 431) else "assert n == -1, 'boom'"
        body += [f"def test_case_{n:04d}(n={n}):", f"    {check}", ""]
    (tests / "test_suite.py").write_text("\n".join(body))
    rows = [f"{n},customer-{n},region-{n % 13},{n * 7 % 1000}.{n % 100:02d}" for n in range(5_000)]
    rows[1_200] = "1200,NEEDLE-row-1200,region-4,42.00"
    (work / "data.csv").write_text("id,name,region,amount\n" + "\n".join(rows) + "\n")
    subjects = subprocess.run(["git", "-C", str(REPO), "log", "--format=%s"], capture_output=True,
                              text=True, check=True).stdout.splitlines()  # fmt: skip
    return {
        "log": "NEEDLE-log-3000",
        "tests": "test_case_0217",
        "git-log": subjects[len(subjects) // 2][:60],
        "read": "NEEDLE-row-1200",
        "grep": "",  # set from what DSH's grep shows natively (`grep_needle`)
    }


def grep_needle(shown: str) -> str:
    """The text of the match nearest the middle of what DSH's grep showed that no other
    match shares (DSH shows `Line N: <text>` rows; a notice or a search shows the text)."""
    texts = [line.split(": ", 1)[1] for line in shown.splitlines() if line.startswith("Line ")]
    unique = [text for text in texts if texts.count(text) == 1 and len(text.strip()) > 20]
    return unique[len(unique) // 2].strip() if unique else "(no match)"


def first_turn(work: Path) -> Reply:
    python = sys.executable
    calls = [
        ("bash", {"command": "cat big.log", "description": "show the log"}),
        (
            "bash",
            {
                "command": f"{python} -m pytest -v -p no:cacheprovider suite",
                "description": "run the tests",
            },
        ),
        ("bash", {"command": f"git -C {REPO} log --stat", "description": "history"}),
        ("read", {"file_path": str(work / "data.csv")}),
        ("grep", {"pattern": "raise ", "path": str(REPO)}),
    ]
    return Reply(tool_calls=[ToolCall(name, dict(args)) for name, args in calls])


def results(request: Request) -> list[str]:
    """The tool results of the first turn, in call order (each a list of text blocks)."""
    found = []
    for message in request.body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                parts = block.get("content", "")
                found.append(
                    parts if isinstance(parts, str) else "".join(p.get("text", "") for p in parts)
                )
    return found


def search_turn(
    needles: dict[str, str],
    keys: tuple[str, ...] = KEYS,
    read_results: Callable[[Request], list[str]] = results,
):
    """One ctx_search per notice whose needle it does not show, by the label it names.

    `keys` name the session's calls in order; `read_results` reads the tool results out of
    the host's request (each host's API puts them elsewhere). The search tool is called by
    the name the notice gives it.
    """

    def turn(request: Request) -> Reply:
        calls = []
        for key, text in zip(keys, read_results(request)[: len(keys)], strict=True):
            label = re.search(r'source="([^"]+)"', text)
            name = re.search(r"[\w-]*ctx_search\b", text)
            if label and name and needles[key] not in text:
                calls.append(
                    ToolCall(name.group(0), {"queries": [needles[key]], "source": label.group(1)})
                )
        return Reply(tool_calls=calls) if calls else reply("done")

    return turn


def setup(world: HostWorld, *options: str) -> None:
    done = subprocess.run([sys.executable, "-m", "ctxmode", "setup", "dsh", *SETUP_OPTIONS, *options],
                          cwd=world.work, env=dsh_env(world), capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"setup failed: {done.stderr}")


def session(world: HostWorld, turns: list) -> tuple[list[Request], float]:
    with world.fake_model(turns) as model:
        start = time.perf_counter()
        run = world.run(
            [DSH, "headless", "do the task"], env=dsh_env(world, model.url), timeout=300
        )
        elapsed = time.perf_counter() - start
    if run.returncode:
        raise SystemExit(run.describe())
    return model.main_requests, elapsed


def bytes_part(root: Path, netns: str | None) -> None:
    world = HostWorld(root, netns)
    made = world.run([DSH, "headless", "--dump-config"], env=dsh_env(world))
    if made.returncode:
        raise SystemExit(made.describe())
    needles = make_inputs(world.work)
    native, without_time = session(world, [first_turn(world.work), reply("done")])
    baseline = results(native[1])[: len(KEYS)]
    needles["grep"] = grep_needle(baseline[KEYS.index("grep")])
    setup(world)
    ours, with_time = session(world, [first_turn(world.work), search_turn(needles), reply("done")])
    adapted = results(ours[1])[: len(KEYS)]
    searched = results(ours[2])[len(KEYS) :] if len(ours) > 2 else []
    print(f"{'call':10} {'native B':>10} {'ctxmode B':>10} {'saved':>7}  needle")
    total_native = total_ours = 0
    reachable = 0
    search_iter = iter(searched)
    for key, mine, theirs in zip(KEYS, adapted, baseline, strict=True):
        size_mine, size_theirs = len(mine.encode()), len(theirs.encode())
        total_native += size_theirs
        total_ours += size_mine
        if needles[key] in mine:
            where = "in the notice" if 'source="' in mine else "in the result"
        elif 'source="' in mine:
            found = next(search_iter, "")
            where = "one ctx_search" if needles[key] in found else "NOT FOUND"
        else:
            where = "NOT FOUND"
        reachable += where != "NOT FOUND"
        native_has = "native has it" if needles[key] in theirs else "native lost it"
        print(
            f"{key:10} {size_theirs:>10,} {size_mine:>10,} {1 - size_mine / size_theirs:>7.1%}  {where} ({native_has})"
        )
    print(f"{'total':10} {total_native:>10,} {total_ours:>10,} {1 - total_ours / total_native:>7.1%}  "
          f"{reachable}/{len(KEYS)} needles reachable (target >= 90% fewer bytes, all needles)")  # fmt: skip
    print(f"dsh headless wall time: {with_time:.1f} s with the adapter (incl. the search turn), "
          f"{without_time:.1f} s without")  # fmt: skip


# ------------------------------------------------------------------ latency per call

NODE_TIMER = r"""
import { createBridge } from %(bridge)s
const launch = %(launch)s
const calls = %(calls)s
const n = %(n)d
const out = {}
for (const mode of ['child', 'call']) {
  const bridge = createBridge(launch, 'dsh', mode)
  await bridge.ask(calls[0][0], calls[0][1], 30000)  // start-up is paid once per DSH start
  const times = []
  for (let i = 0; i < n; i++) {
    const [event, payload] = calls[i %% calls.length]
    const start = process.hrtime.bigint()
    await bridge.ask(event, payload, 30000)
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  bridge.close()
  out[mode] = times
}
const floor = []
for (let i = 0; i < n; i++) {
  const start = process.hrtime.bigint()
  await new Promise((resolve) => setImmediate(resolve))
  floor.push(Number(process.hrtime.bigint() - start) / 1e6)
}
out.floor = floor
console.log(JSON.stringify(out))
"""


def latency_part(root: Path, n: int) -> None:
    work = root / "latency"
    work.mkdir()
    hook = fast_hook_prefix()
    launch = json.loads(launch_config("dsh", hook))
    tools = ["bash", "read", "mcp__context-mode__ctx_execute", "mcp__context-mode__ctx_search"]
    base = {"callId": "c", "sessionId": "bench", "cwd": str(work), "tools": tools, "config": {}}
    small = {"content": [{"type": "text", "text": "file-a\nfile-b\n"}], "isError": False,
             "value": {"exitCode": 0}}  # fmt: skip
    calls = [
        ["pre-execute", {**base, "tool": "bash", "input": {"command": "ls", "description": "d"}}],
        ["post-execute", {**base, "tool": "bash", "input": {"command": "ls"}, "result": small}],
    ]
    script = work / "timer.mjs"
    script.write_text(NODE_TIMER % {"bridge": json.dumps(BRIDGE_JS.as_uri()), "launch": json.dumps(launch),
                                    "calls": json.dumps(calls), "n": n})  # fmt: skip
    env = {**os.environ, "CTXMODE_DIR": str(root / "data")}
    done = subprocess.run(
        ["node", str(script)], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    times = json.loads(done.stdout)
    bare = []
    for _ in range(max(10, n // 4)):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=False)
        bare.append((time.perf_counter() - start) * 1000)

    def stats(values: list[float]) -> str:
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        return f"p50 {statistics.median(values):7.2f} ms  p95 {p95:7.2f} ms"

    print(
        f"\nlatency added per tool call ({n} calls, alternating pre-execute ls / post-execute small):"
    )
    print(f"  long-lived child (JSON lines)   {stats(times['child'])}")
    print(f"  one process per call (fast form) {stats(times['call'])}")
    print(f"  baseline: node event-loop turn  {stats(times['floor'])}")
    print(f"  baseline: bare python -I -S     {stats(bare)}")
    ratio = statistics.median(times["call"]) / statistics.median(times["child"])
    print(f"  per-call / child p50 ratio: {ratio:.1f}x (target: child p50 <= 25 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--skip-host", action="store_true", help="latency part only")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ctxmode-bench-dsh-"))
    try:
        if not args.skip_host:
            if not DSH.exists():
                raise SystemExit(f"DSH is not installed at {DSH}: run .ci/install-hosts")
            with offline_netns() as netns:
                bytes_part(root / "host", netns)
        latency_part(root, args.calls)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
