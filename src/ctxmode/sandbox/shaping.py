"""Turning a run's output into a reply that fits a context window without hiding an error.

- Up to 5 KB: the output as it is (with exit code and stderr when the run failed).
- More, without an intent: the full text is indexed under a unique label and the
  reply keeps the head, the tail, every diagnostic line (bounded) and the last
  summary line, plus a pointer to the label.
- More, with an intent: the full text is indexed, and the reply gives the lines
  of the passages matching the intent, the label and a few searchable terms.

The store is reached only through the small `Knowledge` protocol passed in, so
this module does no I/O of its own; `StoreKnowledge` adapts the real store.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.budget import IndexGuard, call_cap
from ctxmode.sandbox.diagnostics import Diagnostics, clip_line
from ctxmode.sandbox.failures import ERROR, TEST, WARNING, Failure, mark_blocks
from ctxmode.sandbox.output import StreamOutput

INLINE_LIMIT = 5_000  # bytes of output returned as is
NOTICE_BYTES = 2_048  # a notice that replaces a shell tool's output (wrapper, plugin hosts)
REPLY_BUDGET = 4_900  # bytes the whole shaped reply stays under
SEARCH_LIMIT = 5
TERMS_LIMIT = 10
MAX_LINES_PER_PASSAGE = 4
CONTEXT_LINES = 2  # lines shown around each matching line


# ---------------------------------------------------------------- contracts


@dataclass(frozen=True)
class Passage:
    title: str
    snippet: str


class Knowledge(Protocol):
    """What shaping needs from the knowledge base."""

    def index(self, label: str, pieces: Iterable[str]) -> int:
        """Index the text arriving in `pieces` under `label`; return the number of chunks."""
        ...

    def search(self, query: str, label: str, limit: int) -> list[Passage]: ...

    def terms(self, label: str, limit: int) -> list[str]: ...


class RunOutput(Protocol):
    """What shaping reads from a run (`runner.ExecResult` provides it)."""

    language: str
    exit_code: int | None
    classification: str
    stdout: StreamOutput
    stderr: StreamOutput
    diagnostics: Diagnostics
    notes: list[str]
    error: str | None
    timeout_ms: int


@dataclass
class CommandRun:
    """A command's finished output in the `RunOutput` form: what a notice is shaped from."""

    exit_code: int | None
    classification: str
    stdout: StreamOutput
    stderr: StreamOutput
    diagnostics: Diagnostics
    notes: list[str] = field(default_factory=list)
    language: str = "shell"
    error: str | None = None
    timeout_ms: int = 0


@dataclass(frozen=True)
class ShapedReply:
    text: str
    is_error: bool
    label: str | None = None  # where the full output was indexed, if it was
    indexed_chunks: int = 0
    cut: bool = False  # whether the reply leaves part of the output out


class StoreKnowledge:
    """`Knowledge` over `ctxmode.store.knowledge.KnowledgeBase`."""

    def __init__(self, kb: Any) -> None:
        self.kb = kb

    def index(self, label: str, pieces: Iterable[str]) -> int:
        return int(self.kb.index_stream(label, pieces, fmt="plain").chunk_count)

    def search(self, query: str, label: str, limit: int) -> list[Passage]:
        results = self.kb.search([query], limit=limit, source=label)
        hits = results[0].hits if results else []
        return [Passage(hit.title or "", hit.snippet or "") for hit in hits]

    def terms(self, label: str, limit: int) -> list[str]:
        return list(self.kb.distinctive_terms(label, limit=limit))


