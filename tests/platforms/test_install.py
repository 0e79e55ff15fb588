"""Every host's installer: real config files in a temp HOME, merged, idempotent, reversible."""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.launch import fast_hook_prefix
from ctxmode.platforms import REGISTRY
from ctxmode.platforms import _install as inst

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SERVER = ["/opt/ctx/bin/ctxmode", "serve"]
OLD_PREFIX = '/old/venv/bin/python -I -S -c "from ctxmode._hook import main;main(sys.argv[1:])"'
FOREIGN = "my-linter --strict"
HOST_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "KIMI_CODE_HOME", "XDG_CONFIG_HOME")


@dataclass(frozen=True)
class Host:
    """Where a host keeps our entries and what they look like (`@/` = the project dir)."""

    hooks: str
    shape: str  # nested | flat | bash | kiro | toml
    events: dict[str, str]  # host event -> cli event name
    mcp: str
    mcp_key: str = "mcpServers"
    server_extra: tuple[tuple[str, object], ...] = ()
    pre: str = ""  # the event carrying a tool matcher

    @property
    def pre_event(self) -> str:
        return self.pre or next(iter(self.events))


CLAUDE_EVENTS = {"PreToolUse": "pretooluse", "PostToolUse": "posttooluse",
                 "PreCompact": "precompact", "SessionStart": "sessionstart",
                 "UserPromptSubmit": "userpromptsubmit", "Stop": "stop"}  # fmt: skip
# Claude Code and Qwen Code fire PostToolUseFailure, not PostToolUse, for a failed command.
WITH_FAILURE = {**CLAUDE_EVENTS, "PostToolUseFailure": "posttoolusefailure"}
HOSTS = {
    "claude-code": Host(".claude/settings.json", "nested", WITH_FAILURE, ".claude.json",
                        server_extra=(("type", "stdio"),)),
    "qwen-code": Host(".qwen/settings.json", "nested", WITH_FAILURE, ".qwen/settings.json"),
    "gemini-cli": Host(".gemini/settings.json", "nested",
                       {"BeforeTool": "beforetool", "AfterTool": "aftertool",
                        "BeforeAgent": "beforeagent", "PreCompress": "precompress",
                        "SessionStart": "sessionstart", "AfterAgent": "afteragent"},
                       ".gemini/settings.json"),
    "vscode-copilot": Host("@/.github/hooks/context-mode.json", "flat", CLAUDE_EVENTS,
                           "@/.vscode/mcp.json", "servers", (("type", "stdio"),)),
    "jetbrains-copilot": Host("@/.github/hooks/context-mode.json", "flat",
                              {k: v for k, v in CLAUDE_EVENTS.items() if k != "UserPromptSubmit"},
                              ".config/github-copilot/intellij/mcp.json", "servers",
                              (("type", "stdio"),)),
    "copilot-cli": Host(".copilot/hooks/context-mode.json", "bash",
                        {"preToolUse": "pretooluse", "postToolUse": "posttooluse",
                         "preCompact": "precompact", "sessionStart": "sessionstart",
                         "userPromptSubmitted": "userpromptsubmit", "agentStop": "stop"},
                        ".copilot/mcp-config.json", "mcpServers",
                        (("type", "local"), ("tools", ["*"]))),
    "cursor": Host(".cursor/hooks.json", "flat",
                   {"preToolUse": "pretooluse", "postToolUse": "posttooluse",
                    "sessionStart": "sessionstart", "stop": "stop",
                    "beforeSubmitPrompt": "beforesubmitprompt"}, ".cursor/mcp.json"),
    "codex": Host(".codex/hooks.json", "nested", CLAUDE_EVENTS, ".codex/config.toml",
                  "mcp_servers"),
    "kimi": Host(".kimi-code/config.toml", "toml", CLAUDE_EVENTS, ".kimi-code/mcp.json"),
    "kiro": Host(".kiro/agents/context-mode.json", "kiro",
                 {"preToolUse": "pretooluse", "postToolUse": "posttooluse",
                  "agentSpawn": "agentspawn", "userPromptSubmit": "userpromptsubmit",
                  "stop": "stop"}, ".kiro/settings/mcp.json"),
    "antigravity-cli": Host(".gemini/config/hooks.json", "nested",
                            {"PreToolUse": "pretooluse", "PostToolUse": "posttooluse",
                             "Stop": "stop"}, ".gemini/config/mcp_config.json"),
}  # fmt: skip
PLATFORMS = sorted(HOSTS)
PROJECT_ONLY = ("vscode-copilot", "jetbrains-copilot")


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A temp HOME (host config env vars unset) and a temp project dir as cwd."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in HOST_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)
    return home, project


