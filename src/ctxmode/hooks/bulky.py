"""Which shell commands are likely to print bulky output, and so run through `ctxmode wrap`.

Wrapping is cheap when a guess is wrong (output up to the threshold passes through byte
for byte), so the rules lean towards wrapping: test runners, builds, dumps of large
files, unbounded `git log/diff/show`, searches over a tree, container and system logs,
and the commands listed in CTXMODE_WRAP_COMMANDS. Left alone is what wrapping would
change: a `cd` (hosts carry the shell's directory over to the next call; inside the
wrapper it would be lost: a leading `cd DIR && ...` stays outside, `split_leading_cd`,
and the rest is judged and wrapped), background jobs, programs that need a terminal, output sent
to a file, commands short by construction or cut by a final `| head`, and text the
shell grammar (`ctxmode.policy.shell.scan`) could not read within its budget.
"""

from __future__ import annotations

import os

from ctxmode.hooks import shell
from ctxmode.hooks.wrappable import why_not_wrapped
from ctxmode.policy.shell import Command, ShellScan, basename, scan

BIG_LINES = 200  # `head -n`/`tail -n`/`--tail` counts above this are "big"
LARGE_FILE_BYTES = 5_000  # the wrapper's default threshold: smaller files pass through anyway
WRAPPED_MARKS = ("ctxmode._wrap", "ctxmode-wrap --host")
WRAP_PREFIXES = ("ctxmode wrap", "ctxmode-wrap")

TEST_RUNNERS = frozenset((
    "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "rspec", "phpunit",
    "ctest", "karma", "playwright", "cypress", "nyc", "c8", "behave", "trial", "pest",
))  # fmt: skip
BUILD_TOOLS = frozenset((
    "make", "gmake", "ninja", "gradle", "gradlew", "mvn", "mvnw", "sbt", "tsc", "webpack",
    "rollup", "esbuild", "mypy", "pyright", "pylint", "flake8", "eslint", "rubocop",
))  # fmt: skip
PYTHON_MODULES = frozenset(("pytest", "unittest", "tox", "nox", "mypy", "pylint", "pip"))
SCRIPT_WORDS = ("test", "build", "lint", "check", "ci", "e2e", "coverage", "typecheck")
SUBCOMMANDS = {
    "go": frozenset(("test", "build", "vet", "generate")),
    "cargo": frozenset(("test", "build", "check", "clippy", "bench", "nextest", "doc")),
    "dotnet": frozenset(("test", "build", "publish")),
    "bazel": frozenset(("test", "build", "query")),
    "bazelisk": frozenset(("test", "build", "query")),
    "swift": frozenset(("test", "build")),
    "deno": frozenset(("test", "check", "lint")),
    "mix": frozenset(("test", "compile")),
    "terraform": frozenset(("plan", "apply", "show")),
    "pip": frozenset(("install", "download", "list", "freeze")),
    "cmake": frozenset(("--build",)),
}
# `less`/`more` print like `cat` when, as under a host's shell tool, there is no terminal.
DUMPERS = frozenset((
    "cat", "bat", "batcat", "nl", "tac", "xxd", "hexdump", "od", "strings", "less", "more",
))  # fmt: skip
TREE_WALKERS = frozenset(("rg", "ag", "ack", "tree"))
BOUNDING_STAGES = frozenset(("head", "tail", "wc"))


def _number_after(args: list[str], flags: tuple[str, ...]) -> int | None:
    """The count given to any of `flags` (`-n 50`, `-n50`, `--lines=50`, `-50`), else None."""
    for index, arg in enumerate(args):
        for flag in flags:
            value = None
            if arg == flag and index + 1 < len(args):
                value = args[index + 1]
            elif arg.startswith(flag + "="):
                value = arg[len(flag) + 1 :]
            elif flag.startswith("-") and not flag.startswith("--") and arg.startswith(flag):
                value = arg[len(flag) :]
            if value is not None:
                digits = value.lstrip("+")
                return int(digits) if digits.isdigit() else None
    for arg in args:
        if arg[:1] == "-" and arg[1:].isdigit():
            return int(arg[1:])
    return None


def _short_flags(args: list[str]) -> str:
    return "".join(arg[1:] for arg in args if arg.startswith("-") and not arg.startswith("--"))


