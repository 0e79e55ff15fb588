"""`ctxmode setup`: fast hook commands merged into host settings, never clobbering."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest
from click.testing import CliRunner

from ctxmode.cli import cli
from ctxmode.commands.setup import command
from ctxmode.launch import fast_hook_prefix

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

OTHER_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}


HOST_ENV = (
    "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "KIMI_CODE_HOME", "KIMI_SHARE_DIR",
    "XDG_CONFIG_HOME",
)  # fmt: skip


@pytest.fixture(autouse=True)
def temp_home(tmp_path, monkeypatch):
    """No test here may read or write the real user's host configs."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)  # user-scope setups of some hosts write into this project
    for name in HOST_ENV:
        monkeypatch.delenv(name, raising=False)
    return home


def run_setup(*args: str):
    return CliRunner().invoke(command, list(args), catch_exceptions=False)


def test_writes_fast_hooks_and_keeps_other_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"model": "x", "hooks": {"PreToolUse": [OTHER_HOOK]}}))
    assert run_setup("claude-code").exit_code == 0
    assert run_setup("claude-code").exit_code == 0  # twice: still one entry of ours
    written = json.loads(settings.read_text())
    assert written["model"] == "x"
    pre = written["hooks"]["PreToolUse"]
    assert pre[0] == OTHER_HOOK and len(pre) == 2
    ours = pre[1]["hooks"][0]["command"]
    assert " -I -S -c " in ours and "from ctxmode._hook import main" in ours
    assert ours.endswith(" claude-code pretooluse")
    assert set(written["hooks"]) == {
        "PreToolUse", "PostToolUse", "PostToolUseFailure", "PreCompact", "SessionStart",
        "UserPromptSubmit", "Stop",
    }  # fmt: skip
    assert (tmp_path / "settings.json.ctxmode-backup").exists()


