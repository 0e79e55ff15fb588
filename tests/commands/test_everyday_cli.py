"""What a newcomer meets at the terminal, through the real `ctxmode` process.

Closed pipes, mistyped commands and hosts, `-h`, a missing `--project`, Ctrl-C during an
index, re-indexing, one source per file, purge and disk use, doctor in a project.
"""

import fcntl
import json
import os
import signal
import sqlite3
import subprocess
import time

import click
import pytest

from ctxmode.cli import cli

F_SETPIPE_SZ = 1031  # Linux: fcntl command that sets a pipe's capacity


def run(cmd, args, cwd, env, **extra):
    return subprocess.run(
        [*cmd, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, **extra
    )


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    sections = "".join(
        f"# Topic {i}\nThe context window keeps topic {i} apart from the rest. " * 3 + "\n\n"
        for i in range(400)
    )
    (root / "README.md").write_text(sections)
    return root


def bug_log(data_root):
    return data_root / "logs" / "errors.log"


def test_a_reader_that_goes_away_ends_the_command_quietly(
    ctxmode_cmd, subprocess_env, project, data_root
):
    assert run(ctxmode_cmd, ["index", "README.md"], project, subprocess_env).returncode == 0
    search = [*ctxmode_cmd, "search", "context", "window", "--limit", "100"]
    for command, lines_read in [
        (search, 1),  # `| head -1`
        (search, 0),  # `| true`: the reader is gone before the first write
        ([*ctxmode_cmd, "index", "src"], 0),
        ([*ctxmode_cmd, "setup", "claude-code", "--print"], 0),
    ]:
        (project / "src" / "a.md").write_text(f"# A\nchanged {command} {lines_read}\n")
        read_end, write_end = os.pipe()
        fcntl.fcntl(read_end, F_SETPIPE_SZ, 4096)  # the smallest pipe: a 24 KB reply fills it
        child = subprocess.Popen(
            command, cwd=project, env=subprocess_env, stdout=write_end, stderr=subprocess.PIPE
        )
        os.close(write_end)
        with os.fdopen(read_end, "rb") as reader:
            for _ in range(lines_read):
                assert reader.readline()
        stderr = child.communicate(timeout=60)[1].decode()
        assert child.returncode in (0, 141) and stderr == "", (command, stderr)
    assert not bug_log(data_root).exists()


def test_mistyped_commands_and_hosts_get_a_suggestion_and_the_host_list_once(
    ctxmode_cmd, subprocess_env, tmp_path
):
    typo = run(ctxmode_cmd, ["indx", "README.md"], tmp_path, subprocess_env)
    assert typo.returncode == 2 and "Did you mean 'index'?" in typo.stderr
    host = run(ctxmode_cmd, ["setup", "claude"], tmp_path, subprocess_env)
    assert host.returncode == 2 and "Did you mean 'claude-code'?" in host.stderr
    assert host.stderr.count("antigravity-cli") == 1  # the list, once and unbroken
    assert "Usage: ctxmode setup [OPTIONS] PLATFORM\n" in host.stderr


def test_every_command_takes_dash_h_and_every_option_says_what_it_does(
    ctxmode_cmd, subprocess_env, tmp_path
):
    ctx = click.Context(cli)
    names = cli.list_commands(ctx)
    assert run(ctxmode_cmd, ["-h"], tmp_path, subprocess_env).stdout.startswith("Usage: ctxmode")
    for name in names:
        shown = run(ctxmode_cmd, [name, "-h"], tmp_path, subprocess_env)
        assert shown.returncode == 0 and f"sage: ctxmode {name}" in shown.stdout, name
        command = cli.get_command(ctx, name)
        for nested in [command, *getattr(command, "commands", {}).values()]:
            for param in nested.params:
                if isinstance(param, click.Option) and not param.hidden:
                    assert param.help, (name, nested.name, param.opts)


def test_a_project_that_does_not_exist_is_an_error_and_makes_no_database(
    ctxmode_cmd, subprocess_env, tmp_path, data_root
):
    for args in (["search", "x"], ["index", "-"], ["stats"], ["purge", "--yes"], ["doctor"]):
        refused = run(
            ctxmode_cmd, [*args, "--project", str(tmp_path / "mistyped")], tmp_path, subprocess_env
        )
        assert refused.returncode == 2 and "does not exist" in refused.stderr, args
    assert not (data_root / "projects").exists() or not os.listdir(data_root / "projects")


def test_a_file_is_one_source_however_its_path_is_spelled_and_unchanged_files_are_skipped(
    ctxmode_cmd, subprocess_env, project
):
    (project / "src" / "app.py").write_text("def start():\n    return 'wombat'\n")
    for cwd, spelling in [(project, "README.md"), (project, "./README.md")]:
        assert run(ctxmode_cmd, ["index", spelling], cwd, subprocess_env).returncode == 0
    assert run(ctxmode_cmd, ["index", "../README.md"], project / "src", subprocess_env)
    first = run(ctxmode_cmd, ["index", "."], project, subprocess_env)
    assert "Indexed 1 files (" in first.stdout and "1 unchanged, skipped" in first.stdout
    again = run(ctxmode_cmd, ["index", "."], project, subprocess_env)
    assert again.stdout.startswith("Indexed 0 files (") and "2 unchanged" in again.stdout
    found = run(
        ctxmode_cmd, ["search", "topic 7", "--json", "--limit", "5"], project, subprocess_env
    )
    assert {hit["source"] for hit in json.loads(found.stdout)["hits"]} == {"README.md"}


def test_two_folders_of_the_same_name_keep_their_own_files(ctxmode_cmd, subprocess_env, project):
    for side in ("left", "right"):
        (project / side / "notes").mkdir(parents=True)
        (project / side / "notes" / "todo.md").write_text(f"# Todo\nonly-{side} item\n")
        done = run(ctxmode_cmd, ["index", f"{side}/notes"], project, subprocess_env)
        assert f"as {side}/notes/<file>" in done.stdout
    for side in ("left", "right"):
        found = run(ctxmode_cmd, ["search", f"only-{side}"], project, subprocess_env)
        assert f"[{side}/notes/todo.md | " in found.stdout
    # One label given to both on purpose: the second replaces the first, and says so.
    run(ctxmode_cmd, ["index", "left/notes", "--source", "notes"], project, subprocess_env)
    both = run(ctxmode_cmd, ["index", "right/notes", "--source", "notes"], project, subprocess_env)
    assert "1 sources held files of another folder until now and were replaced" in both.stdout
    assert f"(e.g. notes:todo.md was {project / 'left' / 'notes' / 'todo.md'})" in both.stdout


def test_ctrl_c_during_an_index_exits_130_says_how_far_it_got_and_keeps_the_index_whole(
    ctxmode_cmd, subprocess_env, tmp_path, data_root
):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(300):
        (docs / f"page{i:03}.md").write_text(f"# Page {i}\n" + f"ocelot line {i} of many\n" * 4000)
    child = subprocess.Popen(
        [*ctxmode_cmd, "index", str(docs)],
        cwd=tmp_path,
        env=subprocess_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    projects = data_root / "projects"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and count_sources(projects) < 3:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, (out, err)
    assert "Interrupted: " in err and " of 300 files done" in err
    done = int(err.split("Interrupted: ")[1].split(" ")[0])
    assert 3 <= done < 300 and "Traceback" not in err
    with sqlite3.connect(next(projects.glob("*.db"))) as conn:
        stored = conn.execute("SELECT count(*), sum(chunk_count) FROM kb_sources").fetchone()
        chunks = conn.execute("SELECT count(*) FROM kb_chunk_rows").fetchone()[0]
    assert stored[0] == done and stored[1] == chunks  # no file half indexed
    rerun = run(ctxmode_cmd, ["index", str(docs)], tmp_path, subprocess_env)
    assert f"Indexed {300 - done} files (" in rerun.stdout and f"{done} unchanged" in rerun.stdout


def count_sources(projects):
    for path in projects.glob("*.db") if projects.exists() else ():
        try:
            with sqlite3.connect(path, timeout=1) as conn:
                return conn.execute("SELECT count(*) FROM kb_sources").fetchone()[0]
        except sqlite3.Error:
            return 0
    return 0


def test_purge_gives_the_space_back_and_stats_shows_disk_use(
    ctxmode_cmd, subprocess_env, project, data_root, tmp_path
):
    assert run(ctxmode_cmd, ["stats"], tmp_path, subprocess_env).returncode == 0
    [empty] = (data_root / "projects").glob("*.db")  # another project's, nothing in it
    assert run(ctxmode_cmd, ["index", "README.md"], project, subprocess_env).returncode == 0
    [database] = set((data_root / "projects").glob("*.db")) - {empty}
    before = run(ctxmode_cmd, ["stats"], project, subprocess_env)
    assert "Disk: " in before.stdout and str(database) in before.stdout
    grown = database.stat().st_size + wal_size(database)
    assert grown > 1.5 * empty.stat().st_size
    purged = run(ctxmode_cmd, ["purge", "--yes"], project, subprocess_env)
    assert purged.returncode == 0 and "the database went from " in purged.stdout
    assert database.stat().st_size + wal_size(database) <= empty.stat().st_size


def wal_size(database):
    wal = database.with_name(database.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_doctor_reports_a_host_set_up_for_the_project_only(
    ctxmode_cmd, subprocess_env, project, tmp_path
):
    home = tmp_path / "home"
    home.mkdir()
    env = {**subprocess_env, "HOME": str(home)}
    env.pop("XDG_CONFIG_HOME", None)
    assert run(ctxmode_cmd, ["doctor"], project, env).stdout.count("no host has ctxmode") == 1
    setup = run(ctxmode_cmd, ["setup", "claude-code", "--project", "."], project, env)
    assert setup.returncode == 0, setup.stderr
    report = run(ctxmode_cmd, ["doctor"], project, env).stdout
    assert f"[OK] claude-code (project {project}): hooks and MCP server set up" in report
    assert "no host has ctxmode" not in report
