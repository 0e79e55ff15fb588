"""The knowledge-base tools: ctx_index, ctx_search and ctx_fetch_and_index."""

from __future__ import annotations

import os
import time
from datetime import datetime

from ctxmode.policy.secrets import explicit_redaction_off
from ctxmode.server import arguments as a
from ctxmode.server.state import Reply, ServerState
from ctxmode.vocab.toolnames import search_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.fetch.service import FetchOutcome
    from ctxmode.store.directory import DirectoryIndexResult
    from ctxmode.store.knowledge import KnowledgeBase
    from ctxmode.store.records import QueryResult

SEARCH_REPLY_CAP = 40_000
SNIPPET_CHARS = 1_500


def _stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M")


# --- ctx_search -------------------------------------------------------------------------


def render_hits(results: list[QueryResult], reply_cap: int = SEARCH_REPLY_CAP) -> str:
    """`## <query>` then per hit `--- [<source> | <date>] ---`, `### <title>`, snippet."""
    parts: list[str] = []
    size = 0
    for result in results:
        block = [f"## {result.query}"]
        if result.corrected_query:
            block.append(f"(no close match; searched for: {result.corrected_query})")
        if not result.hits:
            block.append("No matches.")
        for hit in result.hits:
            block.append(f"--- [{hit.source} | {_stamp(hit.indexed_at)}] ---")
            block.append(f"### {hit.title}")
            block.append(hit.snippet.strip())
        text = "\n".join(block)
        if size + len(text) > reply_cap:
            parts.append(
                f"## {result.query}\n(reply size cap reached: narrow the query or use source)"
            )
            break
        parts.append(text)
        size += len(text)
    return "\n\n".join(parts)


def _throttle_key(
    state: ServerState, kb: KnowledgeBase, source: str | None, queries: list[str]
) -> str:
    """What a search counts against: the session's searches, except that one scoped to a
    source indexed since this server started (what a notice or a cut result asks for)
    counts only against repeats of itself, so notices' searches are never starved while
    a loop of the same call is still stopped."""
    info = kb.get_source(source) if source else None
    if info is None or info.indexed_at < state.started_at:
        return state.session_key
    return f"{state.session_key}\x00{source}\x00" + "\x00".join(sorted(queries))


def handle_search(state: ServerState, args: dict) -> Reply:
    queries = a.as_str_list(args, "queries", None) or []
    legacy = a.as_str(args, "query", None)
    if legacy:
        queries.append(legacy)
    if not queries:
        raise a.ArgumentError("missing required argument 'queries'")
    limit = a.as_int(args, "limit", 3, minimum=1, maximum=50)
    source = a.as_str(args, "source", None)
    content_type = a.as_choice(args, "contentType", ("code", "prose"), None)
    sort = a.as_choice(args, "sort", ("relevance", "timeline"), "relevance")
    with state.knowledge() as kb:
        verdict = state.throttle.check(_throttle_key(state, kb, source, queries))
        if verdict.blocked:
            return Reply(
                f"Search blocked: {verdict.call_number - 1} searches in the last "
                f"{state.throttle.settings.window_s:.0f} s. Batch your questions into one "
                f"call's `queries`, or use ctx_batch_execute. Retry in "
                f"{verdict.retry_after_s:.0f} s.",
                is_error=True,
                saves_context=False,
            )
        per_query = 1 if verdict.reduced else limit
        if kb.chunk_count() == 0:
            return Reply(
                "The knowledge base is empty: index something first (ctx_index, "
                "ctx_batch_execute, ctx_fetch_and_index).",
                is_error=True,
                saves_context=False,
            )
        results = kb.search(
            queries,
            limit=per_query,
            source=source,
            content_type=content_type,
            snippet_chars=SNIPPET_CHARS,
        )
    if sort == "timeline":
        for result in results:
            result.hits.sort(key=lambda hit: hit.indexed_at, reverse=True)
    text = render_hits(results)
    if verdict.reduced:
        text += (
            f"\n\n(search {verdict.call_number}/{state.throttle.settings.block_after} in this "
            "window: 1 result per query; batch questions into one call)"
        )
    return Reply(text, saves_context=False)


# --- ctx_index --------------------------------------------------------------------------


def handle_index(state: ServerState, args: dict) -> Reply:
    content = a.as_str(args, "content", None)
    path = a.as_str(args, "path", None)
    source = a.as_str(args, "source", None)
    if content is None and path is None:
        raise a.ArgumentError("give 'content' or 'path'")
    with state.knowledge() as kb:
        if content is not None:
            result = kb.index_text(
                source or f"index:{int(time.time() * 1000)}",
                content,
                "markdown",
                redact=not explicit_redaction_off(),
            )
            return _indexed_reply(
                state, result.label, result.chunk_count, result.code_chunk_count, result.byte_count
            )
        target = os.path.realpath(os.path.join(state.project_root, os.path.expanduser(path)))
        _check_read_allowed(state, target)
        if os.path.isdir(target):
            outcome = kb.index_directory(
                target,
                label_prefix=source,
                include=a.as_str_list(args, "include", None),
                exclude=a.as_str_list(args, "exclude", None),
                max_depth=a.as_int(args, "maxDepth", 5, minimum=0),
                max_files=a.as_int(args, "maxFiles", 200, minimum=1),
                extensions=a.as_str_list(args, "extensions", None),
                respect_gitignore=a.as_bool(args, "respectGitignore", True),
                follow_symlinks=a.as_bool(args, "followSymlinks", False),
            )
            return Reply(
                _describe_directory(outcome, state.search_tool),
                bytes_indexed=outcome.byte_count,
                saves_context=False,
            )
        result = kb.index_file(target, label=source)
        return _indexed_reply(
            state, result.label, result.chunk_count, result.code_chunk_count, result.byte_count
        )


