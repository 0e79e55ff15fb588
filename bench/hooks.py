"""Hook latency benchmark: every command-hook host's PreToolUse hook, end to end, against
the bare interpreter floor measured in the same run.

Run: `.venv/bin/python bench/hooks.py` (optionally `--runs 10`, `--host codex`,
`--compare-src DIR` to time another checkout's `src/` in the same run, e.g. the commit
before a change: `git worktree add /tmp/base <commit>` then `--compare-src /tmp/base/src`).

For each host, the command is the one `ctxmode setup <host>` registers for its PreToolUse
event (`platform.installer.hook_commands`: `<venv python> -I -S -c "...main(...)" <host>
<event>`), run as hosts run a command string, through `/bin/sh -c`, and fed each of the
host's recorded PreToolUse payloads (`tests/fixtures/<host>/`: a shell `ls`, a `curl`, a
file read, a grep, an external MCP tool, a web fetch, as the host recorded them) on stdin.
Baselines, interleaved with the hooks so drift hits all alike:
  floor      `/bin/sh -c "<venv python> -I -S -c pass"` (the floor for any Python hook,
             spawned the way the hooks are)
  bare       `<venv python> -I -S -c pass` without the shell
Also timed for Claude Code, outside the target: PostToolUse of a small output and
SessionStart, its PreToolUse with the module cache off (every module read from its source
file: what the cache saves), and the console-script form (`.venv/bin/ctxmode hook ...`).
The warm-up round writes each event's module cache, as a host's first call does.
Printed: p50/p95 per host and its ratio to the floor's p50. Target: every host's
p50 <= 1.6x the floor. The plugin hosts' per-call cost (the long-lived `ctxmode._bridge`
child behind their JS shims) is measured by `bench/plugins.py --skip-host` and
`bench/dsh.py`. Exit code is always 0: a benchmark, not a gate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ctxmode.launch import fast_hook_prefix, package_parent, sh_quote
from ctxmode.platforms import all_platforms

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
PRE_TOOL_USE = "pre_tool_use"
TARGET = 1.6


def time_call(command: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    return (time.perf_counter() - start) * 1000


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def host_event_line(platform, canonical: str, prefix: str) -> tuple[str, str] | None:
    """(host event, registered command line) for the host's event of `canonical`."""
    lines = {
        event.lower(): line for event, line in platform.installer.hook_commands(prefix).items()
    }
    for event, meaning in platform.events.items():
        if meaning == canonical and event in lines:
            return event, lines[event]
    return None


def pre_tool_use_payloads(platform_id: str) -> list[tuple[str, bytes]]:
    """The host's recorded PreToolUse payloads (file stem, bytes)."""
    folder = FIXTURES / platform_id
    found = sorted(folder.glob("pretooluse*.json")) + sorted(folder.glob("beforetool*.json"))
    return [(path.stem, path.read_bytes()) for path in found]


class Form:
    """One command line timed on a list of payloads."""

    def __init__(self, label: str, line: str, payloads: list[tuple[str, bytes]]) -> None:
        self.label, self.command, self.payloads = label, ["/bin/sh", "-c", line], payloads
        self.times: list[float] = []


def build_forms(hosts: list[str] | None, parents: dict[str, str]) -> list[Form]:
    """The PreToolUse hook of every command-hook host, once per source tree in `parents`."""
    forms = []
    for platform in all_platforms():
        if platform.plugin_host or (hosts and platform.id not in hosts):
            continue
        payloads = pre_tool_use_payloads(platform.id)
        for name, parent in parents.items():
            found = host_event_line(platform, PRE_TOOL_USE, fast_hook_prefix(parent=parent))
            if found is None or not payloads:
                continue
            label = platform.id if name == "" else f"{platform.id} [{name}]"
            forms.append(Form(label, found[1], payloads))
    return forms


