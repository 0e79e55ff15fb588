"""Which program runs each language, found lazily on first use and cached per PATH.

Nothing is probed at start-up: `resolve(language)` looks for the language's
candidates the first time that language is used (a `node --version` call only
when a TypeScript runtime has to fall back to Node's type stripping).
`write_program` turns submitted code into files in the per-call work dir and
the argv lists to build and run them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

SUPPORTED_LANGUAGES: tuple[str, ...] = (
    "javascript",
    "typescript",
    "python",
    "shell",
    "ruby",
    "go",
    "rust",
    "php",
    "perl",
    "r",
    "elixir",
    "csharp",
)

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


class RuntimeMissingError(RuntimeError):
    """No program for the language is installed; the message says what to install."""


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
    return found or Runtime("python", "python", sys.executable, (), ".py")


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
    """`language` normalised, or ValueError naming the supported ones."""
    normalized = language.strip().lower()
    if normalized not in SUPPORTED_LANGUAGES:
        raise ValueError(
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


# ---------------------------------------------------------------- source preparation

_JS_PRELUDE = (
    'import{createRequire as __ctxmodeCreateRequire}from"node:module";'
    # CommonJS `require` keeps working inside the ES module, resolving from the project.
    'globalThis.require??=__ctxmodeCreateRequire(process.cwd()+"/");'
)


def _single_quoted(text: str) -> str:
    """A single-quoted literal for Ruby, Perl and PHP."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _shell_quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _json_quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _file_prelude(language: str, path: str) -> str:
    """Statements defining FILE_CONTENT, FILE_CONTENT_PATH and file_path (one line, no newline)."""
    q = _json_quoted(path)
    if language == "python":
        return (
            f"FILE_CONTENT_PATH = {q}; file_path = FILE_CONTENT_PATH; "
            "FILE_CONTENT = open(FILE_CONTENT_PATH, encoding='utf-8', errors='replace').read()"
        )
    if language in ("javascript", "typescript"):
        return (
            'import{readFileSync as __ctxmodeReadFile}from"node:fs";'
            f"const FILE_CONTENT_PATH={q};const file_path=FILE_CONTENT_PATH;"
            'const FILE_CONTENT=__ctxmodeReadFile(FILE_CONTENT_PATH,"utf8");'
        )
    if language == "shell":
        s = _shell_quoted(path)
        return f'FILE_CONTENT_PATH={s}; file_path={s}; FILE_CONTENT=$(cat -- "$FILE_CONTENT_PATH")'
    if language == "ruby":
        s = _single_quoted(path)
        return f"FILE_CONTENT_PATH = {s}; file_path = {s}; FILE_CONTENT = File.read({s})"
    if language == "perl":
        s = _single_quoted(path)
        return (
            f"my $FILE_CONTENT_PATH = {s}; my $file_path = {s}; my $FILE_CONTENT = do "
            "{ local $/; open(my $fh, '<', $FILE_CONTENT_PATH) or die \"$FILE_CONTENT_PATH: $!\"; <$fh> };"
        )
    if language == "php":
        s = _single_quoted(path)
        return (
            f"$FILE_CONTENT_PATH = {s}; $file_path = {s}; "
            "$FILE_CONTENT = file_get_contents($FILE_CONTENT_PATH);"
        )
    if language == "r":
        return (
            f"FILE_CONTENT_PATH <- {q}; file_path <- FILE_CONTENT_PATH; FILE_CONTENT <- "
            'paste(readLines(FILE_CONTENT_PATH, warn = FALSE), collapse = "\\n")'
        )
    if language == "elixir":  # Elixir variables must start lower-case
        s = q.replace("#{", "\\#{")
        return f"file_content_path = {s}; file_path = file_content_path; file_content = File.read!(file_content_path)"
    if language == "csharp":
        s = '@"' + path.replace('"', '""') + '"'
        return (
            f"var FILE_CONTENT_PATH = {s}; var file_path = FILE_CONTENT_PATH; "
            "var FILE_CONTENT = System.IO.File.ReadAllText(FILE_CONTENT_PATH);"
        )
    if language == "go":
        return (
            f"FILE_CONTENT_PATH := {q}; file_path := FILE_CONTENT_PATH; "
            "__ctxmodeBytes, _ := os.ReadFile(FILE_CONTENT_PATH); FILE_CONTENT := string(__ctxmodeBytes); "
            "_, _, _ = FILE_CONTENT_PATH, file_path, FILE_CONTENT"
        )
    if language == "rust":
        raw = 'r#"' + path + '"#'
        return (
            "#[allow(dead_code, non_upper_case_globals)] static FILE_CONTENT_PATH: &str = "
            f"{raw}; #[allow(dead_code, non_upper_case_globals)] static file_path: &str = {raw}; "
            "#[allow(dead_code)] static FILE_CONTENT: std::sync::LazyLock<String> = "
            "std::sync::LazyLock::new(|| std::fs::read_to_string(FILE_CONTENT_PATH).unwrap_or_default());"
        )
    raise ValueError(language)