def test_the_written_command_runs_as_a_hook(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    run_setup("claude-code")
    line = json.loads((tmp_path / "settings.json").read_text())["hooks"]["Stop"][0]["hooks"][0][
        "command"
    ]
    completed = subprocess.run(["sh", "-c", line], input=b"{}", capture_output=True, check=False)
    assert (completed.returncode, completed.stdout) == (0, b"{}")


def test_invalid_settings_are_left_untouched(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    settings = tmp_path / "settings.json"
    settings.write_text("{ not json")
    result = CliRunner().invoke(cli, ["setup", "claude-code"])  # errors are told by the group
    assert result.exit_code == 1 and "not valid JSON" in result.output
    assert settings.read_text() == "{ not json"


def test_print_changes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    result = run_setup("qwen-code", "--print")
    assert "PreToolUse: " in result.output and "qwen-code pretooluse" in result.output
    assert not (tmp_path / "settings.json").exists()


def test_unusual_install_paths_are_shell_quoted():
    prefix = fast_hook_prefix("/opt/my env/bin/python", "/opt/it's here/site-packages")
    assert prefix.startswith("'/opt/my env/bin/python' -I -S -c ")
    code_word = prefix.split(" -c ", 1)[1]
    printed = subprocess.run(
        ["sh", "-c", f"printf '%s' {code_word}"], capture_output=True, text=True, check=True
    ).stdout
    assert printed.startswith('import sys;sys.path.insert(0,"/opt/it\'s here/site-packages");')


# ------------------------------------------------------------ every host, real processes


def setup_process(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxmode", "setup", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def test_codex_install_is_idempotent_and_uninstall_removes_it(temp_home):
    first = setup_process("codex")
    assert first.returncode == 0, first.stderr
    hooks = json.loads((temp_home / ".codex" / "hooks.json").read_text())
    assert set(hooks["hooks"]) == {
        "PreToolUse", "PostToolUse", "PreCompact", "SessionStart", "UserPromptSubmit", "Stop"
    }  # fmt: skip
    config = tomllib.loads((temp_home / ".codex" / "config.toml").read_text())
    server = config["mcp_servers"]["context-mode"]
    assert server["args"] == ["serve"] and os.path.isabs(server["command"])
    second = setup_process("codex")
    assert "already set up" in second.stdout
    gone = setup_process("--uninstall", "codex")
    assert gone.returncode == 0, gone.stderr
    assert not (temp_home / ".codex" / "hooks.json").exists()
    assert not (temp_home / ".codex" / "config.toml").exists()  # it held only our server


def test_the_mcp_command_starts_ctxmode(temp_home):
    assert setup_process("cursor").returncode == 0
    server = json.loads((temp_home / ".cursor" / "mcp.json").read_text())["mcpServers"]
    line = [server["context-mode"]["command"], *server["context-mode"]["args"]]
    assert line[-1] == "serve"
    helped = subprocess.run([*line, "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "serve" in helped.stdout.lower()


def test_print_shows_the_files_and_writes_nothing(temp_home):
    shown = setup_process("cursor", "--print")
    assert shown.returncode == 0, shown.stderr
    assert "preToolUse: " in shown.stdout and "cursor pretooluse" in shown.stdout
    assert f"Would create {temp_home / '.cursor' / 'hooks.json'}:" in shown.stdout
    assert '"mcpServers"' in shown.stdout
    assert not (temp_home / ".cursor").exists()


def test_project_scope_is_refused_where_the_host_has_none(tmp_path):
    refused = setup_process("antigravity-cli", "--project", str(tmp_path))
    assert refused.returncode != 0 and "no project-scope config" in refused.stderr


def test_a_project_only_host_installs_into_the_current_project(tmp_path, monkeypatch):
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert run_setup("vscode-copilot").exit_code == 0
    hooks = json.loads((project / ".github" / "hooks" / "context-mode.json").read_text())
    assert hooks["hooks"]["PreToolUse"][0]["command"].endswith(" vscode-copilot pretooluse")
    assert "context-mode" in json.loads((project / ".vscode" / "mcp.json").read_text())["servers"]


def test_project_flag_writes_the_project_files(tmp_path, temp_home):
    project = tmp_path / "p"
    mistyped = run_setup("gemini-cli", "--project", str(project))
    assert mistyped.exit_code == 2 and "does not exist" in mistyped.output
    project.mkdir()
    assert run_setup("gemini-cli", "--project", str(project)).exit_code == 0
    settings = json.loads((project / ".gemini" / "settings.json").read_text())
    assert "BeforeTool" in settings["hooks"] and "context-mode" in settings["mcpServers"]
    assert not (temp_home / ".gemini").exists()


def test_malformed_toml_gets_a_one_line_error_and_stays(temp_home):
    config = temp_home / ".kimi-code" / "config.toml"
    config.parent.mkdir()
    config.write_text("[[hooks]\n")
    failed = setup_process("kimi")
    assert failed.returncode == 1
    assert failed.stderr.count("\n") == 1 and "not valid TOML" in failed.stderr
    assert config.read_text() == "[[hooks]\n"
    assert not (temp_home / ".kimi-code" / "mcp.json").exists()


@pytest.mark.parametrize(
    ("platform", "path", "event", "expected"),
    [
        ("kiro", ".kiro/agents/context-mode.json", "agentSpawn", 0),
        ("codex", ".codex/hooks.json", "Stop", 0),
        ("gemini-cli", ".gemini/settings.json", "AfterTool", 0),
    ],
)
def test_written_commands_run_as_hooks(temp_home, platform, path, event, expected):
    assert run_setup(platform).exit_code == 0
    entry = json.loads((temp_home / path).read_text())["hooks"][event][0]
    line = entry["hooks"][0]["command"] if "hooks" in entry else entry["command"]
    done = subprocess.run(["sh", "-c", line], input=b"{}", capture_output=True, timeout=60)
    assert done.returncode == expected, done.stderr


@pytest.mark.parametrize(
    ("platform", "path"),
    [("kimi", ".kimi-code/config.toml"), ("copilot-cli", ".copilot/hooks/context-mode.json")],
)
def test_installed_hooks_import_no_installer_code(temp_home, platform, path):
    assert run_setup(platform).exit_code == 0
    text = (temp_home / path).read_text()
    if path.endswith(".toml"):
        line = tomllib.loads(text)["hooks"][0]["command"]
    else:
        line = json.loads(text)["hooks"]["preToolUse"][0]["bash"]
    argv = shlex.split(line)
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}}).encode()
    env = {**os.environ, "CTXMODE_HOOK_MODULE_CACHE": "off"}  # else ours run unlisted
    done = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        input=payload, capture_output=True, timeout=60, env=env,
    )  # fmt: skip
    imported = {
        row.rsplit("|", 1)[-1].strip()
        for row in done.stderr.decode().splitlines()
        if row.startswith("import time:")
    }
    assert "ctxmode.hooks.runner" in imported
    assert not imported & {"ctxmode.platforms._install", "json", "tomllib", "dataclasses", "click"}


def test_uninstall_print_shows_the_removal_and_keeps_the_files(temp_home):
    assert run_setup("copilot-cli").exit_code == 0
    hooks = temp_home / ".copilot" / "hooks" / "context-mode.json"
    before = hooks.read_bytes()
    shown = run_setup("--uninstall", "--print", "copilot-cli")
    assert f"Would delete {hooks}" in shown.output
    assert hooks.read_bytes() == before
    assert run_setup("--uninstall", "copilot-cli").exit_code == 0
    assert not hooks.exists()
    assert "already absent" in run_setup("--uninstall", "copilot-cli").output
