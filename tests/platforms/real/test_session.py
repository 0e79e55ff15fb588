"""The debugging session on real hosts: with ctxmode every fact reaches the model, in few bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.debug_session import FACTS, run_session
from support.hosts import HostWorld

TARGET_FLOOR = 24 * 1024


@pytest.mark.parametrize("host", ["claude-code", "qwen-code", "codex", "gemini-cli", "copilot-cli"])
def test_every_fact_reaches_the_model_in_at_most_half_the_bytes(
    tmp_path: Path, netns: str | None, host: str
) -> None:
    without = run_session(HostWorld(tmp_path / "without", netns), host, with_ctxmode=False)
    with_ctxmode = run_session(HostWorld(tmp_path / "with", netns), host, with_ctxmode=True)
    missing = [name for name, found in with_ctxmode.facts.items() if not found]
    assert not missing, (
        f"facts that never reached the model: {missing}\n{with_ctxmode.run.describe()}"
    )
    budget = max(without.tool_result_bytes // 2, TARGET_FLOOR)
    assert with_ctxmode.tool_result_bytes <= budget, (without.tool_result_bytes, with_ctxmode)
    assert without.facts_found < len(FACTS)  # the scenario is one a host's own caps lose
