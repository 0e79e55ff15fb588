"""A scripted session on a real host that calls another MCP server's tools (the official
filesystem server, Playwright MCP), then the search our notice names: shared by
tests/platforms/real/test_mcp_results.py and bench/mcp_results.py."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.cli import ctx
from support.debug_session import HOSTS, SEARCH_CALL, CompliantAgent, received, unquoted
from support.fake_model import Reply, Request, ToolCall
from support.hosts import HostRun, HostWorld
from support.mcp_servers import add_server, filesystem

SERVER = "fs"
MOUNT_RETRIES = 20  # a second apart: OMP's first run in a suite connects slowly
TOOL = "read_text_file"
MIDDLE = "log line 3217 order=77102 status=gateway-timeout"
# Where a 300 KB result is cut with everything findable (OpenClaw: see OPENCLAW_LINES). Pi has
# no MCP client (its README: "No MCP"), so it runs no other server to cut.
ALL_HOSTS = ["claude-code", "gemini-cli", "qwen-code", "copilot-cli", "codex", "opencode", "kilo",
             "omp", "dsh"]  # fmt: skip
# OpenClaw hands its result middleware each text block cut at 100,000 characters: the log
# it can cut whole is ~90 KB (the filesystem server's structured copy of it, as JSON text,
# stays under the cut too).
OPENCLAW_LINES = 1_150
LOG_LINES = 4_200  # ~330 KB


def big_log(path: Path, count: int = LOG_LINES) -> str:
    """A log of `count` lines with MIDDLE at line 3217 (in the middle of a shorter one)."""
    lines = [f"log line {i} order={70000 + i * 7 % 9000} status=ok latency={i % 97}ms "
             f"path=/api/v1/orders/{i % 311}/items\n" for i in range(count)]  # fmt: skip
    lines[3217 if count > 3217 else count // 2] = MIDDLE + "\n"
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
        every = received(request)
        results = [result for result in every if not not_mounted_yet(result)]
        if every and not_mounted_yet(every[-1]) and len(every) - len(results) <= MOUNT_RETRIES:
            time.sleep(1)  # the host is still connecting to the server: as a model would, again
            return self._step(request, *self.steps[len(results)])
        if len(results) < len(self.steps):
            return self._step(request, *self.steps[len(results)])
        found = SEARCH_CALL.search(unquoted(results[-1]))
        if len(results) == len(self.steps) and found:
            return self._call(request, found.group(1), queries=[self.query], source=found.group(2))
        return Reply(text="done")

    def _step(self, request: Request, tool: str, arguments: dict[str, Any]) -> Reply:
        # Codex lists it bare, inside the server's namespace.
        offered = [name for name in request.tool_names() if name.endswith(tool)]
        if not offered and "xd://" in request.system() and "write" in request.tool_names():
            # OMP mounts MCP tools as `xd://mcp__<server>_<tool>` devices (its prompt says
            # so), run by `write`-ing the JSON arguments to them
            device = f"xd://mcp__{self.server}_{tool}"
            return self._call(request, "write", path=device, content=json.dumps(arguments))
        if not offered:  # not listed (Qwen Code): called by name, with the server's arguments
            name = f"mcp__{self.server}__{tool}"
            return Reply(tool_calls=[ToolCall(name, dict(arguments))])
        name = next((n for n in offered if self.server in n), offered[0])
        return self._call(request, name, **arguments)


def reads(*targets: Path) -> CallThenSearch:
    """The filesystem server's reads of `targets`, then the search for the log's middle."""
    return CallThenSearch(targets[0].parent, "", steps=[(TOOL, {"path": str(t)}) for t in targets])


def mcp_session(
    world: HostWorld,
    host: str,
    agent: CallThenSearch,
    server: list[str] | None = None,
    with_ctxmode: bool = True,
) -> tuple[list[str], HostRun]:
    """The scripted session on `host` (`ctxmode setup` done unless `with_ctxmode` is false,
    then the MCP server `server`, by default the filesystem one, added): what the model
    received for each tool call, and the host's run."""
    agent.host = host
    prompt = f"Use the {agent.server} server"
    driver = HOSTS[host]
    with world.fake_model([agent] * (6 + MOUNT_RETRIES)) as model:
        driver.prepare(world)
        driver.configure(world, model)
        if with_ctxmode:
            done = ctx("setup", host, *driver.setup_options, cwd=world.work,
                       env=driver.setup_env(world))  # fmt: skip
            assert done.returncode == 0, done.stderr
        add_server(host, world, agent.server, server or filesystem(world.work))
        run = driver.run(world, model, prompt)
    requests = model.main_requests
    every = received(requests[-1]) if requests else []
    results = [unquoted(result) for result in every if not not_mounted_yet(result)]
    assert results, run.describe()
    return results, run


def not_mounted_yet(result: str) -> bool:
    """OMP's answer to a call of a server's tool it has not connected to yet: it connects
    to its MCP servers while the session starts, and a scripted model calls at once."""
    return unquoted(result).startswith("No such tool: xd://mcp__")
