"""The search benchmark's labelled query sets: every answer that points at an issue export
is a real line of it, so a stale label fails here and not hours into a benchmark run.

Man-page and Node.js labels are checked by bench/search.py itself once the corpus is
built (rendering thousands of man pages is not a unit test's job).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH_SEARCH = Path(__file__).resolve().parent.parent / "bench" / "search.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_search", BENCH_SEARCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def test_every_issue_export_label_is_a_line_of_its_export(bench: ModuleType) -> None:
    exports = list(bench.issue_docs())
    export_ids = {doc.doc_id for doc in exports}
    checked = 0
    for path in bench.QUERY_SETS["all"]:
        queries = bench.load_queries(path)
        on_exports = [q for q in queries if {doc for doc, _ in q.answers} <= export_ids]
        bench.check_answers(on_exports, exports)  # raises SetupError naming each stale label
        checked += len(on_exports)
    assert checked > 0


def test_holdout5_covers_questions_and_the_second_export(bench: ModuleType) -> None:
    queries = bench.load_queries(bench.HOLDOUT5_FILE)
    second = f"issues:{bench.ISSUES2_FILE.name}"
    assert len(queries) >= 70
    assert sum(q.kind == "question" for q in queries) >= 20
    assert sum(q.doc == second for q in queries) >= 15
    assert {q.kind for q in queries} == set(bench.KINDS)


def test_holdout6_covers_questions_fragments_and_the_third_export(bench: ModuleType) -> None:
    queries = bench.load_queries(bench.HOLDOUT6_FILE)
    third = f"issues:{bench.ISSUES3_FILE.name}"
    assert len(queries) >= 90
    assert sum(q.kind == "question" for q in queries) >= 35
    assert sum(q.kind == "fragment" for q in queries) >= 12
    assert sum(q.doc == third for q in queries) >= 25
    assert {q.kind for q in queries} == set(bench.KINDS)


def test_holdout7_covers_questions_fragments_and_the_fourth_export(bench: ModuleType) -> None:
    queries = bench.load_queries(bench.HOLDOUT7_FILE)
    fourth = f"issues:{bench.ISSUES4_FILE.name}"
    assert len(queries) >= 80
    assert sum(q.kind == "question" for q in queries) >= 30
    assert sum(q.kind == "fragment" for q in queries) >= 12
    assert sum(q.doc == fourth for q in queries) >= 18
    assert {q.kind for q in queries} == set(bench.KINDS)
