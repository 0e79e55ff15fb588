"""Permission-policy benchmark: what the policy adds to a hook call, against baselines.

Run: `.venv/bin/python bench/policy.py` (optionally `--runs 2000`).

In-process medians (µs) of `evaluate_tool_call` for a few commands, in a temp project:
  none      no settings file anywhere (the common case: three failed opens)
  rules     project + user settings with 12 rules (read, parsed with `_json`, evaluated)
against the baselines measured in the same run:
  stat      three `os.stat` calls on missing files (the floor for "look for settings")
  json      `json.loads` of the same settings text (what parsing would cost with `json`)
and, in fresh `python -S` processes, the import cost of `ctxmode.policy.permissions` next
to `import json` and `import re` (-X importtime cumulative µs).

Huge commands (the analysis budget): wall ms of one `evaluate_tool_call` with the rules for
a 100 KB, 1 MB and 22 MB Bash command, and of a whole fast-form hook process
(`claude-code pretooluse`) fed the 22 MB payload, next to the same process fed `ls`.
Exit code is always 0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, SRC)

from ctxmode.policy.permissions import evaluate_tool_call  # noqa: E402

SETTINGS = {
    "permissions": {
        "deny": [
            "Bash(sudo:*)",
            "Bash(rm -rf *)",
            "Read(.env)",
            "Read(./secrets/**)",
            "Read(**/*.pem)",
            "Bash(curl * | sh)",
        ],
        "ask": ["Bash(git push:*)", "Bash(npm publish:*)"],
        "allow": ["Bash(git:*)", "Bash(ls:*)", "Bash(npm run test:*)", "Read(~/notes/**)"],
    },
    "model": "x",
}
COMMANDS = {
    "simple": "ls -la src",
    "chained": "git status && npm run test -- -k policy | tail -30; echo done",
    "nested": 'bash -c "echo $(env A=1 nohup sudo x) `timeout 5 xargs rm`" && cat <<EOF | sh\nls\nEOF',
}


def median_us(call, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples) / 1000


def import_us(module: str) -> int:
    result = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
        check=False,
    )
    for line in result.stderr.splitlines()[::-1]:
        if line.rstrip().endswith(" " + module):
            return int(line.split("|")[1])
    return -1


def huge_commands(project: str) -> None:
    for size in (100_000, 1_000_000, 22_000_000):
        command = ("echo hello 'world' && ls -la | grep x; " * (size // 38 + 1))[:size]
        best = min(
            time_once(lambda c=command: evaluate_tool_call("Bash", {"command": c}, project))
            for _ in range(3)
        )
        print(f"rules   huge {size // 1000:>6} KB  {best:8.1f} ms (one call, best of 3)")
    fast = (
        f"import sys;sys.path.insert(0,{SRC!r});from ctxmode._hook import main;main(sys.argv[1:])"
    )
    hook = [sys.executable, "-I", "-S", "-c", fast, "claude-code", "pretooluse"]
    for label, command in (("ls", "ls"), ("22 MB", "echo hi && ls; " * 1_500_000)):
        payload = json.dumps(
            {"cwd": project, "tool_name": "Bash", "tool_input": {"command": command}}
        ).encode()
        best = min(time_once(lambda p=payload: run_hook(hook, p)) for _ in range(3))
        print(f"hook process, {label:6s} command  {best:8.1f} ms (best of 3)")


def time_once(call) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def run_hook(command: list[str], payload: bytes) -> None:
    subprocess.run(command, input=payload, capture_output=True, env=os.environ, check=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CLAUDE_CONFIG_DIR"] = os.path.join(tmp, "user")
        os.environ["CTXMODE_DIR"] = os.path.join(tmp, "data")
        project = os.path.join(tmp, "project")
        os.makedirs(os.path.join(project, ".claude"))
        missing = [os.path.join(tmp, "nope", str(k)) for k in range(3)]

        def stat_missing() -> None:
            for path in missing:
                try:
                    os.stat(path)
                except OSError:
                    pass

        text = json.dumps(SETTINGS)
        print(f"baseline stat x3     {median_us(stat_missing, runs):8.1f} µs")
        print(f"baseline json.loads  {median_us(lambda: json.loads(text), runs):8.1f} µs")
        for name, command in COMMANDS.items():
            call = lambda c=command: evaluate_tool_call("Bash", {"command": c}, project)  # noqa: E731
            print(f"none    {name:8s}     {median_us(call, runs):8.1f} µs")
        Path(project, ".claude", "settings.json").write_text(text)
        os.makedirs(os.environ["CLAUDE_CONFIG_DIR"])
        Path(os.environ["CLAUDE_CONFIG_DIR"], "settings.json").write_text(text)
        for name, command in COMMANDS.items():
            call = lambda c=command: evaluate_tool_call("Bash", {"command": c}, project)  # noqa: E731
            print(f"rules   {name:8s}     {median_us(call, runs):8.1f} µs")
        read = lambda: evaluate_tool_call("Read", {"file_path": "src/a.py"}, project)  # noqa: E731
        print(f"rules   read         {median_us(read, runs):8.1f} µs")
        huge_commands(project)
    print(f"import ctxmode.policy.shell {import_us('ctxmode.policy.shell')} µs")
    policy = import_us("ctxmode.policy.permissions")
    for module, cost in (("json", import_us("json")), ("re", import_us("re"))):
        print(f"import policy {policy} µs vs import {module} {cost} µs ({policy / cost:.2f}x)")


if __name__ == "__main__":
    main()