def _comment_shebang(code: str, marker: str) -> str:
    return marker + code if code.startswith("#!") else code


# Standard packages a Go snippet may use without importing them (goimports, in small).
_GO_PACKAGES = {
    "strings": "strings", "strconv": "strconv", "math": "math", "sort": "sort",
    "time": "time", "bufio": "bufio", "regexp": "regexp", "filepath": "path/filepath",
    "io": "io", "bytes": "bytes", "errors": "errors", "json": "encoding/json",
    "exec": "os/exec", "http": "net/http", "sync": "sync", "rand": "math/rand",
    "unicode": "unicode", "utf8": "unicode/utf8", "slices": "slices", "maps": "maps",
}  # fmt: skip
_GO_IMPORT = re.compile(r'^\s*import\s*(?:\(([^)]*)\)|("[^"]+"))\s*$', re.MULTILINE)


def _wrap_go(code: str, prelude: str) -> str:
    """A body of statements made into `package main` with the imports it needs."""
    imported: set[str] = set()
    for block, single in _GO_IMPORT.findall(code):
        imported.update(re.findall(r'"([^"]+)"', block or single))
    body = _GO_IMPORT.sub("", code)  # imports written in the body move to the top
    imported.update({"fmt", "os"})
    for name, path in _GO_PACKAGES.items():
        if re.search(rf"\b{name}\.", body) and path not in imported:
            imported.add(path)
    imports = "\n".join(f'"{path}"' for path in sorted(imported))
    return (
        f"package main\nimport (\n{imports}\n)\nvar _ = fmt.Sprint\nvar _ = os.Exit\n"
        f"func main() {{\n{prelude}\n{body}\n}}\n"
    )


def prepare_source(language: str, code: str, *, file_path: str | None = None) -> str:
    """The file text to run: `code` plus what the language needs (never reformatted).

    Preludes sit on the first line where the language allows it, so line numbers in
    errors match the submitted code.
    """
    prelude = _file_prelude(language, file_path) if file_path else ""
    if language in ("javascript", "typescript"):
        return _JS_PRELUDE + prelude + _comment_shebang(code, "//")
    if language == "php":
        body = code[5:] if code.startswith("<?php") else code
        return "<?php " + (prelude + " " if prelude else "") + body
    if language == "go":
        if re.search(r"^\s*package\s+\w+", code, re.MULTILINE):
            return code
        return _wrap_go(code, prelude)
    if language == "rust":
        if not re.search(r"\bfn\s+main\s*\(", code):
            code = f"fn main() {{\n{code}\n}}\n"
        return (prelude + "\n" + code) if prelude else code
    if not prelude:
        return code
    if language == "shell":
        return prelude + "\n" + _comment_shebang(code, "# ")
    return prelude + "\n" + code


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
