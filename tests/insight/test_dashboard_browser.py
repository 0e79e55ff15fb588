"""`ctxmode insight` in a real headless Chromium, against a data root a scripted session filled.

Each page's figures must equal what the database and the hook tally hold; nothing may be
fetched from anywhere but the dashboard; a request without the token is refused; the
purge works only through its confirmation page. Screenshots land in the test's tmp dir.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from ctxmode import stats
from ctxmode.hooks.tally import LOG_NAME

from .browser import DIRECT, Browser, require_browser
from .scripted import SESSION_ID, fill


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("insight")
    data_root, project = base / "data", base / "project"
    fill(data_root, project)
    return data_root, project


@pytest.fixture(scope="module")
def dashboard(filled: tuple[Path, Path]) -> dict:
    data_root, project = filled
    env = {**os.environ, "CTXMODE_DIR": str(data_root)}
    errors = open(data_root / "insight-stderr.log", "wb")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "ctxmode", "insight", "--no-browser", "--project", str(project)],
        stdout=subprocess.PIPE, stderr=errors, env=env, text=True,
    )  # fmt: skip
    with process.stdout:  # type: ignore[union-attr]
        url = process.stdout.readline().split()[2]  # type: ignore[union-attr]
    yield {"url": url, "base": url.split("/?")[0], "data_root": data_root, "project": project}
    process.terminate()
    process.wait(timeout=10)
    errors.close()


@pytest.fixture(scope="module")
def browser(dashboard: dict) -> Browser:
    chrome = Browser(require_browser())
    chrome.open(dashboard["url"])  # the token arrives once, in the URL; a cookie keeps it
    yield chrome
    chrome.close()


def _db(data_root: Path) -> sqlite3.Connection:
    (path,) = (data_root / "projects").glob("*.db")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _tally(data_root: Path) -> list[dict]:
    with open(data_root / "logs" / LOG_NAME, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _visit(browser: Browser, dashboard: dict, path: str, shots: Path, name: str) -> None:
    browser.open(dashboard["base"] + path)
    shots.mkdir(exist_ok=True)
    browser.screenshot(str(shots / f"{name}.png"))
    assert "ctxmode insight" in browser.text()


def test_the_overview_shows_the_databases_numbers(browser, dashboard, tmp_path):
    _visit(browser, dashboard, "/", tmp_path / "shots", "overview")
    figures = browser.figures()
    data_root = dashboard["data_root"]
    with contextlib.closing(_db(data_root)) as conn:
        mcp_kept, mcp_out, client = conn.execute(
            "SELECT sum(bytes_kept_out), sum(bytes_returned), max(client) FROM tool_calls"
        ).fetchone()
    replaced = [line for line in _tally(data_root) if line.get("act") == "replace_output"]
    hook_kept = sum(stats.kept_out(r["bytes_in"], r["bytes_out"]) for r in replaced)
    assert mcp_kept > 0 and hook_kept > 0  # both measured sources are exercised
    assert int(figures["kept-out-bytes"]) == mcp_kept + hook_kept
    assert int(figures["kept-out-tokens"]) == (mcp_kept + hook_kept) // 4
    returned = mcp_out + sum(r["bytes_out"] for r in replaced)
    share = returned / (returned + mcp_kept + hook_kept)
    assert float(figures["share-reached"]) == pytest.approx(share, abs=1e-4)
    assert int(figures["steered-count"]) == 2  # the curl and the WebFetch: counts, no bytes
    hosts = browser.values("host")
    assert hosts == {f"{client} (MCP client)": str(mcp_kept), "claude-code": str(hook_kept)}
    steered = browser.values("steered")
    assert steered == {"bash-redirected": "1", "webfetch-redirected": "1"}
    text = browser.text()
    assert "bytes / 4" in text and "estimated" in text and "counted" in text
    browser.open(dashboard["base"] + "/?project=all")  # the one project is the whole data root
    assert browser.figures() == figures


def test_the_sessions_pages_show_the_timeline_compaction_and_resume(browser, dashboard, tmp_path):
    _visit(browser, dashboard, "/sessions", tmp_path / "shots", "sessions")
    data_root = dashboard["data_root"]
    with contextlib.closing(_db(data_root)) as conn:
        sessions = conn.execute("SELECT count(*) FROM session_meta").fetchone()[0]
        events = conn.execute(
            "SELECT count(*) FROM session_events WHERE session_id = ?", (SESSION_ID,)
        ).fetchone()[0]
        compactions, snapshot_bytes = conn.execute(
            "SELECT m.compact_count, s.byte_count FROM session_meta m JOIN session_snapshots s "
            "USING (session_id) WHERE session_id = ?",
            (SESSION_ID,),
        ).fetchone()
    assert int(browser.figures()["session-count"]) == sessions == 1
    assert browser.values("session", 0) == {SESSION_ID: str(events)}
    browser.click(f'[data-session="{SESSION_ID}"] a')
    browser.wait_for("document.querySelector('[data-figure=compactions]')")
    browser.screenshot(str(tmp_path / "shots" / "session.png"))
    figures = browser.figures()
    assert int(figures["events"]) == events
    assert int(figures["compactions"]) == compactions == 1
    assert int(figures["snapshot-bytes"]) == snapshot_bytes
    text = browser.text()
    assert "Fix the flaky login test" in text  # the last request
    assert "Carried into the context" in text  # the resume consumed the snapshot


def test_the_knowledge_base_lists_sources_and_ranks_like_ctx_search(browser, dashboard, tmp_path):
    from ctxmode.store.knowledge import KnowledgeBase

    query = "retry budget backoff"
    _visit(browser, dashboard, "/knowledge?q=" + quote(query), tmp_path / "shots", "knowledge")
    with contextlib.closing(_db(dashboard["data_root"])) as conn:
        conn.row_factory = sqlite3.Row
        kb = KnowledgeBase(conn)
        sources = {s.label: s for s in kb.sources()}
        expected = kb.search([query], mark_used=False)[0].hits
    figures = browser.figures()
    assert int(figures["source-count"]) == len(sources)
    assert int(figures["kb-bytes"]) == sum(s.byte_count for s in sources.values())
    shown_sizes = browser.values("source", 0)
    assert shown_sizes == {label: str(s.byte_count) for label, s in sources.items()}
    hits = browser.script(
        "return [...document.querySelectorAll('[data-hit]')].map(e => e.dataset.hit)"
    )
    assert hits == [hit.source for hit in expected] and hits[0] == "retry-notes"


def test_the_hooks_page_counts_every_tallied_call(browser, dashboard, tmp_path):
    _visit(browser, dashboard, "/hooks", tmp_path / "shots", "hooks")
    tally = _tally(dashboard["data_root"])
    assert int(browser.figures()["hook-calls"]) == len(tally)
    latency = browser.values("latency", 0)
    assert latency["all/all"] == str(len(tally))
    assert latency["claude-code/pre_tool_use"] == str(
        sum(1 for line in tally if line["ev"] == "pre_tool_use")
    )
    assert "doctor" in browser.text()


def test_nothing_was_fetched_from_outside_the_dashboard(browser, dashboard):
    _visit(browser, dashboard, "/", Path(dashboard["data_root"]) / "shots", "again")
    urls = browser.requested_urls()
    assert urls, "the performance log recorded no request"
    own = urlsplit(dashboard["base"]).netloc
    network = [u for u in urls if urlsplit(u).scheme in ("http", "https", "ws", "wss")]
    assert network and {urlsplit(u).netloc for u in network} == {own}


def _status(request: str | urllib.request.Request) -> int:
    try:
        with DIRECT.open(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


def test_requests_without_the_token_are_refused(dashboard):
    for path in ("/", "/sessions", "/knowledge", "/hooks", "/health", "/style.css"):
        assert _status(dashboard["base"] + path) == 403
    assert _status(dashboard["url"].replace("?t=", "?t=x")) == 403
    assert _status(dashboard["url"]) == 200
    rebinding = urllib.request.Request(dashboard["url"], headers={"Host": "evil.example:80"})
    assert _status(rebinding) == 403


def test_a_purge_needs_the_confirmation_pages_csrf_token(browser, dashboard, tmp_path):
    token = dashboard["url"].split("?t=")[1]
    forged = urllib.request.Request(
        f"{dashboard['base']}/purge?t={token}",
        data=f"project=x&session={SESSION_ID}&confirm=yes".encode(),
        method="POST",
    )
    assert _status(forged) == 403
    with contextlib.closing(_db(dashboard["data_root"])) as conn:
        assert conn.execute("SELECT count(*) FROM session_meta").fetchone()[0] == 1

    _visit(browser, dashboard, "/sessions", tmp_path / "shots", "before-purge")
    browser.click(f'[data-session="{SESSION_ID}"] a')
    browser.wait_for("document.querySelector('a.danger')")
    browser.click("a.danger")
    browser.wait_for("document.querySelector('#purge')")
    browser.screenshot(str(tmp_path / "shots" / "purge.png"))
    browser.click("input[name=confirm]")
    browser.click("#purge")
    browser.wait_for("document.body.innerText.includes('Purged session')")
    browser.open(dashboard["base"] + "/sessions")
    assert int(browser.figures()["session-count"]) == 0
    with contextlib.closing(_db(dashboard["data_root"])) as conn:
        assert conn.execute("SELECT count(*) FROM session_events").fetchone()[0] == 0
