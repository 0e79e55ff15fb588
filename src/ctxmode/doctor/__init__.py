"""Diagnostics: is this installation able to do its job? `[OK]/[WARN]/[FAIL]` lines.

The checks that read files and settings live here; running each set-up host's hooks
and server end to end (`--e2e`) is `doctor.e2e`; `commands/doctor.py` is the CLI.

Plain lines, no markdown task lists or headings: some hosts render those badly.
"""

from __future__ import annotations

import importlib.metadata
import os
import sqlite3
import sys
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxmode import __version__, paths, settings
from ctxmode.storage import project, schema

if TYPE_CHECKING:
    from collections.abc import Callable

    from ctxmode.vocab.platform import Platform

OK, WARN, FAIL = "OK", "WARN", "FAIL"


@dataclass(frozen=True)
class Check:
    status: str
    text: str


def _fts5() -> Check:
    try:
        conn = sqlite3.connect(":memory:")
        try:
            conn.execute("CREATE VIRTUAL TABLE p USING fts5(x, tokenize='porter unicode61')")
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return Check(FAIL, f"SQLite {sqlite3.sqlite_version}: FTS5 unavailable ({exc})")
    return Check(OK, f"SQLite {sqlite3.sqlite_version} with FTS5 (porter, trigram)")


def _storage() -> Check:
    try:
        root = paths.ensure_dir(paths.data_root())
        with tempfile.NamedTemporaryFile(dir=root, prefix=".doctor-", delete=True):
            pass
    except (OSError, ValueError) as exc:
        return Check(
            FAIL, f"data root not writable: {exc} (set CTXMODE_DIR to a writable directory)"
        )
    return Check(OK, f"data root writable: {root}")


def _module_cache() -> Check:
    """Can hooks keep their module cache beside the package's compiled files?"""
    from ctxmode import _modcache

    if not settings.flag(settings.HOOK_MODULE_CACHE):
        return Check(OK, "hook module cache: off (CTXMODE_HOOK_MODULE_CACHE)")
    folder = _modcache.cache_dir()
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-", delete=True):
            pass
    except OSError as exc:
        return Check(
            WARN,
            f"hook module cache: cannot write in {folder} ({exc.strerror or exc}): every hook"
            " call loads its modules from their source files, about 2 ms more",
        )
    kept = [name for name in os.listdir(folder) if name.endswith(".modules")]
    return Check(OK, f"hook module cache: {len(kept)} host events kept in {folder}")


def _project_db(project_root: str) -> Check:
    try:
        conn = schema.open_project_db(project_root)
    except Exception as exc:
        return Check(FAIL, f"project database: {explained(exc, 'opening the project database')}")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()
    return Check(
        OK, f"project database {project.project_db_path(project_root)} (schema v{version})"
    )


def _package(name: str) -> Check:
    try:
        return Check(OK, f"{name} {importlib.metadata.version(name)}")
    except importlib.metadata.PackageNotFoundError:
        return Check(FAIL, f"{name} is not installed (reinstall ctxmode)")


def _runtimes() -> list[Check]:
    from ctxmode.sandbox import runtimes
    from ctxmode.vocab.languages import SUPPORTED_LANGUAGES

    checks = []
    found = []
    for language in SUPPORTED_LANGUAGES:
        runtime = runtimes.probe(language)
        if runtime is not None:
            found.append(f"{language} ({runtime})")
    status = OK if any(item.startswith(("python", "shell")) for item in found) else FAIL
    checks.append(
        Check(status, f"runtimes {len(found)}/{len(SUPPORTED_LANGUAGES)}: {', '.join(found)}")
    )
    return checks


def _host_install(platform: Platform, root: str) -> Check | None:
    """Whether `platform` has ctxmode set up in one scope, and for this installation.

    `root` is "" for the user's config, else the project whose config is checked (its own
    files only: user-level files it shares are the user scope's). None if not set up
    there. The installer is idempotent, so "installing again would change nothing" means
    current; a host with our entries that would still change points at a moved or older
    install.
    """
    from ctxmode.launch import fast_hook_prefix, server_command
    from ctxmode.platforms._install import InstallError

    installer = platform.installer
    where = f" (project {root})" if root else ""
    fix = f"ctxmode setup {platform.id}" + (f" --project {root}" if root else "")
    try:
        ours = [c for c in installer.uninstall_changes(root) if not (root and c.shared)]
        if not any(c.changed for c in ours):
            return None
        changes = installer.install_changes(fast_hook_prefix(), server_command(), root)
        stale = any(c.changed for c in changes if not (root and c.shared))
    except InstallError as error:
        return Check(WARN, f"{platform.id}{where}: cannot read its config ({error})")
    if stale:
        return Check(
            WARN,
            f"{platform.id}{where}: ctxmode entries point at another or older installation; "
            f"run `{fix}`",
        )
    return Check(OK, f"{platform.id}{where}: hooks and MCP server set up for this installation")


