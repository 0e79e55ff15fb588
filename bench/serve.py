"""MCP server benchmark: start-up, execution overhead, indexing and search through `ctxmode serve`.

Run: `.venv/bin/python bench/serve.py` (add `--runs N` / `--calls N` to change the sample sizes,
`--start-up-only` to stop after start-up and the import profile, `--against OLD/src` to time
another checkout's server interleaved with this one, e.g. main before a change, `--reference
CLI` for the Node.js context-mode's `cli.bundle.mjs`).

The reference is timed when it is installed, by default at
bench/.work/ref/node_modules/context-mode/cli.bundle.mjs:
`npm install --prefix bench/.work/ref --ignore-scripts context-mode` (its install script
refuses Node < 22.5; its server still starts on Node 20, which is all this measures).

Everything goes through a real `python -m ctxmode serve` subprocess driven by the official
`mcp.Client` over stdio, as a host would. Each number is set against a baseline measured in
the same run: the reference's start-up and bare `python -c "import mcp"` for start-up, the same script run with a bare
`subprocess.run([interpreter, script])` (the interpreter the sandbox itself resolves) for
ctx_execute, and an unknown-tool call (protocol round trip only) for attributing overhead.
Data and config dirs are temporary; nothing outside them is touched. Exit code is always 0:
a benchmark prints numbers, it never gates.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

TARGET_SEARCH_P50_MS = 15.0
TARGET_EXEC_OVERHEAD_MS = 20.0
INDEX_DOCS = 4
INDEX_DOC_BYTES = 1024 * 1024
SEARCH_QUERIES = 50
SNIPPETS = {"python": "print(1)\n", "shell": "echo hi\n"}
REFERENCE_CLI = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    ".work/ref/node_modules/context-mode/cli.bundle.mjs",
)
# A host's model thinks before its first tool call (a model turn: seconds); the server
# finishes loading and warms up meanwhile.
THINK_S = 3.0
FIRST_CALLS = 5  # later calls the first one is compared with


# ---------------------------------------------------------------- small statistics


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sample list."""
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def ms(seconds: float) -> float:
    return seconds * 1000


# ---------------------------------------------------------------- environment


def isolated_env(root: str) -> dict[str, str]:
    """The bench's own data/config dirs, and a throttle that lets 50 searches through."""
    env = dict(os.environ)
    env.update(
        CTXMODE_DIR=os.path.join(root, "data"),
        CTXMODE_CONFIG_DIR=os.path.join(root, "config"),
        CTXMODE_SEARCH_MAX_RESULTS_AFTER="100000",
        CTXMODE_SEARCH_BLOCK_AFTER="100000",
    )
    for name in ("CONTEXT_MODE_DIR", "CTXMODE_PROJECT_DIR", "CONTEXT_MODE_PROJECT_DIR"):
        env.pop(name, None)
    return env


def server_params(env: dict[str, str], project: str) -> Any:
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(
        command=sys.executable, args=["-m", "ctxmode", "serve"], env=env, cwd=project
    )


async def with_client(params: Any, body: Callable[[Any], Awaitable[Any]]) -> Any:
    from mcp import Client

    async with Client(params, read_timeout_seconds=300) as client:
        return await body(client)


async def call(client: Any, tool: str, **arguments: Any) -> tuple[str, bool]:
    result = await client.call_tool(tool, arguments)
    text = "\n".join(block.text for block in result.content if getattr(block, "text", None))
    return text, bool(result.is_error)


async def timed_call(client: Any, tool: str, **arguments: Any) -> tuple[float, str, bool]:
    started = time.perf_counter()
    text, is_error = await call(client, tool, **arguments)
    return time.perf_counter() - started, text, is_error


# ---------------------------------------------------------------- start-up

SERVER_IMPORTS = "import ctxmode.server.app"  # everything the server imports before answering
TOP_IMPORTS = 12  # the costliest imports beyond the SDK, listed one by one


