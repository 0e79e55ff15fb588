"""Search benchmark: index offline Debian documentation, then measure speed and hit rates.

Run: `.venv/bin/python bench/search.py` (full, >= 50 MB indexed) or `... --quick` (small run).

The corpus is built at run time from what this machine ships: English man pages
(sections 1-8, rendered to text by man-db, cached under bench/.corpus/), the Node.js API
markdown in /usr/share/doc/nodejs/api, and Debian changelogs/READMEs as plain-text filler.
Python's own documentation is deliberately left out (kept for independent checks).
Four hand-written issue-tracker exports of different projects, with comment threads
(bench/search_corpus_issues{,2,3,4}.json), are indexed as JSON.
The labelled queries live in bench/search_queries.json (the set the store was tuned on) and
bench/search_queries_holdout{,2,3,4,5,6,7}.json (each written before a tuning round, never
tuned on); each names the document that must exist and a line that a correct hit's snippet must
contain. `--queries PATH` (repeatable; or tune, holdout, holdout2 ... holdout7, both, all)
picks the sets; each set is scored and judged on its own.
Exit code is 0 whatever the numbers (a benchmark, not a gate); 2 when the corpus cannot
be built (missing tool or page), with the command that fixes it.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import gzip
import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
CORPUS_CACHE = BENCH_DIR / ".corpus"
WORK_DIR = BENCH_DIR / ".work"
QUERIES_FILE = BENCH_DIR / "search_queries.json"
# The held-out sets, in the order they were written: holdout, holdout2, ... holdout7.
HOLDOUT_SETS = {
    name: BENCH_DIR / f"search_queries_{name}.json"
    for name in ["holdout", *(f"holdout{n}" for n in range(2, 8))]
}
# A hand-written issue-tracker export (issues, nested comment threads): answers sit in comments.
ISSUES_FILE = BENCH_DIR / "search_corpus_issues.json"
# A second export, of another project (written with holdout5). Each export -> its label.
ISSUES2_FILE = BENCH_DIR / "search_corpus_issues2.json"
# A third, of a build tool (written with holdout6).
ISSUES3_FILE = BENCH_DIR / "search_corpus_issues3.json"
# A fourth, of a message broker (written with holdout7).
ISSUES4_FILE = BENCH_DIR / "search_corpus_issues4.json"
ISSUE_EXPORTS = {
    ISSUES_FILE: "tessera-export.json",
    ISSUES2_FILE: "lumen-export.json",
    ISSUES3_FILE: "kiln-export.json",
    ISSUES4_FILE: "heron-export.json",
}
# `--queries NAME` shortcuts for the stored sets.
QUERY_SETS = {
    "tune": [QUERIES_FILE],
    **{name: [path] for name, path in HOLDOUT_SETS.items()},
    "both": [QUERIES_FILE, HOLDOUT_SETS["holdout"]],
    "all": [QUERIES_FILE, *HOLDOUT_SETS.values()],
}

MAN_ROOT = Path("/usr/share/man")
MAN_SECTIONS = ("man1", "man2", "man3", "man4", "man5", "man6", "man7", "man8")
NODE_API_DIR = Path("/usr/share/doc/nodejs/api")
DOC_ROOT = Path("/usr/share/doc")
# gcloud ships ~16,600 near-identical generated pages: they would dominate rendering time
# and add little but boilerplate. Python docs are excluded on purpose (independent checks).
MAN_SKIP_PREFIXES = ("gcloud",)
DOC_SKIP_PREFIXES = ("python", "libpython", "google-cloud-cli")

FULL_MIN_BYTES = 50 * 1024 * 1024
FULL_TARGET_BYTES = 56 * 1024 * 1024  # a little over the floor, so the floor holds on any run
QUICK_MAN_STRIDE = 12  # --quick: every 12th page besides the pages the queries need
QUICK_TARGET_BYTES = 6 * 1024 * 1024  # leaves room for some plain-text filler

KINDS = ("exact", "inflected", "fragment", "typo", "phrase", "question")
TARGETS = {"index_mb_s": 3.0, "p50_ms": 10.0, "hit1": 0.75, "hit3": 0.90, "kind_hit3": 0.6}
INSTALL_HINT = "apt-get install -y man-db groff-base"
# Part of the cache: change it whenever render_man_page changes how pages are rendered.
RENDER_SETTINGS = "man -l --nh --nj -P cat, MANWIDTH=80, C.UTF-8\n"


class SetupError(Exception):
    """The corpus cannot be built as the queries require; the message says how to fix it."""


# ---------------------------------------------------------------------------------------------
# corpus


@dataclass(frozen=True)
class Doc:
    """One document to index: a stable id (used by the queries), its label, text and format."""

    doc_id: str
    label: str
    text: str
    fmt: str


@dataclass(frozen=True)
class ManPage:
    section: str  # "man1"
    name: str  # "tar.1"
    source: Path

    @property
    def doc_id(self) -> str:
        return f"man:{self.name}"

    @property
    def cache_path(self) -> Path:
        return CORPUS_CACHE / "man" / self.section / f"{self.name}.txt"


def _is_so_stub(path: Path) -> bool:
    """A page that only sources another (`.so man1/foo.1`) would duplicate that page."""
    try:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as handle:
            head = handle.read(400)
    except (OSError, EOFError):
        return True
    lines = [ln for ln in head.splitlines() if ln.strip() and not ln.startswith(('.\\"', "'\\\""))]
    return bool(lines) and lines[0].startswith(".so ") and len(lines) == 1


def list_man_pages() -> list[ManPage]:
    """English man pages, sections 1-8, real files only (no symlinks, no `.so` stubs), sorted."""
    pages = []
    for section in MAN_SECTIONS:
        directory = MAN_ROOT / section
        if not directory.is_dir():
            continue
        for entry in sorted(os.scandir(directory), key=lambda e: e.name):
            if not entry.name.endswith(".gz") or entry.is_symlink() or not entry.is_file():
                continue
            if entry.name.startswith(MAN_SKIP_PREFIXES) or _is_so_stub(Path(entry.path)):
                continue
            pages.append(ManPage(section, entry.name[:-3], Path(entry.path)))
    return pages


def render_man_page(source: str) -> str:
    """Render one page to plain UTF-8 text, 80 columns, no hyphenation or justification.

    Returns "" when the page cannot be rendered (the caller skips empty pages).
    """
    env = {**os.environ, "MANWIDTH": "80", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    env.pop("MAN_KEEP_FORMATTING", None)
    try:
        proc = subprocess.run(
            ["man", "-l", "--nh", "--nj", "-P", "cat", source],
            capture_output=True,
            env=env,
            cwd=str(MAN_ROOT),  # `.so` requests resolve relative to the man root
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    text = proc.stdout.decode("utf-8", errors="replace")
    # Belt and braces: drop overstrike bold/underline and SGR escapes if a pager setting leaks.
    text = re.sub(r".\x08", "", text)
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _render_to_cache(page: ManPage) -> None:
    text = render_man_page(str(page.source))
    page.cache_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = page.cache_path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(page.cache_path)


def _cache_is_fresh(page: ManPage) -> bool:
    try:
        return page.cache_path.stat().st_mtime >= page.source.stat().st_mtime
    except OSError:
        return False


def _drop_cache_rendered_otherwise() -> None:
    """Pages rendered with other settings than RENDER_SETTINGS are thrown away, once."""
    stamp = CORPUS_CACHE / "man" / "RENDERED_WITH"
    try:
        if stamp.read_text(encoding="utf-8") == RENDER_SETTINGS:
            return
    except OSError:
        pass
    shutil.rmtree(stamp.parent, ignore_errors=True)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(RENDER_SETTINGS, encoding="utf-8")


def ensure_rendered(pages: list[ManPage], workers: int = 2) -> float:
    """Render every page missing from the cache, in a process pool; returns seconds spent."""
    _drop_cache_rendered_otherwise()
    todo = [p for p in pages if not _cache_is_fresh(p)]
    if not todo:
        return 0.0
    if shutil.which("man") is None or shutil.which("groff") is None:
        raise SetupError(f"man-db/groff not installed; run: {INSTALL_HINT}")
    print(f"rendering {len(todo)} man pages on {workers} processes (cached afterwards) ...")
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        for done, _ in enumerate(pool.map(_render_to_cache, todo, chunksize=16), 1):
            if done % 500 == 0:
                print(f"  {done}/{len(todo)}")
    return time.perf_counter() - started


_SECTION_HEADING = re.compile(r"[A-Z][A-Z0-9 _/,&()'.-]*")
_SUBSECTION_HEADING = re.compile(r" {3}\S.*")


def man_to_markdown(title: str, rendered: str) -> str:
    """Rendered man text -> markdown: page title, `##` sections, `###` subsections.

    Body lines are kept verbatim (with their indentation) so a body line can never turn
    into a heading; the running header and footer lines are dropped.
    """
    lines = rendered.rstrip().splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].rstrip().endswith(")"):
        lines.pop(0)  # "TAR(1)   GNU TAR Manual   TAR(1)"
    if lines and lines[-1].rstrip().endswith(")"):
        lines.pop()  # "GNU TAR 1.34   2023-01-02   TAR(1)"
    out = [f"# {title}", ""]
    for line in lines:
        if line and _SECTION_HEADING.fullmatch(line.rstrip()):
            out.append(f"## {line.rstrip()}")
        elif _SUBSECTION_HEADING.fullmatch(line.rstrip()):
            out.append(f"### {line.strip()}")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def man_docs(pages: Iterable[ManPage]) -> Iterator[Doc]:
    for page in pages:
        rendered = page.cache_path.read_text(encoding="utf-8")
        if not rendered.strip():
            continue
        stem, _, section = page.name.rpartition(".")
        title = f"{stem}({section})"
        yield Doc(page.doc_id, f"man:{title}", man_to_markdown(title, rendered), "markdown")


def node_docs() -> Iterator[Doc]:
    """The Node.js API reference as shipped (markdown)."""
    if not NODE_API_DIR.is_dir():
        return
    for path in sorted(NODE_API_DIR.glob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        yield Doc(f"node:{path.name}", f"nodejs:{path.stem}", text, "markdown")


_FILLER_NAME = re.compile(r"(changelog|news|readme)[^/]*", re.IGNORECASE)


def filler_docs() -> Iterator[Doc]:
    """Debian changelogs, NEWS and READMEs (plain text), package by package, sorted.

    A text already yielded for another package (git and git-man share a changelog) is skipped.
    """
    seen: set[str] = set()
    for package in sorted(p for p in DOC_ROOT.iterdir() if p.is_dir() and not p.is_symlink()):
        if package.name.startswith(DOC_SKIP_PREFIXES) or package.name == "nodejs":
            continue
        for path in sorted(package.iterdir()):
            if not path.is_file() or not _FILLER_NAME.fullmatch(path.name):
                continue
            if path.suffix not in ("", ".gz", ".txt", ".md", ".Debian"):
                continue
            try:
                raw = (
                    gzip.decompress(path.read_bytes())
                    if path.suffix == ".gz"
                    else path.read_bytes()
                )
            except (OSError, EOFError):
                continue
            digest = hashlib.sha256(raw).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            text = raw.decode("utf-8", errors="replace")
            if text.strip():
                yield Doc(
                    f"doc:{package.name}/{path.name}",
                    f"doc:{package.name}/{path.name}",
                    text,
                    "plain",
                )


def issue_docs() -> Iterator[Doc]:
    """The issue-tracker exports (JSON), each indexed as a JSON file would be."""
    for path, label in ISSUE_EXPORTS.items():
        text = path.read_text(encoding="utf-8")
        yield Doc(f"issues:{path.name}", f"issues:{label}", text, "json")


def doc_size(doc: Doc) -> int:
    return len(doc.text.encode("utf-8"))


def build_corpus(quick: bool, required: set[str]) -> list[Doc]:
    """All documents to index, in a fixed order; the queries' documents are always present."""
    pages = list_man_pages()
    by_id = {p.doc_id: p for p in pages}
    missing = sorted(d for d in required if d.startswith("man:") and d not in by_id)
    if missing:
        raise SetupError(f"man pages the queries need are not installed: {', '.join(missing)}")
    if quick:
        pages = [
            p for i, p in enumerate(pages) if p.doc_id in required or i % QUICK_MAN_STRIDE == 0
        ]
    ensure_rendered(pages)
    docs = list(man_docs(pages)) + list(issue_docs())
    nodes = list(node_docs())
    docs += nodes if not quick else [d for d in nodes if d.doc_id in required]
    target = QUICK_TARGET_BYTES if quick else FULL_TARGET_BYTES
    total = sum(doc_size(d) for d in docs)
    for doc in filler_docs():
        if total >= target:
            break
        docs.append(doc)
        total += doc_size(doc)
    present = {d.doc_id for d in docs}
    absent = sorted(required - present)
    if absent:
        raise SetupError(f"documents the queries need are missing or rendered empty: {absent}")
    return docs


