"""DSH: the plugin-host decisions at every boundary, the notice, and both bridge forms."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmode.hooks import plugin_rules as rules
from ctxmode.platforms import dsh
from hooks.hookproc import SRC_DIR, fast_command

PREFIX = "mcp__context-mode__"
TOOLS = ["bash", "read", "web_fetch", "mcp__other__ctx_search", f"{PREFIX}ctx_execute"]
LIMIT = 20_000


def payload(tool: str, arguments: dict | None = None, **extra: object) -> dict:
    base = {"tool": tool, "input": arguments or {}, "callId": "c1", "sessionId": "s1",
            "cwd": extra.pop("cwd", os.getcwd()), "tools": TOOLS, "config": {}}  # fmt: skip
    base.update(extra)
    return base


def result(text: str, *, is_error: bool = False, value: dict | None = None) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": is_error, "value": value or {}}


def decide(host_event: str, body: dict):
    return rules.handle(dsh.parse(body, host_event))


def answer(host_event: str, body: dict) -> dict | None:
    event = dsh.parse(body, host_event)
    text = dsh.render(event, rules.handle(event)).stdout
    return json.loads(text) if text else None


# ------------------------------------------------------------------ Tier 1


def test_web_fetch_is_denied_naming_the_detected_tool():
    denied = answer("pre-execute", payload("web_fetch", {"url": "https://example.com/a"}))
    assert denied["kind"] == "deny"
    assert f"{PREFIX}ctx_fetch_and_index" in denied["reason"]
    assert "https://example.com/a" in denied["reason"]


@pytest.mark.parametrize(
    "command",
    ["curl https://example.com", "wget -qO- https://example.com",
     "python3 -c \"import urllib.request; print(urllib.request.urlopen('http://x').read())\""],
)  # fmt: skip
def test_shell_downloads_are_denied_with_the_same_rules_as_hook_hosts(command):
    denied = answer("pre-execute", payload("bash", {"command": command, "description": "d"}))
    assert denied["kind"] == "deny"
    assert f"{PREFIX}ctx_execute" in denied["reason"]


def test_plain_commands_and_other_tools_run_untouched():
    assert answer("pre-execute", payload("bash", {"command": "ls -la"})) is None
    assert answer("pre-execute", payload("edit", {"file_path": "a", "old": "x"})) is None


def test_commands_shorter_than_min_command_bytes_skip_routing():
    command = "curl https://example.com"  # 24 bytes
    at = payload("bash", {"command": command}, config={"minCommandBytes": len(command)})
    above = payload("bash", {"command": command}, config={"minCommandBytes": len(command) + 1})
    assert answer("pre-execute", at)["kind"] == "deny"
    assert answer("pre-execute", above) is None


def test_pwsh_is_routed_like_bash_and_deny_tools_is_configurable():
    assert (
        answer("pre-execute", payload("pwsh", {"command": "curl https://x.org"}))["kind"] == "deny"
    )
    config = {"denyTools": ["grep"]}
    assert answer("pre-execute", payload("grep", {"pattern": "x"}, config=config))["kind"] == "deny"
    assert answer("pre-execute", payload("web_fetch", {"url": "https://x"}, config=config)) is None


def test_subagent_calls_are_left_alone_unless_intercepted():
    call = payload("web_fetch", {"url": "https://x.org"}, agentId="agent-2")
    assert answer("pre-execute", call) is None
    call["config"] = {"interceptSubagent": True}
    assert answer("pre-execute", call)["kind"] == "deny"


def test_disabled_gives_native_behaviour_for_every_event():
    off = {"enabled": False}
    assert answer("pre-execute", payload("web_fetch", {"url": "https://x"}, config=off)) is None
    big = payload("bash", {"command": "seq"}, config=off, result=result("x\n" * LIMIT))
    assert answer("post-execute", big) is None
    assert answer("system-prompt", {"tools": TOOLS, "config": off}) is None


def test_without_our_server_in_the_registry_nothing_names_a_missing_tool():
    call = payload("web_fetch", {"url": "https://x"}, tools=["bash", "web_fetch"])
    assert answer("pre-execute", call) is None
    assert answer("system-prompt", {"tools": ["bash"], "config": {}}) is None


def test_server_detection_with_two_mcp_servers():
    both = ["mcp__docs__ctx_execute", "mcp__context-mode__ctx_execute", "bash"]
    assert rules.detect_prefix(both) == "mcp__context-mode__"
    assert rules.detect_prefix(list(reversed(both))) == "mcp__context-mode__"
    assert rules.detect_prefix(["mcp__a__ctx_execute", "mcp__b__ctx_execute"]) == "mcp__a__"
    assert rules.detect_prefix(both, "docs") == "mcp__docs__"
    assert rules.detect_prefix(both, "absent") is None
    assert rules.detect_prefix(["mcp__docs__ctx_search"]) is None
    call = payload("web_fetch", {"url": "https://x"}, tools=both, config={"serverName": "docs"})
    assert "mcp__docs__ctx_fetch_and_index" in answer("pre-execute", call)["reason"]


def test_settings_of_the_wrong_type_fall_back_to_defaults():
    settings = rules.Settings({"maxResultBytes": "big", "enabled": 1, "denyTools": "web_fetch"})
    assert settings.max_result_bytes == LIMIT
    assert settings.enabled is True
    assert settings.deny_tools == frozenset({"web_fetch"})


# ------------------------------------------------------------------ Tier 2


def cut_answer(text: str, tool: str = "bash", **extra: object) -> dict | None:
    return answer("post-execute", payload(tool, {"command": "x"}, result=result(text, **extra)))


def test_a_result_of_exactly_max_result_bytes_passes_and_one_byte_more_is_cut():
    exact = "é" + "x" * (LIMIT - 2)  # multi-byte: the limit counts bytes, not characters
    assert len(exact.encode()) == LIMIT
    assert cut_answer(exact) is None
    replaced = cut_answer(exact + "y")
    assert replaced["kind"] == "accept"
    assert len(replaced["content"][0]["text"].encode()) <= 2048


def test_failed_results_pass_through_even_when_huge():
    assert cut_answer("Error: x\n" * 10_000, is_error=True) is None


def test_tools_outside_truncate_tools_pass_through():
    assert cut_answer("line\n" * 10_000, tool="write") is None
    assert cut_answer("line\n" * 10_000, tool="edit") is None


def test_subagent_results_pass_through_unless_intercepted():
    body = payload("bash", {"command": "x"}, agentId="sub", result=result("line\n" * 10_000))
    assert answer("post-execute", body) is None
    body["config"] = {"interceptSubagent": True}
    assert answer("post-execute", body)["kind"] == "accept"


def test_the_notice_indexes_the_whole_spilled_stream(tmp_path: Path):
    """DSH keeps the last 64,000 bytes and names the file with the whole stream."""
    from ctxmode.storage.project import resolve_project_root
    from ctxmode.store.knowledge import KnowledgeBase

    lines = [f"log line {n} status=ok" for n in range(12_000)]
    lines[6_000] = "log line 6000 needle-in-the-middle"
    lines[7_000] = "error: disk quota exceeded at step 7000"
    spill = tmp_path / "dsh-subprocess-1-stdout.log"
    spill.write_text("\n".join(lines) + "\n")
    tail = spill.read_text()[-64_000:]
    rendered = f"{tail}\n\n[output truncated; full output: {spill}]\n[stderr]\nwarning: slow\n[exit code: 2]"
    value = {"exitCode": 2, "stdout": {"truncated": True, "spillPath": str(spill)}}
    body = payload(
        "bash", {"command": "make"}, cwd=str(tmp_path), result=result(rendered, value=value)
    )
    notice = answer("post-execute", body)["content"][0]["text"]
    assert len(notice.encode()) <= 2048
    assert "exit 2" in notice
    assert "error: disk quota exceeded at step 7000" in notice
    assert "log line 0 " in notice and "log line 11999" in notice  # head and tail
    label = notice.split('source="', 1)[1].split('"', 1)[0]
    assert f'{PREFIX}ctx_search(queries=["<what you need>"], source="{label}")' in notice
    with KnowledgeBase.open(resolve_project_root(str(tmp_path))) as kb:
        hits = kb.search(["needle-in-the-middle"], limit=3, source=label)[0].hits
    assert any("needle-in-the-middle" in hit.snippet for hit in hits)


GREP_LIMIT = 8_000  # DSH's schema default for grep


def grep_value(count: int, files: int = 10) -> dict:
    rows = [
        (f"src/mod_{n % files}.py", n + 1, f"    raise ValueError('case {n}')")
        for n in range(count)
    ]
    return {"matches": [{"path": p, "lineNumber": n, "line": t} for p, n, t in rows]}


def grep_text(value: dict, shown: int) -> str:
    """DSH's rendering: a header, then `path` and `Line N: text` rows (here one per match)."""
    rows = [f"{m['path']}\nLine {m['lineNumber']}: {m['line']}" for m in value["matches"][:shown]]
    return f"Found {len(value['matches'])} matches\n\n" + "\n\n".join(rows)