def where(relative: str, dirs: tuple[Path, Path]) -> Path:
    home, project = dirs
    return project / relative[2:] if relative.startswith("@/") else home / relative


def module(platform: str):
    return importlib.import_module(REGISTRY[platform])


def scope_dir(platform: str, dirs: tuple[Path, Path]) -> str:
    return str(dirs[1]) if platform in PROJECT_ONLY else ""


def install(platform: str, dirs, prefix: str | None = None) -> list[inst.Change]:
    changes = module(platform).install_changes(
        prefix or fast_hook_prefix(), SERVER, scope_dir(platform, dirs)
    )
    for change in changes:
        inst.apply(change)
    return changes


def uninstall(platform: str, dirs) -> list[inst.Change]:
    changes = module(platform).uninstall_changes(scope_dir(platform, dirs))
    for change in changes:
        inst.apply(change)
    return changes


def load(path: Path) -> dict:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)


def commands_by_event(host: Host, document: dict) -> dict[str, list[str]]:
    """Every hook command per event, in file order, whatever the host's entry shape."""
    found: dict[str, list[str]] = {}
    if host.shape == "toml":
        for table in document.get("hooks", []):
            found.setdefault(table["event"], []).append(table["command"])
        return found
    for event, entries in document.get("hooks", {}).items():
        for entry in entries:
            inner = entry.get("hooks", [entry])
            found.setdefault(event, []).extend(h.get("command") or h.get("bash") for h in inner)
    return found


def foreign_entry(host: Host) -> dict:
    return {
        "nested": {"matcher": "Bash", "hooks": [{"type": "command", "command": FOREIGN}]},
        "flat": {"type": "command", "command": FOREIGN},
        "bash": {"type": "command", "bash": FOREIGN},
        "kiro": {"matcher": "shell", "command": FOREIGN},
    }[host.shape]


def seed(platform: str, dirs, prefix: str = "") -> None:
    """Another tool's hook and server, unrelated settings, and optionally an old entry of ours."""
    host = HOSTS[platform]
    hooks_path, mcp_path = where(host.hooks, dirs), where(host.mcp, dirs)
    hooks_path.parent.mkdir(parents=True, exist_ok=True)
    mcp_path.parent.mkdir(parents=True, exist_ok=True)
    if host.shape == "toml":
        text = f'# mine\nmodel = "k2"\n\n[[hooks]]\nevent = "{host.pre_event}"\ncommand = "{FOREIGN}"\n'
        if prefix:
            old = f"{prefix} kimi pretooluse".replace("\\", "\\\\").replace('"', '\\"')
            text += f'\n[[hooks]]\nevent = "SessionEnd"\ncommand = "{old}"\n'
        hooks_path.write_text(text, encoding="utf-8")
    else:
        hooks = {host.pre_event: [foreign_entry(host)]}
        if prefix:
            old = json.loads(json.dumps(foreign_entry(host)))
            inner = old["hooks"][0] if "hooks" in old else old
            inner["bash" if "bash" in inner else "command"] = f"{prefix} {platform} x"
            hooks["RetiredEvent"] = [old]
            hooks[host.pre_event].append(old)
        document = {"theme": "dark", "hooks": hooks}
        if platform in ("cursor", "copilot-cli"):
            document["version"] = 1  # these hosts require it (a new file gets it from us)
        hooks_path.write_text(json.dumps(document), encoding="utf-8")
    if host.mcp.endswith(".toml"):
        mcp_path.write_text('# keep me\n[mcp_servers.other]\ncommand = "other"\n', "utf-8")
    elif mcp_path != hooks_path:
        mcp_path.write_text(json.dumps({host.mcp_key: {"other": {"command": "other"}}}), "utf-8")
    else:
        document = json.loads(hooks_path.read_text())
        document[host.mcp_key] = {"other": {"command": "other"}}
        hooks_path.write_text(json.dumps(document), "utf-8")


@pytest.mark.parametrize("platform", PLATFORMS)
def test_install_registers_every_event_and_the_server(platform, dirs):
    host = HOSTS[platform]
    install(platform, dirs)
    document = load(where(host.hooks, dirs))
    commands = commands_by_event(host, document)
    assert set(commands) == set(host.events)
    for event, cli in host.events.items():
        [line] = commands[event]
        assert line == f"{fast_hook_prefix()} {platform} {cli}"
    servers = load(where(host.mcp, dirs))[host.mcp_key]
    expected = {**dict(host.server_extra), "command": SERVER[0], "args": SERVER[1:]}
    assert servers == {"context-mode": expected}


