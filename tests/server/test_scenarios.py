"""Scenario check: realistic bulky outputs run through the tools the way an agent would.

Each reply must stay under 5 KB and still carry the facts the agent asked for, and
the full output must stay retrievable with ctx_search under the label the reply
names. All data is generated here (seeded); the whole file uses one server process.
"""

from __future__ import annotations

import csv
import json
import os
import random
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPLY_LIMIT = 5 * 1024

PLANTED_IP = "203.0.113.77"
NEEDLE_ID = "needle-4242"
OUTLIER_ORDER = "ord-07331"
FAILING_TESTS = ("test_invoice_rounding", "test_refund_window", "test_currency_lookup")

# --------------------------------------------------------------- generated data


def write_access_log(path: Path, rng: random.Random, lines: int = 20_000) -> list[str]:
    """nginx combined-format lines; 200/3xx/404 noise and five 500s from one planted IP."""
    planted_at = set(rng.sample(range(1_000, lines - 1_000), 5))
    paths = ["/", "/login", "/api/items", "/api/cart", "/static/app.js", "/health", "/search"]
    agents = ["Mozilla/5.0 (X11; Linux x86_64)", "curl/8.5.0", "Googlebot/2.1"]
    planted: list[str] = []
    with path.open("w") as out:
        for n in range(lines):
            second = n % 60
            stamp = f"30/Nov/2026:{8 + n // 3600:02d}:{n // 60 % 60:02d}:{second:02d} +0000"
            if n in planted_at:
                ip, status, route = PLANTED_IP, 500, "/api/checkout"
            else:
                ip = f"10.{rng.randint(0, 9)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
                status = rng.choice([200, 200, 200, 200, 301, 304, 404])
                route = rng.choice(paths)
            size = rng.randint(501, 90_000)  # never a bare "500" outside the status field
            line = (
                f'{ip} - - [{stamp}] "GET {route} HTTP/1.1" {status} {size} "-" '
                f'"{rng.choice(agents)}"'
            )
            if status == 500:
                planted.append(line)
            out.write(line + "\n")
    return planted


def write_sales_csv(path: Path, rng: random.Random, rows: int = 10_000) -> list[str]:
    """Orders with ordinary statuses and amounts; one chargeback 100x the usual amount."""
    outlier_at = rng.randrange(2_000, rows - 2_000)
    regions = ["eu-west", "eu-north", "us-east", "us-west", "ap-south"]
    statuses = ["shipped", "delivered", "pending", "returned"]
    outlier: list[str] = []
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["order_id", "date", "region", "sku", "quantity", "amount", "status"])
        for n in range(rows):
            if n == outlier_at:
                row = [OUTLIER_ORDER, "2026-03-14", "eu-west", "SKU-9913", "4", "98765.43",
                       "chargeback"]  # fmt: skip
                outlier = row
            else:
                row = [f"ord-{n + 100_000}", f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}",
                       rng.choice(regions), f"SKU-{rng.randint(1000, 1999)}",
                       str(rng.randint(1, 9)), f"{rng.uniform(5, 900):.2f}",
                       rng.choice(statuses)]  # fmt: skip
            writer.writerow(row)
    return outlier


def write_records_json(path: Path, rng: random.Random, count: int = 20_000) -> dict[str, Any]:
    """A pretty-printed JSON array of records; one planted record among them."""
    owners = ["team-alpha", "team-beta", "team-gamma", "team-delta"]
    needle = {
        "id": NEEDLE_ID,
        "owner": "zephyr-ops",
        "status": "quarantined",
        "checksum": "c0ffee4242deadbeef",
        "size_bytes": 424242,
    }
    records = [
        {
            "id": f"rec-{n:05d}",
            "owner": rng.choice(owners),
            "status": rng.choice(["active", "archived"]),
            "checksum": f"{rng.getrandbits(64):016x}",
            "size_bytes": rng.randint(100, 99_999),
        }
        for n in range(count)
    ]
    records[rng.randrange(5_000, count - 5_000)] = needle
    path.write_text(json.dumps(records, indent=2))
    return needle


def write_test_project(root: Path) -> None:
    """~300 passing tests and three failing ones with distinctive assertion messages."""
    root.mkdir()
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    cases = "\n".join(f"    ({n}, {n * 2})," for n in range(297))
    (root / "test_shop.py").write_text(
        f"""import pytest


@pytest.mark.parametrize("value,double", [
{cases}
])
def test_double(value, double):
    assert value * 2 == double


def test_cart_total():
    assert sum([1, 2, 3]) == 6


def test_tax_zero():
    assert round(0.0 * 0.2, 2) == 0.0


def test_sku_format():
    assert "SKU-1".startswith("SKU")


def test_invoice_rounding():
    assert round(2.675, 2) == 2.68, "invoice total rounded wrong"


def test_refund_window():
    days = 31
    assert days <= 30, f"refund window exceeded: {{days}} days"


def test_currency_lookup():
    rates = {{"EUR": 1.0, "USD": 1.08}}
    assert rates["GBP"] == 0.86
"""
    )


