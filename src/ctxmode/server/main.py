"""`ctxmode serve` from process start: the front on the wire first, then the SDK server.

The front (see `front.py`) answers the handshake while this thread imports the MCP SDK;
only the standard library and our small modules load before it listens.
"""

from __future__ import annotations

import contextlib

from ctxmode.launch import mcp_ready
from ctxmode.server.front import Front, claim_stdio
from ctxmode.storage import project


def serve(project_dir: str | None = None) -> None:
    """Run the MCP server on stdin/stdout until the host closes the pipe."""
    wire_in, wire_out = claim_stdio()
    root = project.resolve_project_root(project_dir)
    front = Front(wire_in, wire_out, root)
    front.start()
    # Hooks send the model to our tools only while a server is announced. The front lists
    # them from now on (a call waits for the SDK), so the announcement cannot wait for the
    # SDK's import: a host's first tool calls come before it ends.
    with contextlib.suppress(Exception):
        mcp_ready.announce_server()
    try:
        from ctxmode.server import app  # the MCP SDK: most of the start-up time

        app.serve(root, front)
    finally:
        with contextlib.suppress(Exception):
            mcp_ready.withdraw_server()


def main(argv: list[str]) -> None:
    """`serve [--project DIR]` without the click CLI (its import would delay the front);
    anything else goes to the CLI, which also gives the help."""
    if not argv:
        serve(None)
    elif len(argv) == 2 and argv[0] == "--project":
        serve(argv[1])
    elif len(argv) == 1 and argv[0].startswith("--project="):
        serve(argv[0].partition("=")[2])
    else:
        from ctxmode.cli import cli

        cli(["serve", *argv], prog_name="ctxmode")
