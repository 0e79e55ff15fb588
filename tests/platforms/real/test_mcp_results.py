"""Another MCP server's bulky result on the real command-hook hosts: the official
filesystem server (from npm) reads a 300 KB log through each host's own MCP client.

What the model received is read from the fake model's log: the big result arrives as a
notice of at most 10 KB naming one search, and that search finds a line from the middle;
a small result arrives byte for byte as the server sent it; a server the user exempted
(`CTXMODE_MCP_PASSTHROUGH`) reaches the model as the host alone would pass it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ctxmode.platforms import load
from support.cli import ctx
from support.debug_session import HOSTS, SEARCH_CALL, CompliantAgent, received, unquoted
from support.fake_model import Reply, Request, ToolCall
from support.hosts import HostRun, HostWorld
from support.mcp_servers import (
    PAGE_NEEDLE,
    add_server,
    filesystem,
    orders_page,
    page_server,
    playwright,
)
from support.opencode_hosts import HOSTS as OPENCODE_HOSTS

SERVER = "fs"
TOOL = "read_text_file"
MIDDLE = "log line 3217 order=77102 status=gateway-timeout"
NOTICE_LIMIT = 10_240
CUT = "kept out of the context by ctxmode"  # in every notice's first line
PLUGIN_HOSTS = {host.id: host for host in OPENCODE_HOSTS}
ALL_HOSTS = ["claude-code", "gemini-cli", "qwen-code", "copilot-cli", "codex", *PLUGIN_HOSTS]


def big_log(path: Path) -> str:
    lines = [f"log line {i} order={70000 + i * 7 % 9000} status=ok latency={i % 97}ms "
             f"path=/api/v1/orders/{i % 311}/items\n" for i in range(4200)]  # fmt: skip
    lines[3217] = MIDDLE + "\n"
    text = "".join(lines)
    path.write_text(text)
    return text


@dataclass
class CallThenSearch(CompliantAgent):
    """Calls each of `steps` (a tool of `server` and its arguments) in turn, then runs the
    search the last result names (if it names one) with `query`."""

    steps: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    server: str = SERVER
    query: str = "3217 gateway-timeout"
    host: str = ""

    def __call__(self, request: Request) -> Reply:
        results = received(request)
        if len(results) < len(self.steps):
            return self._step(request, *self.steps[len(results)])
        found = SEARCH_CALL.search(unquoted(results[-1]))
        if len(results) == len(self.steps) and found:
            return self._call(request, found.group(1), queries=[self.query], source=found.group(2))
        return Reply(text="done")

    def _step(self, request: Request, tool: str, arguments: dict[str, Any]) -> Reply:
        # Codex lists it bare, inside the server's namespace.
        offered = [name for name in request.tool_names() if name.endswith(tool)]
        if not offered:  # not listed (Qwen Code): called by name, with the server's arguments
            name = f"mcp__{self.server}__{tool}"
            return Reply(tool_calls=[ToolCall(name, dict(arguments))])
        name = next((n for n in offered if self.server in n), offered[0])
        return self._call(request, name, **arguments)


def _reads(*targets: Path) -> CallThenSearch:
    """The filesystem server's reads of `targets`, then the search for the log's middle."""
    return CallThenSearch(targets[0].parent, "", steps=[(TOOL, {"path": str(t)}) for t in targets])


def _session(
    world: HostWorld, host: str, agent: CallThenSearch, server: list[str] | None = None
) -> tuple[list[str], HostRun]:
    """The scripted session on `host` (`ctxmode setup` done, then the MCP server added)."""
    agent.host = host
    prompt = f"Use the {agent.server} server"
    with world.fake_model([agent] * 6) as model:
        if host in PLUGIN_HOSTS:
            plugin_host = PLUGIN_HOSTS[host]
            plugin_host.installed()
            plugin_host.configure(world, model)
        else:
            HOSTS[host].prepare(world)
        done = ctx("setup", host, cwd=world.work, env=world.env())
        assert done.returncode == 0, done.stderr
        add_server(host, world, agent.server, server or filesystem(world.work))
        if host in PLUGIN_HOSTS:
            run = PLUGIN_HOSTS[host].run(world, [prompt])[0]
        else:
            run = HOSTS[host].run(world, model, prompt)
    requests = model.main_requests
    results = [unquoted(result) for result in received(requests[-1])] if requests else []
    assert results, run.describe()
    return results, run


SMALL = "".join(f"small line {i}: nothing to cut here\n" for i in range(60))


@pytest.mark.parametrize("host", ALL_HOSTS)
def test_a_300_kb_mcp_result_reaches_the_model_as_a_notice_and_its_middle_is_found(
    world: HostWorld, host: str
) -> None:
    assert load(host).can_replace_output or load(host).plugin_host
    big_log(world.work / "app.log")
    (world.work / "small.txt").write_text(SMALL)
    results, run = _session(world, host, _reads(world.work / "small.txt", world.work / "app.log"))
    assert len(results) >= 3, run.describe()
    small, notice, searched = results[:3]
    # As the host passes it (Claude Code: the server's structured result as JSON text).
    assert all(line in small for line in SMALL.splitlines()) and CUT not in small, small
    assert len(notice.encode()) <= NOTICE_LIMIT and MIDDLE not in notice, notice[:3000]
    assert MIDDLE in searched, searched[:2000]


@pytest.mark.parametrize("host", ALL_HOSTS)
def test_an_exempted_server_passes_untouched(world: HostWorld, host: str) -> None:
    big_log(world.work / "app.log")
    world.settings["CTXMODE_MCP_PASSTHROUGH"] = SERVER
    results, run = _session(world, host, _reads(world.work / "app.log"))
    assert results and CUT not in results[0], results[0][:2000]
    assert len(results) == 1, run.describe()  # no notice: nothing to search


@pytest.mark.parametrize("host", ALL_HOSTS)
def test_a_playwright_snapshot_of_2000_rows_keeps_page_facts_and_every_row_findable(
    world: HostWorld, host: str
) -> None:
    argv = playwright(world)
    with page_server(world, orders_page()) as url:
        agent = CallThenSearch(world.work, "", steps=[("browser_navigate", {"url": url}), ("browser_snapshot", {})],
                               server="playwright", query="order 1234 Reykjavik")  # fmt: skip
        results, run = _session(world, host, agent, argv)
    assert len(results) >= 3, run.describe()
    notice, searched = results[1:3]  # after the navigation's short result
    assert len(notice.encode()) <= NOTICE_LIMIT and PAGE_NEEDLE not in notice, notice[:3000]
    assert "Orders dashboard" in notice and url in notice, notice[:3000]  # title, URL
    assert 'heading "All orders"' in notice and re.search(
        r'link "Open order \d+" \[ref=e\d+\]', notice
    )
    assert PAGE_NEEDLE in searched, searched[:2000]