def write_app_log(path: Path, rng: random.Random, target_bytes: int = 2 * 1024 * 1024) -> None:
    """INFO/DEBUG noise with three Python tracebacks buried in it."""
    modules = ["api.handlers", "db.pool", "cache.redis", "auth.session", "jobs.scheduler"]
    verbs = ["served", "refreshed", "checked", "synced", "loaded", "rotated"]
    tracebacks = [
        [
            "ERROR billing.worker task failed",
            "Traceback (most recent call last):",
            '  File "/srv/app/billing/ratios.py", line 88, in compute_ratio',
            "    return paid / total",
            "ZeroDivisionError: division by zero",
        ],
        [
            "ERROR api.handlers request failed",
            "Traceback (most recent call last):",
            '  File "/srv/app/api/users.py", line 41, in load_profile',
            '    return cache["profile"][user_id]',
            "KeyError: 'u-55812'",
        ],
        [
            "ERROR reports.export export crashed",
            "Traceback (most recent call last):",
            '  File "/srv/app/reports/export.py", line 17, in average_spend',
            "    return spend / customers",
            "ZeroDivisionError: float division by zero",
        ],
    ]
    size = 0
    lines: list[str] = []
    while size < target_bytes:
        line = (
            f"2026-11-30T09:{len(lines) // 600 % 60:02d}:{len(lines) // 10 % 60:02d} "
            f"{rng.choice(['INFO', 'INFO', 'INFO', 'DEBUG'])} {rng.choice(modules)} "
            f"{rng.choice(verbs)} {rng.randint(1, 5000)} items in {rng.randint(1, 900)} ms"
        )
        lines.append(line)
        size += len(line) + 1
    for position, block in zip(sorted(rng.sample(range(len(lines)), 3)), tracebacks, strict=True):
        lines[position] = "\n".join(f"2026-11-30T09:30:00 {block[0]}" if i == 0 else text
                                    for i, text in enumerate(block))  # fmt: skip
    path.write_text("\n".join(lines) + "\n")


# --------------------------------------------------------------- one server for all scenarios


def source_label(reply: str) -> str:
    """The label under which the reply says the full output was indexed."""
    for pattern in (
        r'source\s*=\s*["\']([^"\']+)["\']',
        r'indexed as ["\']([^"\']+)["\']',
        r"source ['\"]([^'\"]+)['\"]",
    ):
        match = re.search(pattern, reply)
        if match:
            return match.group(1)
    raise AssertionError(f"the reply names no source label:\n{reply[:800]}")


async def call(client: Client, tool: str, **arguments: Any) -> tuple[str, bool]:
    result = await client.call_tool(tool, arguments)
    text = "\n".join(block.text for block in result.content if getattr(block, "text", None))
    return text, bool(result.is_error)


