"""The real Kimi CLI (PyPI kimi-cli), offline, with what `ctxmode setup kimi` wrote.

Bare `kimi` in this release prints a deprecation notice or runs an installer fetched
from the network, so the test starts the original command line by its module entry.
Kimi acts on a PreToolUse deny only and ignores hook context: the routing block
reaches the model through the `.kimi/AGENTS.md` setup writes into the project, which
Kimi puts into its system prompt.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ctxmode.platforms.kimi import PLATFORM as kimi_host
from support.cli import ctx
from support.fake_model import FakeModel, call, reply
from support.host_checks import (
    ROUTING_MARKER,
    execute_named_tool,
    named_tools_exist,
    offered_our_tools,
    routing_block_once,
    tallied_events,
)
from support.hosts import HostRun, HostWorld, Request, pypi_python

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ORIGINAL_CLI = (
    "import sys; from kimi_cli.__main__ import run_original_cli; "
    "sys.exit(run_original_cli(sys.argv[1:]))"
)
ANY_OUR_TOOL = r"\b(?:mcp__[\w-]+__)?ctx_[a-z_]+\b"


def kimi_python() -> Path:
    return pypi_python("kimi", (3, 12))


def user_config(model: FakeModel) -> str:
    """A user's own ~/.kimi/config.toml: one OpenAI-compatible provider (the fake)."""
    return f"""default_model = "fake"

[providers.fake]
type = "openai_legacy"
base_url = "{model.url}/v1"
api_key = "fake-key"

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 100000
"""


def kimi(world: HostWorld, prompt: str, work: Path | None = None) -> HostRun:
    command = [
        kimi_python(), "-c", ORIGINAL_CLI, "--print", "--output-format", "stream-json",
        "-w", work or world.work, "-p", prompt,
    ]  # fmt: skip
    run = world.run(command, env=world.env())
    assert run.returncode == 0, run.describe()
    return run


def setup(world: HostWorld, *options: str, cwd: Path | None = None) -> None:
    done = ctx("setup", "kimi", *options, cwd=cwd or world.work, env=world.env())
    assert done.returncode == 0, done.stderr


def block_names_real_tools(request: Request) -> None:
    """The routing block reached the model once, in the system prompt, naming only tools
    the host offers (Kimi keeps our tools' bare names)."""
    block = routing_block_once(request)
    assert ROUTING_MARKER in request.system()
    assert named_tools_exist(block, ANY_OUR_TOOL, request)


def test_user_scope_session_denies_curl_runs_ctx_execute_and_uninstalls(world: HostWorld) -> None:
    kimi_python()
    share = world.home / ".kimi"
    share.mkdir()
    turns = [
        call("FetchURL", url="http://example.com/docs"),
        call("Shell", command="curl -s http://example.com"),
        execute_named_tool(ANY_OUR_TOOL.replace("[a-z_]+", "execute")),
    ]
    with world.fake_model([*turns, reply("done")]) as model:
        original = user_config(model)
        (share / "config.toml").write_text(original)
        setup(world)
        kimi(world, "Fetch example.com")

    first, after_fetch, after_curl, after_execute = model.main_requests
    offered_our_tools(first, "{tool}")  # Kimi keeps an MCP tool's bare name
    fetch_denied = after_fetch.tool_results()[-1]
    assert "knowledge base" in fetch_denied and "http://example.com/docs" in fetch_denied
    named_tools_exist(fetch_denied, ANY_OUR_TOOL, after_fetch)
    block_names_real_tools(first)
    block_names_real_tools(after_execute)
    denied = after_curl.tool_results()[-1]
    assert "was not run" in denied
    named_tools_exist(denied, ANY_OUR_TOOL, after_curl)
    assert "FACT-42" in after_execute.tool_results()[-1]
    # The hooks setup registered ran (no compaction in this session), and nothing else.
    registered = tomllib.loads((share / "config.toml").read_text())["hooks"]
    wired = {kimi_host.events[hook["event"].lower()] for hook in registered}
    assert tallied_events("kimi", world.home) == wired - {"pre_compact"}

    setup(world, "--uninstall")
    assert (share / "config.toml").read_text() == original
    assert not (share / "mcp.json").exists()
    assert not (world.work / ".kimi" / "AGENTS.md").exists()


def test_project_scope_block_reaches_the_model_from_a_subdirectory(world: HostWorld) -> None:
    kimi_python()
    (world.home / ".kimi").mkdir()
    (world.work / ".git").mkdir()  # the project root Kimi reads instructions down from
    package = world.work / "pkg"
    package.mkdir()
    own_rules = "# Team rules\nRun make check before a commit.\n"
    (world.work / "AGENTS.md").write_text(own_rules)
    with world.fake_model([reply("done")]) as model:
        (world.home / ".kimi" / "config.toml").write_text(user_config(model))
        setup(world, "--project", str(world.work), cwd=world.root)
        setup(world, "--project", str(world.work), cwd=world.root)  # again: still once
        kimi(world, "Hello", work=package)

    (request,) = model.main_requests
    block_names_real_tools(request)
    assert "Run make check before a commit." in request.system()  # the user's file, as is

    setup(world, "--project", str(world.work), "--uninstall", cwd=world.root)
    assert not (world.work / ".kimi" / "AGENTS.md").exists()
    assert (world.work / "AGENTS.md").read_text() == own_rules
