"""`ctxmode purge`: delete everything indexed in this project's knowledge base."""

from __future__ import annotations

import click

from ctxmode.commands.options import project_option


@click.command(name="purge")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@project_option()
def command(yes: bool, project_dir: str | None) -> None:
    """Remove every indexed source of this project (sessions and stats are kept)."""
    from ctxmode.stats import size_text
    from ctxmode.storage import db, project, purge, schema
    from ctxmode.store.knowledge import KnowledgeBase

    root = project.resolve_project_root(project_dir)
    with schema.project_database(root) as conn:
        kb = KnowledgeBase(conn)
        count = len(kb.sources())
        if not count:
            click.echo(f"Nothing indexed for {root}.")
            return
        if not yes:
            click.confirm(
                f"Delete {count} indexed sources ({kb.chunk_count()} sections) of {root}?",
                abort=True,
            )
        database = project.project_db_path(root)
        before = db.file_bytes(database)
        removed, reclaimed = purge.purge_knowledge(conn)
        after = db.file_bytes(database)
    size = f"the database went from {size_text(before)} to {size_text(after)}"
    if not reclaimed:
        size = f"the database keeps its {size_text(after)} while another process uses it"
    click.echo(f"Purged {removed} sources; {size}.")
