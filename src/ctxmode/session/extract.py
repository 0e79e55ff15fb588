"""Events from one tool call (PostToolUse): pure functions over the call's plain data.

`tool_events(call)` returns what the call tells us about the session: files read and
changed, instruction files, tasks, plans, git, environment, errors, subagents, skills,
MCP use, answered questions, external references, slow tools and redirects. A failing
command yields exactly one error event. Hot path: only our own small modules.
"""

from __future__ import annotations

from ctxmode.policy.shell import scan
from ctxmode.session import tooltext
from ctxmode.session.model import CRITICAL, HIGH, LOW, NORMAL, Captured, one_line

EDIT_TOOLS = frozenset(
    ("Edit", "MultiEdit", "NotebookEdit", "replace", "edit_file", "str_replace_editor",
     "str_replace_based_edit_tool", "search_replace", "insert_edit_into_file", "replace_string_in_file", "StrReplaceFile",
     "multi_replace_string_in_file")
)  # fmt: skip
WRITE_TOOLS = frozenset(("Write", "create_file", "create", "write_to_file", "WriteFile"))
TASK_LIST_TOOLS = frozenset(
    ("TodoWrite", "write_todos", "update_plan", "manage_todo_list", "SetTodoList", "update_todo")
)
AGENT_TOOLS = frozenset(("Agent", "Task", "runSubagent", "task"))
INSTRUCTION_FILES = frozenset(
    ("claude.md", "agents.md", "agents.override.md", "gemini.md", "qwen.md", "kiro.md",
     "kimi.md", "copilot-instructions.md", "context-mode.mdc", ".cursorrules")
)  # fmt: skip
SLOW_TOOL_MS = 5_000
GIT_OPS = {
    "commit": "commit", "checkout": "branch", "switch": "branch", "branch": "branch",
    "merge": "merge", "rebase": "rebase", "push": "push", "pull": "pull", "reset": "reset",
    "revert": "revert", "cherry-pick": "cherry-pick", "stash": "stash", "tag": "tag",
    "clone": "clone", "init": "init", "worktree": "worktree", "restore": "restore",
    "fetch": "fetch", "am": "am", "apply": "apply",
}  # fmt: skip
GIT_VALUE_FLAGS = frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace"))
ENV_TOOLS = {
    "nvm": ("use", "install", "alias"), "pyenv": ("local", "global", "shell", "install"),
    "rbenv": ("local", "global", "shell", "install"), "asdf": ("local", "global", "install"),
    "volta": ("install", "pin"), "rustup": ("default", "override", "toolchain"),
    "conda": ("activate", "install", "create"), "mamba": ("activate", "install", "create"),
    "pip": ("install", "uninstall"), "pip3": ("install", "uninstall"),
    "uv": ("add", "remove", "pip", "venv", "sync"), "poetry": ("add", "remove", "install"),
    "npm": ("install", "i", "uninstall", "add"), "yarn": ("add", "remove", "install"),
    "pnpm": ("add", "remove", "install", "i"), "bun": ("add", "remove", "install", "i"),
    "cargo": ("add", "remove", "install"), "go": ("get", "install"), "deno": ("add", "install"),
    "gem": ("install",), "brew": ("install", "uninstall"), "apt-get": ("install", "remove"),
    "apt": ("install", "remove"),
}  # fmt: skip
REDIRECT_MARKERS = ("ctx_execute", "ctx_fetch_and_index", "ctx_batch_execute", "ctx_search")


class ToolCall:
    """The parts of a PostToolUse event that extraction reads (plain data, host-free)."""

    __slots__ = ("output", "project_dir", "raw", "tool", "tool_input")

    def __init__(
        self,
        tool: str,
        tool_input: dict,
        output: object,
        project_dir: str = "",
        raw: dict | None = None,
    ) -> None:
        self.tool = tool
        self.tool_input = tool_input if isinstance(tool_input, dict) else {}
        self.output = output
        self.project_dir = project_dir
        self.raw = raw if raw is not None else {}


# ------------------------------------------------------------------ helpers


def text_arg(tool_input: dict, *names: str) -> str:
    for name in names:
        value = tool_input.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def rel_path(path: str, project_dir: str) -> str:
    """`path` relative to the project when inside it (shorter, and stable across machines)."""
    if project_dir and path.startswith(project_dir.rstrip("/") + "/"):
        return path[len(project_dir.rstrip("/")) + 1 :]
    return path


