"""The user's permission rules read from their settings files, and the verdict type the
rule engine (`ctxmode.policy.permissions`) answers with.

Split from the engine because every shell call on the hook path asks for the rules, and
most users have none for that tool: then neither the engine nor its glob matcher loads
(`evaluate_tool_call` imports the engine only once some rule was read). Standard
library only; `_json` parses a settings file when one exists.
"""

from __future__ import annotations

import os

from ctxmode import fastjson, paths, settings
from ctxmode.errors import CtxmodeError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the engine and its parts load only when rules exist
    from ctxmode.policy import globs
    from ctxmode.policy.meaning import Meaning

DENY, ASK, ALLOW = "deny", "ask", "allow"
LOG_NAME = "policy.log"


# (whole-command glob, `prefix` of a `prefix:rest` pattern or None, `rest` or "")
BashPattern = tuple[str, str | None, str]


class Rule:
    """One permission rule: `action` (deny/ask/allow), `tool`, and `pattern` (None = bare)."""

    __slots__ = ("_bash", "_globs", "_meaning", "action", "pattern", "source", "text", "tool")

    def __init__(self, action: str, tool: str, pattern: str | None, text: str, source: str = ""):
        self.action = action
        self.tool = tool
        self.pattern = pattern
        self.text = text  # as written in the settings file, e.g. "Bash(sudo:*)"
        self.source = source  # the settings file it came from
        # Compiled on first use: a Bash rule's (whole, prefix, rest) pattern, and a path
        # rule's (roots, loose, anchored) globs for the roots they were compiled against.
        self._bash: BashPattern | None = None
        self._globs: tuple[tuple[str, ...], list[globs.Tokens], list[globs.Tokens]] | None = None
        # The pattern's `policy.meaning`, read on first use (False: it has none).
        self._meaning: Meaning | bool | None = None

    def __repr__(self) -> str:
        return f"Rule({self.action!r}, {self.text!r})"


class RuleSet:
    """All rules that apply to one project, with the files read and the problems met."""

    __slots__ = ("errors", "project_dir", "rules", "sources")

    def __init__(
        self,
        rules: list[Rule] | None = None,
        project_dir: str = "",
        sources: list[str] | None = None,
        errors: list[str] | None = None,
    ) -> None:
        self.rules = rules if rules is not None else []
        self.project_dir = project_dir
        self.sources = sources if sources is not None else []  # files that had `permissions`
        self.errors = errors if errors is not None else []  # one line per unusable file

    def select(self, tool: str, action: str) -> list[Rule]:
        return [rule for rule in self.rules if rule.action == action and rule.tool == tool]

    def has_tool(self, tool: str) -> bool:
        return any(rule.tool == tool for rule in self.rules)

    def __repr__(self) -> str:
        return f"RuleSet({len(self.rules)} rules from {self.sources!r})"


class PolicyVerdict:
    """The policy's answer: `action` is deny / ask / allow, or None (no opinion)."""

    __slots__ = ("action", "matched_command", "reason", "rule")

    def __init__(
        self, action: str | None = None, rule: str = "", matched_command: str = "", reason: str = ""
    ) -> None:
        self.action = action
        self.rule = rule  # the matching rule as written, e.g. "Bash(sudo:*)"
        self.matched_command = matched_command  # the command or path it matched
        self.reason = reason  # one or two sentences for the model

    def __repr__(self) -> str:
        return (
            f"PolicyVerdict({self.action!r}, rule={self.rule!r}, matched={self.matched_command!r})"
        )


NO_OPINION = PolicyVerdict()


# -- settings files ---------------------------------------------------------------------

SETTINGS_NAMES = ("settings.local.json", "settings.json")
VCS_MARKERS = (".git", ".hg", ".svn", ".jj", ".bzr")


class UnusableDirectory(CtxmodeError, ValueError):
    """A directory name no file system accepts (a NUL character in it)."""


def rules_root(start: str, host_dir: str = "") -> str:
    """The project whose settings apply to a call made from directory `start`: `host_dir`
    (the host's project-dir variable) when it is a directory, else the nearest ancestor of
    `start` holding `.claude/settings*.json` (the user's own `~/.claude` does not count),
    else the nearest version-control root, else `start` itself."""
    if "\0" in start or "\0" in host_dir:
        raise UnusableDirectory(f"directory name contains a NUL character: {start!r}")
    if host_dir and os.path.isdir(host_dir):
        return os.path.abspath(host_dir)
    if not start:
        return start
    user_claude = os.path.abspath(os.path.dirname(user_settings_file()))
    start = os.path.abspath(start)
    vcs_root = ""
    current = start
    while True:  # one stat per level once the version-control root is known
        claude = os.path.join(current, ".claude")
        if (
            claude != user_claude
            and os.path.isdir(claude)
            and any(os.path.isfile(os.path.join(claude, name)) for name in SETTINGS_NAMES)
        ):
            return current
        if not vcs_root and any(os.path.exists(os.path.join(current, m)) for m in VCS_MARKERS):
            vcs_root = current
        parent = os.path.dirname(current)
        if parent == current:
            return vcs_root or start
        current = parent


