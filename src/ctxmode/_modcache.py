"""The hook process's module cache: the compiled code of the modules a host's hook event
loads, kept in one file and run from it on first use.

A host spawns `ctxmode hook` for every tool call, and a fresh interpreter spends more time
finding, checking and reading ~30 modules one by one through the import system than
running them (`bench/hooks.py` times both). So after a call, the compiled code of every
module of ours or of the standard library that it loaded from a source file is written to
one file in the package's own `__pycache__`, named for the host's event and the
interpreter, and headed by the interpreter build and the package's place. The next
process registers each module in the file as pending, without touching its source. A
pending module runs the first time something is read from it, from the cached code if
its source still has the size and modification time it had when cached, else compiled
afresh from the source (and the file is written again after the call).

Only a file written by this interpreter build for this very package is used: anything
else (missing, unreadable, foreign, damaged) means loading from the sources, never a
failed call. No `from __future__` import here: that module is one the cache serves.
"""

import marshal
import os
import sys

try:  # the import system's own module, loaded with the interpreter at no cost
    from _frozen_importlib_external import spec_from_file_location
except ImportError:  # an interpreter without it: the public name for the same function
    from importlib.util import spec_from_file_location

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from types import CodeType, ModuleType

    # (source path, its st_mtime_ns, its st_size, is a package, code start, code end)
    Entry = tuple[str, int, int, bool, int, int]
else:
    ModuleType = type(sys)  # what `types` names, without importing it

FORMAT = 2
PACKAGE = __name__.rpartition(".")[0]
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
CACHED_PACKAGES = frozenset((PACKAGE, *sys.stdlib_module_names))
SAFE_NAME = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")
LENGTH_BYTES = 4  # the file: the index's length, the index, then each module's code
INDEX_READ = 64 * 1024  # one read takes the whole index of a usual file


def cache_dir() -> str:
    """The package's own folder of compiled files, where the caches live."""
    return os.path.join(PACKAGE_DIR, "__pycache__")


def cache_file(platform_id: str, host_event: str) -> "str | None":
    """Where the cache of `ctxmode hook <platform_id> <host_event>` lives; None where this
    interpreter keeps no compiled files, or for a name that cannot be a file name."""
    tag = sys.implementation.cache_tag
    if tag is None or sys.dont_write_bytecode or not hasattr(os, "pread"):  # Windows has none
        return None
    name = f"{platform_id}-{host_event}".lower()
    if not 0 < len(name) <= 100 or not SAFE_NAME.issuperset(name):
        return None
    return os.path.join(cache_dir(), f"hook-{name}.{tag}.modules")


