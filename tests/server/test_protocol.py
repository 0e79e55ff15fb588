"""The MCP surface: tool names, parameters, sizes, and the empty prompt/resource lists."""

import json

from ctxmode.server.tools import TOOLS

REFERENCE_PARAMETERS = {
    "ctx_execute": {"language", "code", "timeout", "background", "cwd", "intent"},
    "ctx_execute_file": {"path", "language", "code", "timeout", "intent"},
    "ctx_index": {
        "content",
        "path",
        "source",
        "include",
        "exclude",
        "maxDepth",
        "maxFiles",
        "extensions",
        "respectGitignore",
        "followSymlinks",
    },
    "ctx_search": {"queries", "query", "limit", "source", "contentType", "sort"},
    "ctx_fetch_and_index": {"url", "source", "requests", "concurrency", "force", "ttl"},
    "ctx_batch_execute": {"commands", "queries", "timeout", "concurrency", "cwd", "query_scope"},
    "ctx_stats": set(),
    "ctx_doctor": set(),
    "ctx_upgrade": set(),
    "ctx_purge": {"confirm", "sessionId", "scope"},
    "ctx_insight": set(),
}


def test_every_reference_tool_and_parameter_is_offered(mcp_run):
    async def scenario(session):
        return (await session.client.list_tools()).tools

    tools = {tool.name: tool for tool in mcp_run(scenario)}
    assert set(tools) == set(REFERENCE_PARAMETERS)
    for name, params in REFERENCE_PARAMETERS.items():
        assert params <= set(tools[name].input_schema.get("properties", {})), name
        assert tools[name].annotations is not None


def test_tools_list_is_small_and_free_of_strict_client_breakers(mcp_run):
    async def scenario(session):
        result = await session.client.list_tools()
        return result.model_dump_json(by_alias=True, exclude_none=True)

    wire = mcp_run(scenario)
    assert len(wire.encode()) <= 12_000
    assert '"const"' not in wire and "additionalProperties" not in wire
    assert len(json.dumps(TOOLS)) <= 12_000


def test_prompts_and_resources_are_empty_lists_on_a_classic_initialize(mcp_run):
    async def scenario(session):
        prompts = await session.client.list_prompts()
        resources = await session.client.list_resources()
        return prompts.prompts, resources.resources

    assert mcp_run(scenario, mode="legacy") == ([], [])


def test_unknown_tool_and_bad_arguments_are_one_line_errors(mcp_run):
    async def scenario(session):
        return (
            await session.call("ctx_nope"),
            await session.call("ctx_purge", confirm="perhaps"),
        )

    (unknown, unknown_err), (bad, bad_err) = mcp_run(scenario)
    assert unknown_err and "Unknown tool" in unknown
    assert bad_err and "'confirm' must be true or false" in bad and "\n" not in bad


def test_doctor_stats_upgrade_insight_answer(mcp_run):
    async def scenario(session):
        return [
            await session.call(name)
            for name in ("ctx_doctor", "ctx_stats", "ctx_upgrade", "ctx_insight")
        ]

    doctor, stats_reply, upgrade, insight = mcp_run(scenario)
    assert "[OK] SQLite" in doctor[0] and "FTS5" in doctor[0]
    assert "This session" in stats_reply[0]
    assert "Sessions (this project)" in stats_reply[0]  # the continuity section
    assert "pip install" in upgrade[0] or "upgrade" in upgrade[0]
    assert "Knowledge base:" in insight[0]


def test_purge_needs_confirmation(mcp_run):
    async def scenario(session):
        return await session.call("ctx_purge", confirm=False)

    text, is_error = mcp_run(scenario)
    assert "cancelled" in text and not is_error


