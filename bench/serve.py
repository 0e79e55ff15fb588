"""MCP server benchmark: start-up, execution overhead, indexing and search through `ctxmode serve`.

Run: `.venv/bin/python bench/serve.py` (add `--runs N` / `--calls N` to change the sample sizes).

Everything goes through a real `python -m ctxmode serve` subprocess driven by the official
`mcp.Client` over stdio, as a host would. Each number is set against a baseline measured in
the same run: bare `python -c "import mcp"` for start-up, the same script run with a bare
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


def bare_run_s(argv: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return time.perf_counter() - started


async def cold_start_s(params: Any) -> float:
    """Spawn -> initialize -> tools/list answered (shutdown not counted)."""
    from mcp import Client

    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=60) as client:
        tools = await client.list_tools()
        elapsed = time.perf_counter() - started
    assert len(tools.tools) >= 11, [tool.name for tool in tools.tools]
    return elapsed


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


async def warm_session(client: Any, project: str, calls: int) -> dict[str, Any]:
    from ctxmode.sandbox import runtimes

    out: dict[str, Any] = {}
    rtt = [ms((await timed_call(client, "ctx_nope"))[0]) for _ in range(calls)]
    out["rtt"] = rtt
    out["stats"] = [ms((await timed_call(client, "ctx_stats"))[0]) for _ in range(calls)]

    probe_text, probe_err = await call(client, "ctx_execute", language="shell", code="echo hi")
    out["execute_available"] = not probe_err and "hi" in probe_text
    if out["execute_available"]:
        out["execute"] = {}
        for language, code in SNIPPETS.items():
            runtime = runtimes.resolve(language)
            script = os.path.join(project, f"bench-script{runtime.extension}")
            with open(script, "w", encoding="utf-8") as handle:
                handle.write(code)
            argv = [runtime.binary, *runtime.args, script]
            via_mcp: list[float] = []
            bare: list[float] = []
            for i in range(calls + 3):  # interleaved so both see the same machine noise
                elapsed, text, is_error = await timed_call(
                    client, "ctx_execute", language=language, code=code
                )
                assert not is_error, text
                started = time.perf_counter()
                subprocess.run(argv, cwd=project, capture_output=True, stdin=subprocess.DEVNULL)
                bare_s = time.perf_counter() - started
                if i >= 3:  # the first calls pay lazy imports and runtime discovery
                    via_mcp.append(ms(elapsed))
                    bare.append(ms(bare_s))
            out["execute"][language] = {"runtime": str(runtime), "mcp": via_mcp, "bare": bare}
    else:
        out["execute_probe"] = probe_text[:200]

    rng = random.Random(1234)
    words = vocabulary(rng)
    docs = [markdown_document(rng, words, INDEX_DOC_BYTES, n) for n in range(INDEX_DOCS)]
    total_bytes = sum(len(doc.encode()) for doc in docs)
    started = time.perf_counter()
    for n, doc in enumerate(docs):
        text, is_error = await call(client, "ctx_index", content=doc, source=f"bench-doc-{n}")
        assert not is_error, text
    out["index_s"] = time.perf_counter() - started
    out["index_bytes"] = total_bytes

    query_rng = random.Random(99)
    searches: list[float] = []
    empty = 0
    for _ in range(SEARCH_QUERIES):
        query = " ".join(query_rng.sample(words, k=query_rng.choice((1, 2, 2, 3))))
        elapsed, text, is_error = await timed_call(client, "ctx_search", queries=[query])
        assert not is_error, text
        empty += "No matches." in text
        searches.append(ms(elapsed))
    out["search"] = searches
    out["search_empty"] = empty
    return out


# ---------------------------------------------------------------- in-process sandbox


def sandbox_in_process(project: str, calls: int) -> dict[str, list[float]]:
    """`ctxmode.sandbox.run_code` called directly: the sandbox's share of the overhead."""
    from ctxmode.sandbox import run_code

    timings: dict[str, list[float]] = {}
    for language, code in SNIPPETS.items():
        samples = []
        for i in range(calls + 3):
            started = time.perf_counter()
            with run_code(language, code, cwd=project) as result:
                assert result.exit_code == 0, result.classification
            if i >= 3:
                samples.append(ms(time.perf_counter() - started))
        timings[language] = samples
    return timings


# ---------------------------------------------------------------- report


