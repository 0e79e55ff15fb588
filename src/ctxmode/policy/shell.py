"""The one shell grammar: every simple command a shell string would run, wrappers resolved.

`scan("echo ok && sudo -u bob bash -c 'rm x'")` lists three commands: `echo ok`, the
`sudo` line resolved to `bash -c 'rm x'` (program `bash`), and `rm x` found inside the
script (depth 1). The text is read like a POSIX shell reads it (quotes, escapes, ANSI-C
`$'..'`, line continuations, comments, redirections, heredocs), split on `;` `&` `&&` `||`
`|` `|&`, newlines and `( )`, and every simple command is then resolved and searched:

- substitutions `$(..)`, backticks, `<(..)`, `>(..)`, also inside double quotes, `${..}`
  and unquoted heredoc bodies;
- scripts handed to a shell: `bash [-o x] [-O x] -c '..'`, `eval`, `su -c`, `script -qc`,
  `env -S`, `watch`, `trap '..' SIG`, `find -exec .. ;`, `git -c alias.x='!..'`, heredocs,
  here-strings and `echo .. |` fed to a shell, `awk 'BEGIN{system("..")}'`, and shell
  strings in `python -c` / `node -e` / ... code (`ctxmode.policy.inline_code`);
- wrappers whose arguments are a command (`sudo -u x`, `env`, `nice -n 5`, `timeout 5`,
  `stdbuf -o0`, `xargs`, `nohup`, `busybox`, ...), leading `VAR=x` assignments, reserved
  words, a path before the command name;
- names known from earlier in the same text: `X=curl; $X`, `alias c=curl; c`; unquoted
  brace expansion `{curl,URL}`; `${IFS}` splitting words; unset variables expanding to
  nothing (`cur${E}l` is also read as `curl`).

A command whose name is only decided at run time (`$X$Y`, `$(..)` as the name, `"$@"`,
a variable set by `read`, `.. | base64 -d | bash`, `source <(..)`, interpreter code that
builds the program's name) is `computed`: its
`program` is "". Analysis stops at a size and time budget (`over_budget`), so a caller
answers quickly on any input. Standard library only, no `re`; it never raises.
"""

from __future__ import annotations

import time

MAX_CHARS = 1_000_000  # longer text is not read at all
TIME_BUDGET = 0.04  # seconds of analysis before giving up (the hook must answer in 100 ms)


def clock() -> float:
    """Seconds of CPU this thread has spent: the budget bounds the analysis's own work, so
    a verdict never flips from deny to ask because the machine happens to be busy."""
    return time.thread_time()


MAX_DEPTH = 48  # nesting of substitutions and scripts
MAX_WORDS = 256  # words one brace expansion may produce

SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "rbash"}
)
# Leading words that are syntax, not the command: skipped.
_RESERVED = frozenset(
    {"{", "}", "!", "if", "then", "else", "elif", "do", "done", "fi", "while", "until",
     "coproc", "esac"}
)  # fmt: skip
# Lines that define or declare, never run a program of that name.
_DECLARATIONS = frozenset({"case", "for", "select"})
_ASSIGNERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_READERS = frozenset({"read", "mapfile", "readarray", "getopts"})  # set variables at run time
_SOURCES = frozenset({"source", "."})

