"""Tier 2 on the real command-hook hosts that allow it: a shell command's big output is
replaced after it ran by the bounded notice, and one search finds a line from its middle.

The command is not one routing rewrites (`seq` is not predicted to be bulky, and a bare
assignment keeps it in the host's shell even where every command is wrapped), so the
output reaches the host's post-tool hook whole; what the model received is read from the
fake model's log.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxmode.platforms import load
from support.cli import ctx
from support.debug_session import HOSTS, SEARCH_CALL, CompliantAgent, received, unquoted
from support.fake_model import Reply, Request
from support.hosts import HostWorld

COMMAND = "N=12000; seq -f 'row %g of the big listing' 1 $N"  # ~300 KB, one fact per line
# Qwen Code's own capture of this output sometimes ends near row 6480 on a loaded box:
# the row searched for lies before that, far from the notice's head and tail.
MIDDLE = "row 3210 of the big listing"
# Codex hands its hooks only its own ~10 KB cut of a long output (head and tail) and keeps
# the rest nowhere: what is searchable there is what it kept.
KEPT_BY_CODEX = "row 11900 of the big listing"
NOTICE_BYTES = 2048


class ShellThenSearch(CompliantAgent):
    """Runs COMMAND with the host's shell tool, then the search call the notice names."""

    wanted = MIDDLE

    def __call__(self, request: Request) -> Reply:
        results = received(request)
        if not results:
            return self._shell(request, COMMAND)
        found = SEARCH_CALL.search(unquoted(results[-1]))
        if len(results) == 1 and found:
            query = "3210" if MIDDLE in self.wanted else "11900"
            return self._call(request, found.group(1), queries=[query], source=found.group(2))
        return Reply(text="done")


@pytest.mark.parametrize("host", ["claude-code", "gemini-cli", "codex", "qwen-code", "copilot-cli"])
def test_big_shell_output_reaches_the_model_as_a_notice_and_stays_searchable(
    tmp_path: Path, netns: str | None, host: str
) -> None:
    assert load(host).can_replace_output
    world = HostWorld(tmp_path, netns)
    HOSTS[host].prepare(world)
    done = ctx("setup", host, cwd=world.work, env=world.env())
    assert done.returncode == 0, done.stderr
    agent = ShellThenSearch(world.work, "")
    agent.wanted = KEPT_BY_CODEX if host == "codex" else MIDDLE
    with world.fake_model([agent] * 6) as model:
        run = HOSTS[host].run(world, model, "List the rows")
    results = model.main_requests[-1].tool_results()
    assert len(results) >= 2, run.describe()
    notice, searched = results[0], results[1]
    # The host may wrap it (Claude Code: a `<persisted-output>` preview of it): a few lines more.
    assert agent.wanted not in notice and len(notice.encode()) <= NOTICE_BYTES + 512, notice
    assert re.search(r"ctx_search\(queries=", notice), notice
    assert agent.wanted in searched, searched[:2000]
