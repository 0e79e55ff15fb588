"""Running the real Pi (`pi -p`) offline against a FakeModel: its models file and environment."""

from __future__ import annotations

import json

from support.fake_model import FakeModel
from support.hosts import HostRun, HostWorld, npm_host

MODEL = "fake-model"
OFFLINE = {"PI_OFFLINE": "1", "PI_TELEMETRY": "0"}


def write_models(world: HostWorld, model: FakeModel) -> None:
    """`~/.pi/agent/models.json`: one OpenAI-compatible provider, `fake`, at the fake model."""
    provider = {
        "baseUrl": f"{model.url}/v1",
        "api": "openai-completions",
        "apiKey": "fake-key",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": MODEL, "reasoning": False}],
    }
    path = world.home / ".pi" / "agent" / "models.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"providers": {"fake": provider}}, indent=2), encoding="utf-8")


def run_pi(world: HostWorld, prompt: str, *extra: str) -> HostRun:
    binary = npm_host("pi", "pi")
    command = [binary, "-p", "--mode", "json", "--offline", "--provider", "fake", "--model", MODEL,
               *extra, prompt]  # fmt: skip
    return world.run(command, env=world.env(**OFFLINE), timeout=300)