async def run_scenarios(client: Client, project: Path, facts: dict[str, Any]) -> dict[str, Any]:
    replies: dict[str, Any] = {}
    replies["access_log"] = await call(
        client, "ctx_execute", language="shell", code="cat access.log", intent="500 errors"
    )
    replies["sales_csv"] = await call(
        client,
        "ctx_execute",
        language="python",
        code="import sys\nsys.stdout.write(open('sales.csv').read())",
        intent="chargeback amount",
    )
    replies["records_file"] = await call(
        client,
        "ctx_execute_file",
        path="records.json",
        language="python",
        code="print(FILE_CONTENT)",
        intent=NEEDLE_ID,
    )
    replies["records_index"] = await call(client, "ctx_index", path="records.json")
    replies["pytest"] = await call(
        client,
        "ctx_execute",
        language="shell",
        code=f"cd shop && '{sys.executable}' -m pytest -v test_shop.py",
    )
    replies["app_log"] = await call(
        client,
        "ctx_batch_execute",
        commands=[{"label": "app log", "command": "cat app.log"}],
        queries=["Traceback ZeroDivisionError", "KeyError"],
    )
    # Follow-up searches, one per scenario, for something the first reply did not show.
    follow_ups = {
        "access_log": facts["access_probe"],
        "sales_csv": facts["sales_probe"],
        "records_file": NEEDLE_ID,
        "records_index": NEEDLE_ID,
        "pytest": "test_double[150-300]",
        "app_log": "average_spend ZeroDivisionError",
    }
    for name, query in follow_ups.items():
        text, is_error = replies[name]
        if is_error:
            continue
        label = source_label(text)
        replies[f"{name}_search"] = (label, *await call(client, "ctx_search", queries=[query],
                                                          source=label))  # fmt: skip
    return replies


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Generate every data set, then run all scenarios through one `ctxmode serve`."""
    base = tmp_path_factory.mktemp("scenarios")
    project = base / "project"
    project.mkdir()
    rng = random.Random(20261130)
    facts: dict[str, Any] = {
        "planted_500s": write_access_log(project / "access.log", rng),
        "outlier": write_sales_csv(project / "sales.csv", rng),
        "needle": write_records_json(project / "records.json", rng),
    }
    write_test_project(project / "shop")
    write_app_log(project / "app.log", rng)
    # Lines deep inside the outputs that no reply shows: proof the full text is indexed.
    access_lines = (project / "access.log").read_text().splitlines()
    facts["access_probe"] = access_lines[12_345].split('"')[0].split()[0]
    facts["access_probe_line"] = access_lines[12_345]
    sales_rows = (project / "sales.csv").read_text().splitlines()
    facts["sales_probe"] = sales_rows[6_789].split(",")[0]
    env = {
        **os.environ,
        "CTXMODE_DIR": str(base / "data"),
        "CTXMODE_CONFIG_DIR": str(base / "config"),
        # The search throttle is not under test here: let every follow-up search through.
        "CTXMODE_SEARCH_MAX_RESULTS_AFTER": "1000",
        "CTXMODE_SEARCH_BLOCK_AFTER": "1000",
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctxmode", "serve"], env=env, cwd=str(project)
    )

    async def main() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=120) as client:
            return await run_scenarios(client, project, facts)

    return {"replies": anyio.run(main), "facts": facts, "project": project}


def reply_of(scenario: dict[str, Any], name: str) -> str:
    text, is_error = scenario["replies"][name]
    assert not is_error, text
    size = len(text.encode("utf-8"))
    assert size < REPLY_LIMIT, f"{name}: reply is {size} bytes:\n{text[:1500]}"
    return text


def search_of(scenario: dict[str, Any], name: str) -> str:
    label, text, is_error = scenario["replies"][f"{name}_search"]
    assert not is_error, text
    assert label in text, text[:800]
    return text


# --------------------------------------------------------------- the checks


def test_access_log_500s_come_back_with_the_planted_ip(scenario):
    text = reply_of(scenario, "access_log")
    assert PLANTED_IP in text
    planted = scenario["facts"]["planted_500s"]
    assert sum(line.split('"')[0].split()[0] == PLANTED_IP for line in planted) == 5
    assert sum(line in text for line in planted) >= 3, text


def test_access_log_stays_searchable(scenario):
    text = search_of(scenario, "access_log")
    assert scenario["facts"]["access_probe"] in text


def test_csv_outlier_row_is_in_the_reply(scenario):
    text = reply_of(scenario, "sales_csv")
    assert OUTLIER_ORDER in text and "98765.43" in text


def test_csv_stays_searchable(scenario):
    text = search_of(scenario, "sales_csv")
    assert scenario["facts"]["sales_probe"] in text


def test_json_needle_comes_back_from_execute_file(scenario):
    text = reply_of(scenario, "records_file")
    assert f'"id": "{NEEDLE_ID}"' in text


def test_json_needle_fields_come_back_from_execute_file(scenario):
    text = reply_of(scenario, "records_file")
    assert "zephyr-ops" in text and "quarantined" in text


def test_json_file_output_stays_searchable(scenario):
    text = search_of(scenario, "records_file")
    assert NEEDLE_ID in text and "zephyr-ops" in text and "quarantined" in text


def test_indexed_json_file_finds_the_needle(scenario):
    indexed = reply_of(scenario, "records_index")
    assert "Indexed" in indexed
    text = search_of(scenario, "records_index")
    assert NEEDLE_ID in text and "zephyr-ops" in text


def test_failing_pytest_run_keeps_names_assertions_and_summary(scenario):
    text = reply_of(scenario, "pytest")
    for name in FAILING_TESTS:
        assert name in text, name
    assert "invoice total rounded wrong" in text
    assert "refund window exceeded: 31 days" in text
    assert "KeyError" in text and "GBP" in text
    assert re.search(r"3 failed, 300 passed", text), text


def test_pytest_run_stays_searchable(scenario):
    text = search_of(scenario, "pytest")
    assert "test_double[150-300] PASSED" in text


def test_batch_query_digs_tracebacks_out_of_a_large_log(scenario):
    text = reply_of(scenario, "app_log")
    assert "Traceback (most recent call last):" in text
    assert "ZeroDivisionError: division by zero" in text
    assert 'File "/srv/app/billing/ratios.py", line 88, in compute_ratio' in text
    assert "KeyError: 'u-55812'" in text


def test_app_log_stays_searchable(scenario):
    text = search_of(scenario, "app_log")
    assert "ZeroDivisionError: float division by zero" in text
