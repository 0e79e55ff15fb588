"""`ctxmode serve`: the MCP server over stdio."""

from __future__ import annotations

import click

from ctxmode.commands.options import project_option


@click.command(name="serve")
@project_option()
def command(project_dir: str | None) -> None:
    """Run the MCP server on stdin/stdout (hosts start this)."""
    from ctxmode.server.main import serve

    serve(project_dir)
