"""The user's permission rules (`permissions.deny/ask/allow` in Claude-format settings) applied
to a tool call: Bash commands, Read paths and ctxmode's own execution tools.

Rules are `Tool(pattern)` strings, or a bare `Tool` matching every call of that tool:

- `Bash(sudo:*)`: the command `sudo`, or `sudo` + a space + anything (`*` is the only
  wildcard in Bash patterns; `Bash(git push:*)`, `Bash(npm run test:*)` likewise);
  `Bash(rm -rf *)`: the whole command as a glob (a trailing ` *` also matches nothing).
  Every command hidden in the string is checked (`policy.shell.scan`); a command whose
  program is decided at run time, or a command too big to analyse, gets "ask" when deny or
  ask rules exist. Deny and ask rules for rm, chmod, chown, curl, wget, git, docker,
  kubectl, npm, pip and the package publishers also match every spelling of what they name
  (`policy.meaning`: `rm -fr x`, `rm --force -R x`, `git -C . push`); allow rules match
  only what they spell.
- `Read(.env)`, `Read(./secrets/**)`, `Read(**/*.pem)`, `Read(~/.ssh/**)`, `Read(//etc/**)`:
  path globs (`**/` any directories, `**` anything, `*` within a segment, `?` one
  character; matched by `policy.globs`); relative globs are anchored at the project, `~` is the home directory, `//x`
  is the absolute `/x` (`/x` is tried both absolute and project-relative).

The rules are those of the project root, whatever directory the call comes from: the
host's project dir when it names one, else the nearest ancestor of the call's directory
holding `.claude/settings*.json`, else the nearest version-control root (`rules_root`),
plus the user's settings. Deny beats ask beats allow, across all files (so a project deny beats a user allow and a
user deny beats a project allow). Case-insensitive on macOS and Windows. Standard library
only, and nothing heavier than `os` unless a settings file exists (`_json` parses it; `re`
is used only to scan non-shell code for shell escapes; `policy.meaning` loads only for deny
and ask rules).
"""

from __future__ import annotations

import os

from ctxmode.policy import globs

# The rules and the verdict type are read by `policy.rules`, which loads without this
# engine when a project has none.
from ctxmode.policy.rules import (
    ALLOW,
    ASK,
    DENY,
    NO_OPINION,
    BashPattern,
    PolicyVerdict,
    Rule,
    RuleSet,
)  # fmt: skip
from ctxmode.policy.shell import TIME_BUDGET, ShellScan, basename, scan
from ctxmode.policy.shell import clock as shell_clock

TYPE_CHECKING = False
if TYPE_CHECKING:  # `policy.meaning` is read only for deny and ask rules: imported there
    from ctxmode.policy.meaning import Meaning

SHELL_LANGUAGES = frozenset({"shell", "bash", "sh", "zsh"})
WHOLE_CHARS = 100_000  # the whole command is matched as one form up to this length
INLINE_CODE_CHARS = 200_000  # longer non-shell code is not searched for shell strings


# -- Bash rules -------------------------------------------------------------------------