def bare_ready_s(statement: str) -> float:
    """Spawn -> `statement` done (a line on stdout); interpreter shutdown not counted."""
    argv = [sys.executable, "-c", f"{statement}; print('ready', flush=True)"]
    started = time.perf_counter()
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
        elapsed = time.perf_counter() - started
    return elapsed


async def cold_start_s(params: Any) -> tuple[float, float]:
    """Spawn -> initialize answered, and initialize -> tools/list answered (no shutdown).

    A classic `initialize`, as hosts send it today.
    """
    from mcp import Client

    started = time.perf_counter()
    async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
        initialized = time.perf_counter()
        tools = await client.list_tools()
        listed = time.perf_counter()
    assert len(tools.tools) >= 11, [tool.name for tool in tools.tools]
    return initialized - started, listed - initialized


def reference_params(params: Any, cli: str) -> Any:
    """The Node.js reference's server, in the same project and data dirs."""
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command="node", args=[cli], env=params.env, cwd=params.cwd)


async def first_call_s(params: Any) -> dict[str, list[float]]:
    """Spawn -> the SDK answering a ping; each tool's first call in a fresh server (after the
    model's thinking time) and the calls after it."""
    from mcp import Client

    out: dict[str, list[float]] = {}
    started = time.perf_counter()
    async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
        await client.list_tools()
        await client.send_ping()  # the front leaves pings to the SDK
        out["sdk_ready"] = [time.perf_counter() - started]
        await anyio_sleep(THINK_S)
        for tool, arguments in (
            ("ctx_search", {"queries": ["widget handler"]}),
            ("ctx_execute", {"language": "shell", "code": "echo hi"}),
        ):
            out[tool] = [(await timed_call(client, tool, **arguments))[0]
                         for _ in range(1 + FIRST_CALLS)]  # fmt: skip
    return out


async def anyio_sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)


def first_calls(params: Any, runs: int) -> dict[str, list[float]]:
    """Per tool: first call minus the median of the later ones, one sample per fresh server."""
    import anyio

    out: dict[str, list[float]] = {}
    for _ in range(runs):
        timings = anyio.run(first_call_s, params)
        out.setdefault("sdk_ready", []).append(ms(timings.pop("sdk_ready")[0]))
        for tool, samples in timings.items():
            out.setdefault(tool, []).append(ms(samples[0] - p50(samples[1:])))
            out.setdefault(f"{tool}_later", []).append(ms(p50(samples[1:])))
    return out


def start_up(
    params: Any, runs: int, against: Any | None = None, reference: Any | None = None
) -> dict[str, list[float]]:
    """Cold starts interleaved with their baselines, so all see the same machine load
    (and with the `--against` tree's server and the reference, if given)."""
    import anyio

    servers = {
        "": params,
        **({"against_": against} if against else {}),
        **({"reference_": reference} if reference else {}),
    }
    out: dict[str, list[float]] = {"pass": [], "import_mcp": [], "server_imports": []}
    for prefix, server in servers.items():
        anyio.run(cold_start_s, server)  # warm the page cache and .pyc files first
        out[f"{prefix}initialize"], out[f"{prefix}tools_list"] = [], []
    for _ in range(runs):
        out["pass"].append(ms(bare_ready_s("pass")))
        out["import_mcp"].append(ms(bare_ready_s("import mcp")))
        out["server_imports"].append(ms(bare_ready_s(SERVER_IMPORTS)))
        for prefix, server in servers.items():
            initialize, tools_list = anyio.run(cold_start_s, server)
            out[f"{prefix}initialize"].append(ms(initialize))
            out[f"{prefix}tools_list"].append(ms(tools_list))
    return out


def against_params(params: Any, source_dir: str) -> Any:
    """The same server command, importing ctxmode from another checkout's `src`."""
    from mcp.client.stdio import StdioServerParameters

    env = {**params.env, "PYTHONPATH": os.path.abspath(source_dir)}
    return StdioServerParameters(command=params.command, args=params.args, env=env,
                                 cwd=params.cwd)  # fmt: skip


