"""What routing needs to know about a shell command, read by the one scanner.

Pure functions over a `policy.shell.scan` result: the curl/wget safety judgement, inline
HTTP, build tools, and the structurally-bounded allowlist. No `re` on the hook path.
"""

from __future__ import annotations

from ctxmode.policy.shell import Command, ShellScan, scan

BUILD_TOOLS = frozenset(("gradlew", "gradle", "mvnw", "mvn", "sbt"))
# Where an "output file" is really the terminal, so the response is printed.
STDOUT_TARGETS = frozenset(
    ("-", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2",
     "/proc/self/fd/1", "/proc/self/fd/2", "/dev/console")
)  # fmt: skip
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


def _redirect_files(redirects: tuple[str, ...]) -> list[str]:
    """The files stdout is redirected to (`>out`, `1>>out`, `&>out`); a terminal is none."""
    files = []
    for redirect in redirects:
        if redirect.startswith(STDOUT_REDIRECTS) and not redirect.startswith(">&"):
            target = redirect.lstrip("1&>|")
            if target and target not in STDOUT_TARGETS:
                files.append(target)
    return files


def _url_file(args: list[str], default: str = "") -> list[str]:
    """The local names of the URLs' last path segments (`curl -O`, `wget` without `-O`)."""
    names = []
    for arg in args:
        if "://" in arg:
            path = arg.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0]
            segment = path.rsplit("/", 1)[-1] if "/" in path else ""
            names.append(segment or default)
    return [name for name in names if name]


def _curl_files(args: list[str], redirects: tuple[str, ...]) -> list[str]:
    flags = _flags(args, CURL_ARG_LETTERS, CURL_LONG_ARGS)
    files = [value for name, value in flags if name in ("-o", "--output")]
    if any(name in ("-O", "--remote-name", "--remote-name-all") for name, _ in flags):
        files += _url_file(args)
    return [f for f in files if f not in STDOUT_TARGETS] + _redirect_files(redirects)


def _wget_files(args: list[str], redirects: tuple[str, ...]) -> list[str]:
    flags = _flags([a for a in args if a != "-nv"], WGET_ARG_LETTERS, WGET_LONG_ARGS)
    files = [value for name, value in flags if name in ("-O", "--output-document")]
    return (files or _url_file(args, "index.html")) + _redirect_files(redirects)


