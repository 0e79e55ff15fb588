"""Config-file edits for the host installers: merge ours in, take ours out, clobber nothing.

An installer computes `Change`s (path, text before, text after) from the files as they
are; `ctxmode setup` prints or applies them. JSON is parsed and re-serialized; TOML is
edited as text (comments and layout kept) and re-parsed to prove the edit is sound.
A malformed file raises `InstallError` with a one-line message and is never written.
Off the hook path: imported only by installer functions.

Setup then uninstall leaves the machine as it was, by three rules kept here:
- Backups: setup keeps a file the user had as `<path>.ctxmode-backup` the first time
  it writes it (a later setup keeps that copy: it is what the user had before ctxmode).
  Uninstall writes none: when what it leaves equals the backup's content, it writes the
  backup's exact bytes back (the user's layout, not ours); after a successful uninstall
  the backups of its files are stale and deleted.
- Created paths: setup records in a ledger (in the data root) the directories and files
  it created. Uninstall removes a recorded directory once it is empty; a directory the
  user had stays, even when empty.
- Shared files: a user-level file that serves every project (`Change.shared`, set by
  the host module) is left alone by an uninstall for one project (`--project DIR`).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from collections.abc import Callable, Container
from dataclasses import dataclass

from ctxmode.errors import CtxmodeError
from ctxmode.vocab.toolnames import SERVER_NAME, runs_ctxmode

HOOK_MARKERS = ("ctxmode._hook", "ctxmode hook")
COMMAND_FIELDS = ("command", "bash", "powershell")
BACKUP_SUFFIX = ".ctxmode-backup"


class InstallError(CtxmodeError):
    """A config file we cannot merge safely; the message is one line."""


@dataclass
class Change:
    path: str
    before: str | None  # None: the file does not exist
    after: str | None  # None: delete the file
    owned: bool = False  # a file only ctxmode writes: no backup; its emptied directory goes too
    shared: bool = False  # user-level, serving every project: a project's uninstall keeps it
    # Uninstall: whether a backup with this text holds what `after` holds (then its
    # bytes are written instead). None: compare the texts.
    restores: Callable[[str], bool] | None = None

    @property
    def changed(self) -> bool:
        return self.before != self.after


# ------------------------------------------------------------------ ownership


def is_our_command(value: object) -> bool:
    return isinstance(value, str) and any(marker in value for marker in HOOK_MARKERS)


def is_our_server(entry: object) -> bool:
    """A `context-mode` server entry that runs ctxmode (not some other program by that name)."""
    return runs_ctxmode(entry)


def _flat_is_ours(entry: object) -> bool:
    return isinstance(entry, dict) and any(is_our_command(entry.get(f)) for f in COMMAND_FIELDS)


def _without_ours(entry: object) -> object | None:
    """`entry` minus our hooks: None if nothing else was in it; nested and flat shapes."""
    if _flat_is_ours(entry):
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
        return entry
    inner = entry["hooks"]
    kept = [hook for hook in inner if not _flat_is_ours(hook)]
    if len(kept) == len(inner):
        return entry
    return {**entry, "hooks": kept} if kept else None


# ------------------------------------------------------------ JSON documents


def hooks_table(document: dict, path: str, key: str = "hooks") -> dict:
    table = document.get(key)
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise InstallError(f"{path}: `{key}` is not a JSON object; fix it first, nothing changed")
    return dict(table)


def put_hooks(document: dict, path: str, entries: dict[str, dict], key: str = "hooks") -> None:
    """Set our entry per event (replacing earlier ones of ours) after everyone else's."""
    table = hooks_table(document, path, key)
    for event, entry in entries.items():
        current = table.get(event)
        if current is not None and not isinstance(current, list):
            raise InstallError(
                f"{path}: `{key}.{event}` is not a list; fix it first, nothing changed"
            )
        kept = [e for e in (_without_ours(e) for e in current or []) if e is not None]
        table[event] = [*kept, entry]
    document[key] = table