def evaluate_bash(
    command: str, rules: RuleSet, subject: str = "command", deadline: float | None = None
) -> PolicyVerdict:
    """Deny if any command hidden in `command` matches a Bash deny rule, else ask on an ask
    match, else ask when some program is computed at run time or the analysis ran out of
    budget (only where deny/ask rules exist), else allow if every command matches an allow
    rule, else no opinion. `deadline` (on `policy.shell.clock`): shared by several commands
    of one call."""
    if not rules.has_tool("Bash"):
        return NO_OPINION
    command = command if isinstance(command, str) else ""
    found = scan(command) if deadline is None else scan(command, deadline - shell_clock())
    forms = list(found.forms)
    whole = " ".join(command[:WHOLE_CHARS].split())
    checked = [*forms, whole] if whole and whole not in found.forms else forms
    budget_end = (deadline if deadline is not None else shell_clock()) + TIME_BUDGET
    meanings = _CommandMeanings(found, forms, budget_end)
    for action in (DENY, ASK):
        for rule in rules.select("Bash", action):
            matched = _first_bash_match(rule, checked, whole)
            if matched is None:
                matched = meanings.first_match(rule)
            if matched is not None:
                return _verdict(rule, matched, subject)
    if rules.select("Bash", DENY) or rules.select("Bash", ASK):
        unchecked = _unchecked(found, subject, meanings.incomplete)
        if unchecked is not None:
            return PolicyVerdict(ASK, "", whole[:200], unchecked)
    if found.over_budget or found.computed:
        return NO_OPINION  # an allow rule cannot vouch for commands it never saw
    allows = rules.select("Bash", ALLOW)
    matching = {form: next((r for r in allows if _bash_matches(r, form)), None) for form in forms}
    for form, allowed in list(matching.items()):
        # `./bin/pytest -q` allowed by `Bash(./bin/pytest:*)` vouches for its own bare
        # spelling `pytest -q` (the same program, as the scanner also writes it).
        name, space, rest = form.partition(" ")
        bare = basename(name) + space + rest
        if allowed is not None and bare != form and matching.get(bare, allowed) is None:
            matching[bare] = allowed
    rules_found = list(matching.values())
    first = rules_found[0] if rules_found else None
    if first is not None and all(rules_found):
        return PolicyVerdict(ALLOW, first.text, whole, "allowed by the permission rules")
    return NO_OPINION


class _CommandMeanings:
    """The meaning (`policy.meaning`) of each command found, read once per program a deny or
    ask rule names, so `rm -fr x` matches `Bash(rm -rf *)` and `git -C . push` matches
    `Bash(git push:*)`. Reading stops at `deadline` (`incomplete`: the rules then cannot
    vouch for what was not read)."""

    __slots__ = ("_by_program", "_deadline", "_forms", "_found", "_read", "incomplete")

    def __init__(self, found: ShellScan, forms: list[str], deadline: float) -> None:
        self._found = found
        self._forms = forms
        self._deadline = deadline
        self._by_program: dict[str, list[tuple[str, ...]]] | None = None
        self._read: dict[str, list[tuple[Meaning, str]]] = {}
        self.incomplete = False

    def first_match(self, rule: Rule) -> str | None:
        if rule.pattern is None:
            return None
        from ctxmode.policy.meaning import matches, program_of  # only deny and ask rules read it

        words = rule.pattern.replace(":", " ").split(None, 3)[:3]
        if program_of(words)[0] not in self._readings():
            return None  # no command of that program: the rule need not be read
        wanted = _rule_meaning(rule)
        if wanted is None:
            return None
        for command, form in self._of(wanted.program):
            if matches(wanted, command, globs.star_match):
                return form
        return None

    def _of(self, program: str) -> list[tuple[Meaning, str]]:
        from ctxmode.policy.meaning import meaning

        if program not in self._read:
            self._read[program] = found = []
            for argv in self._readings().get(program, ()):
                if shell_clock() > self._deadline:
                    self.incomplete = True
                    break
                reading = meaning(argv)
                if reading is not None:
                    found.append((reading, " ".join(argv)))
        return self._read[program]

    def _readings(self) -> dict[str, list[tuple[str, ...]]]:
        """Every command's words once, by program: the scanned commands and the readings
        recorded only as forms (`cur${E}l u`)."""
        from ctxmode.policy.meaning import program_of

        if self._by_program is None:
            words = {c.argv: None for c in self._found.commands if not c.computed}
            for form in self._forms:
                words.setdefault(tuple(form.split()), None)
            self._by_program = {}
            for argv in words:
                program = program_of(argv)[0]
                self._by_program.setdefault(program, []).append(argv)
        return self._by_program


