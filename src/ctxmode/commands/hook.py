"""`ctxmode hook PLATFORM EVENT`: documented here for `--help`; dispatched before click loads.

The console entry (`ctxmode._entry`) hands `ctxmode hook ...` straight to
`ctxmode._hook.main` so a host's tool call never pays for importing click. This command
only runs when click is invoked directly (e.g. from tests); it runs the same runner.
"""

from __future__ import annotations

import click


@click.command(
    "hook",
    context_settings={"ignore_unknown_options": True},
    epilog='Example: echo \'{"tool_name":"Bash","tool_input":{"command":"ls"}}\' '
    "| ctxmode hook claude-code pretooluse",
)
@click.argument("platform")
@click.argument("event")
def command(platform: str, event: str) -> None:
    """Answer one host hook EVENT for PLATFORM: JSON payload on stdin, the host's answer on stdout.

    PLATFORM is a host id (claude-code, qwen-code, gemini-cli, cursor, codex, ...); EVENT is
    the host's event name in lower case (pretooluse, posttooluse, sessionstart, precompact,
    userpromptsubmit, stop, ...). Always exits 0 unless the host's protocol blocks with
    another code (Kiro: 2). Unknown platforms or events get a one-line note on stderr.
    Hosts should be given the faster form that `ctxmode setup` writes.
    """
    import io
    import sys

    from ctxmode._hook import load_platform
    from ctxmode.hooks.runner import run
    from ctxmode.hooks.stdin import read_stdin

    host = load_platform(platform, event)
    if host is None:
        raise SystemExit(0)
    stream = sys.stdin.buffer

    def read() -> bytes:
        try:
            return read_stdin(stream.fileno())
        except (AttributeError, io.UnsupportedOperation):  # an in-memory stream (tests)
            return stream.read()

    output = run(host, event, read)
    click.echo(output.stdout, nl=False)
    if output.stderr:
        click.echo(output.stderr, nl=False, err=True)
    raise SystemExit(output.exit_code)
