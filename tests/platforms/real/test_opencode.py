"""The real OpenCode and Kilo binaries (`run`), offline, with what `ctxmode setup` wrote.

Kilo is OpenCode's fork: same plugin API, config shape and MCP tool naming. One scripted
session: curl is rewritten to print guidance naming a tool the model then calls; a 300 KB
output reaches the model as the wrapper's notice (the command was run through it) and a
line from its middle is found with one ctx_search; the same output from a command left
unwrapped is cut after the call (on Kilo too, which cuts bash output to ~50 KB before a
plugin sees it); small and failed outputs arrive as OpenCode made them; the environment the host gives what it
starts tells Kilo from OpenCode. Then `--uninstall` restores the config to what the host
left.
"""

from __future__ import annotations

import json
import re

import pytest

from ctxmode.platforms import from_environment, load
from support.cli import ctx
from support.fake_model import ToolCall, reply
from support.host_checks import (
    NEEDLE,
    big_log,
    named_tools_exist,
    offered_our_tools,
    routing_block_once,
)
from support.hosts import HostWorld
from support.opencode_hosts import HOSTS, Host
from support.plugin_session import KEYS, execute_and_search, first_turn, results, scripted_session

OUR_NAME = "context-mode_{tool}"  # OpenCode names MCP tools `<server>_<tool>`
ANY_OUR_TOOL = r"context-mode_ctx_\w+"
NOTICE_BYTES = 2048
ALL_KEYS = (*KEYS, "env", "unwrapped")  # what the host exports to what it starts; a cut
UNWRAPPED = "show() { cat big.log; }; show"  # it defines a function: left unwrapped


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run it"})


@pytest.mark.parametrize("host", HOSTS, ids=[host.id for host in HOSTS])
def test_host_denies_cuts_and_uninstalls_exactly(world: HostWorld, host: Host) -> None:
    big_log(world.work)
    turns = [first_turn(bash, "env", UNWRAPPED), execute_and_search(OUR_NAME, keys=ALL_KEYS),
             reply("done")]  # fmt: skip
    session = scripted_session(world, host, turns, ["Look at the logs"])

    first, after_tools, after_ours = session.model.main_requests[:3]
    offered_our_tools(first, OUR_NAME)
    found = results(after_tools, ALL_KEYS)
    # The plugin rewrote the call (`output.args`): the host ran an echo of our guidance.
    assert found["curl"].lstrip().startswith("ctxmode") and "Error" not in found["curl"][:40], (
        found["curl"]
    )
    named_tools_exist(found["curl"], ANY_OUR_TOOL, after_tools)
    # Indexed by the wrapper the host ran (as its log shows), and after the call.
    # (the wrapper's label: `cmd:`; Kilo's event log sometimes shows the command as the model
    # wrote it, before our plugin's rewrite)
    assert 'source="cmd:cat:' in found["big"] and 'source="tool:bash:' in found["unwrapped"]
    assert NEEDLE not in after_tools.text() and "processed batch 3000 " not in after_tools.text()
    # Kilo cut the unwrapped output to ~50 KB before our plugin saw it: that notice is about
    # the whole too (indexed from the file the host saved it to).
    # The wrapper read the whole output itself. After the call, OpenCode's own capture of a
    # big output printed at once varies from run to run (seen: 256 KB of the 29x KB), and
    # the notice is about what the host captured.
    assert re.search(r"\b29\d\.\d KB stdout", found["big"]), found["big"]
    size = r"\b29\d\.\d KB stdout" if host.id == "kilo" else r"\b\d{3}\.\d KB stdout"
    assert re.search(size, found["unwrapped"]), found["unwrapped"]
    for notice in (found["big"], found["unwrapped"]):
        assert len(notice.encode()) <= NOTICE_BYTES + 200, notice  # OpenCode may wrap it
        assert "Incomplete" not in notice, notice
        named_tools_exist(notice, ANY_OUR_TOOL, after_tools)
    assert found["small"].strip() == "small-output"
    assert "missing-dir" in found["failed"]
    # What the host exports to what it starts (our plugin's bridge, our MCP server) names it.
    exported = dict(line.split("=", 1) for line in found["env"].splitlines() if "=" in line)
    assert from_environment(exported) is load(host.id), sorted(exported)
    executed, searched = after_ours.tool_results()[len(ALL_KEYS) :][:2]
    assert "FACT-42" in executed
    assert NEEDLE in searched
    routing_block_once(after_ours)
    named_tools_exist(after_ours.system(), ANY_OUR_TOOL, after_ours)

    # The host edits its own config as it runs (adds `$schema`; Kilo migrates permissions):
    # uninstalling takes out exactly our two entries from what it left.
    config = host.config_path(world)
    seen = json.loads(config.read_text(encoding="utf-8"))
    assert "context-mode" in seen["mcp"] and len(seen["plugin"]) == 1
    undone = ctx("setup", host.id, "--uninstall", cwd=world.work, env=world.env())
    assert undone.returncode == 0, undone.stderr
    restored = json.loads(config.read_text(encoding="utf-8"))
    assert restored == {key: value for key, value in seen.items() if key not in ("plugin", "mcp")}
    assert not (config.parent / "ctxmode-plugin").exists()
