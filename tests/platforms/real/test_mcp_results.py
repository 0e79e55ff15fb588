"""Another MCP server's bulky result on the real command-hook hosts: the official
filesystem server (from npm) reads a 300 KB log through each host's own MCP client.

What the model received is read from the fake model's log: the big result arrives as a
notice of at most 10 KB naming one search, and that search finds a line from the middle;
a small result arrives byte for byte as the server sent it; a server the user exempted
(`CTXMODE_MCP_PASSTHROUGH`) reaches the model as the host alone would pass it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ctxmode.platforms import load
from support.cli import ctx
from support.debug_session import HOSTS, SEARCH_CALL, CompliantAgent, received, unquoted
from support.fake_model import Reply, Request, ToolCall
from support.hosts import HostRun, HostWorld
from support.mcp_servers import add_server, filesystem
from support.opencode_hosts import HOSTS as OPENCODE_HOSTS

SERVER = "fs"
TOOL = "read_text_file"
MIDDLE = "log line 3217 order=77102 status=gateway-timeout"
NOTICE_LIMIT = 10_240
CUT = "kept out of the context by ctxmode"  # in every notice's first line
PLUGIN_HOSTS = {host.id: host for host in OPENCODE_HOSTS}
ALL_HOSTS = ["claude-code", "gemini-cli", "qwen-code", "copilot-cli", "codex", *PLUGIN_HOSTS]
# What a host calls the server's tool when it does not list it to the model (Qwen Code
# defers MCP tools behind its tool search; a direct call by this name works).
UNLISTED = {"qwen-code": f"mcp__{SERVER}__{TOOL}"}


def big_log(path: Path) -> str:
    lines = [f"log line {i} order={70000 + i * 7 % 9000} status=ok latency={i % 97}ms "
             f"path=/api/v1/orders/{i % 311}/items\n" for i in range(4200)]  # fmt: skip
    lines[3217] = MIDDLE + "\n"
    text = "".join(lines)
    path.write_text(text)
    return text


@dataclass
class ReadThenSearch(CompliantAgent):
    """Reads each of `targets` with the filesystem server's tool, then runs the search the
    last result names (if it names one)."""

    targets: list[str] = field(default_factory=list)
    host: str = ""

    def __call__(self, request: Request) -> Reply:
        results = received(request)
        if len(results) < len(self.targets):
            return self._read(request, self.targets[len(results)])
        found = SEARCH_CALL.search(unquoted(results[-1]))
        if len(results) == len(self.targets) and found:
            return self._call(request, found.group(1), queries=["3217 gateway-timeout"],
                              source=found.group(2))  # fmt: skip
        return Reply(text="done")

    def _read(self, request: Request, path: str) -> Reply:
        # Codex lists it bare, inside the server's namespace.
        tool = next((n for n in request.tool_names() if n.endswith(TOOL)), "")
        if not tool:  # not listed: called by name, with the server's own argument names
            return Reply(tool_calls=[ToolCall(UNLISTED[self.host], {"path": path})])
        return self._call(request, tool, path=path)


def _session(world: HostWorld, host: str, *targets: Path) -> tuple[list[str], HostRun]:
    """The scripted session on `host` (`ctxmode setup` done, then the fs server added)."""
    agent = ReadThenSearch(world.work, "", targets=[str(t) for t in targets], host=host)
    prompt = "Read the log through the fs server"
    with world.fake_model([agent] * 6) as model:
        if host in PLUGIN_HOSTS:
            plugin_host = PLUGIN_HOSTS[host]
            plugin_host.installed()
            plugin_host.configure(world, model)
        else:
            HOSTS[host].prepare(world)
        done = ctx("setup", host, cwd=world.work, env=world.env())
        assert done.returncode == 0, done.stderr
        add_server(host, world, SERVER, filesystem(world.work))
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
    results, run = _session(world, host, world.work / "small.txt", world.work / "app.log")
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
    results, run = _session(world, host, world.work / "app.log")
    assert results and CUT not in results[0], results[0][:2000]
    assert len(results) == 1, run.describe()  # no notice: nothing to search
