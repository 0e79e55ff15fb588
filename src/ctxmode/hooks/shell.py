"""Reading a shell command the way routing needs it (routing.md §2), without `re`.

Pure functions over strings: heredoc and quote stripping, command words, the curl/wget
safety judgement, inline-HTTP detection, build tools, and the structurally-bounded
allowlist. Hand-written scanning keeps `re` (10 ms to import) off the hook path.
"""

from __future__ import annotations

OPERATOR_CHARS = "|;&\n\r()"
WRAPPERS = frozenset(("sudo", "env", "time", "nohup", "command", "exec", "builtin", "nice"))
BUILD_TOOLS = frozenset(("gradlew", "gradle", "mvnw", "mvn", "sbt"))
STDOUT_TARGETS = frozenset(("-", "/dev/stdout"))
CURL_ARG_LETTERS = frozenset("oXHdDuAeFTwbcKmrxyYzECPQtU")
WGET_ARG_LETTERS = frozenset("OoaetTwPUiBlAQRDI")
CURL_LONG_ARGS = frozenset(("--output", "--dump-header", "--trace", "--trace-ascii"))
WGET_LONG_ARGS = frozenset(("--output-document", "--output-file"))


# --- stripping -------------------------------------------------------------------------


def _heredoc_words(line: str) -> list[str]:
    """Terminator words of the heredocs opened on `line` (`<<WORD`, `<<-'WORD'`, ...)."""
    words = []
    start = 0
    while (at := line.find("<<", start)) != -1:
        start = at + 2
        if line.startswith("<", start) or (at and line[at - 1] == "<"):
            continue  # `<<<` is a here-string, not a heredoc
        rest = line[start:].lstrip("-").lstrip()
        if rest[:1] in ("'", '"'):
            end = rest.find(rest[0], 1)
            word = rest[1:end] if end > 0 else ""
        else:
            word = ""
            for char in rest:
                if char.isspace() or char in ";|&<>()":
                    break
                word += char
            word = word.replace("\\", "")
        if word:
            words.append(word)
    return words


def strip_heredocs(command: str) -> str:
    """The command without heredoc bodies (their terminator lines removed too)."""
    if "<<" not in command:
        return command
    lines = command.split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        kept.append(line)
        index += 1
        for word in _heredoc_words(line):
            while index < len(lines) and lines[index].strip() != word:
                index += 1
            index += 1  # the terminator line
    return "\n".join(kept)


def strip_quotes(text: str) -> str:
    """Quoted spans replaced by `''` / `""`, so quoted text cannot look like a command."""
    out: list[str] = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if char == "\\" and index + 1 < length:
            out.append(text[index : index + 2])
            index += 2
        elif char == "'":
            end = text.find("'", index + 1)
            out.append("''")
            index = length if end == -1 else end + 1
        elif char == '"':
            end = index + 1
            while end < length and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append('""')
            index = end + 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def prepare(command: str) -> str:
    """Heredocs and quotes stripped: the text the command-word rules look at."""
    return strip_quotes(strip_heredocs(command))


# --- command words ---------------------------------------------------------------------


def split_statements(stripped: str) -> list[str]:
    """Split on `&&`, `||`, `;` and newlines (a single `|` keeps a pipeline together)."""
    for separator in ("&&", "||", ";", "\r"):
        stripped = stripped.replace(separator, "\n")
    return [part for part in stripped.split("\n") if part.strip()]


def simple_commands(stripped: str) -> list[list[str]]:
    """Token lists of each simple command, starting at its command word."""
    for char in OPERATOR_CHARS:
        stripped = stripped.replace(char, "\n")
    commands = []
    for piece in stripped.split("\n"):
        tokens = piece.split()
        start = 0
        while start < len(tokens):
            token = tokens[start]
            if "=" in token and not token.startswith(("-", "=")):
                start += 1  # VAR=value prefix
            elif token in WRAPPERS or (start and token.startswith("-") and tokens[0] in WRAPPERS):
                start += 1
            else:
                break
        if start < len(tokens):
            commands.append(tokens[start:])
    return commands


def command_name(token: str) -> str:
    """`/usr/bin/curl` -> `curl`; lower-cased, `.exe`/`.bat` dropped."""
    name = token.replace("\\", "/").rsplit("/", 1)[-1].lower()
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


def _curl_dangerous(args: list[str], statement: str) -> bool:
    flags = _flags(args, CURL_ARG_LETTERS, CURL_LONG_ARGS)
    names = {name for name, _ in flags}
    outputs = [value for name, value in flags if name in ("-o", "--output")]
    dumps_headers = any(
        name in ("-D", "--dump-header") and value in STDOUT_TARGETS for name, value in flags
    )
    to_file = (
        bool(outputs)
        or ">" in statement
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


def curl_wget_verdict(stripped: str) -> str | None:
    """None when no curl/wget runs; "dangerous" if any call would print a body; else "safe"."""
    judged = False
    for statement in split_statements(stripped):
        for tokens in simple_commands(statement):
            name = command_name(tokens[0])
            if name not in ("curl", "wget") or len(tokens) < 2:
                continue
            judged = True
            args = tokens[1:]
            if name == "curl" and _curl_dangerous(args, statement):
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


def runs_build_tool(stripped: str) -> bool:
    """gradle/gradlew/mvn/mvnw/sbt as a command word (not `gradle-wrapper`, not an argument)."""
    return any(command_name(tokens[0]) in BUILD_TOOLS for tokens in simple_commands(stripped))


# --- the structurally-bounded allowlist ------------------------------------------------

RAW_FORBIDDEN = ("`", "$(", "\n", "\r")
UNQUOTED_FORBIDDEN = ("|", ">", "<", "&", ";")
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


def is_bounded(command: str) -> bool:
    """True for commands whose output is short by construction (routing.md §2.3)."""
    command = command.strip()
    if not command or any(token in command for token in RAW_FORBIDDEN):
        return False
    unquoted = strip_quotes(command)
    if any(char in unquoted for char in UNQUOTED_FORBIDDEN):
        return False
    tokens = unquoted.split()
    name, args = tokens[0], tokens[1:]
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
