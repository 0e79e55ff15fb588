"""A debugging session on a real host, with and without ctxmode, scored by what the model got.

The project (built fresh per run, our own data): test runs of pytest, jest, go test, cargo
test and the project's own scripts (each in its runner's real format, of 3 KB to 350 KB,
failing at the start, middle or end of the run, or passing), a 200 KB log, a 60 KB source
file, a tree worth grepping, a 200-commit git history and a docs page served on 127.0.0.1.
Each step has its facts: for a failing test run each failing test's id and its assertion
message, for a passing one its summary line, for the others one line hidden in the middle.
The scripted model is compliant: it takes each step with the host's own tool, then does
what the tool result tells it — runs the exact command a deny names, calls the search or
fetch tool a notice names (by the name the notice gives), with a query for what it is
after — unless what it received for the step already holds every fact it came for. Score per step: the bytes the model received for its tool calls (each result, plus
what the host sent beside it), and which facts were in them.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support import dsh_host
from support.cli import ctx
from support.fake_model import FakeModel, Reply, Request, ToolCall, _flatten
from support.hosts import HostRun, HostWorld, npm_host
from support.mcp_servers import page_server
from support.openclaw_host import OpenClaw
from support.opencode_hosts import HOSTS as OPENCODE_HOSTS
from support.pi_hosts import HOSTS as PI_HOSTS
from support.plugin_session import PluginHost
from support.runner_output import Run, run_output


@dataclass(frozen=True)
class Step:
    name: str  # "<family>/<shape>" for a test run
    action: str  # "shell", "read" or "fetch"
    argument: str  # the command, the path relative to the work dir, or the URL path
    query: str  # what the model searches for when told to
    facts: tuple[str, ...]  # what the model needs from this step
    run: Run | None = None  # a test run: what the runner prints, and its exit code

    @property
    def family(self) -> str:
        return self.name.split("/")[0] if self.run else "other"

    @property
    def failing_ids(self) -> tuple[str, ...]:
        return self.facts[0::2] if self.run and self.run.exit_code else ()


OTHER_STEPS = (
    Step("log", "shell", "cat logs/app.log", "gateway timeout order",
         ("gateway timeout after 30000ms order=88231",)),
    Step("source", "read", "src/billing.py", "RETRY_BUDGET_SECONDS", ("RETRY_BUDGET_SECONDS = 7429",)),
    Step("grep", "shell", "grep -rn TODO src", "TODO security signing key",
         ("TODO(security): rotate the webhook signing key",)),
    Step("git", "shell", "git log", "double charge retries",
         ("Fix double charge when the card network retries",)),
    Step("docs", "fetch", "/docs/webhooks.html", "idempotency window seconds",
         ("idempotency window is 86400 seconds",)),
)  # fmt: skip

# The test runs: each runner (and a project's own scripts printing a runner's format) at
# three sizes, failures at the start, middle or end of the run (rotated per runner), and
# one passing run. What the model runs is what a developer types; `bin/` stand-ins (and
# the scripts) print what the real runner prints for it.
#        name                             command                          format   size     position failing
RUNS = (("pytest/fail-small-start",        "pytest -v tests/unit/test_tax.py", "pytest", "small", "start", 2),
        ("pytest/fail-large-middle",       "pytest -v tests",               "pytest", "large", "middle", 3),
        ("pytest/fail-huge-end",           "pytest -v -p no:cacheprovider tests/integration",
                                                                            "pytest", "huge", "end", 3),
        ("pytest/pass-large",              "pytest -v tests/api",           "pytest", "large", "end", 0),
        ("jest/fail-small-middle",         "npx jest src/tax",              "jest", "small", "middle", 2),
        ("jest/fail-large-end",            "npx jest --verbose",            "jest", "large", "end", 3),
        ("jest/fail-huge-start",           "npx jest --verbose --ci src",   "jest", "huge", "start", 3),
        ("jest/pass-small",                "npx jest src/cart",             "jest", "small", "end", 0),
        ("go/fail-small-end",              "go test -v ./tax/...",          "go", "small", "end", 2),
        ("go/fail-large-start",            "go test -v ./...",              "go", "large", "start", 3),
        ("go/fail-huge-middle",            "go test -v -count=1 ./...",     "go", "huge", "middle", 3),
        ("go/pass-large",                  "go test -v ./api/...",          "go", "large", "end", 0),
        ("cargo/fail-small-start",         "cargo test tax",                "cargo", "small", "start", 2),
        ("cargo/fail-large-end",           "cargo test",                    "cargo", "large", "end", 3),
        ("cargo/fail-huge-middle",         "cargo test --workspace",        "cargo", "huge", "middle", 3),
        ("cargo/pass-huge",                "cargo test --release",          "cargo", "huge", "end", 0),
        ("script/run_tests-fail-large-middle", "./run_tests.sh",            "pytest", "large", "middle", 3),
        ("script/ci-fail-huge-end",        "bash scripts/ci.sh",            "go", "huge", "end", 3),
        ("script/make-fail-small-start",   "make check",                    "cargo", "small", "start", 2),
        ("script/test-pass-large",         "./scripts/test",                "jest", "large", "end", 0))  # fmt: skip
STANDINS = ("pytest", "npx", "go", "cargo")  # the runners the model calls by name
FAILURES_QUERY = "failing tests assertion error"


def _test_steps() -> tuple[Step, ...]:
    steps = []
    for seed, (name, command, runner, size, position, failing) in enumerate(RUNS, start=1):
        run = run_output(runner, size, position, failing, seed)
        query = FAILURES_QUERY if failing else "test summary passed"
        steps.append(Step(name, "shell", command, query, run.facts, run))
    return tuple(steps)


STEPS = (*_test_steps(), *OTHER_STEPS)
BY_NAME = {step.name: step for step in STEPS}
FAMILIES = tuple(dict.fromkeys(step.family for step in STEPS))
# A few minutes' worth: every runner and script kind, every size, position and exit status.
QUICK = ("pytest/fail-large-middle", "jest/fail-huge-start", "go/fail-small-end",
         "cargo/pass-huge", "script/run_tests-fail-large-middle")  # fmt: skip
# The fixed session tests/platforms/real/test_session.py runs: a failing test run of ~110 KB
# with its failures mid-run, and the other five kinds of bulky step.
SESSION = ("pytest/fail-large-middle", *(step.name for step in OTHER_STEPS))


# ------------------------------------------------------------------ the project


def build_project(world: HostWorld, steps: Sequence[Step]) -> None:
    """Write the project's files, test runners and 200-commit history into the work dir,
    with its `bin/` first on PATH (also for login shells, through the user's profile)."""
    work = world.work
    for directory in ("bin", "logs", "src/pkg", "scripts", ".runs"):
        (work / directory).mkdir(parents=True, exist_ok=True)
    world.path.insert(0, work / "bin")
    profile = f'export PATH="{work / "bin"}:$PATH"\n'
    for name in (".bash_profile", ".profile"):
        (world.home / name).write_text(profile)
    _write_runners(work, [step for step in steps if step.run])
    lines = [f"2026-11-30T10:{i // 60 % 60:02d}:{i % 60:02d}Z INFO request id=r{i:06d} "
             f"path=/api/orders/{i % 97} status=200 ms={i % 41 + 3}\n" for i in range(2400)]  # fmt: skip
    lines[1300] = "2026-11-30T10:21:40Z ERROR gateway timeout after 30000ms order=88231\n"
    (work / "logs" / "app.log").write_text("".join(lines))
    code = [f"def rule_{i}(amount, rate):\n    return round(amount * rate + {i}, 2)\n\n"
            for i in range(860)]  # fmt: skip
    code[700] = "RETRY_BUDGET_SECONDS = 7429\n\n"
    (work / "src" / "billing.py").write_text("".join(code))
    for n in range(40):
        todos = [
            f"# TODO: tidy helper number {n}-{k} once the new API settles\n" for k in range(20)
        ]
        if n == 23:
            todos[11] = "# TODO(security): rotate the webhook signing key\n"
        (work / "src" / "pkg" / f"mod_{n:02d}.py").write_text("".join(todos))
    _git_history(work)


def _write_runners(work: Path, steps: list[Step]) -> None:
    """For each test run: its output saved under `.runs/`, printed by a `bin/` stand-in
    for the runner named in its command, or by the project's own script it names."""
    cases: dict[str, list[str]] = {name: [] for name in STANDINS}
    for number, step in enumerate(steps):
        assert step.run is not None
        printing = []
        for part, (fd, text) in enumerate(step.run.parts):
            saved = work / ".runs" / f"{number}.{part}"
            saved.write_text(text)
            printing.append(f"cat '{saved}'" + (" >&2" if fd == 2 else ""))
        body = "; ".join([*printing, f"exit {step.run.exit_code}"])
        program, _, arguments = step.argument.partition(" ")
        if program in cases:
            cases[program].append(f"  '{arguments}') {body};;")
        elif program == "make":
            (work / "Makefile").write_text("check:\n\t@./scripts/check.sh\n")
            _script(work / "scripts" / "check.sh", body)
        else:  # `./run_tests.sh`, `bash scripts/ci.sh`, `./scripts/test`
            _script(work / step.argument.removeprefix("bash ").removeprefix("./"), body)
    for program, lines in cases.items():
        # Anything else goes to the real program (a host may run npx itself).
        rest = f'  *) PATH=$(printf %s "$PATH" | sed "s#{work / "bin"}:##g") exec {program} "$@";;'
        _script(work / "bin" / program, "\n".join(['case "$*" in', *lines, rest, "esac"]))


def _script(path: Path, body: str) -> None:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _git_history(work: Path) -> None:
    stream = []
    for i in range(200):
        subject = (
            "Fix double charge when the card network retries"
            if i == 117
            else f"Refactor ledger step {i}: tidy helpers and update docs"
        )
        message = f"{subject}\n\nTouches the ledger module, part {i} of the cleanup.\n"
        content = f"entry {i}\n"
        stream += [
            "commit refs/heads/main", f"mark :{i + 1}",
            f"committer Dev {i % 7} <dev{i % 7}@example.com> {1764000000 + i * 3600} +0000",
            f"data {len(message.encode())}", message,
            *( [f"from :{i}"] if i else []),
            "M 644 inline CHANGES.txt", f"data {len(content.encode())}", content,
        ]  # fmt: skip
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=work, check=True,
                   input="\n".join(stream).encode())  # fmt: skip
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=work, check=True)