def row(name: str, value: str, target: str = "", verdict: str = "") -> str:
    return f"  {name:<44} {value:>22}  {target:<16} {verdict}"


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def report(results: dict[str, Any]) -> None:
    print("\nctxmode serve benchmark (times in ms; p50 / p95)")
    print(row("measurement", "value", "target", ""))
    print("  " + "-" * 92)
    cold = results["cold"]
    print(row("python -c pass (bare interpreter)", f"{p50(results['bare_pass']):.0f}"))
    print(row('python -c "import mcp" (baseline)', f"{p50(results['bare_import']):.0f}"))
    print(row(f"cold start -> tools/list (p50 of {len(cold)})", f"{p50(cold):.0f}"))
    print(row("  minus import-mcp baseline", f"{p50(cold) - p50(results['bare_import']):.0f}"))
    warm = results["warm"]
    rtt, stats = warm["rtt"], warm["stats"]
    print(
        row(
            "MCP round trip (unknown tool, no handler)",
            f"{p50(rtt):.2f} / {percentile(rtt, 95):.2f}",
        )
    )
    print(
        row(
            "ctx_stats (thread + db open + stats write)",
            f"{p50(stats):.2f} / {percentile(stats, 95):.2f}",
        )
    )
    if warm["execute_available"]:
        for language, data in warm["execute"].items():
            mcp, bare = data["mcp"], data["bare"]
            local = results["sandbox"][language]
            overhead = p50(mcp) - p50(bare)
            print(
                row(
                    f"ctx_execute {language} {SNIPPETS[language].strip()!r}",
                    f"{p50(mcp):.1f} / {percentile(mcp, 95):.1f}",
                )
            )
            print(
                row(
                    f"  bare subprocess ({data['runtime'].split()[0]})",
                    f"{p50(bare):.1f} / {percentile(bare, 95):.1f}",
                )
            )
            print(
                row(
                    "  sandbox.run_code in-process",
                    f"{p50(local):.1f} / {percentile(local, 95):.1f}",
                )
            )
            print(
                row(
                    "  overhead over bare (p50)",
                    f"{overhead:.1f}",
                    f"< {TARGET_EXEC_OVERHEAD_MS:.0f}",
                    verdict(overhead < TARGET_EXEC_OVERHEAD_MS),
                )
            )
            print(row("  ratio mcp / bare (p50)", f"{p50(mcp) / p50(bare):.2f}x"))
            print(row("  of which sandbox (run_code - bare)", f"{p50(local) - p50(bare):.1f}"))
            print(row("  of which MCP + handler (mcp - run_code)", f"{p50(mcp) - p50(local):.1f}"))
    else:
        print(row("ctx_execute", "not available", "", f"({warm['execute_probe']!r})"))
    rate = warm["index_bytes"] / (1024 * 1024) / warm["index_s"]
    print(
        row(
            f"ctx_index {warm['index_bytes'] / 1048576:.1f} MB markdown via content",
            f"{rate:.2f} MB/s",
        )
    )
    search = warm["search"]
    sp50 = p50(search)
    print(
        row(
            f"ctx_search ({len(search)} queries, {warm['search_empty']} empty)",
            f"{sp50:.1f} / {percentile(search, 95):.1f}",
            f"p50 < {TARGET_SEARCH_P50_MS:.0f}",
            verdict(sp50 < TARGET_SEARCH_P50_MS),
        )
    )
    print(row("  minus MCP round trip (p50)", f"{sp50 - p50(rtt):.1f}"))
    print()


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold starts to time")
    parser.add_argument("--calls", type=int, default=30, help="warm calls per measurement")
    options = parser.parse_args(argv)

    import anyio

    with tempfile.TemporaryDirectory(prefix="ctxmode-bench-serve-") as root:
        project = os.path.join(root, "project")
        os.makedirs(project)
        env = isolated_env(root)
        os.environ.update({k: env[k] for k in ("CTXMODE_DIR", "CTXMODE_CONFIG_DIR")})
        params = server_params(env, project)
        results: dict[str, Any] = {}
        print(
            f"python {sys.version.split()[0]} at {sys.executable}; {os.cpu_count()} CPUs",
            flush=True,
        )
        print("timing bare interpreter start-up ...", flush=True)
        results["bare_pass"] = [
            ms(bare_run_s([sys.executable, "-c", "pass"])) for _ in range(options.runs)
        ]
        results["bare_import"] = [
            ms(bare_run_s([sys.executable, "-c", "import mcp"])) for _ in range(options.runs)
        ]
        print("timing cold starts ...", flush=True)
        anyio.run(cold_start_s, params)  # warm the page cache and .pyc files first
        results["cold"] = [ms(anyio.run(cold_start_s, params)) for _ in range(options.runs)]
        print("timing a warm session (execute, index, search) ...", flush=True)
        results["warm"] = anyio.run(
            with_client, params, lambda c: warm_session(c, project, options.calls)
        )
        if results["warm"]["execute_available"]:
            print("timing the sandbox in-process ...", flush=True)
            results["sandbox"] = sandbox_in_process(project, options.calls)
        report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
