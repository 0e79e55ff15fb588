import importlib
import inspect
import pkgutil
from pathlib import Path

import ctxmode
from ctxmode import failures, paths
from ctxmode.errors import EXIT_INTERNAL, CtxmodeError


def _ctxmode_modules():
    for info in pkgutil.walk_packages(ctxmode.__path__, "ctxmode."):
        if not info.name.endswith("__main__"):
            yield importlib.import_module(info.name)


def test_every_error_we_raise_on_purpose_shares_one_base():
    classes = {
        f"{module.__name__}.{name}": cls
        for module in _ctxmode_modules()
        for name, cls in vars(module).items()
        if inspect.isclass(cls)
        and issubclass(cls, BaseException)
        and cls.__module__ == module.__name__
        and not name.startswith("_")  # private control flow, never shown to anyone
    }
    assert len(classes) >= 17
    strays = sorted(name for name, cls in classes.items() if not issubclass(cls, CtxmodeError))
    assert strays == []


def test_a_bug_is_logged_with_its_traceback_and_told_in_one_line(data_root):
    def broken():
        return {}["missing-key"]

    try:
        broken()
    except KeyError as error:
        explained = failures.explain(error, database="x.db", log="errors.log", context="test")
    assert explained.exit_code == EXIT_INTERNAL
    assert "\n" not in str(explained) and "KeyError" in str(explained)
    log = Path(paths.logs_dir(), "errors.log")
    assert str(log) in str(explained)
    assert "in broken" in log.read_text() and "Traceback" in log.read_text()


def test_storage_trouble_outside_sqlite_names_the_file_and_the_cause():
    full = OSError(28, "No space left on device", "/data/out.txt")
    explained = failures.explain(full, database="x.db", log="errors.log", context="test")
    assert str(explained).startswith("/data/out.txt: the disk is full")
    assert explained.exit_code == 4


SRC = Path(ctxmode.__file__).parent


def test_commands_raise_our_errors_so_the_command_line_reports_them_in_one_place():
    # click's own exceptions would print and exit on their own, past `ctxmode.cli.fail`.
    raising_click = [
        str(path.relative_to(SRC))
        for path in (SRC / "commands").glob("*.py")
        if "raise click.ClickException" in path.read_text()
    ]
    assert raising_click == []


def test_a_failed_doctor_check_shows_a_bug_in_one_line_and_logs_its_traceback(data_root):
    from ctxmode import doctor

    try:
        _ = 1 / 0
    except ZeroDivisionError as error:
        line = doctor.explained(error, "runtimes")
    assert line.startswith("internal error (ZeroDivisionError: division by zero); ")
    assert "Traceback" in Path(paths.logs_dir(), "errors.log").read_text()
    ours = doctor.explained(CtxmodeError("node is not installed"), "runtimes")
    assert ours == "node is not installed"


def test_user_input_errors_from_the_command_line_are_one_line_with_exit_1(tmp_path):
    import subprocess
    import sys

    searched = subprocess.run(
        [sys.executable, "-m", "ctxmode", "search", " "],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert (searched.returncode, searched.stderr) == (1, "Error: give a query to search for\n")
    stdin = subprocess.run(
        [sys.executable, "-m", "ctxmode", "index", "-"],
        input=b"\xff\xfe", capture_output=True, cwd=tmp_path,
    )  # fmt: skip
    assert stdin.returncode == 1
    assert stdin.stderr == b"Error: stdin is not valid UTF-8 text; nothing indexed\n"