def docs_page() -> str:
    paragraphs = [f"<p>Webhook delivery note {i}: events are signed and retried with "
                  f"backoff; see section {i % 12} for the payload shape.</p>" for i in range(400)]  # fmt: skip
    paragraphs[260] = "<p>The idempotency window is 86400 seconds for every endpoint.</p>"
    return (
        "<html><head><title>Webhooks</title></head><body><h1>Webhooks</h1>"
        + "".join(paragraphs)
        + "</body></html>"
    )


@contextmanager
def docs_server(world: HostWorld) -> Iterator[str]:
    """Serve the docs page on 127.0.0.1 inside the world's network; yields the base URL."""
    with page_server(world, docs_page()) as url:
        yield url.rstrip("/")


# ------------------------------------------------------------------ the compliant model

SEARCH_CALL = re.compile(r'([\w.-]*ctx_search)\(queries=\[[^\]]*\], source="([^"]+)"\)')
FETCH_CALL = re.compile(r"([\w.-]*ctx_fetch_and_index)\(url")
RUN_INSTEAD = "Run exactly this instead"
# A search a notice names, in whatever form it gives the call: the tool, then its source.
SEARCH_TOOL = re.compile(r"[\w.-]*ctx_search\b")
SEARCH_SOURCE = re.compile(r'source["\']?\s*[=:]\s*"([^"]+)"')
SHELL_TOOLS = ("Bash", "run_shell_command", "bash", "shell", "exec_command", "local_shell", "exec")
READ_TOOLS = ("Read", "read_file", "view", "read")
FETCH_TOOLS = ("WebFetch", "web_fetch", "webfetch")
PATH_KEYS = ("file_path", "absolute_path", "filePath")


