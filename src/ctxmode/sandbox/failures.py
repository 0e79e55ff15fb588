"""Failing tests and compiler errors in a run's output, each with its first error line.

Test runners open each failure with a line of their own (pytest's `____ test_x ____`,
unittest's `FAIL: test_x (mod.Case.test_x)`, jest's `● Suite › test`, go's `--- FAIL:`,
cargo's `---- x stdout ----`, Gradle's `Class > test() FAILED`, ...) and print its first
assertion or error line a few lines later (go test -v: before it, under `=== RUN`).
Compilers and linters print `file:line[:col]: message` lines (rustc: the message above a
`--> file:line:col` line; eslint: rows under a file's path). `FailureCollector.feed` takes
complete lines in pieces of any size, as `DiagnosticCollector` does, and finds the lines
that may matter by searching for a few words (C speed): only those and the few lines after
a failure's opening line cost Python work.

`mark_blocks` puts a form feed line around each failure block of an output being indexed:
the knowledge base's plain chunker starts a chunk there, so each failure is one search hit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

TEST, ERROR, WARNING = "test", "error", "warning"
ID_CHARS = 160
MESSAGE_CHARS = 200
MAX_KEPT = 300  # failures kept in memory; the rest are counted
FOLLOW_LINES = 200  # lines after an opening line searched for its message
PAGE_BREAK = "\f\n"


@dataclass(frozen=True)
class Failure:
    test: str  # the test's id as its runner names it, or a problem's `file:line[:col]`
    message: str  # its first assertion or error line ("" when none was printed)
    kind: str  # TEST, ERROR or WARNING


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Each rule: a name and the pattern of the line it handles (matched from the line's start).
# Rules marked as block openers start a failure block.
_RULES: tuple[tuple[str, str], ...] = (
    ("pytest_block", r"_{3,} (?P<id>.+?) _{3,}[ \t]*$"),
    ("pytest_summary", r"(?:FAILED|ERROR) (?P<id>\S+?(?:::\S+|\.py))(?: - (?P<msg>.*))?[ \t]*$"),
    ("unittest", r"(?:FAIL|ERROR): (?P<name>\S+) \((?P<where>[\w.]+)\)(?P<rest>.*)$"),
    ("jest", r"[ \t]+\u25cf (?P<id>.+)$"),
    ("vitest", r" FAIL +(?P<id>\S+ > .+)$"),
    ("jest_file", r" FAIL +(?P<path>\S+)"),
    ("numbered", r"(?P<indent>[ \t]*)\d+\) (?P<id>.+)$"),
    ("phpunit_mode", r"There (?:was|were) \d+ (?P<what>failure|error)s?:"),
    ("rspec_mode", r"Failures:[ \t]*$"),
    ("mocha_mode", r"[ \t]+\d+ failing[ \t]*$"),
    ("tap", r"not ok \d+ (?:- )?(?P<id>.+?)(?:[ \t]+# .*)?$"),
    ("go_fail", r"[ \t]*--- FAIL: (?P<id>\S+)"),
    ("go_run", r"=== (?:RUN|CONT|NAME) +(?P<id>\S+)"),
    ("go_message", r"[ \t]+(?P<msg>[\w./-]+\.go:\d+: .*)$"),
    ("cargo_block", r"---- (?P<id>\S+(?: - .+?)?) stdout ----$"),
    ("cargo_line", r"test (?P<id>\S+(?: - .+?)?) \.\.\. FAILED$"),
    ("gradle", r"(?P<id>[\w$.]+(?: > .+?)?) > (?P<test>.+?) FAILED$"),
    (
        "maven",
        r"(?:\[ERROR\] )?(?!Tests run)(?P<name>[\w.$\[\]]+?)(?:\((?P<cls>[\w.$]+)\))?"
        r"[ \t]+(?:-- )?Time elapsed:.*<<< (?:FAILURE|ERROR)!",
    ),
    ("maven_list", r"\[ERROR\]   (?P<id>[\w.$]+?)(?::\d+)?(?: »)? (?P<msg>.+)$"),
    ("rust_error", r"(?P<msg>(?:error|warning)(?:\[\w+\])?: .+)$"),
    ("eslint", r"[ \t]+(?P<line>\d+:\d+)[ \t]+(?P<sev>error|warning)[ \t]+(?P<msg>.+)$"),
    (
        "compiler",
        r"(?P<path>(?:[A-Za-z]:)?[^\s:()]+\.[A-Za-z]\w{0,7})(?:[:(](?P<line>\d+))"
        r"(?:[:,](?P<col>\d+))?\)?:?(?: -)? (?P<msg>.+)$",
    ),
)
_COMPILED = tuple((name, re.compile(pattern)) for name, pattern in _RULES)


def _unnamed(pattern: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


_CANDIDATES = re.compile("|".join(f"^(?:{_unnamed(p)})" for _, p in _RULES), re.MULTILINE)
_BLOCK_OPENERS = frozenset(
    ("pytest_block", "unittest", "jest", "vitest", "numbered", "tap", "go_fail", "cargo_block", "gradle",
     "maven")
)  # fmt: skip
# Every rule's line holds one of these words (a numbered line only matters in a runner's
# list of failures, and a linter's coded line is found by `_CODED`).
_KEYS = ("__", "FAIL", "ERROR", "\u25cf", "There w", "Failures:", " failing", "not ok", "=== ",
         ".go:", "---- ", "Time elapsed", "error", "warning")  # fmt: skip
_CODED = re.compile(r":\d+(?::\d+)?:? [A-Z]{1,4}\d")
_PATH_LINE = re.compile(r"[^\s:]+\.[A-Za-z]\w{0,7}[ \t]*$")
_SEVERITY = re.compile(r"(?:fatal )?error\b|warning\b|[A-Z]{1,4}\d{2,5}\b|error TS\d+")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class _Item:
    __slots__ = ("forms", "kind", "message", "test")

    def __init__(self, test: str, message: str, kind: str, form: str) -> None:
        self.test, self.message, self.kind, self.forms = test, message, kind, {form}


def _same_test(a: str, b: str) -> bool:
    """One id names the other's test: `tests/t.py::C::test_x` and `C.test_x` do."""
    a, b = (x.replace("::", ".") for x in (a, b))
    short, long = sorted((a, b), key=len)
    return long == short or (long.endswith(short) and long[-len(short) - 1] in ". :/#>›")


