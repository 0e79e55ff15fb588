"""`ctxmode setup` then `--uninstall` leaves HOME and the project byte for byte as they were.

Every registered host, on real files under a temporary HOME and project, through the
real CLI: from nothing, and over the user's own config (their bytes come back exactly).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxmode.commands.setup import command, target_dir
from ctxmode.launch import fast_hook_prefix, server_command
from ctxmode.platforms import REGISTRY, load
from ctxmode.platforms._install import BACKUP_SUFFIX
from ctxmode.platforms._instructions import instruction_changes

HOST_ENV = (
    "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "KIMI_CODE_HOME", "KIMI_SHARE_DIR",
    "XDG_CONFIG_HOME", "DSH_HOME", "OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH",
    "PI_CODING_AGENT_DIR",
)  # fmt: skip

# What a user may already have in a file setup edits, by kind (odd layout on purpose).
USER_TEXT = {
    ".json": '{\n    "userSetting": "kept",\n    "nested": {"list": [1, 2, 3]}\n}\n',
    ".toml": '# my settings\nmodel = "mine"\n\n[ui]\ntheme = "dark"\n',
    ".md": "# My rules\n\nKeep this line.\n",
    ".yml": "# my patches\n[]\n",
}


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A temporary HOME and a git project (the current directory)."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for name in HOST_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)
    return tmp_path


def tree(root: Path) -> dict[str, bytes | None]:
    """Every directory (None) and file (its bytes) under `root`."""
    found: dict[str, bytes | None] = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs:
            found[os.path.relpath(os.path.join(directory, name), root) + "/"] = None
        for name in files:
            path = os.path.join(directory, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


def setup(*args: str) -> str:
    result = CliRunner().invoke(command, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def scopes(platform: str) -> list[str]:
    return ["user", "project"] if "project" in load(platform).installer.scopes else ["user"]


CASES = [(platform, scope) for platform in REGISTRY for scope in scopes(platform)]


def scope_args(scope: str, root: Path) -> list[str]:
    return ["--project", str(root / "project")] if scope == "project" else []


def planned_files(platform: str, args: list[str]) -> list[str]:
    """The files setup would edit that the user may have too (not ctxmode's own files)."""
    host = load(platform)
    installer = host.installer
    root = target_dir(platform, installer.scopes, args[1] if args else "")
    options = {"chosen": ()} if installer.profiles else {}
    options |= {"threshold": None} if installer.threshold else {}
    changes = installer.install_changes(fast_hook_prefix(), server_command(), root, **options)
    changes += instruction_changes(host, root, uninstall=False)
    return [change.path for change in changes if not change.owned]


def round_trip(platform: str, args: list[str], root: Path) -> None:
    """Setup (twice: a re-run too), uninstall; a project's uninstall leaves the shared
    user-level files, which a user-level uninstall then removes."""
    before = tree(root)
    setup(platform, *args)
    setup(platform, *args)
    assert tree(root) != before
    setup("--uninstall", platform, *args)
    if args:
        home_kept = {k: v for k, v in tree(root).items() if not k.startswith("home/")}
        assert home_kept == {k: v for k, v in before.items() if not k.startswith("home/")}
        setup("--uninstall", platform)
    assert tree(root) == before


@pytest.mark.parametrize(("platform", "scope"), CASES)
def test_from_nothing_and_back(machine, platform, scope):
    round_trip(platform, scope_args(scope, machine), machine)


@pytest.mark.parametrize(("platform", "scope"), CASES)
def test_the_users_own_config_comes_back_exactly(machine, platform, scope):
    args = scope_args(scope, machine)
    for path in planned_files(platform, args):
        text = USER_TEXT.get(os.path.splitext(path)[1])
        if text is not None:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            Path(path).write_text(text)
    round_trip(platform, args, machine)


@pytest.mark.parametrize("platform", ["claude-code", "gemini-cli", "cursor", "kimi", "codex"])
def test_keys_the_user_added_after_setup_survive_a_new_setup_and_uninstall(machine, platform):
    setup(platform)
    edited = [p for p in planned_files(platform, []) if p.endswith((".json", ".toml"))]
    for path in edited:
        # Our entries as an older install wrote them (so the next setup rewrites them),
        # and a key the user added since.
        text = Path(path).read_text().replace(os.path.dirname(sys.executable), "/old/venv/bin")
        if path.endswith(".json"):
            Path(path).write_text(json.dumps({**json.loads(text), "addedLater": True}))
        else:  # a top-level key goes before the first table
            Path(path).write_text("addedLater = true\n" + text)
    assert "Update" in setup(platform)
    assert all("/old/venv" not in Path(path).read_text() for path in edited)
    setup("--uninstall", platform)
    for path in edited:
        text = Path(path).read_text()
        assert "addedLater" in text and "ctxmode" not in text, path
        assert not os.path.exists(path + BACKUP_SUFFIX)


def test_a_projects_uninstall_keeps_the_other_projects_routing(machine):
    other = machine / "other"
    (other / ".git").mkdir(parents=True)
    setup("kimi", "--project", str(machine / "project"))
    setup("kimi", "--project", str(other))
    config = machine / "home" / ".kimi-code" / "config.toml"
    installed = config.read_bytes()
    told = setup("--uninstall", "kimi", "--project", str(machine / "project"))
    assert f"Kept {config}: other projects use it" in told
    assert config.read_bytes() == installed
    assert "ctxmode routing" in (other / ".kimi" / "AGENTS.md").read_text()
    assert not (machine / "project" / ".kimi").exists()


def test_a_directory_the_user_had_stays_even_empty(machine):
    (machine / "project" / ".kimi").mkdir()
    (machine / "home" / ".kimi-code").mkdir()
    round_trip("kimi", [], machine)
    assert (machine / "project" / ".kimi").is_dir() and (machine / "home" / ".kimi-code").is_dir()


# --------------------------------------------------- any user JSON, every host's files

scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)