# ---------------------------------------------------------------------------------------------
# queries


@dataclass(frozen=True)
class Query:
    kind: str
    query: str
    doc: str  # doc id whose text holds the answer line, e.g. "man:tar.1"
    answer: str  # a line (or part of one) that a correct hit's snippet contains
    # Other (doc, answer) pairs that answer the query just as well (the corpus has them too).
    also: tuple[tuple[str, str], ...] = ()

    @property
    def answers(self) -> tuple[tuple[str, str], ...]:
        return ((self.doc, self.answer), *self.also)


def normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


def load_queries(path: Path = QUERIES_FILE) -> list[Query]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    queries = [
        Query(
            q["kind"],
            q["query"],
            q["doc"],
            q["answer"],
            tuple((a["doc"], a["answer"]) for a in q.get("also", ())),
        )
        for q in raw["queries"]
    ]
    unknown = sorted({q.kind for q in queries} - set(KINDS))
    if unknown:
        raise SetupError(f"{path.name}: unknown query kinds {unknown}")
    return queries


def install_command(paths: Iterable[Path] = (QUERIES_FILE,)) -> str:
    """The apt command that installs every package the chosen sets' documents come from."""
    packages: list[str] = []
    for path in paths:
        try:
            packages += json.loads(path.read_text(encoding="utf-8")).get("packages", [])
        except (OSError, ValueError):
            continue
    names = ["man-db", "groff-base", *dict.fromkeys(packages)]
    return f"apt-get install -y {' '.join(names)}"


