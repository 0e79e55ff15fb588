"""Shell command strings that code in other languages visibly runs (a best-effort scan),
and the programs it only names at run time.

`extract_shell_strings("python", "os.system('rm -rf /')")` returns `["rm -rf /"]`;
`runtime_built("python", "getattr(os, 'sys'+'tem')('ls')")` returns the expression that
builds the name. Used by the shell scanner for `python -c` / `node -e` / heredoc code, and
by the permission rules for ctx_execute code. Imports `re`, so callers load it only when
there is code to read.
"""

from __future__ import annotations

import re

from ctxmode.policy.shell import find_close

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
    # Reflection reaches the same escapes by name: `getattr(os, 'system')('..')`.
    "getattr",
    "__import__",
    "import_module",
    "require(",
    "send(",
    "const_get",
    "call_user_func",
)


def extract_shell_strings(language: str, code: str) -> list[str]:
    """Shell command strings that non-shell `code` may run: a BEST-EFFORT scan, not a sandbox.

    When the code mentions a shell escape (`os.system`, `subprocess`, `child_process`,
    `exec(`, `system(`, backticks, `%x()`/`qx{}`, `exec.Command`, `Command::new`, ...), every
    string literal in it is returned (a literal may reach the escape through a variable), and
    so are the literals of each escape call joined by spaces (`["rm", "-rf", "/"]` becomes
    `rm -rf /`). Commands built at run time (concatenation, decoding, reflection) are not
    seen.
    """
    if not any(marker in code for marker in _ESCAPE_MARKERS):
        return []
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
        end = find_close(code, match.end(), "(", ")")
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


# Calls that run a program or a shell string given as their first argument.
_RUN_CALL = re.compile(
    r"(?<![\w.])(?:os\.|subprocess\.|child_process\.|cp\.|pty\.|commands\.|Open3\.|IO\.|Kernel\.)?"
    r"(?:system|popen|popen[234]?|spawn\w*|exec\w*|run|call|check_call|check_output|getoutput"
    r"|getstatusoutput|Popen|shell_exec|passthru|proc_open|capture[23]\w*)\s*\("
)
# Calls that reach code, a module or an attribute by a name given as their argument
# (the argument to look at: 0 = first, 1 = second).
_BY_NAME = re.compile(
    r"(?:(?<![\w.])(?:(?P<second>getattr)|(?P<first>__import__|require|import|eval|exec"
    r"|compile|Function|call_user_func|call_user_func_array))"
    r"|(?<!\w)(?P<method>import_module|instance_eval|send|public_send|__send__|const_get))"
    r"\s*\("
)
# Modules whose attributes run programs: `getattr(os, <name built at run time>)`.
_RUNNERS = ("os", "subprocess", "pty", "posix", "builtins", "__builtins__", "commands",
            "child_process", "Kernel", "sys.modules", "__import__", "importlib", "globals()")  # fmt: skip
# Ways code builds a string at run time, looked for outside string literals.
_BUILDERS = re.compile(
    r"\+|%|\.join\s*\(|decode\s*\(|fromhex|unhexlify|b64decode|b32decode|base64|codecs"
    r"|\bchr\s*\(|fromCharCode|atob\s*\(|Buffer\.from|\.format\s*\(|\[\s*:\s*:\s*-1\s*\]"
    r"|reverse\s*\(|\.replace\s*\(|concat\s*\(|\.pack\s*\(|\s\.\s|\.\s*\$|\$\{|\bf[\"']"
    r"|\.translate\s*\(|rot13|\.map\s*\("
)
_STRING = re.compile(
    r'[rRbBuU]{0,2}"(?:[^"\\\n]|\\.)*"|[rRbBuU]{0,2}\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\$]|\\.)*`'
)
_NAME = re.compile(r"[A-Za-z_$][\w$.]*")
_LITERAL_STARTS = frozenset("\"'`rRbBuU")


