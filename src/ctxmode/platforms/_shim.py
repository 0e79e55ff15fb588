"""A plugin shim as setup writes it: the host's shim files from our package data, the
shared `bridge.js` and the launch file, together in one directory. Off the hook path.

The launch file (`ctxmode.json`) tells the shim how to start our Python side: the argv
of the per-call hook and of the long-lived bridge, where to log, and what else the host's
shim needs (Pi's `serve` command, OpenCode's plugin `config`).
"""

from __future__ import annotations

from ctxmode.platforms._install import Change

LAUNCH_FILE = "ctxmode.json"


def launch_config(platform_id: str, hook_prefix: str, **extra: object) -> str:
    """The launch file's text; each of `extra` that is set joins it under its name."""
    import json
    import os
    import shlex

    from ctxmode import paths
    from ctxmode.vocab.toolnames import OWN_TOOLS, SERVER_NAME

    hook = shlex.split(hook_prefix)
    bridge = [part.replace("ctxmode._hook", "ctxmode._bridge") for part in hook]
    launch = {
        "hook": [*hook, platform_id],
        "bridge": [*bridge, platform_id],
        "server": SERVER_NAME,
        "ourTools": sorted(OWN_TOOLS),  # the names the shim hears our MCP tools by
        "log": os.path.join(paths.logs_dir(), "plugin-errors.log"),
        **{name: value for name, value in extra.items() if value},
    }
    return json.dumps(launch, indent=2) + "\n"


def shim_changes(
    directory: str, shim: str, names: tuple[str, ...], launch_text: str, remove: bool
) -> list[Change]:
    """Our files in `directory`: `names` from the package data's `shim` folder, bridge.js,
    and `launch_text` as the launch file (`remove`: each of them taken out)."""
    import os
    from importlib.resources import files

    from ctxmode.platforms._install import read_text

    source = files("ctxmode.plugins")
    wanted = {name: (source / shim / name).read_text(encoding="utf-8") for name in names}
    wanted["bridge.js"] = (source / "bridge.js").read_text(encoding="utf-8")
    wanted[LAUNCH_FILE] = launch_text
    return [
        Change(path, read_text(path), None if remove else text, owned=True)
        for name, text in wanted.items()
        for path in [os.path.join(directory, name)]
    ]
