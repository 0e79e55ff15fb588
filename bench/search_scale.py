"""Search at scale: the same queries against 1x, 10x and 30x of indexed text, as ratios to 1x.

Run: `.venv/bin/python bench/search_scale.py` (`--scales 1 10 30`, `--unit-mb 7`, `--rounds 3`,
`--rebuild` to index again, `--work-dir DIR` to keep the databases elsewhere, e.g. under /tmp,
so that another checkout can reuse them).

The corpus is text this machine ships (C headers, the Python standard library and
dist-packages, Perl modules, Vim runtime files, CMake modules, /usr/share/doc), taken in a
fixed order until each scale's size is reached: 1x is `--unit-mb` MB, 30x about 200 MB.
Each scale is one database under bench/.work/scale/<N>x/ (or `--work-dir`), indexed file by file with
`KnowledgeBase.index_file` (as `ctx_index` with a path does) and kept for the next run; it
records a digest of the store's source, so a change to the schema, chunking or indexing
builds it again. The queries are the texts of every stored labelled set
(bench/search_queries*.json, written before any tuning on this bench); each search goes the
way a `ctx_search` call does: open the project database, search with limit 3, close.
Printed per scale: p50 / p95 wall ms, ratio to 1x measured in the same run, database size
against the text it holds. Exit code is always 0 (a benchmark, not a gate).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
SCALE_DIR = BENCH_DIR / ".work" / "scale"
ROOTS = (
    "/usr/include",
    "/usr/lib/python3.11",
    "/usr/lib/python3/dist-packages",
    "/usr/share/perl",
    "/usr/share/vim",
    "/usr/share/cmake-3.25",
    "/usr/share/doc",
)
EXTENSIONS = (".h", ".py", ".pm", ".pod", ".vim", ".txt", ".md", ".rst", ".cmake", ".html")
MAX_FILE_BYTES = 2 * 1024 * 1024
# What decides how text is stored: a change here makes the cached databases stale.
STORE_SOURCES = (
    "storage/schema.py",
    "storage/db.py",
    "store/indexing.py",
    "store/chunking.py",
    "store/terms.py",
    "store/packing.py",
    "store/merging.py",
)
TARGET_P50_MS, TARGET_P95_MS, TARGET_DB_RATIO = 20.0, 50.0, 1.5


def corpus_files(limit_bytes: int) -> list[tuple[str, int]]:
    """(path, size) of text files under ROOTS in a fixed order, until `limit_bytes`."""
    chosen: list[tuple[str, int]] = []
    total = 0
    for root in ROOTS:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(folder, name)
                if not name.endswith(EXTENSIONS) or os.path.islink(path):
                    continue
                size = os.path.getsize(path)
                if 0 < size <= MAX_FILE_BYTES:
                    chosen.append((path, size))
                    total += size
                    if total >= limit_bytes:
                        return chosen
    return chosen


def store_digest() -> str:
    digest = hashlib.sha256()
    for name in STORE_SOURCES:
        digest.update((REPO_DIR / "src" / "ctxmode" / name).read_bytes())
    return digest.hexdigest()[:12]


def use_data_root(root: Path) -> None:
    os.environ["CTXMODE_DIR"] = str(root / "data")
    os.environ["CTXMODE_CONFIG_DIR"] = str(root / "config")
    os.environ.pop("CONTEXT_MODE_DIR", None)


def build(root: Path, files: list[tuple[str, int]], digest: str) -> None:
    """Index `files` into the project database under `root` (marked done when complete)."""
    from ctxmode.store.knowledge import KnowledgeBase

    shutil.rmtree(root, ignore_errors=True)
    (root / "project").mkdir(parents=True)
    use_data_root(root)
    started = time.perf_counter()
    with KnowledgeBase.open(str(root / "project")) as kb:
        for n, (path, _size) in enumerate(files, 1):
            try:
                kb.index_file(path, path)
            except Exception as exc:  # one unreadable file must not end the build
                print(f"  skipped {path}: {type(exc).__name__}: {exc}", file=sys.stderr)
            if n % 2000 == 0:
                print(f"  {n}/{len(files)} files", flush=True)
    spent = time.perf_counter() - started
    text = sum(size for _, size in files)
    done = {"files": len(files), "bytes": text, "s": spent, "store": digest}
    (root / "done.json").write_text(json.dumps(done))


def database_bytes(root: Path) -> int:
    return sum(f.stat().st_size for f in (root / "data").rglob("*") if f.is_file())


def queries() -> list[str]:
    texts: list[str] = []
    for path in sorted(BENCH_DIR.glob("search_queries*.json")):
        texts += [q["query"] for q in json.loads(path.read_text(encoding="utf-8"))["queries"]]
    return list(dict.fromkeys(texts))


def time_searches(root: Path, texts: list[str], rounds: int) -> tuple[list[float], list[float]]:
    """Wall and CPU ms per search, each as a `ctx_search` call runs it (open, search, close).

    CPU time is this process's own: on a shared machine it moves far less with the load."""
    from ctxmode.storage import project, schema
    from ctxmode.store.knowledge import KnowledgeBase

    use_data_root(root)
    project_root = project.resolve_project_root(str(root / "project"))
    wall, cpu = [], []
    for _ in range(rounds):
        for text in texts:
            started, cpu_started = time.perf_counter(), time.process_time()
            with schema.project_database(project_root) as conn:
                KnowledgeBase(conn).search([text], limit=3)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - cpu_started) * 1000)
    return wall, cpu


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--unit-mb", type=float, default=7.0, help="size of 1x in MB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true", help="index again even if cached")
    parser.add_argument(
        "--work-dir", type=Path, default=SCALE_DIR, help=f"where the databases live ({SCALE_DIR})"
    )
    options = parser.parse_args(argv)
    sys.path.insert(0, str(REPO_DIR / "src"))
    texts = queries()
    print(f"load average {os.getloadavg()[0]:.1f}; {len(texts)} queries x {options.rounds}")
    digest = store_digest()
    rows = []
    for scale in sorted(set(options.scales)):
        files = corpus_files(int(scale * options.unit_mb * 1_000_000))
        root = options.work_dir / f"{scale}x"
        done = root / "done.json"
        if options.rebuild or not done.exists() or json.loads(done.read_text())["store"] != digest:
            print(f"indexing {scale}x ({len(files)} files) into {root} ...", flush=True)
            build(root, files, digest)
        built = json.loads(done.read_text())
        wall, cpu = time_searches(root, texts, options.rounds)
        rows.append((scale, built, database_bytes(root), wall, cpu))
    report(rows)
    return 0