def self_import_ms(importtime_log: str) -> dict[str, float]:
    """Module -> its own import time in ms, from `python -X importtime` stderr."""
    costs: dict[str, float] = {}
    for line in importtime_log.splitlines():
        if line.startswith("import time:") and not line.endswith("imported package"):
            own_us, _cumulative, name = line[len("import time:") :].split("|")
            costs[name.strip()] = int(own_us) / 1000
    return costs


async def imports_until_listed(params: Any) -> str:
    """The `-X importtime` log of a server (started with it) up to its tools/list answer.

    The log is C stderr, unbuffered: what the file holds once the answer arrived is what
    the server imported to give it, and nothing of its shutdown.
    """
    from mcp import Client
    from mcp.client.stdio import stdio_client

    with tempfile.TemporaryFile("w+") as errlog:
        transport = stdio_client(params, errlog=errlog)
        async with Client(transport, mode="legacy", read_timeout_seconds=60) as client:
            await client.list_tools()
            errlog.seek(0)
            return errlog.read()


def import_profile(params: Any) -> dict[str, Any]:
    """What the server imports beyond `import mcp` until it has answered tools/list.

    Both sides run under `-X importtime` (which inflates every figure alike); a module's
    own time is counted once, under the module, not its importer.
    """
    import anyio
    from mcp.client.stdio import StdioServerParameters

    sdk = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import mcp"], capture_output=True, text=True
    )
    traced = StdioServerParameters(
        command=params.command, args=["-X", "importtime", *params.args], env=params.env,
        cwd=params.cwd,
    )  # fmt: skip
    server = self_import_ms(anyio.run(imports_until_listed, traced))
    baseline = self_import_ms(sdk.stderr)
    beyond = {name: cost for name, cost in server.items() if name not in baseline}
    return {"sdk_ms": sum(baseline.values()), "beyond": beyond}


# ---------------------------------------------------------------- generated corpus


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    consonants, vowels = "bcdfghjklmnprstvz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.randint(2, 4)
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(syllables)))
    return sorted(words)


def markdown_document(rng: random.Random, words: list[str], target_bytes: int, doc: int) -> str:
    """Headed sections of prose, with a fenced code block now and then."""
    parts: list[str] = [f"# Generated manual {doc}\n"]
    size = 0
    section = 0
    while size < target_bytes:
        section += 1
        title = " ".join(rng.choices(words, k=3))
        lines = [f"\n## {section}. {title}\n"]
        for _ in range(rng.randint(2, 5)):
            lines.append(" ".join(rng.choices(words, k=rng.randint(40, 90))) + ".\n")
        if rng.random() < 0.3:
            name = rng.choice(words)
            lines.append(f"```python\ndef {name}_handler(value):\n    return {name}(value)\n```\n")
        text = "\n".join(lines)
        parts.append(text)
        size += len(text.encode())
    return "".join(parts)


# ---------------------------------------------------------------- the warm session


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return ms(time.perf_counter() - started)


def run_in_process(language: str, code: str, cwd: str) -> None:
    from ctxmode.sandbox import run_code

    with run_code(language, code, cwd=cwd) as result:
        assert result.exit_code == 0, result.classification


async def execute_timings(client: Any, project: str, calls: int) -> dict[str, Any]:
    """ctx_execute vs a bare subprocess vs `sandbox.run_code` in-process, interleaved."""
    from ctxmode.sandbox import runtimes

    out: dict[str, Any] = {}
    for language, code in SNIPPETS.items():
        runtime = runtimes.resolve(language)
        script = os.path.join(project, f"bench-script{runtime.extension}")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(code)
        argv = [runtime.binary, *runtime.args, script]
        samples: dict[str, list[float]] = {"mcp": [], "bare": [], "sandbox": []}
        for i in range(calls + 3):  # the first 3 pay lazy imports and runtime discovery
            elapsed, text, is_error = await timed_call(
                client, "ctx_execute", language=language, code=code
            )
            assert not is_error, text
            bare = timed(lambda: subprocess.run(argv, cwd=project, capture_output=True))  # noqa
            local = timed(lambda: run_in_process(language, code, project))  # noqa: B023
            if language == "python" and i >= 3:  # is the resolved interpreter a slow shim?
                own = [sys.executable, script]
                own_t = timed(lambda: subprocess.run(own, cwd=project, capture_output=True))  # noqa
                samples.setdefault("own_python", []).append(own_t)
            if i >= 3:
                samples["mcp"].append(ms(elapsed))
                samples["bare"].append(bare)
                samples["sandbox"].append(local)
        out[language] = {"runtime": runtime.binary, **samples}
    return out