class _Follow:
    """A failure whose message is in the lines after its opening line."""

    __slots__ = ("item", "left", "lines", "mode")

    def __init__(self, item: _Item | None, mode: str) -> None:
        self.item, self.mode, self.left = item, mode, FOLLOW_LINES
        self.lines: list[str] = []


class FailureCollector:
    """Collects failing tests and compiler problems from text fed in complete lines."""

    def __init__(self) -> None:
        self._items: list[_Item] = []
        self._omitted = 0
        self._follow: _Follow | None = None
        self._mode = ""  # which runner's numbered failures ("1) ...") are being listed
        self._jest_file = ""
        self._text, self._start = "", 0  # the piece being read and the current line's start
        self._go_running = ""
        self._go_messages: dict[str, str] = {}

    # ------------------------------------------------------------ feeding

    def feed(self, data: bytes | str) -> None:
        text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
        if "\x1b[" in text:
            text = _ANSI.sub("", text)
        position = self._continue(text, 0) if self._follow else 0
        while position < len(text):
            position = self._scan(text, position)

    def _scan(self, text: str, position: int) -> int:
        """Read the candidate lines from `position` on; where a runner's list of numbered
        failures begins, stop and say where (its numbered lines are candidates from there)."""
        mode = self._mode
        for start in self._candidates(text, position):
            if start < position:
                continue  # read already, as a failure's following lines
            end = text.find("\n", start)
            end = len(text) if end < 0 else end + 1
            self._text, self._start = text, start
            self._line(text[start:end].rstrip("\r\n"))
            position = self._continue(text, end) if self._follow else end
            if self._mode != mode:
                return position
        return len(text)

    def _candidates(self, text: str, begin: int) -> list[int]:
        """The starts of the lines from `begin` holding one of `_KEYS` (or a linter's code)."""
        starts: set[int] = set()
        keys = (*_KEYS, ") ") if self._mode else _KEYS
        for key in keys:
            position = text.find(key, begin)
            while position >= 0:
                starts.add(text.rfind("\n", 0, position) + 1)
                line_end = text.find("\n", position)
                if line_end < 0:
                    break
                position = text.find(key, line_end)
        for found in _CODED.finditer(text, begin):
            starts.add(text.rfind("\n", 0, found.start()) + 1)
        return sorted(starts)

    def _continue(self, text: str, position: int) -> int:
        """Give the lines from `position` to the failure awaiting its message."""
        while self._follow is not None and position < len(text):
            end = text.find("\n", position)
            end = len(text) if end < 0 else end + 1
            line = text[position:end].rstrip("\r\n")
            opener = _CANDIDATES.match(line)
            if opener is not None and _rule_of(line) in _BLOCK_OPENERS:
                self._close_follow()
                return position  # the next failure begins here
            self._follow_line(line)
            position = end
        return position

    def _line(self, line: str) -> None:
        name = _rule_of(line)
        if name is not None:
            getattr(self, f"_on_{name}")(dict(_match(name, line).groupdict()), line)

    # ------------------------------------------------------------ the kept failures

    def _add(self, test: str, message: str, kind: str = TEST, form: str = "") -> _Item | None:
        test, message = _clip(test, ID_CHARS), _clip(message, MESSAGE_CHARS)
        if not test:
            return None
        for item in self._items:
            if form not in item.forms and _same_test(item.test, test):
                item.forms.add(form)
                if len(test) > len(item.test):
                    item.test = test
                item.message = item.message or message
                return item
            if item.test == test and form in item.forms and kind != TEST:
                return item  # the same problem printed twice
        if len(self._items) >= MAX_KEPT and not self._make_room(kind):
            self._omitted += 1
            return None
        item = _Item(test, message, kind, form)
        self._items.append(item)
        return item

    def _make_room(self, kind: str) -> bool:
        """Drop the last kept warning for a failing test or an error (counted, not lost)."""
        if kind == WARNING:
            return False
        for index in range(len(self._items) - 1, -1, -1):
            if self._items[index].kind == WARNING:
                del self._items[index]
                self._omitted += 1
                return True
        return False

    def _await(self, item: _Item | None, mode: str) -> None:
        self._close_follow()
        if item is not None or mode in ("mocha_title", "rust_location"):
            self._follow = _Follow(item, mode)

    def _close_follow(self) -> None:
        follow, self._follow = self._follow, None
        if follow is not None and follow.lines and follow.item is not None:
            follow.item.message = follow.item.message or _clip(" · ".join(follow.lines), 200)

    # ------------------------------------------------------------ the lines after an opener

    def _follow_line(self, line: str) -> None:
        follow = self._follow
        assert follow is not None
        follow.left -= 1
        handler = getattr(self, f"_follow_{follow.mode}")
        if handler(follow, line) or follow.left <= 0:
            self._close_follow()

    def _first_lines(self, follow: _Follow, line: str) -> bool:
        """The first non-blank line; after one that ends with ':' or is a bare expectation,
        the next one or two as well (`Expected: 42` / `Received: 41`)."""
        text = line.strip()
        if not text:
            return False
        follow.lines.append(text)
        first = follow.lines[0]
        if first.startswith(("expect(", "Failure/Error:")):  # the values are below it
            return len(follow.lines) >= 3
        return not first.endswith(":") or len(follow.lines) >= 2

    def _follow_first(self, follow: _Follow, line: str) -> bool:
        return self._first_lines(follow, line)

    def _follow_pytest(self, follow: _Follow, line: str) -> bool:
        if line.startswith("E   "):
            follow.lines.append(line[1:].strip())
            return True
        return False

    def _follow_traceback(self, follow: _Follow, line: str) -> bool:
        text = line.strip()
        skip = ("Traceback", "During handling", "The above exception", "---", "===")
        if not text or line[0] in " \t" or text.startswith(skip):
            return False
        follow.lines.append(text)
        return True

    def _follow_cargo(self, follow: _Follow, line: str) -> bool:
        text = line.strip()
        panic = re.search(r"panicked at (.*)", text)
        if panic and not follow.lines:
            where = panic.group(1)
            if where.endswith(":"):  # the message is on the next line (Rust 1.73+)
                follow.lines.append(f"at {where[:-1]}")
                return False
            follow.lines.append(text[text.find("panicked") :])
            return True
        if not follow.lines or not text:
            return False
        if text.startswith(("left:", "right:")):  # the two values of a failed assert_eq!
            follow.lines.append(text)
            return text.startswith("right:")
        if len(follow.lines) > 1:
            return True
        follow.lines.insert(0, text)
        return not text.endswith("failed")

    def _follow_go(self, follow: _Follow, line: str) -> bool:
        text = line.strip()
        if not line[:1].isspace() or text.startswith(("---", "===")):
            follow.left = 0  # the failure's own lines are over
            return True
        if text:
            follow.lines.append(text)
            return True
        return False

    def _follow_tap(self, follow: _Follow, line: str) -> bool:
        text = line.strip()
        if re.match(r"(?:not )?ok \d+|# Subtest|\d+\.\.\d+$", text):
            follow.left = 0
            return True
        if follow.lines:
            return self._first_lines(follow, line)
        found = re.match(r"(?:error|message): *(.*)$", text)
        if found:
            value = found.group(1).strip("'\"")
            if value and value not in ("|", "|-", ">", ">-"):
                follow.lines.append(value)
                return True
            follow.mode = "first"  # the message follows on its own lines
        return False

    def _follow_mocha_title(self, follow: _Follow, line: str) -> bool:
        text = line.strip()
        if not text:
            follow.left = 0  # a numbered line in the run's listing, not a failure
            return True
        follow.lines.append(text)
        if text.endswith(":"):
            title = " ".join(follow.lines)[:-1]
            follow.lines = []
            follow.item, follow.mode = self._add(title, "", form="mocha"), "first"
        return False

    def _follow_rust_location(self, follow: _Follow, line: str) -> bool:
        found = re.match(r"\s*--> (\S+)", line)
        if found and follow.lines:
            message = follow.lines[0]
            kind = WARNING if message.startswith("warning") else ERROR
            self._add(found.group(1), message, kind, form="compiler")
            follow.lines = []
            return True
        return follow.left < FOLLOW_LINES - 3  # the location is right under the message

    # ------------------------------------------------------------ opening lines

    def _on_pytest_block(self, g: dict, line: str) -> None:
        test = re.sub(r"^ERROR (?:at \w+ of|collecting) ", "", g["id"])
        self._await(self._add(test, "", form="pytest_block"), "pytest")

    def _on_pytest_summary(self, g: dict, line: str) -> None:
        message = g["msg"] or ""
        self._add(g["id"], "" if message.endswith("...") else message, form="pytest_summary")

    def _on_unittest(self, g: dict, line: str) -> None:
        name, where = g["name"], g["where"]
        test = where if where.endswith("." + name) else f"{where}.{name}"
        self._await(self._add(test + g["rest"], "", form="unittest"), "traceback")

    def _on_jest(self, g: dict, line: str) -> None:
        test = g["id"]
        if test.strip() == "Console":  # a test's console output, not a failure
            return
        if test.startswith("Test suite failed to run") and self._jest_file:
            test = f"{self._jest_file} › {test}"
        self._await(self._add(test, "", form="jest"), "first")

    def _on_vitest(self, g: dict, line: str) -> None:
        self._await(self._add(g["id"], "", form="vitest"), "first")

    def _on_jest_file(self, g: dict, line: str) -> None:
        self._jest_file = g["path"]

    def _on_numbered(self, g: dict, line: str) -> None:
        indent, test = g["indent"], g["id"]
        if self._mode == "phpunit" and not indent:
            self._await(self._add(test, "", form="phpunit"), "first")
        elif self._mode == "rspec" and indent == "  ":
            self._await(self._add(test, "", form="rspec"), "first")
        elif self._mode == "mocha" and indent == "  ":
            self._await(None, "mocha_title")
            assert self._follow is not None
            self._follow_mocha_title(self._follow, test)

    def _on_phpunit_mode(self, g: dict, line: str) -> None:
        self._mode = "phpunit"

    def _on_rspec_mode(self, g: dict, line: str) -> None:
        self._mode = "rspec"

    def _on_mocha_mode(self, g: dict, line: str) -> None:
        self._mode = "mocha"

    def _on_tap(self, g: dict, line: str) -> None:
        self._await(self._add(g["id"], "", form="tap"), "tap")

    def _on_go_fail(self, g: dict, line: str) -> None:
        test = g["id"]
        item = self._add(test, self._go_messages.pop(test, ""), form="go")
        if item is not None and not item.message:
            self._await(item, "go")

    def _on_go_run(self, g: dict, line: str) -> None:
        self._go_running = g["id"]

    def _on_go_message(self, g: dict, line: str) -> None:
        running = self._go_running
        if running and running not in self._go_messages:
            if len(self._go_messages) > 1000:
                self._go_messages.clear()
            self._go_messages[running] = g["msg"]

    def _on_cargo_block(self, g: dict, line: str) -> None:
        self._await(self._add(g["id"], "", form="cargo_block"), "cargo")

    def _on_cargo_line(self, g: dict, line: str) -> None:
        self._add(g["id"], "", form="cargo_line")

    def _on_gradle(self, g: dict, line: str) -> None:
        self._await(self._add(f"{g['id']} > {g['test']}", "", form="gradle"), "first")

    def _on_maven(self, g: dict, line: str) -> None:
        test = f"{g['cls']}.{g['name']}" if g["cls"] else g["name"]
        self._await(self._add(test, "", form="maven"), "first")

    def _on_maven_list(self, g: dict, line: str) -> None:
        if "." in g["id"]:
            self._add(g["id"], g["msg"], form="maven_list")

    def _on_rust_error(self, g: dict, line: str) -> None:
        self._await(None, "rust_location")
        assert self._follow is not None
        self._follow.lines.append(g["msg"])

    def _on_eslint(self, g: dict, line: str) -> None:
        kind = ERROR if g["sev"] == "error" else WARNING
        path = self._file_above()
        where = f"{path}:{g['line']}" if path else g["line"]
        self._add(where, f"{g['sev']} {' '.join(g['msg'].split())}", kind, form="eslint")

    def _file_above(self) -> str:
        """The path eslint names on a line of its own above its rows (within this piece)."""
        text, end = self._text, self._start
        while end > 0:
            start = text.rfind("\n", 0, end - 1) + 1
            line = text[start : end - 1]
            if line.strip() and not line[0].isspace():
                return line.strip() if _PATH_LINE.match(line) else ""
            end = start
        return ""

    def _on_compiler(self, g: dict, line: str) -> None:
        message = g["msg"].strip()
        if not (_SEVERITY.match(message) or (g["col"] and g["path"].endswith(".go"))):
            return
        where = f"{g['path']}:{g['line']}" + (f":{g['col']}" if g["col"] else "")
        kind = WARNING if message.startswith(("warning", "note")) else ERROR
        self._add(where, message, kind, form="compiler")

    # ------------------------------------------------------------ the result

    def result(self) -> tuple[tuple[Failure, ...], int]:
        """The failures found (tests first, then errors, then warnings) and how many more."""
        self._close_follow()
        order = {TEST: 0, ERROR: 1, WARNING: 2}
        items = sorted(self._items, key=lambda item: order[item.kind])
        return tuple(Failure(i.test, i.message, i.kind) for i in items), self._omitted


