"""`ctxmode index DIR` as a person or a script runs it: real directories, real processes."""

from __future__ import annotations

import json
import os
import pty
import subprocess

import pytest


def index(cmd, args, cwd, env, **options):
    return subprocess.run(
        [*cmd, "index", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
        **options,
    )  # fmt: skip


def git(cwd, *args):
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)


@pytest.fixture
def pages(tmp_path):
    """A documentation tree of 345 pages (more than any file-count cap we ever had)."""
    docs = tmp_path / "site" / "docs"
    for n in range(345):
        page = docs / f"part{n // 50}" / f"page{n:03}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# Page {n}\n\nTopic number {n} explained in words.\n")
    return docs


def test_every_page_of_a_large_documentation_tree_is_indexed(pages, ctxmode_cmd, subprocess_env):
    done = index(ctxmode_cmd, [str(pages), "--json"], pages.parent, subprocess_env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["indexed_files"] == 345 and report["skipped"] == {}


@pytest.mark.skipif(not os.path.exists("/usr/bin/git"), reason="needs git")
def test_in_a_repository_git_decides_what_is_ignored(tmp_path, ctxmode_cmd, subprocess_env):
    repo = tmp_path / "repo"
    (repo / "build").mkdir(parents=True)
    (repo / "guide.md").write_text("# Guide\nkept\n")
    (repo / "build" / "out.md").write_text("# Built\nignored by .gitignore\n")
    (repo / "scratch.md").write_text("# Scratch\nignored only by .git/info/exclude\n")
    (repo / "vendored.md").write_text("# Vendored\ntracked although a rule ignores it\n")
    (repo / ".gitignore").write_text("build/\nvendored.md\n")
    git(repo, "init", "-q")
    git(repo, "add", "-f", "vendored.md")
    (repo / ".git" / "info" / "exclude").write_text("scratch.md\n")

    done = index(ctxmode_cmd, [".", "--json", "--source", "r"], repo, subprocess_env)

    report = json.loads(done.stdout)
    ignored = [item["path"] for item in report["skipped"]["gitignored"]["largest"]]
    assert sorted(ignored) == ["build/", "scratch.md"]
    assert report["indexed_files"] == 3  # .gitignore, guide.md, and the tracked vendored.md


def test_the_byte_budget_keeps_what_fits_and_names_the_largest_left_out(
    tmp_path, ctxmode_cmd, subprocess_env
):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a-small.md").write_text("# Small\n" + "word " * 100)  # 508 bytes
    (docs / "b-huge.log").write_text("line\n" * 2_000)  # 10,000 bytes: does not fit
    (docs / "c-small.md").write_text("# Also small\n" + "text " * 100)
    env = {**subprocess_env, "CTXMODE_INDEX_MAX_BYTES": "2000"}

    done = index(ctxmode_cmd, ["docs"], tmp_path, env)

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Indexed 2 files (")
    assert "1 skipped, over the byte budget (9.8 KB): b-huge.log (9.8 KB)" in done.stdout
    assert "The byte budget was 2,000 bytes: raise it with --max-bytes" in done.stdout
    flag_wins = index(ctxmode_cmd, ["docs", "--max-bytes", "20000", "--json"], tmp_path, env)
    outcome = json.loads(flag_wins.stdout)  # the two indexed before are unchanged: skipped
    assert (outcome["indexed_files"], outcome["unchanged_files"]) == (1, 2)


def test_piped_output_has_no_progress_bar_and_a_terminal_gets_one(
    pages, ctxmode_cmd, subprocess_env
):
    piped = index(ctxmode_cmd, [str(pages)], pages.parent, subprocess_env)
    assert piped.stderr == "" and "Indexing" not in piped.stdout

    controller, terminal = pty.openpty()  # stderr on a terminal, as a person runs it
    child = subprocess.Popen(
        [*ctxmode_cmd, "index", str(pages)], cwd=pages.parent, env=subprocess_env,
        stdout=subprocess.PIPE, stderr=terminal,
    )  # fmt: skip
    os.close(terminal)
    seen = b""
    while True:  # read as it comes: a full terminal buffer would stall the child
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the child closed its end: all read
            break
        if not chunk:
            break
        seen += chunk
    os.close(controller)
    assert child.wait(timeout=300) == 0
    child.stdout.close()
    assert b"Indexing" in seen and b"100%" in seen
