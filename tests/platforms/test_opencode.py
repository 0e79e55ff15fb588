"""OpenCode and Kilo: the shim's payload translated both ways, and `ctxmode setup` for both."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ctxmode.hooks import plugin_rules as rules
from ctxmode.platforms import _install as inst
from ctxmode.platforms import kilo, load, opencode
from support.cli import ctx

PREFIX = "context-mode_"
TOOLS = [f"{PREFIX}ctx_execute", f"{PREFIX}ctx_search"]
CONFIG = {"denyTools": [], "truncateTools": ["bash", "read", "grep", "glob", "list", "webfetch"],
          "maxResultBytes": 20_000}  # fmt: skip
SERVER = ["/opt/ctx/bin/ctxmode", "serve"]
HOOK = '/opt/ctx/bin/python -I -S -c "import sys;from ctxmode._hook import main;main(sys.argv[1:])"'


def answer(host_event: str, tool: str, arguments: dict, **extra: object) -> dict | None:
    body = {"tool": tool, "input": arguments, "callId": "c1", "sessionId": "s1",
            "cwd": os.getcwd(), "tools": TOOLS, "config": CONFIG, **extra}  # fmt: skip
    event = opencode.PLATFORM.parse(body, host_event)
    text = opencode.render(event, rules.handle(event)).stdout
    return json.loads(text) if text else None


def test_opencode_names_of_our_tools_are_detected():
    assert rules.detect_prefix(["bash", *TOOLS]) == PREFIX
    assert rules.detect_prefix(TOOLS, "context-mode") == PREFIX
    assert rules.detect_prefix(["bash"]) is None  # our server is not there: nothing to name


def test_curl_is_denied_naming_the_opencode_tool():
    denied = answer("before", "bash", {"command": "curl -s https://example.com"})
    assert denied is not None and f"{PREFIX}ctx_execute" in denied["deny"]
    assert "mcp__" not in denied["deny"]
    assert answer("before", "bash", {"command": "ls"}) is None


def test_bulky_commands_run_because_their_output_is_cut_after(tmp_path: Path):
    (tmp_path / "big.log").write_text("x line\n" * 50_000)
    for command in (f"cat {tmp_path / 'big.log'}", "pytest -q", "git log"):
        assert answer("before", "bash", {"command": command}) is None, command


def test_big_output_becomes_a_notice_and_small_or_failed_output_passes():
    big = "\n".join(f"line {n} of the build log" for n in range(2_000))
    cut = answer(
        "after", "bash", {"command": "make"}, result={"output": big, "metadata": {"exit": 0}}
    )
    assert cut is not None and len(cut["output"].encode()) <= 2048
    assert f"{PREFIX}ctx_search" in cut["output"]
    small = {"output": "ok\n", "metadata": {"exit": 0}}
    assert answer("after", "bash", {"command": "make"}, result=small) is None
    failed = {"output": big, "metadata": {}, "isError": True}
    assert answer("after", "read", {"filePath": "/x"}, result=failed) is None


def test_a_truncated_output_points_at_the_hosts_full_file():
    result = {"output": "tail", "metadata": {"exit": 3, "truncated": True, "outputPath": "/t/out"}}
    found = opencode.tool_result(result)
    assert (found.exit_code, found.full_stdout_path) == (3, "/t/out")
    assert (
        opencode.tool_result({"output": "x", "metadata": {"outputPath": "/t/out"}}).full_stdout_path
        == ""
    )


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config"


def apply_all(changes: list[inst.Change]) -> None:
    for change in changes:
        inst.apply(change)


@pytest.mark.parametrize(("module", "app"), [(opencode, "opencode"), (kilo, "kilo")])
def test_setup_merges_into_jsonc_is_idempotent_and_uninstall_restores(module, app, xdg: Path):
    path = xdg / app / f"{app}.jsonc"
    path.parent.mkdir(parents=True)
    mine = {
        "model": "x/y",
        "plugin": ["my-plugin"],
        "mcp": {"docs": {"type": "remote", "url": "u"}},
    }
    path.write_text("// my settings\n" + json.dumps(mine, indent=2).replace('"u"\n', '"u",\n'))
    installer = module.PLATFORM.installer
    apply_all(installer.install_changes(HOOK, SERVER))
    document = json.loads(path.read_text())
    url = (xdg / app / "ctxmode-plugin" / "index.js").as_uri()
    assert document["plugin"] == ["my-plugin", url]
    assert document["mcp"]["context-mode"] == {"type": "local", "command": SERVER, "enabled": True}
    assert document["mcp"]["docs"] == mine["mcp"]["docs"] and document["model"] == "x/y"
    launch = json.loads((xdg / app / "ctxmode-plugin" / "ctxmode.json").read_text())
    assert launch["hook"][-1] == module.PLATFORM.id and launch["server"] == "context-mode"
    assert Path(str(path) + inst.BACKUP_SUFFIX).read_text().startswith("// my settings")
    assert not any(change.changed for change in installer.install_changes(HOOK, SERVER))
    apply_all(installer.uninstall_changes())
    assert json.loads(path.read_text()) == mine
    assert not (xdg / app / "ctxmode-plugin").exists()


def test_project_scope_writes_the_projects_own_config(tmp_path: Path, xdg: Path):
    project = tmp_path / "project"
    project.mkdir()
    done = ctx("setup", "opencode", "--project", str(project), cwd=project,
               env={**os.environ, "XDG_CONFIG_HOME": str(xdg)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads((project / "opencode.json").read_text())
    assert document["plugin"] == [(project / ".opencode" / "ctxmode-plugin" / "index.js").as_uri()]
    assert not (xdg / "opencode").exists()
    undone = ctx("setup", "opencode", "--project", str(project), "--uninstall", cwd=project,
                 env={**os.environ, "XDG_CONFIG_HOME": str(xdg)})  # fmt: skip
    assert undone.returncode == 0, undone.stderr
    assert not (project / "opencode.json").exists()


def test_a_plugin_list_of_the_wrong_type_is_refused(xdg: Path):
    path = xdg / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"plugin": "one"}')
    with pytest.raises(inst.InstallError):
        opencode.PLATFORM.installer.install_changes(HOOK, SERVER)


def test_kilo_is_its_own_platform_with_opencodes_rules():
    assert load("kilo") is kilo.PLATFORM and kilo.PLATFORM.tool_name(
        "ctx_search", "context-mode"
    ) == ("context-mode_ctx_search")


def test_a_compaction_carries_our_snapshot_and_the_guide_follows():
    prompt = {"sessionId": "s9", "cwd": os.getcwd(), "tools": TOOLS, "config": CONFIG}
    event = opencode.PLATFORM.parse({**prompt, "prompt": "fix the flaky upload test"}, "prompt")
    assert rules.handle(event) is None
    snapshot = answer("compacting", "", {}, sessionId="s9")
    assert snapshot is not None and "fix the flaky upload test" in snapshot["section"]
    guide = answer("compacted", "", {}, sessionId="s9")
    assert guide is not None and f"{PREFIX}ctx_search" in guide["section"]