def basename(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def is_instruction_file(path: str) -> bool:
    norm = path.replace("\\", "/")
    name = basename(norm).lower()
    if name in INSTRUCTION_FILES:
        return True
    if "/.claude/" in norm and name.endswith(".md") and "/plans/" not in norm:
        return True
    return name.endswith(".md") and ("/memory/" in norm or "/memories/" in norm)


# ------------------------------------------------------------------ errors


def error_line(text: str) -> str:
    """The most telling error line of a command's output, or "" when it did not fail."""
    traceback_tail = ""
    in_traceback = False
    found = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("Traceback (most recent call last)"):
            in_traceback = True
            continue
        if in_traceback and not line[:1].isspace():
            traceback_tail, in_traceback = stripped, False
            continue
        if not found and _is_error_line(stripped):
            found = stripped
    return found or traceback_tail


def _is_error_line(line: str) -> bool:
    lower = line.lower()
    if lower.startswith(("failed ", "fail ", "fail\t", "--- fail:", "npm err!", "npm error")):
        return True
    if lower.startswith(("error:", "error[", "fatal:", "error ", "panic:", "make: ***")):
        return True
    if lower.startswith(("exit code ", "exit status ")):
        code = lower.split()[2:3]
        return bool(code) and code[0].rstrip(":.") not in ("0", "")
    if ": error:" in lower or ": error ts" in lower or "command not found" in lower:
        return True
    return _failed_count(lower) > 0


def _failed_count(lower: str) -> int:
    """N of a test summary's "N failed" (pytest, jest, vitest, cargo), else 0."""
    at = lower.find(" failed")
    while at > 0:
        words = lower[:at].replace(",", " ").split()
        if words and words[-1].isdigit():
            return int(words[-1])
        at = lower.find(" failed", at + 1)
    return 0


def call_failed(call: ToolCall, text: str) -> str:
    """The error summary of a failed call ("" if it succeeded)."""
    if tooltext.flagged_error(call.output, call.raw):
        return error_line(text) or one_line(text, 200) or "failed"
    if call.tool == "Bash":
        return error_line(text)
    lower = text[:400].lower()
    if lower.startswith(("error:", "<tool_use_error>", "error ")):
        return one_line(text, 200)
    return ""


# ------------------------------------------------------------------ shell commands


def git_events(argv: tuple[str, ...], output: str) -> list[Captured]:
    args = argv[1:]
    i = 0
    while i < len(args) and args[i].startswith("-"):  # git -C dir --no-pager commit ...
        i += 2 if args[i] in GIT_VALUE_FLAGS else 1
    if i >= len(args):
        return []
    sub, rest = args[i], args[i + 1 :]
    op = GIT_OPS.get(sub)
    if op is None:
        return []
    if op == "commit":
        message = _flag_value(rest, ("-m", "--message"))
        return [
            Captured(
                "git",
                "git_commit",
                HIGH,
                f"commit: {one_line(message, 200)}" if message else "commit",
            )
        ]
    if op == "branch":
        target = _branch_target(sub, rest)
        if target:
            return [Captured("git", "git_branch", HIGH, f"branch: {target}")]
        return []
    detail = " ".join(w for w in rest if not w.startswith("-"))[:120]
    return [Captured("git", "git", NORMAL, f"{op} {detail}".strip())]


def _flag_value(args: tuple[str, ...], flags: tuple[str, ...]) -> str:
    for j, arg in enumerate(args):
        if arg in flags and j + 1 < len(args):
            return args[j + 1]
        for flag in flags:
            if flag.startswith("--") and arg.startswith(flag + "="):
                return arg[len(flag) + 1 :]
        if "-m" in flags and arg[:1] == "-" and arg[1:2] != "-":
            if arg.startswith("-m") and len(arg) > 2:
                return arg[2:]  # -m"message"
            if arg.endswith("m") and j + 1 < len(args):
                return args[j + 1]  # -am "message"
    return ""


def _branch_target(sub: str, rest: tuple[str, ...]) -> str:
    plain = [w for w in rest if not w.startswith("-")]
    if sub == "branch":  # `git branch x` creates, `git branch` lists: only -m/-c renames count
        return ""
    if sub in ("checkout", "switch") and plain and "--" not in rest:
        if sub == "checkout" and ("." in plain or any("/" in w and "." in w for w in plain)):
            return ""  # `git checkout -- file` / `git checkout src/x.py`: a restore
        return plain[-1] if any(w in ("-b", "-B", "-c", "-C") for w in rest) else plain[0]
    return ""


def branch_from_output(text: str) -> str:
    """The current branch as git reports it ("On branch x", "Switched to branch 'x'")."""
    for line in text.splitlines()[:30]:
        line = line.strip()
        if line.startswith("On branch "):
            return line[10:].strip()
        for lead in ("Switched to a new branch '", "Switched to branch '"):
            if line.startswith(lead):
                return line[len(lead) :].rstrip("'")
    return ""


def env_event(prog: str, argv: tuple[str, ...]) -> Captured | None:
    words = list(argv)
    if prog == "export" and len(words) > 1:
        names = [w.split("=", 1)[0] for w in words[1:] if "=" in w]
        return (
            Captured("env", "env", NORMAL, "export " + " ".join(f"{n}=***" for n in names))
            if names
            else None
        )
    if prog in ("source", ".") and len(words) > 1 and "activate" in words[1]:
        return Captured("env", "env", NORMAL, f"activate {words[1]}")
    if prog in ENV_TOOLS and len(words) > 1:
        sub = words[1]
        if sub in ENV_TOOLS[prog] or (prog in ("python", "python3") and sub == "-m"):
            return Captured("env", "env", NORMAL, one_line(" ".join(words), 160))
    if prog in ("python", "python3") and words[1:3] == ["-m", "venv"]:
        return Captured("env", "env", NORMAL, one_line(" ".join(words), 160))
    return None


def bash_events(call: ToolCall, text: str) -> list[Captured]:
    command = text_arg(call.tool_input, "command", "cmd")
    if not command:
        return []
    events: list[Captured] = []
    if command.lstrip().startswith("echo") and any(m in command for m in REDIRECT_MARKERS):
        return [
            Captured(
                "redirect", "bash_redirected", NORMAL, "shell command redirected to the sandbox"
            )
        ]
    saw_cd = False
    for run in scan(command).commands:
        prog, words = run.program, run.argv
        if prog == "cd" and not saw_cd and len(words) > 1:
            saw_cd = True
            events.append(Captured("cwd", "cwd", HIGH, f"cd {words[-1]}"))
        elif prog == "git":
            events.extend(git_events(words, text))
        elif prog == "apply_patch":
            events.extend(patch_events(command, call.project_dir))
        else:
            env = env_event(prog, words)
            if env is not None:
                events.append(env)
    branch = branch_from_output(text)
    if branch and not any(e.type == "git_branch" for e in events):
        events.append(Captured("git", "git_branch", HIGH, f"branch: {branch}"))
    return events


def patch_events(patch: str, project_dir: str) -> list[Captured]:
    """File events from an apply_patch envelope (`*** Update File: path`, ...)."""
    events = []
    for line in patch.splitlines():
        for lead, kind in (("*** Update File: ", "file_edit"), ("*** Add File: ", "file_write"),
                           ("*** Delete File: ", "file_edit"), ("*** Move to: ", "file_write")):  # fmt: skip
            if line.startswith(lead):
                path = rel_path(line[len(lead) :].strip(), project_dir)
                events.append(Captured("file", kind, CRITICAL, path))
    return events


# ------------------------------------------------------------------ other tools


def task_list_event(tool_input: dict) -> Captured | None:
    """The whole task list (TodoWrite, write_todos, update_plan) as `status<TAB>text` lines."""
    items = tool_input.get("todos") or tool_input.get("plan") or tool_input.get("todoList")
    if not isinstance(items, list):
        return None
    lines = []
    for item in items[:50]:
        if not isinstance(item, dict):
            continue
        text = text_arg(item, "content", "description", "step", "title", "subject")
        status = text_arg(item, "status") or "pending"
        if text:
            lines.append(f"{status.lower()}\t{one_line(text, 160)}")
    return Captured("task", "task_list", CRITICAL, "\n".join(lines)) if lines else None


def agent_events(call: ToolCall, text: str) -> list[Captured]:
    desc = text_arg(call.tool_input, "description", "prompt", "task")
    events = [Captured("subagent", "subagent_launched", NORMAL, one_line(desc, 200) or "subagent")]
    if text.strip():
        events.append(
            Captured(
                "subagent", "agent_finding", HIGH, f"{one_line(desc, 80)} → {one_line(text, 500)}"
            )
        )
    return events


def plan_events(call: ToolCall, text: str) -> list[Captured]:
    if call.tool == "EnterPlanMode":
        return [Captured("plan", "plan_enter", NORMAL, "entered plan mode")]
    plan = one_line(text_arg(call.tool_input, "plan"), 300)
    lower = text.lower()
    if "approved" in lower:
        return [Captured("plan", "plan_approved", CRITICAL, f"approved: {plan}")]
    if "reject" in lower or "doesn't want" in lower or "does not want" in lower:
        return [Captured("plan", "plan_rejected", NORMAL, f"rejected: {plan}")]
    return [Captured("plan", "plan_exit", NORMAL, plan or "left plan mode")]


def question_event(call: ToolCall, text: str) -> Captured:
    questions = call.tool_input.get("questions")
    asked = []
    if isinstance(questions, list):
        asked = [text_arg(q, "question", "header") for q in questions if isinstance(q, dict)]
    asked_text = "; ".join(a for a in asked if a) or text_arg(call.tool_input, "question")
    return Captured(
        "question",
        "question_answered",
        HIGH,
        f"Q: {one_line(asked_text, 150)} → A: {one_line(text, 200)}",
    )


def mcp_event(tool: str, tool_input: dict) -> Captured:
    first = next((v for v in tool_input.values() if isinstance(v, str) and v), "")
    if any(tool.endswith(own) for own in ("ctx_search", "ctx_execute", "ctx_execute_file",
                                          "ctx_batch_execute", "ctx_index", "ctx_fetch_and_index",
                                          "ctx_stats", "ctx_doctor", "ctx_purge", "ctx_insight")):  # fmt: skip
        return Captured("mcp", "mcp_tool_call", LOW, f"{tool}: {one_line(first, 100)}")
    return Captured("mcp", "mcp", NORMAL, f"{tool}: {one_line(first, 100)}")


def urls_in(text: str, limit: int = 5) -> list[str]:
    found: list[str] = []
    start = 0
    while len(found) < limit:
        at = text.find("http", start)
        if at < 0:
            break
        start = at + 4
        if not text.startswith(("http://", "https://"), at):
            continue
        url = text[at:].split(None, 1)[0].rstrip(").,;'\">]`")
        host = url.split("://", 1)[1].split("/", 1)[0]
        if host.split(":")[0] in ("localhost", "127.0.0.1", "0.0.0.0") or url in found:
            continue
        found.append(url[:300])
    return found


# ------------------------------------------------------------------ per tool


def file_events(call: ToolCall, text: str, failed: bool) -> list[Captured]:
    """Reads (instruction files become rules), edits and writes; a failed change is no change."""
    raw_path = text_arg(
        call.tool_input, "file_path", "path", "filePath", "notebook_path", "absolute_path"
    )
    if not raw_path:
        return []
    path = rel_path(raw_path, call.project_dir)
    if call.tool == "Read":
        if not is_instruction_file(raw_path):
            return [Captured("file", "file_read", NORMAL, path)]
        events = [Captured("rule", "rule", CRITICAL, path)]
        if text.strip() and not failed:
            events.append(Captured("rule", "rule_content", LOW, f"{path}\n{text[:1800]}"))
        return events
    if failed:
        return []
    if call.tool in EDIT_TOOLS:
        return [Captured("file", "file_edit", CRITICAL, path)]
    if "/plans/" in raw_path.replace("\\", "/"):
        return [Captured("plan", "plan_file", NORMAL, path)]
    return [Captured("file", "file_write", CRITICAL, path)]


def shell_events(call: ToolCall, text: str) -> list[Captured]:
    events = bash_events(call, text)
    for url in urls_in(text_arg(call.tool_input, "command"), 3):
        events.append(Captured("external-ref", "external_ref", LOW, url))
    return events


def task_events(call: ToolCall, text: str) -> list[Captured]:
    tool_input = call.tool_input
    if call.tool == "TaskCreate":
        subject = one_line(text_arg(tool_input, "subject", "description", "title"), 160)
        return [Captured("task", "task_create", CRITICAL, f"{_task_id(text)}\t{subject}")]
    if call.tool == "TaskUpdate":
        task_id = str(tool_input.get("taskId") or tool_input.get("id") or "")
        status = (text_arg(tool_input, "status") or "updated").lower()
        subject = text_arg(tool_input, "subject")
        return [Captured("task", "task_update", CRITICAL, f"{task_id}\t{status}\t{subject}")]
    task = task_list_event(tool_input)
    return [task] if task is not None else []


def simple_events(call: ToolCall, text: str) -> list[Captured]:
    """Tools whose event is one line of their input."""
    tool, tool_input = call.tool, call.tool_input
    if tool == "Glob":
        return [Captured("file", "file_glob", LOW, text_arg(tool_input, "pattern"))]
    if tool == "Grep":
        where = text_arg(tool_input, "path", "dir_path", "include") or "."
        return [
            Captured(
                "file", "file_search", LOW, f"{text_arg(tool_input, 'pattern', 'query')} in {where}"
            )
        ]
    if tool == "Skill":
        return [
            Captured(
                "skill",
                "skill",
                NORMAL,
                text_arg(tool_input, "skill", "name", "command") or "skill",
            )
        ]
    if tool in ("EnterWorktree", "ExitWorktree"):
        return [
            Captured(
                "env", "worktree", NORMAL, f"{tool} {text_arg(tool_input, 'path', 'name')}".strip()
            )
        ]
    target = text_arg(tool_input, "url", "query")  # WebFetch, WebSearch
    return [Captured("external-ref", "external_ref", LOW, target[:300])] if target else []


TOOL_HANDLERS = {
    "Bash": shell_events,
    "apply_patch": lambda call, text: patch_events(text_arg(call.tool_input, "input", "patch", "command"), call.project_dir),
    "TaskCreate": task_events,
    "TaskUpdate": task_events,
    **dict.fromkeys(TASK_LIST_TOOLS, task_events),
    **dict.fromkeys(AGENT_TOOLS, agent_events),
    "EnterPlanMode": plan_events,
    "ExitPlanMode": plan_events,
    "AskUserQuestion": lambda call, text: [question_event(call, text)],
    **dict.fromkeys(("Glob", "Grep", "Skill", "EnterWorktree", "ExitWorktree", "WebFetch", "WebSearch"), simple_events),
}  # fmt: skip


def is_mcp_tool(tool: str) -> bool:
    return tool.startswith(("mcp__", "mcp_", "MCP:", "@")) or "ctx_" in tool


# ------------------------------------------------------------------ entry point


def tool_events(call: ToolCall) -> list[Captured]:
    """Everything one tool call tells us, its error first (at most one per call)."""
    text = tooltext.output_text(call.output)
    failure = call_failed(call, text)
    events: list[Captured] = []
    if failure:
        summary = f"{describe(call)} → {one_line(failure, 240)}"
        events.append(Captured("error", "error_tool", CRITICAL, summary))
    tool = call.tool
    if tool == "Read" or tool in EDIT_TOOLS or tool in WRITE_TOOLS:
        events.extend(file_events(call, text, bool(failure)))
    elif tool in TOOL_HANDLERS:
        events.extend(TOOL_HANDLERS[tool](call, text))
    elif is_mcp_tool(tool):
        events.append(mcp_event(tool, call.tool_input))
    if not failure and _user_rejected(text):
        events.append(
            Captured("rejected", "rejected", HIGH, f"{describe(call)}: rejected by the user")
        )
    took = tooltext.duration_ms(call.output, call.raw)
    if took >= SLOW_TOOL_MS:
        events.append(
            Captured("latency", "tool_latency", LOW, f"{describe(call)} took {took / 1000:.1f}s")
        )
    return events


def describe(call: ToolCall) -> str:
    """A short name for the call: `$ command`, `Edit path`, `tool`."""
    if call.tool == "Bash":
        return "$ " + one_line(text_arg(call.tool_input, "command", "cmd"), 120)
    target = text_arg(call.tool_input, "file_path", "path", "url", "pattern", "query")
    return f"{call.tool} {rel_path(target, call.project_dir)}".strip()


def _task_id(text: str) -> str:
    at = text.find("#")
    if at >= 0:
        digits = ""
        for char in text[at + 1 : at + 12]:
            if not char.isdigit():
                break
            digits += char
        return digits
    return ""


def _user_rejected(text: str) -> bool:
    head = text[:300].lower()
    return "user doesn't want to proceed" in head or "the user rejected" in head
