"""`ctxmode doctor`: what a person runs when something seems off."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxmode import doctor
from support.cli import ctx


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home: no host has ctxmode set up yet."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "COPILOT_HOME",
        "KIMI_CODE_HOME",
        "XDG_CONFIG_HOME",
        "OPENCODE",  # doctor says which host it runs inside
        "OPENCODE_PID",
        "KILO",
        "KILO_PID",
    ):
        monkeypatch.delenv(name, raising=False)
    return home


def test_a_machine_without_any_host_setup_gets_a_warning_that_says_what_to_run(home, tmp_path):
    checks = doctor.host_checks(str(tmp_path))
    assert [c.status for c in checks] == [doctor.WARN]
    assert "ctxmode setup <platform>" in checks[0].text


def test_a_set_up_host_is_ok_and_a_moved_installation_is_flagged(home, tmp_path):
    assert ctx("setup", "claude-code", cwd=tmp_path, env=dict(os.environ)).returncode == 0
    assert [(c.status, c.text.split(":")[0]) for c in doctor.host_checks(str(tmp_path))] == [
        (doctor.OK, "claude-code")
    ]
    settings = home / ".claude" / "settings.json"
    python = os.path.dirname(os.path.dirname(os.path.abspath(os.sys.executable)))
    settings.write_text(settings.read_text().replace(python, "/gone/venv"))
    [stale] = doctor.host_checks(str(tmp_path))
    assert stale.status == doctor.WARN and "ctxmode setup claude-code" in stale.text


def test_doctor_exits_non_zero_only_on_a_failure(home, tmp_path):
    fine = ctx("doctor", cwd=tmp_path, env=dict(os.environ))
    assert fine.returncode == 0, fine.stdout
    assert "[OK] SQLite" in fine.stdout and "[WARN] no host" in fine.stdout
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the data root should be")
    broken = ctx("doctor", cwd=tmp_path, env={**os.environ, "CTXMODE_DIR": str(blocked)})
    assert broken.returncode == 1
    assert "[FAIL] data root not writable" in broken.stdout


def test_the_hook_module_cache_is_checked_where_it_lives(monkeypatch, tmp_path):
    from ctxmode import _modcache

    assert doctor._module_cache().status == doctor.OK
    (tmp_path / "__pycache__").write_text("a file where the folder would be")
    monkeypatch.setattr(_modcache, "PACKAGE_DIR", str(tmp_path))
    blocked = doctor._module_cache()
    assert blocked.status == doctor.WARN and "loads its modules from their source" in blocked.text
    monkeypatch.setenv("CTXMODE_HOOK_MODULE_CACHE", "off")
    assert doctor._module_cache().text == "hook module cache: off (CTXMODE_HOOK_MODULE_CACHE)"