def grep_answer(text: str, value: dict, config: dict, cwd: str = "") -> dict | None:
    body = payload("grep", {"pattern": "raise "}, config=config, result=result(text, value=value),
                   **({"cwd": cwd} if cwd else {}))  # fmt: skip
    return answer("post-execute", body)


def test_a_tool_of_its_own_limit_is_cut_above_it_and_others_keep_the_general_one():
    config = {"maxResultBytesPerTool": {"grep": GREP_LIMIT}}
    exact = "x" * GREP_LIMIT
    assert grep_answer(exact, {}, config) is None
    assert grep_answer(exact + "y", {}, config)["kind"] == "accept"
    assert grep_answer(exact + "y", {}, {}) is None  # no own limit: the general 20,000
    bash = payload("bash", {"command": "x"}, config=config, result=result(exact + "y"))
    assert answer("post-execute", bash) is None
    pwsh_limit = payload("bash", {"command": "x"}, config={"maxResultBytesPerTool": {"pwsh": 6_000}},
                         result=result("x\n" * 3_001))  # fmt: skip
    assert answer("post-execute", pwsh_limit)["kind"] == "accept"  # bash counts as pwsh
    odd = rules.Settings({"maxResultBytesPerTool": {"grep": "small", "glob": -1, "read": 5}})
    assert odd.max_result_bytes_per_tool == {"read": 5}