def required_docs(queries: list[Query]) -> set[str]:
    return {doc for q in queries for doc, _ in q.answers}


def check_answers(queries: list[Query], docs: list[Doc]) -> None:
    """Every answer must be a real line of its document as indexed; otherwise the label is stale."""
    needed = required_docs(queries)
    texts = {d.doc_id: normalise(d.text) for d in docs if d.doc_id in needed}
    stale = [
        f"  [{q.kind}] {q.query!r}: {answer!r} not in {doc}"
        for q in queries
        for doc, answer in q.answers
        if normalise(answer) not in texts.get(doc, "")
    ]
    if stale:
        lines = "\n".join(stale)
        raise SetupError(f"{len(stale)} labelled answers are not in the corpus:\n{lines}")


# ---------------------------------------------------------------------------------------------
# measuring


@dataclass
class IndexStats:
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process only: shows when other load inflated the wall time
    bytes: int = 0
    chunks: int = 0
    by_fmt: dict[str, list[float]] = field(default_factory=dict)  # fmt -> [bytes, seconds]
    failures: list[str] = field(default_factory=list)  # "label: error" for documents refused

    @property
    def mb_s(self) -> float:
        return self.bytes / 1e6 / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class Outcome:
    query: Query
    rank: int | None  # 1-based rank of the first hit whose snippet holds the answer
    top_title: str
    corrected: str | None


