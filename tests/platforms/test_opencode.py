"""OpenCode and Kilo: the shim's payload translated both ways, and `ctxmode setup` for both."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ctxmode import doctor
from ctxmode.hooks import handlers
from ctxmode.hooks import plugin_rules as rules
from ctxmode.platforms import _install as inst
from ctxmode.platforms import from_environment, kilo, load, opencode
from ctxmode.server.instructions import client_platform, instructions_for
from ctxmode.vocab.platform import Platform
from ctxmode.vocab.toolnames import OWN_TOOLS
from support.cli import ctx

PREFIX = "context-mode_"
TOOLS = [f"{PREFIX}ctx_execute", f"{PREFIX}ctx_search"]
CONFIG = {"denyTools": [], "truncateTools": ["bash", "read", "grep", "glob", "list", "webfetch"],
          "maxResultBytes": 20_000}  # fmt: skip
SERVER = ["/opt/ctx/bin/ctxmode", "serve"]
HOOK = '/opt/ctx/bin/python -I -S -c "import sys;from ctxmode._hook import main;main(sys.argv[1:])"'


def answer(
    host_event: str,
    tool: str,
    arguments: dict,
    platform: Platform = opencode.PLATFORM,
    **extra: object,
) -> dict | None:
    body = {"tool": tool, "input": arguments, "callId": "c1", "sessionId": "s1",
            "cwd": os.getcwd(), "tools": TOOLS, "config": CONFIG, **extra}  # fmt: skip
    event = platform.parse(body, host_event)
    text = platform.render(event, handlers.handle(event, platform)).stdout
    return json.loads(text) if text else None


def test_opencode_names_of_our_tools_are_detected():
    assert rules.detect_prefix(["bash", *TOOLS]) == PREFIX
    assert rules.detect_prefix(TOOLS, "context-mode") == PREFIX
    assert rules.detect_prefix(["bash"]) is None  # our server is not there: nothing to name


def test_curl_is_rewritten_to_print_guidance_naming_the_opencode_tool():
    call = {"command": "curl -s https://example.com", "description": "fetch", "timeout": 5}
    rewritten = answer("before", "bash", call)
    assert rewritten is not None and set(rewritten) == {"args"}
    assert list(rewritten["args"]) == ["command"]  # only what changed; the shim merges it
    command = rewritten["args"]["command"]
    assert command.startswith('echo "') and f"{PREFIX}ctx_execute" in command
    assert "mcp__" not in command
    assert answer("before", "bash", {"command": "ls"}) is None


def test_without_rewrites_a_redirect_is_a_deny_carrying_the_guidance():
    body = {"tool": "bash", "input": {"command": "curl -s https://example.com"}, "callId": "c1",
            "sessionId": "s1", "cwd": os.getcwd(), "tools": TOOLS, "config": CONFIG}  # fmt: skip
    decision = rules.handle(opencode.PLATFORM.parse(body, "before"))
    assert decision is not None and decision.action == "deny"
    assert f"{PREFIX}ctx_execute" in decision.reason


def test_a_rewrite_of_a_read_is_sent_under_the_hosts_argument_names():
    event = opencode.PLATFORM.parse({"tool": "read", "input": {"filePath": "/a"}}, "before")
    updated = {**event.tool_input, "file_path": "/a", "offset": 1, "limit": 400}
    assert opencode.changed_arguments(event, updated) == {"offset": 1, "limit": 400}
    assert opencode.changed_arguments(event, {"file_path": "/b"}) == {"filePath": "/b"}


@pytest.mark.parametrize("platform", [opencode.PLATFORM, kilo.PLATFORM], ids=["opencode", "kilo"])
def test_every_command_runs_through_the_wrapper_but_those_it_would_change(
    tmp_path: Path, platform: Platform
):
    (tmp_path / "big.log").write_text("x line\n" * 50_000)
    for command in (f"cat {tmp_path / 'big.log'}", "pytest -q", "git log", "sort notes.txt"):
        rewritten = answer("before", "bash", {"command": command, "description": "d"},
                           platform=platform)  # fmt: skip
        assert rewritten is not None and list(rewritten["args"]) == ["command"], command
        wrapped = rewritten["args"]["command"]
        assert f"ctxmode-wrap --host {platform.id} -- " in wrapped, wrapped
        assert wrapped.endswith(f"-- {command}"), wrapped
    for command in ("ls", "echo hi", "cd src", "export X=1", "npm run dev", "vim a.py",
                    "sleep 9 &", "my_alias_not_on_path --all"):  # fmt: skip
        assert answer("before", "bash", {"command": command}, platform=platform) is None, command


def test_with_wrap_every_off_only_predicted_commands_are_wrapped(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CTXMODE_WRAP_EVERY", "off")
    assert answer("before", "bash", {"command": "sort notes.txt"}) is None
    assert "ctxmode-wrap" in answer("before", "bash", {"command": "pytest -q"})["args"]["command"]


def test_a_command_run_in_workdir_is_judged_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CTXMODE_WRAP_EVERY", "off")  # wrapped only when predicted bulky
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "big.log").write_text("x line\n" * 50_000)
    call = {"command": "cat big.log", "description": "d"}
    assert answer("before", "bash", call, cwd=str(tmp_path)) is None  # no such file here
    rewritten = answer("before", "bash", {**call, "workdir": "sub"}, cwd=str(tmp_path))
    assert rewritten is not None and rewritten["args"]["command"].endswith("-- cat big.log")


def test_a_wrapped_command_names_our_server_as_the_host_registered_it():
    tools = ["ctx_ctx_execute", "ctx_ctx_search"]
    config = {**CONFIG, "serverName": "ctx"}
    rewritten = answer("before", "bash", {"command": "pytest -q"}, tools=tools, config=config)
    assert "ctxmode-wrap --host 'opencode=ctx_' -- pytest -q" in rewritten["args"]["command"]


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
    found = opencode.tool_result({"result": result})
    assert (found.exit_code, found.full_stdout_path) == (3, "/t/out")
    untruncated = {"output": "x", "metadata": {"outputPath": "/t/out"}}
    assert opencode.tool_result({"result": untruncated}).full_stdout_path == ""


def kilo_cut(tail: str, **metadata: object) -> dict:
    """A bash result as Kilo hands it over after cutting it: its notice, then the tail."""
    path = metadata.get("outputPath", "")
    text = f"...output truncated...\n\nFull output saved to: {path}\n\n{tail}"
    return {"output": text, "metadata": {"exit": 0, "truncated": True, **metadata}}


def test_a_cut_output_is_indexed_whole_from_the_hosts_file(tmp_path: Path):
    whole = [f"line {n} of the build log" for n in range(12_000)]
    (tmp_path / "tool_out").write_text("\n".join(whole))
    result = kilo_cut("\n".join(whole[-2_000:]), outputPath=str(tmp_path / "tool_out"))
    notice = answer("after", "bash", {"command": "make"}, result=result)["output"]
    assert "Incomplete" not in notice and "317.3 KB stdout" in notice  # the whole file
    assert "line 0 of the build log" in notice  # its head, which the host's text had lost


@pytest.mark.parametrize("where", ["gone", ""])
def test_a_cut_output_with_no_readable_whole_says_what_was_lost(tmp_path: Path, where: str):
    tail = "\n".join(f"line {n} of the build log" for n in range(10_000, 12_000))
    metadata = {"outputPath": str(tmp_path / where)} if where else {}
    notice = answer("after", "bash", {"command": "make"}, result=kilo_cut(tail, **metadata))
    text = notice["output"]
    assert "Incomplete: the host had already cut this output" in text, text
    assert "the rest is lost" in text and len(text.encode()) <= 2048
    assert (str(tmp_path / where) in text) == bool(where)


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
    assert set(launch["ourTools"]) == OWN_TOOLS  # the shim names our tools from these
    assert Path(str(path) + inst.BACKUP_SUFFIX).read_text().startswith("// my settings")
    assert not any(change.changed for change in installer.install_changes(HOOK, SERVER))
    apply_all(installer.uninstall_changes())
    assert json.loads(path.read_text()) == mine
    assert not (xdg / app / "ctxmode-plugin").exists()


def test_setup_threshold_is_written_and_kept_when_setup_runs_again(tmp_path: Path, xdg: Path):
    env = {**os.environ, "XDG_CONFIG_HOME": str(xdg)}
    launch = xdg / "kilo" / "ctxmode-plugin" / "ctxmode.json"
    assert ctx("setup", "kilo", "--threshold", "5000", cwd=tmp_path, env=env).returncode == 0
    assert json.loads(launch.read_text())["config"] == {"maxResultBytes": 5000}
    again = ctx("setup", "kilo", cwd=tmp_path, env=env)
    assert again.returncode == 0 and "already set up" in again.stdout
    assert json.loads(launch.read_text())["config"] == {"maxResultBytes": 5000}
    refused = ctx("setup", "claude-code", "--threshold", "5000", cwd=tmp_path, env=env)
    assert refused.returncode != 0 and "no output threshold" in refused.stderr


def test_the_threshold_variable_wins_over_the_plugins_setting(monkeypatch: pytest.MonkeyPatch):
    medium = {"output": "a line of output\n" * 300, "metadata": {"exit": 0}}  # 5,100 bytes
    assert answer("after", "bash", {"command": "make"}, result=medium) is None
    monkeypatch.setenv("CTXMODE_PLUGIN_THRESHOLD", "4000")
    cut = answer("after", "bash", {"command": "make"}, result=medium)
    assert cut is not None and f"{PREFIX}ctx_search" in cut["output"]
    monkeypatch.setenv("CTXMODE_PLUGIN_THRESHOLD", "lots")  # not a number: the setting holds
    assert answer("after", "bash", {"command": "make"}, result=medium) is None


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


def test_kilo_is_detected_before_opencode_whose_variable_it_exports_too():
    assert from_environment({"KILO": "1", "OPENCODE": "1"}) is kilo.PLATFORM
    assert from_environment({"KILO_PID": "42", "OPENCODE_PID": "42"}) is kilo.PLATFORM
    assert from_environment({"OPENCODE": "1"}) is opencode.PLATFORM
    assert from_environment({"OPENCODE": ""}) is None and from_environment({}) is None


def test_the_server_names_its_tools_for_the_host_that_started_it(xdg: Path):
    assert client_platform("kilo") is kilo.PLATFORM
    assert client_platform("opencode") is opencode.PLATFORM
    assert client_platform("", {"KILO": "1", "OPENCODE": "1"}) is kilo.PLATFORM
    assert client_platform("some-editor", {"KILO": "1"}) is None  # a named client is believed
    text = instructions_for("kilo", "")
    assert f"{PREFIX}ctx_search" in text and "mcp__" not in text


def test_doctor_says_which_host_it_runs_inside(xdg: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("KILO", "1")
    monkeypatch.setenv("OPENCODE", "1")
    first = doctor.host_checks(str(xdg))[0]
    assert first.status == doctor.OK and first.text == "running inside Kilo CLI (kilo)"


def test_a_compaction_carries_our_snapshot_and_the_guide_follows():
    prompt = {"sessionId": "s9", "cwd": os.getcwd(), "tools": TOOLS, "config": CONFIG}
    event = opencode.PLATFORM.parse({**prompt, "prompt": "fix the flaky upload test"}, "prompt")
    assert rules.handle(event) is None
    snapshot = answer("compacting", "", {}, sessionId="s9")
    assert snapshot is not None and "fix the flaky upload test" in snapshot["section"]
    guide = answer("compacted", "", {}, sessionId="s9")
    assert guide is not None and f"{PREFIX}ctx_search" in guide["section"]
