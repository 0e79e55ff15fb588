"""The server's first reader of the wire: it answers `initialize` and `tools/list` while the
MCP SDK is still loading, then hands every line to the SDK.

Importing the SDK (its pydantic protocol models) takes longer than the whole start-up of
the Node.js reference (`bench/serve.py` prints both), and hosts wait for the handshake at
the start of every session; some give up. So `ctxmode serve` claims stdin and stdout with
this standard-library front first. It answers a classic `initialize` and `tools/list`
itself, with the results the SDK server gives (tests/server/test_front.py compares them),
and queues every other line. Once the SDK server runs, the queue is replayed to it,
`initialize` first, so the SDK's session knows its client as if it had answered; its own
answer to that replay is dropped (and logged if it differs from ours). From then on the
front only passes lines through. A first message other than `initialize`, a protocol
version it does not know or a line that is not JSON are left to the SDK.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from ctxmode import __version__, paths
from ctxmode.server.instructions import client_prefix, instructions_text
from ctxmode.server.tools import listed_tools

# The versions the SDK negotiates with `initialize` (its HANDSHAKE_PROTOCOL_VERSIONS; a test
# compares): to any other, the SDK answers.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# What the SDK server announces for the handlers app.py registers.
CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
SERVER_INFO = {"name": "ctxmode", "version": __version__}
_EOF = ""


def claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The wire (stdin, stdout) on private descriptors; fd 0 now reads the null device and
    fd 1 writes to stderr, so a stray print or a child process cannot corrupt the stream
    (what the SDK's stdio transport does when it opens the streams itself)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb")


def initialize_result(params: dict[str, Any], project_root: str) -> dict[str, Any] | None:
    """The SDK server's result for a classic `initialize` with `params`; None for what the
    SDK should judge (another version, parameters it may reject)."""
    info = params.get("clientInfo")
    if (
        params.get("protocolVersion") not in HANDSHAKE_VERSIONS
        or not isinstance(params.get("capabilities"), dict)
        or not isinstance(info, dict)
        or not all(isinstance(info.get(key), str) for key in ("name", "version"))
    ):
        return None
    return {
        "capabilities": CAPABILITIES,
        "instructions": instructions_text(*client_prefix(info["name"][:200], project_root)),
        "protocolVersion": params["protocolVersion"],
        "serverInfo": SERVER_INFO,
    }


class SdkStdin:
    """What the SDK reads as stdin: the lines the front passes on ("" at the end)."""

    def __init__(self) -> None:
        self.lines: queue.SimpleQueue[str] = queue.SimpleQueue()

    def readline(self) -> str:
        return self.lines.get()


class SdkStdout:
    """What the SDK writes as stdout: the wire, less its answer to the replayed `initialize`."""

    def __init__(self, write_line: Callable[[bytes], None]) -> None:
        self.write_line = write_line
        self.drop: tuple[object, dict[str, Any]] | None = None  # (request id, our answer)

    def write(self, text: str) -> int:
        if self.drop is not None and self._is_dropped(text, *self.drop):
            return len(text)
        self.write_line(text.encode("utf-8"))
        return len(text)

    def _is_dropped(self, text: str, request_id: object, ours: dict[str, Any]) -> bool:
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != request_id:
            return False
        self.drop = None
        if message.get("result") != ours:
            paths.append_log("server-errors.log", f"initialize: the SDK answered {text.strip()}")
        return True

    def flush(self) -> None:
        pass  # every line is flushed as it is written


class Front:
    """Reads the wire in its own thread; answers the handshake until `hand_over`."""

    def __init__(self, wire_in: BinaryIO, wire_out: BinaryIO, project_root: str) -> None:
        self.wire_in, self.wire_out = wire_in, wire_out
        self.project_root = project_root
        self.sdk_stdin, self.sdk_stdout = SdkStdin(), SdkStdout(self.write_line)
        self._lock = threading.Lock()  # one line at a time on the wire; the hand-over
        self._held: list[str] | None = []  # lines for the SDK; None once it reads them
        self._answering = True  # the first message is ours to answer, if it is initialize
        self._thread = threading.Thread(target=self._read, name="ctxmode-front", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def write_line(self, line: bytes) -> None:
        with self._lock:
            self.wire_out.write(line if line.endswith(b"\n") else line + b"\n")
            self.wire_out.flush()

    def hand_over(self) -> None:
        """From now on every line goes to the SDK, starting with those held for it."""
        with self._lock:
            held, self._held = self._held or [], None
            for line in held:
                self.sdk_stdin.lines.put(line)

    def close(self) -> None:
        """End the SDK's input (releases a reader blocked on it)."""
        self.sdk_stdin.lines.put(_EOF)

    def _read(self) -> None:
        try:
            for raw in self.wire_in:
                self._take(raw.decode("utf-8", "replace"))
        except (OSError, ValueError) as exc:
            paths.append_log("server-errors.log", f"reading stdin: {exc!r}")
        self._pass_on(_EOF)

    def _take(self, line: str) -> None:
        with self._lock:
            if self._held is None:
                self.sdk_stdin.lines.put(line)
                return
            if not (self._answering and self._answered(line)):
                self._answering = False
                self._held.append(line)

    def _pass_on(self, line: str) -> None:
        with self._lock:
            if self._held is None:
                self.sdk_stdin.lines.put(line)
            else:
                self._held.append(line)

    def _answered(self, line: str) -> bool:
        """Whether the front answered `line` itself (the lock is held)."""
        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict):
            return False
        if "id" not in message:
            return message.get("method") == "notifications/initialized" and self._keep(line)
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize" and self.sdk_stdout.drop is None and isinstance(params, dict):
            result = initialize_result(params, self.project_root)
            if result is None:
                return False
            self.sdk_stdout.drop = (message["id"], result)
            self._keep(line)  # the SDK's session learns its client from the replay
        elif method == "tools/list" and self.sdk_stdout.drop is not None and not params:
            result = {"tools": listed_tools()}
        else:
            return False
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        self.wire_out.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        self.wire_out.flush()
        return True

    def _keep(self, line: str) -> bool:
        assert self._held is not None
        self._held.append(line)
        return True