def _rule_meaning(rule: Rule) -> Meaning | None:
    """The rule's `policy.meaning`, or None when its program has no option grammar there."""
    from ctxmode.policy.meaning import Meaning, rule_meaning

    if rule._meaning is None:
        found = rule_meaning(_normalize_pattern(rule.pattern or ""))
        rule._meaning = found if found is not None else False
    return rule._meaning if isinstance(rule._meaning, Meaning) else None


def _over_budget_reason(subject: str) -> str:
    return (
        f"Security policy asks for confirmation: the {subject} is too large or too deeply"
        " nested to check against your permission rules in time; confirm it."
    )


def _unchecked(found: ShellScan, subject: str, incomplete: bool = False) -> str | None:
    """Why the rules cannot be checked against a scanned command, or None when they can."""
    if found.over_budget or incomplete:
        return _over_budget_reason(subject)
    computed = next((c for c in found.commands if c.computed), None)
    if computed is None:
        return None
    shown = " ".join(computed.argv)[:120]
    return (
        f"Security policy asks for confirmation: the program of {shown!r} is computed at run"
        " time; your permission rules can't be checked against it."
    )


def _first_bash_match(rule: Rule, forms: list[str], whole: str) -> str | None:
    if rule.pattern is None:
        return whole
    for form in forms:
        if _bash_matches(rule, form) or _glob_name_matches(rule, form):
            return form
    return None


def _glob_name_matches(rule: Rule, form: str) -> bool:
    """`s?do x` / `/usr/bin/su[d]o x` run sudo once the shell expands the glob: a command
    name with wildcards is assumed to expand to the rule's command (deny and ask only)."""
    name, _, rest = form.partition(" ")
    if not any(c in name for c in "*?["):
        return False
    compiled = rule._bash or _compile_bash_pattern(rule.pattern or "")
    target = (compiled[1] or compiled[0]).split(" ", 1)[0]
    if not target or "*" in target:
        return False
    from fnmatch import fnmatchcase  # rare: only for wildcard command names

    base = name.rsplit("/", 1)[-1]
    if not (fnmatchcase(target, name) or fnmatchcase(target, base)):
        return False
    return _bash_matches(rule, f"{target} {rest}".rstrip())


def _bash_matches(rule: Rule, form: str) -> bool:
    if rule.pattern is None:
        return True
    compiled = rule._bash
    if compiled is None:
        compiled = rule._bash = _compile_bash_pattern(rule.pattern)
    whole, prefix, rest = compiled
    if globs.CASE_INSENSITIVE:
        form = form.lower()
    if globs.star_match(whole, form) or (whole.endswith(" *") and form == whole[:-2]):
        return True
    if prefix is None:
        return False
    if form == prefix:
        return True
    return form.startswith(prefix + " ") and globs.star_match(rest, form[len(prefix) + 1 :])


def _compile_bash_pattern(pattern: str) -> BashPattern:
    """(whole-pattern glob, prefix, rest) with quotes removed and whitespace collapsed, so a
    pattern compares with the scanner's dequoted forms. `prefix:rest` splits at the last
    colon; the whole pattern is also tried literally (`docker run -p 80:80`)."""
    whole = _normalize_pattern(pattern)
    prefix, rest = None, ""
    if ":" in pattern:
        head, _, tail = pattern.rpartition(":")
        prefix, rest = _normalize_pattern(head), _normalize_pattern(tail) or "*"
    return whole, prefix, rest