def report(rows: list[tuple[int, dict, int, list[float], list[float]]]) -> None:
    base = statistics.median(rows[0][3])
    print(f"\n  {'scale':>5} {'text MB':>8} {'files':>6} {'db/text':>8} {'index s':>8} "
          f"{'p50 ms':>7} {'p95 ms':>7} {'p50/1x':>7} {'cpu p50':>8} {'cpu p95':>8}  "
          f"verdict (p50<={TARGET_P50_MS:.0f}, p95<={TARGET_P95_MS:.0f}, "
          f"db<={TARGET_DB_RATIO}x)")  # fmt: skip
    for scale, built, db_bytes, wall, cpu in rows:
        p50, p95 = statistics.median(wall), percentile(wall, 95)
        ratio = db_bytes / built["bytes"]
        ok = p50 <= TARGET_P50_MS and p95 <= TARGET_P95_MS and ratio <= TARGET_DB_RATIO
        print(f"  {scale:>4}x {built['bytes'] / 1e6:>8.1f} {built['files']:>6} {ratio:>7.2f}x "
              f"{built['s']:>8.0f} {p50:>7.1f} {p95:>7.1f} {p50 / base:>6.2f}x "
              f"{statistics.median(cpu):>8.1f} {percentile(cpu, 95):>8.1f}  "
              f"{'ok' if ok else 'MISSED'}")  # fmt: skip
    print()


if __name__ == "__main__":
    sys.exit(main())
