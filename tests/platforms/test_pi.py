"""Pi: the extension's payload translated both ways, and `ctxmode setup pi`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ctxmode.hooks import plugin_rules as rules
from ctxmode.platforms import _install as inst
from ctxmode.platforms import pi
from support.cli import ctx

TOOLS = ["ctx_execute", "ctx_search"]  # the extension registers them under bare names
CONFIG = {"denyTools": [], "truncateTools": ["bash", "read", "grep", "find", "ls"],
          "maxResultBytes": 20_000}  # fmt: skip
SERVER = ["/opt/ctx/bin/ctxmode", "serve"]
HOOK = '/opt/ctx/bin/python -I -S -c "import sys;from ctxmode._hook import main;main(sys.argv[1:])"'


def answer(host_event: str, tool: str, arguments: dict, **extra: object) -> dict | None:
    body = {"tool": tool, "input": arguments, "callId": "c1", "sessionId": "s1",
            "cwd": os.getcwd(), "tools": TOOLS, "config": CONFIG, **extra}  # fmt: skip
    event = pi.PLATFORM.parse(body, host_event)
    text = pi.PLATFORM.render(event, rules.handle(event)).stdout
    return json.loads(text) if text else None


def test_bare_tool_names_count_as_our_server():
    assert rules.detect_prefix(["bash", *TOOLS]) == ""
    assert rules.detect_prefix(["bash", "read"]) is None


def test_curl_is_denied_naming_the_bare_tool():
    denied = answer("before", "bash", {"command": "curl -s https://example.com"})
    assert denied is not None and "ctx_execute" in denied["deny"]
    assert "mcp__" not in denied["deny"] and "context-mode_" not in denied["deny"]
    assert answer("before", "bash", {"command": "ls"}) is None


def test_a_cut_output_is_indexed_from_pis_full_output_file(tmp_path: Path):
    full = tmp_path / "pi-bash-out.log"
    lines = [f"line {n} of the build log" for n in range(20_000)]
    lines[9_000] = "the needle line in the middle"
    full.write_text("\n".join(lines))
    tail = "\n".join(lines[-1_500:])
    result = {"output": tail, "isError": False, "fullOutputPath": str(full), "truncated": True}
    cut = answer("after", "bash", {"command": "make"}, result=result)
    assert cut is not None and len(cut["output"].encode()) <= 2048
    assert "ctx_search" in cut["output"]
    assert "line 0 of the build log" in cut["output"]  # the head of the file, not of the tail
    assert pi.tool_result({"result": result}).full_stdout_path == str(full)
    assert pi.tool_result({"result": {**result, "truncated": False}}).full_stdout_path == ""
    failed = {**result, "isError": True}
    assert answer("after", "bash", {"command": "make"}, result=failed) is None
    small = {"output": "ok\n", "isError": False}
    assert answer("after", "bash", {"command": "make"}, result=small) is None


def test_the_routing_block_names_bare_tools():
    section = answer("system", "", {})
    assert section is not None and "<ctxmode_routing>" in section["section"]
    assert "ctx_execute" in section["section"] and "mcp__" not in section["section"]


def test_setup_writes_the_extension_and_uninstall_removes_exactly_it(tmp_path: Path):
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    (agent / "extensions" / "theirs").mkdir(parents=True)
    (agent / "extensions" / "theirs" / "index.ts").write_text("export default () => {}\n")
    env = {**os.environ, "HOME": str(home)}
    env.pop("PI_CODING_AGENT_DIR", None)
    done = ctx("setup", "pi", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    ours = agent / "extensions" / "ctxmode"
    assert {p.name for p in ours.iterdir()} == {"index.js", "mcp.js", "bridge.js", "ctxmode.json"}
    launch = json.loads((ours / "ctxmode.json").read_text())
    assert launch["hook"][-1] == "pi" and launch["serve"][-1] == "serve"
    again = ctx("setup", "pi", cwd=tmp_path, env=env)
    assert "already set up" in again.stdout
    undone = ctx("setup", "pi", "--uninstall", cwd=tmp_path, env=env)
    assert undone.returncode == 0, undone.stderr
    assert not ours.exists() and (agent / "extensions" / "theirs" / "index.ts").exists()


def test_project_scope_writes_into_the_projects_pi_dir(tmp_path: Path):
    changes = pi.PLATFORM.installer.install_changes(HOOK, SERVER, str(tmp_path))
    assert {Path(c.path).parent for c in changes} == {tmp_path / ".pi" / "extensions" / "ctxmode"}
    for change in changes:
        inst.apply(change)
    assert not any(
        c.changed for c in pi.PLATFORM.installer.install_changes(HOOK, SERVER, str(tmp_path))
    )


def test_a_compaction_snapshots_the_session_and_the_guide_follows():
    base = {"sessionId": "s9", "cwd": os.getcwd(), "tools": TOOLS, "config": CONFIG}
    event = pi.PLATFORM.parse({**base, "prompt": "fix the flaky upload test"}, "prompt")
    assert rules.handle(event) is None
    snapshot = answer("compacting", "", {}, sessionId="s9")
    assert snapshot is not None and "fix the flaky upload test" in snapshot["section"]
    guide = answer("compacted", "", {}, sessionId="s9")
    assert guide is not None and "ctx_search" in guide["section"]
    assert "fix the flaky upload test" in guide["section"]


def test_omp_is_its_own_platform_with_pis_rules(tmp_path: Path):
    from ctxmode.platforms import load, omp

    assert load("omp") is omp.PLATFORM and omp.PLATFORM.tool_name("ctx_search", "x") == "ctx_search"
    changes = omp.PLATFORM.installer.install_changes(HOOK, SERVER, str(tmp_path))
    assert {Path(c.path).parent for c in changes} == {tmp_path / ".omp" / "extensions" / "ctxmode"}
    assert not any("SYSTEM.md" in c.path for c in changes)  # it would replace OMP's prompt


def test_a_host_cut_output_under_the_limit_is_cut_when_its_whole_is_over(tmp_path: Path):
    full = tmp_path / "0.bash.log"  # OMP shows ~8 KB and keeps the rest as an artifact
    full.write_text("".join(f"row {n} of the git log\n" for n in range(3_000)))
    shown = {"output": "row 2999 of the git log\n" * 300, "isError": False,
             "fullOutputPath": str(full), "truncated": True}  # fmt: skip
    assert len(shown["output"]) < CONFIG["maxResultBytes"] < full.stat().st_size
    cut = answer("after", "bash", {"command": "git log"}, result=shown)
    assert cut is not None and "row 0 of the git log" in cut["output"]
    full.unlink()  # the file is gone: judged by what was shown, which is under the limit
    assert answer("after", "bash", {"command": "git log"}, result=shown) is None


def test_a_command_that_exited_non_zero_is_an_exit_code_not_a_failed_tool():
    log = "\n".join(f"FAILED tests/test_{n}.py::test_upload - AssertionError" for n in range(900))
    ran = {"output": f"{log}\n\nCommand exited with code 1", "isError": True}
    found = pi.tool_result({"result": ran})
    assert (found.is_error, found.exit_code) == (False, 1)
    cut = answer("after", "bash", {"command": "pytest"}, result=ran)
    assert cut is not None and "exit 1" in cut["output"] and "FAILED tests/test_" in cut["output"]
    timed_out = {"output": f"{log}\n\nCommand timed out after 5 seconds", "isError": True}
    assert pi.tool_result({"result": timed_out}).is_error
    assert answer("after", "bash", {"command": "pytest"}, result=timed_out) is None


def test_omps_note_on_what_it_cut_after_the_exit_line_leaves_the_exit_code():
    tail = "\n\nCommand exited with code 1\n\n[Showing lines 1-275 and 530-803 of 803; 254 middle lines (23.4KB) elided. Read artifact://1 for full output]"  # fmt: skip
    assert pi.exit_code("tests/test_x.py::test_1 FAILED" + tail) == 1
    assert pi.exit_code("[only a note]") is None
    assert pi.exit_code("Command exited with code 1\nmore output") is None


def wrapped(command: str, **config: object) -> dict | None:
    from ctxmode.hooks.handlers import handle

    body = {"tool": "bash", "input": {"command": command, "timeout": 60}, "callId": "c1",
            "sessionId": "s1", "cwd": os.getcwd(), "tools": TOOLS,
            "config": {**CONFIG, **config}}  # fmt: skip
    event = pi.PLATFORM.parse(body, "before")
    text = pi.PLATFORM.render(event, handle(event, pi.PLATFORM)).stdout
    return json.loads(text) if text else None


def test_a_shell_command_runs_through_the_wrapper_as_changed_arguments(monkeypatch):
    monkeypatch.delenv("CTXMODE_WRAP_EVERY", raising=False)
    changed = wrapped("./run_tests.sh -k tax")
    assert changed is not None and list(changed) == ["args"], changed
    assert list(changed["args"]) == ["command"]  # the timeout stays as the model set it
    command = changed["args"]["command"]
    assert "ctxmode-wrap" in command and "--host pi " in command, command
    assert command.endswith(" -- ./run_tests.sh -k tax"), command
    assert wrapped("cd src") is None  # the host's shell keeps the directory
    monkeypatch.setenv("CTXMODE_WRAP_EVERY", "off")
    assert wrapped("git status") is None  # not predicted to be bulky
    assert wrapped("./run_tests.sh") is not None  # a script: predicted


def test_an_omp_mcp_result_named_by_its_details_is_cut_unless_exempted(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    rows = "".join(f"row {n}: order {70000 + n} shipped\n" for n in range(3_000))
    body = {"result": {"output": rows, "isError": False},
            "mcpTool": {"server": "my-files", "tool": "read_text_file"}}  # fmt: skip
    # OMP's name drops the case and the dash: only the details say where the server ends.
    cut = answer("after", "mcp__my_files_read_text_file", {"path": "a.log"}, **body)
    assert cut is not None and len(cut["output"]) < 10_240 < len(rows), cut
    assert 'source="mcp:my-files__read_text_file:' in cut["output"]
    ours = {**body, "mcpTool": {"server": "my-files", "tool": "ctx_search"}}
    assert answer("after", "mcp__my_files_ctx_search", {}, **ours) is None
    small = {**body, "result": {"output": rows[:2_000], "isError": False}}
    assert answer("after", "mcp__my_files_read_text_file", {}, **small) is None
    monkeypatch.setenv("CTXMODE_MCP_PASSTHROUGH", "my-files")
    assert answer("after", "mcp__my_files_read_text_file", {"path": "a.log"}, **body) is None
