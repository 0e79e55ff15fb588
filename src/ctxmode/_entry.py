"""Console-script entry: `ctxmode hook ...` skips the click CLI to stay on the standard library."""

import sys


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hook":
        from ctxmode._hook import main as hook_main

        hook_main(sys.argv[2:])
        return
    from ctxmode.cli import cli

    cli(prog_name="ctxmode")
