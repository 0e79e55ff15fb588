"""Headless Debian Chromium driven through chromedriver's W3C WebDriver HTTP API (stdlib only).

`Browser` records every network request the page made (Chrome's performance log), so a
test can assert nothing left 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1280,1000",
]  # fmt: skip
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def require_browser() -> str:
    """chromedriver's path; skip without it on a developer box, fail under CI."""
    driver = shutil.which("chromedriver")
    if driver and os.path.exists(CHROMIUM):
        return driver
    message = "Debian chromium and chromium-driver are not installed (.ci/install-chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Browser:
    def __init__(self, driver: str) -> None:
        self.port = _free_port()
        self.driver = subprocess.Popen(
            [driver, f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.profile = tempfile.mkdtemp(prefix="ctxmode-chromium-")
        self._wait_ready()
        options = {"binary": CHROMIUM, "args": [*FLAGS, f"--user-data-dir={self.profile}"]}
        capabilities = {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            "goog:loggingPrefs": {"performance": "ALL"},
        }
        answer = self._call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        self.session = answer["sessionId"]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self._call("GET", "/status")
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("chromedriver did not start")

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        with DIRECT.open(request, timeout=60) as response:
            return json.loads(response.read())["value"]

    def _session(self, method: str, path: str, body: dict | None = None) -> object:
        return self._call(method, f"/session/{self.session}{path}", body)

    def open(self, url: str) -> None:
        self._session("POST", "/url", {"url": url})

    def script(self, source: str, *args: object) -> object:
        return self._session("POST", "/execute/sync", {"script": source, "args": list(args)})

    def figures(self) -> dict[str, str]:
        """`data-figure` name -> its `data-value`, for the page shown."""
        return self.script(  # type: ignore[return-value]
            "const out = {}; for (const e of document.querySelectorAll('[data-figure]'))"
            " out[e.dataset.figure] = e.dataset.value; return out;"
        )

    def values(self, attribute: str, cell: int = -1) -> dict[str, str]:
        """For rows with `data-<attribute>`: that key -> the `data-value` of its cell `cell`."""
        return self.script(  # type: ignore[return-value]
            "const [attr, cell] = arguments; const out = {};"
            "for (const row of document.querySelectorAll(`[data-${attr}]`)) {"
            " const cells = row.querySelectorAll('[data-value]');"
            " const chosen = cells[cell < 0 ? cells.length + cell : cell];"
            " out[row.dataset[attr]] = chosen ? chosen.dataset.value : null; } return out;",
            attribute,
            cell,
        )

    def text(self) -> str:
        return self.script("return document.body ? document.body.innerText : ''")  # type: ignore[return-value]

    def click(self, css: str) -> None:
        self.script(f"document.querySelector({json.dumps(css)}).click()")

    def wait_for(self, condition: str, timeout: float = 20) -> None:
        """Wait until the JavaScript expression `condition` is true on the page shown."""
        deadline = time.monotonic() + timeout
        while not self.script(f"return Boolean({condition})"):
            if time.monotonic() > deadline:
                shown = self.text()[:600]
                raise AssertionError(f"timed out waiting for {condition}; the page says: {shown}")
            time.sleep(0.1)

    def screenshot(self, path: str) -> None:
        data = self._session("GET", "/screenshot")
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(data))  # type: ignore[arg-type]

    def requested_urls(self) -> list[str]:
        """Every URL the browser asked for since the last call (from the performance log)."""
        entries = self._session("POST", "/se/log", {"type": "performance"})
        urls = []
        for entry in entries:  # type: ignore[union-attr]
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls

    def close(self) -> None:
        try:
            self._session("DELETE", "")
        except OSError:
            pass
        self.driver.terminate()
        self.driver.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)
