import os
import sys

import platformdirs
import pytest

from ctxmode import paths


def test_data_root_is_ctxmode_dir_when_set(data_root):
    assert paths.data_root() == str(data_root)


def test_reference_env_name_is_honoured(monkeypatch, tmp_path):
    monkeypatch.delenv("CTXMODE_DIR")
    monkeypatch.setenv("CONTEXT_MODE_DIR", str(tmp_path))
    assert paths.data_root() == str(tmp_path)


def test_relative_ctxmode_dir_is_refused(monkeypatch):
    monkeypatch.setenv("CTXMODE_DIR", "relative/dir")
    with pytest.raises(paths.DataRootError, match="absolute"):
        paths.data_root()


def test_default_data_dir_matches_platformdirs(monkeypatch):
    monkeypatch.delenv("CTXMODE_DIR")
    assert paths.data_root() == platformdirs.user_data_dir(
        "ctxmode", appauthor=False if sys.platform != "win32" else None
    )


def test_default_config_dir_matches_platformdirs(monkeypatch):
    monkeypatch.delenv("CTXMODE_CONFIG_DIR")
    assert paths.config_dir() == platformdirs.user_config_dir(
        "ctxmode", appauthor=False if sys.platform != "win32" else None
    )


def test_append_log_rotates_when_large(data_root):
    for _ in range(50):
        paths.append_log("x.log", "y" * 100, max_bytes=1000)
    log = os.path.join(paths.logs_dir(), "x.log")
    assert os.path.getsize(log) <= 1200
    assert os.path.exists(log + ".1")


def test_the_cli_reports_a_relative_data_root_in_one_line(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "ctxmode", "search", "anything"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "CTXMODE_DIR": "relative/dir"},
        check=False,
    )
    assert result.returncode == 1
    assert (
        result.stderr.strip() == "Error: CTXMODE_DIR must be an absolute path, got 'relative/dir'"
    )


def test_append_log_filters_secrets(data_root):
    paths.append_log("x.log", "failed: psql postgres://app:hunter2pw@db/prod, DB_PASS=s3cr3t")
    logged = (data_root / "logs" / "x.log").read_text()
    assert "hunter2pw" not in logged and "s3cr3t" not in logged
    assert "postgres://app:[FILTERED]@db/prod" in logged