def first_entries(host: Host, document: dict) -> dict[str, dict]:
    if host.shape == "toml":
        return {table["event"]: table for table in reversed(document["hooks"])}
    return {event: entries[0] for event, entries in document["hooks"].items()}


NO_MATCHERS = ("vscode-copilot", "jetbrains-copilot", "copilot-cli")  # hooks see every tool


@pytest.mark.parametrize("platform", [p for p in PLATFORMS if p not in NO_MATCHERS])
def test_the_tool_event_matches_routed_tools_and_the_others_every_tool(platform, dirs):
    host = HOSTS[platform]
    install(platform, dirs)
    entries = first_entries(host, load(where(host.hooks, dirs)))
    assert entries[host.pre_event].get("matcher")
    post = next(e for e in host.events if e.lower() in ("posttooluse", "aftertool"))
    assert entries[post].get("matcher") in (None, "", "*")  # capture needs every tool


@pytest.mark.parametrize("platform", NO_MATCHERS)
def test_hosts_without_tool_matchers_get_none(platform, dirs):
    host = HOSTS[platform]
    install(platform, dirs)
    entries = first_entries(host, load(where(host.hooks, dirs)))
    assert not [entry for entry in entries.values() if "matcher" in entry]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_second_install_changes_nothing(platform, dirs):
    install(platform, dirs)
    host = HOSTS[platform]
    paths = {where(host.hooks, dirs), where(host.mcp, dirs)}
    before = {path: path.read_bytes() for path in paths}
    assert not [change for change in install(platform, dirs) if change.changed]
    assert {path: path.read_bytes() for path in paths} == before
    assert not [path for path in paths if Path(str(path) + inst.BACKUP_SUFFIX).exists()]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_other_tools_entries_survive_install_and_uninstall(platform, dirs):
    host = HOSTS[platform]
    seed(platform, dirs)
    hooks_path, mcp_path = where(host.hooks, dirs), where(host.mcp, dirs)
    seeded_hooks, seeded_mcp = load(hooks_path), load(mcp_path)
    install(platform, dirs)
    commands = commands_by_event(host, load(hooks_path))
    assert commands[host.pre_event][0] == FOREIGN and len(commands[host.pre_event]) == 2
    assert set(load(mcp_path)[host.mcp_key]) == {"other", "context-mode"}
    assert Path(str(hooks_path) + inst.BACKUP_SUFFIX).read_bytes()  # the previous file is kept
    uninstall(platform, dirs)
    assert load(hooks_path) == seeded_hooks
    assert load(mcp_path) == seeded_mcp
    if host.shape == "toml":
        assert hooks_path.read_text().startswith("# mine\n")
    if host.mcp.endswith(".toml"):
        assert mcp_path.read_text().startswith("# keep me\n")


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_older_entry_of_ours_is_replaced_not_duplicated(platform, dirs):
    host = HOSTS[platform]
    seed(platform, dirs, prefix=OLD_PREFIX)
    install(platform, dirs)
    commands = commands_by_event(host, load(where(host.hooks, dirs)))
    everything = [line for lines in commands.values() for line in lines]
    assert not [line for line in everything if line.startswith("/old/")]
    assert set(commands) == set(host.events)
    ours = [line for line in everything if inst.is_our_command(line)]
    assert len(ours) == len(host.events)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_malformed_file_is_refused_and_nothing_is_written(platform, dirs):
    host = HOSTS[platform]
    hooks_path, mcp_path = where(host.hooks, dirs), where(host.mcp, dirs)
    hooks_path.parent.mkdir(parents=True, exist_ok=True)
    broken = "x = [\n" if hooks_path.suffix == ".toml" else "{ not json"
    hooks_path.write_text(broken, encoding="utf-8")
    with pytest.raises(inst.InstallError) as caught:
        install(platform, dirs)
    assert str(hooks_path) in str(caught.value) and "\n" not in str(caught.value)
    assert hooks_path.read_text() == broken
    assert mcp_path == hooks_path or not mcp_path.exists()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_uninstall_without_an_install_changes_nothing(platform, dirs):
    assert not [change for change in uninstall(platform, dirs) if change.changed]
    assert not any(dirs[0].rglob("*.json")) and not any(dirs[0].rglob("*.toml"))


@pytest.mark.parametrize("platform", ["copilot-cli", "cursor", "kiro", "codex", "vscode-copilot"])
def test_uninstall_deletes_a_hooks_file_only_we_filled(platform, dirs):
    host = HOSTS[platform]
    install(platform, dirs)
    uninstall(platform, dirs)
    assert not where(host.hooks, dirs).exists()