def unique_label(kind: str) -> str:
    """A label never reused, e.g. `exec:python:20261130T110405-3f9a1c` (a rerun keeps the old)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return f"{kind}:{stamp}-{secrets.token_hex(3)}"


# ---------------------------------------------------------------- small text helpers


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def head_lines(text: str, max_bytes: int) -> str:
    """The leading whole lines of `text` within `max_bytes` (a long first line is clipped)."""
    if _size(text) <= max_bytes:
        return text
    cut = text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    newline = cut.rfind("\n")
    return cut[: newline + 1] if newline > 0 else cut


def tail_lines(text: str, max_bytes: int) -> str:
    """The trailing whole lines of `text` within `max_bytes`."""
    if _size(text) <= max_bytes:
        return text
    data = text.encode("utf-8")
    cut = data[len(data) - max_bytes :].decode("utf-8", errors="ignore")
    newline = cut.find("\n")
    return cut[newline + 1 :] if 0 <= newline < len(cut) - 1 else cut


def _stream_head(stream: StreamOutput) -> str:
    return stream.head


def _stream_tail(stream: StreamOutput) -> str:
    return stream.head if stream.complete else stream.tail


def _kb(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def _exit_text(run: RunOutput) -> str:
    if run.classification == kinds.BACKGROUNDED:
        return "still running"
    if run.classification in (kinds.TIMEOUT, kinds.TIMEOUT_PARTIAL):
        return f"timed out after {run.timeout_ms} ms"
    if run.exit_code is None:
        return "no exit code"
    return f"exit {run.exit_code}"


# ---------------------------------------------------------------- the three shapes


def shape_output(
    run: RunOutput,
    *,
    intent: str | None = None,
    label: str | None = None,
    knowledge: Knowledge | None = None,
    search_hint: str = 'search it with ctx_search(queries=["<what you need>"], source="{label}")',
    budget: int = REPLY_BUDGET,
    inline_limit: int = INLINE_LIMIT,
) -> ShapedReply:
    """The reply for `run`. Large output is indexed in `knowledge` under `label`.

    `label` defaults to a fresh `unique_label("exec:<language>")`. Never echoes the code.
    `budget` bounds a cut reply without an intent (bytes, give or take the fixed lines);
    output up to `inline_limit` bytes is returned whole.
    """
    is_error = kinds.is_error(run.classification)
    if run.error is not None:
        return ShapedReply(f"Runtime error: {run.error}", is_error=True)
    total = run.stdout.byte_count + run.stderr.byte_count
    if total <= inline_limit and run.stdout.complete and run.stderr.complete:
        return ShapedReply(_inline(run), is_error=is_error)
    label = label or unique_label(f"exec:{run.language}")
    chunks, problem = 0, ""
    # The spools count against the call's bound on the data root too.
    guard = IndexGuard(call_cap() - run.stdout.byte_count - run.stderr.byte_count)
    if knowledge is not None:
        try:
            chunks = knowledge.index(label, guard.pieces(indexable_pieces(run)))
        except Exception as exc:  # a store failure must not cost the model the output
            knowledge, problem = None, f"full output could not be indexed: {exc}"
    hint = search_hint.format(label=label) if knowledge is not None else problem
    if intent and intent.strip() and knowledge is not None:
        text = _intent_reply(run, intent.strip(), label, chunks, knowledge, hint)
    else:
        text = _cut_reply(run, label if knowledge is not None else None, chunks, hint, budget)
    if guard.stopped and knowledge is not None:
        text = _above_last_line(text, f"_({guard.note()})_")
    return ShapedReply(text, is_error=is_error, label=label if knowledge else None,
                       indexed_chunks=chunks, cut=True)  # fmt: skip


def _above_last_line(text: str, line: str) -> str:
    """`line` inserted before the last line of `text` (the search call stays last)."""
    body, newline, last = text.rstrip("\n").rpartition("\n")
    return f"{body}{newline}{line}\n{last}" if newline else f"{line}\n{last}"


def fit_notice(text: str, note: str = "") -> str:
    """`text` plus `note` within NOTICE_BYTES, its last line (the search call) and `note` whole."""
    body, _, last = text.rpartition("\n")
    tail = f"{note}\n{last}" if note else last
    whole = f"{body}\n{tail}" if body else tail
    if len(whole.encode("utf-8")) <= NOTICE_BYTES:
        return whole
    room = NOTICE_BYTES - len(tail.encode("utf-8")) - 20
    return head_lines(body, room).rstrip("\n") + "\n… (cut)\n" + tail


def _notes(run: RunOutput) -> str:
    return "".join(f"\n_({note})_" for note in run.notes)


def _inline(run: RunOutput) -> str:
    """Small output, whole. Failures get the exit code and both streams, labelled."""
    out, err = run.stdout.head, run.stderr.head
    if run.classification == kinds.TIMEOUT:
        body = f"Execution timed out after {run.timeout_ms} ms"
        body += f"\nstderr:\n{err.rstrip()}" if err.strip() else ""
        return body + _notes(run)
    if kinds.is_error(run.classification):
        body = f"Exit code: {run.exit_code}"
        body += f"\nstdout:\n{out.rstrip()}" if out.strip() else ""
        body += f"\nstderr:\n{err.rstrip()}" if err.strip() else ""
        return body + _notes(run)
    body = out.rstrip("\n")
    if err.strip():
        body += ("\n" if body else "") + f"stderr:\n{err.rstrip()}"
    if not body and not run.notes:
        body = f"(no output, {_exit_text(run)})"
    if run.classification == kinds.SOFT_FAILURE:
        body += f"\n_(exit {run.exit_code})_"
    return body + _notes(run)


def indexable_pieces(run: RunOutput) -> Iterator[str]:
    """The whole output in bounded pieces (stdout, then a marked stderr section) to index.

    Streamed from the spool files, so a 50 MB output is indexed in full without ever
    being held in memory: nothing the reply cuts is lost to a later search. Each failing
    test's block is marked off (`mark_blocks`), so it is one chunk: one search hit.
    """
    yield from mark_blocks(run.stdout.iter_text())
    if run.stderr.byte_count:
        yield "\n--- stderr ---\n"
        yield from mark_blocks(run.stderr.iter_text())


def _header(run: RunOutput, label: str | None, chunks: int) -> str:
    sizes = f"{_kb(run.stdout.byte_count)} stdout"
    if run.stderr.byte_count:
        sizes += f", {_kb(run.stderr.byte_count)} stderr"
    where = (
        f'full output indexed as "{label}" ({chunks} chunks)'
        if label
        else "full output not indexed (no knowledge base)"
    )
    return f"[{_exit_text(run)} · {run.classification} · {sizes} · {where}]"


def _shown_failures(run: RunOutput, block: str) -> tuple[str, ...]:
    """The ids and messages of the failures `block` shows (lines naming them add nothing)."""
    shown = [f for f in run.diagnostics.failures if f.test in block]
    return tuple(x for f in shown for x in (f.test.rsplit("::", 1)[-1], f.message) if x)


def _diagnostic_block(
    run: RunOutput, budget: int, visible: str, shown: tuple[str, ...] = ()
) -> str:
    """Diagnostic lines not already visible (nor about a failure `shown`), within `budget`."""
    lines = [
        line
        for line in run.diagnostics.lines
        if line.strip() and line not in visible and not any(part in line for part in shown)
    ]
    if not lines:
        return ""
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = _size(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    missing = len(lines) - len(kept) + run.diagnostics.omitted
    more = f"\n… {missing} more in the indexed output" if missing else ""
    return "--- errors and diagnostics ---\n" + "\n".join(kept) + more


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _failures_title(failures: tuple[Failure, ...], omitted: int) -> str:
    counts = {kind: sum(f.kind == kind for f in failures) for kind in (TEST, ERROR, WARNING)}
    counts[TEST if counts[TEST] else ERROR] += omitted
    parts = [_plural(counts[TEST], "failing test") if counts[TEST] else "",
             _plural(counts[ERROR], ERROR) if counts[ERROR] else "",
             _plural(counts[WARNING], WARNING) if counts[WARNING] else ""]  # fmt: skip
    return "--- " + ", ".join(p for p in parts if p) + " (each with its first error line) ---"


def failure_block(diagnostics: Diagnostics, budget: int) -> str:
    """Each failing test (or compiler problem) with its first error line, within `budget`
    bytes: those that do not fit with their message are named, the rest counted."""
    failures = diagnostics.failures
    if not failures:
        return ""
    title = _failures_title(failures, diagnostics.failures_omitted)
    reserve = 110  # the line counting what is not shown
    used = _size(title) + 1
    shown: list[str] = []
    for failure in failures:
        line = f"{failure.test}: {failure.message}" if failure.message else failure.test
        if used + _size(line) + 1 > budget - reserve:
            break
        shown.append(line)
        used += _size(line) + 1
    rest = failures[len(shown) :]
    names: list[str] = []
    for failure in rest:
        if used + _size(failure.test) + 2 > budget - reserve:
            break
        names.append(failure.test)
        used += _size(failure.test) + 2
    if names:
        shown.append("also: " + ", ".join(names))
    missing = len(rest) - len(names) + diagnostics.failures_omitted
    if missing:
        shown.append(f"… {missing} more not shown: each is one block of the indexed output")
    return "\n".join([title, *shown])


def _cut_reply(
    run: RunOutput, label: str | None, chunks: int, hint: str, budget: int = REPLY_BUDGET
) -> str:
    """Header, head, diagnostics, tail, the other stream's tail, summary, pointer."""
    header = _header(run, label, chunks)
    summary = run.diagnostics.summary or ""
    trailer = "\n".join(part for part in (_notes(run).strip(), hint) if part)
    fixed = _size(header) + _size(summary) + _size(trailer) + 200  # titles and separators
    room = max(budget - fixed, 600)
    failures = failure_block(run.diagnostics, room * 3 // 5)
    room = max(room - _size(failures), 300)
    main, other = (run.stdout, run.stderr) if not run.stdout.is_blank else (run.stderr, run.stdout)
    other_text = "" if other.is_blank else tail_lines(_stream_tail(other), room // 5)
    shown = _shown_failures(run, failures)
    diagnostics = _diagnostic_block(run, room * 2 // 5, other_text + summary, shown)
    left = room - _size(other_text) - _size(diagnostics)
    head_text = head_lines(_stream_head(main), left * 2 // 5)
    rest = _stream_tail(main) if not main.complete else main.head[len(head_text) :]
    tail_text = tail_lines(rest, left - _size(head_text))
    other_name = "stderr" if main is run.stdout else "stdout"
    parts = [
        header,
        failures,
        "--- first lines ---\n" + head_text.rstrip("\n"),
        diagnostics,
        ("--- last lines ---\n" + tail_text.rstrip("\n")) if tail_text.strip() else "",
        (f"--- {other_name} (last lines) ---\n" + other_text.rstrip("\n")) if other_text else "",
        ("--- summary ---\n" + summary) if summary and summary not in tail_text else "",
        trailer,
    ]
    return "\n".join(part for part in parts if part)


_WORD = re.compile(r"[^\W_]{2,}", re.UNICODE)


def _related(a: str, b: str) -> bool:
    """Same word up to an inflection ("error"/"errors", "fail"/"failed")."""
    short, long = sorted((a, b), key=len)
    return long.startswith(short) and (len(short) >= 4 or short == long)


def matching_lines(
    snippet: str, intent: str, limit: int = MAX_LINES_PER_PASSAGE, context: int = CONTEXT_LINES
) -> list[str]:
    """The lines of `snippet` matching the most words of `intent`, with `context` lines around.

    Neighbouring lines carry what a match means (the other fields of a matched record,
    the message under a matched timestamp); a gap between windows is marked with "…".
    A snippet without any matching line gives its first non-blank line.
    """
    wanted = {word.lower() for word in _WORD.findall(intent)}
    lines = [line for line in snippet.splitlines() if line.strip()]

    def score(line: str) -> int:
        words = {word.lower() for word in _WORD.findall(line)}
        return sum(1 for w in wanted if any(_related(w, word) for word in words))

    scored = [(score(line), index) for index, line in enumerate(lines)]
    best = sorted((item for item in scored if item[0] > 0), key=lambda item: (-item[0], item[1]))
    matched = sorted(index for _, index in best[:limit])
    if not matched:
        return [clip_line(line.strip(), 200) for line in lines[:1]]
    shown: set[int] = set()
    for index in matched:
        shown.update(range(max(0, index - context), min(len(lines), index + context + 1)))
    picked: list[str] = []
    previous = None
    for index in sorted(shown):
        if previous is not None and index != previous + 1:
            picked.append("…")
        picked.append(clip_line(lines[index].rstrip(), 200))
        previous = index
    return picked


def searchable_terms(terms: Iterable[str], limit: int = TERMS_LIMIT) -> list[str]:
    """Words worth searching for: no numbers, ids or hashes."""
    kept = []
    for term in terms:
        if (
            len(term) >= 4
            and re.fullmatch(r"[^\W\d_][\w.-]*", term)
            and not re.search(r"\d{3,}", term)
        ):
            kept.append(term)
        if len(kept) == limit:
            break
    return kept


def _intent_reply(
    run: RunOutput, intent: str, label: str, chunks: int, knowledge: Knowledge, hint: str
) -> str:
    header = _header(run, label, chunks)
    passages = knowledge.search(intent, label, SEARCH_LIMIT)
    blocks: list[str] = []
    seen: set[str] = set()
    for passage in passages:
        lines = [line for line in matching_lines(passage.snippet, intent) if line not in seen]
        seen.update(lines)
        if lines:
            title = clip_line(passage.title, 120)
            blocks.append((f"## {title}\n" if title else "") + "\n".join(lines))
    if blocks:
        found = f'{len(blocks)} passages match "{clip_line(intent, 120)}":\n' + "\n".join(blocks)
    else:
        found = f'No passage matched "{clip_line(intent, 120)}".'
    terms = searchable_terms(knowledge.terms(label, TERMS_LIMIT * 3))
    tail = [
        run.diagnostics.summary or "",
        _notes(run).strip(),
        ("Searchable terms: " + ", ".join(terms)) if terms else "",
        hint,
    ]
    fixed = _size(header) + sum(_size(part) + 1 for part in tail)
    room = max(REPLY_BUDGET - fixed, 800)
    failures = failure_block(run.diagnostics, room * 2 // 5)
    room = max(room - _size(failures), 500)
    found = head_lines(found, room * 60 // 100)
    shown = _shown_failures(run, failures)
    diagnostics = _diagnostic_block(run, room - _size(found) - 40, found, shown)
    if not blocks and not diagnostics:
        found += "\n--- last lines ---\n" + tail_lines(_stream_tail(run.stdout), room // 3)
    return "\n".join(part for part in [header, failures, found, diagnostics, *tail] if part)
