"""Every test gets its own data root and config dir: no test touches real user directories."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from ctxmode.storage import db

# Property tests check behaviour, not speed: on a loaded 2-core CI box a single example
# can exceed hypothesis' 200 ms default deadline, which would make them flaky.
settings.register_profile("ctxmode", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ctxmode")


TESTS = Path(__file__).parent
# Markers by place: `-m "not real_host and not browser and not wheel"` runs without the hosts,
# Chromium and the wheel build.
MARKED_PLACES = {
    TESTS / "platforms" / "real": "real_host",
    TESTS / "insight" / "test_dashboard_browser.py": "browser",
    TESTS / "commands" / "test_installed_wheel.py": "wheel",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for place, marker in MARKED_PLACES.items():
            if item.path == place or place in item.path.parents:
                item.add_marker(marker)


@pytest.fixture(autouse=True)
def isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("ctxmode-data")
    monkeypatch.setenv("CTXMODE_DIR", str(root))
    monkeypatch.setenv("CTXMODE_CONFIG_DIR", str(tmp_path_factory.mktemp("ctxmode-config")))
    for name in ("CONTEXT_MODE_DIR", "CTXMODE_PROJECT_DIR", "CONTEXT_MODE_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)
    yield root
    # A recovery notice is queued for the next command line to print: one a test left
    # behind would land in whatever in-process CLI call the next test makes.
    db.take_notices()


@pytest.fixture
def data_root(isolated_dirs: Path) -> Path:
    return isolated_dirs


@pytest.fixture
def ctxmode_cmd() -> list[str]:
    """The command line that runs the installed ctxmode in a subprocess."""
    return [sys.executable, "-m", "ctxmode"]


@pytest.fixture
def subprocess_env() -> dict[str, str]:
    """The current environment (with the isolated dirs) for child processes."""
    return dict(os.environ)
