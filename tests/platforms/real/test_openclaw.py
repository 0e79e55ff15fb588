"""The real OpenClaw (Gateway plus `agent` turns), offline, with what `ctxmode setup` wrote.

One Gateway, three turns of one session. First: curl is denied naming a tool the model
then calls; a 300 KB `cat` reaches the model as our notice, and a line OpenClaw's own
window of the output would not have held is found with one ctx_search (the command was
teed before it ran); small and failed outputs arrive as OpenClaw made them; the routing
block is in the system prompt once. The next turn's first request overflows the model's
window ("context length exceeded"): OpenClaw compacts on its own and retries, and the
retry's system prompt carries our session guide. Then `--uninstall` restores the config
exactly.
"""

from __future__ import annotations

import json

import pytest

from support.cli import ctx
from support.fake_model import Reply, ToolCall, reply
from support.host_checks import big_log, named_tools_exist, offered_our_tools, routing_block_once
from support.hosts import HostWorld
from support.openclaw_host import OpenClaw
from support.plugin_session import KEYS, execute_and_search, first_turn, results, scripted_session

OUR_NAME = "context-mode__{tool}"  # OpenClaw names MCP tools `<server>__<tool>`
ANY_OUR_TOOL = r"context-mode__ctx_\w+"
# At ~50 KB of big.log: before the ~100-200 KB window OpenClaw hands a plugin, and far
# from the head and tail our notice shows.
NEEDLE = "NEEDLE-before-the-window-4242"
NOTICE_BYTES = 2048
OVERFLOW = Reply(error="context length exceeded")  # an error OpenClaw compacts and retries on


def shell(command: str) -> ToolCall:
    return ToolCall("exec", {"command": command})


# A Gateway start, two turns and a compaction: ~2-3 min on an idle machine, more under load.
@pytest.mark.timeout(900)
def test_openclaw_denies_cuts_resumes_and_uninstalls_exactly(world: HostWorld) -> None:
    big_log(world.work, NEEDLE, line=1_000)
    host = OpenClaw()
    turns = [first_turn(shell), execute_and_search(OUR_NAME, NEEDLE), reply("done"), OVERFLOW,
             reply("back")]  # fmt: skip
    session = scripted_session(world, host, turns, ["Look at the logs", "Where were we?"])

    first, after_tools, after_ours = session.model.main_requests[:3]
    offered_our_tools(first, OUR_NAME)
    found = results(after_tools)
    assert "curl" in found["curl"], found["curl"]
    named_tools_exist(found["curl"], ANY_OUR_TOOL, after_tools)
    notice = found["big"]
    assert len(notice.encode()) <= NOTICE_BYTES + 200, notice
    assert NEEDLE not in after_tools.text() and "processed batch 3000 " not in after_tools.text()
    assert "openclaw-spool" not in after_tools.text()  # the tee is ours: the model never sees it
    named_tools_exist(notice, ANY_OUR_TOOL, after_tools)
    assert found["small"].strip() == "small-output"
    assert "missing-dir" in found["failed"] and "code 2" in found["failed"], found["failed"]
    executed, searched = after_ours.tool_results()[len(KEYS) :][:2]
    assert "FACT-42" in executed
    assert NEEDLE in searched
    for request in (first, after_ours):
        routing_block_once(request)
    named_tools_exist(after_ours.system(), ANY_OUR_TOOL, after_ours)
    overflowed, resumed = session.model.main_requests[3:]
    assert "Look at the logs" in overflowed.text()
    assert [
        r for r in session.model.requests if "<conversation>" in r.last_message_text()
    ]  # a summary
    assert "Look at the logs" not in resumed.text()  # the first turn is compacted away
    guide = resumed.system()
    assert '<session_guide source="compact"' in guide and "Where were we?" in guide, guide
    named_tools_exist(guide, ANY_OUR_TOOL, resumed)
    routing_block_once(resumed)
    # What the teed command left behind is gone once the middleware judged the result.
    spool = world.home / ".local" / "share" / "ctxmode" / "tmp" / "openclaw-spool"
    assert not spool.exists() or not list(spool.iterdir()), list(spool.iterdir())

    undone = ctx("setup", "openclaw", "--uninstall", cwd=world.work, env=world.env())
    assert undone.returncode == 0, undone.stderr
    config = host.config_path(world)
    assert json.loads(config.read_text(encoding="utf-8")) == session.config
    assert not (config.parent / "ctxmode-plugin").exists()
