"""`ctxmode setup`: fast hook commands merged into host settings, never clobbering."""

from __future__ import annotations

import json
import subprocess

from click.testing import CliRunner

from ctxmode.commands.setup import command, fast_hook_prefix

OTHER_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}


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
        "PreToolUse", "PostToolUse", "PreCompact", "SessionStart", "UserPromptSubmit", "Stop"
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
    result = CliRunner().invoke(command, ["claude-code"])
    assert result.exit_code != 0 and "not valid JSON" in result.output
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