def drop_hooks(document: dict, path: str, key: str = "hooks") -> None:
    """Remove our entries from every event; an event (or the table) we emptied goes too."""
    if key not in document:
        return
    table = hooks_table(document, path, key)
    if not table:
        return  # the user's own empty table stays
    for event, current in list(table.items()):
        if not isinstance(current, list):
            continue
        kept = [e for e in (_without_ours(e) for e in current) if e is not None]
        if kept != current:
            if kept:
                table[event] = kept
            else:
                del table[event]
    if table:
        document[key] = table
    else:
        del document[key]


def put_server(document: dict, path: str, entry: dict, key: str = "mcpServers") -> None:
    servers = document.get(key)
    if servers is not None and not isinstance(servers, dict):
        raise InstallError(f"{path}: `{key}` is not a JSON object; fix it first, nothing changed")
    document[key] = {**(servers or {}), SERVER_NAME: entry}


def drop_server(document: dict, path: str, key: str = "mcpServers") -> None:
    servers = document.get(key)
    if isinstance(servers, dict) and is_our_server(servers.get(SERVER_NAME)):
        servers = {k: v for k, v in servers.items() if k != SERVER_NAME}
        if servers:
            document[key] = servers
        else:
            del document[key]


def read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise InstallError(f"{path}: cannot read ({error}); nothing changed") from None


def without_comments(text: str) -> str:
    """JSON-with-comments (VS Code, Zed settings) as JSON: `//` and `/* */` comments and
    trailing commas outside strings removed (rewriting such a file drops its comments)."""
    out: list[str] = []
    i, quoted = 0, False
    while i < len(text):
        char = text[i]
        if quoted:
            out.append(text[i : i + 2] if char == "\\" else char)
            i += 2 if char == "\\" else 1
            quoted = char != '"'
            continue
        if text.startswith("//", i):
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        else:
            if char in "}]":
                while out and out[-1].isspace():
                    out.pop()
                if out and out[-1] == ",":
                    out.pop()
            out.append(char)
            quoted = char == '"'
            i += 1
    return "".join(out)


def parse_json(path: str, text: str | None) -> dict:
    if text is None or not text.strip():
        return {}
    try:
        try:
            document = json.loads(text.lstrip("\ufeff"))
        except ValueError:
            document = json.loads(without_comments(text.lstrip("\ufeff")))
    except ValueError as error:
        raise InstallError(
            f"{path} is not valid JSON ({error}); fix it first, nothing changed"
        ) from None
    if not isinstance(document, dict):
        raise InstallError(f"{path} does not hold a JSON object; fix it first, nothing changed")
    return document


def dump_json(document: dict) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def json_change(
    path: str,
    edit: Callable[[dict, str], None],
    *,
    delete_when: Callable[[dict], bool] | None = None,
    defaults: dict | None = None,
) -> Change:
    """The change `edit(document, path)` makes to the JSON file at `path` (created if absent).

    The file is left alone when the edit changes nothing; `delete_when(document)` says
    when the edited document is only an empty skeleton of a file we own (uninstall);
    `defaults` are top-level keys setup adds when missing, which the user's own file
    (the backup uninstall restores) may lack.
    """
    before = read_text(path)
    original = parse_json(path, before)
    document = copy.deepcopy(original)
    edit(document, path)
    if document == original:
        return Change(path, before, before)
    plain = {k: v for k, v in document.items() if (defaults or {}).get(k, ...) != v}
    restores = _holds(
        lambda text: _pruned(parse_json(path, text)), _pruned(document), _pruned(plain)
    )
    if (delete_when is not None and delete_when(document)) or not document:
        # Only our entries (or an empty skeleton of our file) left: no such file left behind.
        return Change(path, before, None, restores=restores)
    return Change(path, before, dump_json(document), restores=restores)