def index_corpus(kb: object, docs: list[Doc]) -> IndexStats:
    """Index every document through `kb.index_text`, timing each call."""
    stats = IndexStats()
    for n, doc in enumerate(docs, 1):
        size = doc_size(doc)
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            result = kb.index_text(doc.label, doc.text, fmt=doc.fmt)
        except Exception as exc:  # reported with the results: one refusal must not end the run
            stats.failures.append(f"{doc.label}: {type(exc).__name__}: {exc}")
            continue
        spent = time.perf_counter() - started
        stats.cpu_seconds += time.process_time() - cpu_started
        stats.seconds += spent
        stats.bytes += size
        stats.chunks += result.chunk_count
        per = stats.by_fmt.setdefault(doc.fmt, [0.0, 0.0])
        per[0] += size
        per[1] += spent
        if n % 1000 == 0:
            print(f"  indexed {n}/{len(docs)} documents, {stats.bytes / 1e6:.1f} MB")
    return stats


def hit_rank(query: Query, hits: list) -> int | None:
    """1-based rank of the first hit whose snippet holds one of the query's answers."""
    wanted = [normalise(answer) for _, answer in query.answers]
    for rank, hit in enumerate(hits, 1):
        snippet = normalise(hit.snippet or "")
        if any(w in snippet for w in wanted):
            return rank
    return None


@dataclass
class Timings:
    """Per-search latency in ms: wall clock, and CPU time of this process alone."""

    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)


