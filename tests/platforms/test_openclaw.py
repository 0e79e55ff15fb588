"""OpenClaw: the shim's payload translated both ways, the tee of a shell call, and setup."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.hooks import plugin_rules as rules
from ctxmode.platforms import _install as inst
from ctxmode.platforms import openclaw
from support.cli import ctx

PREFIX = "context-mode__"
TOOLS = ["exec", "read", f"{PREFIX}ctx_execute", f"{PREFIX}ctx_search"]
CONFIG = {"denyTools": ["web_fetch"], "truncateTools": ["exec", "read"], "maxResultBytes": 20_000}


def answer(host_event: str, tool: str, arguments: dict, **extra: object) -> dict | None:
    body = {"tool": tool, "input": arguments, "callId": "call_1", "sessionId": "s1",
            "cwd": os.getcwd(), "tools": TOOLS, "config": CONFIG, **extra}  # fmt: skip
    event = openclaw.PLATFORM.parse(body, host_event)
    text = openclaw.render(event, rules.handle(event)).stdout
    return json.loads(text) if text else None


def test_curl_and_web_fetch_are_denied_naming_openclaw_tools():
    denied = answer("before", "exec", {"command": "curl -s https://example.com"})
    assert denied is not None and f"{PREFIX}ctx_execute" in denied["deny"]
    assert "mcp__" not in denied["deny"]
    fetched = answer("before", "web_fetch", {"url": "https://example.com"})
    assert fetched is not None and f"{PREFIX}ctx_fetch_and_index" in fetched["deny"]


def test_a_shell_call_we_let_run_is_teed_and_other_tools_are_untouched():
    teed = answer("before", "exec", {"command": "cat big.log"})
    assert teed is not None and "tee " in teed["params"]["command"]
    assert "cat big.log" in teed["params"]["command"]
    assert answer("before", "read", {"path": "x"}) is None
    assert answer("before", "exec", {"command": "npm run dev &"}) is None  # tee would wait for it


def run_teed(command: str, spool: Path) -> subprocess.CompletedProcess[str]:
    teed = openclaw.tee_command(command, str(spool))
    return subprocess.run(["sh", "-c", teed], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(
    ("command", "code", "shown"),
    [
        ("echo out; echo err >&2; exit 3", 3, "out\nerr\n"),
        ("printf 'a\\nb'  # a trailing comment", 0, "a\nb"),
        ("cat <<'EOF'\nheredoc line\nEOF", 0, "heredoc line\n"),
        ("false", 1, ""),
    ],
)
def test_the_tee_keeps_output_and_exit_status(tmp_path: Path, command: str, code: int, shown: str):
    spool = tmp_path / "call.out"
    done = run_teed(command, spool)
    assert done.returncode == code
    assert done.stdout == shown == spool.read_text()
    assert done.stderr == ""


def test_a_spool_the_shell_cannot_write_changes_nothing_the_model_sees(tmp_path: Path):
    done = run_teed("echo sandboxed; exit 5", tmp_path / "absent" / "call.out")
    assert (done.returncode, done.stdout, done.stderr) == (5, "sandboxed\n", "")


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
               max_size=60))  # fmt: skip
def test_the_tee_shows_what_the_command_printed(
    tmp_path_factory: pytest.TempPathFactory, text: str
):
    spool = tmp_path_factory.mktemp("tee") / "call.out"
    done = run_teed(f"printf '%s' {shlex.quote(text)}", spool)
    plain = subprocess.run(["sh", "-c", f"printf '%s' {shlex.quote(text)}"], capture_output=True,
                           text=True, timeout=30)  # fmt: skip
    assert (done.returncode, done.stdout) == (plain.returncode, plain.stdout + plain.stderr)


def test_the_middleware_indexes_the_teed_file_and_removes_it(tmp_path: Path):
    spool = Path(openclaw.spool_path({"callId": "call_9", "sessionId": "s1"}))
    spool.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"line {n} of the whole output" for n in range(20_000)]
    lines[500] = "NEEDLE-outside-the-window"
    spool.write_text("\n".join(lines) + "\n")
    window = "\n".join(lines[5_000:8_000])  # what OpenClaw hands the plugin
    cut = answer("after", "exec", {"command": "make"}, callId="call_9",
                 result={"text": window, "exitCode": 0})  # fmt: skip
    assert cut is not None and len(cut["output"].encode()) <= 2048
    assert f"{PREFIX}ctx_search" in cut["output"]
    assert not spool.exists()
    found = ctx("search", "NEEDLE-outside-the-window", cwd=Path.cwd())
    assert "NEEDLE-outside-the-window" in found.stdout, found.stdout + found.stderr


def make_spools(directory: Path, ages_s: list[float], now: float) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    made = []
    for number, age in enumerate(ages_s):
        spool = directory / f"s1-call_{number}.out"
        spool.write_text(f"output of call {number}\n")
        os.utime(spool, (now - age, now - age))
        made.append(spool)
    return made


def test_spools_whose_result_never_came_are_swept_by_age_and_count(tmp_path: Path):
    now = time.time()
    old = make_spools(tmp_path / "old", [openclaw.SPOOL_MAX_AGE_S + 60, 5.0], now)
    assert openclaw.sweep_spools(str(tmp_path / "old"), now) == 1
    assert [spool.exists() for spool in old] == [False, True]
    over = openclaw.SPOOL_MAX_FILES + 3
    many = make_spools(tmp_path / "many", [float(n) for n in range(over)], now)
    assert openclaw.sweep_spools(str(tmp_path / "many"), now) == 3
    assert [spool.exists() for spool in many] == [True] * openclaw.SPOOL_MAX_FILES + [False] * 3
    assert openclaw.sweep_spools(str(tmp_path / "absent"), now) == 0


def test_a_new_tee_sweeps_the_spool_a_crashed_call_left(data_root: Path):
    leaked = Path(openclaw.spool_path({"callId": "crashed", "sessionId": "s1"}))
    leaked.parent.mkdir(parents=True, exist_ok=True)
    leaked.write_text("never judged\n")
    os.utime(leaked, (1, 1))
    fresh = Path(openclaw.spool_path({"callId": "running", "sessionId": "s1"}))
    fresh.write_text("still running\n")
    teed = answer("before", "exec", {"command": "cat big.log"})
    assert teed is not None and "tee " in teed["params"]["command"]
    assert not leaked.exists() and fresh.exists()


def test_small_and_failed_results_pass_untouched():
    assert answer("after", "exec", {"command": "ls"}, result={"text": "ok", "exitCode": 0}) is None
    failed = {"text": "x\n" * 30_000, "isError": True}
    assert answer("after", "read", {"path": "/x"}, result=failed) is None


def test_the_routing_block_names_openclaw_tools():
    section = answer("system", "", {})
    assert section is not None and f"{PREFIX}ctx_batch_execute" in section["section"]


# --------------------------------------------------------------------------- setup


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    return tmp_path / "state"


def apply_all(changes: list[inst.Change]) -> None:
    for change in changes:
        if change.changed:
            inst.apply(change)


def test_setup_writes_plugin_entry_server_and_tool_search_then_removes_exactly(state: Path):
    state.mkdir()
    config = state / "openclaw.json"
    original = {"gateway": {"mode": "local"}, "plugins": {"entries": {"other": {"enabled": True}}},
                "mcp": {"servers": {"docs": {"command": "docs"}}}}  # fmt: skip
    config.write_text(json.dumps(original))
    apply_all(openclaw.install_changes("python -I -S -m ctxmode._hook", ["/v/ctxmode", "serve"]))
    written = json.loads(config.read_text())
    ours = written["plugins"]["entries"]["context-mode"]
    assert ours["enabled"] and ours["hooks"]["allowConversationAccess"]
    assert written["plugins"]["load"]["paths"] == [str(state / "ctxmode-plugin")]
    assert written["mcp"]["servers"]["context-mode"] == {"command": "/v/ctxmode", "args": ["serve"]}
    assert written["tools"]["toolSearch"] is False
    manifest = json.loads((state / "ctxmode-plugin" / "openclaw.plugin.json").read_text())
    assert manifest["id"] == "context-mode"
    assert manifest["contracts"]["agentToolResultMiddleware"] == ["openclaw"]
    again = openclaw.install_changes("python -I -S -m ctxmode._hook", ["/v/ctxmode", "serve"])
    assert not any(change.changed for change in again)
    apply_all(openclaw.uninstall_changes())
    assert json.loads(config.read_text()) == original
    assert not (state / "ctxmode-plugin").exists()


def test_a_tool_search_the_user_set_is_left_to_them(state: Path):
    state.mkdir()
    config = state / "openclaw.json"
    config.write_text(json.dumps({"tools": {"toolSearch": True}}))
    apply_all(openclaw.install_changes("hook", ["/v/ctxmode", "serve"]))
    assert json.loads(config.read_text())["tools"] == {"toolSearch": True}
    apply_all(openclaw.uninstall_changes())
    assert json.loads(config.read_text()) == {"tools": {"toolSearch": True}}


def test_a_plugin_allowlist_gets_our_id_and_loses_exactly_that(state: Path):
    state.mkdir()
    config = state / "openclaw.json"
    config.write_text(json.dumps({"plugins": {"allow": ["copilot"]}}))
    apply_all(openclaw.install_changes("hook", ["/v/ctxmode", "serve"]))
    assert json.loads(config.read_text())["plugins"]["allow"] == ["copilot", "context-mode"]
    apply_all(openclaw.uninstall_changes())
    assert json.loads(config.read_text()) == {"plugins": {"allow": ["copilot"]}}


def test_an_allowlist_that_already_named_us_keeps_us_after_uninstall(state: Path):
    state.mkdir()
    config = state / "openclaw.json"
    config.write_text(json.dumps({"plugins": {"allow": ["context-mode"]}}))
    apply_all(openclaw.install_changes("hook", ["/v/ctxmode", "serve"]))
    apply_all(openclaw.uninstall_changes())
    assert json.loads(config.read_text()) == {"plugins": {"allow": ["context-mode"]}}


def test_a_malformed_config_is_reported_and_not_written(state: Path):
    state.mkdir()
    config = state / "openclaw.json"
    config.write_text(json.dumps({"plugins": {"load": {"paths": "oops"}}}))
    with pytest.raises(inst.InstallError, match=r"plugins\.load\.paths"):
        openclaw.install_changes("hook", ["/v/ctxmode", "serve"])


def test_setup_has_no_project_scope(tmp_path: Path):
    done = ctx("setup", "openclaw", "--project", str(tmp_path), "--print", cwd=tmp_path)
    assert done.returncode != 0 and "no project-scope config" in done.stderr
