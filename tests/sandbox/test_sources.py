"""Source preparation: what is added around submitted code, per language (pure)."""

from __future__ import annotations

from ctxmode.sandbox.runtimes import SUPPORTED_LANGUAGES
from ctxmode.sandbox.sources import prepare_source


def test_there_are_twelve_languages() -> None:
    assert len(SUPPORTED_LANGUAGES) == 12
    assert {"javascript", "typescript", "python", "shell", "csharp"} <= set(SUPPORTED_LANGUAGES)


def test_javascript_is_left_as_a_module_with_line_numbers_kept() -> None:
    code = "import fs from 'node:fs';\nconsole.log(1);\nthrow new Error('x');"
    source = prepare_source("javascript", code)
    assert source.endswith(code)
    assert source.count("\n") == code.count("\n")  # the prelude shares the first line
    assert "function" not in source.split("import fs")[0]  # not wrapped in a function


def test_a_shebang_becomes_a_comment() -> None:
    source = prepare_source("javascript", "#!/usr/bin/env node\nconsole.log(1)")
    assert "//#!/usr/bin/env node\nconsole.log(1)" in source


def test_php_gets_its_open_tag_once() -> None:
    assert prepare_source("php", "echo 1;") == "<?php echo 1;"
    assert prepare_source("php", "<?php\necho 1;") == "<?php \necho 1;"


def test_go_snippets_are_wrapped_with_the_imports_they_use() -> None:
    source = prepare_source("go", 'import "sort"\nfmt.Println(strings.ToUpper("a"))')
    header = source.split("func main()")[0]
    assert '"sort"' in header and '"strings"' in header and '"fmt"' in header
    assert header.count('"sort"') == 1
    assert 'import "sort"' not in source.split("func main()")[1]


def test_go_programs_with_a_package_are_untouched() -> None:
    code = 'package main\nimport "fmt"\nfunc main() { fmt.Println(1) }'
    assert prepare_source("go", code) == code


def test_rust_statements_get_a_main() -> None:
    assert prepare_source("rust", 'println!("x");').startswith("fn main() {\n")
    code = 'fn main() { println!("x"); }'
    assert prepare_source("rust", code) == code


def test_file_preludes_quote_awkward_paths() -> None:
    path = '/p/it\'s "odd" $HOME #{x}.txt'
    for language in SUPPORTED_LANGUAGES:
        source = prepare_source(language, "", file_path=path)
        assert "FILE_CONTENT" in source or "file_content" in source, language
    assert "'/p/it'\\''s" in prepare_source("shell", "", file_path=path)
    assert "\\#{x}" in prepare_source("elixir", "", file_path=path)
