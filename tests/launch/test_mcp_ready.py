"""MCP readiness: a live announced server, dead pids cleaned up, the env override."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ctxmode.launch import mcp_ready


@pytest.fixture(autouse=True)
def no_override(monkeypatch):
    monkeypatch.delenv("CTXMODE_MCP_READY", raising=False)


def test_no_announcement_means_not_ready(data_root):
    assert not mcp_ready.server_alive()


def test_an_announced_live_server_is_ready_until_withdrawn(data_root):
    path = mcp_ready.announce_server()
    with open(path) as handle:
        assert handle.read() == str(os.getpid())
    assert mcp_ready.server_alive()
    mcp_ready.withdraw_server()
    assert not mcp_ready.server_alive()


def test_a_dead_servers_marker_is_removed(data_root):
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    path = mcp_ready.announce_server(int(child.stdout))
    assert not mcp_ready.server_alive()
    assert not os.path.exists(path)


def test_garbage_markers_are_ignored(data_root):
    os.makedirs(mcp_ready.run_dir(), exist_ok=True)
    with open(os.path.join(mcp_ready.run_dir(), "mcp-x"), "w") as handle:
        handle.write("not a pid")
    assert not mcp_ready.server_alive()


def test_environment_override(monkeypatch, data_root):
    monkeypatch.setenv("CTXMODE_MCP_READY", "1")
    assert mcp_ready.server_alive()
    mcp_ready.announce_server()
    monkeypatch.setenv("CTXMODE_MCP_READY", "0")
    assert not mcp_ready.server_alive()
    mcp_ready.withdraw_server()