def _pruned(value: object) -> object:
    """`value` without empty objects and lists: a table our removal emptied and dropped
    still matches the user's empty one."""
    if isinstance(value, dict):
        pruned = {key: _pruned(item) for key, item in value.items()}
        return {key: item for key, item in pruned.items() if item not in ({}, [])}
    return value


def _holds(parse: Callable[[str], object], *contents: object) -> Callable[[str], bool]:
    """`Change.restores` for a structured file: the text parses to one of `contents`."""

    def restores(text: str) -> bool:
        try:
            return parse(text) in contents
        except InstallError:
            return False

    return restores


def only_keys(*keys: str) -> Callable[[dict], bool]:
    """`delete_when` for a file of ours: delete it when nothing but `keys` is left."""
    return lambda document: set(document) <= set(keys)


def shared(change: Change) -> Change:
    """`change`, marked as a user-level file every project's setup uses (see above)."""
    return dataclasses.replace(change, shared=True)


def nested(command: str, matcher: str | None) -> dict:
    """A Claude-shaped entry: `{matcher, hooks: [{type, command}]}` (no matcher: every tool)."""
    entry: dict = {} if matcher is None else {"matcher": matcher}
    entry["hooks"] = [{"type": "command", "command": command}]
    return entry


def install_json(
    hook_path: str,
    entries: dict[str, dict],
    mcp_path: str,
    server: dict,
    *,
    mcp_key: str = "mcpServers",
    defaults: dict | None = None,
) -> list[Change]:
    """Our hooks into `hook_path` and our server into `mcp_path` (which may be the same file).

    Every earlier entry of ours in the hooks table goes first, so an event we no longer
    register does not linger; `defaults` are top-level keys a new hooks file needs.
    """

    def add_hooks(document: dict, path: str) -> None:
        for key, value in (defaults or {}).items():
            document.setdefault(key, value)
        drop_hooks(document, path)
        put_hooks(document, path, entries)
        if mcp_path == hook_path:
            put_server(document, path, server, mcp_key)

    changes = [json_change(hook_path, add_hooks)]
    if mcp_path and mcp_path != hook_path:
        changes.append(json_change(mcp_path, lambda d, p: put_server(d, p, server, mcp_key)))
    return changes


def uninstall_json(
    hook_path: str,
    mcp_path: str,
    *,
    mcp_key: str = "mcpServers",
    delete_when: Callable[[dict], bool] | None = None,
    defaults: dict | None = None,
) -> list[Change]:
    """Our hooks and server out; `defaults`: what `install_json` got (a file left with
    only those is deleted)."""

    def remove(document: dict, path: str) -> None:
        drop_hooks(document, path)
        if mcp_path == hook_path:
            drop_server(document, path, mcp_key)

    if delete_when is None and defaults:
        delete_when = only_keys(*defaults)
    changes = [json_change(hook_path, remove, delete_when=delete_when, defaults=defaults)]
    if mcp_path and mcp_path != hook_path:
        changes.append(json_change(mcp_path, lambda d, p: drop_server(d, p, mcp_key)))
    return changes


# ------------------------------------------------------------- TOML documents


