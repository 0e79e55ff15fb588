"""Which session a command acts on, where its workspace is, and its context block.

This is the one place that combines the config, the naming rule and the store;
the commands stay thin.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ctxmode import settings as ctx_settings
from ctxmode.session.memory import naming
from ctxmode.session.memory.block import BlockInput, build_block
from ctxmode.session.memory.config import MemoryConfig, Scope
from ctxmode.session.memory.guard import GuardResult, check_workspace, is_inside
from ctxmode.session.memory.model import Session
from ctxmode.session.memory.store import MemoryStore

# Loading more entries than fit would be wasted: a folded line is at least this long.
_MIN_FOLDED_CHARS = 16


@dataclass(frozen=True)
class Target:
    name: str
    workspace: str  # the bound workspace, or the one a new session will get
    session: Session | None  # None: not created yet
    settings: Scope  # window and max_chars

    def guard(self, cwd: str) -> GuardResult:
        return check_workspace(cwd, self.workspace)


def resolve_target(
    store: MemoryStore,
    config: MemoryConfig,
    cwd: str,
    *,
    explicit: str | None = None,
    task: str | None = None,
    environ: dict[str, str] | None = None,
) -> Target:
    """Apply the naming rule (see `naming`) for a command run in `cwd`."""
    env = os.environ if environ is None else environ
    cwd = os.path.realpath(cwd)
    scope = config.scope_for(cwd)
    name = _chosen_name(
        store, scope, cwd, explicit or ctx_settings.text(ctx_settings.SESSION, env), task
    )
    session = store.get(name)
    workspace = session.workspace if session else (scope.path if scope else cwd)
    return Target(name, workspace, session, config.settings_for(workspace))


def _chosen_name(
    store: MemoryStore, scope: Scope | None, cwd: str, explicit: str | None, task: str | None
) -> str:
    if explicit:
        return naming.clean_name(explicit)
    if scope and scope.session:
        return naming.clean_name(scope.session)
    word = naming.clean_name(task) if task else None
    for directory in naming.ancestors(cwd):
        candidate = store.get(naming.derived_name(directory, word))
        if candidate and is_inside(cwd, candidate.workspace):
            return candidate.id
    return naming.derived_name(scope.path if scope else cwd, word)


def ensure_session(store: MemoryStore, target: Target) -> Session:
    return target.session or store.ensure(target.name, target.workspace)


def context_block(store: MemoryStore, target: Target, cwd: str) -> str:
    """The block for `target` as seen from `cwd`, within the target's budget."""
    settings = target.settings
    session = target.session
    if session is None:
        entries, total, summary = [], 0, ""
    else:
        newest = settings.window + settings.max_chars // _MIN_FOLDED_CHARS + 1
        entries = store.entries(session.id, newest=newest, with_summaries=False)
        total = store.count(session.id, with_summaries=False)
        summary = session.summary
    return build_block(
        BlockInput(
            session=target.name,
            summary=summary,
            entries=entries,
            total_entries=total,
            window=settings.window,
            max_chars=settings.max_chars,
            cwd=os.path.realpath(cwd),
            workspace=target.workspace,
        )
    )
