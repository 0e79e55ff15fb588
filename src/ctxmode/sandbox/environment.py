"""The environment a sandboxed child gets: the caller's, minus interpreter start-up hooks.

Credentials (tokens, `SSH_AUTH_SOCK`, cloud profiles) and `PATH` pass through on
purpose: the agent runs the user's own tools. What is removed are variables that
make an interpreter, shell, compiler or the dynamic loader run extra code or
change its behaviour before the submitted code starts (the list re-derives the
reference's denylist, grouped by the tool that reads each variable).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

_SHELL = (
    "BASH_ENV",  # sourced by non-interactive bash
    "ENV",  # sourced by sh/dash/ksh
    "ZDOTDIR",  # where zsh looks for its start-up files
    "PROMPT_COMMAND",
    "PS4",  # expanded on every `set -x` trace line
    "SHELLOPTS",
    "BASHOPTS",
    "GLOBIGNORE",
    "CDPATH",  # makes `cd` print and resolve elsewhere
    "IFS",
)
_NODE = ("NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE")
_PYTHON = (
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PYTHONWARNINGS",
    "PYTHONBREAKPOINT",
    "PYTHONINSPECT",
    "PYTHONVERBOSE",
    "PYTHONDEBUG",
    "PYTHONPROFILEIMPORTTIME",
    "PYTHONEXECUTABLE",
)
_RUBY = ("RUBYOPT", "RUBYLIB")
_PERL = ("PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB")
_BEAM = ("ERL_FLAGS", "ERL_AFLAGS", "ERL_ZFLAGS", "ERL_LIBS", "ERL_COMPILER_OPTIONS",
         "ELIXIR_ERL_OPTIONS")  # fmt: skip
_GO = ("GOFLAGS", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "CGO_FFLAGS")
_RUST = (
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_BUILD_RUSTC",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
)
_PHP = ("PHPRC", "PHP_INI_SCAN_DIR")
_R = ("R_PROFILE", "R_PROFILE_USER", "R_ENVIRON", "R_ENVIRON_USER", "R_HOME")
_DOTNET = (
    "DOTNET_STARTUP_HOOKS",
    "DOTNET_ADDITIONAL_DEPS",
    "DOTNET_SHARED_STORE",
    "DOTNET_DiagnosticPorts",
    "DOTNET_EnableDiagnostics",
    "CORECLR_ENABLE_PROFILING",
    "CORECLR_PROFILER",
    "CORECLR_PROFILER_PATH",
    "CORECLR_PROFILER_PATH_32",
    "CORECLR_PROFILER_PATH_64",
)
_LOADER = ("LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "OPENSSL_CONF", "OPENSSL_ENGINES")
_TOOLCHAIN = ("CC", "CXX", "AR")
_GIT = (
    "GIT_TEMPLATE_DIR",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
)

SCRUBBED_NAMES: frozenset[str] = frozenset(
    _SHELL + _NODE + _PYTHON + _RUBY + _PERL + _BEAM + _GO + _RUST + _PHP + _R + _DOTNET
    + _LOADER + _TOOLCHAIN + _GIT
)  # fmt: skip
# Families matched by prefix: exported bash functions, .NET runtime knobs,
# and the numbered GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pairs.
SCRUBBED_PREFIXES: tuple[str, ...] = ("BASH_FUNC_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")
SCRUBBED_PREFIXES_ANY_CASE: tuple[str, ...] = ("complus_",)

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


def is_scrubbed(name: str) -> bool:
    """Whether `name` is an interpreter start-up hook the child must not inherit."""
    return (
        name in SCRUBBED_NAMES
        or name.startswith(SCRUBBED_PREFIXES)
        or name.lower().startswith(SCRUBBED_PREFIXES_ANY_CASE)
    )


def build_env(
    base: Mapping[str, str] | None = None,
    *,
    tmp_dir: str,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The child's environment: `base` (default: ours) scrubbed, then forced values, then `extra`.

    `extra` is the caller's explicit choice and is applied last, unscrubbed.
    """
    source = os.environ if base is None else base
    env = {name: value for name, value in source.items() if not is_scrubbed(name)}
    env.setdefault("PATH", DEFAULT_PATH)
    if "LANG" not in env and "LC_ALL" not in env:
        env["LANG"] = "C.UTF-8"
    env.update(
        {
            "TMPDIR": tmp_dir,  # scratch files land in the per-call dir, removed afterwards
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",  # partial output survives a timeout kill
            "PYTHONUTF8": "1",
            "NO_COLOR": "1",  # escape codes are noise in a context window
        }
    )
    if extra:
        env.update(extra)
    return env
