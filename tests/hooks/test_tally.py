"""The hook tally: one line per answered call, written by real hook processes."""

from __future__ import annotations

import json
import os

from ctxmode.hooks import tally

from .hookproc import hook_env, run_hook


def _lines(data_root) -> list[dict]:
    path = os.path.join(data_root, "logs", tally.LOG_NAME)
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _call(tool: str, tool_input: dict, event: str = "pretooluse", **extra) -> None:
    payload = {"session_id": "s1", "cwd": "/proj", "tool_name": tool, "tool_input": tool_input}
    done = run_hook("claude-code", event, json.dumps({**payload, **extra}), env=hook_env())
    assert done.returncode == 0, done.stderr


def test_a_redirect_is_recorded_as_its_kind_without_invented_bytes(data_root):
    _call("Bash", {"command": "curl https://example.com/api"})
    _call("WebFetch", {"url": "https://example.com"})
    _call("Bash", {"command": "ls"})
    curl, webfetch, plain = _lines(data_root)
    assert (curl["act"], curl["kind"], curl["tool"]) == ("modify", "bash-redirected", "Bash")
    assert (webfetch["act"], webfetch["kind"]) == ("deny", "webfetch-redirected")
    assert "act" not in plain and "kind" not in plain
    for line in (curl, webfetch, plain):
        assert (line["host"], line["sid"], line["dir"], line["ev"]) == (
            "claude-code", "s1", "/proj", "pre_tool_use",
        )  # fmt: skip
        assert not {"bytes_in", "bytes_out", "bytes_avoided"} & set(line)
        assert 0 <= line["ms"] < 30_000


def test_a_replaced_output_records_both_measured_sizes(data_root, tmp_path):
    big = "é" + "x" * 60_000
    _call("mcp__github__list", {}, event="posttooluse", tool_response=big, cwd=str(tmp_path))
    (line,) = _lines(data_root)
    assert line["act"] == "replace_output"
    assert line["bytes_in"] == len(big.encode())
    assert 0 < line["bytes_out"] < 12_000


def test_the_log_rotates_past_its_cap(data_root, monkeypatch):
    from ctxmode.vocab.event import HookEvent

    monkeypatch.setattr(tally, "MAX_BYTES", 300)
    event = HookEvent("claude-code", "PreToolUse", tool="Bash", session_id="s", project_dir="/p")
    for _ in range(5):
        tally.record(event, None, 0.0)
    logs = os.path.join(data_root, "logs")
    assert os.path.exists(os.path.join(logs, tally.LOG_NAME + ".1"))
    assert os.path.getsize(os.path.join(logs, tally.LOG_NAME)) <= 300


def test_an_unwritable_log_costs_nothing_but_an_error_line(data_root):
    os.makedirs(os.path.join(data_root, "logs", tally.LOG_NAME))  # a directory: open fails
    _call("Bash", {"command": "ls"})
    with open(os.path.join(data_root, "logs", "hook-errors.log"), encoding="utf-8") as handle:
        assert "hook tally not written" in handle.read()
