"""`ctxmode search QUERY...`: search the project's knowledge base."""

from __future__ import annotations

import json
import time
from dataclasses import asdict

import click

from ctxmode.commands.options import project_option


@click.command(name="search")
@click.argument("query", nargs=-1, required=True)
@click.option("--source", help="Only sources whose label contains this.")
@click.option(
    "--limit", default=3, show_default=True, type=click.IntRange(1, 100), help="Results to show."
)
@click.option(
    "--type",
    "content_type",
    type=click.Choice(["code", "prose"]),
    help="Only this kind of section.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@project_option()
def command(
    query: tuple[str, ...],
    source: str | None,
    limit: int,
    content_type: str | None,
    as_json: bool,
    project_dir: str | None,
) -> None:
    """Search what `ctxmode index` (and the MCP tools) indexed in this project."""
    from ctxmode.errors import CtxmodeError
    from ctxmode.storage import project, schema
    from ctxmode.store.knowledge import KnowledgeBase

    text = " ".join(query).strip()
    if not text:
        raise CtxmodeError("give a query to search for")
    with schema.project_database(project.resolve_project_root(project_dir)) as conn:
        kb = KnowledgeBase(conn)
        result = kb.search([text], limit=limit, source=source, content_type=content_type)[0]
    if as_json:
        click.echo(json.dumps(asdict(result), ensure_ascii=False, indent=2))
        return
    if result.corrected_query:
        click.echo(f"(searched for: {result.corrected_query})")
    if not result.hits:
        click.echo(f"No results for {text!r}.")
        return
    for hit in result.hits:
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(hit.indexed_at))
        click.echo(f"--- [{hit.source} | {stamp}] ---")
        click.echo(f"### {hit.title}")
        click.echo(hit.snippet)
        click.echo()