def settings_files(project_dir: str) -> list[str]:
    """The settings files consulted for a project, highest precedence first."""
    files = []
    if project_dir:
        claude = os.path.join(project_dir, ".claude")
        files += [os.path.join(claude, name) for name in SETTINGS_NAMES]
    return [*files, user_settings_file()]


def user_settings_file() -> str:
    base = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return os.path.join(os.path.expanduser(base), "settings.json")


def load_rules(project_dir: str, global_files: list[str] | None = None) -> RuleSet:
    """Rules from the project's settings files and the user's (or `global_files`, e.g. a
    host's own settings file). Missing files are skipped silently; unusable ones are
    skipped with a logged reason and listed in `RuleSet.errors`."""
    files = settings_files(project_dir)
    if global_files is not None:
        files = [*files[:-1], *global_files]
    ruleset = RuleSet(project_dir=project_dir)
    for path in files:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as error:
            _skip(ruleset, path, f"unreadable ({error.strerror or error})")
            continue
        rules, problem = rules_from_settings(data, path)
        if problem:
            _skip(ruleset, path, problem)
        if rules is not None:
            ruleset.sources.append(path)
            ruleset.rules.extend(rules)
    return ruleset


def _skip(ruleset: RuleSet, path: str, problem: str) -> None:
    line = f"{path}: {problem}"
    ruleset.errors.append(line)
    paths.append_log(LOG_NAME, f"settings skipped: {line}")


def rules_from_settings(data: bytes, source: str = "") -> tuple[list[Rule] | None, str]:
    """The rules in one settings file's bytes: (rules or None if it has no `permissions`,
    a problem description or "")."""
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    if not text.strip():
        return None, ""
    try:
        document = fastjson.loads(text)
    except ValueError as error:
        return None, f"malformed JSON ({error})"
    if not isinstance(document, dict):
        return None, "top level is not a JSON object"
    permissions = document.get("permissions")
    if permissions is None:
        return None, ""
    if not isinstance(permissions, dict):
        return None, '"permissions" is not an object'
    rules: list[Rule] = []
    problems: list[str] = []
    for action in (DENY, ASK, ALLOW):
        entries = permissions.get(action)
        if entries is None:
            continue
        if not isinstance(entries, list):
            problems.append(f'"permissions.{action}" is not a list')
            continue
        for entry in entries:
            rule = parse_rule(entry, action, source) if isinstance(entry, str) else None
            if rule is None:
                problems.append(f"ignored permissions.{action} entry {entry!r:.80}")
            else:
                rules.append(rule)
    return rules, "; ".join(problems)


def parse_rule(text: str, action: str, source: str = "") -> Rule | None:
    """`Tool(pattern)` or bare `Tool` -> Rule; None when it is not a rule."""
    text = text.strip()
    tool, pattern = text, None
    open_at = text.find("(")
    if open_at > 0 and text.endswith(")"):
        tool, pattern = text[:open_at].strip(), text[open_at + 1 : -1]
        if not pattern.strip():
            pattern = None
    if not tool or "(" in tool or ")" in tool or " " in tool:
        return None
    return Rule(action, tool, pattern, text, source)


# -- tool calls -------------------------------------------------------------------------


def require_security() -> bool:
    """Whether the user asked to fail closed (`CTXMODE_REQUIRE_SECURITY=1`)."""
    return settings.flag(settings.REQUIRE_SECURITY)


def fail_closed_reason(problem: str) -> str:
    return (
        f"Blocked: ctxmode could not evaluate the permission rules ({problem}) and"
        " CTXMODE_REQUIRE_SECURITY=1 (or CONTEXT_MODE_REQUIRE_SECURITY=1) requires them."
        " Fix the settings file, or unset that variable to let calls through unchecked."
    )


def evaluate_tool_call(
    tool: str,
    tool_input: dict,
    project_dir: str,
    global_files: list[str] | None = None,
    host_dir: str = "",
) -> PolicyVerdict:
    """The policy verdict for one tool call made from directory `project_dir`, with the
    rules of its project root (`rules_root(project_dir, host_dir)`) and `global_files`
    instead of the Claude user file when given (see `load_rules`). Relative Read paths
    are resolved against `project_dir`, where the host resolves them.

    Fail-open: if the rules cannot be loaded or evaluated the answer is "no opinion" (logged),
    unless CTXMODE_REQUIRE_SECURITY=1, which denies every call (any tool) until it is fixed.
    """
    try:
        rules = load_rules(rules_root(project_dir, host_dir), global_files)
        if rules.errors and require_security():
            return PolicyVerdict(DENY, reason=fail_closed_reason(rules.errors[0]))
        if not rules.rules:
            return NO_OPINION  # the common case: no rules, so the engine never loads
        from ctxmode.policy.permissions import evaluate_with_rules

        return evaluate_with_rules(tool, tool_input, rules, cwd=project_dir)
    except Exception as error:  # a policy bug must never break the host's tool call
        problem = f"{type(error).__name__}: {error}"
        paths.append_log(LOG_NAME, f"policy evaluation failed for {tool!r}: {problem}")
        if require_security():
            return PolicyVerdict(DENY, reason=fail_closed_reason(problem))
        return NO_OPINION
