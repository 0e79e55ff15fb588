"""A big source file read on the real plugin hosts: one search, as the notice names it,
finds a line from the file's middle.

OpenCode, Kilo and DSH show a read of a long file as its first 2,000 lines, OpenClaw as
its first ~50 KB; the line the model is after (line 2,101 of 2,579, past either window)
is not in what the host's read returned. So the rules index the whole file from disk (it
is within the project) under its path, and the notice in the read's place names that
source. The scripted model reads the file with the host's read tool, then calls the
search the notice names; what it received is read from the fake model's log.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.debug_session import Step, named_search, run_steps, unquoted
from support.hosts import HostWorld

FACT = "RETRY_BUDGET_SECONDS = 7429"
NATIVE_BYTES = 56_000  # what the host's own read returns of it (its first ~2,000 lines)
BOUND = 8 * 1024  # the notice and the search's answer


def write_source(work: Path) -> int:
    """A 60 KB module with FACT on line 2,101 of 2,579; its size."""
    code = [f"def rule_{i}(amount, rate):\n    return round(amount * rate + {i}, 2)\n\n"
            for i in range(860)]  # fmt: skip
    code[700] = f"{FACT}\n\n"
    path = work / "src" / "billing.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(code))
    return path.stat().st_size


@pytest.mark.parametrize("host", ["opencode", "kilo", "openclaw", "dsh"])
def test_a_big_read_is_searchable_whole_by_the_search_its_notice_names(
    world: HostWorld, host: str
) -> None:
    size = write_source(world.work)
    step = Step("source", "read", "src/billing.py", "RETRY_BUDGET_SECONDS", (FACT,))
    results, run = run_steps(world, host, [step], "Find the retry budget in src/billing.py")
    texts = [unquoted(result) for result in results]
    assert len(texts) == 2, (run.describe(), [text[:300] for text in texts])
    notice, answer = texts
    assert FACT not in notice and f"{size:,} bytes" in notice, notice
    search = named_search(notice)
    assert search is not None and search[1] == "src/billing.py", notice
    assert FACT in answer, answer[:2000]
    assert sum(len(text.encode("utf-8")) for text in results) <= BOUND < NATIVE_BYTES
