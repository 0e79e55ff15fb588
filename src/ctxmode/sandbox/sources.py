"""How submitted code becomes a file to run: small preludes and wrappers, never reformatting.

JavaScript/TypeScript stay ES modules (so `import` works) with CommonJS `require`
available; PHP gets its open tag; Go and Rust snippets get a `main`. For
`run_file`, a prelude defines FILE_CONTENT, FILE_CONTENT_PATH and file_path in
each language's own syntax and quoting. Preludes share the first line where the
language allows it, so line numbers in errors match the submitted code.
"""

from __future__ import annotations

import json
import re

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
