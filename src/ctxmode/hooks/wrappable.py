"""Whether a shell command would do something else inside the wrapper than in the host's shell.

The wrapper runs the command text in a fresh `sh -c` child with the same cwd, environment,
stdin and process group, and gives back its output and exit code. What that cannot
carry over is left to the host's own shell (`why_not_wrapped` says why):

- state the host's shell keeps for the next call: `cd`, `export`, `source`, `alias`,
  a function or a bare assignment (some hosts keep one shell session for all calls);
- names the host's shell resolves but a fresh one may not: aliases and functions (a
  program found neither on PATH nor among the builtins that mean the same anywhere);
- background jobs and daemons (`&`, `nohup`, `setsid`, `disown`): they belong to the
  host's shell, and their output is not part of the call;
- interactive programs, and commands that never end (servers, watchers, `tail -f`): their
  output is meant to be seen while they run, not after.

Standard library only, no `re`: this runs in the hook on every shell call.
"""

from __future__ import annotations

import os

from ctxmode.policy.shell import Command, ShellScan

# Builtins whose meaning does not depend on the shell session they run in.
PLAIN_BUILTINS = frozenset((
    "echo", "printf", "test", "[", "true", "false", ":", "command", "type", "read", "pwd",
    "let", "wait", "kill", "getopts", "times", "exit", "break", "continue",
))  # fmt: skip
SESSION_STATE = frozenset((
    "cd", "pushd", "popd", "export", "unset", "source", ".", "alias", "unalias", "set",
    "shopt", "setopt", "unsetopt", "ulimit", "umask", "trap", "declare", "typeset", "local",
    "readonly", "eval", "exec", "hash", "enable", "builtin", "shift", "jobs", "fg", "bg",
    "disown", "nvm", "conda", "pyenv", "rbenv", "workon", "deactivate", "activate", "direnv",
    "asdf", "sdk", "chruby", "rvm",
))  # fmt: skip
CWD_CHANGES = frozenset(("cd", "pushd", "popd"))  # every host keeps the shell's directory
DETACHERS = frozenset(("nohup", "setsid", "disown", "daemonize", "start-stop-daemon"))
INTERACTIVE = frozenset((
    "vi", "vim", "nvim", "nano", "emacs", "pico", "top", "htop", "btop", "watch", "ssh",
    "man", "tmux", "screen", "fzf", "ipython", "bpython", "mysql", "psql",
    "sqlite3", "redis-cli", "mongo", "mongosh", "irb", "pry", "ghci", "telnet", "ftp",
))  # fmt: skip
REPLS = frozenset(("python", "python3", "node", "bash", "sh", "zsh", "dash", "ruby", "perl"))
SERVERS = frozenset((
    "uvicorn", "gunicorn", "hypercorn", "daphne", "nodemon", "http-server", "live-server",
    "serve", "ngrok", "mailhog", "redis-server", "mongod", "postgres", "nginx", "caddy",
))  # fmt: skip
# Subcommands and package scripts that start something meant to keep running.
LONG_RUNNING_WORDS = frozenset((
    "dev", "serve", "server", "runserver", "start", "watch", "preview", "develop", "up",
    "attach", "console", "shell", "repl",
))  # fmt: skip
TASK_RUNNERS = frozenset(("npm", "pnpm", "yarn", "bun", "make", "just", "task", "php"))


def _words(command: Command) -> list[str]:
    return [word for word in command.argv[1:] if not word.startswith("-")]


def _entry_word(name: str, words: list[str]) -> str:
    """The script or target a runner starts (`npm run dev` -> dev, `manage.py runserver`)."""
    if name in ("npm", "pnpm", "yarn", "bun"):
        words = words[1:] if words[:1] in (["run"], ["run-script"]) else words
    elif name.startswith("python") or name == "php":
        words = words[1:] if words[:1] in (["manage.py"], ["artisan"]) else []
    return words[0].split(":")[0] if words else ""


def _never_ends(command: Command) -> bool:
    name, args = command.program, list(command.argv[1:])
    words = _words(command)
    if name in SERVERS or "--watch" in args or "http.server" in args:
        return True
    if name in ("tail", "journalctl") or (words[:1] == ["logs"] or "logs" in words[1:2]):
        return any(arg in ("-f", "-F", "--follow") for arg in args)
    if name in ("docker", "podman", "docker-compose") and "up" in words[:2]:
        return not any(arg in ("-d", "--detach", "--wait") for arg in args)
    if name in ("docker", "podman") and words[:1] == ["run"]:
        return not any(arg in ("-d", "--detach") for arg in args)
    if name in ("flask", "vite", "next", "nuxt", "astro", "ng", "rails"):
        return not words or words[0] in LONG_RUNNING_WORDS or words[0] == "s"
    if name in TASK_RUNNERS or name.startswith("python"):
        return _entry_word(name, words) in LONG_RUNNING_WORDS
    return False


