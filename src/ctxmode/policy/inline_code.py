"""Shell command strings that code in other languages visibly runs (a best-effort scan).

`extract_shell_strings("python", "os.system('rm -rf /')")` returns `["rm -rf /"]`. Used by
the shell scanner for `python -c` / `node -e` / heredoc code, and by the permission rules
for ctx_execute code. Imports `re`, so callers load it only when there is code to read.
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