def _largest_file(args: list[str], cwd: str) -> int:
    biggest = 0
    for arg in args:
        if arg.startswith("-") or not arg or arg in ("''", '""'):
            continue
        path = arg if os.path.isabs(arg) else os.path.join(cwd, arg)
        try:
            biggest = max(biggest, os.stat(path).st_size)
        except (OSError, ValueError):
            continue
    return biggest


def _git(args: list[str]) -> str | None:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub == "log":
        bounded = _number_after(rest, ("-n", "--max-count")) is not None
        return None if bounded else "git log without a bound"
    if sub in ("diff", "show"):
        summaries = ("--stat", "--shortstat", "--numstat", "--name-only", "--name-status",
                     "--quiet", "--exit-code", "--summary", "-s", "--no-patch")  # fmt: skip
        if any(arg.split("=")[0] in summaries for arg in rest):
            return None
        return f"git {sub} without a bound"
    if sub in ("grep", "blame", "ls-files"):
        return f"git {sub}"
    return None


def _logs(name: str, args: list[str]) -> str | None:
    if "-f" in args or "--follow" in args or "-F" in args:
        return None  # never ends: a host timeout, not a notice, would end it
    count = _number_after(args, ("--tail", "-n", "--lines"))
    if count is not None and count <= BIG_LINES:
        return None
    return f"{name} logs"


def _head_tail(name: str, args: list[str], cwd: str) -> str | None:
    if any(arg in ("-f", "-F", "--follow") for arg in args):
        return None
    count = _number_after(args, ("-n", "--lines")) or 0
    from_start = name == "tail" and any(arg.startswith(("+", "-n+", "--lines=+")) for arg in args)
    if not (from_start or count > BIG_LINES) or _largest_file(args, cwd) <= LARGE_FILE_BYTES:
        return None
    return f"{name} of many lines of a large file"


def _package_script(args: list[str]) -> bool:
    words = [arg for arg in args if not arg.startswith("-")]
    if not words:
        return False
    script = words[1] if words[0] in ("run", "run-script") and len(words) > 1 else words[0]
    return script in ("t", "tst") or any(script.startswith(word) for word in SCRIPT_WORDS)


INTERPRETERS = frozenset((
    "bash", "sh", "zsh", "dash", "ksh", "node", "ruby", "perl", "php", "tsx", "ts-node", "Rscript",
))  # fmt: skip
# Runners whose `run X` (or bare target) is a project's own task: tests, builds, scripts.
RUN_VERBS = {
    "poetry": "run", "uv": "run", "pdm": "run", "hatch": "run", "pipenv": "run",
    "rye": "run", "deno": "task", "composer": "run", "bundle": "exec",
}  # fmt: skip
TARGET_RUNNERS = frozenset(("just", "task", "rake", "invoke", "mage", "earthly", "nx", "turbo"))


def _script_reason(name: str, argv: list[str], cwd: str) -> str | None:
    """A project's own script, run by path or by an interpreter (`./run_tests.sh`, `bin/check`,
    `bash test.sh`, `python manage.py test`)."""
    program = argv[0]
    if "/" in program and not program.startswith(("/usr/", "/bin/", "/sbin/", "/etc/")):
        return f"a project script ({program})"
    interpreted = name in INTERPRETERS or name.startswith("python")
    operands = [arg for arg in argv[1:] if not arg.startswith("-")]
    if not interpreted or not operands or any(a in ("-c", "-e", "-m") for a in argv[1:2]):
        return None
    script = operands[0]
    path = script if os.path.isabs(script) else os.path.join(cwd, script)
    return f"{name} {script}" if os.path.isfile(path) else None


def _runner_reason(name: str, args: list[str]) -> str | None:
    """A task runner's target or script: `npm run X`, `uv run X`, `just X`, `make X`."""
    words = [arg for arg in args if not arg.startswith("-")]
    if name in ("npm", "pnpm", "yarn", "bun") and (words[:1] in (["run"], ["run-script"])):
        return f"{name} {' '.join(words[:2])}"
    if name in RUN_VERBS and words[:1] == [RUN_VERBS[name]] and len(words) > 1:
        return f"{name} {' '.join(words[:2])}"
    if name in TARGET_RUNNERS:
        return f"{name} {words[0]}" if words else name
    return None


