"""The execution tools: ctx_execute, ctx_execute_file and ctx_batch_execute.

Code runs through `ctxmode.sandbox`; output is shaped for context there, and whatever
the reply leaves out is indexed in the knowledge base under a unique label.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator

from ctxmode.server import arguments as a
from ctxmode.server.knowledge_tools import render_hits
from ctxmode.server.state import Reply, ServerState
from ctxmode.store.knowledge import StoreInputError
from ctxmode.vocab.toolnames import search_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.sandbox.runner import ExecResult
    from ctxmode.sandbox.shaping import Passage, StoreKnowledge

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
        self._inner: StoreKnowledge | None = None
        self.indexed_bytes = 0

    def _store(self) -> StoreKnowledge:
        if self._inner is None:
            from ctxmode.sandbox import StoreKnowledge

            self._inner = StoreKnowledge(self._stack.enter_context(self._state.knowledge()))
        return self._inner

    def index(self, label: str, pieces: Iterable[str]) -> int:
        counted = ByteCounter(pieces)
        chunks = self._store().index(label, counted)
        self.indexed_bytes += counted.byte_count
        return chunks

    def search(self, query: str, label: str, limit: int) -> list[Passage]:
        return self._store().search(query, label, limit)

    def terms(self, label: str, limit: int) -> list[str]:
        return self._store().terms(label, limit)

    def close(self) -> None:
        self._stack.close()


def _policy_refusal(state: ServerState, tool: str, tool_input: dict) -> Reply | None:
    from ctxmode.policy.rules import evaluate_tool_call

    verdict = evaluate_tool_call(tool, tool_input, state.project_root)
    if verdict.action == "deny":
        return Reply(f"Blocked by permission rule {verdict.rule}: {verdict.reason}", is_error=True)
    if verdict.action == "ask":  # an MCP tool cannot ask the user: the host's shell can
        return Reply(
            f"Not run: the user's permission rules require confirmation. {verdict.reason}"
            f" {tool} cannot ask the user. Run this command with your own shell tool instead"
            " (not through ctxmode), where the user is asked to confirm it.",
            is_error=True,
        )
    return None


def _shaped_reply(state: ServerState, run: ExecResult, intent: str | None, kind: str) -> Reply:
    from ctxmode.sandbox import shape_output, unique_label

    knowledge = LazyKnowledge(state)
    try:
        shaped = shape_output(
            run,
            intent=intent,
            label=unique_label(kind),
            knowledge=knowledge,
            search_hint="search it with " + search_call(state.search_tool, "{label}"),
        )
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
    from ctxmode.policy.permissions import is_read_allowed_outside_project
    from ctxmode.policy.rules import load_rules, rules_root
    from ctxmode.sandbox import run_file

    path = a.as_str(args, "path")
    language = _language(args)
    code = a.as_str(args, "code")
    refusal = _policy_refusal(
        state, "ctx_execute_file", {"path": path, "language": language, "code": code}
    )
    if refusal:
        return refusal
    rules = load_rules(rules_root(state.project_root))
    run = run_file(
        path,
        language,
        code,
        project_root=state.project_root,
        timeout_ms=_timeout_ms(args),
        allow_outside=lambda resolved: is_read_allowed_outside_project(resolved, rules),
    )
    return _shaped_reply(
        state, run, a.as_str(args, "intent", None), f"file:{os.path.basename(path)}"
    )


def handle_batch(state: ServerState, args: dict) -> Reply:
    from ctxmode.sandbox import run_batch, unique_label
    from ctxmode.sandbox.budget import IndexGuard, call_cap, database_path

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
        guard = IndexGuard(call_cap() - batch.total_bytes, database_path(kb.conn))
        output = ByteCounter(batch.iter_text())
        try:
            indexed_bytes = kb.index_stream(label, guard.pieces(output), "markdown").byte_count
            where = f"Indexed as '{label}'."
        except StoreInputError as exc:  # e.g. every command was silent
            indexed_bytes, where = 0, f"Nothing indexed ({exc})."
        if guard.stopped:
            where += f" ({guard.note()}.)"
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
    lines.append(f"Follow up with {search_call(state.search_tool, label)}.")
    return Reply(
        "\n".join(lines),
        is_error=failed,
        bytes_processed=output.byte_count,
        bytes_indexed=indexed_bytes,
    )
