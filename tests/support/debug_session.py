"""A debugging session on a real host, with and without ctxmode, scored by what the model got.

The project (built fresh per run, our own data): a test run with 3 failures in ~120 KB of
passing noise, a 200 KB log, a 60 KB source file, a tree worth grepping, a 200-commit git
history and a docs page served on 127.0.0.1. Six facts are hidden in them, one per step.
The scripted model is compliant: it takes each step with the host's own tool, then does
what the tool result tells it — runs the exact command a deny names, calls the search or
fetch tool a notice names, with a query for the fact it is after. Score: the bytes the
model received for its tool calls (each result, plus what the host sent beside it),
and which facts are in them.
"""

from __future__ import annotations

import http.server
import json
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.cli import ctx
from support.fake_model import FakeModel, Reply, Request, ToolCall, _flatten
from support.hosts import HostRun, HostWorld, npm_host, socket_in_netns

FAILING_TESTS = ("test_refund_rounds_half_even", "test_currency_parse_rejects_blank",
                 "test_webhook_signature_expiry")  # fmt: skip
FACTS = {
    "tests": FAILING_TESTS,
    "log": ("gateway timeout after 30000ms order=88231",),
    "source": ("RETRY_BUDGET_SECONDS = 7429",),
    "grep": ("TODO(security): rotate the webhook signing key",),
    "git": ("Fix double charge when the card network retries",),
    "docs": ("idempotency window is 86400 seconds",),
}


@dataclass(frozen=True)
class Step:
    name: str
    action: str  # "shell", "read" or "fetch"
    argument: str  # the command, the path relative to the work dir, or the URL path
    query: str  # what the model searches for when told to


STEPS = (
    Step("tests", "shell", "./bin/pytest -q tests", "FAILED test"),  # PATH-proof: login shells
    Step("log", "shell", "cat logs/app.log", "gateway timeout order"),
    Step("source", "read", "src/billing.py", "RETRY_BUDGET_SECONDS"),
    Step("grep", "shell", "grep -rn TODO src", "TODO security signing key"),
    Step("git", "shell", "git log", "double charge retries"),
    Step("docs", "fetch", "/docs/webhooks.html", "idempotency window seconds"),
)


# ------------------------------------------------------------------ the project


def build_project(work: Path) -> None:
    """Write the project's files and its 200-commit history into `work`."""
    (work / "bin").mkdir(parents=True, exist_ok=True)
    (work / "logs").mkdir(exist_ok=True)
    (work / "src" / "pkg").mkdir(parents=True, exist_ok=True)
    _write_test_runner(work / "bin" / "pytest")
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


def _write_test_runner(path: Path) -> None:
    """A stand-in `pytest` printing a real-sized run: ~120 KB, 3 failures."""
    script = (
        "#!/usr/bin/env python3\n"
        "import sys\n"
        f"failing = {FAILING_TESTS!r}\n"
        "out = []\n"
        "for i in range(2600):\n"
        "    out.append(f'tests/test_module_{i % 40:02d}.py::test_case_{i:04d} PASSED')\n"
        "    if i % 860 == 430:\n"
        "        name = failing[i // 860]\n"
        "        out.append(f'tests/test_billing.py::{name} FAILED')\n"
        "out.append('=' * 30 + ' FAILURES ' + '=' * 30)\n"
        "for name in failing:\n"
        "    out += [f'____ {name} ____', '    def ' + name + '():', '>       assert got == want',"
        " 'E       AssertionError: assert 41 == 42', 'tests/test_billing.py:88: AssertionError']\n"
        "out += [f'FAILED tests/test_billing.py::{n} - AssertionError' for n in failing]\n"
        "out.append('=' * 20 + ' 3 failed, 2597 passed in 12.04s ' + '=' * 20)\n"
        "sys.stdout.write('\\n'.join(out) + '\\n')\n"
        "sys.exit(1)\n"
    )
    path.write_text(script)
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
    page = docs_page().encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    sock = socket_in_netns(world.netns)
    server = http.server.ThreadingHTTPServer(sock.getsockname(), Handler, bind_and_activate=False)
    server.socket.close()
    server.socket = sock
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.shutdown()
        server.server_close()


# ------------------------------------------------------------------ the compliant model

SEARCH_CALL = re.compile(r'([\w.-]*ctx_search)\(queries=\[[^\]]*\], source="([^"]+)"\)')
FETCH_CALL = re.compile(r"([\w.-]*ctx_fetch_and_index)\(url")
RUN_INSTEAD = "Run exactly this instead"
SHELL_TOOLS = ("Bash", "run_shell_command", "bash", "shell", "exec_command", "local_shell")
READ_TOOLS = ("Read", "read_file", "view")
FETCH_TOOLS = ("WebFetch", "web_fetch")


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


