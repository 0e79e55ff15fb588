"""What routing needs to know about a shell command (routing.md §2), read by the one scanner.

Pure functions over a `policy.shell.scan` result: the curl/wget safety judgement, inline
HTTP, build tools, and the structurally-bounded allowlist. No `re` on the hook path.
"""

from __future__ import annotations

from ctxmode.policy.shell import Command, ShellScan, scan

BUILD_TOOLS = frozenset(("gradlew", "gradle", "mvnw", "mvn", "sbt"))
STDOUT_TARGETS = frozenset(("-", "/dev/stdout"))
CURL_ARG_LETTERS = frozenset("oXHdDuAeFTwbcKmrxyYzECPQtU")
WGET_ARG_LETTERS = frozenset("OoaetTwPUiBlAQRDI")
CURL_LONG_ARGS = frozenset(("--output", "--dump-header", "--trace", "--trace-ascii"))
WGET_LONG_ARGS = frozenset(("--output-document", "--output-file"))
STDOUT_REDIRECTS = (">", "1>", "&>")


def command_name(program: str) -> str:
    """`curl.exe` -> `curl`: lower-cased, `.exe`/`.bat`/`.cmd` dropped."""
    name = program.lower()
    for suffix in (".exe", ".bat", ".cmd"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


# --- curl / wget -----------------------------------------------------------------------


def _flags(
    args: list[str], arg_letters: frozenset[str], long_args: frozenset[str]
) -> list[tuple[str, str]]:
    """(flag, value) pairs: `-sSo f` -> (-s,""), (-S,""), (-o,"f"); `--output=f` -> (--output,"f")."""
    flags: list[tuple[str, str]] = []
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if token.startswith("--"):
            name, equals, value = token.partition("=")
            if not equals and name in long_args and index < len(args):
                value = args[index]
                index += 1
            flags.append((name, value))
        elif token.startswith("-") and len(token) > 1:
            body = token[1:]
            for position, letter in enumerate(body):
                if letter in arg_letters:
                    value = body[position + 1 :]
                    if not value and index < len(args):
                        value = args[index]
                        index += 1
                    flags.append(("-" + letter, value))
                    break
                flags.append(("-" + letter, ""))
    return flags


def _curl_dangerous(args: list[str], redirects: tuple[str, ...]) -> bool:
    flags = _flags(args, CURL_ARG_LETTERS, CURL_LONG_ARGS)
    names = {name for name, _ in flags}
    outputs = [value for name, value in flags if name in ("-o", "--output")]
    dumps_headers = any(
        name in ("-D", "--dump-header") and value in STDOUT_TARGETS for name, value in flags
    )
    to_file = (
        bool(outputs)
        or any(r.startswith(STDOUT_REDIRECTS) for r in redirects)
        or bool(names & {"-O", "--remote-name", "--remote-name-all"})
    )
    to_stdout = any(value in STDOUT_TARGETS for value in outputs)
    verbose = bool(names & {"-v", "--verbose", "--trace", "--trace-ascii"}) or dumps_headers
    silent = bool(names & {"-s", "--silent"})
    return not to_file or to_stdout or verbose or not silent


def _wget_dangerous(args: list[str]) -> bool:
    quiet_words = {"-nv", "--no-verbose", "--quiet"}
    silent = any(token in quiet_words for token in args)
    flags = _flags([a for a in args if a != "-nv"], WGET_ARG_LETTERS, WGET_LONG_ARGS)
    names = {name for name, _ in flags}
    to_stdout = any(
        name in ("-O", "--output-document") and value in STDOUT_TARGETS for name, value in flags
    )
    verbose = bool(names & {"-v", "--verbose", "-d", "--debug"})
    silent = silent or "-q" in names
    return to_stdout or verbose or not silent  # wget writes to a file unless told otherwise


def curl_wget_verdict(found: ShellScan) -> str | None:
    """None when no curl/wget runs; "dangerous" if any call would print a body; else "safe"."""
    judged = False
    for command in found.commands:
        name = command_name(command.program)
        if name not in ("curl", "wget") or len(command.argv) < 2:
            continue
        judged = True
        args = list(command.argv[1:])
        if name == "curl" and _curl_dangerous(args, command.redirects):
            return "dangerous"
        if name == "wget" and _wget_dangerous(args):
            return "dangerous"
    return "safe" if judged else None


# --- inline HTTP and build tools -------------------------------------------------------

HTTP_CALLS = (
    ("requests.", ("get", "post", "put", "delete", "patch", "head", "request")),
    ("httpx.", ("get", "post", "put", "delete", "patch", "head", "request", "stream")),
    ("http.", ("get", "request")),
    ("https.", ("get", "request")),
    ("urllib.request.", ("urlopen",)),
)


def _is_ident(char: str) -> bool:
    return char.isalnum() or char == "_"


def _call_follows(text: str, position: int) -> bool:
    """Whitespace then `(` at `position`."""
    rest = text[position:].lstrip()
    return rest.startswith("(")


def _has_method_call(low: str, prefix: str, methods: tuple[str, ...]) -> bool:
    start = 0
    while (at := low.find(prefix, start)) != -1:
        start = at + 1
        if at and _is_ident(low[at - 1]):
            continue
        after = at + len(prefix)
        for method in methods:
            end = after + len(method)
            whole_word = low.startswith(method, after) and not _is_ident(low[end : end + 1] or " ")
            if whole_word and _call_follows(low, end):
                return True
    return False


def _has_fetch_url(low: str) -> bool:
    start = 0
    while (at := low.find("fetch", start)) != -1:
        start = at + 1
        if at and _is_ident(low[at - 1]):
            continue
        rest = low[at + 5 :].lstrip()
        if rest.startswith("("):
            rest = rest[1:].lstrip()
            if rest[:1] in ("'", '"', "`") and rest[1:].startswith("http"):
                return True
    return False


def has_inline_http(command_with_quotes: str) -> bool:
    """Code in the command that makes an HTTP request and would print the response."""
    low = command_with_quotes.lower()
    if "invoke-webrequest" in low or "invoke-restmethod" in low:
        return True
    return _has_fetch_url(low) or any(
        _has_method_call(low, prefix, methods) for prefix, methods in HTTP_CALLS
    )


def runs_build_tool(found: ShellScan) -> bool:
    """gradle/gradlew/mvn/mvnw/sbt as a program (not `gradle-wrapper`, not an argument)."""
    return any(command_name(command.program) in BUILD_TOOLS for command in found.commands)


# --- the structurally-bounded allowlist ------------------------------------------------

RAW_FORBIDDEN = ("`", "$(", "\n", "\r")
ALWAYS_BOUNDED = frozenset(("pwd", "whoami", "readlink", "basename", "dirname", "realpath", "cd", "mkdir", "date"))  # fmt: skip
NEEDS_ARGS = frozenset(("echo", "printf", "which", "type", "touch"))
QUIET_UNLESS_VERBOSE = frozenset(("mv", "cp", "rm", "ln"))
GIT_READ_ONLY = frozenset(("status", "rev-parse", "branch"))


def _short_groups(args: list[str]) -> list[str]:
    return [arg[1:] for arg in args if arg.startswith("-") and not arg.startswith("--")]


def _bounded_git(args: list[str]) -> bool:
    if not args:
        return False
    sub, rest = args[0], args[1:]
    if sub in GIT_READ_ONLY:
        return True
    if sub == "remote":
        return not rest or rest == ["-v"] or (len(rest) == 2 and rest[0] == "show")
    if sub == "config":
        return rest[:1] == ["--get"]
    if sub == "diff":
        return bool(rest) and rest[0] in ("--stat", "--name-only")
    if sub == "stash":
        return rest == ["list"]
    if sub == "tag":
        return not rest or rest[0] == "-l"
    if sub == "log":
        bound = rest[0][1:] if rest and rest[0].startswith("-") else ""
        return bound.isdigit() and 1 <= len(bound) <= 2
    return False


def is_bounded(command: str, found: ShellScan | None = None) -> bool:
    """True for commands whose output is short by construction (routing.md §2.3): one
    simple command, no substitution, pipe, list, background or redirection."""
    if not command.strip() or any(token in command for token in RAW_FORBIDDEN):
        return False
    found = scan(command) if found is None else found
    if len(found.commands) != 1 or found.over_budget:
        return False
    only = found.commands[0]
    return not only.op and simple_is_bounded(only)


def simple_is_bounded(only: Command) -> bool:
    """One simple command (no redirection, substitution or nesting) whose output is short
    by construction."""
    if only.redirects or only.computed or only.depth or not only.words:
        return False
    name, args = only.words[0], list(only.words[1:])
    if "--version" in args or args[:1] == ["-V"]:
        return True
    if name in ALWAYS_BOUNDED:
        return True
    if name in NEEDS_ARGS:
        return bool(args)
    if name in ("hostname", "uname"):
        return not args or (len(args) == 1 and args[0].startswith("-") and args[0][1:].isalpha())
    if name == "id":
        return len(args) <= 1
    if name == "command":
        return args[:1] == ["-v"] and len(args) > 1
    if name in QUIET_UNLESS_VERBOSE:
        verbose = "--verbose" in args or any("v" in group for group in _short_groups(args))
        return bool(args) and not verbose
    if name == "ls":
        recursive = "--recursive" in args or any("R" in group for group in _short_groups(args))
        return not recursive
    if name == "git":
        return _bounded_git(args)
    return False
