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
import re

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
    tool_named_in,
)
from support.hosts import HostWorld
from support.pi_hosts import HOSTS, Host, agent_dir, run_host, write_models, write_settings

ANY_OUR_TOOL = r"\bctx_\w+"
NOTICE_BYTES = 2048


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command})


FIRST = Reply(tool_calls=[bash("curl -s https://example.com/docs"), bash("cat big.log"),
                          bash("echo small-output"), bash("ls missing-dir")])  # fmt: skip
KEYS = ("curl", "big", "small", "failed")


def results(request: Request) -> dict[str, str]:
    """The first turn's results by call, whatever order the host sent them in (OMP's is
    the order the calls finished)."""
    messages = request.body["messages"]
    calls = next(m["tool_calls"] for m in messages if m.get("tool_calls"))
    key_of = {c["id"]: key for c, key in zip(calls, KEYS, strict=True)}
    found = {key_of[m["tool_call_id"]]: m["content"] for m in messages
             if m.get("role") == "tool" and m.get("tool_call_id") in key_of}  # fmt: skip
    return {key: text if isinstance(text, str) else "\n".join(p.get("text", "") for p in text)
            for key, text in found.items()}  # fmt: skip


def execute_and_search(request: Request) -> Reply:
    """What a model does with our deny reason and our notice: call the tools they name."""
    found = results(request)
    execute = tool_named_in(found["curl"], r"\bctx_execute\b")
    search = tool_named_in(found["big"], r"\bctx_search\b")
    label = re.search(r'source="([^"]+)"', found["big"]).group(1)
    return Reply(tool_calls=[
        ToolCall(execute, {"language": "shell", "code": "echo FACT-$((40 + 2))"}),
        ToolCall(search, {"queries": [NEEDLE], "source": label}),
    ])  # fmt: skip


@pytest.mark.parametrize("host", HOSTS, ids=[host.id for host in HOSTS])
def test_host_denies_cuts_and_uninstalls_exactly(world: HostWorld, host: Host) -> None:
    host.argv()  # installed (or skip; in CI: fail)
    big_log(world.work)
    agent = agent_dir(world, host)
    with world.fake_model([FIRST, execute_and_search, reply("done")]) as model:
        write_models(world, host, model)
        before = sorted(str(p.relative_to(agent)) for p in agent.rglob("*"))
        done = ctx("setup", host.id, cwd=world.work, env=world.env())
        assert done.returncode == 0, done.stderr
        run = run_host(world, host, "Look at the logs")
        assert run.returncode == 0, run.describe()

    first, after_tools, after_ours = model.main_requests[:3]
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
    assert not (agent / "extensions" / "ctxmode").exists()
    after = {str(p.relative_to(agent)) for p in agent.rglob("*")}
    assert set(before) <= after and not any(p.startswith("extensions/") for p in after)


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
    """The fake model reports a prompt as big as its window: the host compacts on its own
    (Pi after the first prompt, OMP in the middle of it, through its handoff) and the
    next request carries our guide, with the fact said only in the first prompt in it."""
    host.argv()
    turns = [Reply(tool_calls=[bash("echo step-one-done")]),
             Reply("done", prompt_tokens=WINDOW), reply("continued")]  # fmt: skip
    with world.fake_model(turns, side_reply=lambda _: SUMMARY, is_side=is_side_request) as model:
        write_models(world, host, model, context_window=WINDOW)
        write_settings(world, host, {"compaction": {"keepRecentTokens": 10}})  # keep no turn
        done = ctx("setup", host.id, cwd=world.work, env=world.env())
        assert done.returncode == 0, done.stderr
        run = run_host(world, host, f"Remember: the build flag is {FACT}. Write notes.", "go on")
        assert run.returncode == 0, run.describe()

    compacted = [e for e in run.events() if e.get("type") in ("compaction_end", "auto_compaction_end")
                 and e.get("result")]  # fmt: skip
    assert compacted, run.describe()
    resumed = model.main_requests[-1]
    assert resumed.text().count("<session_guide") == 1
    assert FACT in resumed.text().split("<session_guide", 1)[1]
    assert FACT not in outside_ours(resumed)  # it came back through ctxmode only
    routing_block_once(resumed)
    assert "<session_guide" not in resumed.system()