def extra_forms(parent: str) -> list[Form]:
    """Claude Code's other frequent events and its console-script form (not in the target)."""
    claude = next(p for p in all_platforms() if p.id == "claude-code")
    out = []
    for canonical, fixture in (("post_tool_use", "posttooluse-bash"),
                               ("session_start", "sessionstart-startup")):  # fmt: skip
        found = host_event_line(claude, canonical, fast_hook_prefix(parent=parent))
        data = (FIXTURES / "claude-code" / f"{fixture}.json").read_bytes()
        if found is not None:
            out.append(Form(f"claude-code {found[0]}", found[1], [(fixture, data)]))
    found = host_event_line(claude, PRE_TOOL_USE, fast_hook_prefix(parent=parent))
    if found is not None:  # what the module cache saves, in the same run
        line = f"CTXMODE_HOOK_MODULE_CACHE=off {found[1]}"
        out.append(Form("claude-code module cache off", line, pre_tool_use_payloads(claude.id)))
    console = os.path.join(os.path.dirname(sys.executable), "ctxmode")
    if os.access(console, os.X_OK):
        pre = pre_tool_use_payloads("claude-code")
        line = f"{sh_quote(console)} hook claude-code pretooluse"
        out.append(Form("claude-code console script", line, pre))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--runs", type=int, default=10, help="rounds over every payload")
    parser.add_argument("--host", action="append", help="only this host (repeatable)")
    parser.add_argument("--compare-src", help="another checkout's src/ to time alongside")
    parser.add_argument("--no-extra", action="store_true", help="PreToolUse of each host only")
    args = parser.parse_args()

    parents = {"": package_parent()}
    if args.compare_src:
        parents["compare"] = os.path.abspath(args.compare_src)
    forms = build_forms(args.host, parents)
    if not args.no_extra:
        forms += extra_forms(package_parent())
    python = sh_quote(os.path.abspath(sys.executable))
    floor = Form("floor (sh -c python -I -S -c pass)", f"{python} -I -S -c pass", [("", b"")])
    bare = Form("bare (python -I -S -c pass)", "", [("", b"")])
    bare.command = [sys.executable, "-I", "-S", "-c", "pass"]
    with tempfile.TemporaryDirectory(prefix="ctxmode-bench-") as root:
        env = {**os.environ, "CTXMODE_DIR": root, "CTXMODE_MCP_READY": "1",
               "CLAUDE_CONFIG_DIR": os.path.join(root, "claude")}  # fmt: skip
        for form in forms:  # warm caches (.pyc files, the data root's files)
            for _, stdin in form.payloads:
                time_call(form.command, stdin, env)
        for _ in range(args.runs):
            for form in forms:
                for _, stdin in form.payloads:  # interleaved: drift hits all alike
                    form.times.append(time_call(form.command, stdin, env))
                    floor.times.append(time_call(floor.command, b"", env))
            bare.times.append(time_call(bare.command, b"", env))
    report(forms, floor, bare, args.runs)


def report(forms: list[Form], floor: Form, bare: Form, runs: int) -> None:
    base = statistics.median(floor.times)
    print(f"hook latency, {runs} rounds over each host's recorded PreToolUse payloads;")
    print(f"python = {sys.executable}; each command through /bin/sh -c, as hosts run it\n")
    print(f"{'form':40} {'calls':>5} {'p50 ms':>7} {'p95 ms':>7} {'p50/floor':>9}")
    for form in (floor, bare):
        p50 = statistics.median(form.times)
        print(f"{form.label:40} {len(form.times):5} {p50:7.1f} "
              f"{percentile(form.times, 0.95):7.1f} {p50 / base:8.2f}x")  # fmt: skip
    worst = 0.0
    for form in forms:
        p50 = statistics.median(form.times)
        in_target = " " not in form.label or form.label.endswith("]")
        mark = ""
        if in_target and not form.label.endswith("]"):
            worst = max(worst, p50 / base)
            mark = "" if p50 / base <= TARGET else "  over target"
        print(f"{form.label:40} {len(form.times):5} {p50:7.1f} "
              f"{percentile(form.times, 0.95):7.1f} {p50 / base:8.2f}x{mark}")  # fmt: skip
    print(f"\nworst host PreToolUse p50 / floor p50 = {worst:.2f}x (target <= {TARGET}x)")


if __name__ == "__main__":
    main()
