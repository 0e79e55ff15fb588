"""Which program runs each language, found lazily on first use and cached per PATH.

Nothing is probed at start-up: `resolve(language)` looks for the language's
candidates the first time that language is used (a `node --version` call only
when a TypeScript runtime has to fall back to Node's type stripping).
`write_program` turns submitted code into files in the per-call work dir and
the argv lists to build and run them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from ctxmode.errors import CtxmodeError
from ctxmode.sandbox.sources import prepare_source
from ctxmode.vocab.languages import SUPPORTED_LANGUAGES

INSTALL_HINTS: dict[str, str] = {
    "javascript": "install Node.js (`node`), Bun or Deno",
    "typescript": "install tsx (`npm install -g tsx`), Bun, Deno or Node.js >= 22.6",
    "python": "install Python 3 (`python3`)",
    "shell": "install bash",
    "ruby": "install Ruby (`ruby`, e.g. `apt install ruby`)",
    "go": "install Go (`go`, e.g. `apt install golang-go`)",
    "rust": "install Rust (`rustc`, e.g. via rustup or `apt install rustc`)",
    "php": "install the PHP CLI (`php`, e.g. `apt install php-cli`)",
    "perl": "install Perl (`perl`)",
    "r": "install R (`Rscript`, e.g. `apt install r-base-core`)",
    "elixir": "install Elixir (`elixir`, e.g. `apt install elixir`)",
    "csharp": "install dotnet-script (`dotnet tool install -g dotnet-script`) or the .NET 10+ SDK",
}


class RuntimeMissingError(CtxmodeError, RuntimeError):
    """No program for the language is installed; the message says what to install."""


class UnsupportedLanguage(CtxmodeError, ValueError):
    """A language we do not run; the message lists the ones we do."""


@dataclass(frozen=True)
class Runtime:
    """One installed program able to run a language."""

    language: str
    name: str  # e.g. "node", "tsx", "python3"
    binary: str  # absolute path
    args: tuple[str, ...] = ()  # inserted between the binary and the script
    extension: str = ""  # script file suffix this program expects

    def __str__(self) -> str:
        return f"{self.name} {self.binary}"


@dataclass(frozen=True)
class Program:
    """What one call runs: build steps (in the work dir), then the run step (in cwd)."""

    run: tuple[str, ...]
    build: tuple[tuple[str, ...], ...] = ()
    env_prepend: dict[str, str] = field(default_factory=dict)  # PATH-like vars to extend


# ---------------------------------------------------------------- discovery

_cache: dict[tuple[str, str], Runtime | None] = {}

_EXTENSIONS = {
    "javascript": ".mjs",  # an ES module: `import` works (the reference's wrapper broke it)
    "typescript": ".mts",
    "python": ".py",
    "shell": ".sh",
    "ruby": ".rb",
    "go": ".go",
    "rust": ".rs",
    "php": ".php",
    "perl": ".pl",
    "r": ".R",
    "elixir": ".exs",
    "csharp": ".csx",
}


def _which(name: str) -> str | None:
    return shutil.which(name)


def _version_major(binary: str) -> int:
    """The major version a `--version` call prints (`v22.6.0`, `10.0.100`), 0 if unknown."""
    try:
        out = subprocess.run(
            [binary, "--version"],
            capture_output=True,
            text=True,
            timeout=5,
            stdin=subprocess.DEVNULL,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    match = re.search(r"(\d+)\.(\d+)", out)
    return int(match.group(1)) * 1000 + int(match.group(2)) if match else 0


def _first(language: str, candidates: list[tuple[str, tuple[str, ...]]]) -> Runtime | None:
    for name, args in candidates:
        binary = _which(name)
        if binary:
            return Runtime(language, name, binary, args, _EXTENSIONS[language])
    return None


def _find_javascript() -> Runtime | None:
    return _first("javascript", [("node", ()), ("bun", ("run",)), ("deno", ("run", "-A"))])


def _find_typescript() -> Runtime | None:
    found = _first("typescript", [("tsx", ()), ("bun", ("run",)), ("deno", ("run", "-A"))])
    if found:
        return found
    node = _which("node")
    # Node 22.6 added type stripping behind a flag (default-on from 23.6; the flag stays valid).
    if node and _version_major(node) >= 22006:
        args = ("--experimental-strip-types", "--disable-warning=ExperimentalWarning")
        return Runtime("typescript", "node", node, args, ".mts")
    return None


def _find_python() -> Runtime | None:
    found = _first("python", [("python3", ()), ("python", ())])
    if found is None:
        return Runtime("python", "python", sys.executable, (), ".py")
    real = _through_shim(found.binary)
    return Runtime("python", found.name, real, found.args, found.extension) if real else found


def _through_shim(binary: str) -> str | None:
    """The interpreter a version-manager shim (pyenv, asdf) would exec, asked once.

    A shim is a shell script that costs ~100-200 ms per start; running the real
    interpreter directly keeps the same version without paying that on every call.
    """
    if os.sep + "shims" + os.sep not in binary:
        return None
    try:
        out = subprocess.run(
            [binary, "-c", "import sys; print(sys.executable)"],
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out and os.path.isfile(out) and os.access(out, os.X_OK) else None


def _find_shell() -> Runtime | None:
    candidates: list[tuple[str, tuple[str, ...]]] = [("bash", ())]
    login_shell = os.path.basename(os.environ.get("SHELL", ""))
    if login_shell in {"zsh", "dash", "ksh"}:
        candidates.append((login_shell, ()))
    candidates.append(("sh", ()))
    return _first("shell", candidates)


def _find_csharp() -> Runtime | None:
    found = _first("csharp", [("dotnet-script", ())])
    if found:
        return found
    dotnet = _which("dotnet")
    # .NET 10 runs a single .cs file directly (`dotnet run app.cs`).
    if dotnet and _version_major(dotnet) >= 10000:
        return Runtime("csharp", "dotnet", dotnet, ("run",), ".cs")
    return None


_FINDERS: dict[str, Callable[[], Runtime | None]] = {
    "javascript": _find_javascript,
    "typescript": _find_typescript,
    "python": _find_python,
    "shell": _find_shell,
    "csharp": _find_csharp,
    "ruby": lambda: _first("ruby", [("ruby", ())]),
    "go": lambda: _first("go", [("go", ())]),
    "rust": lambda: _first("rust", [("rustc", ())]),
    "php": lambda: _first("php", [("php", ())]),
    "perl": lambda: _first("perl", [("perl", ())]),
    "r": lambda: _first("r", [("Rscript", ()), ("r", ())]),
    "elixir": lambda: _first("elixir", [("elixir", ())]),
}


def check_language(language: str) -> str:
    """`language` normalised, or UnsupportedLanguage naming the supported ones."""
    normalized = language.strip().lower()
    if normalized not in SUPPORTED_LANGUAGES:
        raise UnsupportedLanguage(
            f"unsupported language {language!r}; use one of: {', '.join(SUPPORTED_LANGUAGES)}"
        )
    return normalized


def probe(language: str) -> Runtime | None:
    """The runtime for `language` on the current PATH, or None; cached per (language, PATH)."""
    language = check_language(language)
    key = (language, os.environ.get("PATH", ""))
    if key not in _cache:
        _cache[key] = _FINDERS[language]()
    return _cache[key]


def resolve(language: str) -> Runtime:
    """The runtime for `language`, or RuntimeMissingError saying what to install."""
    runtime = probe(language)
    if runtime is None:
        raise RuntimeMissingError(
            f"No {language} runtime found on PATH: {INSTALL_HINTS[language]}."
        )
    return runtime


def write_program(
    runtime: Runtime,
    code: str,
    work_dir: str,
    *,
    cwd: str,
    file_path: str | None = None,
) -> Program:
    """Write the script into `work_dir` and return how to build and run it."""
    language = runtime.language
    script = os.path.join(work_dir, "script" + runtime.extension)
    with open(script, "w", encoding="utf-8") as handle:
        handle.write(prepare_source(language, code, file_path=file_path))
    if language == "shell":
        os.chmod(script, 0o700)
    if language == "go":
        binary = os.path.join(work_dir, "program")
        return Program(run=(binary,), build=((runtime.binary, "build", "-o", binary, script),))
    if language == "rust":
        binary = os.path.join(work_dir, "program")
        build = (runtime.binary, "--edition", "2021", "-o", binary, script)
        return Program(run=(binary,), build=(build,))
    if language in ("javascript", "typescript"):
        _link_node_modules(cwd, work_dir)
    env_prepend = {"PYTHONPATH": cwd} if language == "python" else {}
    return Program(run=(runtime.binary, *runtime.args, script), env_prepend=env_prepend)


def _link_node_modules(cwd: str, work_dir: str) -> None:
    """Let ES-module `import` of project packages resolve from a script living elsewhere.

    ESM resolution walks up from the script's own directory, so the nearest
    `node_modules` above `cwd` is linked into the work dir.
    """
    current = os.path.abspath(cwd)
    while True:
        candidate = os.path.join(current, "node_modules")
        if os.path.isdir(candidate):
            try:
                os.symlink(candidate, os.path.join(work_dir, "node_modules"))
            except OSError:
                pass
            return
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent
