"""Every simple command a shell string would run, including the ones hidden inside it.

`split_commands("echo ok && bash -c 'sudo rm x'")` returns `["echo ok", "bash -c sudo rm x",
"sudo rm x"]`: the command is tokenized like a POSIX shell would (quotes, escapes, ANSI-C
`$'..'`, line continuations, comments, redirections, heredocs), split on `;` `&` `&&` `||`
`|` `|&`, newlines and `( )`, and then each simple command is unwrapped and searched:

- command and process substitutions `$(..)`, backticks, `<(..)`, `>(..)` (nested, also
  inside double quotes, `${..}` and unquoted heredoc bodies);
- scripts handed to a shell: `bash -c '..'` (and sh, zsh, dash, ...), `eval ..`, `su -c ..`,
  `env -S ..`, `watch ..`, heredocs / here-strings / `echo .. |` fed to a shell's stdin,
  `find -exec .. ;`, and `python -c` / `node -e` / ... code that runs shell strings;
- wrappers whose argument is itself a command: `env`, `command`, `exec`, `nohup`, `time`,
  `nice`, `timeout`, `xargs`, `sudo`, `doas`, `stdbuf`, `setsid`, ... (the wrapped command
  is listed *in addition* to the whole one, so `sudo -u x rm f` yields both);
- leading `VAR=x` assignments, reserved words (`if`, `then`, `do`, `{`, `!`, ...) and a
  path before the command name (`/usr/bin/sudo x` also yields `sudo x`);
- `X=sudo; $X x`: plain assignments earlier in the same string are substituted.

Words are dequoted and whitespace is collapsed, so `"sudo"  x` yields `sudo x`. Anything
the shell would only decide at run time (unknown variables, globs in the command name,
output of substitutions used as a command name) stays as written. Standard library only,
no `re` (the hook path calls this); it never raises on any input.
"""

from __future__ import annotations

_MAX_DEPTH = 48  # nesting of substitutions / scripts; deeper text makes the analysis incomplete

SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "rbash"}
)
_RESERVED = frozenset(
    {"{", "}", "!", "if", "then", "else", "elif", "do", "while", "until", "coproc"}
)
_ASSIGNERS = frozenset({"export", "declare", "typeset", "local", "readonly"})

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
# Interpreters whose inline code may run shell strings: option that carries the code.
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


class _Word:
    """One shell word: its dequoted value, and what the scanner learned about it."""

    __slots__ = ("quoted", "value", "var")

    def __init__(self, value: str, quoted: bool, var: str | None) -> None:
        self.value = value
        self.quoted = quoted
        self.var = var  # NAME when the word is exactly `$NAME` / `${NAME}`


class _Simple:
    """One simple command as scanned: its words, its full text, and what feeds its stdin."""

    __slots__ = ("final", "parts", "piped_from", "stdin_scripts", "words")

    def __init__(self, piped_from: _Simple | None = None) -> None:
        self.words: list[_Word] = []
        self.parts: list[str] = []  # words and redirections, in order (the "whole" form)
        self.stdin_scripts: list[str] = []  # heredoc bodies and here-strings
        self.piped_from = piped_from
        self.final: list[str] = []  # the innermost command words after unwrapping


class _Forms:
    """Ordered, de-duplicated collection of normalized command strings."""

    __slots__ = ("complete", "env", "seen")

    def __init__(self) -> None:
        self.seen: dict[str, None] = {}
        self.complete = True  # False when nesting was too deep to search everything
        self.env: dict[str, str] = {}  # plain assignments seen so far (`X=sudo`)

    def add(self, words: list[str]) -> None:
        text = " ".join(" ".join(words).split())
        if text:
            self.seen[text] = None


def split_commands(command: str) -> list[str]:
    """Every simple command (normalized whitespace, dequoted) that `command` would run."""
    return analyse_command(command)[0]


def analyse_command(command: str) -> tuple[list[str], bool]:
    """`split_commands`, plus whether the search was complete (False: nesting too deep)."""
    forms = _Forms()
    try:
        _split_into(command, 0, forms)
    except RecursionError:  # pathological nesting: keep what was found
        forms.complete = False
    return list(forms.seen), forms.complete


def _split_into(text: str, depth: int, forms: _Forms) -> None:
    if depth > _MAX_DEPTH:
        forms.complete = False
        return
    if not text:
        return
    for simple in _Scanner(text, depth, forms).scan():
        _emit(simple, depth, forms)