def test_a_grep_notice_counts_matches_per_file_and_indexes_every_match(tmp_path: Path):
    """Also the matches DSH itself left out of what it showed (it keeps 250)."""
    from ctxmode.storage.project import resolve_project_root
    from ctxmode.store.knowledge import KnowledgeBase

    value = grep_value(400)
    value["matches"][333]["line"] = "    raise KeyError('needle-past-the-cap')"
    shown = grep_text(value, 250)
    config = {"maxResultBytesPerTool": {"grep": GREP_LIMIT}}
    notice = grep_answer(shown, value, config, cwd=str(tmp_path))["content"][0]["text"]
    assert len(notice.encode()) <= 2048
    assert "400 matches in 10 files" in notice
    assert "src/mod_0.py (40)" in notice
    assert "src/mod_0.py:1:     raise ValueError('case 0')" in notice  # the first matches
    assert "errors and diagnostics" not in notice  # a match saying "Error" is no failure
    label = notice.split('source="', 1)[1].split('"', 1)[0]
    with KnowledgeBase.open(resolve_project_root(str(tmp_path))) as kb:
        hits = kb.search(["needle-past-the-cap"], limit=3, source=label)[0].hits
    assert any("src/mod_3.py:334:" in hit.snippet for hit in hits)


def test_grep_matches_are_read_from_dsh_value_and_bad_rows_skipped():
    value = {"matches": [{"path": "a.py", "lineNumber": 3, "line": "x"}, {"path": "b.py"},
                         "junk", {"path": "c.py", "lineNumber": 1}]}  # fmt: skip
    shown = {"content": [{"type": "text", "text": "t"}], "value": value}
    parsed = dsh.tool_result({"result": shown})
    assert parsed.matches == [("a.py", 3, "x"), ("c.py", 1, "")]
    assert dsh.tool_result({"result": {"content": [], "value": {"matches": "no"}}}).matches == []


def test_a_big_read_gets_guidance_in_its_notice(tmp_path: Path):
    big = tmp_path / "big.txt"
    big.write_text("row\n" * 20_000)
    rendered = f"<path>{big}</path>\n<type>file</type>\n<content>\n" + "1: row\n" * 5_000
    body = payload("read", {"file_path": str(big)}, cwd=str(tmp_path), result=result(rendered))
    notice = answer("post-execute", body)["content"][0]["text"]
    assert "80,000 bytes" in notice  # the file's whole, indexed under its path
    assert f'{PREFIX}ctx_search(queries=["<what you need>"], source="big.txt")' in notice
    assert "offset and limit" in notice and len(notice.encode()) <= 2048


