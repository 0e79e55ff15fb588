"""One function per MCP tool: coerce arguments, call the core, render compact text.

Every handler takes the server's `ServerState` and the raw argument dict and
returns a `Reply`. Handlers run in worker threads and open their own database
connections (a `sqlite3.Connection` never crosses threads).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from ctxmode import __version__, project, schema, stats
from ctxmode.server import arguments as a
from ctxmode.server.throttle import SearchThrottle
from ctxmode.store.knowledge import KnowledgeBase, StoreInputError

SEARCH_REPLY_CAP = 40_000
SNIPPET_CHARS = 1_500


DEFAULT_RETENTION_DAYS = 14.0


def retention_days() -> float:
    """`CTXMODE_RETENTION_DAYS` (how long an unused source is kept), else 14."""
    raw = os.environ.get("CTXMODE_RETENTION_DAYS", "").strip()
    try:
        value = float(raw) if raw else DEFAULT_RETENTION_DAYS
    except ValueError:
        return DEFAULT_RETENTION_DAYS
    return value if value > 0 else DEFAULT_RETENTION_DAYS


@dataclass
class Reply:
    text: str
    is_error: bool = False
    bytes_processed: int = 0  # raw bytes the tool handled for the model
    bytes_indexed: int = 0
    saves_context: bool = True  # False when the model would never have read the input raw
    cache_hit: bool = False


@dataclass
class ServerState:
    project_root: str
    session_key: str
    throttle: SearchThrottle = field(default_factory=SearchThrottle)
    started_at: float = field(default_factory=time.time)

    @classmethod
    def create(cls, project_dir: str | None = None) -> ServerState:
        root = project.resolve_project_root(project_dir)
        return cls(project_root=root, session_key=f"mcp-{os.getpid()}-{int(time.time())}")

    @contextlib.contextmanager
    def database(self) -> Iterator[sqlite3.Connection]:
        conn = schema.open_project_db(self.project_root)
        try:
            yield conn
        finally:
            conn.close()

    @contextlib.contextmanager
    def knowledge(self) -> Iterator[KnowledgeBase]:
        with self.database() as conn:
            yield KnowledgeBase(conn)

    def record_call(self, tool: str, reply: Reply, seconds: float) -> None:
        call = stats.ToolCall(
            tool=tool,
            bytes_processed=reply.bytes_processed,
            bytes_returned=len(reply.text.encode("utf-8", "replace")),
            bytes_indexed=reply.bytes_indexed,
            saves_context=reply.saves_context,
            cache_hit=reply.cache_hit,
            is_error=reply.is_error,
            session_key=self.session_key,
        )
        with contextlib.suppress(Exception), self.database() as conn:
            stats.record(conn, call)

    def announce(self) -> None:
        from ctxmode.hooks import mcp_ready

        with contextlib.suppress(Exception):
            mcp_ready.announce_server()

    def withdraw(self) -> None:
        from ctxmode.hooks import mcp_ready

        with contextlib.suppress(Exception):
            mcp_ready.withdraw_server()

    def prune_idle_sources(self) -> int:
        """Drop knowledge-base sources unused (not indexed, not found) for the retention period."""
        days = retention_days()
        with self.knowledge() as kb:
            return kb.prune(days)

    def resolve_dir(self, cwd: str | None) -> str:
        if not cwd:
            return self.project_root
        path = os.path.realpath(os.path.join(self.project_root, os.path.expanduser(cwd)))
        if not os.path.isdir(path):
            raise a.ArgumentError(f"cwd '{cwd}' is not a directory")
        return path


def _stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M")


# --- ctx_execute / ctx_execute_file / ctx_batch_execute -----------------------------------


class ByteCounter:
    """Pass text pieces through, counting their UTF-8 bytes and lines on the way."""

    def __init__(self, pieces: Iterable[str]) -> None:
        self._pieces = pieces
        self.byte_count = 0
        self.line_count = 0

    def __iter__(self) -> Iterator[str]:
        for piece in self._pieces:
            self.byte_count += len(piece.encode("utf-8", "replace"))
            self.line_count += piece.count("\n")
            yield piece


class LazyKnowledge:
    """The sandbox's `Knowledge`, opening the project database only if output must be indexed."""

    def __init__(self, state: ServerState) -> None:
        self._state = state
        self._stack = contextlib.ExitStack()
        self._inner = None
        self.indexed_bytes = 0

    def _store(self):
        if self._inner is None:
            from ctxmode.sandbox import StoreKnowledge

            self._inner = StoreKnowledge(self._stack.enter_context(self._state.knowledge()))
        return self._inner

    def index(self, label: str, pieces: Iterable[str]) -> int:
        counted = ByteCounter(pieces)
        chunks = self._store().index(label, counted)
        self.indexed_bytes += counted.byte_count
        return chunks

    def search(self, query: str, label: str, limit: int):
        return self._store().search(query, label, limit)

    def terms(self, label: str, limit: int) -> list[str]:
        return self._store().terms(label, limit)

    def close(self) -> None:
        self._stack.close()


