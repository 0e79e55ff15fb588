"""`ctxmode stats`: what ctxmode kept out of context in this project."""

from __future__ import annotations

import os

import click

from ctxmode.commands.options import project_option


@click.command(name="stats")
@project_option()
def command(project_dir: str | None) -> None:
    """Show per-tool calls, bytes returned, indexed and kept out of context."""
    from ctxmode import session, stats
    from ctxmode.storage import project, schema

    root = project.resolve_project_root(project_dir)
    with schema.project_database(root) as conn:
        click.echo(stats.render_report(stats.totals(conn), "This project, all sessions"))
        click.echo("")
        click.echo(session.stats_section(conn, None))
    click.echo("")
    click.echo(disk_use(project.project_db_path(root)))


def disk_use(database: str) -> str:
    """The project's database size, and what every project together takes."""
    from ctxmode import paths
    from ctxmode.stats import size_text
    from ctxmode.storage import db

    projects = paths.projects_dir()
    everything = sum(
        db.file_bytes(os.path.join(projects, name))
        for name in os.listdir(projects)
        if name.endswith(".db")
    )
    return (
        f"Disk: {size_text(db.file_bytes(database))} for this project ({database}); "
        f"{size_text(everything)} for all projects in {projects}"
    )
