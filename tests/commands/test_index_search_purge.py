import json
import subprocess

import pytest
from click.testing import CliRunner

from ctxmode.cli import cli


@pytest.fixture
def project_dir(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "docs" / "guide.md").write_text(
        "# Deploying\nRun the rollout script to ship a release.\n"
        + "The script builds, tags and uploads the artefacts, then waits for health checks. " * 4
        + "\n\n## Rollback\nIf the canary fails, revert with the rollback command.\n"
        + "Rolling back restores the previous artefacts and replays the database steps. " * 4
    )
    (root / "docs" / "api.md").write_text("# API\nThe endpoint returns JSON payloads.\n")
    return root


def run(cmd, args, cwd, env, stdin=None):
    return subprocess.run(
        [*cmd, *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=60
    )


def test_index_then_search_from_another_directory_of_the_same_project(
    project_dir, ctxmode_cmd, subprocess_env
):
    indexed = run(ctxmode_cmd, ["index", "../../docs"], project_dir / "src" / "pkg", subprocess_env)
    assert indexed.returncode == 0, indexed.stderr
    assert "Indexed 2 files (3 sections, 0 with code; " in indexed.stdout
    found = run(ctxmode_cmd, ["search", "canary", "failing"], project_dir / "docs", subprocess_env)
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    assert lines[0].startswith("--- [docs/guide.md | ") and lines[0].endswith("] ---")
    assert lines[1] == "### Deploying > Rollback"
    assert "If the canary fails, revert with the rollback command." in found.stdout


def test_stdin_json_output_and_purge(project_dir, ctxmode_cmd, subprocess_env):
    piped = run(
        ctxmode_cmd,
        ["index", "-", "--source", "notes"],
        project_dir,
        subprocess_env,
        stdin="# Notes\nthe flamingo migrates south\n",
    )
    assert piped.stdout.strip() == "Indexed 1 sections (0 code) from notes"
    found = run(ctxmode_cmd, ["search", "flamingos", "--json"], project_dir, subprocess_env)
    payload = json.loads(found.stdout)
    assert payload["hits"][0]["source"] == "notes"
    assert "flamingo" in payload["hits"][0]["snippet"]
    refused = run(ctxmode_cmd, ["purge"], project_dir, subprocess_env, stdin="n\n")
    assert refused.returncode != 0
    assert json.loads(
        run(ctxmode_cmd, ["search", "flamingo", "--json"], project_dir, subprocess_env).stdout
    )["hits"]
    purged = run(ctxmode_cmd, ["purge", "--yes"], project_dir, subprocess_env)
    assert purged.stdout.startswith("Purged 1 sources; the database went from ")
    after = run(ctxmode_cmd, ["search", "flamingo"], project_dir, subprocess_env)
    assert "No results" in after.stdout


def test_user_errors_are_one_line(project_dir, monkeypatch):
    monkeypatch.chdir(project_dir)
    runner = CliRunner()
    missing = runner.invoke(cli, ["index", "nope.md"])
    assert missing.exit_code == 1
    assert missing.output.strip() == "Error: no such file: nope.md"
    (project_dir / "bin.dat").write_bytes(b"\x00\x01\x02")
    binary = runner.invoke(cli, ["index", "bin.dat"])
    assert binary.exit_code == 1 and len(binary.output.strip().splitlines()) == 1
    bad_stdin = runner.invoke(cli, ["index", "-"], input=b"\xff\xfe bad")
    assert bad_stdin.exit_code == 1 and "not valid UTF-8" in bad_stdin.output


def test_directory_index_reports_skips_and_search_filters(project_dir, monkeypatch):
    monkeypatch.chdir(project_dir)
    (project_dir / "docs" / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    runner = CliRunner()
    result = runner.invoke(cli, ["index", "docs", "--source", "d"])
    assert result.exit_code == 0, result.output
    assert "Indexed 2 files (3 sections, 0 with code; " in result.output
    assert "1 skipped, binary (6 B): logo.png (6 B)" in result.output
    only_api = runner.invoke(cli, ["search", "endpoint", "--source", "api", "--limit", "5"])
    assert "--- [d:api.md | " in only_api.output
    none = runner.invoke(cli, ["search", "endpoint", "--type", "code"])
    assert "No results" in none.output


def test_every_command_has_help():
    runner = CliRunner()
    for name in ("index", "search", "purge"):
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0 and "Usage:" in result.output
