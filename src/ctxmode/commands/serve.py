"""`ctxmode serve`: the MCP server over stdio."""

from __future__ import annotations

import click


@click.command(name="serve")
@click.option("--project", "project_dir", help="Project directory (default: git root of the cwd).")
def command(project_dir: str | None) -> None:
    """Run the MCP server on stdin/stdout (hosts start this)."""
    from ctxmode.server.main import serve

    serve(project_dir)