def run_queries(kb: object, queries: list[Query], rounds: int) -> tuple[list[Outcome], Timings]:
    """Each query searched alone (limit 3), `rounds` times; outcomes come from the first round."""
    outcomes: list[Outcome] = []
    timings = Timings()
    for round_no in range(rounds):
        for query in queries:
            started, cpu_started = time.perf_counter(), time.process_time()
            results = kb.search([query.query], limit=3)
            timings.wall_ms.append((time.perf_counter() - started) * 1000)
            timings.cpu_ms.append((time.process_time() - cpu_started) * 1000)
            if round_no == 0:
                outcomes.append(judge(query, results[0]))
    return outcomes, timings


def judge(query: Query, result: object) -> Outcome:
    top = result.hits[0] if result.hits else None
    top_title = f"{top.source} › {top.title}" if top else "(no hits)"
    return Outcome(query, hit_rank(query, result.hits), top_title, result.corrected_query)


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# ---------------------------------------------------------------------------------------------
# report


def hit_rates(outcomes: list[Outcome]) -> dict[str, tuple[int, float, float]]:
    """kind (and "overall") -> (count, hit@1, hit@3)."""
    rates = {}
    for kind in (*KINDS, "overall"):
        group = [o for o in outcomes if kind in ("overall", o.query.kind)]
        if group:
            hit1 = sum(o.rank == 1 for o in group) / len(group)
            hit3 = sum(o.rank is not None and o.rank <= 3 for o in group) / len(group)
            rates[kind] = (len(group), hit1, hit3)
    return rates


def verdicts(mb_s: float, p50: float, rates: dict) -> list[tuple[str, bool, str]]:
    """(target, met, measured value) for each target of the brief."""
    _, hit1, hit3 = rates["overall"]
    weakest, weakest_kind = min((rates[k][2], k) for k in KINDS if k in rates)
    return [
        (f"index >= {TARGETS['index_mb_s']:g} MB/s", mb_s >= TARGETS["index_mb_s"], f"{mb_s:.2f}"),
        (f"query p50 < {TARGETS['p50_ms']:g} ms", p50 < TARGETS["p50_ms"], f"{p50:.2f}"),
        (f"hit@1 >= {TARGETS['hit1']}", hit1 >= TARGETS["hit1"], f"{hit1:.2f}"),
        (f"hit@3 >= {TARGETS['hit3']}", hit3 >= TARGETS["hit3"], f"{hit3:.2f}"),
        (
            f"every kind hit@3 >= {TARGETS['kind_hit3']}",
            weakest >= TARGETS["kind_hit3"],
            f"min {weakest:.2f} ({weakest_kind})",
        ),
    ]


def print_speed(docs: list[Doc], stats: IndexStats, db_bytes: int, timings: Timings) -> None:
    groups: dict[str, int] = {}
    for doc in docs:
        key = doc.doc_id.split(":", 1)[0]
        groups[key] = groups.get(key, 0) + doc_size(doc)
    parts = ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in groups.items())
    mb = stats.bytes / 1e6
    print(f"\ncorpus: {len(docs):,} documents, {mb:.1f} MB of text ({parts})")
    per_fmt = ", ".join(f"{f} {b / 1e6 / s:.2f} MB/s" for f, (b, s) in stats.by_fmt.items() if s)
    print(
        f"index:  {mb:.1f} MB in {stats.seconds:.1f} s = {stats.mb_s:.2f} MB/s ({per_fmt}); "
        f"{stats.chunks:,} chunks; CPU time only: {mb / max(stats.cpu_seconds, 1e-9):.2f} MB/s"
    )
    for failure in stats.failures:
        print(f"  index_text failed: {failure}")
    print(
        f"db:     {db_bytes / 1e6:.1f} MB on disk = {db_bytes / max(stats.bytes, 1):.2f}x the text"
    )
    wall, cpu = timings.wall_ms, timings.cpu_ms
    print(
        f"query:  {len(wall)} searches (1 query each, limit 3) on the {mb:.0f} MB index: "
        f"p50 {percentile(wall, 50):.2f} ms, p95 {percentile(wall, 95):.2f} ms, "
        f"max {max(wall):.2f} ms; CPU time only: p50 {percentile(cpu, 50):.2f} ms, "
        f"p95 {percentile(cpu, 95):.2f} ms"
    )


