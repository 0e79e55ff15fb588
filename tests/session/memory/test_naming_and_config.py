"""Session names and the TOML config: scopes (longest wins), budgets, allowed commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxmode.session.memory import naming
from ctxmode.session.memory.config import ConfigError, load_config


def test_a_derived_name_is_the_last_two_components_and_the_word(tmp_path: Path) -> None:
    archive = tmp_path / "prod" / "archive"
    archive.mkdir(parents=True)
    assert naming.derived_name(str(archive), "log") == "prod-archive-log"


def test_names_are_cleaned_and_empty_ones_refused() -> None:
    assert naming.clean_name("my task/ 2") == "my-task-2"
    with pytest.raises(naming.SessionNameError):
        naming.clean_name(" / ")


def test_without_a_task_the_derived_name_is_the_place_alone(tmp_path: Path) -> None:
    archive = tmp_path / "prod" / "archive"
    archive.mkdir(parents=True)
    assert naming.derived_name(str(archive)) == "prod-archive"
    assert naming.derived_name("/") == "root"


def write_config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return str(path)


def test_the_longest_matching_scope_wins(tmp_path: Path) -> None:
    outer, inner = tmp_path / "data", tmp_path / "data" / "prod"
    (inner / "x").mkdir(parents=True)
    config = load_config(
        write_config(
            tmp_path,
            f'[[scopes]]\npath = "{outer}"\nwindow = 3\n'
            f'[[scopes]]\npath = "{inner}"\nsession = "prod"\nmax_chars = 900\n',
        ),
        environ={},
    )
    scope = config.scope_for(str(inner / "x"))
    assert scope is not None and (scope.session, scope.window, scope.max_chars) == ("prod", 8, 900)
    assert config.settings_for(str(outer)).window == 3
    assert config.scope_for(str(tmp_path)) is None


def test_allowed_commands_match_names_and_globs_and_the_env_replaces_them(tmp_path: Path) -> None:
    path = write_config(tmp_path, 'allowed_commands = ["grep", "py*"]\n')
    config = load_config(path, environ={})
    assert config.allows("/usr/bin/grep") and config.allows("python3")
    assert not config.allows("rm")
    from_env = load_config(path, environ={"CTXMODE_ALLOWED_COMMANDS": "rm, ls"})
    assert from_env.allows("rm") and not from_env.allows("grep")


def test_a_missing_config_means_defaults_and_nothing_allowed(tmp_path: Path) -> None:
    config = load_config(str(tmp_path / "absent.toml"), environ={})
    assert config.source is None and not config.allows("grep")
    assert config.settings_for(str(tmp_path)).window == 8


@pytest.mark.parametrize(
    "text",
    [
        "allowed_commands = 'grep'",
        "[[scopes]]\nsession = 'x'",
        "[[scopes]]\npath = 'relative/dir'",
        "[[scopes]]\npath = '/x'\nwindow = 0",
        "private_networks = 'yes'",
        "this is not toml",
    ],
)
def test_a_bad_config_is_a_clear_error_naming_the_file(tmp_path: Path, text: str) -> None:
    path = write_config(tmp_path, text)
    with pytest.raises(ConfigError, match=r"config\.toml"):
        load_config(path, environ={})