async def warm_session(client: Any, project: str, calls: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["rtt"] = [ms((await timed_call(client, "ctx_nope"))[0]) for _ in range(calls)]
    out["stats"] = [ms((await timed_call(client, "ctx_stats"))[0]) for _ in range(calls)]

    probe_text, probe_err = await call(client, "ctx_execute", language="shell", code="echo hi")
    if not probe_err and "hi" in probe_text:
        out["execute"] = await execute_timings(client, project, calls)
    else:
        out["execute_probe"] = probe_text[:200]

    rng = random.Random(1234)
    words = vocabulary(rng)
    docs = [markdown_document(rng, words, INDEX_DOC_BYTES, n) for n in range(INDEX_DOCS)]
    out["index_bytes"] = sum(len(doc.encode()) for doc in docs)
    started = time.perf_counter()
    for n, doc in enumerate(docs):
        text, is_error = await call(client, "ctx_index", content=doc, source=f"bench-doc-{n}")
        assert not is_error, text
    out["index_s"] = time.perf_counter() - started

    query_rng = random.Random(99)
    queries = [
        " ".join(query_rng.sample(words, k=query_rng.choice((1, 2, 2, 3))))
        for _ in range(SEARCH_QUERIES)
    ]
    out["queries"] = queries
    out["search"], out["search_empty"] = [], 0
    for query in queries:
        elapsed, text, is_error = await timed_call(client, "ctx_search", queries=[query])
        assert not is_error, text
        out["search_empty"] += "No matches." in text
        out["search"].append(ms(elapsed))
    return out


def search_attribution(project: str, queries: list[str]) -> dict[str, Any]:
    """In-process, on the database the session built: opening it, and the search alone."""
    from ctxmode.storage import project as projects
    from ctxmode.storage import schema
    from ctxmode.store.knowledge import KnowledgeBase

    root = projects.resolve_project_root(project)
    opens = [timed(lambda: schema.open_project_db(root).close()) for _ in queries]
    with KnowledgeBase(schema.open_project_db(root)) as kb:
        searches = [
            timed(lambda: kb.search([q], limit=3, snippet_chars=1500))  # noqa: B023
            for q in queries
        ]
    size = os.path.getsize(projects.project_db_path(root))
    return {"open": opens, "search": searches, "db_mb": size / (1024 * 1024)}


# ---------------------------------------------------------------- report


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def spread(samples: list[float]) -> str:
    return f"{p50(samples):.1f} / {percentile(samples, 95):.1f}"


def to_tools_list(boot: dict[str, list[float]], prefix: str = "") -> float:
    pairs = zip(boot[f"{prefix}initialize"], boot[f"{prefix}tools_list"], strict=True)
    return p50([initialize + listed for initialize, listed in pairs])


def start_up_rows(boot: dict[str, list[float]]) -> list[tuple[str, str, str, str]]:
    sdk = p50(boot["import_mcp"])
    ready = p50(boot["initialize"])
    rows = [
        ("python -c pass", f"{p50(boot['pass']):.0f}", "", ""),
        ('python -c "import mcp" (baseline)', f"{sdk:.0f}", "", ""),
        (f'python -c "{SERVER_IMPORTS}"', f"{p50(boot['server_imports']):.0f}", "", ""),
        (f"spawn -> initialize answered (p50 of {len(boot['initialize'])})", f"{ready:.0f}",
         "", ""),
        ("  minus import-mcp baseline", f"{ready - sdk:+.0f}", "", ""),
        ("initialize -> tools/list answered", spread(boot["tools_list"]), "", ""),
        ("spawn -> tools/list answered", f"{to_tools_list(boot):.0f}", "", ""),
    ]  # fmt: skip
    if "reference_initialize" in boot:
        other = p50(boot["reference_initialize"])
        rows += [
            ("reference (context-mode on Node): spawn -> initialize answered", f"{other:.0f}",
             "", ""),
            ("  this / reference (initialize)", f"{ready / other:.2f}x", "<= 1.00",
             verdict(ready <= other)),
            ("  reference spawn -> tools/list answered",
             f"{to_tools_list(boot, 'reference_'):.0f}", "", ""),
            ("  this / reference (to tools/list)",
             f"{to_tools_list(boot) / to_tools_list(boot, 'reference_'):.2f}x", "", ""),
        ]  # fmt: skip
    if "against_initialize" in boot:
        other = p50(boot["against_initialize"])
        rows += [
            ("--against tree: spawn -> initialize answered", f"{other:.0f}", "", ""),
            ("  minus import-mcp baseline", f"{other - sdk:+.0f}", "", ""),
            ("  spawn -> tools/list answered", f"{to_tools_list(boot, 'against_'):.0f}", "", ""),
            ("  this tree / --against tree (to tools/list)",
             f"{to_tools_list(boot) / to_tools_list(boot, 'against_'):.2f}x", "", ""),
        ]  # fmt: skip
    return rows


def first_call_rows(first: dict[str, list[float]]) -> list[tuple[str, str, str, str]]:
    rows = [("spawn -> the SDK answers a ping (p50)", f"{p50(first['sdk_ready']):.0f}", "", "")]
    for tool in ("ctx_search", "ctx_execute"):
        extra = p50(first[tool])
        rows += [
            (f"{tool}: later calls (p50 of runs)", f"{p50(first[f'{tool}_later']):.1f}", "", ""),
            (f"  first call minus later ones ({THINK_S:.0f} s after the ping)", f"{extra:+.1f}",
             "<= 10", verdict(extra <= 10)),
        ]  # fmt: skip
    return rows


def import_rows(profile: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    beyond: dict[str, float] = profile["beyond"]
    rows = [
        ("-X importtime: `import mcp`, own times summed", f"{profile['sdk_ms']:.0f}", "", ""),
        (f"  server beyond it, to tools/list ({len(beyond)} modules)",
         f"{sum(beyond.values()):.0f}", "", ""),
    ]  # fmt: skip
    top = sorted(beyond.items(), key=lambda item: item[1], reverse=True)[:TOP_IMPORTS]
    return rows + [(f"    {name}", f"{cost:.1f}", "", "") for name, cost in top]


def report_rows(results: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    warm = results["warm"]
    rows = [
        ("MCP round trip (unknown tool: no handler)", spread(warm["rtt"]), "", ""),
        ("ctx_stats (handler floor: db open + record)", spread(warm["stats"]), "", ""),
    ]  # fmt: skip
    for language, data in warm.get("execute", {}).items():
        mcp, bare, local = data["mcp"], data["bare"], data["sandbox"]
        overhead = p50(mcp) - p50(bare)
        rows += [
            (f"ctx_execute {language} {SNIPPETS[language].strip()!r}", spread(mcp), "", ""),
            (f"  bare subprocess ({data['runtime']})", spread(bare), "", ""),
            ("  sandbox.run_code in-process", spread(local), "", ""),
            *([(f"  for scale: bare {sys.executable}", spread(data["own_python"]), "", "")]
              if "own_python" in data else []),
            ("  overhead over bare (p50)", f"{overhead:.1f}",
             f"< {TARGET_EXEC_OVERHEAD_MS:.0f}", verdict(overhead < TARGET_EXEC_OVERHEAD_MS)),
            ("  ratio ctx_execute / bare (p50)", f"{p50(mcp) / p50(bare):.2f}x", "", ""),
            ("  sandbox share (run_code - bare)", f"{p50(local) - p50(bare):.1f}", "", ""),
            ("  MCP + handler share (mcp - run_code)", f"{p50(mcp) - p50(local):.1f}", "", ""),
        ]  # fmt: skip
    if "execute" not in warm:
        rows.append(("ctx_execute", "not available", "", repr(warm["execute_probe"])))
    rate = warm["index_bytes"] / (1024 * 1024) / warm["index_s"]
    search, local = warm["search"], results["search_local"]
    rows += [
        (f"ctx_index {warm['index_bytes'] / 1048576:.1f} MB markdown (content)",
         f"{rate:.2f} MB/s", "", ""),
        (f"ctx_search ({len(search)} queries, {warm['search_empty']} no match)", spread(search),
         f"p50 < {TARGET_SEARCH_P50_MS:.0f}", verdict(p50(search) < TARGET_SEARCH_P50_MS)),
        ("  KnowledgeBase.search in-process", spread(local["search"]), "", ""),
        (f"  open_project_db ({local['db_mb']:.1f} MB db; 2 per call)", spread(local["open"]),
         "", ""),
        ("  minus MCP round trip (p50)", f"{p50(search) - p50(warm['rtt']):.1f}", "", ""),
    ]  # fmt: skip
    return rows


def report(results: dict[str, Any]) -> None:
    rows = [*start_up_rows(results["start_up"]), *first_call_rows(results["first_calls"])]
    rows += import_rows(results["imports"])
    if "warm" in results:
        rows += report_rows(results)
    width = max(len(row[0]) for row in rows)
    print("\nctxmode serve benchmark (times in ms, p50 / p95 unless noted)")
    print(f"  {'measurement':<{width}} {'value':>14}  {'target':<10} verdict")
    print("  " + "-" * (width + 36))
    for name, value, target, outcome in rows:
        print(f"  {name:<{width}} {value:>14}  {target:<10} {outcome}")
    print()


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold starts to time")
    parser.add_argument("--calls", type=int, default=30, help="warm calls per measurement")
    parser.add_argument("--start-up-only", action="store_true", help="skip the warm session")
    parser.add_argument(
        "--against", metavar="SRC", help="also time the server of another checkout's src dir"
    )
    parser.add_argument(
        "--reference", metavar="CLI", default=REFERENCE_CLI,
        help="context-mode's cli.bundle.mjs (timed with node when the file exists)",
    )  # fmt: skip
    options = parser.parse_args(argv)

    import anyio

    with tempfile.TemporaryDirectory(prefix="ctxmode-bench-serve-") as root:
        project = os.path.join(root, "project")
        os.makedirs(project)
        env = isolated_env(root)
        # The in-process measurements use the same data root as the server.
        os.environ.update({k: env[k] for k in ("CTXMODE_DIR", "CTXMODE_CONFIG_DIR")})
        params = server_params(env, project)
        results: dict[str, Any] = {}
        print(f"python {sys.version.split()[0]} at {sys.executable}; {os.cpu_count()} CPUs; "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
        print("timing start-up ...", flush=True)
        against = against_params(params, options.against) if options.against else None
        reference = None
        if os.path.isfile(options.reference):
            reference = reference_params(params, options.reference)
        else:
            print(f"reference not installed ({options.reference}): not timed", flush=True)
        results["start_up"] = start_up(params, options.runs, against, reference)
        results["first_calls"] = first_calls(params, options.runs)
        results["imports"] = import_profile(params)
        if options.start_up_only:
            report(results)
            return 0
        print("timing a warm session (execute, index, search) ...", flush=True)
        results["warm"] = anyio.run(
            with_client, params, lambda c: warm_session(c, project, options.calls)
        )
        results["search_local"] = search_attribution(project, results["warm"]["queries"])
        report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
