"""`ctxmode stats`: what ctxmode kept out of context in this project."""

from __future__ import annotations

import click

from ctxmode.commands.options import project_option


@click.command(name="stats")
@project_option()
def command(project_dir: str | None) -> None:
    """Show per-tool calls, bytes returned, indexed and kept out of context."""
    from ctxmode import project, schema, session, stats

    with schema.project_database(project.resolve_project_root(project_dir)) as conn:
        click.echo(stats.render_report(stats.totals(conn), "This project, all sessions"))
        click.echo("")
        click.echo(session.stats_section(conn, None))