def _schema(request: Request, name: str) -> dict[str, Any]:
    tools = list(request.body.get("tools") or [])
    tools += [member for tool in tools if tool.get("type") == "namespace"
              for member in tool.get("tools", [])]  # fmt: skip
    for tool in tools:
        if request.api == "gemini":
            for function in tool.get("functionDeclarations", []):
                if function.get("name") == name:
                    return function.get("parameters") or function.get("parametersJsonSchema") or {}
        function = tool.get("function", tool)
        if function.get("name") == name:
            return function.get("parameters") or function.get("input_schema") or {}
    return {}


def received(request: Request) -> list[str]:
    """What the model got back for each tool call: the result, plus (Anthropic) the text
    blocks the host sent beside it, such as a hook's additional context."""
    if request.api != "anthropic":
        return request.tool_results()
    found = []
    for message in request.body.get("messages", []):
        blocks = message.get("content")
        if not (message.get("role") == "user" and isinstance(blocks, list)):
            continue
        if any(block.get("type") == "tool_result" for block in blocks):
            found.append("\n".join(_flatten(block) for block in blocks))
    return found


def unquoted(result: str) -> str:
    """A result as the model reads it: Gemini CLI sends a tool's output or error as JSON text."""
    try:
        value = json.loads(result)
    except ValueError:
        return result
    if not isinstance(value, dict):
        return result
    return "\n".join(v for v in value.values() if isinstance(v, str))