def _rule_of(line: str) -> str | None:
    for name, pattern in _COMPILED:
        if pattern.match(line):
            return name
    return None


def _match(name: str, line: str) -> re.Match[str]:
    found = dict(_COMPILED)[name].match(line)
    assert found is not None
    return found


# ---------------------------------------------------------------- marking blocks for indexing

_BLOCK_ENDS = (
    r"={3,}",  # pytest sections, unittest separators
    r"-{20,}\r?\n(?=Ran \d)",  # unittest's last separator
    r"Test Suites:|Tests:|\s?(?:PASS|FAIL)\s",  # jest
    r"\u23af{3,}",  # vitest separators
    r"Finished in |Failed examples:|FAILURES!|ERRORS!|There (?:was|were) \d+",  # rspec, phpunit
    r"failures:\s*$|test result:",  # cargo
    r"=== RUN|--- PASS|(?:ok|FAIL)\s|PASS\s*$|FAIL\s*$",  # go
    r"(?:not )?ok \d+|# Subtest|\d+\.\.\d+\s*$",  # TAP
    r"\[INFO\]|\[ERROR\] (?:Tests run|Failures|Errors)|\d+ tests? completed|BUILD |> Task",
)
_OPENERS = "|".join(_unnamed(p) for name, p in _RULES if name in _BLOCK_OPENERS)
_MARKS = re.compile(rf"^(?:(?P<open>{_OPENERS})|(?P<end>{'|'.join(_BLOCK_ENDS)}))", re.MULTILINE)
# Jest indents a failure's whole block under its "  ●" line: the next line that is not
# indented ends it, whatever follows the run's report. (Mocha's are not: an assertion's
# message may go on at the line start.)
_MARKS_INDENTED = re.compile(rf"{_MARKS.pattern}|^(?P<outdent>\S)", re.MULTILINE)


def mark_blocks(pieces: Iterable[str]) -> Iterator[str]:
    """`pieces` (each ending at a line end) with a form feed line before each failure block's
    opening line and after the block, so that each block is indexed as one chunk."""
    inside = indented = False
    for piece in pieces:
        start = position = 0
        while True:
            found = (_MARKS_INDENTED if indented else _MARKS).search(piece, position)
            if found is None:
                break
            position = found.end() if found.end() > found.start() else found.end() + 1
            if found.group("open") is None and not inside:
                continue
            yield piece[start : found.start()]
            yield PAGE_BREAK
            start = found.start()
            inside = found.group("open") is not None
            indented = inside and found.group("open").lstrip().startswith("\u25cf")
        yield piece[start:]
