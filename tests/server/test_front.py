"""The front answers the handshake as the SDK server would, and hands the wire over whole.

A real `ctxmode serve` over raw JSON lines: the front answers `initialize` and the first
`tools/list`; a `ping` is the SDK's to answer, so what follows it reaches the SDK, whose
own answers are set against the front's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from ctxmode.server.front import HANDSHAKE_VERSIONS


class Wire:
    """A `ctxmode serve` process spoken to in JSON lines."""

    def __init__(self, project: str, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ctxmode", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=project,
            env=env,
        )

    def send(self, message: dict) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self.process.stdin.flush()

    def receive(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the server closed its stdout"
        return json.loads(line)

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=60)


def initialize(version: str, client: dict | None = None) -> dict:
    client = {"name": "claude-code", "version": "2.1"} if client is None else client
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": client}
    return {"id": 1, "method": "initialize", "params": params}


@pytest.fixture
def wire(tmp_path):
    env = {**os.environ, "CTXMODE_DIR": str(tmp_path / "data")}
    opened = Wire(str(tmp_path), env)
    with opened.process:  # closes the pipes
        yield opened
        opened.process.kill()


def test_the_front_knows_the_handshake_versions_the_sdk_negotiates():
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_VERSIONS


def test_front_answers_match_the_sdk_servers_and_every_line_after_reaches_it(wire, tmp_path):
    wire.send(initialize("2025-06-18"))
    front_init = wire.receive()
    wire.send({"method": "notifications/initialized"})
    wire.send({"id": 2, "method": "tools/list"})
    front_tools = wire.receive()
    wire.send({"id": 3, "method": "ping"})
    assert wire.receive() == {"jsonrpc": "2.0", "id": 3, "result": {}}
    wire.send({"id": 4, "method": "tools/list"})
    assert wire.receive()["result"] == front_tools["result"]
    wire.send({"id": 5, "method": "tools/call", "params": {"name": "ctx_stats", "arguments": {}}})
    assert wire.receive()["id"] == 5
    assert wire.close() == 0

    assert front_init["id"] == 1
    result = front_init["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert "mcp__context-mode__ctx_search" in result["instructions"]  # claude-code's names
    # The SDK answered the replayed initialize too: a difference would be logged.
    log = tmp_path / "data" / "logs" / "server-errors.log"
    assert not log.exists() or "initialize" not in log.read_text()


def test_an_unknown_protocol_version_is_the_sdks_to_answer(wire):
    wire.send(initialize("2099-01-01"))
    answer = wire.receive()
    assert answer["result"]["protocolVersion"] in HANDSHAKE_VERSIONS
    wire.send({"method": "notifications/initialized"})
    wire.send({"id": 2, "method": "tools/list"})
    assert len(wire.receive()["result"]["tools"]) == 11
    assert wire.close() == 0


def test_an_initialize_the_sdk_rejects_is_rejected(wire):
    wire.send(initialize("2025-06-18", {"name": "no version"}))
    assert wire.receive()["error"]["code"] == -32602
    assert wire.close() == 0


def test_after_a_line_that_is_not_json_the_sdk_answers_and_the_session_goes_on(wire):
    assert wire.process.stdin is not None
    wire.process.stdin.write(b"{not json\n")
    wire.send(initialize("2025-11-25"))
    assert wire.receive()["result"]["protocolVersion"] == "2025-11-25"
    wire.send({"id": 2, "method": "ping"})
    assert wire.receive() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert wire.close() == 0