def bulky_reason(argv: list[str], cwd: str, user: list[list[str]]) -> str | None:
    """Why the simple command `argv` (wrappers resolved) is likely to print a lot, or None."""
    if not argv:
        return None
    name, args = shell.command_name(basename(argv[0])), argv[1:]
    if any(argv[: len(words)] == words for words in user):
        return "listed in CTXMODE_WRAP_COMMANDS"
    if name in TEST_RUNNERS:
        return "a test runner"
    runs = _script_reason(name, argv, cwd) or _runner_reason(name, args)
    if runs:
        return runs
    if name in BUILD_TOOLS:
        return "a build or lint tool"
    if name.startswith("python") and args[:1] == ["-m"] and args[1:2] and args[1] in PYTHON_MODULES:
        return f"python -m {args[1]}"
    if name in ("npm", "pnpm", "yarn", "bun") and _package_script(args):
        return f"{name} {' '.join(args[:2])}".strip()
    if (
        name in ("npx", "bunx", "pnpx")
        and args
        and shell.command_name(basename(args[0])) in TEST_RUNNERS | BUILD_TOOLS
    ):
        return f"{name} {args[0]}"
    if name in SUBCOMMANDS and args and args[0] in SUBCOMMANDS[name]:
        return f"{name} {args[0]}"
    if name == "git":
        return _git(args)
    if name in DUMPERS:
        return f"{name} of a large file" if _largest_file(args, cwd) > LARGE_FILE_BYTES else None
    if name in ("head", "tail"):
        return _head_tail(name, args, cwd)
    if name == "find":
        depth = _number_after(args, ("-maxdepth",))
        return None if depth is not None and depth <= 1 else "find over a tree"
    if name in ("grep", "egrep", "fgrep"):
        recursive = "r" in _short_flags(args).lower() or "--recursive" in args
        quiet = any(flag in _short_flags(args) for flag in "qcl")
        return "grep -r over a tree" if recursive and not quiet else None
    if name in TREE_WALKERS:
        return f"{name} over a tree"
    if name == "ls":
        return "ls -R" if "R" in _short_flags(args) or "--recursive" in args else None
    if name == "du":
        return "du -a" if "a" in _short_flags(args) or "--all" in args else None
    if name in ("docker", "podman", "kubectl"):
        words = [arg for arg in args if not arg.startswith("-")]
        if words[:1] == ["logs"] or words[:2] in (["compose", "logs"], ["container", "logs"]):
            return _logs(name, args)
        return None
    if name == "docker-compose" and args[:1] == ["logs"]:
        return _logs(name, args)
    if name == "journalctl":
        return _logs(name, args)
    if name == "dmesg":
        return "dmesg"
    return None


NOT_IN_PLAIN_DIR = frozenset(";&|<>()`$\"'\\")  # quotes, expansions, operators


def _blanks(text: str, at: int) -> int:
    """The index after the spaces and tabs at `at`."""
    while at < len(text) and text[at] in " \t":
        at += 1
    return at


def _one_leading_cd(text: str, at: int) -> int:
    """The index after `cd DIR && ` (or pushd, DIR plain) starting at `at`, else 0."""
    at = _blanks(text, at)
    verb = next((v for v in ("cd", "pushd") if text.startswith(v + " ", at)), "")
    if not verb:
        return 0
    start = end = _blanks(text, at + len(verb))
    while end < len(text) and not text[end].isspace() and text[end] not in NOT_IN_PLAIN_DIR:
        end += 1
    after = _blanks(text, end)
    if end == start or not text.startswith("&&", after):
        return 0
    return _blanks(text, after + 2)


def split_leading_cd(command: str) -> tuple[str, str]:
    """`cd sub && pytest` -> ("cd sub && ", "pytest"); ("", command) when it has no such start.

    The `cd` part runs in the host's own shell, so the directory change outlives the call as
    it would have; the rest is what gets judged and wrapped. (No `re`: this is the hook path.)
    """
    end = 0
    while (after := _one_leading_cd(command, end)) > end:
        end = after
    if not end or not command[end:].strip():
        return "", command
    return command[:end], command[end:]


def directory_after(cd_part: str, cwd: str) -> str:
    """The directory the leading `cd` part moves to, from `cwd` (for file-size checks)."""
    for word in cd_part.replace("&&", " ").split():
        if word not in ("cd", "pushd"):
            cwd = os.path.join(cwd, os.path.expanduser(word))
    return cwd