class _Scanner:
    """Single pass over shell text producing simple commands; substitutions recurse."""

    def __init__(self, text: str, depth: int, forms: _Forms) -> None:
        self.text = text
        self.n = len(text)
        self.i = 0
        self.depth = depth
        self.forms = forms
        self.records: list[_Simple] = []
        self.cur = _Simple()
        self.buf: list[str] | None = None
        self.word_start = 0
        self.quoted = False
        self.redirect: str | None = None  # redirection operator awaiting its target word
        self.heredocs: list[tuple[_Simple, str, bool, bool]] = []  # (owner, delim, dash, quoted)

    # -- driver --------------------------------------------------------------------------

    def scan(self) -> list[_Simple]:
        text, n = self.text, self.n
        while self.i < n:
            c = text[self.i]
            if c == "\\" and self.i + 1 < n and text[self.i + 1] == "\n":
                self.i += 2  # line continuation, even inside a word
            elif c in " \t":
                self.end_word()
                self.i += 1
            elif c in "\n\r":
                self.end_record()
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
        self.end_record()
        return self.records

    # -- words ---------------------------------------------------------------------------

    def start_word(self) -> list[str]:
        if self.buf is None:
            self.buf = []
            self.word_start = self.i
            self.quoted = False
        return self.buf

    def end_word(self) -> None:
        if self.buf is None:
            return
        value = "".join(self.buf)
        raw = self.text[self.word_start : self.i]
        self.buf = None
        cur = self.cur
        op, self.redirect = self.redirect, None
        if op is None:
            cur.parts.append(value)
            cur.words.append(_Word(value, self.quoted, _variable_name(raw)))
            return
        cur.parts[-1] += value  # a redirection target stays attached: `2>&1`, `>out`
        if op in ("<<", "<<-"):
            self.heredocs.append((cur, value, op == "<<-", self.quoted))
        elif op == "<<<":
            cur.stdin_scripts.append(value)

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
            end = _find_close(text, i + 2, "(", ")")
            self.scan_expansions(text[i + 2 : end])
            buf.append(text[i : end + 1])
            self.i = end + 1
        else:
            buf.append(c)
            self.i = i + 1

    def double_quoted(self, i: int, buf: list[str], closer: str | None) -> int:
        """Append the value of a double-quoted span; return the index after its end."""
        text, n = self.text, self.n
        while i < n:
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
                buf.append(c)
                i += 1
        return n

    def backtick(self, i: int, buf: list[str]) -> int:
        text, n = self.text, self.n
        j = i + 1
        body: list[str] = []
        while j < n and text[j] != "`":
            if text[j] == "\\" and j + 1 < n:
                body.append(text[j + 1] if text[j + 1] in "`$\\" else text[j : j + 2])
                j += 2
            else:
                body.append(text[j])
                j += 1
        _split_into("".join(body), self.depth + 1, self.forms)
        buf.append(text[i : j + 1])
        return j + 1

    def dollar(self, i: int, buf: list[str], in_double: bool = False) -> int:
        text = self.text
        nxt = text[i + 1 : i + 2]
        if nxt == "(":
            end = _find_close(text, i + 2, "(", ")")
            body = text[i + 2 : end]
            if body.startswith("(") and _find_close(body, 1, "(", ")") == len(body) - 1:
                # $(( arithmetic )), not `$((a); (b))`, two subshells
                self.scan_expansions(body[1:-1])
            else:
                _split_into(body, self.depth + 1, self.forms)
            buf.append(text[i : end + 1])
            return end + 1
        if nxt == "{":
            end = _find_close(text, i + 2, "{", "}")
            self.scan_expansions(text[i + 2 : end])
            buf.append(text[i : end + 1])
            return end + 1
        if nxt == "'" and not in_double:
            self.quoted = True
            return _ansi_c(text, i + 2, buf)
        if nxt == '"' and not in_double:
            self.quoted = True
            return self.double_quoted(i + 2, buf, '"')
        buf.append("$")
        return i + 1

    def scan_expansions(self, text: str) -> None:
        """Find substitutions in text that is expanded but not run (heredoc body, `${..}`)."""
        if "$" in text or "`" in text:
            _Scanner(text, self.depth, self.forms).double_quoted(0, [], None)

    # -- operators -----------------------------------------------------------------------

    def operator(self, c: str) -> None:
        text, i = self.text, self.i
        two = text[i : i + 2]
        if c == "&" and text.startswith(">", i + 1):  # &> and &>> redirect both streams
            self.end_word()
            op = "&>>" if text.startswith(">>", i + 1) else "&>"
            self.cur.parts.append(op)
            self.redirect = op
            self.i = i + len(op)
            return
        self.end_word()
        if c == "|" and two not in ("||",):
            self.i = i + (2 if two == "|&" else 1)
            self.end_record(pipe=True)
            return
        self.i = i + (2 if two in ("&&", "||", ";;", ";&") else 1)
        self.end_record()

    def angle(self, c: str) -> None:
        text, i = self.text, self.i
        if text.startswith("(", i + 1):  # process substitution <(..) / >(..)
            end = _find_close(text, i + 2, "(", ")")
            _split_into(text[i + 2 : end], self.depth + 1, self.forms)
            self.start_word().append(text[i : end + 1])
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
        self.redirect = op
        self.i = i + len(op)

    def end_record(self, pipe: bool = False) -> None:
        self.end_word()
        self.redirect = None
        cur = self.cur
        if not cur.parts:
            return  # nothing since the last operator: `a |\n b` keeps its pipe
        self.records.append(cur)
        self.cur = _Simple(cur if pipe else None)

    def read_heredocs(self) -> None:
        for owner, delim, strip_tabs, quoted in self.heredocs:
            body, self.i = _heredoc_body(self.text, self.i, delim, strip_tabs)
            owner.stdin_scripts.append(body)
            if not quoted:
                self.scan_expansions(body)
        self.heredocs = []


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