# Wrappers that run their arguments as a command: options taking a value, and how many
# positional words come before the command (timeout DURATION, chroot DIR, ...).
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "env": (frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), 0),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "nohup": (frozenset(), 0),
    "time": (frozenset({"-f", "--format", "-o", "--output"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "xargs": (
        frozenset(
            {
                "-I",
                "-i",
                "-n",
                "-P",
                "-L",
                "-l",
                "-d",
                "-E",
                "-e",
                "-s",
                "-a",
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-lines",
                "--replace",
                "--eof",
                "--max-chars",
                "--process-slot-var",
            }
        ),
        0,
    ),
    "sudo": (
        frozenset(
            {
                "-u",
                "--user",
                "-g",
                "--group",
                "-C",
                "--close-from",
                "-D",
                "--chdir",
                "-h",
                "--host",
                "-p",
                "--prompt",
                "-r",
                "--role",
                "-t",
                "--type",
                "-U",
                "--other-user",
                "-T",
                "--command-timeout",
                "-R",
                "--chroot",
            }
        ),
        0,
    ),
    "doas": (frozenset({"-u", "-C"}), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "setsid": (frozenset(), 0),
    "ionice": (frozenset({"-c", "--class", "-n", "--classdata", "-p", "-P", "-u"}), 0),
    "chroot": (frozenset({"--userspec", "--groups"}), 1),
    "busybox": (frozenset(), 0),
    "unbuffer": (frozenset(), 0),
    "caffeinate": (frozenset({"-t", "-w"}), 0),
    "taskset": (frozenset(), 1),
    "chrt": (frozenset(), 1),
    "flock": (frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), 1),
    "strace": (frozenset({"-o", "-e", "-p", "-s", "-u"}), 0),
    "ltrace": (frozenset({"-o", "-e", "-p", "-s", "-u"}), 0),
    "nsenter": (frozenset({"-t", "--target"}), 0),
    "unshare": (frozenset(), 0),
    "runuser": (frozenset({"-u", "--user", "-g", "--group"}), 0),
}
# Commands whose `-c` option value is a shell script.
_DASH_C = frozenset({"su", "runuser", "script", "flock"})
# Interpreters whose inline code may run shell strings: option carrying the code, language.
_INLINE_CODE = {
    "python": ("-c", "python"),
    "python3": ("-c", "python"),
    "python2": ("-c", "python"),
    "pypy": ("-c", "python"),
    "pypy3": ("-c", "python"),
    "node": ("-e", "javascript"),
    "nodejs": ("-e", "javascript"),
    "bun": ("-e", "javascript"),
    "deno": ("eval", "javascript"),
    "ruby": ("-e", "ruby"),
    "perl": ("-e", "perl"),
    "php": ("-r", "php"),
}
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
# git settings whose value git hands to a shell (`alias.*` only when it starts with `!`).
_GIT_SHELL_SETTINGS = frozenset(
    {"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath",
     "sequence.editor", "diff.external", "pager.log", "pager.diff", "pager.show"}
)  # fmt: skip

# Private-use characters marking scanner knowledge inside a word while it is built: an
# expansion the scanner could not resolve, and unquoted brace-expansion syntax.
_OPEN, _CLOSE = "\ue000", "\ue001"
_BRACE_OPEN, _BRACE_SEP, _BRACE_CLOSE = "\ue002", "\ue003", "\ue004"
_SENTINELS = _OPEN + _CLOSE + _BRACE_OPEN + _BRACE_SEP + _BRACE_CLOSE
_SPECIAL = frozenset(" \t\n\r\\'\"`$;&|()<>#{},=" + _SENTINELS)


class Command:
    """One simple command as it would run.

    `argv`: its words after quote removal and wrapper resolution (`sudo -u x curl u` ->
    `("curl", "u")`); an expansion the scanner could not resolve stays as written.
    `program`: the base name of argv[0], "" when `computed` (decided at run time).
    `words`: the words as written, wrappers included. `redirects`: `>out`, `2>&1`, ...
    `depth`: 0 at the top level of the scanned text, more inside substitutions and scripts.
    `op`: the operator that ended it (`;`, `&`, `&&`, `||`, `|`, `|&`, newline or "").
    """

    __slots__ = ("argv", "computed", "depth", "op", "program", "redirects", "words")

    def __init__(
        self,
        argv: tuple[str, ...],
        computed: bool,
        words: tuple[str, ...],
        redirects: tuple[str, ...],
        depth: int,
        op: str,
    ) -> None:
        self.argv = argv
        self.computed = computed
        self.program = "" if computed or not argv else basename(argv[0])
        self.words = words
        self.redirects = redirects
        self.depth = depth
        self.op = op

    def __repr__(self) -> str:
        flag = ", computed" if self.computed else ""
        return f"Command({' '.join(self.argv)!r}, depth={self.depth}{flag})"


class ShellScan:
    """What `scan` found: `commands` in order, `forms` (each command and every step of its
    unwrapping as one normalized string, for rule matching), `heredocs` (spans of top-level
    heredoc bodies in the text), and `over_budget` (analysis stopped early: incomplete)."""

    __slots__ = (
        "_deadline",
        "_ticks",
        "aliases",
        "commands",
        "env",
        "forms",
        "heredocs",
        "over_budget",
    )

    def __init__(self, deadline: float) -> None:
        self.commands: list[Command] = []
        self.forms: dict[str, None] = {}
        self.heredocs: list[tuple[int, int]] = []
        self.over_budget = False
        self.env: dict[str, str] = {}  # plain assignments seen so far (`X=sudo`)
        self.aliases: dict[str, str] = {}
        self._deadline = deadline
        self._ticks = 0

    @property
    def computed(self) -> bool:
        """Whether some command's program is decided at run time."""
        return any(command.computed for command in self.commands)

    def programs(self) -> list[str]:
        return [command.program for command in self.commands]

    def add_form(self, words: list[str] | tuple[str, ...]) -> None:
        text = " ".join(" ".join(words).split())
        if text:
            self.forms[text] = None

    def tick(self) -> None:
        """Count one step of work; every so often, check the clock."""
        self._ticks += 1
        if self._ticks & 63 == 0:
            self.spent()

    def spent(self) -> bool:
        if not self.over_budget and clock() > self._deadline:
            self.over_budget = True
        return self.over_budget


# The last scan with the default budget, by identity of its text: the policy and routing
# read the same command string in one hook call, and the budget must be spent only once.
_last: list = [None, None]


def scan(text: str, budget: float = TIME_BUDGET, max_chars: int = MAX_CHARS) -> ShellScan:
    """Every simple command `text` would run (see the module docstring); never raises.
    Read-only result: the same object is returned when the same string is scanned again."""
    default = budget == TIME_BUDGET and max_chars == MAX_CHARS
    if default and _last[0] is text and isinstance(text, str):
        return _last[1]
    found = _scan(text, budget, max_chars)
    if default:
        _last[:] = [text, found]
    return found


def _scan(text: str, budget: float, max_chars: int) -> ShellScan:
    found = ShellScan(clock() + budget)
    if not isinstance(text, str) or len(text) > max_chars:
        found.over_budget = isinstance(text, str)
        return found
    if any(mark in text for mark in _SENTINELS):
        text = "".join("\ufffd" if c in _SENTINELS else c for c in text)
    try:
        _scan_into(text, 0, found)
    except RecursionError:  # pathological nesting: keep what was found
        found.over_budget = True
    return found


def basename(name: str) -> str:
    """`/usr/bin/curl` -> `curl` (also for backslash paths)."""
    if "/" in name or "\\" in name:
        base = name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        return base or name
    return name


def without_heredocs(text: str, found: ShellScan) -> str:
    """`text` with the top-level heredoc bodies `scan` found cut out."""
    if not found.heredocs:
        return text
    pieces, at = [], 0
    for start, end in found.heredocs:
        pieces.append(text[at:start])
        at = max(at, end)
    pieces.append(text[at:])
    return "".join(pieces)


def _scan_into(text: str, depth: int, found: ShellScan) -> None:
    if depth > MAX_DEPTH:
        found.over_budget = True
        return
    if not text or found.spent():
        return
    for simple in _Scanner(text, depth, found).scan():
        if found.spent():
            return
        _emit(simple, depth, found)


class _Simple:
    """One simple command as read: its words, its full text, and what feeds its stdin."""

    __slots__ = ("final", "op", "parts", "piped_from", "quoted", "redirects", "stdin", "words")

    def __init__(self, piped_from: _Simple | None = None) -> None:
        self.words: list[str] = []  # may hold _OPEN.._CLOSE marks
        self.quoted: list[bool] = []
        self.parts: list[str] = []  # words and redirections, in order (the "whole" form)
        self.redirects: list[str] = []
        self.stdin: list[str] = []  # heredoc bodies and here-strings
        self.piped_from = piped_from
        self.final: list[str] = []  # the innermost command words after unwrapping
        self.op = ""


class _Scanner:
    """Single pass over shell text producing simple commands; substitutions recurse."""

    def __init__(self, text: str, depth: int, found: ShellScan) -> None:
        self.text = text
        self.n = len(text)
        self.i = 0
        self.depth = depth
        self.found = found
        self.records: list[_Simple] = []
        self.cur = _Simple()
        self.buf: list[str] | None = None
        self.quoted = False
        self.redirect: str | None = None  # redirection operator awaiting its target word
        self.heredocs: list[tuple[_Simple, str, bool, bool]] = []  # (owner, delim, dash, quoted)

    # -- driver --------------------------------------------------------------------------

    def scan(self) -> list[_Simple]:
        text, n = self.text, self.n
        found = self.found
        while self.i < n and not found.over_budget:
            c = text[self.i]
            if c == "\\" and self.i + 1 < n and text[self.i + 1] == "\n":
                self.i += 2  # line continuation, even inside a word
            elif c in " \t":
                self.end_word()
                self.i += 1
            elif c in "\n\r":
                self.end_record("\n")
                self.i += 1
                if self.heredocs:
                    self.read_heredocs()
            elif c == "#" and self.buf is None:
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c in ";&|()":
                self.operator(c)
            elif c in "<>":
                self.angle(c)
            else:
                self.word_part()
        self.end_record("")
        return self.records

    # -- words ---------------------------------------------------------------------------

    def start_word(self) -> list[str]:
        if self.buf is None:
            self.buf = []
            self.quoted = False
        return self.buf

    def end_word(self) -> None:
        if self.buf is None:
            return
        value = "".join(self.buf)
        self.buf = None
        self.found.tick()
        cur = self.cur
        op, self.redirect = self.redirect, None
        if op is None:
            for word in _brace_expand(value, self.found):
                cur.parts.append(word)
                cur.words.append(word)
                cur.quoted.append(self.quoted)
            return
        value = _literal_braces(value)
        cur.parts[-1] += value  # a redirection target stays attached: `2>&1`, `>out`
        cur.redirects[-1] += value
        target = _plain(value)
        if op in ("<<", "<<-"):
            self.heredocs.append((cur, target, op == "<<-", self.quoted))
        elif op == "<<<":
            cur.stdin.append(target)

    def word_part(self) -> None:
        text, i = self.text, self.i
        c = text[i]
        buf = self.start_word()
        if c == "\\":
            if i + 1 < self.n:
                buf.append(text[i + 1])
            self.quoted = True
            self.i = i + 2
        elif c == "'":
            end = text.find("'", i + 1)
            end = self.n if end < 0 else end
            buf.append(text[i + 1 : end])
            self.quoted = True
            self.i = end + 1
        elif c == '"':
            self.quoted = True
            self.i = self.double_quoted(i + 1, buf, '"')
        elif c == "`":
            self.i = self.backtick(i, buf)
        elif c == "$":
            self.i = self.dollar(i, buf)
        elif c == "=" and text.startswith("(", i + 1):  # array assignment `a=(x y)`
            end = find_close(text, i + 2, "(", ")", self.found)
            self.scan_expansions(text[i + 2 : end])
            buf.append(text[i : end + 1])
            self.i = end + 1
        elif c in "{,}":
            buf.append(_BRACE_OPEN if c == "{" else _BRACE_SEP if c == "," else _BRACE_CLOSE)
            self.i = i + 1
        else:
            j, n = i + 1, min(self.n, i + 4096)
            while j < n and text[j] not in _SPECIAL:
                j += 1
            buf.append(text[i:j])
            self.i = j
            if j == n:
                self.found.tick()

    def double_quoted(self, i: int, buf: list[str], closer: str | None) -> int:
        """Append the value of a double-quoted span; return the index after its end."""
        text, n, found = self.text, self.n, self.found
        while i < n and not found.over_budget:
            c = text[i]
            if c == closer:
                return i + 1
            if c == "\\" and i + 1 < n:
                nxt = text[i + 1]
                if nxt != "\n":
                    buf.append(nxt if nxt in '$`"\\' else "\\" + nxt)
                i += 2
            elif c == "`":
                i = self.backtick(i, buf)
            elif c == "$":
                i = self.dollar(i, buf, in_double=True)
            else:
                j, end = i + 1, min(n, i + 4096)
                while j < end and text[j] not in '"\\`$':
                    j += 1
                buf.append(text[i:j])
                i = j
                found.tick()
        return n

    def backtick(self, i: int, buf: list[str]) -> int:
        text, n = self.text, self.n
        j = i + 1
        body: list[str] = []
        while j < n and text[j] != "`":
            if j & 1023 == 0 and self.found.spent():
                break
            if text[j] == "\\" and j + 1 < n:
                body.append(text[j + 1] if text[j + 1] in "`$\\" else text[j : j + 2])
                j += 2
            else:
                body.append(text[j])
                j += 1
        _scan_into("".join(body), self.depth + 1, self.found)
        buf.append(_OPEN + text[i : j + 1] + _CLOSE)
        return j + 1

    def dollar(self, i: int, buf: list[str], in_double: bool = False) -> int:
        text = self.text
        nxt = text[i + 1 : i + 2]
        if nxt == "(":
            end = find_close(text, i + 2, "(", ")", self.found)
            body = text[i + 2 : end]
            if body.startswith("(") and find_close(body, 1, "(", ")", self.found) == len(body) - 1:
                # $(( arithmetic )), not `$((a); (b))`, two subshells
                self.scan_expansions(body[1:-1])
            else:
                _scan_into(body, self.depth + 1, self.found)
            buf.append(_OPEN + text[i : end + 1] + _CLOSE)
            return end + 1
        if nxt == "{":
            end = find_close(text, i + 2, "{", "}", self.found)
            inner = text[i + 2 : end]
            if inner.startswith("IFS") and not in_double and not inner[3:4].isalnum():
                self.end_word()  # unquoted ${IFS}: a word separator
                return end + 1
            self.scan_expansions(inner)
            buf.append(_OPEN + text[i : end + 1] + _CLOSE)
            return end + 1
        if nxt == "'" and not in_double:
            self.quoted = True
            return _ansi_c(text, i + 2, buf)
        if nxt == '"' and not in_double:
            self.quoted = True
            return self.double_quoted(i + 2, buf, '"')
        end = i + 1
        if nxt and (nxt.isalpha() or nxt == "_"):
            while end < self.n and (text[end].isalnum() or text[end] == "_"):
                end += 1
        elif nxt and (nxt.isdigit() or nxt in "@*#?$!-"):
            end += 1
        if end == i + 1:
            buf.append("$")
            return end
        if text[i + 1 : end] == "IFS" and not in_double:
            self.end_word()
            return end
        buf.append(_OPEN + text[i:end] + _CLOSE)
        return end

    def scan_expansions(self, text: str) -> None:
        """Find substitutions in text that is expanded but not run (heredoc body, `${..}`)."""
        if "$" in text or "`" in text:
            _Scanner(text, self.depth, self.found).double_quoted(0, [], None)

    # -- operators -----------------------------------------------------------------------

    def operator(self, c: str) -> None:
        text, i = self.text, self.i
        two = text[i : i + 2]
        if c == "&" and text.startswith(">", i + 1):  # &> and &>> redirect both streams
            self.end_word()
            op = "&>>" if text.startswith(">>", i + 1) else "&>"
            self.cur.parts.append(op)
            self.cur.redirects.append(op)
            self.redirect = op
            self.i = i + len(op)
            return
        self.end_word()
        if c == "(" and self.function_definition():
            return
        if c == "|" and two != "||":
            op = "|&" if two == "|&" else "|"
            self.i = i + len(op)
            self.end_record(op, pipe=True)
            return
        op = two if two in ("&&", "||", ";;", ";&") else c
        self.i = i + len(op)
        self.end_record(op)

    def function_definition(self) -> bool:
        """At `(` after `name`: `name ()` defines a function (its body is scanned as usual)."""
        cur, j = self.cur, self.i + 1
        while j < self.n and self.text[j] in " \t":
            j += 1
        if len(cur.words) != 1 or cur.redirects or not self.text.startswith(")", j):
            return False
        self.cur = _Simple()
        self.i = j + 1
        return True

    def angle(self, c: str) -> None:
        text, i = self.text, self.i
        if text.startswith("(", i + 1):  # process substitution <(..) / >(..)
            end = find_close(text, i + 2, "(", ")", self.found)
            _scan_into(text[i + 2 : end], self.depth + 1, self.found)
            self.start_word().append(_OPEN + text[i : end + 1] + _CLOSE)
            self.i = end + 1
            return
        fd = ""
        if self.buf is not None and not self.quoted and "".join(self.buf).isdigit():
            fd = "".join(self.buf)  # `2>` : the digits name a file descriptor
            self.buf = None
        self.end_word()
        for op in ("<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">"):
            if text.startswith(op, i):
                break
        self.cur.parts.append(fd + op)
        self.cur.redirects.append(fd + op)
        self.redirect = op
        self.i = i + len(op)

    def end_record(self, op: str, pipe: bool = False) -> None:
        self.end_word()
        self.redirect = None
        cur = self.cur
        if not cur.parts:
            return  # nothing since the last operator: `a |\n b` keeps its pipe
        cur.op = op
        self.records.append(cur)
        self.cur = _Simple(cur if pipe else None)

    def read_heredocs(self) -> None:
        for owner, delim, strip_tabs, quoted in self.heredocs:
            start = self.i
            body, self.i = _heredoc_body(self.text, self.i, delim, strip_tabs)
            if self.depth == 0:
                self.found.heredocs.append((start, self.i))
            owner.stdin.append(body)
            if not quoted:
                self.scan_expansions(body)
        self.heredocs = []


def _plain(word: str) -> str:
    """A word's value without the marks around unresolved expansions (their text stays)."""
    return word.replace(_OPEN, "").replace(_CLOSE, "") if _OPEN in word else word


def _literal_braces(word: str) -> str:
    """Brace marks that formed no expansion turned back into the characters they were."""
    return word.replace(_BRACE_OPEN, "{").replace(_BRACE_SEP, ",").replace(_BRACE_CLOSE, "}")


def _brace_expand(word: str, found: ShellScan) -> list[str]:
    """Unquoted `{a,b}` alternatives expanded like bash; other brace marks become literal."""
    if _BRACE_OPEN not in word:
        return [_literal_braces(word) if _BRACE_CLOSE in word or _BRACE_SEP in word else word]
    results: list[str] = []
    pending = [word]
    while pending:
        current = pending.pop()
        split = _first_brace_group(current)
        if split is None:
            results.append(_literal_braces(current))
        elif len(results) + len(pending) + len(split) > MAX_WORDS:
            found.over_budget = True
            results.append(_literal_braces(current))
        else:
            pending.extend(reversed(split))
    return results


def _first_brace_group(word: str) -> list[str] | None:
    """The words one `{a,b}` group (with at least one top-level comma) expands into."""
    start = word.find(_BRACE_OPEN)
    while start >= 0:
        depth, commas = 0, [start]
        for k in range(start, len(word)):
            c = word[k]
            if c == _BRACE_OPEN:
                depth += 1
            elif c == _BRACE_CLOSE:
                depth -= 1
                if depth == 0:
                    if len(commas) > 1:
                        head, tail = word[:start], word[k + 1 :]
                        ends = [*commas, k]
                        pieces = range(len(ends) - 1)
                        return [head + word[ends[p] + 1 : ends[p + 1]] + tail for p in pieces]
                    break
            elif c == _BRACE_SEP and depth == 1:
                commas.append(k)
        start = word.find(_BRACE_OPEN, start + 1)
    return None


def _heredoc_body(text: str, i: int, delim: str, strip_tabs: bool) -> tuple[str, int]:
    """The heredoc body starting at `i` (a line start) and the index after its end line."""
    n = len(text)
    lines: list[str] = []
    while i < n:
        end = text.find("\n", i)
        end = n if end < 0 else end
        line = text[i:end]
        i = end + 1
        check = line.lstrip("\t") if strip_tabs else line
        if check.rstrip("\r") == delim:
            break
        lines.append(check)
    return "\n".join(lines), min(i, n)


def _heredoc_delimiter(text: str, i: int) -> tuple[str, bool, int]:
    """At `<<` (not `<<<`): (delimiter without quotes, strip tabs?, index after it)."""
    i += 2
    strip_tabs = text.startswith("-", i)
    i += strip_tabs
    while i < len(text) and text[i] in " \t":
        i += 1
    word: list[str] = []
    while i < len(text) and text[i] not in " \t\n;&|()<>":
        if text[i] == "\\" and i + 1 < len(text):
            word.append(text[i + 1])
            i += 2
            continue
        if text[i] not in "'\"":
            word.append(text[i])
        i += 1
    return "".join(word), strip_tabs, i


def find_close(text: str, i: int, opener: str, closer: str, found: ShellScan | None = None) -> int:
    """Index of the `closer` matching an already-consumed `opener` (quote-aware), else len
    (also when `found` ran out of time)."""
    depth, n, steps = 1, len(text), 0
    heredocs: list[tuple[str, bool]] = []
    while i < n:
        steps += 1
        if steps & 1023 == 0 and found is not None and found.spent():
            return n
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and opener == "(":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            i = _skip_double(text, i + 1, found)
            continue
        if c == "`":
            end = text.find("`", i + 1)
            i = n if end < 0 else end + 1
            continue
        if opener == "(" and c == "<" and text.startswith("<<", i) and text[i + 2 : i + 3] != "<":
            delim, strip_tabs, i = _heredoc_delimiter(text, i)
            heredocs.append((delim, strip_tabs))
            continue
        if c == "\n" and heredocs:  # skip bodies: their quotes and parens are not syntax
            for delim, strip_tabs in heredocs:
                i = _heredoc_body(text, i + 1, delim, strip_tabs)[1] - 1
            heredocs = []
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n


def _skip_double(text: str, i: int, found: ShellScan | None) -> int:
    n, steps = len(text), 0
    while i < n:
        steps += 1
        if steps & 1023 == 0 and found is not None and found.spent():
            return n
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and text.startswith("(", i + 1):
            i = find_close(text, i + 2, "(", ")", found) + 1
        else:
            i += 1
    return n


_HEX_DIGITS = "0123456789abcdefABCDEF"
_OCTAL_DIGITS = "01234567"
_ANSI_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
    "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def _ansi_c(text: str, i: int, buf: list[str]) -> int:
    """Decode a `$'...'` span starting after the quote; return the index after its end."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "'":
            return i + 1
        if c != "\\" or i + 1 >= n:
            buf.append(c)
            i += 1
            continue
        e = text[i + 1]
        i += 2
        if e in _ANSI_ESCAPES:
            buf.append(_ANSI_ESCAPES[e])
            continue
        digits, base, limit, allowed = "", 16, 0, _HEX_DIGITS
        if e in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[e]
        elif e in _OCTAL_DIGITS:
            base, limit, allowed, i = 8, 3, _OCTAL_DIGITS, i - 1
        while i < n and len(digits) < limit and text[i] in allowed:
            digits += text[i]
            i += 1
        if digits:
            try:
                buf.append(chr(int(digits, base)))
            except (ValueError, OverflowError):
                pass
        else:
            buf.append("\\" + e)
    return n


# -- resolving ----------------------------------------------------------------------------


def _emit(simple: _Simple, depth: int, found: ShellScan) -> None:
    found.add_form([_plain(part) for part in simple.parts])
    words = _expand_variables(simple.words, simple.quoted, found.env)
    _resolve(words, simple, depth, found, record=True)


def _expand_variables(words: list[str], quoted: list[bool], env: dict[str, str]) -> list[str]:
    """Known variables substituted (`X=curl; $X`); unknown expansions keep their marks."""
    values: list[str] = []
    for word, was_quoted in zip(words, quoted, strict=True):
        if _OPEN not in word:
            values.append(word)
            continue
        whole = _variable_name(word)
        if whole is not None and whole in env and not was_quoted:
            values.extend(env[whole].split())
            continue
        pieces = word.split(_OPEN)
        out = [pieces[0]]
        for piece in pieces[1:]:
            expansion, _, rest = piece.partition(_CLOSE)
            name = _variable_name(_OPEN + expansion + _CLOSE)
            known = env.get(name) if name is not None else None
            out.append(known if known is not None else _OPEN + expansion + _CLOSE)
            out.append(rest)
        values.append("".join(out))
    return values


def _variable_name(word: str) -> str | None:
    """NAME when `word` is exactly one marked `$NAME` / `${NAME}`."""
    if not (word.startswith(_OPEN + "$") and word.endswith(_CLOSE) and word.count(_OPEN) == 1):
        return None
    raw = word[2:-1]
    name = raw[1:-1] if raw.startswith("{") and raw.endswith("}") else raw
    return name if name.isidentifier() else None


def _resolve(words: list[str], simple: _Simple, depth: int, found: ShellScan, record: bool) -> None:
    """Record the command `words` run and every command it wraps or hides; recurse into
    embedded scripts. `record=False` only adds policy forms (a speculative reading)."""
    written: list[str] | None = None
    for _ in range(64):  # each step strips something; the bound only guards odd input
        words = _strip_assignments(words, found)
        if not words:
            return
        plain = [_plain(word) for word in words]
        written = written or plain
        found.add_form(plain)
        name = words[0]
        if _OPEN in basename(name):
            _computed(words, written, simple, depth, found, record)
            return
        base = basename(plain[0])
        if base != plain[0]:
            found.add_form([base, *plain[1:]])
        if base in _RESERVED:
            words = words[1:]
            continue
        if base == "function":  # `function f { body; }`: the body runs only when called
            words = words[2:]
            continue
        if base in _DECLARATIONS:
            _forget(plain[1:2], found)
            return
        if base in _ASSIGNERS:
            if record:
                _record(found, plain, False, written, simple, depth)
            _strip_assignments(words[1:], found)
            return
        if base in found.aliases and record:
            text = found.aliases.pop(base)  # an alias does not expand inside itself
            _scan_into(text + " " + _requote(plain[1:]), depth + 1, found)
            found.aliases[base] = text
        args = plain[1:]
        simple.final = [base, *args]
        inner = _wrapped(base, args)
        if inner is None:
            computed = _runs_unknown_script(base, words[1:], simple)
            if record:
                _record(found, plain, computed, written, simple, depth)
            _learn(base, args, found)
            for script in _scripts(base, args, simple):
                _scan_into(script, depth + 1, found)
            return
        words = words[len(words) - len(inner) :]


def _computed(
    words: list[str],
    written: list[str],
    simple: _Simple,
    depth: int,
    found: ShellScan,
    record: bool,
) -> None:
    """A command name decided at run time: recorded as computed, and read once more with
    its unknown expansions empty (`cur${E}l` runs curl when E is unset) for the forms."""
    plain = [_plain(word) for word in words]
    if record:
        _record(found, plain, True, written, simple, depth)
    emptied = [_drop_expansions(word) for word in words]
    if emptied[0] and emptied[0] != plain[0]:
        _resolve(emptied, simple, depth, found, record=False)


def _record(
    found: ShellScan,
    argv: list[str],
    computed: bool,
    written: list[str],
    simple: _Simple,
    depth: int,
) -> None:
    redirects = tuple(simple.redirects)
    found.commands.append(
        Command(tuple(argv), computed, tuple(written), redirects, depth, simple.op)
    )


def _drop_expansions(word: str) -> str:
    pieces = word.split(_OPEN)
    return pieces[0] + "".join(piece.partition(_CLOSE)[2] for piece in pieces[1:])


def _strip_assignments(words: list[str], found: ShellScan) -> list[str]:
    start = 0
    for word in words:
        name, eq, value = word.partition("=")
        if not eq or not name.isidentifier():
            break
        if _OPEN in value:
            found.env.pop(name, None)  # its value is only known at run time
        else:
            found.env[name] = value
        start += 1
    return words[start:]


def _forget(names: list[str], found: ShellScan) -> None:
    for name in names:
        found.env.pop(name, None)


def _learn(base: str, args: list[str], found: ShellScan) -> None:
    """What a command teaches about later ones: aliases defined, variables read at run time."""
    if base == "alias":
        for arg in args:
            name, eq, value = arg.partition("=")
            if eq and name:
                found.aliases[name] = value
    elif base in _READERS:
        _forget([arg for arg in args if not arg.startswith("-")], found)
    elif base == "unalias":
        for name in args:
            found.aliases.pop(name, None)


def _runs_unknown_script(base: str, args: list[str], simple: _Simple) -> bool:
    """A shell or `source` whose script comes from somewhere we cannot read before it runs:
    a pipe from a program, a process substitution, a computed file name; or interpreter
    code that builds the name of what it runs (`python -c "getattr(os, 'sys'+'tem')(..)"`)."""
    if base in _SOURCES:
        return bool(args) and _OPEN in args[0]
    if base not in SHELLS:
        return _builds_its_command(base, [_plain(arg) for arg in args], simple)
    mode, operands = _shell_operands([_plain(arg) for arg in args])
    if mode == "c":
        return False
    if mode == "" and operands:  # `bash FILE`: unknown only when the name is computed
        return _OPEN in args[len(args) - len(operands)]
    if simple.stdin:
        return False
    source = simple.piped_from
    if source is None:
        return any(r.startswith("<") and not r.startswith("<<") for r in simple.redirects)
    return not _literal_source(source)


def _literal_source(source: _Simple) -> bool:
    """Whether a pipe's source prints text we can read: `echo ..`, `printf ..`, `cat <<EOF`."""
    if source.final[:1] in (["echo"], ["printf"]):
        return True
    return source.final == ["cat"] and bool(source.stdin)


def _shell_operands(args: list[str]) -> tuple[str, list[str]]:
    """A shell's arguments after its options, and where its script comes from: "c" (the
    first operand is the script), "s" (stdin; operands are arguments) or "" (the first
    operand names a script file; none: stdin)."""
    i, mode = 0, ""
    while i < len(args):
        arg = args[i]
        if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if arg == "--":
            i += 1
            break
        if not arg.startswith(("-", "+")) or len(arg) == 1:
            break
        if not arg.startswith("--") and "c" in arg[1:]:
            mode = "c"
        elif not arg.startswith("--") and "s" in arg[1:] and mode != "c":
            mode = "s"
        i += 1
    return mode, args[i:]


def _wrapped(base: str, args: list[str]) -> list[str] | None:
    """The command words a wrapper (env, sudo, nohup, ...) runs, or None if not a wrapper."""
    spec = _WRAPPERS.get(base)
    if spec is None:
        return None
    with_value, positional = spec
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if base == "env" and "=" in arg and arg.partition("=")[0].isidentifier():
            i += 1
            continue
        if not arg.startswith("-") or (arg == "-" and base != "env"):
            break
        if base == "command" and ("v" in arg or "V" in arg):
            return None  # `command -v x` looks x up, it does not run it
        i += 2 if arg in with_value else 1
    i += positional
    rest = args[i:]
    return rest or None


def _requote(words: list[str]) -> str:
    """Words joined back into shell text that splits into exactly these words again."""
    return " ".join("'" + word.replace("'", "'\\''") + "'" for word in words)


def _find_exec(args: list[str]) -> list[str]:
    """Each `-exec cmd ... ;` of a find command, as a (requoted) script."""
    scripts: list[str] = []
    inner: list[str] | None = None
    for arg in args:
        if inner is None:
            if arg in ("-exec", "-execdir", "-ok", "-okdir"):
                inner = []
        elif arg in (";", "+"):
            scripts.append(_requote(inner))
            inner = None
        else:
            inner.append(arg)
    if inner:
        scripts.append(_requote(inner))
    return scripts


def _scripts(base: str, args: list[str], simple: _Simple) -> list[str]:
    """Shell scripts this command runs (bash -c, eval, stdin fed to a shell, ...)."""
    if base in SHELLS:
        return _shell_scripts(args, simple)
    if base == "eval":
        return [" ".join(args)]
    if base == "trap":
        return args[:1] if args and args[0] not in ("-", "-p", "-l", "--") else args[1:2]
    if base == "find":
        return _find_exec(args)
    if base == "git":
        return _git_scripts(args)
    if base in _DASH_C:
        return _dash_c_values(args)
    if base == "env":
        return _option_values(args, ("-S", "--split-string"))
    if base == "watch":
        return [" ".join(_skip_options(args, {"-n", "--interval", "-d", "--differences"}))]
    if base in _AWKS:
        return _awk_scripts(args)
    language, codes = _inline_code(base, args, simple)
    return _shell_strings(language, codes)


def _inline_code(base: str, args: list[str], simple: _Simple) -> tuple[str, list[str]]:
    """(language, code given inline) of an interpreter (`python -c`, `node -e`, ...)."""
    inline = _INLINE_CODE.get(base) or _INLINE_CODE.get(base.rstrip("0123456789."))
    if not inline:
        return "", []
    flag, language = inline
    codes = _option_values(args, (flag, "--eval", "--command"))
    if not codes and args[:1] in ([], ["-"]):  # `python - <<EOF`: code on stdin
        codes = simple.stdin
    return language, codes


def _builds_its_command(base: str, args: list[str], simple: _Simple) -> bool:
    """Inline interpreter code that names the program it runs only at run time."""
    language, codes = _inline_code(base, args, simple)
    if not codes:
        return False
    from ctxmode.policy.inline_code import runtime_built  # uses `re`: only when needed

    return any(runtime_built(language, code) is not None for code in codes)


def _shell_strings(language: str, codes: list[str]) -> list[str]:
    if not codes:
        return []
    from ctxmode.policy.inline_code import extract_shell_strings  # uses `re`: only when needed

    scripts: list[str] = []
    for code in codes:
        scripts.extend(extract_shell_strings(language, code))
    return scripts


def _shell_scripts(args: list[str], simple: _Simple) -> list[str]:
    mode, operands = _shell_operands(args)
    if mode == "c":
        return operands[:1]
    if mode == "" and operands:
        return []  # `bash script.sh`: the script is a file we do not read
    scripts = list(simple.stdin)
    source = simple.piped_from
    if source is not None and source.final[:1] in (["echo"], ["printf"]):
        scripts.append(" ".join(_skip_options(source.final[1:], set())))
    elif source is not None and source.final == ["cat"]:  # `cat <<EOF | sh`
        scripts += source.stdin
    return scripts


def _git_scripts(args: list[str]) -> list[str]:
    """Shell commands git would run from `-c name=value` settings given on its command line."""
    scripts: list[str] = []
    for k, arg in enumerate(args[:-1]):
        if arg != "-c":
            continue
        name, _, value = args[k + 1].partition("=")
        name = name.lower()
        if name.startswith("alias.") and value.startswith("!"):
            scripts.append(value[1:])
        elif name in _GIT_SHELL_SETTINGS or name.startswith("pager."):
            scripts.append(value)
    return scripts


def _awk_scripts(args: list[str]) -> list[str]:
    """Shell commands an awk program runs (`system("..")`, `print | ".."`, `".." | getline`)."""
    program = _skip_options(args, {"-F", "-v", "-f", "--field-separator", "--assign", "--file"})
    if not program or "-f" in args or "--file" in args:
        return []
    code = program[0]
    if "system" not in code and "|" not in code:
        return []
    return _string_literals(code)


def _string_literals(code: str) -> list[str]:
    """Double-quoted string literals of C-like code, escapes decoded."""
    literals: list[str] = []
    start = code.find('"')
    while start >= 0:
        out: list[str] = []
        k = start + 1
        while k < len(code) and code[k] != '"':
            if code[k] == "\\" and k + 1 < len(code):
                k += 1
            out.append(code[k])
            k += 1
        literals.append("".join(out))
        start = code.find('"', k + 1)
    return [text for text in literals if text.strip()]


def _dash_c_values(args: list[str]) -> list[str]:
    """Values of `-c` / `--command`, also inside grouped short options (`script -qc cmd`)."""
    values = _option_values(args, ("-c", "--command"))
    for k, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 2 and "c" in arg:
            after = arg[arg.index("c") + 1 :]
            if after:
                values.append(after)
            elif k + 1 < len(args):
                values.append(args[k + 1])
    return values


def _option_values(args: list[str], flags: tuple[str, ...]) -> list[str]:
    values: list[str] = []
    for k, arg in enumerate(args):
        if arg in flags and k + 1 < len(args):
            values.append(args[k + 1])
        else:
            for flag in flags:
                if flag.startswith("--") and arg.startswith(flag + "="):
                    values.append(arg[len(flag) + 1 :])
    return values


def _skip_options(args: list[str], with_value: set[str]) -> list[str]:
    i = 0
    while i < len(args) and args[i].startswith("-") and len(args[i]) > 1:
        i += 2 if args[i] in with_value else 1
    return args[i:]
