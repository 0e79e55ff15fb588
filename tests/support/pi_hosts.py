"""Running the real Pi (`pi -p`) and OMP (`bun dist/cli.js -p`) offline against a FakeModel.

OMP is Pi's fork: same command line, same models and settings shapes (Pi's
`models.json` and `settings.json`, OMP's `models.yml` and `config.yml`, which take JSON
as the YAML it is), its own agent dir.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from support.fake_model import FakeModel
from support.hosts import HostRun, HostWorld, npm_host

MODEL = "fake-model"
OMP_CLI = ("node_modules", "@oh-my-pi", "pi-coding-agent", "dist", "cli.js")


@dataclass
class Host:
    id: str  # ours, and its npm install's name under .hosts/
    agent: str  # its agent dir under HOME
    models: str  # its models file in the agent dir
    settings: str  # its settings file in the agent dir

    def installed(self) -> None:
        self.argv()

    def configure(
        self,
        world: HostWorld,
        model: FakeModel,
        context_window: int = 0,
        settings: dict | None = None,
    ) -> list[str]:
        """The models file (and `settings`); the agent dir's files, as setup will find it."""
        write_models(world, self, model, context_window)
        if settings:
            write_settings(world, self, settings)
        agent = agent_dir(world, self)
        return sorted(str(path.relative_to(agent)) for path in agent.rglob("*"))

    def run(self, world: HostWorld, prompts: Sequence[str]) -> list[HostRun]:
        return [run_host(world, self, *prompts)]

    def argv(self) -> list[str]:
        if self.id == "pi":
            return [str(npm_host("pi", "pi"))]
        bun = npm_host("bun", "bun")
        return [str(bun), str(npm_host("omp", "omp").parents[2].joinpath(*OMP_CLI))]


HOSTS = [
    Host("pi", ".pi/agent", "models.json", "settings.json"),
    Host("omp", ".omp/agent", "models.yml", "config.yml"),
]
OFFLINE = {"PI_OFFLINE": "1", "PI_TELEMETRY": "0"}


def agent_dir(world: HostWorld, host: Host) -> Path:
    return world.home / host.agent


def write_models(world: HostWorld, host: Host, model: FakeModel, context_window: int = 0) -> None:
    """The host's models file: one OpenAI-compatible provider, `fake`, at the fake model."""
    window = {"contextWindow": context_window} if context_window else {}
    provider = {
        "baseUrl": f"{model.url}/v1",
        "api": "openai-completions",
        "apiKey": "fake-key",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": MODEL, "reasoning": False, **window}],
    }
    path = agent_dir(world, host) / host.models
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"providers": {"fake": provider}}, indent=2), encoding="utf-8")


def write_settings(world: HostWorld, host: Host, settings: dict) -> None:
    path = agent_dir(world, host) / host.settings
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2), encoding="utf-8")


def run_host(world: HostWorld, host: Host, *prompts: str) -> HostRun:
    """One `-p` run; each prompt is a user message, answered in turn."""
    command = [
        *host.argv(),
        "-p",
        "--mode",
        "json",
        "--provider",
        "fake",
        "--model",
        MODEL,
        *prompts,
    ]
    return world.run(command, env=world.env(**OFFLINE), timeout=300)