def _pick(request: Request, names: tuple[str, ...]) -> str | None:
    offered = request.tool_names()
    return next((name for name in names if name in offered), None)


def named_search(result: str) -> tuple[str, str] | None:
    """The search tool and source label a result tells the model to use, if it does."""
    if found := SEARCH_CALL.search(result):
        return found.group(1), found.group(2)
    tool, source = SEARCH_TOOL.search(result), SEARCH_SOURCE.search(result)
    return (tool.group(0), source.group(1)) if tool and source else None


@dataclass
class CompliantAgent:
    """Takes its steps in order with the host's tools; follows what each tool result says.

    Every result the host sends is kept under the step it belongs to (`received_by_step`),
    from the first request that carries it, so what a host drops later still counts.
    """

    work: Path
    docs_url: str
    steps: list[Step] = field(default_factory=lambda: [BY_NAME[name] for name in SESSION])
    follow_ups: int = 0
    log: list[str] = field(default_factory=list)
    current: Step = STEPS[0]
    search_tool: str = "ctx_search"
    received_by_step: dict[str, list[str]] = field(default_factory=dict)
    seen: int = 0

    def __call__(self, request: Request) -> Reply:
        results = received(request)
        if len(results) > self.seen:
            self.received_by_step.setdefault(self.current.name, []).extend(results[self.seen :])
            self.seen = len(results)
        if results and self.follow_ups < 3:
            follow = self._follow(request, unquoted(results[-1]))
            if follow is not None:
                self.follow_ups += 1
                return follow
        if not self.steps:
            return Reply(text="Done: every step taken, the facts are above.")
        self.follow_ups = 0
        self.current = self.steps.pop(0)
        return self._take(request, self.current)

    def _take(self, request: Request, step: Step) -> Reply:
        if step.action == "read" and (tool := _pick(request, READ_TOOLS)):
            return self._call(request, tool, path=str(self.work / step.argument))
        if step.action == "fetch":
            url = self.docs_url + step.argument
            if tool := _pick(request, FETCH_TOOLS):
                return self._call(request, tool, url=url)
            return self._shell(request, f"curl -s {url}")
        command = step.argument if step.action == "shell" else f"cat {step.argument}"
        return self._shell(request, command)

    def _follow(self, request: Request, result: str) -> Reply | None:
        step = self.current
        if RUN_INSTEAD in result:
            return self._shell(request, result.split(RUN_INSTEAD, 1)[1].split("\n", 1)[1].strip())
        if (found := FETCH_CALL.search(result)) and "ctx_fetch_and_index" not in self.log[-1:]:
            self.log.append("ctx_fetch_and_index")
            self.search_tool = found.group(1).replace("ctx_fetch_and_index", "ctx_search")
            return self._call(
                request, found.group(1), url=self.docs_url + step.argument, source="docs"
            )
        if (found := named_search(result)) and found[1] not in self.log and self._lacking():
            self.log.append(found[1])
            # A model searches for what it is after, and for each failing test it was shown.
            queries = [step.query, *(test for test in step.failing_ids if test in result)]
            return self._call(request, found[0], queries=queries, source=found[1])
        if self.log[-1:] == ["ctx_fetch_and_index"] and "docs" not in self.log:
            self.log.append("docs")
            # The fetch reply names no host tool: search with the fetch tool's own prefix.
            return self._call(request, self.search_tool, queries=[step.query], source="docs")
        return None

    def _lacking(self) -> bool:
        """Whether the step's results so far miss one of its facts: a model that has what
        it came for does not search."""
        have = "\n".join(
            unquoted(text) for text in self.received_by_step.get(self.current.name, [])
        )
        return not all(fact in have for fact in self.current.facts)

    def _shell(self, request: Request, command: str) -> Reply:
        tool = _pick(request, SHELL_TOOLS) or "Bash"
        schema = _schema(request, tool).get("properties", {})
        key = "cmd" if "cmd" in schema and "command" not in schema else "command"
        value: Any = (
            ["bash", "-lc", command] if schema.get(key, {}).get("type") == "array" else command
        )
        wait = {"yieldMs": 300_000} if "yieldMs" in schema else {}  # OpenClaw: not in background
        return self._call(request, tool, **{key: value}, **wait)

    def _call(self, request: Request, tool: str, **arguments: Any) -> Reply:
        schema = _schema(request, tool).get("properties", {})
        if "path" in arguments and "path" not in schema:
            key = next((k for k in PATH_KEYS if k in schema), "file_path")
            arguments[key] = arguments.pop("path")
        if "url" in arguments and "prompt" in schema:  # WebFetch wants a question too
            url = arguments["url"] if "url" in schema else arguments.pop("url")
            arguments["prompt"] = f"Read {url} and report the {self.current.query}"
        if "url" in arguments and "format" in schema:  # OpenCode's webfetch
            arguments["format"] = "text"
        if "description" in schema and "description" not in arguments:
            arguments["description"] = "debugging step"
        # Codex offers an MCP server's tools inside a namespace; a call names both.
        namespace = next(
            (ns for ns, members in request.namespaces().items() if tool in members), ""
        )
        return Reply(tool_calls=[ToolCall(tool, arguments, namespace)])