class ModuleCache:
    """One hook event's cached modules: `install` them before the call, `save` after it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.index: dict[str, Entry] = {}
        self.fd = -1  # the file, open for reading each module's code when it runs
        self.code_offset = 0  # where the modules' code starts in it
        self.changed: set[str] = set()  # cached, but their source changed since
        self.present: frozenset[str] = frozenset()  # loaded before the cache was installed

    def header(self) -> "tuple[int, str, str]":
        return FORMAT, sys.version, PACKAGE_DIR

    def install(self) -> None:
        """Register every cached module not loaded yet as pending; nothing runs yet."""
        global _installed
        self.present = frozenset(sys.modules)
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return  # none yet: the sources serve this call
        try:
            head = os.pread(fd, INDEX_READ, 0)
            length = int.from_bytes(head[:LENGTH_BYTES], "little")
            if LENGTH_BYTES + length > len(head):
                head = os.pread(fd, LENGTH_BYTES + length, 0)
            header, index = marshal.loads(head[LENGTH_BYTES : LENGTH_BYTES + length])
        except (OSError, EOFError, ValueError, TypeError):
            header = index = None  # not one we wrote
        if header != self.header() or type(index) is not dict:
            os.close(fd)
            return
        # Only the index is read now: a module's code is read when it runs, so a file
        # holding every module a host's event ever loaded costs a call only what it uses.
        self.index, self.fd, self.code_offset = index, fd, LENGTH_BYTES + length
        _installed = self
        for name in index:
            if name not in sys.modules:
                sys.modules[name] = Pending(name)

    def uninstall(self) -> None:
        """Forget every module it registered, run or not: the next import of each reads
        its source."""
        global _installed
        for name in self.index:
            module = None if name in self.present else sys.modules.pop(name, None)
            parent_name, _, child = name.rpartition(".")
            parent = sys.modules.get(parent_name)
            if module is None or parent is None or type(parent) is Pending:
                continue  # a pending package has no module bound to it yet
            if vars(parent).get(child) is module:
                delattr(parent, child)  # else `from <parent> import <child>` would find it
        _installed = None

    def run(self, module: "ModuleType") -> None:
        """Run a pending module, setting the attributes an import sets."""
        name = ModuleType.__getattribute__(module, "__name__")  # not through `Pending`
        parent_name, _, child = name.rpartition(".")
        if parent_name:  # a package runs before its modules, as an import orders them
            parent = sys.modules.get(parent_name)
            if parent is None:
                __import__(parent_name)
            elif type(parent) is Pending:
                self.run(parent)
            if type(module) is not Pending:
                return  # the package's own code imported it
        module.__class__ = ModuleType  # its own body reads its attributes as any module's
        try:
            origin, _, _, is_package, _, _ = self.index[name]
            folder = [os.path.dirname(origin)] if is_package else None
            spec = spec_from_file_location(name, origin, submodule_search_locations=folder)
            if spec is None:  # cannot happen for a `.py` path: the import system's own check
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            module.__spec__, module.__loader__, module.__file__ = spec, spec.loader, origin
            module.__package__ = name if is_package else parent_name
            if folder is not None:
                module.__path__ = folder
            exec(self.code(name, spec.loader), module.__dict__)
        except BaseException as error:
            # Pending again: the next use runs it again, as a failed import is retried. The
            # import system's look at `__spec__` drops what it raises, so the failure shows
            # at the module's next use, not always at the import statement.
            module.__class__ = Pending
            if isinstance(error, OSError):  # its source is gone
                raise ModuleNotFoundError(f"No module named {name!r}", name=name) from error
            if isinstance(error, AttributeError):  # not read as "no such attribute"
                raise ImportError(f"{name} failed to load: {error}", name=name) from error
            raise
        parent = sys.modules.get(parent_name) if parent_name else None
        if parent is not None:
            setattr(parent, child, module)  # as an import binds a module to its package

    def code(self, name: str, loader: object) -> "CodeType":
        """The cached code if the source is unchanged, else the source's, compiled as an
        import compiles it."""
        origin, mtime_ns, size, _, start, end = self.index[name]
        try:
            stat = os.stat(origin)
            if stat.st_mtime_ns == mtime_ns and stat.st_size == size:
                return marshal.loads(self.cached_code(start, end))
        except (OSError, EOFError, ValueError, TypeError):
            pass
        self.changed.add(name)
        return loader.get_code(name)  # type: ignore[attr-defined]

    def cached_code(self, start: int, end: int) -> bytes:
        """A module's marshalled code, read from the file (short: a damaged file)."""
        data = os.pread(self.fd, end - start, self.code_offset + start)
        if len(data) != end - start:
            raise EOFError("the module cache file ends early")
        return data

    def save(self) -> None:
        """Write the file again when this call loaded a module it lacks or a changed one."""
        fresh: dict[str, tuple[Entry, bytes]] = {}
        for name, module in list(sys.modules.items()):
            if name in self.present or name.partition(".")[0] not in CACHED_PACKAGES:
                continue
            if type(module) is Pending or (name in self.index and name not in self.changed):
                continue
            found = _compiled(name, module)
            if found is not None:
                fresh[name] = found
        if not fresh:
            return
        kept: dict[str, tuple[Entry, bytes]] = {}
        for name, entry in self.index.items():
            if name not in fresh and _unchanged(entry):
                try:
                    kept[name] = entry, self.cached_code(entry[4], entry[5])
                except (OSError, EOFError):
                    pass  # a damaged file: what it held is loaded from the sources again
        self.write({**kept, **fresh})

    def write(self, modules: "dict[str, tuple[Entry, bytes]]") -> None:
        index: dict[str, Entry] = {}
        codes: list[bytes] = []
        offset = 0
        for name, (entry, code) in modules.items():
            index[name] = (*entry[:4], offset, offset + len(code))
            codes.append(code)
            offset += len(code)
        head = marshal.dumps((self.header(), index))
        data = b"".join((len(head).to_bytes(LENGTH_BYTES, "little"), head, *codes))
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as file:
                file.write(data)
            os.replace(temporary, self.path)  # readers see the old file or the new, whole
        except OSError:  # a read-only install: calls load from the sources
            try:
                os.unlink(temporary)
            except OSError:
                pass


_installed: "ModuleCache | None" = None


class Pending(ModuleType):
    """A cached module that has not run: asking it for anything runs it first. The import
    system asks each module it imports for `__spec__`, so an import statement runs it when
    a source import would; `vars` and `dir` ask for `__dict__`."""

    def __getattribute__(self, attribute: str) -> object:
        if _installed is not None:  # else uninstalled: no longer in `sys.modules`
            _installed.run(self)
        return ModuleType.__getattribute__(self, attribute)


def _compiled(name: str, module: "ModuleType") -> "tuple[Entry, bytes] | None":
    """A module loaded from a source file, as the cache keeps it; None for any other."""
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None)
    get_code = getattr(getattr(spec, "loader", None), "get_code", None)
    if not isinstance(origin, str) or not origin.endswith(".py") or get_code is None:
        return None
    try:
        stat = os.stat(origin)  # before the code: a source changed in between is re-read
        code = get_code(name)
    except (OSError, ImportError, SyntaxError, ValueError):
        return None
    if code is None:
        return None
    is_package = spec.submodule_search_locations is not None  # type: ignore[union-attr]
    return (origin, stat.st_mtime_ns, stat.st_size, is_package, 0, 0), marshal.dumps(code)


def _unchanged(entry: "Entry") -> bool:
    origin, mtime_ns, size = entry[:3]
    try:
        stat = os.stat(origin)
    except OSError:
        return False
    return stat.st_mtime_ns == mtime_ns and stat.st_size == size
