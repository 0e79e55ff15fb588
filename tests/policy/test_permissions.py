"""Permission rules: settings loading, rule grammar, precedence, tools, and failure modes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmode.policy.permissions import evaluate_bash, evaluate_read, is_read_allowed_outside_project
from ctxmode.policy.rules import RuleSet, evaluate_tool_call, load_rules, parse_rule, rules_root

CASE_INSENSITIVE = sys.platform in ("darwin", "win32")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project dir, with the user's Claude config dir pointed at an empty temp dir."""
    user = tmp_path / "user-claude"
    user.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(user))
    for name in ("CTXMODE_REQUIRE_SECURITY", "CONTEXT_MODE_REQUIRE_SECURITY"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "project"
    root.mkdir()
    return root


def write_settings(path: Path, **permissions: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": permissions}), encoding="utf-8")
    return path


def project_settings(project: Path, name: str = "settings.json", **permissions: list[str]) -> Path:
    return write_settings(project / ".claude" / name, **permissions)


def user_settings(**permissions: list[str]) -> Path:
    return write_settings(Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json", **permissions)


def rules(**permissions: list[str]) -> RuleSet:
    found = []
    for action, patterns in permissions.items():
        found += [parse_rule(pattern, action, "test") for pattern in patterns]
    return RuleSet(found, project_dir="/project")  # type: ignore[arg-type]


# -- Bash grammar: `Bash(prefix:rest)` and whole-command globs ---------------------------


@pytest.mark.parametrize(
    ("pattern", "command", "matches"),
    [
        ("Bash(git:*)", "git", True),
        ("Bash(git:*)", "git push x", True),
        ("Bash(git:*)", "gitk", False),
        ("Bash(git push:*)", "git push origin main", True),
        ("Bash(git push:*)", "git pull", False),
        ("Bash(npm run test:*)", "npm run test -- -k x", True),
        ("Bash(sudo *)", "sudo rm -rf /tmp/x", True),
        ("Bash(sudo *)", "sudo", True),  # a trailing " *" also matches nothing
        ("Bash(rm -rf *)", "rm -rf /", True),
        ("Bash(rm -rf *)", "rm -r /", False),
        ("Bash(rm -rf *)", "echo rm -rf /", False),  # anchored at both ends
        ("Bash(*rm -rf*)", "echo; rm -rf x", True),
        ("Bash(curl * | sh)", "curl https://x | sh", True),  # whole command form
        ("Bash(docker run -p 80:80)", "docker run -p 80:80", True),
        ('Bash(echo "a b")', "echo 'a b'", True),  # quotes compare dequoted
        ("Bash(a.b)", "axb", False),  # only * is a wildcard
        ("Bash(ls?)", "lsx", False),
        ("Bash", "anything at all", True),
        ("Bash(*)", "anything at all", True),
    ],
)
def test_bash_pattern_grammar(pattern: str, command: str, matches: bool) -> None:
    verdict = evaluate_bash(command, rules(deny=[pattern]))
    assert (verdict.action == "deny") is matches


def test_spec_example_chained_sudo_is_denied_naming_the_segment() -> None:
    verdict = evaluate_bash("echo hi && sudo rm -rf /tmp/x", rules(deny=["Bash(sudo *)"]))
    assert verdict.action == "deny"
    assert verdict.matched_command == "sudo rm -rf /tmp/x"
    assert verdict.reason.startswith("Blocked by security policy:")
    assert "Bash(sudo *)" in verdict.reason


def test_case_sensitivity_follows_the_platform() -> None:
    verdict = evaluate_bash("SUDO x", rules(deny=["Bash(sudo:*)"]))
    assert (verdict.action == "deny") is CASE_INSENSITIVE


def test_deny_beats_ask_beats_allow() -> None:
    ruleset = rules(allow=["Bash(git:*)"], ask=["Bash(git push:*)"], deny=["Bash(git push -f:*)"])
    assert evaluate_bash("git status", ruleset).action == "allow"
    assert evaluate_bash("git push origin", ruleset).action == "ask"
    assert evaluate_bash("git push -f origin", ruleset).action == "deny"


def test_an_allowed_path_spelling_covers_the_same_program_only() -> None:
    ruleset = rules(allow=["Bash(./bin/pytest:*)"])
    assert evaluate_bash("./bin/pytest -q", ruleset).action == "allow"
    assert evaluate_bash("pytest -q", ruleset).action is None  # another pytest, maybe
    assert evaluate_bash("sudo ./bin/pytest -q", ruleset).action is None


def test_allow_needs_every_command_allowed() -> None:
    ruleset = rules(allow=["Bash(git:*)", "Bash(ls:*)"])
    assert evaluate_bash("git status && ls -la", ruleset).action == "allow"
    assert evaluate_bash("git status && make", ruleset).action is None
    assert evaluate_bash("git log $(make)", ruleset).action is None


def test_no_rules_means_no_opinion() -> None:
    assert evaluate_bash("sudo x", RuleSet()).action is None


# -- Read globs: `Read(<path glob>)`, `**` across directories, `~` and `//` anchors -------


def test_read_home_glob_expands_tilde() -> None:
    home = os.path.expanduser("~")
    verdict = evaluate_read(
        os.path.join(home, ".ssh", "id_rsa"), rules(deny=["Read(~/.ssh/**)"]), "/p"
    )
    assert verdict.action == "deny"


def test_read_deny_follows_symlinks(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key").write_text("k")
    (tmp_path / "innocent").symlink_to(tmp_path / "secrets" / "key")
    ruleset = rules(deny=["Read(./secrets/**)"])
    assert evaluate_read("innocent", ruleset, str(tmp_path)).action == "deny"


def test_read_reason_names_the_bare_glob() -> None:
    verdict = evaluate_read(".env", rules(deny=["Read(.env)"]), "/project")
    assert verdict.reason.startswith(
        "Blocked by security policy: file path matches Read deny pattern .env"
    )


def test_outside_read_is_reopened_only_by_a_matching_allow(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    ruleset = rules(allow=[f"Read({shared}/**)"], deny=["Read(**/*.key)"])
    ruleset.project_dir = str(tmp_path / "project")
    assert is_read_allowed_outside_project(str(shared / "notes.md"), ruleset)
    assert not is_read_allowed_outside_project(str(shared / "a.key"), ruleset)
    assert not is_read_allowed_outside_project(str(tmp_path / "other.md"), ruleset)


def test_relative_allow_does_not_reopen_paths_outside_the_project(tmp_path: Path) -> None:
    ruleset = rules(allow=["Read(**/*.md)"])
    ruleset.project_dir = str(tmp_path / "project")
    assert not is_read_allowed_outside_project(str(tmp_path / "elsewhere" / "x.md"), ruleset)


def test_allow_through_a_symlink_to_elsewhere_is_not_allowed(tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (tmp_path / "private.txt").write_text("x")
    (allowed / "link").symlink_to(tmp_path / "private.txt")
    ruleset = rules(allow=[f"Read({allowed}/**)"])
    assert not is_read_allowed_outside_project(str(allowed / "link"), ruleset)


# -- settings files ---------------------------------------------------------------------


def test_project_deny_beats_user_allow(project: Path) -> None:
    project_settings(project, deny=["Bash(rm:*)"])
    user_settings(allow=["Bash(rm:*)"])
    assert evaluate_tool_call("Bash", {"command": "rm x"}, str(project)).action == "deny"


def test_user_deny_beats_project_allow(project: Path) -> None:
    project_settings(project, allow=["Bash(curl:*)"])
    user_settings(deny=["Bash(curl:*)"])
    assert evaluate_tool_call("Bash", {"command": "curl x"}, str(project)).action == "deny"


def test_ask_anywhere_beats_allow_elsewhere(project: Path) -> None:
    project_settings(project, allow=["Bash(git:*)"])
    user_settings(ask=["Bash(git push:*)"])
    assert evaluate_tool_call("Bash", {"command": "git push"}, str(project)).action == "ask"


def test_local_settings_are_read_first(project: Path) -> None:
    project_settings(project, "settings.local.json", deny=["Bash(make:*)"])
    project_settings(project, deny=["Bash(cmake:*)"])
    ruleset = load_rules(str(project))
    assert [rule.text for rule in ruleset.rules] == ["Bash(make:*)", "Bash(cmake:*)"]
    assert ruleset.sources[0].endswith("settings.local.json")


def test_claude_config_dir_is_honoured(project: Path) -> None:
    path = user_settings(deny=["Bash(sudo:*)"])
    assert load_rules(str(project)).sources == [str(path)]


def test_user_settings_default_to_home_claude(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = write_settings(tmp_path / "home" / ".claude" / "settings.json", deny=["Bash(x:*)"])
    assert load_rules(str(project)).sources == [str(path)]


def test_global_files_replace_the_user_file(project: Path, tmp_path: Path) -> None:
    user_settings(deny=["Bash(sudo:*)"])
    host = write_settings(tmp_path / "host" / "settings.json", deny=["Bash(curl:*)"])
    ruleset = load_rules(str(project), global_files=[str(host)])
    assert [rule.text for rule in ruleset.rules] == ["Bash(curl:*)"]
    call = evaluate_tool_call("Bash", {"command": "curl x"}, str(project), [str(host)])
    assert call.action == "deny"


def test_malformed_settings_file_is_skipped_and_logged(project: Path, data_root: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"permissions": {"deny": [', "utf-8")
    user_settings(deny=["Bash(sudo:*)"])
    ruleset = load_rules(str(project))
    assert [rule.text for rule in ruleset.rules] == ["Bash(sudo:*)"]
    assert "malformed JSON" in ruleset.errors[0]
    log = (data_root / "logs" / "policy.log").read_text("utf-8")
    assert "settings.json: malformed JSON" in log
    assert evaluate_tool_call("Bash", {"command": "sudo x"}, str(project)).action == "deny"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[1, 2]", "not a JSON object"),
        ('{"permissions": []}', "not an object"),
        ('{"permissions": {"deny": "Bash(x)"}}', "not a list"),
        ('{"permissions": {"deny": [42, "Bash(ls:*)"]}}', "ignored permissions.deny entry 42"),
        ("\x00\x01garbage", "malformed JSON"),
    ],
)
def test_unusable_settings_are_reported(project: Path, content: str, problem: str) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(content, "utf-8")
    assert problem in load_rules(str(project)).errors[0]


def test_settings_with_bom_and_no_permissions(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_bytes(b'\xef\xbb\xbf{"model": "x"}')
    project_settings(project, "settings.local.json", deny=["Bash(ls:*)"])
    ruleset = load_rules(str(project))
    assert ruleset.errors == []
    assert len(ruleset.rules) == 1


def test_non_rule_strings_are_ignored() -> None:
    assert parse_rule("Bash(unclosed", "deny") is None
    assert parse_rule("two words", "deny") is None
    bare = parse_rule("WebFetch", "deny")
    assert bare is not None and bare.pattern is None


# -- tool calls: the rules applied to each tool's input ----------------------------------


# -- the project root, whatever the current directory --------------------------------------


def test_rules_root_is_the_nearest_ancestor_with_settings(project: Path) -> None:
    project_settings(project, deny=["Bash(sudo:*)"])
    deep = project / "a" / "b"
    deep.mkdir(parents=True)
    (project / "a" / ".git").mkdir()  # a nested repository (a submodule) below the settings
    assert rules_root(str(deep)) == str(project)
    assert rules_root(str(project)) == str(project)


def test_rules_root_falls_back_to_the_version_control_root(project: Path) -> None:
    (project / ".hg").mkdir()
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    assert rules_root(str(deep)) == str(project)


def test_rules_root_prefers_the_host_project_dir(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert rules_root(str(elsewhere), host_dir=str(project)) == str(project)
    assert rules_root(str(elsewhere), host_dir=str(tmp_path / "missing")) == str(elsewhere)


def test_the_users_own_claude_dir_is_not_a_project(tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    write_settings(home / ".claude" / "settings.json", deny=["Bash(sudo:*)"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    work = home / "scratch" / "x"
    work.mkdir(parents=True)
    assert rules_root(str(work)) == str(work)


@pytest.mark.parametrize(
    ("tool", "tool_input", "action"),
    [
        ("Bash", {"command": "sudo ls"}, "deny"),
        ("Bash", {"command": "rm -rf /tmp/x"}, "deny"),
        ("Bash", {"command": "git push origin main"}, "ask"),
        ("ctx_execute", {"language": "shell", "code": "git push"}, "ask"),
        ("ctx_execute_file", {"path": ".env", "language": "python", "code": "1"}, "deny"),
        ("mcp__ctxmode__ctx_execute", {"language": "shell", "code": "sudo id"}, "deny"),
    ],
)
def test_rules_hold_from_a_subdirectory(project: Path, tool, tool_input, action) -> None:
    project_settings(
        project, deny=["Bash(sudo:*)", "Bash(rm -rf *)", "Read(.env)"], ask=["Bash(git push:*)"]
    )
    (project / ".git").mkdir()
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    assert evaluate_tool_call(tool, tool_input, str(sub)).action == action
    outside = project.parent / "outside"
    outside.mkdir()
    verdict = evaluate_tool_call(tool, tool_input, str(outside), host_dir=str(project))
    assert verdict.action == action


def test_host_read_paths_resolve_from_the_call_directory(project: Path) -> None:
    project_settings(project, deny=["Read(./secrets/**)"])
    sub = project / "secrets"
    sub.mkdir()
    verdict = evaluate_tool_call("Read", {"file_path": "key.pem"}, str(sub))
    assert verdict.action == "deny"


def test_bash_input_field_fallbacks(project: Path) -> None:
    project_settings(project, deny=["Bash(sudo:*)"])
    for field in ("command", "cmd", "CommandLine"):
        assert evaluate_tool_call("Bash", {field: "sudo x"}, str(project)).action == "deny"


def test_ctx_execute_shell_code_is_checked(project: Path) -> None:
    project_settings(project, deny=["Bash(sudo *)"])
    verdict = evaluate_tool_call(
        "ctx_execute", {"language": "shell", "code": "echo hi && sudo ls"}, str(project)
    )
    assert verdict.action == "deny"
    assert "shell code matches deny pattern Bash(sudo *)" in verdict.reason


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("python", "import subprocess\nsubprocess.run(['sudo', 'ls'])"),
        ("python", "import os\ncmd = 'sudo ls'\nos.system(cmd)"),
        ("javascript", "const {execSync} = require('child_process'); execSync(`sudo ls`)"),
        ("ruby", "puts `sudo ls`"),
        ("go", 'exec.Command("sudo", "ls").Run()'),
        ("rust", 'Command::new("sudo").arg("ls").spawn()'),
        ("php", "<?php shell_exec('sudo ls');"),
    ],
)
def test_ctx_execute_other_languages_shell_escapes_are_checked(
    project: Path, language: str, code: str
) -> None:
    project_settings(project, deny=["Bash(sudo:*)"])
    verdict = evaluate_tool_call("ctx_execute", {"language": language, "code": code}, str(project))
    assert verdict.action == "deny"


def test_ctx_execute_code_without_escapes_passes(project: Path) -> None:
    project_settings(project, deny=["Bash(sudo:*)"])
    code = "print('sudo is a word')"
    verdict = evaluate_tool_call("ctx_execute", {"language": "python", "code": code}, str(project))
    assert verdict.action is None


def test_ctx_execute_file_checks_path_then_code(project: Path) -> None:
    project_settings(project, deny=["Read(**/.env*)", "Bash(sudo:*)"])
    path_denied = evaluate_tool_call(
        "ctx_execute_file", {"path": ".env", "language": "python", "code": "print(1)"}, str(project)
    )
    assert path_denied.action == "deny"
    assert "file path matches Read deny pattern **/.env*" in path_denied.reason
    code_denied = evaluate_tool_call(
        "ctx_execute_file", {"path": "a.txt", "language": "shell", "code": "sudo cat"}, str(project)
    )
    assert code_denied.action == "deny"


def test_batch_execute_names_the_label(project: Path) -> None:
    project_settings(project, deny=["Bash(sudo:*)"], ask=["Bash(git push:*)"])
    commands = [
        {"label": "status", "command": "git status"},
        {"label": "publish", "command": "git push"},
        {"label": "root", "command": "ls; sudo id"},
    ]
    verdict = evaluate_tool_call("ctx_batch_execute", {"commands": commands}, str(project))
    assert verdict.action == "deny"
    assert "batch command 'root'" in verdict.reason
    asked = evaluate_tool_call("ctx_batch_execute", {"commands": commands[:2]}, str(project))
    assert asked.action == "ask"


def test_own_tools_are_recognised_under_mcp_names(project: Path) -> None:
    project_settings(project, deny=["Bash(sudo:*)"])
    tool_input = {"language": "shell", "code": "sudo x"}
    for name in ("mcp__ctxmode__ctx_execute", "MCP:ctx_execute", "@ctxmode/ctx_execute"):
        assert evaluate_tool_call(name, tool_input, str(project)).action == "deny"


def test_bare_rule_denies_a_whole_tool(project: Path) -> None:
    project_settings(project, deny=["mcp__ctxmode__ctx_execute", "WebFetch"])
    ctx = evaluate_tool_call("ctx_execute", {"language": "python", "code": "1"}, str(project))
    assert ctx.action == "deny"
    assert evaluate_tool_call("WebFetch", {"url": "https://x"}, str(project)).action == "deny"
    assert evaluate_tool_call("Glob", {"pattern": "*"}, str(project)).action is None


def test_read_tool_path_fields(project: Path) -> None:
    project_settings(project, deny=["Read(.env)"])
    for field in ("file_path", "path", "AbsolutePath", "FilePath"):
        assert evaluate_tool_call("Read", {field: ".env"}, str(project)).action == "deny"


# -- failure modes ----------------------------------------------------------------------


def test_evaluation_failure_is_fail_open_by_default(project: Path) -> None:
    assert evaluate_tool_call("Bash", {"command": "ls"}, "bad\0dir").action is None


@pytest.mark.parametrize("variable", ["CTXMODE_REQUIRE_SECURITY", "CONTEXT_MODE_REQUIRE_SECURITY"])
def test_require_security_fails_closed_for_every_tool(
    project: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "1")
    verdict = evaluate_tool_call("Glob", {"pattern": "*"}, "bad\0dir")
    assert verdict.action == "deny"
    assert "CTXMODE_REQUIRE_SECURITY" in verdict.reason and "unset" in verdict.reason


def test_require_security_denies_when_a_settings_file_is_malformed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{not json", "utf-8")
    assert evaluate_tool_call("Bash", {"command": "ls"}, str(project)).action is None
    monkeypatch.setenv("CTXMODE_REQUIRE_SECURITY", "1")
    verdict = evaluate_tool_call("Bash", {"command": "ls"}, str(project))
    assert verdict.action == "deny"
    assert "settings.json: malformed JSON" in verdict.reason


def test_require_security_with_good_settings_changes_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXMODE_REQUIRE_SECURITY", "1")
    project_settings(project, deny=["Bash(sudo:*)"])
    assert evaluate_tool_call("Bash", {"command": "ls"}, str(project)).action is None


# -- import cost (the hook path) --------------------------------------------------------

PROBE = """
import sys
before = set(sys.modules)
from ctxmode.policy import rules
verdict = rules.evaluate_tool_call("Bash", {"command": "ls; sudo x"}, sys.argv[1])
read = rules.evaluate_tool_call("Read", {"file_path": ".env"}, sys.argv[1])
print(verdict.action, read.action, " ".join(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize("with_settings", [False, True])
def test_policy_imports_no_re_json_or_third_party(
    project: Path, tmp_path: Path, with_settings: bool
) -> None:
    if with_settings:
        project_settings(project, deny=["Bash(sudo:*)", "Read(.env)"])
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    result = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, str(project)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    action, read_action, *modules = result.stdout.split()
    assert (action, read_action) == (("deny", "deny") if with_settings else ("None", "None"))
    forbidden = {"re", "json", "typing", "dataclasses", "fnmatch", "pathlib", "subprocess"}
    assert forbidden.isdisjoint(modules), modules
    third_party = [m for m in modules if m.split(".")[0] not in sys.stdlib_module_names]
    assert [m for m in third_party if not m.startswith("ctxmode")] == []
