"""The real Pi and OMP (`-p`), offline, with the extension `ctxmode setup pi|omp` wrote.

One scripted session per host: our tools are offered on the first request; curl is
denied naming a tool the model then calls; a 300 KB output (which the host cuts itself,
keeping the whole of it in a file: Pi's full-output file, OMP's artifact) reaches the
model as our notice and a line from its middle is found with one ctx_search; small and
failed outputs arrive as the host made them; the routing block rides once in every
request, outside the system prompt. Then `--uninstall` leaves the agent dir as it was.

A second session per host compacts on its own (the fake model reports a prompt as big as
its window; OMP summarizes through its handoff request, which offers tools with
`tool_choice: "none"`), and the request after it carries our session guide.
"""

from __future__ import annotations

import json

import pytest

from support.cli import ctx
from support.fake_model import Reply, Request, ToolCall, reply
from support.host_checks import (
    NEEDLE,
    ROUTING_MARKER,
    big_log,
    named_tools_exist,
    offered_our_tools,
    routing_block_once,
)
from support.hosts import HostWorld
from support.pi_hosts import HOSTS, Host, agent_dir
from support.plugin_session import KEYS, execute_and_search, first_turn, results, scripted_session

ANY_OUR_TOOL = r"\bctx_\w+"
NOTICE_BYTES = 2048


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command})


@pytest.mark.parametrize("host", HOSTS, ids=[host.id for host in HOSTS])
def test_host_denies_cuts_and_uninstalls_exactly(world: HostWorld, host: Host) -> None:
    big_log(world.work)
    turns = [first_turn(bash), execute_and_search("{tool}"), reply("done")]
    session = scripted_session(world, host, turns, ["Look at the logs"])

    first, after_tools, after_ours = session.model.main_requests[:3]
    offered_our_tools(first, "{tool}")
    found = results(after_tools)
    assert "curl" in found["curl"], found["curl"]
    named_tools_exist(found["curl"], ANY_OUR_TOOL, after_tools)
    notice = found["big"]
    assert len(notice.encode()) <= NOTICE_BYTES, notice
    assert NEEDLE not in after_tools.text() and "processed batch 3000 " not in after_tools.text()
    named_tools_exist(notice, ANY_OUR_TOOL, after_tools)
    assert found["small"].startswith("small-output")  # OMP adds its wall time
    assert "missing-dir" in found["failed"] and "code 2" in found["failed"]
    ours = after_ours.tool_results()[len(KEYS) :]
    assert any("FACT-42" in text for text in ours), ours
    assert any(NEEDLE in text for text in ours), ours
    for request in (first, after_tools, after_ours):
        routing_block_once(request)
        assert ROUTING_MARKER not in request.system()  # the system prompt stays cacheable
    named_tools_exist(first.text(), ANY_OUR_TOOL, first)

    undone = ctx("setup", host.id, "--uninstall", cwd=world.work, env=world.env())
    assert undone.returncode == 0, undone.stderr
    agent = agent_dir(world, host)
    assert not (agent / "extensions" / "ctxmode").exists()
    after = {str(p.relative_to(agent)) for p in agent.rglob("*")}
    assert set(session.config) <= after and not any(p.startswith("extensions/") for p in after)


FACT = "ZEBRA-17"
WINDOW = 50_000  # the fake model's context window
SUMMARY = reply("Objective: write notes for the user.")  # the fact is not in it


def is_side_request(request: Request) -> bool:
    """A summary request: no tools (Pi), or tools the model may not call (OMP's handoff)."""
    return not request.body.get("tools") or request.body.get("tool_choice") == "none"


def outside_ours(request: Request) -> str:
    """The conversation without the system prompt and without our message."""
    messages = request.body["messages"][1:]
    return json.dumps([m for m in messages if ROUTING_MARKER not in json.dumps(m)])


@pytest.mark.parametrize("host", HOSTS, ids=[host.id for host in HOSTS])
def test_compaction_brings_back_the_session_guide(world: HostWorld, host: Host) -> None:
    """The fake model reports a prompt as big as its window at the end of the first
    prompt: the host compacts on its own (OMP through its handoff request) and the next
    request carries our guide, with the fact said only in the first prompt in it."""
    turns = [Reply(tool_calls=[bash("echo step-one-done")]),
             Reply("done", prompt_tokens=WINDOW), reply("continued")]  # fmt: skip
    prompts = [f"Remember: the build flag is {FACT}. Write notes.", "go on"]
    keep_no_turn = {"compaction": {"keepRecentTokens": 10}}
    session = scripted_session(world, host, turns, prompts, side_reply=lambda _: SUMMARY,
                               is_side=is_side_request,
                               config={"context_window": WINDOW, "settings": keep_no_turn})  # fmt: skip

    [run] = session.runs
    compacted = [e for e in run.events() if e.get("type") in ("compaction_end", "auto_compaction_end")
                 and e.get("result")]  # fmt: skip
    assert compacted, run.describe()
    resumed = session.model.main_requests[-1]
    assert resumed.text().count("<session_guide") == 1
    assert FACT in resumed.text().split("<session_guide", 1)[1]
    assert FACT not in outside_ours(resumed)  # it came back through ctxmode only
    routing_block_once(resumed)
    assert "<session_guide" not in resumed.system()
