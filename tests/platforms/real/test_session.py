"""The debugging session on real hosts: with ctxmode every fact reaches the model, in few bytes.

The session is the fixed `SESSION` of tests/support/debug_session.py (a failing pytest run
of ~110 KB, a log, a source file, a grep, a git log and a docs page); bench/session.py
runs the wider matrix of runners, sizes, failure positions and exit codes on every host.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.debug_session import run_session
from support.hosts import HostWorld

TARGET_FLOOR = 24 * 1024


@pytest.mark.parametrize("host", ["claude-code", "qwen-code", "codex", "gemini-cli", "copilot-cli"])
def test_every_fact_reaches_the_model_in_at_most_half_the_bytes(
    tmp_path: Path, netns: str | None, host: str
) -> None:
    without = run_session(HostWorld(tmp_path / "without", netns), host, with_ctxmode=False)
    with_ctxmode = run_session(HostWorld(tmp_path / "with", netns), host, with_ctxmode=True)
    lost = {name: [fact for fact, found in step.facts.items() if not found]
            for name, step in with_ctxmode.steps.items() if step.found < len(step.facts)}  # fmt: skip
    assert not lost, f"facts that never reached the model: {lost}\n{with_ctxmode.run.describe()}"
    budget = max(without.tool_result_bytes // 2, TARGET_FLOOR)
    assert with_ctxmode.tool_result_bytes <= budget, (without.tool_result_bytes, with_ctxmode)
    # The scenario is one a host's own caps lose.
    assert without.facts_found < without.facts_total