def toml_string(value: str) -> str:
    """A TOML basic string (JSON escapes are valid TOML escapes)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def parse_toml(path: str, text: str | None) -> dict:
    if text is None:
        return {}
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return tomllib.loads(text.lstrip("\ufeff"))
    except tomllib.TOMLDecodeError as error:
        raise InstallError(
            f"{path} is not valid TOML ({error}); fix it first, nothing changed"
        ) from None


def toml_sections(text: str) -> list[tuple[tuple[str, ...], bool, str]]:
    """The file split at table headers: (header key path, is array table, section text).

    The first section (before any header) has path (). A line counts as a header when
    it starts with `[` and parses on its own as a TOML table header.
    """
    sections: list[tuple[tuple[str, ...], bool, str]] = []
    path: tuple[str, ...] = ()
    array = False
    lines: list[str] = []
    for line in text.splitlines(keepends=True):
        header = _header(line)
        if header is not None:
            sections.append((path, array, "".join(lines)))
            (path, array), lines = header, []
        lines.append(line)
    sections.append((path, array, "".join(lines)))
    return sections


def _header(line: str) -> tuple[tuple[str, ...], bool] | None:
    stripped = line.strip()
    if not stripped.startswith("["):
        return None
    try:
        parsed = parse_toml("", stripped + "\n")
    except InstallError:
        return None
    path: list[str] = []
    node: object = parsed
    while isinstance(node, dict) and len(node) == 1:
        ((key, node),) = node.items()
        path.append(key)
        if isinstance(node, list):
            return tuple(path), True
    return (tuple(path), False) if node == {} else None


def section_body(section: str) -> dict:
    """The key/values of one section (its header line dropped); {} if it does not parse alone."""
    body = section.split("\n", 1)[1] if "\n" in section else ""
    try:
        return parse_toml("", body)
    except InstallError:
        return {}


def toml_change(
    path: str, edit: Callable[[str], str], foreign: Callable[[dict], dict] | None = None
) -> Change:
    """The change `edit(text)` makes to the TOML file at `path`.

    The result must parse, and `foreign(parsed)` (the document minus our entries) must be
    the same before and after: a text edit that touched anyone else's keys is refused.
    """
    before = read_text(path)
    original = parse_toml(path, before)
    after = edit(before or "")
    if after == (before or ""):
        return Change(path, before, before)
    if not after.strip():  # only our entries were in it: no empty file left behind
        return Change(path, before, None, restores=_holds(lambda text: parse_toml(path, text), {}))
    refusal = (
        f"{path}: cannot merge ctxmode's entries automatically (unusual layout); "
        "edit it by hand, nothing changed"
    )
    try:
        edited = parse_toml(path, after)
    except InstallError:
        raise InstallError(refusal) from None
    if foreign is not None and foreign(copy.deepcopy(edited)) != foreign(copy.deepcopy(original)):
        raise InstallError(refusal)
    return Change(path, before, after, restores=_holds(lambda text: parse_toml(path, text), edited))


def append_block(text: str, block: str) -> str:
    if text and not text.endswith("\n"):
        text += "\n"
    if text.strip():
        text = text.rstrip("\n") + "\n\n"
    return text + block


def drop_sections(text: str, unwanted: Callable[[tuple[str, ...], bool, dict], bool]) -> str:
    """`text` without the sections for which `unwanted(path, is_array, body)` is true."""
    kept = [
        section
        for path, array, section in toml_sections(text)
        if not path or not unwanted(path, array, section_body(section))
    ]
    result = "".join(kept)
    while "\n\n\n" in result:
        result = result.replace("\n\n\n", "\n\n")
    # No blank line left where a dropped last section was (append_block put it there).
    return result.rstrip("\n") + "\n" if result.strip() else ""


# --------------------------------------------------------------- file writes


def restoring(changes: list[Change]) -> list[Change]:
    """An uninstall plan, each file that would end up holding what its backup holds
    getting the backup's exact bytes instead (the user's own layout comes back)."""
    planned = []
    for change in changes:
        backup = None if change.owned else _read_exactly(change.path + BACKUP_SUFFIX)
        if backup is not None and change.changed:
            same = change.restores(backup) if change.restores else backup == change.after
            if same:
                change = dataclasses.replace(change, after=backup)
        planned.append(change)
    return planned


def _read_exactly(path: str) -> str | None:
    """The file's text with its line endings as they are (None: absent or unreadable)."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def apply(change: Change, *, uninstall: bool = False) -> None:
    """Write (or delete) atomically; setup backs up a user's file the first time it writes it."""
    if not change.changed:
        return
    path = os.path.abspath(change.path)
    mode = None if change.before is None else os.stat(path).st_mode & 0o777
    created = _created()
    if change.before is not None and not (change.owned or uninstall or path in created):
        backup = path + BACKUP_SUFFIX
        if not os.path.exists(backup):
            with open(path, "rb") as source, open(backup, "wb") as copied:
                copied.write(source.read())
    if change.after is None:
        if os.path.exists(path):
            os.remove(path)
        _forget_created(created, path, change.owned)
        return
    fresh = _missing_dirs(os.path.dirname(path))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8", newline="") as handle:
        handle.write(change.after)
    if mode is not None:
        os.chmod(temporary, mode)
    os.replace(temporary, path)
    if fresh or change.before is None:
        _record_created(created | set(fresh) | ({path} if change.before is None else set()))