def print_quality(outcomes: list[Outcome]) -> None:
    print(f"\n{'kind':<10} {'n':>3} {'hit@1':>6} {'hit@3':>6}")
    for kind, (count, hit1, hit3) in hit_rates(outcomes).items():
        print(f"{kind:<10} {count:>3} {hit1:>6.2f} {hit3:>6.2f}")
    misses = [o for o in outcomes if o.rank != 1]
    print(f"\nmisses at rank 1 ({len(misses)}):")
    for o in misses:
        where = "not in top 3" if o.rank is None else f"rank {o.rank}"
        fixed = f" (corrected: {o.corrected!r})" if o.corrected else ""
        print(
            f"  [{o.query.kind}] {o.query.query!r}{fixed} -> {where}\n"
            f"      expected ({o.query.doc}): {o.query.answer!r}\n      top: {o.top_title}"
        )


def print_verdict(
    stats: IndexStats, timings: Timings, outcomes: list[Outcome], quick: bool
) -> None:
    checks = verdicts(stats.mb_s, percentile(timings.wall_ms, 50), hit_rates(outcomes))
    print("\ntargets:")
    for name, ok, value in checks:
        print(f"  {'PASS' if ok else 'FAIL'}  {name}: {value}")
    scale = " (quick run: small index, latency not comparable)" if quick else ""
    if not quick and stats.bytes < FULL_MIN_BYTES:
        scale = f" (index under {FULL_MIN_BYTES // 2**20} MiB: latency not comparable)"
    print(f"\nRESULT: {'PASS' if all(ok for _, ok, _ in checks) else 'FAIL'}{scale}")


# ---------------------------------------------------------------------------------------------
# main


def open_store(module_name: str, data_root: Path, project_root: Path) -> object:
    """Import the store only now: CTXMODE_DIR must point at the fresh data root first."""
    os.environ["CTXMODE_DIR"] = str(data_root)
    os.environ["CTXMODE_CONFIG_DIR"] = str(data_root.parent / "config")
    os.environ.pop("CONTEXT_MODE_DIR", None)
    src = REPO_DIR / "src"
    if src.is_dir() and str(src) not in sys.path:
        sys.path.insert(0, str(src))
    module = importlib.import_module(module_name)
    return module.KnowledgeBase.open(str(project_root))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small corpus, one query round")
    parser.add_argument(
        "--rounds", type=int, default=None, help="query rounds (default 3; quick 1)"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temp data root in bench/.work"
    )
    parser.add_argument(
        "--queries",
        action="append",
        type=Path,
        metavar="PATH",
        help=f"a labelled query set (repeatable; default {QUERIES_FILE.name}); "
        f"or a name: 'tune', {', '.join(map(repr, HOLDOUT_SETS))}, "
        "'both' (tune and holdout) or 'all' (every stored set)",
    )
    # Another module with the same KnowledgeBase API (to try the harness on a stand-in store).
    parser.add_argument("--store-module", default="ctxmode.store.knowledge", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def query_files(given: list[Path] | None) -> list[Path]:
    files: list[Path] = []
    for path in given or [QUERIES_FILE]:
        files += QUERY_SETS.get(str(path), [path])
    return list(dict.fromkeys(files))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 3)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"ctxmode search benchmark ({'quick' if args.quick else 'full'}); load average {load}")
    files = query_files(args.queries)
    try:
        sets = {path: load_queries(path) for path in files}
        every = [q for queries in sets.values() for q in queries]
        started = time.perf_counter()
        docs = build_corpus(args.quick, required_docs(every))
        check_answers(every, docs)
    except (SetupError, OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        print(f"the labelled documents ship in: {install_command(files)}", file=sys.stderr)
        return 2
    counts = ", ".join(f"{path.name} {len(queries)}" for path, queries in sets.items())
    print(f"corpus ready in {time.perf_counter() - started:.1f} s; queries: {counts}")
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="search-", dir=WORK_DIR))
    data_root, project_root = work / "data", work / "project"
    project_root.mkdir(parents=True)
    try:
        try:
            kb = open_store(args.store_module, data_root, project_root)
        except ImportError as exc:
            print(f"error: the store is not importable: {exc}", file=sys.stderr)
            return 2
        try:
            print(f"indexing {len(docs):,} documents into {data_root} ...")
            stats = index_corpus(kb, docs)
            runs = {path: run_queries(kb, queries, rounds) for path, queries in sets.items()}
        finally:
            kb.close()
        for path, (outcomes, timings) in runs.items():
            print(f"\n==================== query set: {path.name}")
            print_speed(docs, stats, dir_size(data_root), timings)
            print_quality(outcomes)
            print_verdict(stats, timings, outcomes, args.quick)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
