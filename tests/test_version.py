"""One version: `ctxmode.__version__`, which the build reads and the shims' package.json repeat."""

from __future__ import annotations

import importlib.metadata
import json
from importlib.resources import files

import pytest

from ctxmode import __version__

PLUGIN_PACKAGES = sorted(
    path.name
    for path in files("ctxmode.plugins").iterdir()
    if path.is_dir() and (path / "package.json").is_file()
)


def test_the_installed_distribution_has_the_package_version():
    assert importlib.metadata.version("ctxmode") == __version__


def test_there_are_plugin_packages_to_check():
    assert {"dsh", "openclaw"} <= set(PLUGIN_PACKAGES)


@pytest.mark.parametrize("plugin", PLUGIN_PACKAGES)
def test_a_plugin_package_json_has_the_package_version(plugin):
    manifest = json.loads((files("ctxmode.plugins") / plugin / "package.json").read_text("utf-8"))
    assert manifest["version"] == __version__
