"""Tier 2 for hosts that can replace a tool's result: index it in full, show a bounded notice.

The host already ran the tool; what it would show the model is `ToolResult.text`. When a
host kept only part of a stream and spilled the whole of it to a file
(`ToolResult.full_stdout_path`), the file is what gets indexed, so every line of the cut
output is findable with one `ctx_search`. The notice is the one `ctxmode wrap` prints too
(`ctxmode.sandbox.indexed_notice`), plus what the host had already lost.
A content search's result (`ToolResult.matches`) is indexed as one `path:line: text` row
per match, each row findable with its file, and its notice counts the matches per file
instead: there, lines saying "error" are what was searched for, not failures.
A big read's notice (`cut_read`) names the file, indexed whole from disk under its path.
Off the fast path: imported only when a result is over the limit.
"""

from __future__ import annotations

from collections.abc import Iterator

from ctxmode import paths
from ctxmode.hooks.plugin_rules import ToolResult
from ctxmode.sandbox import classify as kinds
from ctxmode.sandbox.diagnostics import DiagnosticCollector
from ctxmode.sandbox.indexed_notice import (
    IndexingFailed,
    index_with_notice,
    notice_label,
    project_knowledge,
)
from ctxmode.sandbox.output import Spool, StreamOutput, summarize_spool
from ctxmode.sandbox.shaping import (
    NOTICE_BYTES,
    CommandRun,
    StoreKnowledge,
    fit_notice,
    head_lines,
)
from ctxmode.vocab.event import Decision, HookEvent
from ctxmode.vocab.toolnames import search_call


def _text_stream(text: str, collector: DiagnosticCollector) -> StreamOutput:
    collector.feed(text)
    return StreamOutput(byte_count=len(text.encode("utf-8", "surrogatepass")), head=text)


def lost_note(result: ToolResult, spool: Spool | None) -> str:
    """What the notice must admit when the host cut the output and its whole is not at hand."""
    if not result.host_cut or spool is not None:
        return ""
    kept = len(result.text.encode("utf-8", "surrogatepass"))
    where = " and kept no full copy"
    if result.full_stdout_path:
        where = f" and its full copy ({result.full_stdout_path}) could not be read"
    return (
        f"Incomplete: the host had already cut this output before ctxmode saw it{where}; "
        f"only the {kept:,} bytes it kept are indexed, the rest is lost."
    )


def _run(result: ToolResult) -> tuple[CommandRun, Spool | None]:
    """Read the output once: heads, tails and error lines of the full stdout and the rest."""
    collector = DiagnosticCollector()
    spool = None
    if result.full_stdout_path:
        try:
            spool = Spool.existing(result.full_stdout_path)
        except (OSError, ValueError) as error:
            paths.append_log("hook-errors.log", f"cannot read spilled output: {error!r}")
    if spool is not None:
        stdout = summarize_spool(spool, collector)
        stderr = _text_stream(result.after_stdout, collector)
    else:
        stdout = _text_stream(result.text, collector)
        stderr = _text_stream("", collector)
    code = 0 if result.exit_code is None else result.exit_code
    outcome = kinds.Outcome("shell", code, stdout_blank=stdout.is_blank)
    run = CommandRun(code, kinds.classify(outcome), stdout, stderr, collector.result())
    return run, spool


def cut(
    event: HookEvent, result: ToolResult, prefix: str, tool_name: str, *, note: str = ""
) -> Decision | None:
    """Index the whole output under a fresh label and answer a replace-output notice.

    None (the result passes through untouched) when the output could not be indexed:
    nothing may be cut that cannot be found again.
    """
    label = _label(tool_name)
    run, spool = _run(result)
    note = "\n".join(part for part in (lost_note(result, spool), note) if part)
    try:
        notice = index_with_notice(
            run, label=label, prefix=prefix, project_dir=event.project_dir, note=note
        )
    except IndexingFailed as error:
        paths.append_log("hook-errors.log", f"cut output not indexed: {error}")
        return None
    finally:
        if spool is not None:
            spool.close()
    meta = {"label": label, "bytes": run.stdout.byte_count + run.stderr.byte_count}
    return Decision("replace_output", context=notice, meta=meta)