def _policy_refusal(state: ServerState, tool: str, tool_input: dict) -> Reply | None:
    from ctxmode.policy.permissions import evaluate_tool_call

    verdict = evaluate_tool_call(tool, tool_input, state.project_root)
    if verdict.action == "deny":
        return Reply(f"Blocked by permission rule {verdict.rule}: {verdict.reason}", is_error=True)
    return None


def _shaped_reply(state: ServerState, run, intent: str | None, kind: str) -> Reply:
    from ctxmode.sandbox import shape_output, unique_label

    knowledge = LazyKnowledge(state)
    try:
        shaped = shape_output(run, intent=intent, label=unique_label(kind), knowledge=knowledge)
    finally:
        knowledge.close()
        run.close()
    return Reply(
        shaped.text,
        is_error=shaped.is_error,
        bytes_processed=run.total_bytes,
        bytes_indexed=knowledge.indexed_bytes,
    )


BATCH_INLINE_LIMIT = 5_000  # bytes of output shown as is instead of searched
BATCH_ANSWER_BUDGET = 4_000  # chars shared by all query answers: the reply stays small


def _timeout_ms(args: dict) -> int | None:
    """`timeout` in ms; 0 (what models send for "default") means the default."""
    return a.as_int(args, "timeout", None, minimum=0) or None


def _language(args: dict) -> str:
    from ctxmode.server.tools import LANGUAGES

    return a.as_choice(args, "language", LANGUAGES)


def handle_execute(state: ServerState, args: dict) -> Reply:
    from ctxmode.sandbox import run_code

    language = _language(args)
    code = a.as_str(args, "code")
    refusal = _policy_refusal(state, "ctx_execute", {"language": language, "code": code})
    if refusal:
        return refusal
    run = run_code(
        language,
        code,
        cwd=state.resolve_dir(a.as_str(args, "cwd", None)),
        timeout_ms=_timeout_ms(args),
        background=a.as_bool(args, "background", False),
    )
    return _shaped_reply(state, run, a.as_str(args, "intent", None), f"exec:{language}")


def handle_execute_file(state: ServerState, args: dict) -> Reply:
    from ctxmode.policy.permissions import is_read_allowed_outside_project, load_rules
    from ctxmode.sandbox import FileAccessError, run_file

    path = a.as_str(args, "path")
    language = _language(args)
    code = a.as_str(args, "code")
    refusal = _policy_refusal(
        state, "ctx_execute_file", {"path": path, "language": language, "code": code}
    )
    if refusal:
        return refusal
    rules = load_rules(state.project_root)
    try:
        run = run_file(
            path,
            language,
            code,
            project_root=state.project_root,
            timeout_ms=_timeout_ms(args),
            allow_outside=lambda resolved: is_read_allowed_outside_project(resolved, rules),
        )
    except FileAccessError as exc:
        return Reply(str(exc), is_error=True)
    return _shaped_reply(
        state, run, a.as_str(args, "intent", None), f"file:{os.path.basename(path)}"
    )


