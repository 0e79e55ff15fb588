"""The routing block in the instruction file of hosts that cannot inject it at session start."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.commands.setup import command
from ctxmode.hooks.routing_block import MARKER
from ctxmode.hooks.runner import run
from ctxmode.platforms import REGISTRY, all_platforms, load
from ctxmode.platforms._instructions import BEGIN, END, with_section, without_section

USER_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200).filter(
    lambda text: BEGIN not in text and END not in text
)


@pytest.fixture(autouse=True)
def temp_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)  # user-scope setups of some hosts write into this project
    for name in ("COPILOT_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def run_setup(*args: str):
    return CliRunner().invoke(command, list(args), catch_exceptions=False)


@settings(max_examples=200, deadline=None)
@given(USER_TEXT.map(lambda text: text if not text or text.endswith("\n") else text + "\n"))
def test_the_section_comes_out_as_it_went_in(text):
    written = with_section(text, "block v1")
    assert written.count(BEGIN) == 1 and text in written
    assert with_section(written, "block v1") == written  # idempotent
    assert with_section(written, "block v2").count(BEGIN) == 1  # replaced in place
    assert without_section(written) == (text or None)


def test_user_text_after_our_section_is_kept():
    written = with_section("# Mine\n", "block") + "## Added later\n"
    assert without_section(written) == "# Mine\n\n## Added later\n"


@pytest.mark.parametrize("platform_id", sorted(REGISTRY))
def test_an_instruction_file_exactly_where_no_hook_injects_the_block(platform_id):
    platform = load(platform_id)
    has_file = platform.installer.instructions is not None
    if platform.can_inject_context:
        assert not has_file  # never twice: the session-start hook already injects it
    else:
        assert has_file


def test_agy_setup_writes_the_block_once_and_uninstall_restores(temp_home):
    instructions = temp_home / ".gemini" / "GEMINI.md"
    instructions.parent.mkdir(parents=True)
    instructions.write_text("# My rules\nUse tabs.\n", encoding="utf-8")
    assert run_setup("antigravity-cli").exit_code == 0
    again = run_setup("antigravity-cli")
    assert "already set up" in again.output
    text = instructions.read_text(encoding="utf-8")
    assert text.startswith("# My rules\nUse tabs.\n") and text.count(MARKER) == 1
    assert "context-mode/ctx_execute" in text  # the host's own naming
    assert run_setup("antigravity-cli", "--uninstall").exit_code == 0
    assert instructions.read_text(encoding="utf-8") == "# My rules\nUse tabs.\n"


def test_hosts_that_inject_get_no_instruction_file(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    assert run_setup("gemini-cli", "--project", str(project)).exit_code == 0
    written = [p for p in project.rglob("*") if p.is_file() and MARKER in p.read_text()]
    assert written == []


def test_zed_setup_merges_into_commented_settings_and_writes_agents_md(
    tmp_path, temp_home, monkeypatch
):
    settings_path = temp_home / ".config" / "zed" / "settings.json"
    settings_path.parent.mkdir(parents=True)
    mine = '// Zed settings\n{\n  "theme": "One Dark", // mine\n  "tab_size": 2,\n}\n'
    settings_path.write_text(mine, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    assert run_setup("zed", "--project", str(project)).exit_code == 0
    written = json.loads(settings_path.read_text(encoding="utf-8"))
    assert written["theme"] == "One Dark"
    server = written["context_servers"]["context-mode"]
    assert server["source"] == "custom" and "serve" in server["args"]
    agents = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert MARKER in agents and "ctx_execute(" in agents and "mcp__" not in agents
    assert run_setup("zed", "--project", str(project), "--uninstall").exit_code == 0
    assert not (project / "AGENTS.md").exists()
    assert "context-mode" in settings_path.read_text()  # other projects still use it
    monkeypatch.chdir(project)
    assert run_setup("zed", "--uninstall").exit_code == 0  # not just this project's: all of it
    assert settings_path.read_text(encoding="utf-8") == mine  # the comments came back too


def test_antigravity_ide_setup_registers_the_server_and_gemini_md(tmp_path, temp_home, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    assert run_setup("antigravity", "--project", str(project)).exit_code == 0
    config = temp_home / ".gemini" / "antigravity" / "mcp_config.json"
    assert "context-mode" in json.loads(config.read_text())["mcpServers"]
    assert MARKER in (project / "GEMINI.md").read_text(encoding="utf-8")
    assert run_setup("antigravity", "--project", str(project), "--uninstall").exit_code == 0
    assert config.exists() and not (project / "GEMINI.md").exists()  # other projects use it
    assert run_setup("antigravity", "--project", str(project)).exit_code == 0
    monkeypatch.chdir(project)
    assert run_setup("antigravity", "--uninstall").exit_code == 0
    assert not config.exists() and not (project / "GEMINI.md").exists()


def test_mcp_only_hosts_have_no_hooks_and_no_capabilities():
    for platform in all_platforms():
        if not platform.events:
            output = run(platform, "pretooluse", lambda: b"{}")
            assert (output.exit_code, output.stdout) == (0, "") and "no hooks" in output.stderr
            assert platform.installer.hook_commands("x") == {}
            assert not (platform.can_deny or platform.can_modify_input)
            assert not (platform.can_replace_output or platform.can_inject_context)