def test_a_foreign_server_named_context_mode_is_replaced_but_never_uninstalled(dirs):
    path = where(".cursor/mcp.json", dirs)
    path.parent.mkdir(parents=True)
    reference = {"command": "npx", "args": ["-y", "context-mode"]}
    path.write_text(json.dumps({"mcpServers": {"context-mode": reference}}))
    uninstall("cursor", dirs)
    assert load(path)["mcpServers"]["context-mode"] == reference
    install("cursor", dirs)
    assert load(path)["mcpServers"]["context-mode"]["command"] == SERVER[0]


def test_a_user_kiro_agent_keeps_its_own_fields(dirs):
    path = where(".kiro/agents/context-mode.json", dirs)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"name": "context-mode", "tools": ["read"], "model": "m"}))
    install("kiro", dirs)
    agent = load(path)
    assert agent["tools"] == ["read"] and agent["model"] == "m" and "includeMcpJson" not in agent
    uninstall("kiro", dirs)
    assert load(path) == {"name": "context-mode", "tools": ["read"], "model": "m"}


def test_a_new_kiro_agent_gets_all_tools_and_the_mcp_json_servers(dirs):
    install("kiro", dirs)
    agent = load(where(".kiro/agents/context-mode.json", dirs))
    assert agent["tools"] == ["*"] and agent["includeMcpJson"] is True


def test_codex_keeps_comments_and_tables_and_refuses_an_inline_server_table(dirs):
    path = where(".codex/config.toml", dirs)
    path.parent.mkdir(parents=True)
    path.write_text('model = "o3"\nmcp_servers = { "context-mode" = { command = "x" } }\n')
    with pytest.raises(inst.InstallError, match="edit it by hand"):
        install("codex", dirs)
    assert path.read_text().startswith('model = "o3"\nmcp_servers = {')


def test_codex_replaces_the_reference_server_with_its_sub_tables(dirs):
    path = where(".codex/config.toml", dirs)
    path.parent.mkdir(parents=True)
    path.write_text(
        '[mcp_servers.context-mode]\ncommand = "context-mode"\n\n'
        '[mcp_servers.context-mode.env]\nCONTEXT_MODE_PLATFORM = "codex"\n\n'
        '[mcp_servers.other]\nargs = ["[x]"]\n'
    )
    install("codex", dirs)
    servers = load(path)["mcp_servers"]
    assert servers == {"other": {"args": ["[x]"]}, "context-mode": {"command": SERVER[0],
                       "args": ["serve"]}}  # fmt: skip


def test_kimi_tables_carry_only_the_four_allowed_fields(dirs):
    install("kimi", dirs)
    for table in load(where(".kimi-code/config.toml", dirs))["hooks"]:
        assert set(table) <= {"event", "matcher", "command", "timeout"}
        assert ("matcher" in table) == (table["event"] == "PreToolUse")


def test_project_scope_writes_under_the_project(dirs):
    _home, project = dirs
    changes = module("claude-code").install_changes(fast_hook_prefix(), SERVER, str(project))
    assert {c.path for c in changes} == {
        str(project / ".claude" / "settings.json"),
        str(project / ".mcp.json"),
    }
    changes = module("codex").install_changes(fast_hook_prefix(), SERVER, str(project))
    assert {c.path for c in changes} == {
        str(project / ".codex" / "hooks.json"),
        str(project / ".codex" / "config.toml"),
    }


def test_a_bom_prefixed_json_file_is_read(dirs):
    path = where(".cursor/hooks.json", dirs)
    path.parent.mkdir(parents=True)
    path.write_text('\ufeff{"version": 1}', encoding="utf-8")
    install("cursor", dirs)
    assert load(path)["version"] == 1


def test_claude_code_follows_claude_config_dir(dirs, monkeypatch):
    config = dirs[0] / "elsewhere"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    paths = module("claude-code").config_paths()
    assert paths["user"] == str(config / "settings.json")
    assert paths["user_mcp"] == str(config / ".claude.json")


def test_file_mode_is_kept(dirs):
    path = where(".claude.json", dirs)
    path.write_text("{}")
    path.chmod(0o600)
    install("claude-code", dirs)
    assert path.stat().st_mode & 0o777 == 0o600


# ------------------------------------------------------------------ properties