def _indexed_reply(state: ServerState, label: str, chunks: int, code: int, size: int) -> Reply:
    return Reply(
        f"Indexed {chunks} sections ({code} with code, {size:,} bytes) as source '{label}'. "
        f"Search it with {search_call(state.search_tool, label)}.",
        bytes_indexed=size,
        saves_context=False,
    )


def _describe_directory(outcome: DirectoryIndexResult, search_tool: str) -> str:
    from ctxmode.store.directory import replaced_lines, skipped_lines

    unchanged = f"; {outcome.unchanged} unchanged, skipped" if outcome.unchanged else ""
    lines = [
        f"Indexed {outcome.indexed} files ({outcome.chunk_count} sections, "
        f"{outcome.code_chunk_count} with code, {outcome.byte_count:,} bytes{unchanged}) "
        f"as sources '{outcome.labels_text}'."
    ]
    lines.extend(skipped_lines(outcome) + replaced_lines(outcome))
    if outcome.source_filter:
        lines.append(f"Search with {search_call(search_tool, outcome.source_filter)}.")
    else:
        lines.append(f"Search with {search_tool}(queries=[...]).")
    return "\n".join(lines)


def _check_read_allowed(state: ServerState, path: str) -> None:
    from ctxmode.policy.rules import evaluate_tool_call

    verdict = evaluate_tool_call("Read", {"file_path": path}, state.project_root)
    if verdict.action == "deny":
        raise a.ArgumentError(f"reading {path} is denied by {verdict.rule}")
    if verdict.action == "ask":  # an MCP tool cannot ask the user: the host's Read can
        raise a.ArgumentError(
            f"reading {path} requires the user's confirmation ({verdict.rule}) and ctx_index"
            " cannot ask; read it with your own file-reading tool, where the user is asked"
        )


# --- ctx_fetch_and_index ----------------------------------------------------------------

SINGLE_PREVIEW_CHARS = 3_072
BATCH_PREVIEW_CHARS = 384


def handle_fetch(state: ServerState, args: dict) -> Reply:
    from ctxmode.fetch import fetch_and_index
    from ctxmode.fetch.service import DEADLINE_S, MAX_CONCURRENCY

    requests = a.as_requests(args)
    concurrency = a.as_int(args, "concurrency", MAX_CONCURRENCY, minimum=1, maximum=8)
    force = a.as_bool(args, "force", False)
    ttl = a.as_int(args, "ttl", None, minimum=0)
    deadline_ms = a.as_int(args, "timeout", None, minimum=0) or DEADLINE_S * 1000
    with state.knowledge() as kb:
        outcomes = fetch_and_index(
            kb,
            requests,
            ttl_ms=ttl,
            force=force,
            concurrency=concurrency,
            deadline_s=deadline_ms / 1000,
        )
    fetched = sum(o.byte_count for o in outcomes if o.status == "new")
    if len(outcomes) == 1:
        text = _describe_fetch(outcomes[0], SINGLE_PREVIEW_CHARS)
    else:
        counts = {
            status: sum(o.status == status for o in outcomes)
            for status in ("new", "cache", "error")
        }
        head = (
            f"Fetched {len(outcomes)} URLs: {counts['new']} new, {counts['cache']} cached, "
            f"{counts['error']} failed."
        )
        text = "\n\n".join([head, *(_describe_fetch(o, BATCH_PREVIEW_CHARS) for o in outcomes)])
    labels = [o.label for o in outcomes if o.status != "error" and o.label]
    where = search_call(state.search_tool, labels[0] if len(labels) == 1 else "<label>")
    return Reply(
        text + f"\n\nSearch with {where}.",
        is_error=all(o.status == "error" for o in outcomes),
        bytes_processed=fetched,
        bytes_indexed=fetched,
        cache_hit=any(o.status == "cache" for o in outcomes),
    )


def _describe_fetch(outcome: FetchOutcome, preview_chars: int) -> str:
    if outcome.status == "error":
        return f"[error] {outcome.url}: {outcome.error}"
    if outcome.status == "cache":
        age = f"{outcome.age_s / 3600:.1f} h ago" if outcome.age_s is not None else "earlier"
        return (
            f"[cache] '{outcome.label}': {outcome.chunk_count} sections, fetched {age} "
            "(force=true to refetch)."
        )
    title = f' "{outcome.title}"' if outcome.title else ""
    lines = [
        f"[new] '{outcome.label}'{title}: {outcome.chunk_count} sections, "
        f"{outcome.byte_count / 1024:.1f} KB indexed."
    ]
    preview = (outcome.preview or "").strip()
    if preview:
        cut = preview[:preview_chars]
        lines.append(cut + ("…" if len(preview) > preview_chars else ""))
    return "\n".join(lines)