def _normalize_pattern(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        if c not in "'\"":
            out.append(c)
        i += 1
    normalized = " ".join("".join(out).split())
    return normalized.lower() if globs.CASE_INSENSITIVE else normalized


# -- Read rules -------------------------------------------------------------------------


def evaluate_read(path: str, rules: RuleSet, project_dir: str, cwd: str = "") -> PolicyVerdict:
    """Deny / ask / allow for reading `path` (tried as given, resolved against `cwd` or
    else the project, and as its realpath), or no opinion."""
    if not rules.has_tool("Read") or not isinstance(path, str) or not path:
        return NO_OPINION
    candidates = globs.candidates(path, cwd or project_dir)
    roots = globs.roots(project_dir)
    for action in (DENY, ASK):
        for rule in rules.select("Read", action):
            if rule.pattern is None or _read_matches(rule, candidates, roots):
                return _verdict(rule, path, "file path", read=True)
    for rule in rules.select("Read", ALLOW):
        if rule.pattern is None or _read_matches(rule, candidates[-1:], roots, anchored=True):
            return PolicyVerdict(ALLOW, rule.text, path, "allowed by the permission rules")
    return NO_OPINION


def is_read_allowed_outside_project(path: str, rules: RuleSet) -> bool:
    """Whether a `Read(...)` allow rule reopens `path` although it is outside the project
    (its realpath must match an anchored allow glob, and no Read deny or ask may match)."""
    verdict = evaluate_read(path, rules, rules.project_dir)
    return verdict.action == ALLOW


def _read_matches(
    rule: Rule, candidates: list[str], roots: list[str], anchored: bool = False
) -> bool:
    """Whether any candidate path matches the rule's glob (anchored variants only for allow)."""
    key = tuple(roots)
    if rule._globs is None or rule._globs[0] != key:
        rule._globs = (key, *globs.path_globs(rule.pattern or "", roots))
    _, loose, fixed = rule._globs
    tried = fixed if anchored else loose + fixed
    return any(globs.path_glob_match(g, candidate) for g in tried for candidate in candidates)


# -- reasons ----------------------------------------------------------------------------


def _verdict(rule: Rule, matched: str, subject: str, read: bool = False) -> PolicyVerdict:
    shown = rule.pattern if read and rule.pattern is not None else rule.text
    kind = "Read " if read else ""
    where = f" ({_home_short(rule.source)})" if rule.source else ""
    quoted = matched if len(matched) <= 200 else matched[:197] + "..."
    if rule.action == DENY:
        reason = (
            f"Blocked by security policy: {subject} matches {kind}deny pattern {shown}{where}:"
            f" {quoted!r}. The user's permission rules forbid this; do not retry it another way."
        )
    else:
        reason = (
            f"Security policy asks for confirmation: {subject} matches {kind}ask pattern"
            f" {shown}{where}: {quoted!r}."
        )
    return PolicyVerdict(rule.action, rule.text, matched, reason)


def _home_short(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home and path.startswith(home + os.sep) else path


# -- tool calls -------------------------------------------------------------------------


OWN_TOOLS = ("ctx_execute", "ctx_execute_file", "ctx_batch_execute")


def own_tool_name(tool: str) -> str:
    """`ctx_execute` for `ctx_execute`, `mcp__ctxmode__ctx_execute`, `MCP:ctx_execute`, ..."""
    leaf = tool[4:] if tool.startswith("MCP:") else tool
    leaf = leaf.rsplit("__", 1)[-1].rsplit("/", 1)[-1]
    return leaf if leaf in OWN_TOOLS else tool


def evaluate_with_rules(
    tool: str, tool_input: dict, rules: RuleSet, cwd: str = ""
) -> PolicyVerdict:
    """`evaluate_tool_call` over already-loaded rules (pure apart from path resolution).
    Our own tools resolve relative paths against the project root, the host's Read
    against `cwd` (default: the project root)."""
    if not rules.rules:
        return NO_OPINION
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    if tool == "Bash":
        return evaluate_bash(_first_string(tool_input, ("command", "cmd", "CommandLine")), rules)
    if tool == "Read":
        path = _first_string(tool_input, ("file_path", "path", "AbsolutePath", "FilePath"))
        return evaluate_read(path, rules, rules.project_dir, cwd)
    name = own_tool_name(tool)
    if name not in OWN_TOOLS:
        return _bare_rule_verdict(tool, rules)
    verdict = _bare_rule_verdict(name, rules)
    if verdict.action in (DENY, ASK):
        return verdict
    if name == "ctx_batch_execute":
        return _evaluate_batch(tool_input.get("commands"), rules)
    if name == "ctx_execute_file":
        path = _first_string(tool_input, ("path", "file_path"))
        verdict = evaluate_read(path, rules, rules.project_dir) if path else NO_OPINION
        if verdict.action in (DENY, ASK):
            return verdict
    return evaluate_code(
        _first_string(tool_input, ("language",)), _first_string(tool_input, ("code",)), rules
    )


def evaluate_code(language: str, code: str, rules: RuleSet) -> PolicyVerdict:
    """Shell code: every command in it. Other languages: the shell strings they visibly run
    (`extract_shell_strings`, a best-effort scan), and "ask" when they build the program or
    shell string they run at run time (`runtime_built`) while deny or ask rules exist.
    Only deny and ask are reported."""
    if not code or not rules.has_tool("Bash"):
        return NO_OPINION
    if language.lower() in SHELL_LANGUAGES:
        verdict = evaluate_bash(code, rules, subject="shell code")
        return verdict if verdict.action in (DENY, ASK) else NO_OPINION
    subject = f"{language or 'the'} code running a command"
    if len(code) > INLINE_CODE_CHARS:
        return _too_big(rules, subject)
    from ctxmode.policy.inline_code import extract_shell_strings, runtime_built  # use `re`

    deadline = shell_clock() + TIME_BUDGET
    for script in extract_shell_strings(language.lower(), code):
        verdict = evaluate_bash(script, rules, subject, deadline)
        if verdict.action in (DENY, ASK):
            return verdict
    built = runtime_built(language.lower(), code)
    if built is not None and (rules.select("Bash", DENY) or rules.select("Bash", ASK)):
        return PolicyVerdict(ASK, "", built, _built_reason(language, built))
    return NO_OPINION


def _built_reason(language: str, built: str) -> str:
    return (
        f"Security policy asks for confirmation: the {language or 'submitted'} code names the"
        f" program or shell command it runs only at run time ({built!r}); your permission"
        " rules can't be checked against it."
    )


def _too_big(rules: RuleSet, subject: str) -> PolicyVerdict:
    """Ask when deny or ask rules exist and `subject` is beyond the analysis budget."""
    if not (rules.select("Bash", DENY) or rules.select("Bash", ASK)):
        return NO_OPINION
    return PolicyVerdict(ASK, "", "", _over_budget_reason(subject))


def _evaluate_batch(commands: object, rules: RuleSet) -> PolicyVerdict:
    if not isinstance(commands, list):
        return NO_OPINION
    first_ask = NO_OPINION
    deadline = shell_clock() + TIME_BUDGET  # the whole batch shares one analysis budget
    for entry in commands:
        command = entry.get("command") if isinstance(entry, dict) else entry
        if not isinstance(command, str):
            continue
        label = entry.get("label") if isinstance(entry, dict) else None
        name = label if isinstance(label, str) and label else command
        verdict = evaluate_bash(command, rules, f"batch command {name!r}", deadline)
        if verdict.action == DENY:
            return verdict
        if verdict.action == ASK and first_ask.action is None:
            first_ask = verdict
    return first_ask


def _bare_rule_verdict(tool: str, rules: RuleSet) -> PolicyVerdict:
    """A bare deny/ask rule naming this tool (`WebFetch`, `mcp__x__ctx_execute`, ...)."""
    for action in (DENY, ASK):
        for rule in rules.rules:
            if rule.action != action or rule.pattern is not None:
                continue
            if rule.tool == tool or (tool in OWN_TOOLS and own_tool_name(rule.tool) == tool):
                return _verdict(rule, tool, "the tool")
    return NO_OPINION


def _first_string(data: dict, keys: tuple[str, ...]) -> str:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str):
            return value
    return ""
