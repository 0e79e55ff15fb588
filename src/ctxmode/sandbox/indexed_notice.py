"""A bulky output indexed whole in its project's knowledge base, and the notice in its place.

The one way both Tier 2 (`ctxmode.hooks.cut_output`, a tool's result replaced after it
ran) and `ctxmode wrap` (`ctxmode.wrapper.notice`, a command's output printed) keep a big
output out of the context: a fresh label naming what ran, the sandbox's shaping of the
output within NOTICE_BYTES (exit code, sizes, head, error lines, tail, summary line), and
as its last line the exact search call in the host's naming. Off the hook's fast path.
"""

from __future__ import annotations

from ctxmode.errors import CtxmodeError
from ctxmode.sandbox.shaping import (
    INLINE_LIMIT,
    NOTICE_BYTES,
    RunOutput,
    StoreKnowledge,
    fit_notice,
    shape_output,
    unique_label,
)
from ctxmode.vocab.toolnames import search_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxmode.store.knowledge import KnowledgeBase


class IndexingFailed(CtxmodeError):
    """The knowledge base did not take the output (then nothing may be cut)."""


def notice_label(kind: str, name: str, fallback: str) -> str:
    """A fresh label `kind:name:stamp`, `name` reduced to 40 safe characters (else `fallback`)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40]
    return unique_label(f"{kind}:{safe or fallback}")


def project_knowledge(project_dir: str) -> KnowledgeBase:
    """The knowledge base of the project `project_dir` is in, opened (a context manager)."""
    from ctxmode.storage import project
    from ctxmode.store.knowledge import KnowledgeBase

    return KnowledgeBase.open(project.resolve_project_root(project_dir or None))


def index_with_notice(
    run: RunOutput,
    *,
    label: str,
    prefix: str,
    project_dir: str,
    note: str = "",
    inline_limit: int = INLINE_LIMIT,
) -> str:
    """Index `run`'s whole output under `label` in `project_dir`'s knowledge base; return
    its notice, `note` kept whole above the search call (`prefix`: the host's naming of our
    tools). Raises `IndexingFailed` when the output was not indexed."""
    search = search_call(prefix + "ctx_search", label)
    with project_knowledge(project_dir) as kb:
        reply = shape_output(
            run,
            label=label,
            knowledge=StoreKnowledge(kb),
            search_hint=f"The whole output is searchable: {search}",
            budget=NOTICE_BYTES - len(note.encode("utf-8")),
            inline_limit=inline_limit,
        )
    if reply.label is None:
        raise IndexingFailed(reply.text.rstrip("\n").rsplit("\n", 1)[-1][-300:])
    return fit_notice(reply.text, note)