def user_commands(raw: str | None = None) -> list[list[str]]:
    """CTXMODE_WRAP_COMMANDS: comma-separated command prefixes, e.g. `make check, ./ci.sh`."""
    if raw is None:
        from ctxmode import settings

        parts = settings.words(settings.WRAP_COMMANDS) or ()
    else:
        parts = tuple(raw.split(","))
    return [words for part in parts if (words := part.split())]


def _stdout_to_file(tokens: list[str]) -> bool:
    """Does this stage send its stdout to a file (`> f`, `>>f`, `&> f`; not `2>`, `>&2`)?"""
    for index, token in enumerate(tokens):
        fd, arrow, target = token.partition(">")
        if not arrow or fd not in ("", "1", "&"):
            continue
        target = target.lstrip(">")
        if not target and index + 1 < len(tokens):
            target = tokens[index + 1]
        if target and not target.startswith("&") and target not in ("/dev/stdout", "/dev/tty"):
            return True
    return False


def _bounded_by_last_stage(command: Command) -> bool:
    """`... | head -n 50`, `| wc -l`, `| grep -c x`: the pipeline prints little."""
    name, args = command.program, list(command.argv[1:])
    if name in ("grep", "egrep", "fgrep", "rg") and any(f in _short_flags(args) for f in "qcl"):
        return True
    if name not in BOUNDING_STAGES or any(arg.startswith(("+", "-n+")) for arg in args):
        return False
    return (
        name == "wc" or (_number_after(args, ("-n", "--lines", "-c", "--bytes")) or 10) <= BIG_LINES
    )


def _pipelines(commands: list[Command]) -> list[list[Command]]:
    """The top-level commands grouped into pipelines (substitutions' output is captured)."""
    found: list[list[Command]] = []
    current: list[Command] = []
    for command in commands:
        if command.depth:
            continue
        current.append(command)
        if command.op not in ("|", "|&"):
            found.append(current)
            current = []
    return [*found, current] if current else found


def _every_part_bounded(command: str, found: ShellScan) -> bool:
    """A list of commands each short by construction, nothing computed or nested."""
    if any(token in command for token in shell.RAW_FORBIDDEN) or found.over_budget:
        return False
    return bool(found.commands) and all(
        part.op not in ("&", "|", "|&") and shell.simple_is_bounded(part) for part in found.commands
    )


EVERY_COMMAND = "every command runs through the wrapper"
HISTORY = "its output was over the threshold here before"


def history_key(command: str) -> str:
    """How a command is remembered by the project's history: its words, spaces collapsed."""
    return " ".join(command.split())


def wrap_reason(
    command: str,
    cwd: str,
    user: list[list[str]] | None = None,
    found: ShellScan | None = None,
    *,
    every: bool = False,
    history: frozenset[str] | set[str] = frozenset(),
) -> str | None:
    """Why `command` should run through the wrapper, or None to leave it alone.

    `found`: `scan(command)` when the caller has it already. `every`: wrap whatever the
    wrapper runs unchanged (a host whose rewrite the model never sees), not only what is
    predicted to be bulky. `history`: `history_key`s of this project's commands whose
    output was over the threshold before.
    """
    if any(mark in command for mark in WRAPPED_MARKS) or command.lstrip().startswith(WRAP_PREFIXES):
        return None
    scanned = found if found is not None else scan(command)
    if not command.strip() or shell.is_bounded(command, scanned):
        return None  # short by construction
    if every and _every_part_bounded(command, scanned):
        return None  # `echo one && echo two`
    if why_not_wrapped(command, scanned, cwd, check_names=False):
        return None
    user = user_commands() if user is None else user
    reason = None
    unbounded = False
    for pipeline in _pipelines(scanned.commands):
        last = pipeline[-1]
        bounded = len(pipeline) > 1 and _bounded_by_last_stage(last)
        if bounded or _stdout_to_file(list(last.redirects)):
            continue
        unbounded = True
        for part in pipeline:
            reason = reason or bulky_reason(list(part.argv), cwd, user)
    if reason or not unbounded:
        return reason
    if history and history_key(command) in history:
        return HISTORY
    if every and not why_not_wrapped(command, scanned, cwd, check_names=True):
        return EVERY_COMMAND
    return None