# ------------------------------------------------------------------ hosts


@dataclass
class Host:
    id: str
    run: Callable[[HostWorld, FakeModel, str], HostRun]
    prepare: Callable[[HostWorld], None] = lambda world: None
    # A plugin host's config names the model's URL: written once it runs, before setup.
    configure: Callable[[HostWorld, FakeModel], object] = lambda world, model: None
    setup_options: tuple[str, ...] = ()
    setup_env: Callable[[HostWorld], dict[str, str]] = HostWorld.env


def _claude(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("claude-code", "claude")
    command = [binary, "-p", prompt, "--output-format", "stream-json", "--verbose",
               "--model", "claude-sonnet-4-5", "--max-turns", "200",
               "--allowedTools", "Bash,Read,WebFetch,mcp__context-mode,mcp__fs,mcp__playwright"]  # fmt: skip
    env = world.env(ANTHROPIC_BASE_URL=model.url, ANTHROPIC_API_KEY="fake-key",
                    DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1",
                    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", ENABLE_TOOL_SEARCH="false",
                    MCP_CONNECTION_NONBLOCKING="false",
                    MCP_TIMEOUT="120000")  # a loaded CI box starts our server slowly  # fmt: skip
    return world.run(command, env=env, timeout=600)


def _claude_prepare(world: HostWorld) -> None:
    (world.home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True,
        "projects": {str(world.work): {"hasTrustDialogAccepted": True}},
    }))  # fmt: skip