def nested_values(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)


values = st.recursive(scalars, nested_values, max_leaves=8)
their_hook = st.sampled_from(
    [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]},
        {"type": "command", "command": "lint"},
        {"type": "command", "bash": "lint", "timeoutSec": 5},
    ]
)
their_servers = st.dictionaries(
    st.sampled_from(["theirs", "other"]),
    st.just({"command": "their-server", "args": []}),
    max_size=2,
)
user_json = st.fixed_dictionaries(
    {},
    optional={
        "hooks": st.dictionaries(st.sampled_from(["PreToolUse", "Stop", "preToolUse", "Mine"]),
                                 st.lists(their_hook, max_size=2), max_size=3),
        "mcpServers": their_servers,
        "servers": their_servers,
        "context_servers": their_servers,
        "model": values,
        "theme": values,
    },
)  # fmt: skip


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(CASES), data=st.data())
def test_any_user_json_comes_back_byte_for_byte(machine, case, data):
    platform, scope = case
    args = scope_args(scope, machine)
    data_root = Path(os.environ["CTXMODE_DIR"])
    for left in [machine / "home", data_root, *(machine / "project").iterdir()]:
        if left.name != ".git":  # each example starts from nothing (and an empty ledger)
            shutil.rmtree(left) if left.is_dir() else left.unlink(missing_ok=True)
    (machine / "home").mkdir()
    for path in planned_files(platform, args):
        if path.endswith(".json"):
            document = data.draw(user_json)
            indent = data.draw(st.sampled_from([None, 2, 4, "\t"]))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            Path(path).write_text(json.dumps(document, indent=indent))
    before = tree(machine)
    setup(platform, *args)
    setup("--uninstall", platform, *args)
    if args:
        setup("--uninstall", platform)
    assert tree(machine) == before


@pytest.mark.parametrize("platform", ["claude-code", "kimi", "opencode"])
def test_the_ledger_in_a_default_data_root_goes_too(machine, monkeypatch, platform):
    """With no CTXMODE_DIR the data root (and the ledger of what setup created) is under
    HOME: what setup made there for its ledger is gone after uninstall too."""
    monkeypatch.delenv("CTXMODE_DIR")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    round_trip(platform, [], machine)