def _variable_name(raw: str) -> str | None:
    if raw.startswith('"') and raw.endswith('"') and len(raw) > 1:
        raw = raw[1:-1]
    if raw.startswith("${") and raw.endswith("}"):
        name = raw[2:-1]
    elif raw.startswith("$"):
        name = raw[1:]
    else:
        return None
    return name if name.isidentifier() else None


def _find_close(text: str, i: int, opener: str, closer: str) -> int:
    """Index of the `closer` matching an already-consumed `opener` (quote-aware), else len."""
    depth, n = 1, len(text)
    heredocs: list[tuple[str, bool]] = []
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and opener == "(":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            i = _skip_double(text, i + 1)
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


def _skip_double(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and text.startswith("(", i + 1):
            i = _find_close(text, i + 2, "(", ")") + 1
        else:
            i += 1
    return n


_HEX_DIGITS = "0123456789abcdefABCDEF"
_OCTAL_DIGITS = "01234567"
_ANSI_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


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


# -- unwrapping -------------------------------------------------------------------------


def _emit(simple: _Simple, depth: int, forms: _Forms) -> None:
    forms.add(simple.parts)
    words = _expand_variables(simple.words, forms.env)
    _command_words(words, simple, depth, forms)


def _expand_variables(words: list[_Word], env: dict[str, str]) -> list[str]:
    values: list[str] = []
    for word in words:
        known = env.get(word.var) if word.var else None
        if known is None:
            values.append(word.value)
        elif word.quoted:
            values.append(known)
        else:
            values.extend(known.split())
    return values


def _command_words(words: list[str], simple: _Simple, depth: int, forms: _Forms) -> None:
    """Add `words` and every command it wraps or hides; recurse into embedded scripts."""
    for _ in range(64):  # each step strips something; the bound only guards odd input
        words = _strip_assignments(words, forms)
        if not words:
            return
        forms.add(words)
        name = words[0]
        base = _basename(name)
        if base != name:
            words = [base, *words[1:]]
            forms.add(words)
        if base in _RESERVED:
            words = words[1:]
            continue
        if base in _ASSIGNERS:
            _strip_assignments(words[1:], forms)
            return
        simple.final = words
        for script in _scripts(base, words[1:], simple):
            _split_into(script, depth + 1, forms)
        inner = _wrapped(base, words[1:])
        if inner is None:
            return
        words = inner


def _strip_assignments(words: list[str], forms: _Forms) -> list[str]:
    start = 0
    for word in words:
        name, eq, value = word.partition("=")
        if not eq or not name.isidentifier():
            break
        forms.env[name] = value
        start += 1
    return words[start:]


def _basename(name: str) -> str:
    if "/" in name or "\\" in name:
        base = name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        return base or name
    return name


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
    if base == "find":
        return _find_exec(args)
    if base in _DASH_C:
        return _option_values(args, ("-c", "--command"))
    if base == "env":
        return _option_values(args, ("-S", "--split-string"))
    if base == "watch":
        return [" ".join(_skip_options(args, {"-n", "--interval", "-d", "--differences"}))]
    inline = _INLINE_CODE.get(base) or _INLINE_CODE.get(base.rstrip("0123456789."))
    if inline:
        flag, language = inline
        codes = _option_values(args, (flag, "--eval", "--command"))
        if not codes and args[:1] in ([], ["-"]):  # `python - <<EOF`: code on stdin
            codes = simple.stdin_scripts
        if codes:
            scripts: list[str] = []
            for code in codes:
                scripts.extend(extract_shell_strings(language, code))
            return scripts
    return []


def _shell_scripts(args: list[str], simple: _Simple) -> list[str]:
    i, reads_stdin = 0, False
    while i < len(args):
        arg = args[i]
        if arg in ("-o", "+o", "--rcfile", "--init-file"):
            i += 2
            continue
        if arg == "--":
            i += 1
            break
        if arg.startswith(("-", "+")) and len(arg) > 1:
            if not arg.startswith("--") and "c" in arg[1:]:
                return args[i + 1 : i + 2] if i + 1 < len(args) else []
            reads_stdin = reads_stdin or (not arg.startswith("--") and "s" in arg[1:])
            i += 1
            continue
        break
    if i < len(args) and not reads_stdin:
        return []  # `bash script.sh`: the script is a file we do not read
    scripts = list(simple.stdin_scripts)
    source = simple.piped_from
    if source is not None and source.final[:1] in (["echo"], ["printf"]):
        scripts.append(" ".join(_skip_options(source.final[1:], set())))
    elif source is not None and source.final == ["cat"]:  # `cat <<EOF | sh`
        scripts += source.stdin_scripts
    return scripts


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


# -- shell strings inside other languages (best effort) ---------------------------------

_ESCAPE_MARKERS = (
    "os.system",
    "os.popen",
    "os.exec",
    "os.spawn",
    "subprocess",
    "pty.spawn",
    "commands.get",
    "child_process",
    "execSync",
    "execFile",
    "spawnSync",
    "spawn(",
    "exec(",
    "Bun.spawn",
    "Bun.$",
    "Deno.Command",
    "Deno.run",
    "$`",
    "system(",
    "system ",
    "%x",
    "qx",
    "Open3",
    "IO.popen",
    "popen",
    "`",
    "exec.Command",
    "shell_exec",
    "passthru",
    "proc_open",
    "Command::new",
    "System.cmd",
    "system2(",
    "Runtime.getRuntime",
    "ProcessBuilder",
)


def extract_shell_strings(language: str, code: str) -> list[str]:
    """Shell command strings that non-shell `code` may run: a BEST-EFFORT scan, not a sandbox.

    When the code mentions a shell escape (`os.system`, `subprocess`, `child_process`,
    `exec(`, `system(`, backticks, `%x()`/`qx{}`, `exec.Command`, `Command::new`, ...), every
    string literal in it is returned (a literal may reach the escape through a variable), and
    so are the literals of each escape call joined by spaces (`["rm", "-rf", "/"]` becomes
    `rm -rf /`). Commands built at run time (concatenation, decoding, reflection) are not
    seen. Uses `re`: only called when there are Bash rules to check.
    """
    if not any(marker in code for marker in _ESCAPE_MARKERS):
        return []
    import re

    literal = re.compile(
        r'"""(.*?)"""|\'\'\'(.*?)\'\'\'|"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\''
        r"|`((?:[^`\\]|\\.)*)`|%x[({\[](.*?)[)}\]]|qx[({\[/](.*?)[)}\]/]",
        re.DOTALL,
    )
    found: dict[str, None] = {}
    call = re.compile(
        r"(?:system|popen|spawn|spawnSync|exec|execSync|execFile|execFileSync|run|call|"
        r"check_call|check_output|getoutput|getstatusoutput|Popen|Command|cmd|shell_exec|"
        r"passthru|proc_open|system2|new)\s*\("
    )
    for match in call.finditer(code):
        end = _find_close(code, match.end(), "(", ")")
        parts = [
            _unescape(next((g for g in m.groups() if g is not None), ""))
            for m in literal.finditer(code, match.end(), end)
        ]
        if len(parts) > 1:
            found[" ".join(parts)] = None
    for match in literal.finditer(code):
        value = next((group for group in match.groups() if group is not None), "")
        found[_unescape(value)] = None
    return [text for text in found if text.strip()]


def _unescape(value: str) -> str:
    if "\\" not in value:
        return value
    out: list[str] = []
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)