def test_exit_code_and_spill_path_are_read_from_the_rendered_text_without_value():
    text = (
        "tail\n\n[output truncated; full output: /tmp/x-stdout.log]\n[stderr]\nboom\n[exit code: 7]"
    )
    parsed = dsh.tool_result({"result": {"content": [{"type": "text", "text": text}]}})
    assert parsed.exit_code == 7
    assert parsed.full_stdout_path == "/tmp/x-stdout.log"
    assert parsed.after_stdout == "[stderr]\nboom\n[exit code: 7]"
    assert dsh.tool_result({"result": {"content": "nonsense", "isError": "yes"}}).is_error is False


def test_the_routing_section_names_the_real_tools_within_2048_bytes():
    section = answer("system-prompt", {"tools": TOOLS, "config": {}})["section"]
    assert len(section.encode()) <= 2048
    assert f"{PREFIX}ctx_batch_execute" in section and f"{PREFIX}ctx_search" in section


# ------------------------------------------------------------------ both bridge forms


def bridge_command() -> list[str]:
    code = f"import sys;sys.path.insert(0,{SRC_DIR!r});from ctxmode._bridge import main;main(sys.argv[1:])"
    return [sys.executable, "-I", "-S", "-c", code, "dsh"]


def test_the_long_lived_bridge_answers_like_the_per_call_hook():
    calls = [
        ("pre-execute", payload("web_fetch", {"url": "https://x.org"})),
        ("pre-execute", payload("bash", {"command": "ls"})),
        ("post-execute", payload("bash", {"command": "ls"}, result=result("small"))),
    ]
    lines = [json.dumps({**body, "id": n, "event": event}) for n, (event, body) in enumerate(calls)]
    lines.insert(1, "{not json")  # a bad line is logged; the bridge carries on
    done = subprocess.run(bridge_command(), input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0  # stdin EOF ends it cleanly
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [0, 1, 2]
    for reply, (event, body) in zip(replies, calls, strict=True):
        once = subprocess.run(fast_command("dsh", event), input=json.dumps(body).encode(),
                              capture_output=True, timeout=60, check=False)  # fmt: skip
        assert once.returncode == 0
        assert reply["answer"] == (json.loads(once.stdout) if once.stdout.strip() else None)
    assert replies[0]["answer"]["kind"] == "deny"


def test_the_bridge_exits_at_once_on_an_empty_stdin():
    done = subprocess.run(bridge_command(), input="", capture_output=True, timeout=30, check=False)
    assert done.returncode == 0 and done.stdout == b""


# ------------------------------------------------------------------ session memory


def test_a_compaction_brings_back_the_last_request_in_the_guide_section(tmp_path: Path):
    session = {"sessionId": "s-compact", "cwd": str(tmp_path), "tools": TOOLS, "config": {}}
    prompt = [{"type": "text", "text": "fix the flaky login test in auth_spec"}]
    assert answer("user-prompt", {**session, "prompt": prompt}) is None
    edit = payload("edit", {"file_path": str(tmp_path / "auth_spec.py")}, **session,
                   result=result("edited"))  # fmt: skip
    assert answer("post-execute", edit) is None
    assert answer("pre-compact", session) is None
    guide = answer("compacted", session)["section"]
    assert "fix the flaky login test in auth_spec" in guide
    assert f"{PREFIX}ctx_search" in guide


def test_session_memory_is_off_when_disabled_or_for_a_subagent(tmp_path: Path):
    base = {"sessionId": "s-off", "cwd": str(tmp_path), "tools": TOOLS}
    prompt = [{"type": "text", "text": "remember this request"}]
    answer("user-prompt", {**base, "config": {"enabled": False}, "prompt": prompt})
    answer("user-prompt", {**base, "config": {}, "agentId": "sub", "prompt": prompt})
    answer("pre-compact", {**base, "config": {}})
    guide = answer("compacted", {**base, "config": {}})
    assert guide is None or "remember this request" not in guide["section"]


def test_a_bulky_command_runs_and_is_cut_afterwards_not_wrapped(tmp_path: Path):
    (tmp_path / "big.log").write_text("line of a big log\n" * 20_000)
    body = payload("bash", {"command": "cat big.log", "description": "d"}, cwd=str(tmp_path))
    assert answer("pre-execute", body) is None