def drop_backups(changes: list[Change]) -> None:
    """After a successful uninstall: the backups of its files are stale."""
    for change in changes:
        try:
            os.remove(change.path + BACKUP_SUFFIX)
        except FileNotFoundError:
            pass


# The ledger of paths setup created, so uninstall removes those and only those. It is
# advisory: unreadable or unwritable, uninstall just leaves the directories be. It lists
# the directories made for itself too, which go with it when nothing else is left.
LEDGER = "setup-created.json"


def _ledger() -> str:
    from ctxmode.paths import data_root

    return os.path.join(data_root(), LEDGER)


def _created() -> set[str]:
    try:
        with open(_ledger(), encoding="utf-8") as handle:
            found = json.load(handle)
    except (OSError, ValueError, CtxmodeError):
        return set()
    return {p for p in found if isinstance(p, str)} if isinstance(found, list) else set()


def _record_created(created: set[str]) -> None:
    try:
        ledger = _ledger()
        own = {path for path in created if ledger.startswith(path + os.sep)}
        if not created - own:
            if os.path.exists(ledger):
                os.remove(ledger)
            for directory in sorted(own, reverse=True):  # the deepest first
                os.rmdir(directory)
            return
        created = created | set(_missing_dirs(os.path.dirname(ledger)))
        os.makedirs(os.path.dirname(ledger), exist_ok=True)
        temporary = f"{ledger}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(sorted(created), handle, indent=1)
        os.replace(temporary, ledger)
    except (OSError, CtxmodeError):
        pass


def created_by_setup(path: str) -> bool:
    """Whether setup created this file or directory (per the ledger): for a host whose
    setup lays out more than its entries, so its uninstall can take that back too."""
    return os.path.abspath(path) in _created()


def _missing_dirs(directory: str) -> list[str]:
    """`directory` and its ancestors that do not exist yet (what makedirs will create)."""
    missing = []
    while not os.path.exists(directory):
        missing.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return missing


def _forget_created(created: set[str], path: str, owned: bool) -> None:
    """`path` is gone: so are the directories setup created for it, once empty (an owned
    file's directory, named by us, goes too)."""
    left = created - {path}
    directory = os.path.dirname(path)
    while directory in left or owned:
        owned = False
        try:
            os.rmdir(directory)
        except OSError:  # not empty (yet): the last file removed takes it
            break
        left.discard(directory)
        directory = os.path.dirname(directory)
    if left != created:
        _record_created(left)


def stdio_server(command: list[str], **extra: object) -> dict:
    """The usual `{command, args}` MCP entry, plus host-specific fields."""
    return {**extra, "command": command[0], "args": command[1:]}


def hook_lines(
    command: str,
    platform_id: str,
    host_events: dict[str, str],
    installed: Container[str] | None = None,
) -> dict[str, str]:
    """Host event name -> `<command> <platform> <cli event>`, for the events we install
    (`installed`: a collection of host event names; None means all of them)."""
    return {
        host: f"{command} {platform_id} {cli}"
        for cli, host in host_events.items()
        if installed is None or host in installed
    }
