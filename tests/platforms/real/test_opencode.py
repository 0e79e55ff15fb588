"""The real OpenCode and Kilo binaries (`run`), offline, with what `ctxmode setup` wrote.

Kilo is OpenCode's fork: same plugin API, config shape and MCP tool naming. One scripted
session: curl is rewritten to print guidance naming a tool the model then calls; a 300 KB
output reaches the model as our notice and a line from its middle is found with one
ctx_search (on Kilo too, which cuts bash output to ~50 KB before a plugin sees it); small
and failed outputs arrive as OpenCode made them; the environment the host gives what it
starts tells Kilo from OpenCode. Then `--uninstall` restores the config to what the host
left.
"""

from __future__ import annotations

import json
import re

import pytest

from ctxmode.platforms import from_environment, load
from support.cli import ctx
from support.fake_model import Reply, Request, ToolCall, reply
from support.host_checks import (
    NEEDLE,
    big_log,
    named_tools_exist,
    offered_our_tools,
    routing_block_once,
    tool_named_in,
)
from support.hosts import HostWorld, npm_host
from support.opencode_hosts import HOSTS, Host, host_config, run_host

OUR_NAME = "context-mode_{tool}"  # OpenCode names MCP tools `<server>_<tool>`
ANY_OUR_TOOL = r"context-mode_ctx_\w+"
NOTICE_BYTES = 2048


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run it"})


FIRST = Reply(tool_calls=[bash("curl -s https://example.com/docs"), bash("cat big.log"),
                          bash("echo small-output"), bash("ls missing-dir"), bash("env")])  # fmt: skip
KEYS = ("curl", "big", "small", "failed", "env")


def results(request: Request) -> dict[str, str]:
    return dict(zip(KEYS, request.tool_results()[: len(KEYS)], strict=True))


def execute_and_search(request: Request) -> Reply:
    """What a model does with our deny reason and our notice: call the tools they name."""
    found = results(request)
    execute = tool_named_in(found["curl"], r"context-mode_ctx_execute\b")
    search = tool_named_in(found["big"], r"context-mode_ctx_search\b")
    label = re.search(r'source="([^"]+)"', found["big"]).group(1)
    return Reply(tool_calls=[
        ToolCall(execute, {"language": "shell", "code": "echo FACT-$((40 + 2))"}),
        ToolCall(search, {"queries": [NEEDLE], "source": label}),
    ])  # fmt: skip


@pytest.mark.parametrize("host", HOSTS, ids=[host.id for host in HOSTS])
def test_host_denies_cuts_and_uninstalls_exactly(world: HostWorld, host: Host) -> None:
    npm_host(host.id, host.binary)
    big_log(world.work)
    config = world.home / ".config" / host.config
    with world.fake_model([FIRST, execute_and_search, reply("done")]) as model:
        config.parent.mkdir(parents=True, exist_ok=True)
        original = host_config(model, host)
        config.write_text(json.dumps(original, indent=2) + "\n", encoding="utf-8")
        done = ctx("setup", host.id, cwd=world.work, env=world.env())
        assert done.returncode == 0, done.stderr
        run = run_host(world, host, "Look at the logs")
        assert run.returncode == 0, run.describe()

    first, after_tools, after_ours = model.main_requests[:3]
    offered_our_tools(first, OUR_NAME)
    found = results(after_tools)
    # The plugin rewrote the call (`output.args`): the host ran an echo of our guidance.
    assert found["curl"].lstrip().startswith("ctxmode") and "Error" not in found["curl"][:40], (
        found["curl"]
    )
    named_tools_exist(found["curl"], ANY_OUR_TOOL, after_tools)
    notice = found["big"]
    assert len(notice.encode()) <= NOTICE_BYTES + 200, notice  # OpenCode may wrap it
    assert NEEDLE not in after_tools.text() and "processed batch 3000 " not in after_tools.text()
    # Kilo cut the output to ~50 KB before our plugin saw it: the notice is about the whole
    # (indexed from the file the host saved it to), and the needle from the middle is found.
    assert re.search(r"\b29\d\.\d KB stdout", notice) and "Incomplete" not in notice, notice
    named_tools_exist(notice, ANY_OUR_TOOL, after_tools)
    assert found["small"].strip() == "small-output"
    assert "missing-dir" in found["failed"]
    # What the host exports to what it starts (our plugin's bridge, our MCP server) names it.
    exported = dict(line.split("=", 1) for line in found["env"].splitlines() if "=" in line)
    assert from_environment(exported) is load(host.id), sorted(exported)
    executed, searched = after_ours.tool_results()[len(KEYS) :][:2]
    assert "FACT-42" in executed
    assert NEEDLE in searched
    routing_block_once(after_ours)
    named_tools_exist(after_ours.system(), ANY_OUR_TOOL, after_ours)

    # The host edits its own config as it runs (adds `$schema`; Kilo migrates permissions):
    # uninstalling takes out exactly our two entries from what it left.
    seen = json.loads(config.read_text(encoding="utf-8"))
    assert "context-mode" in seen["mcp"] and len(seen["plugin"]) == 1
    undone = ctx("setup", host.id, "--uninstall", cwd=world.work, env=world.env())
    assert undone.returncode == 0, undone.stderr
    restored = json.loads(config.read_text(encoding="utf-8"))
    assert restored == {key: value for key, value in seen.items() if key not in ("plugin", "mcp")}
    assert not (config.parent / "ctxmode-plugin").exists()