def runtime_built(language: str, code: str) -> str | None:
    """The expression by which `code` names a program, a shell string or a way to run one at
    run time (`'su'+'do'`, `getattr(os, 'sys'+'tem')`, `bytes.fromhex(..).decode()`,
    `require('child_'+'process')`), or None. A best-effort scan like
    `extract_shell_strings`: a name it reports is one the rules cannot check."""
    del language  # the calls and builders looked for are spelled alike in these languages
    if not any(marker in code for marker in _ESCAPE_MARKERS):
        return None
    assigned = _built_names(code)
    for match in _BY_NAME.finditer(code):
        args = _arguments(code, match.end())
        if match.group("second"):
            if len(args) >= 2 and _mentions_runner(args[0]) and not _plain_literal(args[1]):
                return _shown(code, match.start(), match.end(), args)
        elif args and not _plain_literal(args[0]) and not _inert(args[0]):
            return _shown(code, match.start(), match.end(), args)
    for match in _RUN_CALL.finditer(code):
        args = _arguments(code, match.end())
        first = args[0] if args else ""
        if first[:1] in ("[", "(") and _bracket_end(first) == len(first) - 1:
            vector = _arguments(first, 1, closer=first[0])  # an argument vector: its program
            first = vector[0] if vector else ""
        if _built(first) or first in assigned:
            return _shown(code, match.start(), match.end(), args)
    return None


def _arguments(code: str, start: int, closer: str = "(") -> list[str]:
    """The top-level comma-separated arguments of the call whose `(` ends before `start`."""
    opener, close = {"(": ("(", ")"), "[": ("[", "]")}.get(closer, ("(", ")"))
    end = find_close(code, start, opener, close)
    body = code[start:end]
    args: list[str] = []
    depth, piece_start, i = 0, 0, 0
    while i < len(body):
        c = body[i]
        literal = _STRING.match(body, i) if c in _LITERAL_STARTS else None
        if literal is not None:
            i = literal.end()
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(body[piece_start:i].strip())
            piece_start = i + 1
        i += 1
    args.append(body[piece_start:].strip())
    return [arg for arg in args if arg]


def _bracket_end(text: str) -> int:
    return find_close(text, 1, text[0], "]" if text[0] == "[" else ")")


def _plain_literal(arg: str) -> bool:
    """One string literal and nothing else (`'system'`, not `'sys'+'tem'`)."""
    match = _STRING.fullmatch(arg)
    return match is not None and "${" not in arg and arg[:1] not in "fF"


def _built(expression: str) -> bool:
    """Whether `expression` builds a string at run time (literals themselves are not read)."""
    if not expression or _plain_literal(expression):
        return False
    outside = _STRING.sub('""', expression)
    if expression.lstrip()[:2] in ('f"', "f'") or "${" in expression:
        return True
    return _BUILDERS.search(outside) is not None


def _built_names(code: str) -> set[str]:
    """Names assigned an expression that builds a string at run time (`p = 'su' + 'do'`)."""
    names: set[str] = set()
    for line in code.splitlines():
        target, equals, value = line.partition("=")
        if not equals or value.startswith("=") or target.endswith(("!", "<", ">", "=")):
            continue
        name = target.strip().removeprefix("const ").removeprefix("let ").removeprefix("var ")
        name = name.removeprefix("my ").strip()
        if _NAME.fullmatch(name) and _built(value.strip().rstrip(";")):
            names.add(name)
    return names


def _mentions_runner(target: str) -> bool:
    target = target.strip()
    return any(target == r or target.startswith(r) for r in _RUNNERS) or _built(target)


def _inert(argument: str) -> bool:
    """A plain variable (`require(name)`, `eval(expr)`) stays quiet: only names built at
    run time count (the literals a variable may hold are all checked anyway)."""
    return _NAME.fullmatch(argument) is not None


def _shown(code: str, start: int, end: int, args: list[str]) -> str:
    text = code[start:end] + ", ".join(args) + ")"
    return " ".join(text.split())[:120]