def _qwen(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("qwen-code", "qwen")
    command = [binary, "-p", prompt, "-o", "stream-json", "--yolo", "--auth-type", "openai",
               "-m", "fake-model"]  # fmt: skip
    env = world.env(OPENAI_BASE_URL=model.url + "/v1", OPENAI_API_KEY="fake-key")
    return world.run(command, env=env, timeout=600)


def _qwen_prepare(world: HostWorld) -> None:
    settings = world.home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "openai"}},
                                    "privacy": {"usageStatisticsEnabled": False}}))  # fmt: skip


def _codex(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("codex", "codex")
    config = world.home / ".codex" / "config.toml"
    text = config.read_text() if config.exists() else ""
    config.write_text(
        'model_provider = "fake"\nmodel = "fake-model"\ncheck_for_update_on_startup = false\n'
        # Codex starts MCP servers beside the first request; a user's setting makes it wait.
        "mcp_optional_startup_grace_ms = 20000\n"
        + text
        + f'\n[model_providers.fake]\nname = "fake"\nbase_url = "{model.url}/v1"\n'
        'wire_api = "responses"\nenv_key = "FAKE_API_KEY"\n'
        "\n[analytics]\nenabled = false\n"
    )
    command = [binary, "exec", "-C", str(world.work), "--json", "--skip-git-repo-check",
               "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust",
               prompt]  # fmt: skip
    env = world.env(CODEX_HOME=str(config.parent), FAKE_API_KEY="fake-key",
                    PATH=f"{binary.parent}:{world.env()['PATH']}")  # fmt: skip
    return world.run(command, env=env, timeout=600)


def _codex_prepare(world: HostWorld) -> None:
    (world.home / ".codex").mkdir(parents=True, exist_ok=True)


def _gemini(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("gemini-cli", "gemini")
    command = [binary, "-p", prompt, "-o", "stream-json", "--yolo", "--skip-trust",
               "-m", "gemini-2.5-flash"]  # fmt: skip
    env = world.env(GOOGLE_GEMINI_BASE_URL=model.url, GEMINI_API_KEY="fake-key",
                    GEMINI_CLI_NO_RELAUNCH="true")  # fmt: skip
    return world.run(command, env=env, timeout=600)


def _gemini_prepare(world: HostWorld) -> None:
    settings = world.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"enableAutoUpdate": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }))  # fmt: skip