@dataclass
class CompliantAgent:
    """Takes STEPS in order with the host's tools; follows what each tool result says."""

    work: Path
    docs_url: str
    steps: list[Step] = field(default_factory=lambda: list(STEPS))
    follow_ups: int = 0
    log: list[str] = field(default_factory=list)
    current: Step = STEPS[0]
    search_tool: str = "ctx_search"

    def __call__(self, request: Request) -> Reply:
        results = received(request)
        if results and self.follow_ups < 3:
            follow = self._follow(request, unquoted(results[-1]))
            if follow is not None:
                self.follow_ups += 1
                return follow
        if not self.steps:
            return Reply(
                text="Done: the failures, the timeout, the budget, the TODO, the fix and the window are found."
            )
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
        if (found := SEARCH_CALL.search(result)) and found.group(2) not in self.log:
            self.log.append(found.group(2))
            return self._call(request, found.group(1), queries=[step.query], source=found.group(2))
        if self.log[-1:] == ["ctx_fetch_and_index"] and "docs" not in self.log:
            self.log.append("docs")
            # The fetch reply names no host tool: search with the fetch tool's own prefix.
            return self._call(request, self.search_tool, queries=[step.query], source="docs")
        return None

    def _shell(self, request: Request, command: str) -> Reply:
        tool = _pick(request, SHELL_TOOLS) or "Bash"
        schema = _schema(request, tool).get("properties", {})
        key = "cmd" if "cmd" in schema and "command" not in schema else "command"
        value: Any = (
            ["bash", "-lc", command] if schema.get(key, {}).get("type") == "array" else command
        )
        return self._call(request, tool, **{key: value})

    def _call(self, request: Request, tool: str, **arguments: Any) -> Reply:
        schema = _schema(request, tool).get("properties", {})
        if "path" in arguments and "path" not in schema:
            key = next((k for k in ("file_path", "absolute_path") if k in schema), "file_path")
            arguments[key] = arguments.pop("path")
        if "url" in arguments and "prompt" in schema:  # WebFetch wants a question too
            url = arguments["url"] if "url" in schema else arguments.pop("url")
            arguments["prompt"] = f"Read {url} and report the {self.current.query}"
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


def _claude(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("claude-code", "claude")
    command = [binary, "-p", prompt, "--output-format", "stream-json", "--verbose",
               "--model", "claude-sonnet-4-5", "--max-turns", "40",
               "--allowedTools", "Bash,Read,WebFetch,mcp__context-mode,mcp__fs,mcp__playwright"]  # fmt: skip
    env = world.env(ANTHROPIC_BASE_URL=model.url, ANTHROPIC_API_KEY="fake-key",
                    DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1",
                    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", ENABLE_TOOL_SEARCH="false",
                    MCP_CONNECTION_NONBLOCKING="false", PATH=_path(world),
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
    env = world.env(OPENAI_BASE_URL=model.url + "/v1", OPENAI_API_KEY="fake-key",
                    PATH=_path(world))  # fmt: skip
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
                    PATH=f"{binary.parent}:{_path(world)}")  # fmt: skip
    return world.run(command, env=env, timeout=600)


def _codex_prepare(world: HostWorld) -> None:
    (world.home / ".codex").mkdir(parents=True, exist_ok=True)


def _gemini(world: HostWorld, model: FakeModel, prompt: str) -> HostRun:
    binary = npm_host("gemini-cli", "gemini")
    command = [binary, "-p", prompt, "-o", "stream-json", "--yolo", "--skip-trust",
               "-m", "gemini-2.5-flash"]  # fmt: skip
    env = world.env(GOOGLE_GEMINI_BASE_URL=model.url, GEMINI_API_KEY="fake-key",
                    GEMINI_CLI_NO_RELAUNCH="true", PATH=_path(world))  # fmt: skip
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
                    COPILOT_MODEL="gpt-5", PATH=_path(world),
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


def _path(world: HostWorld) -> str:
    import os

    return f"{world.work / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"


HOSTS = {
    "claude-code": Host("claude-code", _claude, _claude_prepare),
    "qwen-code": Host("qwen-code", _qwen, _qwen_prepare),
    "codex": Host("codex", _codex, _codex_prepare),
    "gemini-cli": Host("gemini-cli", _gemini, _gemini_prepare),
    "copilot-cli": Host("copilot-cli", _copilot),
}


# ------------------------------------------------------------------ one run, scored


@dataclass
class Score:
    host: str
    with_ctxmode: bool
    tool_result_bytes: int
    facts: dict[str, bool]
    run: HostRun

    @property
    def facts_found(self) -> int:
        return sum(self.facts.values())


PROMPT = ("Debug this project: run the tests, check logs/app.log, read src/billing.py, "
          "grep the TODOs, look at the git history and the webhook docs.")  # fmt: skip


def run_session(world: HostWorld, host_id: str, with_ctxmode: bool) -> Score:
    host = HOSTS[host_id]
    build_project(world.work)
    host.prepare(world)
    if with_ctxmode:
        done = ctx("setup", host_id, cwd=world.work, env=world.env())
        assert done.returncode == 0, done.stderr
    with docs_server(world) as docs_url:
        agent = CompliantAgent(world.work, docs_url)
        with world.fake_model([agent] * 40) as model:
            run = host.run(world, model, PROMPT)
    results = received(model.main_requests[-1]) if model.main_requests else []
    seen = "\n".join(results)
    facts = {name: all(fact in seen for fact in wanted) for name, wanted in FACTS.items()}
    size = sum(len(result.encode("utf-8")) for result in results)
    return Score(host_id, with_ctxmode, size, facts, run)
