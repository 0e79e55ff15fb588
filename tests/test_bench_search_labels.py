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


# Each later blind set, with the export written for it: (set, export, at least this many
# queries, questions, partial identifiers and queries on that export).
LATER_SETS = [
    ("holdout5", "ISSUES2_FILE", 70, 20, 0, 15),
    ("holdout6", "ISSUES3_FILE", 90, 35, 12, 25),
    ("holdout7", "ISSUES4_FILE", 80, 30, 12, 18),
]


@pytest.mark.parametrize(
    ("set_name", "export", "total", "questions", "fragments", "on_export"), LATER_SETS
)
def test_a_later_set_covers_every_kind_questions_fragments_and_its_export(
    bench: ModuleType,
    set_name: str,
    export: str,
    total: int,
    questions: int,
    fragments: int,
    on_export: int,
) -> None:
    queries = bench.load_queries(bench.HOLDOUT_SETS[set_name])
    export_doc = f"issues:{getattr(bench, export).name}"
    assert len(queries) >= total
    assert sum(q.kind == "question" for q in queries) >= questions
    assert sum(q.kind == "fragment" for q in queries) >= fragments
    assert sum(q.doc == export_doc for q in queries) >= on_export
    assert {q.kind for q in queries} == set(bench.KINDS)
