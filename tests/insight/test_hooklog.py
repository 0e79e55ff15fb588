"""Reading the hook tally incrementally, and attributing its lines to projects."""

from __future__ import annotations

import json
import os

from ctxmode.insight.hooklog import HookLog
from ctxmode.insight.projects import Project, owner_of


def _line(**fields: object) -> bytes:
    base = {"t": 1.0, "host": "claude-code", "ev": "pre_tool_use", "tool": "Bash", "ms": 1.5}
    return (json.dumps({**base, **fields}) + "\n").encode()


def test_new_lines_are_read_once_and_a_half_written_line_waits(tmp_path):
    path = tmp_path / "hook-calls.jsonl"
    path.write_bytes(_line(sid="a") + b"not json\n" + _line(sid="b")[:20])
    log = HookLog(str(tmp_path))
    assert log.latency_samples() == {("", "claude-code", "pre_tool_use"): [1.5]}
    assert log.decided() == []
    with open(path, "ab") as handle:
        handle.write(_line(sid="b")[20:] + _line(sid="c", act="deny", kind="webfetch-redirected"))
    assert log.latency_samples() == {("", "claude-code", "pre_tool_use"): [1.5, 1.5, 1.5]}
    (denied,) = log.decided()
    assert (denied.session_id, denied.kind, denied.bytes_in) == ("c", "webfetch-redirected", 0)


def test_a_rotation_keeps_the_older_calls_from_the_rotated_file(tmp_path):
    path = tmp_path / "hook-calls.jsonl"
    path.write_bytes(_line(sid="old", act="modify", kind="bash-redirected"))
    log = HookLog(str(tmp_path))
    assert len(log.decided()) == 1
    os.replace(path, str(path) + ".1")
    path.write_bytes(_line(sid="new", act="deny", kind="webfetch-redirected"))
    assert [c.session_id for c in log.decided()] == ["old", "new"]


def test_a_directory_belongs_to_the_deepest_project_holding_it():
    outer, inner = Project("a", "/w/repo", "a.db"), Project("b", "/w/repo/sub", "b.db")
    known = [outer, inner]
    assert owner_of("/w/repo/sub/x", known) is inner
    assert owner_of("/w/repo", known) is outer
    assert owner_of("/w/repository", known) is None


def test_a_database_ctxmode_has_not_migrated_yet_is_read_as_it_is(data_root):
    from ctxmode.insight import accounting
    from ctxmode.insight.projects import PerFileCache, discover, scope_for
    from ctxmode.storage import db, project, schema

    root = str(data_root / "old-project")
    conn = db.open_database(project.project_db_path(root), schema.MIGRATIONS[:5])
    conn.execute("INSERT INTO meta(key, value) VALUES('project_root', ?)", (root,))
    conn.execute(
        "INSERT INTO tool_calls(at, tool, bytes_processed, bytes_returned, bytes_kept_out) "
        "VALUES (86400, 'ctx_execute', 50000, 1000, 29000)"
    )
    conn.close()
    (found,) = discover(str(data_root))
    figures = accounting.overview(scope_for(found.key, [found]), [], PerFileCache())
    assert figures.total.kept_out == 29_000
    assert figures.by_host[accounting.MCP_HOST].calls == 1
