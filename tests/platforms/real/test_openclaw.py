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
import re
from pathlib import Path

import pytest

from support.cli import ctx
from support.fake_model import Reply, Request, ToolCall, reply
from support.host_checks import (
    named_tools_exist,
    offered_our_tools,
    routing_block_once,
    tool_named_in,
)
from support.hosts import HostWorld
from support.openclaw_host import agent_turn, base_config, free_port, gateway, openclaw

OUR_NAME = "context-mode__{tool}"  # OpenClaw names MCP tools `<server>__<tool>`
ANY_OUR_TOOL = r"context-mode__ctx_\w+"
NEEDLE = "NEEDLE-before-the-window-4242"
NOTICE_BYTES = 2048


def big_log(work: Path) -> None:
    """~290 KB; the needle sits at ~50 KB, before the ~100-200 KB window OpenClaw hands
    a plugin, and far from the head and tail our notice shows."""
    lines = [
        f"2026-12-01 12:00:{n % 60:02d} worker-{n % 7} processed batch {n} ok" for n in range(5_700)
    ]
    lines[1_000] = f"2026-12-01 12:00:00 worker-3 {NEEDLE} checksum verified"
    (work / "big.log").write_text("\n".join(lines) + "\n")
    assert (work / "big.log").stat().st_size > 290_000


def shell(command: str) -> ToolCall:
    return ToolCall("exec", {"command": command})


FIRST = Reply(tool_calls=[shell("curl -s https://example.com/docs"), shell("cat big.log"),
                          shell("echo small-output"), shell("ls missing-dir")])  # fmt: skip
KEYS = ("curl", "big", "small", "failed")
OVERFLOW = Reply(error="context length exceeded")  # an error OpenClaw compacts and retries on


def results(request: Request) -> dict[str, str]:
    return dict(zip(KEYS, request.tool_results()[: len(KEYS)], strict=True))


def execute_and_search(request: Request) -> Reply:
    """What a model does with our deny reason and our notice: call the tools they name."""
    found = results(request)
    execute = tool_named_in(found["curl"], r"context-mode__ctx_execute\b")
    search = tool_named_in(found["big"], r"context-mode__ctx_search\b")
    label = re.search(r'source="([^"]+)"', found["big"]).group(1)
    return Reply(tool_calls=[
        ToolCall(execute, {"language": "shell", "code": "echo FACT-$((40 + 2))"}),
        ToolCall(search, {"queries": [NEEDLE], "source": label}),
    ])  # fmt: skip


# A Gateway start, two turns and a compaction: ~2-3 min on an idle machine, more under load.
@pytest.mark.timeout(900)
def test_openclaw_denies_cuts_resumes_and_uninstalls_exactly(world: HostWorld) -> None:
    openclaw()
    big_log(world.work)
    config = world.home / ".openclaw" / "openclaw.json"
    port = free_port()
    turns = [FIRST, execute_and_search, reply("done"), OVERFLOW, reply("back")]
    with world.fake_model(turns) as model:
        config.parent.mkdir(parents=True)
        original = base_config(model, world, port)
        config.write_text(json.dumps(original, indent=2) + "\n", encoding="utf-8")
        done = ctx("setup", "openclaw", cwd=world.work, env=world.env())
        assert done.returncode == 0, done.stderr
        with gateway(world, port) as log:
            for prompt in ("Look at the logs", "Where were we?"):
                run = agent_turn(world, "ctxmode-e2e", prompt)
                assert run.returncode == 0, run.describe() + log.read_text()[-4000:]

    first, after_tools, after_ours = model.main_requests[:3]
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
    overflowed, resumed = model.main_requests[3:]
    assert "Look at the logs" in overflowed.text()
    assert [r for r in model.requests if "<conversation>" in r.last_message_text()]  # a summary
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
    assert json.loads(config.read_text(encoding="utf-8")) == original
    assert not (config.parent / "ctxmode-plugin").exists()