def handle_batch(state: ServerState, args: dict) -> Reply:
    from ctxmode.sandbox import run_batch, unique_label

    commands = a.as_commands(args)
    queries = a.as_str_list(args, "queries", None) or []
    scope = a.as_choice(args, "query_scope", ("batch", "global"), "batch")
    refusal = _policy_refusal(
        state,
        "ctx_batch_execute",
        {"commands": [{"label": name, "command": cmd} for name, cmd in commands]},
    )
    if refusal:
        return refusal
    with (
        run_batch(
            commands,
            cwd=state.resolve_dir(a.as_str(args, "cwd", None)),
            timeout_ms=_timeout_ms(args),
            concurrency=a.as_int(args, "concurrency", 1, minimum=1, maximum=8),
        ) as batch,
        state.knowledge() as kb,
    ):
        sections = batch.sections
        label = unique_label("batch:" + ",".join(section.label for section in sections)[:60])
        output = ByteCounter(batch.iter_text())
        try:
            indexed_bytes = kb.index_stream(label, output, "markdown").byte_count
            where = f"Indexed as '{label}'."
        except StoreInputError as exc:  # e.g. every command was silent
            indexed_bytes, where = 0, f"Nothing indexed ({exc})."
        lines = [
            f"Executed {len(sections)} commands ({output.line_count:,} lines, "
            f"{output.byte_count / 1024:.1f} KB) in {batch.duration_ms} ms. {where}"
        ]
        for section in sections:
            note = f" — {section.note}" if section.note else ""
            lines.append(f"- {section.label}: {section.byte_count / 1024:.1f} KB{note}")
        inline = output.byte_count <= BATCH_INLINE_LIMIT
        if inline:
            lines.extend(["", batch.text().rstrip()])
        if queries and not (inline and scope == "batch"):
            results = kb.search(
                queries,
                limit=3,
                source=label if scope == "batch" else None,
                snippet_chars=max(400, min(1_500, BATCH_ANSWER_BUDGET // (2 * len(queries)))),
            )
            lines.extend(["", render_hits(results, reply_cap=BATCH_ANSWER_BUDGET)])
        terms = [] if inline else kb.distinctive_terms(label, limit=20)
        failed = all(section.result is None or section.result.is_error for section in sections)
    if terms:
        lines.append("\nSearchable terms for follow-up: " + ", ".join(terms))
    lines.append(f"Follow up with ctx_search(queries=[...], source='{label}').")
    return Reply(
        "\n".join(lines),
        is_error=failed,
        bytes_processed=output.byte_count,
        bytes_indexed=indexed_bytes,
    )


# --- ctx_search -------------------------------------------------------------------------


def render_hits(results, reply_cap: int = SEARCH_REPLY_CAP) -> str:
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
    verdict = state.throttle.check(state.session_key)
    if verdict.blocked:
        return Reply(
            f"Search blocked: {verdict.call_number - 1} searches in the last "
            f"{state.throttle.settings.window_s:.0f} s. Batch your questions into one call's "
            f"`queries`, or use ctx_batch_execute. Retry in {verdict.retry_after_s:.0f} s.",
            is_error=True,
            saves_context=False,
        )
    per_query = 1 if verdict.reduced else limit
    with state.knowledge() as kb:
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
                source or f"index:{int(time.time() * 1000)}", content, "markdown"
            )
            return _indexed_reply(
                result.label, result.chunk_count, result.code_chunk_count, result.byte_count
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
                _describe_directory(outcome),
                bytes_indexed=getattr(outcome, "byte_count", 0),
                saves_context=False,
            )
        result = kb.index_file(target, label=source)
        return _indexed_reply(
            result.label, result.chunk_count, result.code_chunk_count, result.byte_count
        )


def _indexed_reply(label: str, chunks: int, code: int, size: int) -> Reply:
    return Reply(
        f"Indexed {chunks} sections ({code} with code, {size:,} bytes) as source '{label}'. "
        f"Search it with ctx_search(queries=[...], source='{label}').",
        bytes_indexed=size,
        saves_context=False,
    )


def _describe_directory(outcome) -> str:
    fields = []
    for name in ("indexed", "chunk_count", "skipped_binary", "failed", "denied"):
        value = getattr(outcome, name, None)
        if value:
            fields.append(f"{name.replace('_', ' ')}: {value}")
    if getattr(outcome, "capped", False):
        fields.append("file cap reached (raise maxFiles)")
    prefix = getattr(outcome, "label_prefix", "")
    return f"Indexed directory as '{prefix}:<file>'. " + ", ".join(fields)


def _check_read_allowed(state: ServerState, path: str) -> None:
    from ctxmode.policy.permissions import evaluate_tool_call

    verdict = evaluate_tool_call("Read", {"file_path": path}, state.project_root)
    if verdict.action == "deny":
        raise a.ArgumentError(f"reading {path} is denied by {verdict.rule}")


# --- ctx_fetch_and_index ----------------------------------------------------------------

SINGLE_PREVIEW_CHARS = 3_072
BATCH_PREVIEW_CHARS = 384


def handle_fetch(state: ServerState, args: dict) -> Reply:
    from ctxmode.fetch import fetch_and_index

    requests = a.as_requests(args)
    concurrency = a.as_int(args, "concurrency", 1, minimum=1, maximum=8)
    force = a.as_bool(args, "force", False)
    ttl = a.as_int(args, "ttl", None, minimum=0)
    with state.knowledge() as kb:
        outcomes = fetch_and_index(kb, requests, ttl_ms=ttl, force=force, concurrency=concurrency)
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
    return Reply(
        text + "\n\nSearch with ctx_search(queries=[...], source=<label>).",
        is_error=all(o.status == "error" for o in outcomes),
        bytes_processed=fetched,
        bytes_indexed=fetched,
        cache_hit=any(o.status == "cache" for o in outcomes),
    )


def _describe_fetch(outcome, preview_chars: int) -> str:
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


# --- ctx_stats / ctx_doctor / ctx_upgrade / ctx_purge / ctx_insight ----------------------


def handle_stats(state: ServerState, args: dict) -> Reply:
    with state.database() as conn:
        session_rows = stats.totals(conn, session_key=state.session_key)
        project_rows = stats.totals(conn)
    text = (
        stats.render_report(session_rows, "This session")
        + "\n\n"
        + stats.render_report(project_rows, "This project, all sessions")
    )
    return Reply(text, saves_context=False)


def handle_doctor(state: ServerState, args: dict) -> Reply:
    from ctxmode import doctor

    return Reply(doctor.render(doctor.run_checks(state.project_root)), saves_context=False)


def handle_upgrade(state: ServerState, args: dict) -> Reply:
    from ctxmode import doctor

    command = doctor.upgrade_command()
    return Reply(
        f"ctxmode {__version__}. To upgrade this installation run:\n\n    {command}\n\n"
        "then restart the host so it starts the new server.",
        saves_context=False,
    )


def handle_purge(state: ServerState, args: dict) -> Reply:
    confirm = a.as_bool(args, "confirm")
    session_id = a.as_str(args, "sessionId", None)
    scope = a.as_choice(
        args, "scope", ("session", "project"), "session" if session_id else "project"
    )
    if not confirm:
        return Reply(
            "Purge cancelled (confirm is false); nothing was deleted.", saves_context=False
        )
    if scope == "session":
        if not session_id:
            raise a.ArgumentError("scope 'session' needs 'sessionId'")
        with state.database() as conn:
            removed = purge_session(conn, session_id)
        return Reply(f"Purged session {session_id}: {removed} rows removed.", saves_context=False)
    if session_id:
        raise a.ArgumentError("ambiguous: 'sessionId' given with scope 'project'; drop one")
    with state.knowledge() as kb:
        sources = kb.purge()
        removed = purge_project_rows(kb_connection(kb))
    return Reply(
        f"Purged the project's knowledge base ({sources} sources) and {removed} session, "
        "event and statistics rows.",
        saves_context=False,
    )


def kb_connection(kb: KnowledgeBase) -> sqlite3.Connection:
    return kb.conn


def purge_session(conn: sqlite3.Connection, session_id: str) -> int:
    from ctxmode.session import purge_rows

    return purge_rows(conn, session_id)


def purge_project_rows(conn: sqlite3.Connection) -> int:
    from ctxmode import db
    from ctxmode.session import purge_rows

    removed = purge_rows(conn, None)
    with db.write_transaction(conn):
        removed += conn.execute("DELETE FROM tool_calls").rowcount
    return removed


def handle_insight(state: ServerState, args: dict) -> Reply:
    with state.knowledge() as kb:
        sources = kb.sources()
        with state.database() as conn:
            rows = stats.totals(conn)
    size = sum(s.byte_count for s in sources)
    lines = [
        f"Project: {state.project_root}",
        f"Knowledge base: {len(sources)} sources, {sum(s.chunk_count for s in sources)} sections, "
        f"{size / 1024:.1f} KB indexed.",
    ]
    for source in sorted(sources, key=lambda s: s.byte_count, reverse=True)[:8]:
        lines.append(
            f"  {source.label}: {source.chunk_count} sections, {source.byte_count / 1024:.1f} KB"
        )
    kept = sum(r.bytes_kept_out for r in rows)
    lines.append(
        f"Tool calls: {sum(r.calls for r in rows)}; kept out of context: {kept / 1024:.1f} KB "
        f"(~{kept // 4:,} tokens)."
    )
    lines.append(f"Server: ctxmode {__version__} on Python {sys.version.split()[0]}.")
    return Reply("\n".join(lines), saves_context=False)


HANDLERS: dict[str, Callable[[ServerState, dict], Reply]] = {
    "ctx_execute": handle_execute,
    "ctx_execute_file": handle_execute_file,
    "ctx_batch_execute": handle_batch,
    "ctx_search": handle_search,
    "ctx_index": handle_index,
    "ctx_fetch_and_index": handle_fetch,
    "ctx_stats": handle_stats,
    "ctx_doctor": handle_doctor,
    "ctx_upgrade": handle_upgrade,
    "ctx_purge": handle_purge,
    "ctx_insight": handle_insight,
}