def cut_read(event: HookEvent, result: ToolResult, prefix: str, tool_name: str) -> Decision | None:
    """A big read's notice: the file indexed whole from disk under its path (as `ctx_index`
    names it), also the lines the host's read left out (OpenCode's, DSH's and OpenClaw's
    read show a window of the first lines), the start of what the host showed, the search.

    None when the read names no regular file within the project, or it was not indexed.
    """
    from ctxmode.hooks import bigread, guidance

    path = bigread.read_path(event.tool_input)
    found = bigread.project_file(path, event.project_dir)
    if found is None:
        return None
    real, root, size = found
    label = bigread.file_label(real, root)
    if not bigread.index_file(real, root, label, size):
        return None
    shown = len(result.text.encode("utf-8", "surrogatepass"))
    header = f'[{tool_name} · {size:,} bytes on disk · {shown:,} bytes in this result · indexed as "{label}"]'
    guide = guidance.cut_read(prefix, path, size, label)
    room = NOTICE_BYTES - len(header.encode()) - len(guide.encode("utf-8")) - 2
    head = head_lines(result.text, max(room, 0)).rstrip("\n")
    text = "\n".join(part for part in (header, head, guide) if part)
    return Decision("replace_output", context=text, meta={"label": label, "bytes": shown})


def _label(tool_name: str) -> str:
    return notice_label("tool", tool_name, "tool")


MATCH_ROW_CHARS = 240  # a match row shown in a notice (the index keeps it whole)


def _rows(matches: list[tuple[str, int, str]]) -> Iterator[str]:
    """`path:line: text` rows, a few hundred per piece (a piece is indexed at a time)."""
    batch: list[str] = []
    for path, number, line in matches:
        batch.append(f"{path}:{number}: {line}\n")
        if len(batch) == 500:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def _per_file(matches: list[tuple[str, int, str]], budget: int) -> str:
    """`path (count)` lines, most matches first, within `budget` bytes."""
    counts: dict[str, int] = {}
    for path, _, _ in matches:
        counts[path] = counts.get(path, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: -item[1])  # stable: first seen wins ties
    lines = [f"{path} ({count})" for path, count in ranked]
    shown = head_lines("\n".join(lines), budget).rstrip("\n").splitlines()
    more = len(lines) - len(shown)
    return "\n".join(shown) + (f"\n… {more} more files" if more else "")


def cut_matches(
    event: HookEvent, result: ToolResult, prefix: str, tool_name: str
) -> Decision | None:
    """A content search's notice: count, matches per file, the first matches, the search.

    Every match is indexed, also those the host itself left out of what it showed.
    None (the result passes through untouched) when the matches could not be indexed.
    """
    matches = result.matches
    label = _label(tool_name)
    try:
        with project_knowledge(event.project_dir) as kb:
            chunks = StoreKnowledge(kb).index(label, _rows(matches))
    except Exception as error:  # nothing may be cut that cannot be found again
        paths.append_log("hook-errors.log", f"matches not indexed: {error!r}")
        return None
    files = len({path for path, _, _ in matches})
    size = len(result.text.encode("utf-8", "surrogatepass"))
    header = (
        f"[{tool_name} · {len(matches):,} matches in {files:,} files · {size:,} bytes shown "
        f'natively · every match indexed as "{label}" ({chunks} chunks)]'
    )
    search = "Every match is searchable: " + search_call(prefix + "ctx_search", label)
    room = NOTICE_BYTES - len(header.encode()) - len(search.encode()) - 80
    per_file = _per_file(matches, room * 3 // 5)
    first = [row[:MATCH_ROW_CHARS] for row in "".join(_rows(matches[:20])).splitlines()]
    first_text = head_lines("\n".join(first), room - len(per_file.encode())).rstrip("\n")
    text = "\n".join([header, "--- matches per file ---", per_file, "--- first matches ---",
                      first_text, search])  # fmt: skip
    meta = {"label": label, "bytes": size}
    return Decision("replace_output", context=fit_notice(text), meta=meta)