commands = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30).filter(
    lambda c: "ctxmode" not in c
)
foreign_hooks = st.dictionaries(
    st.sampled_from(["PreToolUse", "PostToolUse", "Stop", "Notification", "Custom"]),
    st.lists(
        st.one_of(
            st.builds(lambda c: {"type": "command", "command": c}, commands),
            st.builds(
                lambda m, c: {"matcher": m, "hooks": [{"type": "command", "command": c}]},
                st.text(max_size=10),
                commands,
            ),
        ),
        min_size=1,
        max_size=3,
    ),
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(foreign_hooks, st.dictionaries(st.text(max_size=8), st.integers(), max_size=3))
def test_install_then_uninstall_gives_back_the_document(hooks, extra):
    extra.pop("hooks", None)
    document = {**extra, "hooks": hooks} if hooks else dict(extra)
    edited = json.loads(json.dumps(document))
    ours = {e: inst.nested(f"python -c ctxmode._hook {e}", "") for e in ("PreToolUse", "Stop")}
    inst.put_hooks(edited, "f", ours)
    inst.put_hooks(edited, "f", ours)
    assert [h for h in edited["hooks"]["Stop"] if h in ours.values()] == [ours["Stop"]]
    inst.drop_hooks(edited, "f")
    assert edited == document


def test_removing_ours_twice_keeps_the_users_empty_hooks_table():
    document = {"hooks": {}, "model": "x"}
    inst.drop_hooks(document, "f")  # a second uninstall: nothing of ours is left
    assert document == {"hooks": {}, "model": "x"}


toml_keys = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(toml_keys, st.dictionaries(toml_keys, st.text(max_size=12), max_size=3),
                       max_size=4))  # fmt: skip
def test_toml_sections_split_any_table_file_losslessly(tables):
    text = "top = 1\n" + "".join(
        f"[{name}]\n" + "".join(f"{k} = {inst.toml_string(v)}\n" for k, v in body.items())
        for name, body in tables.items()
    )
    sections = inst.toml_sections(text)
    assert "".join(section for _, _, section in sections) == text
    assert [path for path, _, _ in sections[1:]] == [(name,) for name in tables]
    for (_, _, section), body in zip(sections[1:], tables.values(), strict=True):
        assert inst.section_body(section) == body


toml_values = st.one_of(st.text(max_size=12), st.integers(-5, 5), st.booleans())


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(toml_keys, toml_values, max_size=3),
    st.lists(st.dictionaries(toml_keys, toml_values, min_size=1, max_size=3), max_size=3),
    st.dictionaries(toml_keys, st.dictionaries(toml_keys, toml_values, max_size=2), max_size=2),
)
def test_kimi_install_and_uninstall_keep_any_other_toml(top, foreign_hooks, tables):
    """Top-level keys, other tools' [[hooks]] and other tables come back as they were."""
    top = {k: v for k, v in top.items() if k not in tables and k != "hooks"}
    tables = {k: v for k, v in tables.items() if k != "hooks"}

    def line(key: str, value: object) -> str:
        if isinstance(value, bool):
            return f"{key} = {str(value).lower()}\n"
        return f"{key} = {value if isinstance(value, int) else inst.toml_string(value)}\n"

    text = "# user config\n" + "".join(line(k, v) for k, v in top.items())
    for name, body in tables.items():
        text += f"\n[{name}]\n" + "".join(line(k, v) for k, v in body.items())
    for hook in foreign_hooks:
        text += "\n[[hooks]]\n" + "".join(line(k, v) for k, v in hook.items())
    before = tomllib.loads(text)
    with tempfile.TemporaryDirectory() as home:
        previous = os.environ.get("KIMI_CODE_HOME")
        os.environ["KIMI_CODE_HOME"] = home
        try:
            path = Path(home, "config.toml")
            path.write_text(text, encoding="utf-8")
            for change in module("kimi").install_changes(fast_hook_prefix(), SERVER):
                inst.apply(change)
            merged = tomllib.loads(path.read_text(encoding="utf-8"))
            ours = [h for h in merged["hooks"] if inst.is_our_command(h.get("command"))]
            assert [h for h in merged["hooks"] if h not in ours] == before.get("hooks", [])
            assert {k: v for k, v in merged.items() if k != "hooks"} == {
                k: v for k, v in before.items() if k != "hooks"
            }
            assert not [c for c in module("kimi").install_changes(fast_hook_prefix(), SERVER)
                        if c.changed]  # fmt: skip
            for change in module("kimi").uninstall_changes():
                inst.apply(change)
            assert tomllib.loads(path.read_text(encoding="utf-8")) == before
            assert path.read_text(encoding="utf-8").startswith("# user config\n")
        finally:
            if previous is None:
                del os.environ["KIMI_CODE_HOME"]
            else:
                os.environ["KIMI_CODE_HOME"] = previous
