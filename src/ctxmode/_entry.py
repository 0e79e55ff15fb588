"""Console-script entry: `ctxmode hook ...` and `ctxmode serve` skip the click CLI (hooks stay on
the standard library; a host waits for the server's handshake)."""

import sys


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hook":
        from ctxmode._hook import main as hook_main

        hook_main(sys.argv[2:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "serve":  # hosts wait for its handshake: no click
        from ctxmode.server.main import main as serve_main

        serve_main(sys.argv[2:])
        return
    from ctxmode.cli import cli

    cli(prog_name="ctxmode")
