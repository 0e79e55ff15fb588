"""`ctxmode hook <platform> <event>`: the process a host spawns on every tool call.

Standard library and our own small modules only. Hosts should launch it through the
fast form written by `ctxmode setup` (`<venv python> -I -S -c "...main(sys.argv[1:])"`),
which skips site-packages scanning and the console-script shim. No `from __future__`
import here: the module cache serves that module to the calls after the first.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import NoReturn

    from ctxmode._modcache import ModuleCache
    from ctxmode.vocab.platform import Platform

USAGE = "usage: ctxmode hook <platform> <event>  (JSON payload on stdin)\n"


def _write(fd: int, text: str) -> None:
    data = text.encode("utf-8", "replace")
    while data:
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            continue
        except OSError:  # the host closed the pipe: nothing left to tell it
            return
        data = data[written:]


def load_platform(platform_id: str, host_event: str) -> "Platform | None":
    """The host module for `platform_id`; None after a note on stderr (unknown id) or in the
    error log (a module that fails to load), both meaning "answer nothing, exit 0"."""
    from ctxmode.hooks.runner import log_error
    from ctxmode.platforms import REGISTRY, load

    try:
        platform = load(platform_id)
    except Exception as error:  # a broken host module must not break the host
        log_error(platform_id, host_event, f"cannot load platform module: {error!r}")
        return None
    if platform is None:
        known = ", ".join(sorted(REGISTRY))
        _write(2, f"ctxmode hook: unknown platform {platform_id!r} (known: {known})\n")
    return platform


def main(argv: "list[str] | None" = None) -> "NoReturn":
    """Answer one hook event and end the process with the host's exit code (0 unless its
    protocol says)."""
    import gc

    # The process lives for one call: its few reference cycles die with it, and the
    # collector would otherwise walk every module object several times while they load.
    gc.disable()
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2 or args[0] in ("-h", "--help"):
        _write(1 if args[:1] in (["-h"], ["--help"]) else 2, USAGE)  # asked for: on stdout
        _exit(0)
    cache = module_cache(args[0], args[1])
    from ctxmode.hooks.runner import run
    from ctxmode.hooks.stdin import read_stdin

    platform = load_platform(args[0], args[1])
    if platform is None:
        _exit(0)
    output = run(platform, args[1], read_stdin)
    if output.stdout:
        _write(1, output.stdout)
    if output.stderr:
        _write(2, output.stderr)
    if cache is not None:
        save_module_cache(cache, platform.id, args[1])
    _exit(output.exit_code)


def module_cache(platform_id: str, host_event: str) -> "ModuleCache | None":
    """This event's module cache, installed: the modules it holds run from it when used.
    None where it is switched off or has no place."""
    from ctxmode._modcache import ModuleCache, cache_file

    path = cache_file(platform_id, host_event)
    if path is None:
        return None
    cache = ModuleCache(path)
    try:
        cache.install()
        from ctxmode import settings  # read through the cache: it is the first module used

        if settings.flag(settings.HOOK_MODULE_CACHE):
            return cache
        cache.uninstall()
    except Exception as error:  # a bug here must not cost the call its answer
        cache.uninstall()
        from ctxmode.hooks.runner import log_error

        log_error(platform_id, host_event, f"module cache not used: {error!r}")
    return None


def save_module_cache(cache: "ModuleCache", platform_id: str, host_event: str) -> None:
    """Keep what this call loaded for the next one; a failure only costs the next call time."""
    try:
        cache.save()
    except Exception as error:
        from ctxmode.hooks.runner import log_error

        log_error(platform_id, host_event, f"cannot save the module cache: {error!r}")


def _exit(code: int) -> "NoReturn":
    """End the process without the interpreter's teardown: freeing every loaded module one
    object at a time costs about as much as loading a third of them. What a normal exit
    would still do is done first: exit handlers run, Python-level streams are flushed.
    Our files are closed by then (each is written inside a `with` block)."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # None, a closed pipe, a closed file
            pass
    os._exit(code)
