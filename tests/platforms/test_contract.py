"""Every host module fulfils the `Platform` contract, its declared capabilities are what its
envelopes can carry, and the hooks core and the vocabulary stay independent of the hosts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxmode.platforms import REGISTRY, all_platforms, load
from ctxmode.platforms._table import host_table
from ctxmode.vocab import event as ev
from ctxmode.vocab.event import Decision
from ctxmode.vocab.platform import Platform
from ctxmode.vocab.toolnames import SERVER_NAME

ROOT = Path(__file__).resolve().parents[2]
PROBE = "ctxmode-capability-probe"
CANONICAL = {
    ev.PRE_TOOL_USE, ev.POST_TOOL_USE, ev.SESSION_START, ev.PRE_COMPACT, ev.USER_PROMPT_SUBMIT,
    ev.STOP, ev.SESSION_END, ev.AGENT_SPAWN, ev.AFTER_MODEL, ev.BEFORE_AGENT,
    ev.AFTER_AGENT_RESPONSE, ev.POST_TOOL_USE_FAILURE,
}  # fmt: skip
IDS = sorted(REGISTRY)


@pytest.fixture
def codex_with_rewrites(tmp_path, monkeypatch):
    """A `codex` on PATH new enough for rewrites (Codex gates them on its version)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "codex"
    script.write_text('#!/bin/sh\necho "codex-cli 0.141.0"\n', encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))


def host_event_for(platform: Platform, canonical: str) -> str:
    return next((name for name, value in platform.events.items() if value == canonical), "")


def rendered(platform: Platform, canonical: str, decision: Decision) -> str:
    """All the text the host gets back for `decision` on its `canonical` event ("" if none)."""
    host_event = host_event_for(platform, canonical)
    if not host_event:
        return ""
    event = platform.parse({"tool_name": "Read", "tool_input": {"file_path": "/x"}}, host_event)
    output = platform.render(event, decision)
    return output.stdout + output.stderr


@pytest.mark.parametrize("platform_id", IDS)
def test_every_registered_module_builds_its_platform(platform_id):
    platform = load(platform_id)
    assert isinstance(platform, Platform)
    assert platform.id == platform_id and platform.name
    assert all(name == name.lower() for name in platform.events)  # none: an MCP-only host
    assert set(platform.events.values()) <= CANONICAL
    prefix = platform.tool_prefix(SERVER_NAME)
    assert prefix == "" or SERVER_NAME in prefix
    assert platform.tool_name("ctx_search", "ctx") == platform.tool_prefix("ctx") + "ctx_search"
    assert set(platform.installer.scopes) <= {"user", "project"} and platform.installer.scopes


def test_a_platform_is_read_only():
    platform = load("claude-code")
    with pytest.raises(AttributeError):
        platform.can_deny = False  # type: ignore[misc]


@pytest.mark.usefixtures("codex_with_rewrites")
@pytest.mark.parametrize("platform_id", IDS)
def test_declared_capabilities_are_what_the_envelopes_carry(platform_id):
    platform = load(platform_id)
    deny = rendered(platform, ev.PRE_TOOL_USE, Decision.deny(PROBE))
    assert (PROBE in deny) == platform.can_deny
    modify = rendered(platform, ev.PRE_TOOL_USE, Decision.modify({"file_path": "/x", PROBE: 1}))
    assert (PROBE in modify) == platform.can_modify_input
    replace = rendered(platform, ev.POST_TOOL_USE, Decision.replace_output(PROBE))
    assert (PROBE in replace) == platform.can_replace_output
    if platform.can_inject_context:  # some hosts take the envelope and then ignore it
        assert PROBE in rendered(platform, ev.SESSION_START, Decision.add_context(PROBE))


def test_the_readme_host_table_is_generated_from_the_platforms():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert host_table() in readme, "regenerate: python -m ctxmode.platforms._table"
    assert [p.id for p in all_platforms()] == list(REGISTRY)


def imported_after(*modules: str) -> list[str]:
    """The ctxmode modules a fresh interpreter has loaded after importing `modules`."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT / 'src')!r}); "
        + "; ".join(f"import {name}" for name in modules)
        + "; print(sorted(m for m in sys.modules if m.startswith('ctxmode')))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.replace("'", '"'))


def test_the_hooks_core_imports_no_host_module():
    core = ("ctxmode.hooks.runner", "ctxmode.hooks.handlers", "ctxmode.hooks.routing",
            "ctxmode.hooks.posttooluse", "ctxmode.hooks.routing_block")  # fmt: skip
    loaded = imported_after(*core)
    assert not [name for name in loaded if name.startswith("ctxmode.platforms")]


def test_the_vocabulary_imports_nothing_else_of_ctxmode():
    loaded = imported_after(
        "ctxmode.vocab.event", "ctxmode.vocab.fields", "ctxmode.vocab.toolnames",
        "ctxmode.vocab.platform",
    )  # fmt: skip
    assert {name for name in loaded if not name.startswith("ctxmode.vocab")} == {"ctxmode"}
