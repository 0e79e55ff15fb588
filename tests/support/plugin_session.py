"""One scripted session on a real plugin host (OpenCode, Kilo, Pi, OMP, OpenClaw).

Each host's module says how to point the host at the fake model (`configure`) and how to
send it prompts (`run`); `scripted_session` does what every plugin-host test and the
plugin benchmark do around that: the fake model, the host's config, `ctxmode setup
<host>`, the prompts, each checked to have worked. The turns most of those tests script
live here too: a first turn of shell calls (one we deny, one bulky, one small, one
failing), and what a model does with our deny reason and our notice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from support.cli import ctx
from support.fake_model import FakeModel, Reply, Request, ToolCall, Turn
from support.host_checks import NEEDLE, tool_named_in
from support.hosts import HostRun, HostWorld

# The first turn's calls, in order: denied, bulky (`big.log` from `host_checks.big_log`),
# small, failed.
KEYS = ("curl", "big", "small", "failed")
COMMANDS = ("curl -s https://example.com/docs", "cat big.log", "echo small-output",
            "ls missing-dir")  # fmt: skip


class PluginHost(Protocol):
    id: str  # ours (`ctxmode setup <id>`)

    def installed(self) -> None:
        """Skip (fail in CI) unless the pinned host is installed."""

    def configure(self, world: HostWorld, model: FakeModel, **options: Any) -> Any:
        """Write the user's config pointing the host at `model`; return what was written."""

    def run(self, world: HostWorld, prompts: Sequence[str]) -> list[HostRun]:
        """Send the prompts, in order, to one session."""


@dataclass
class Session:
    model: FakeModel  # every request it received
    config: Any  # the host's config before `ctxmode setup`
    runs: list[HostRun]


def scripted_session(
    world: HostWorld,
    host: PluginHost,
    turns: list[Turn],
    prompts: Sequence[str],
    *,
    setup: bool = True,
    config: dict[str, Any] | None = None,
    **model_options: Any,
) -> Session:
    """Run `prompts` on `host` against a fake model answering `turns`.

    `setup=False` runs the host as it comes (a baseline); `config` goes to the host's
    `configure`, `model_options` to the FakeModel.
    """
    host.installed()
    with world.fake_model(turns, **model_options) as model:
        written = host.configure(world, model, **(config or {}))
        if setup:
            done = ctx("setup", host.id, cwd=world.work, env=world.env())
            assert done.returncode == 0, done.stderr
        runs = host.run(world, prompts)
    for run in runs:
        assert run.returncode == 0, run.describe()
    return Session(model, written, runs)


def first_turn(shell: Callable[[str], ToolCall], *more: str) -> Reply:
    """The four calls of KEYS (then `more` commands) through the host's shell tool."""
    return Reply(tool_calls=[shell(command) for command in (*COMMANDS, *more)])


def results(request: Request, keys: Sequence[str] = KEYS) -> dict[str, str]:
    """The first turn's results by key, whatever order the host sent them in (OMP's is the
    order the calls finished)."""
    messages = request.body["messages"]
    calls = next(m["tool_calls"] for m in messages if m.get("tool_calls"))
    key_of = {call["id"]: key for call, key in zip(calls, keys, strict=True)}
    found = {key_of[m["tool_call_id"]]: m["content"] for m in messages
             if m.get("role") == "tool" and m.get("tool_call_id") in key_of}  # fmt: skip
    return {key: text if isinstance(text, str) else "\n".join(p.get("text", "") for p in text)
            for key, text in found.items()}  # fmt: skip


def execute_and_search(our_name: str, needle: str = NEEDLE, keys: Sequence[str] = KEYS) -> Turn:
    """What a model does with our deny reason and our notice: call the tools they name
    (`our_name` is the host's naming of our tools, with `{tool}` in it), searching for
    `needle`."""

    def named(text: str, tool: str) -> str:
        return tool_named_in(text, re.escape(our_name.format(tool=tool)) + r"\b")

    def turn(request: Request) -> Reply:
        found = results(request, keys)
        label = re.search(r'source="([^"]+)"', found["big"]).group(1)
        return Reply(tool_calls=[
            ToolCall(named(found["curl"], "ctx_execute"),
                     {"language": "shell", "code": "echo FACT-$((40 + 2))"}),
            ToolCall(named(found["big"], "ctx_search"), {"queries": [needle], "source": label}),
        ])  # fmt: skip

    return turn
