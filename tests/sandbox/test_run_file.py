"""run_file: the file is confined to the project and handed to the code as FILE_CONTENT."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ctxmode.sandbox import runtimes
from ctxmode.sandbox.files import FileAccessError, PathOutsideProjectError
from ctxmode.sandbox.runner import run_file


@pytest.fixture
def data_file(project: Path) -> Path:
    path = project / "data" / "log.txt"
    path.parent.mkdir()
    path.write_text("alpha\nbeta ünïcode\n")
    return path


def test_python_gets_the_file_content_and_path(project: Path, data_file: Path) -> None:
    code = "print(len(FILE_CONTENT.splitlines()), FILE_CONTENT_PATH == file_path, file_path)"
    with run_file("data/log.txt", "python", code, project_root=str(project)) as result:
        assert result.stdout.text() == f"2 True {data_file}\n", result.stderr.text()


def test_shell_gets_the_file_content(project: Path, data_file: Path) -> None:
    code = 'echo "$FILE_CONTENT" | grep -c a; echo "$file_path"'
    with run_file(str(data_file), "shell", code, project_root=str(project)) as result:
        assert result.stdout.text() == f"2\n{data_file}\n"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_gets_the_file_content(project: Path, data_file: Path) -> None:
    code = "import os from 'node:os';\nconsole.log(FILE_CONTENT.split('\\n')[1], typeof os.EOL)"
    with run_file("data/log.txt", "javascript", code, project_root=str(project)) as result:
        assert result.stdout.text() == "beta ünïcode string\n", result.stderr.text()


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not installed")
def test_perl_gets_the_file_content(project: Path, data_file: Path) -> None:
    code = 'my @l = split /\\n/, $FILE_CONTENT; print scalar(@l), "\\n";'
    with run_file("data/log.txt", "perl", code, project_root=str(project)) as result:
        assert result.stdout.text() == "2\n", result.stderr.text()


@pytest.mark.skipif(shutil.which("rustc") is None, reason="rustc is not installed")
def test_rust_gets_the_file_content(project: Path, data_file: Path) -> None:
    code = 'println!("{} {}", FILE_CONTENT.lines().count(), file_path.ends_with("log.txt"));'
    with run_file("data/log.txt", "rust", code, project_root=str(project), timeout_ms=110_000) as r:
        assert r.stdout.text() == "2 true\n", r.stderr.text()


def test_dot_dot_escape_is_blocked_with_a_suggested_rule(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("s")
    with pytest.raises(PathOutsideProjectError) as info:
        run_file("../secret.txt", "python", "print(1)", project_root=str(project))
    assert info.value.suggested_rule == f"Read({os.path.realpath(outside)})"
    assert "outside the project root" in str(info.value)


def test_symlink_escape_is_blocked(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("s")
    (project / "link.txt").symlink_to(outside)
    with pytest.raises(PathOutsideProjectError):
        run_file("link.txt", "python", "print(1)", project_root=str(project))


def test_allow_outside_hook_lets_a_path_through(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "allowed.txt"
    outside.write_text("allowed content")
    seen: list[str] = []

    def allow(path: str) -> bool:
        seen.append(path)
        return path.endswith("allowed.txt")

    with run_file(str(outside), "python", "print(FILE_CONTENT)", project_root=str(project),
                  allow_outside=allow) as result:  # fmt: skip
        assert result.stdout.text() == "allowed content\n"
    assert seen == [os.path.realpath(outside)]


def test_missing_file_and_directory_are_clear_errors(project: Path) -> None:
    with pytest.raises(FileAccessError, match="does not exist"):
        run_file("nope.txt", "python", "print(1)", project_root=str(project))
    (project / "adir").mkdir()
    with pytest.raises(FileAccessError, match="not a regular file"):
        run_file("adir", "python", "print(1)", project_root=str(project))


COUNT_LINES = {
    "python": "print(len(FILE_CONTENT.splitlines()), file_path == FILE_CONTENT_PATH)",
    "javascript": "console.log(FILE_CONTENT.trim().split('\\n').length, file_path === FILE_CONTENT_PATH)",
    "typescript": "const n: number = FILE_CONTENT.trim().split('\\n').length;\nconsole.log(n, file_path === FILE_CONTENT_PATH)",
    "shell": 'echo "$(printf "%s\\n" "$FILE_CONTENT" | wc -l | tr -d " ") $([ "$file_path" = "$FILE_CONTENT_PATH" ] && echo True)"',
    "ruby": "puts \"#{FILE_CONTENT.lines.count} #{file_path == FILE_CONTENT_PATH ? 'True' : 'False'}\"",
    "perl": 'my @l = split /\\n/, $FILE_CONTENT; print scalar(@l), " ", ($file_path eq $FILE_CONTENT_PATH ? "True" : "False"), "\\n";',
    "php": 'echo count(explode("\\n", trim($FILE_CONTENT))), " ", ($file_path === $FILE_CONTENT_PATH ? "True" : "False"), "\\n";',
    "go": 'fmt.Println(len(strings.Split(strings.TrimSpace(FILE_CONTENT), "\\n")), file_path == FILE_CONTENT_PATH)',
    "rust": 'println!("{} {}", FILE_CONTENT.lines().count(), file_path == FILE_CONTENT_PATH);',
    "r": 'cat(length(strsplit(FILE_CONTENT, "\\n")[[1]]), file_path == FILE_CONTENT_PATH, "\\n")',
    "elixir": 'IO.puts("#{length(String.split(String.trim(file_content), "\\n"))} #{file_path == file_content_path}")',
    "csharp": "Console.WriteLine($\"{FILE_CONTENT.Trim().Split('\\n').Length} {file_path == FILE_CONTENT_PATH}\");",
}


@pytest.mark.parametrize("language", sorted(COUNT_LINES))
def test_every_language_gets_file_content_and_path(
    language: str, project: Path, data_file: Path
) -> None:
    if runtimes.probe(language) is None:
        pytest.skip(f"no {language} runtime installed")
    awkward = data_file.parent / 'it\'s "odd" $HOME #{x} %s.txt'
    awkward.write_text(data_file.read_text())
    code = COUNT_LINES[language]
    with run_file(str(awkward), language, code, project_root=str(project), timeout_ms=110_000) as r:
        assert r.stdout.text().strip().lower() == "2 true", r.stderr.text()