def test_sources_unused_for_the_retention_period_are_dropped_before_the_first_call(mcp_run):
    import time

    from ctxmode.store.knowledge import KnowledgeBase

    with KnowledgeBase.open(str(mcp_run.project.resolve())) as kb:
        kb.index_text("old-notes", "# Old\nstale findings about the widget")
        kb.index_text("fresh-notes", "# Fresh\nrecent findings about the widget")
        month_ago = time.time() - 30 * 86400
        kb.conn.execute(
            "UPDATE kb_sources SET indexed_at = ?, last_used_at = ? WHERE label = 'old-notes'",
            (month_ago, month_ago),
        )

    async def scenario(session):
        return await session.call("ctx_insight")

    text, _ = mcp_run(scenario)
    assert "fresh-notes" in text and "old-notes" not in text


def test_ctx_index_of_a_directory_reports_files_skips_and_is_searchable(mcp_run):
    docs = mcp_run.project / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe flux capacitor needs 1.21 gigawatts.\n")
    (docs / "notes.txt").write_text("Remember to calibrate the flux capacitor weekly.\n")
    (docs / "blob.md").write_bytes(b"\x00\x01binary")
    (docs / "secret.md").write_text("# Hidden\n\ngitignored flux notes\n")
    (mcp_run.project / ".git").mkdir()  # the project's own .gitignore applies below it
    (mcp_run.project / ".gitignore").write_text("docs/secret.md\n")

    async def scenario(session):
        indexed = await session.call("ctx_index", path="docs", source="docs")
        found = await session.call(
            "ctx_search", queries=["flux capacitor gigawatts"], source="docs"
        )
        return indexed, found

    (indexed, indexed_err), (found, _) = mcp_run(scenario)
    assert not indexed_err
    assert "Indexed 2 files" in indexed and "1 skipped, binary" in indexed
    assert "1 skipped, ignored by .gitignore" in indexed
    assert "1.21 gigawatts" in found and "gitignored" not in found


def test_instructions_name_tools_as_the_connecting_host_shows_them(mcp_run):
    async def scenario(session):
        return session.instructions

    def instructions(client_name):  # hosts introduce themselves at a classic initialize
        return mcp_run(scenario, client_name=client_name, mode="legacy")

    assert "mcp_context-mode_ctx_execute" in instructions("gemini-cli-mcp-client")
    assert "mcp__context-mode__ctx_batch_execute" in instructions("claude-code")
    assert "mcp__context-mode__ctx_search" in instructions("qwen-cli-mcp-client-context-mode")
    assert "mcp__context-mode__ctx_search" in instructions("dsh-mcp-client")
    assert " context-mode__ctx_search" in instructions("openclaw-bundle-mcp")
    # An unknown client gets the bare names as endings, true under any host's prefix.
    unknown = instructions("some-new-host")
    assert "end in" in unknown and " ctx_execute" in unknown


def test_tool_replies_name_ctx_search_as_the_connecting_host_shows_it(mcp_run):
    async def scenario(session):
        indexed, _ = await session.call("ctx_index", content="# Notes\nsome words", source="n")
        return indexed

    gemini = mcp_run(scenario, client_name="gemini-cli-mcp-client", mode="legacy")
    assert "mcp_context-mode_ctx_search(queries=" in gemini
    unknown = mcp_run(scenario, client_name="some-new-host", mode="legacy")
    assert "with ctx_search(queries=" in unknown


def test_replies_name_ctx_search_as_the_host_shows_it_under_the_2026_protocol_too(mcp_run):
    """Claude Code 2.1.33x opens with `server/discover` and names itself on every request."""

    async def scenario(session):
        indexed, _ = await session.call("ctx_index", content="# Notes\nsome words", source="n")
        return indexed

    for mode in ("auto", "legacy"):
        reply = mcp_run(scenario, client_name="claude-code", mode=mode)
        assert 'mcp__context-mode__ctx_search(queries=["<what you need>"], source="n")' in reply
    copilot = mcp_run(scenario, client_name="copilot-cli")  # Copilot CLI 1.0.102's name
    assert 'context-mode-ctx_search(queries=["<what you need>"], source="n")' in copilot
