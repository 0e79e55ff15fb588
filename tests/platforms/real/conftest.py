"""Fixtures for real-host end-to-end tests: the offline network and a fresh world per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support.hosts import HostWorld, offline_netns


@pytest.fixture(scope="session")
def netns() -> Iterator[str | None]:
    with offline_netns() as path:
        yield path


@pytest.fixture
def world(tmp_path: Path, netns: str | None) -> HostWorld:
    return HostWorld(tmp_path, netns)