def _plugin_install(platform: Platform) -> Check | None:
    """The host has ctxmode as its plugin or extension, which starts `ctxmode` from PATH."""
    import shutil

    try:
        where = platform.installer.plugin_installed()
    except Exception as error:  # a host file we cannot read: say so, check the rest
        return Check(WARN, f"{platform.id}: cannot tell whether our plugin is installed ({error})")
    if not where:
        return None
    command = shutil.which("ctxmode")
    if command is None:
        return Check(
            WARN,
            f"{platform.id}: {where} starts `ctxmode`, which is not on PATH: install ctxmode "
            "as a user tool (pipx install / uv tool install) or put its bin directory on PATH",
        )
    return Check(OK, f"{platform.id}: {where}, starting {command}")


def _scopes(platform: Platform, project_root: str) -> list[str]:
    """The config roots doctor checks for a host: the user's ("") and this project's."""
    scopes = platform.installer.scopes
    return [*([""] if "user" in scopes else []), *([project_root] if "project" in scopes else [])]


def host_checks(project_root: str) -> list[Check]:
    from ctxmode.platforms import all_platforms, from_environment

    hosts = sorted(all_platforms(), key=lambda platform: platform.id)
    checks = [
        found
        for host in hosts
        for root in _scopes(host, project_root)
        if (found := _host_install(host, root))
    ]
    checks += [found for host in hosts if (found := _plugin_install(host))]
    if not checks:
        checks.append(Check(WARN, "no host has ctxmode set up: run `ctxmode setup <platform>`"))
    started_by = from_environment(os.environ)
    if started_by is not None:
        checks.insert(0, Check(OK, f"running inside {started_by.name} ({started_by.id})"))
    return checks


def run_checks(project_root: str) -> list[Check]:
    checks = [
        Check(OK, f"ctxmode {__version__} on Python {sys.version.split()[0]} ({sys.executable})"),
        _fts5(),
        _storage(),
        _module_cache(),
        _project_db(project_root),
        _package("mcp"),
        _package("html-to-markdown"),
    ]
    try:
        checks.extend(_runtimes())
    except Exception as exc:
        checks.append(Check(FAIL, f"runtime detection failed: {explained(exc, 'runtimes')}"))
    try:
        checks.extend(host_checks(project_root))
    except Exception as exc:
        checks.append(Check(WARN, f"host setup check failed: {explained(exc, 'host setup')}"))
    return checks


def explained(error: Exception, context: str) -> str:
    """One line for a check that failed: ours as it is, a bug with where its traceback went."""
    from ctxmode import failures

    return str(
        failures.explain(
            error, database="the project database", log="errors.log", context=f"doctor: {context}"
        )
    )


def render(checks: list[Check]) -> str:
    return "\n".join(f"[{check.status}] {check.text}" for check in checks)


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return ", ".join(value) or "(none)"
    return str(value)


def config_lines(project_root: str) -> list[str]:
    """Each setting's effective value and where it came from (`ctxmode doctor --config`)."""
    computed: dict[str, Callable[[], str]] = {  # defaults known only at run time
        settings.DATA_DIR.name: paths.data_root,
        settings.CONFIG_DIR.name: paths.config_dir,
        settings.PROJECT_DIR.name: lambda: project_root,
    }
    lines = []
    for setting in settings.ALL:
        value, origin = settings.explain(setting)
        if value is None and setting.name in computed:
            try:
                value = computed[setting.name]()
            except ValueError as exc:  # e.g. a relative CTXMODE_DIR
                value = f"unusable: {exc}"
        elif value is None:
            value = setting.default_text
        lines.append(f"{setting.name} = {_shown(value)}  [{origin}]")
    return lines


def upgrade_command() -> str:
    """The exact command that upgrades the installation this process runs from."""
    python = sys.executable
    prefix = sys.prefix.replace("\\", "/")
    if "/pipx/venvs/" in prefix:
        return "pipx upgrade ctxmode"
    if "/uv/tools/" in prefix:
        return "uv tool upgrade ctxmode"
    source = _editable_source()
    if source:
        return f"git -C {source} pull && {python} -m pip install -e {source}"
    return f"{python} -m pip install --upgrade ctxmode"


def _editable_source() -> str | None:
    """The checkout an editable install points at, if that is how ctxmode is installed."""
    package_dir = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.dirname(os.path.dirname(package_dir))
    if os.path.isfile(os.path.join(checkout, "pyproject.toml")) and os.path.isdir(
        os.path.join(checkout, ".git")
    ):
        return checkout
    return None