def _curl_dangerous(args: list[str], redirects: tuple[str, ...]) -> bool:
    flags = _flags(args, CURL_ARG_LETTERS, CURL_LONG_ARGS)
    names = {name for name, _ in flags}
    outputs = [value for name, value in flags if name in ("-o", "--output")]
    dumps_headers = any(
        name in ("-D", "--dump-header") and value in STDOUT_TARGETS for name, value in flags
    )
    to_file = (
        bool(outputs)
        or bool(_redirect_files(redirects))
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


# Programs that print a file named in their arguments (or fed on stdin with `<`).
# (Filters such as grep or a script reading the file print what they select: not these.)
PRINTERS = frozenset(
    ("cat", "head", "tail", "less", "more", "bat", "batcat", "jq", "yq", "nl", "tac", "xxd",
     "od", "hexdump", "strings", "column", "fold", "fmt", "pr", "tee", "iconv", "base64",
     "zcat", "xmllint", "html2text", "pandoc", "w3m", "lynx", "paste")
)  # fmt: skip
# Clients that print what they fetch: httpie and friends, text browsers, raw sockets.
HTTP_CLIENTS = frozenset(("http", "https", "xh", "xhs", "curlie", "httpie"))
TEXT_BROWSERS = frozenset(("lynx", "w3m", "links", "elinks", "browsh"))
SOCKET_CLIENTS = frozenset(("nc", "ncat", "netcat", "telnet", "socat"))


def _client_dangerous(name: str, args: list[str]) -> bool | None:
    """Whether another client prints a response (None: `name` is no such client)."""
    if name in HTTP_CLIENTS:
        downloads = bool({"-d", "--download"} & set(args))
        return not (downloads and bool({"-q", "--quiet", "-qq"} & set(args)))
    if name in TEXT_BROWSERS:
        return bool(args)
    if name == "aria2c":
        return not any(a in ("-q", "--quiet", "--quiet=true") for a in args)
    if name in SOCKET_CLIENTS:
        letters = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
        return bool(args) and "z" not in letters and "l" not in letters
    if name == "openssl":
        return args[:1] == ["s_client"]
    return None


def _opens_a_socket(found: ShellScan) -> bool:
    """bash's `/dev/tcp/HOST/PORT` (or udp) in a redirection or a word."""
    return any(
        "/dev/tcp/" in text or "/dev/udp/" in text
        for command in found.commands
        for text in (*command.redirects, *command.argv)
    )


def _prints_a_file(found: ShellScan, files: set[str]) -> bool:
    """Whether some command prints one of `files` to the terminal (not to another file)."""
    names = files | {f.rsplit("/", 1)[-1] for f in files}
    for command in found.commands:
        if command_name(command.program) not in PRINTERS or _redirect_files(command.redirects):
            continue
        inputs = [r[1:] for r in command.redirects if r.startswith("<") and r[1:2] not in "<&"]
        if any(arg in names for arg in (*command.argv[1:], *inputs)):
            return True
    return False


def curl_wget_verdict(found: ShellScan) -> str | None:
    """None when no HTTP client runs; "dangerous" if a call would print a response (to the
    terminal, to a file another command of the line prints, through xargs, from httpie,
    aria2c, a text browser or a raw socket); else "safe" (a quiet download to a file)."""
    judged = False
    downloaded: set[str] = set()
    for command in found.commands:
        name = command_name(command.program)
        args = list(command.argv[1:])
        if name in ("curl", "wget") and not args and "xargs" in command.words:
            return "dangerous"  # the URLs come from stdin
        other = _client_dangerous(name, args)
        if other:
            return "dangerous"
        judged = judged or other is not None
        if name not in ("curl", "wget") or not args:
            continue
        judged = True
        if name == "curl" and _curl_dangerous(args, command.redirects):
            return "dangerous"
        if name == "wget" and _wget_dangerous(args):
            return "dangerous"
        files = _curl_files if name == "curl" else _wget_files
        downloaded.update(files(args, command.redirects))
    if _opens_a_socket(found):
        return "dangerous"
    if downloaded and _prints_a_file(found, downloaded):
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


# Interpreters, and what in their inline code (or `-M`/`-r` modules) makes an HTTP request.
INTERPRETER_HTTP = {
    "python": ("urllib", "urlopen", "requests", "http.client", "httpx", "aiohttp", "pycurl",
               "httpconnection", "httpsconnection"),
    "node": ("fetch(", "require('http", 'require("http', "from 'http", 'from "http', "axios",
             "undici", "http.get", "https.get", "http.request", "https.request"),
    "perl": ("lwp", "http::tiny", "getprint", "mojo::useragent", "io::socket::inet",
             "http::request"),
    "ruby": ("net::http", "net/http", "open-uri", "uri.open", "httparty", "faraday"),
    "php": ("file_get_contents('http", 'file_get_contents("http', "curl_exec", "fopen('http",
            'fopen("http'),
}  # fmt: skip
INTERPRETERS = {
    "python": "python", "python3": "python", "python2": "python", "pypy3": "python",
    "node": "node", "nodejs": "node", "bun": "node", "deno": "node",
    "perl": "perl", "ruby": "ruby", "php": "php",
}  # fmt: skip


def interpreter_http(found: ShellScan) -> bool:
    """An interpreter given code on its command line that makes an HTTP request
    (`python3 -c "import urllib.request..."`, `node -e "fetch(..)"`, `perl -MLWP::Simple`)."""
    for command in found.commands:
        name = command_name(command.program)
        kind = INTERPRETERS.get(name) or INTERPRETERS.get(name.rstrip("0123456789."))
        args = command.argv[1:]
        if kind is None or not args or not args[0].startswith("-"):
            continue  # `python script.py`: a file we do not read
        code = " ".join(args).lower()
        if any(marker in code for marker in INTERPRETER_HTTP[kind]):
            return True
    return False


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
    """True for commands whose output is short by construction: one
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