def _interactive(command: Command) -> bool:
    name, args = command.program, list(command.argv[1:])
    if name in INTERACTIVE:
        return True
    if name in REPLS or name.startswith("python"):
        return not args  # a bare interpreter reads its program from a terminal
    if name == "git" and args:
        sub = args[0]
        if sub == "commit":  # without a message it opens an editor
            given = ("-m", "-F", "--message", "--file", "-C", "--no-edit", "--fixup")
            return not any(arg.startswith(given) for arg in args)
        return sub in ("rebase", "add", "checkout", "reset", "stash") and any(
            arg in ("-i", "--interactive", "-p", "--patch") for arg in args
        )
    return False


def resolvable(name: str, cwd: str, path: str | None = None) -> bool:
    """Would a fresh shell find the program `name` (a path, or a file on PATH)?"""
    if "/" in name:
        return os.access(name if os.path.isabs(name) else os.path.join(cwd, name), os.X_OK)
    if name in PLAIN_BUILTINS:
        return True
    search = os.environ.get("PATH", "") if path is None else path
    return any(
        directory and os.access(os.path.join(directory, name), os.X_OK)
        for directory in search.split(os.pathsep)
    )


def _part_reason(command: Command, cwd: str, check_names: bool) -> str | None:
    if command.op == "&":
        return "a background job"
    first = command.words[0] if command.words else ""
    if command.program in CWD_CHANGES or (
        check_names and (command.program in SESSION_STATE or first in SESSION_STATE)
    ):
        return "it changes the shell session"
    if os.path.basename(first) in DETACHERS or command.program in DETACHERS:
        return "it starts a daemon"
    if _interactive(command):
        return "an interactive program"
    if _never_ends(command):
        return "it keeps running"
    if not check_names:
        return None
    if command.computed or not resolvable(command.argv[0] if command.argv else "", cwd):
        return "an alias, a function or a name decided at run time"
    return None


STATEMENT_ENDS = ";&|\n"


def _bare_assignment(command: str, name: str) -> bool:
    """Does `name=value` stand alone as a statement (it outlives the statement), rather than
    prefix a command (`FOO=1 pytest`: for that command only)? Unquoted values only."""
    at = command.find(name + "=")
    while at != -1:
        before = command[:at].rstrip(" \t")
        if not before or before[-1] in STATEMENT_ENDS + "({":
            end = at + len(name) + 1
            while end < len(command) and command[end] not in " \t" + STATEMENT_ENDS:
                end += 1
            rest = command[end:].lstrip(" \t")
            if not rest or rest[0] in STATEMENT_ENDS:
                return True
        at = command.find(name + "=", at + 1)
    return False


def why_not_wrapped(
    command: str, found: ShellScan, cwd: str, *, check_names: bool = True
) -> str | None:
    """Why `command` (scanned as `found`) must run in the host's own shell, or None.

    `check_names=False` skips the PATH lookup of each program and lets variables set by
    `export` or `source` end with the call: for a command predicted to print a lot, the
    wrapper's benefit is worth the rare alias of that name, and most hosts start each
    call in a fresh shell anyway.
    """
    if found.over_budget:
        return "too long to read"
    if "()" in command or "function " in command:
        return "it defines a function"
    top = [part for part in found.commands if not part.depth]
    if not top:
        return "nothing runs but assignments"
    if check_names and any(_bare_assignment(command, name) for name in found.env):
        return "it sets shell variables for later commands"
    for part in top:
        reason = _part_reason(part, cwd, check_names)
        if reason:
            return reason
    return None


# Programs that only read, whatever their arguments (no option of theirs writes a file or
# runs another program): a host that runs such a command without asking would ask for the
# wrapped one, which it cannot judge.
READ_ONLY = frozenset((
    "cat", "head", "tail", "wc", "uniq", "grep", "egrep", "fgrep", "ls", "tree", "du", "df",
    "file", "stat", "diff", "cmp", "nl", "cut", "tr", "column", "echo", "printf", "pwd",
    "which", "type", "date", "basename", "dirname", "realpath", "readlink", "seq", "true",
    "false", "test", "[", "id", "whoami", "hostname", "uname", "env", "printenv",
))  # fmt: skip
GIT_READ_ONLY = frozenset((
    "status", "log", "diff", "show", "blame", "grep", "ls-files", "rev-parse", "describe",
    "shortlog", "cat-file", "ls-tree",
))  # fmt: skip
FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls", "-fprintf")


def _reads_only(command: Command) -> bool:
    name, args = command.program, list(command.argv[1:])
    if command.computed or any(
        not r.startswith(("2>", "<")) and r != "2>&1" for r in command.redirects
    ):
        return False
    if name in READ_ONLY:
        return name != "env" or not args
    if name == "sort":
        return not any(arg.startswith(("-o", "--output")) for arg in args)
    if name == "rg":
        return not any(arg.startswith("--pre") for arg in args)
    if name == "find":
        return not any(arg.startswith(FIND_ACTIONS) for arg in args)
    if name == "git":
        return bool(args) and args[0] in GIT_READ_ONLY and "--output" not in " ".join(args)
    return False


def reads_only(found: ShellScan) -> bool:
    """Does every command `found` holds (substitutions included) only read?"""
    return (
        not found.over_budget
        and bool(found.commands)
        and all(_reads_only(command) for command in found.commands)
    )