def _copilot(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    from support.hosts import HOSTS_DIR

    binary = npm_host("copilot-cli", "copilot")
    env = world.env(COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=f"{model.url}/v1",
                    COPILOT_MODEL="gpt-5",
                    COPILOT_PKG_CACHE_HOME=str(HOSTS_DIR / "npm" / "copilot-cli" / "pkg-cache"))  # fmt: skip
    command = [
        binary,
        "-p",
        prompt,
        "--allow-all-tools",
        "--allow-all-paths",
        "--output-format",
        "json",
    ]
    return world.run(command, env=env, timeout=600)


def _plugin(plugin: PluginHost) -> Host:
    """A plugin host (OpenCode, Kilo, Pi, OMP, OpenClaw) as `plugin_session` drives it."""

    def run(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
        return plugin.run(world, [prompt])[-1]

    return Host(plugin.id, run, lambda world: plugin.installed(), plugin.configure)


def _dsh(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    return dsh_host.run(world, model.url, prompt)


COMMAND_HOOK_HOSTS = {
    "claude-code": Host("claude-code", _claude, _claude_prepare),
    "qwen-code": Host("qwen-code", _qwen, _qwen_prepare),
    "codex": Host("codex", _codex, _codex_prepare),
    "gemini-cli": Host("gemini-cli", _gemini, _gemini_prepare),
    "copilot-cli": Host("copilot-cli", _copilot),
}
HOSTS = {
    **COMMAND_HOOK_HOSTS,
    **{plugin.id: _plugin(plugin) for plugin in (*OPENCODE_HOSTS, *PI_HOSTS)},
    "openclaw": _plugin(OpenClaw()),
    "dsh": Host("dsh", _dsh, dsh_host.prepare, setup_options=dsh_host.SETUP_OPTIONS,
                setup_env=dsh_host.dsh_env),
}  # fmt: skip


# ------------------------------------------------------------------ one run, scored


@dataclass
class StepScore:
    bytes: int  # of every result and beside-text the host sent the model for the step
    facts: dict[str, bool]  # each fact of the step: was it in what the model received

    @property
    def found(self) -> int:
        return sum(self.facts.values())


@dataclass
class Score:
    host: str
    with_ctxmode: bool
    steps: dict[str, StepScore]
    run: HostRun

    @property
    def tool_result_bytes(self) -> int:
        return sum(step.bytes for step in self.steps.values())

    @property
    def facts(self) -> dict[str, bool]:
        """Per step: were all its facts received."""
        return {name: step.found == len(step.facts) for name, step in self.steps.items()}

    @property
    def facts_found(self) -> int:
        return sum(step.found for step in self.steps.values())

    @property
    def facts_total(self) -> int:
        return sum(len(step.facts) for step in self.steps.values())


def prompt(steps: Sequence[Step]) -> str:
    return "Debug this project: " + "; ".join(f"{s.action} {s.argument}" for s in steps) + "."


def run_steps(
    world: HostWorld, host: str, steps: list[Step], prompt: str, with_ctxmode: bool = True
) -> tuple[list[str], HostRun]:
    """`steps` taken by the compliant model on `host`, after `ctxmode setup` unless told
    not to: what the model received for its tool calls, and the host's run."""
    chosen = HOSTS[host]
    chosen.prepare(world)
    agent = CompliantAgent(world.work, "", steps=steps)
    with world.fake_model([agent] * 8) as model:
        chosen.configure(world, model)  # a plugin host's config names the model's URL
        if with_ctxmode:
            done = ctx("setup", host, *chosen.setup_options, cwd=world.work,
                       env=chosen.setup_env(world))  # fmt: skip
            assert done.returncode == 0, done.stderr
        run = chosen.run(world, model, prompt)
    return (received(model.main_requests[-1]) if model.main_requests else []), run


def run_session(
    world: HostWorld, host_id: str, with_ctxmode: bool, names: Sequence[str] = SESSION
) -> Score:
    """The steps `names` on `host_id` in one session, in `world`; scored per step."""
    host, steps = HOSTS[host_id], [BY_NAME[name] for name in names]
    build_project(world, steps)
    host.prepare(world)
    with docs_server(world) as docs_url:
        agent = CompliantAgent(world.work, docs_url, list(steps))
        with world.fake_model([agent] * 400) as model:
            host.configure(world, model)
            if with_ctxmode:
                done = ctx("setup", host_id, *host.setup_options, cwd=world.work,
                           env=host.setup_env(world))  # fmt: skip
                assert done.returncode == 0, done.stderr
            run = host.run(world, model, prompt(steps))
    scores = {}
    for step in steps:
        texts = agent.received_by_step.get(step.name, [])
        seen = "\n".join(unquoted(text) for text in texts)
        size = sum(len(text.encode("utf-8")) for text in texts)
        scores[step.name] = StepScore(size, {fact: fact in seen for fact in step.facts})
    return Score(host_id, with_ctxmode, scores, run)
