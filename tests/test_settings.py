"""One declaration per setting: how a value is read, shown, and kept in step with the README."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

from ctxmode import settings

SRC = pathlib.Path(settings.__file__).parent
README = SRC.parents[1] / "README.md"


def test_an_integer_setting_outside_its_range_or_not_a_number_keeps_the_default():
    idle = settings.HOOK_STDIN_IDLE_MS  # 1..600000, default 1500
    assert settings.integer(idle, {}) == 1_500
    assert settings.integer(idle, {"CONTEXT_MODE_HOOK_STDIN_IDLE_MS": "7"}) == 7
    for bad in ("0", "600001", "seven", "1e3"):
        assert settings.integer(idle, {"CTXMODE_HOOK_STDIN_IDLE_MS": bad}) == 1_500
    assert settings.integer(idle, {"CTXMODE_HOOK_STDIN_IDLE_MS": " 600000 "}) == 600_000


def test_the_name_wins_over_its_alias_and_a_blank_value_counts_as_unset():
    env = {"CTXMODE_DIR": "/a", "CONTEXT_MODE_DIR": "/b"}
    assert settings.explain(settings.DATA_DIR, env) == ("/a", "CTXMODE_DIR")
    env["CTXMODE_DIR"] = "  "
    assert settings.explain(settings.DATA_DIR, env) == ("/b", "alias CONTEXT_MODE_DIR")


def test_explain_says_why_a_set_value_was_ignored():
    env = {"CTXMODE_ROUTING": "loud"}
    assert settings.explain(settings.ROUTING, env) == (
        "full",
        "default; CTXMODE_ROUTING='loud' ignored: not one of full, minimal, off",
    )
    assert settings.explain(settings.READ_THRESHOLD, {"CTXMODE_READ_THRESHOLD": "big"})[1] == (
        "default; CTXMODE_READ_THRESHOLD='big' ignored: not an integer"
    )


@pytest.mark.parametrize(("raw", "expected"), [("1", True), ("On", True), ("no", False)])
def test_switches_read_the_usual_words(raw: str, expected: bool):
    assert settings.flag(settings.REQUIRE_SECURITY, {"CTXMODE_REQUIRE_SECURITY": raw}) is expected
    assert settings.flag(settings.REDACT, {"CTXMODE_REDACT": raw}) is expected


def test_lists_are_comma_separated_and_unset_differs_from_empty_entries():
    env = {"CTXMODE_ALLOWED_COMMANDS": " rm, ,ls "}
    assert settings.words(settings.ALLOWED_COMMANDS, env) == ("rm", "ls")
    assert settings.words(settings.ALLOWED_COMMANDS, {}) is None


def test_each_accessor_returns_its_declared_type_and_refuses_another_kind():
    assert settings.integer(settings.HOST_OUTPUT_CAP, {}) == 30_000
    assert settings.words(settings.MCP_PASSTHROUGH, {"CTXMODE_MCP_PASSTHROUGH": "a, b"}) == (
        "a",
        "b",
    )
    with pytest.raises(TypeError, match="CTXMODE_MCP_PASSTHROUGH is not declared as an integer"):
        settings.integer(settings.MCP_PASSTHROUGH, {})
    with pytest.raises(TypeError, match="not declared as text"):
        settings.text(settings.HOST_OUTPUT_CAP, {})
    assert settings.optional_integer(settings.PLUGIN_THRESHOLD, {}) is None


def test_every_default_is_of_its_declared_kind_or_unset():
    kinds = {"int": int, "float": (int, float), "bool": bool, "list": tuple}
    for setting in settings.ALL:
        if setting.default is not None and setting.kind in kinds:
            assert isinstance(setting.default, kinds[setting.kind]), setting.name
        if setting.default is None and setting.kind == "int":  # read by optional_integer
            assert setting is settings.PLUGIN_THRESHOLD


def test_every_name_is_declared_once_with_a_one_line_description():
    names = [name for s in settings.ALL for name in s.names]
    assert len(names) == len(set(names))
    for setting in settings.ALL:
        assert setting.description and "\n" not in setting.description
        assert setting.name.startswith("CTXMODE_")


def test_every_ctxmode_variable_the_code_mentions_is_declared():
    declared = {name for s in settings.ALL for name in s.names}
    mentioned: dict[str, str] = {}
    for path in SRC.rglob("*"):
        if path.suffix in (".py", ".js"):
            for name in re.findall(
                r"\b(?:CTXMODE|CONTEXT_MODE)_[A-Z0-9_]*[A-Z0-9]", path.read_text()
            ):
                mentioned.setdefault(name, str(path.relative_to(SRC)))
    undeclared = {n: where for n, where in mentioned.items() if n not in declared}
    assert not undeclared, f"declare these in ctxmode/settings.py: {undeclared}"


def test_no_module_reads_a_setting_from_the_environment_itself():
    direct = re.compile(r"""(environ(\.get)?\(?\[?|getenv\()\s*["'](CTXMODE|CONTEXT_MODE)_""")
    offenders = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if p.name != "settings.py" and direct.search(p.read_text())
    ]
    assert not offenders


def test_the_readme_settings_table_is_generated_from_the_declarations():
    assert settings.settings_table() in README.read_text(), "regenerate: python -m ctxmode.settings"


def test_importing_the_settings_costs_the_hook_path_no_other_module():
    code = (
        "import sys; before = set(sys.modules); import ctxmode.settings; "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert set(out.stdout.split()) - {"__future__"} == {"ctxmode", "ctxmode.settings"}


def test_doctor_config_prints_each_effective_value_and_its_origin(tmp_path):
    env = {
        **os.environ,
        "CTXMODE_DIR": str(tmp_path),
        "CONTEXT_MODE_HOOK_STDIN_IDLE_MS": "300",
        "CTXMODE_READ_THRESHOLD": "huge",
    }
    env.pop("CTXMODE_HOOK_STDIN_IDLE_MS", None)
    run = subprocess.run(
        [sys.executable, "-m", "ctxmode", "doctor", "--config"],
        capture_output=True, text=True, env=env, cwd=tmp_path, check=True,
    )  # fmt: skip
    lines = run.stdout.splitlines()
    assert len(lines) == len(settings.ALL)
    assert f"CTXMODE_DIR = {tmp_path}  [CTXMODE_DIR]" in lines
    assert "CTXMODE_HOOK_STDIN_IDLE_MS = 300  [alias CONTEXT_MODE_HOOK_STDIN_IDLE_MS]" in lines
    assert (
        "CTXMODE_READ_THRESHOLD = 50000  "
        "[default; CTXMODE_READ_THRESHOLD='huge' ignored: not an integer]"
    ) in lines
    assert "CTXMODE_ROUTING = full  [default]" in lines
