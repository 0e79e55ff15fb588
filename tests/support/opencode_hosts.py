"""Running the real OpenCode and Kilo (`<binary> run`) offline: their config and environment.

Kilo is OpenCode's fork: same plugin API, config shape and MCP tool naming (`<server>_<tool>`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from support.fake_model import FakeModel
from support.hosts import HostRun, HostWorld, npm_host

OFFLINE = {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
           "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1"}  # fmt: skip
KILO_OFFLINE = {"KILO_DISABLE_AUTOUPDATE": "1", "KILO_DISABLE_MODELS_FETCH": "1",
                "KILO_DISABLE_SHARE": "1", "KILO_DISABLE_LSP_DOWNLOAD": "1",
                "KILO_TELEMETRY_LEVEL": "off"}  # fmt: skip


@dataclass
class Host:
    id: str  # ours, and its npm install's name under .hosts/
    binary: str
    config: str  # under ~/.config
    env: dict[str, str]
    extra: dict  # config keys this host needs besides OpenCode's

    def installed(self) -> None:
        npm_host(self.id, self.binary)

    def config_path(self, world: HostWorld) -> Path:
        return world.home / ".config" / self.config

    def configure(self, world: HostWorld, model: FakeModel) -> dict:
        """The user's config: the fake model as the only provider, every tool allowed."""
        config = host_config(model, self)
        path = self.config_path(world)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        return config

    def run(self, world: HostWorld, prompts: Sequence[str]) -> list[HostRun]:
        return [run_host(world, self, prompt) for prompt in prompts]


HOSTS = [
    Host("opencode", "opencode", "opencode/opencode.json", OFFLINE, {}),
    # Without `enabled_providers` Kilo fetches a model list at start.
    Host("kilo", "kilo", "kilo/kilo.json", {**OFFLINE, **KILO_OFFLINE},
         {"enabled_providers": ["fake"]}),
]  # fmt: skip


# The fake model's window: a reply reporting more prompt tokens than CONTEXT - OUTPUT
# makes the host compact the session before its next request.
LIMIT = {"context": 50_000, "output": 4_000}


def host_config(model: FakeModel, host: Host) -> dict:
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Fake",
        "options": {"baseURL": f"{model.url}/v1", "apiKey": "fake-key"},
        "models": {"fake-model": {"name": "Fake model", "limit": LIMIT}},
    }
    return {"provider": {"fake": provider}, "permission": {"*": "allow"}, "share": "disabled",
            "autoupdate": False, **host.extra}  # fmt: skip


def _shell_states(run: HostRun) -> list[dict]:
    """Each shell call's final state, in order, from the events `run --format json` prints."""
    parts = [event.get("part") or {} for event in run.events() if event.get("type") == "tool_use"]
    return [part["state"] for part in parts if part.get("tool") == "bash"]


def shell_exit_codes(run: HostRun) -> list[int]:
    """The exit code of each shell call the host ran (the model is not told them)."""
    return [state["metadata"].get("exit") for state in _shell_states(run)]


def shell_commands(run: HostRun) -> list[str]:
    """The command of each shell call as the host ran it (after our plugin's rewrite)."""
    return [state["input"].get("command", "") for state in _shell_states(run)]


def run_host(world: HostWorld, host: Host, prompt: str) -> HostRun:
    binary = npm_host(host.id, host.binary)
    command = [binary, "run", "--format", "json", "--dir", str(world.work), "-m", "fake/fake-model",
               prompt]  # fmt: skip
    return world.run(command, env=world.env(**host.env), timeout=300)
