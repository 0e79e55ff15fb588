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
