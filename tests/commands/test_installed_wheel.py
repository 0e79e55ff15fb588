"""ctxmode as a user installs it: a wheel built from this checkout, installed into a venv of
its own under a fresh HOME, run as the `ctxmode` on PATH (not the editable checkout).

Follows README.md, "Install for everyday use": the wheel is built with the command written
there, the installed tool is a `ctxmode` link in `~/.local/bin` to a venv's console script
(what pipx and uv make), then `ctxmode setup`, `ctxmode doctor` and `--uninstall` as it
describes. Tests run offline, so the venv is made with `python -m venv` and the wheel
installed with `pip --no-index --no-deps`; its dependencies, the ones the wheel declares and
theirs, are linked in from this test run's own environment (and nothing else of it: neither
the editable ctxmode nor the test tools), and `pip check` says they satisfy the wheel.

One build and install per module (about 20 s); `-m "not wheel"` skips it.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from importlib.metadata import Distribution, distribution
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from ctxmode.server.tools import TOOL_NAMES

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
F_SETPIPE_SZ = 1031  # Linux: fcntl command that sets a pipe's capacity

# What the hosts need besides Python modules (every tracked file of the package goes in).
PACKAGE_DATA = [
    "ctxmode/py.typed",
    "ctxmode/plugins/bridge.js",
    "ctxmode/plugins/opencode/index.js",
]


@dataclass
class Installed:
    home: Path
    venv: Path
    env: dict[str, str]
    wheel: Path

    def run(self, *args: str, cwd: Path, **extra) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["ctxmode", *args], cwd=cwd, env=self.env, capture_output=True, text=True,
            timeout=120, **extra,
        )  # fmt: skip


def readme_user_path() -> str:
    """README's "Install for everyday use" section."""
    text = README.read_text()
    return text.split("## Install for everyday use", 1)[1].split("\n## ", 1)[0]


def readme_wheel_command() -> list[str]:
    """The wheel build command as README writes it (in backticks, run in a clone)."""
    [command] = re.findall(r"`(python3 -m pip wheel [^`]*)`", readme_user_path())
    return shlex.split(command)


def build_wheel(out: Path) -> Path:
    """README's build command, its output folder put in `out`; offline: hatchling (the
    build backend, in the test extra) is taken from this environment."""
    words = readme_wheel_command()
    assert words[:4] == ["python3", "-m", "pip", "wheel"] and words[-1] == "."
    assert "--no-deps" in words and words[words.index("-w") + 1] == "dist"
    words[words.index("-w") + 1] = str(out)
    command = [sys.executable, *words[1:-1], "--no-build-isolation", "--no-index", str(REPO)]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    [wheel] = out.glob("ctxmode-*-py3-none-any.whl")
    return wheel


def readme_hook_command() -> str:
    """The example hook command README gives for a pipx install, its lines joined."""
    [command] = re.findall(r"\(for pipx:\s+`([^`]+)`\)", readme_user_path())
    return " ".join(command.split())


def install(wheel: Path, home: Path) -> Path:
    """The wheel in a venv where pipx would put it, linked from `~/.local/bin` as pipx does."""
    venv = home / ".local" / "share" / "pipx" / "venvs" / "ctxmode"
    assert readme_hook_command().startswith(f"~/{venv.relative_to(home)}/bin/python ")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-deps"]
    subprocess.run([*pip, str(wheel)], check=True, capture_output=True, timeout=300)
    [site] = (venv / "lib").glob("python3*/site-packages")
    for dist in dependencies(wheel):
        link_into(site, dist)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "check"], check=True, capture_output=True, timeout=120)
    bin_dir = home / ".local" / "bin"
    assert f"a `ctxmode` command in `~/{bin_dir.relative_to(home)}`" in readme_user_path()
    bin_dir.mkdir(parents=True)
    (bin_dir / "ctxmode").symlink_to(venv / "bin" / "ctxmode")
    return venv


def dependencies(wheel: Path) -> list[Distribution]:
    """What the wheel requires, and what that requires, as installed in this environment."""
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(name).decode())
    found: dict[str, Distribution] = {}
    seen: set[tuple[str, str]] = set()
    todo = [(text, "") for text in metadata.get_all("Requires-Dist") or []]
    while todo:
        text, extra = todo.pop()
        requirement = Requirement(text)
        if (text, extra) in seen or (
            requirement.marker and not requirement.marker.evaluate({"extra": extra})
        ):
            continue
        seen.add((text, extra))
        dist = found.setdefault(canonicalize_name(requirement.name), distribution(requirement.name))
        for extra_wanted in ("", *requirement.extras):
            todo.extend((needed, extra_wanted) for needed in dist.requires or [])
    return list(found.values())


def link_into(site: Path, dist: Distribution) -> None:
    """Links from `site` to the distribution's top-level modules and metadata."""
    for top in {file.parts[0] for file in dist.files or [] if file.parts[0] != ".."}:
        source, link = Path(dist.locate_file(top)), site / top
        if top != "__pycache__" and source.exists() and not link.exists():
            link.symlink_to(source)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    wheel = build_wheel(tmp_path_factory.mktemp("dist"))
    home = tmp_path_factory.mktemp("home")
    venv = install(wheel, home)
    # A fresh HOME and nothing of ours or of a host's in the environment.
    env = {
        "HOME": str(home),
        "PATH": f"{home / '.local' / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
    }
    return Installed(home=home, venv=venv, env=env, wheel=wheel)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    sections = "".join(
        f"# Topic {i}\nThe context window keeps topic {i} apart from the rest. " * 3 + "\n\n"
        for i in range(400)
    )
    (root / "README.md").write_text(sections)
    return root


def tree(root: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes | None]:
    """Every directory (None) and file (its bytes) under `root`, but the `skip` folders."""
    found: dict[str, bytes | None] = {}
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.relpath(os.path.join(directory, d), root) not in skip]
        for name in dirs:
            found[os.path.relpath(os.path.join(directory, name), root) + "/"] = None
        for name in files:
            path = os.path.join(directory, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


def test_the_wheel_holds_what_the_hosts_need(installed):
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
    tracked = subprocess.run(
        ["git", "ls-files", "src/ctxmode"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert set(PACKAGE_DATA) <= {path.removeprefix("src/") for path in tracked}
    missing = [path for path in tracked if path.removeprefix("src/") not in names]
    assert not missing
    assert any(re.fullmatch(r"ctxmode-[^/]+\.dist-info/licenses/LICENSE", n) for n in names)
    [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    with zipfile.ZipFile(installed.wheel) as wheel:
        assert "ctxmode = ctxmode._entry:main" in wheel.read(entry_points).decode()


def test_the_ctxmode_on_path_is_the_installed_wheel(installed, tmp_path):
    python = installed.venv / "bin" / "python"
    where = subprocess.run(
        [str(python), "-c", "import ctxmode; print(ctxmode.__file__)"],
        env=installed.env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert Path(where).is_relative_to(installed.venv) and "site-packages" in where
    alien = subprocess.run([str(python), "-c", "import pytest"], env=installed.env)
    assert alien.returncode == 1  # the test run's own tools are not there
    shown = installed.run("-h", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.startswith("Usage: ctxmode")
    assert installed.run("index", "-h", cwd=tmp_path).stdout.startswith("Usage: ctxmode index")


def test_a_newcomer_s_rough_edges_through_the_installed_cli(installed, project, tmp_path):
    typo = installed.run("indx", "README.md", cwd=project)
    assert typo.returncode == 2 and "Did you mean 'index'?" in typo.stderr
    host = installed.run("setup", "claude", cwd=project)
    assert host.returncode == 2 and "Did you mean 'claude-code'?" in host.stderr
    missing = installed.run("stats", "--project", str(tmp_path / "mistyped"), cwd=project)
    assert missing.returncode == 2 and "does not exist" in missing.stderr

    for spelling in ("README.md", "./README.md"):
        assert installed.run("index", spelling, cwd=project).returncode == 0
    for side in ("left", "right"):  # two folders of one name
        (project / side / "notes").mkdir(parents=True)
        (project / side / "notes" / "todo.md").write_text(f"# Todo\nonly-{side} item\n")
        assert installed.run("index", f"{side}/notes", cwd=project).returncode == 0
    again = installed.run("index", ".", cwd=project)
    assert again.stdout.startswith("Indexed 0 files (") and "3 unchanged" in again.stdout, again
    for side in ("left", "right"):
        found = installed.run("search", f"only-{side}", cwd=project)
        assert f"[{side}/notes/todo.md | " in found.stdout
    found = installed.run("search", "topic 7", "--json", "--limit", "5", cwd=project)
    assert {hit["source"] for hit in json.loads(found.stdout)["hits"]} == {"README.md"}
    # Data goes where README says, in the fresh HOME.
    assert "Data goes to `~/.local/share/ctxmode`" in readme_user_path()
    data = installed.home / ".local" / "share" / "ctxmode"
    [database] = (data / "projects").glob("*.db")
    assert str(database) in installed.run("stats", cwd=project).stdout

    for command in (["search", "context", "window", "--limit", "100"], ["setup", "claude-code", "--print"]):  # fmt: skip
        read_end, write_end = os.pipe()
        fcntl.fcntl(read_end, F_SETPIPE_SZ, 4096)
        child = subprocess.Popen(
            ["ctxmode", *command], cwd=project, env=installed.env,
            stdout=write_end, stderr=subprocess.PIPE,
        )  # fmt: skip
        os.close(write_end)
        os.close(read_end)  # `| true`: the reader is gone before the first write
        stderr = child.communicate(timeout=60)[1].decode()
        assert child.returncode in (0, 141) and stderr == "", (command, stderr)
    assert not (data / "logs" / "errors.log").exists()

    size = database.stat().st_size
    purged = installed.run("purge", "--yes", cwd=project)
    assert purged.returncode == 0 and "the database went from " in purged.stdout
    assert database.stat().st_size < size


def test_setup_doctor_and_uninstall_as_readme_says(installed, project):
    section = readme_user_path()
    for written in ("ctxmode setup claude-code", "ctxmode doctor", "--uninstall"):
        assert written in section
    home_before = tree(installed.home, skip=(".local",))
    project_before = tree(project)
    python = str(installed.venv / "bin" / "python")

    shown = installed.run("setup", "claude-code", "--print", cwd=project).stdout
    # README's example command, `~` and its elisions (`...`) read as what they stand for.
    written = re.escape(readme_hook_command()).replace(re.escape("..."), ".*")
    assert re.search(written.replace("~", re.escape(str(installed.home)), 1), shown)
    assert f'"command": "{installed.venv}/bin/ctxmode",\n      "args": [\n        "serve"' in shown
    assert installed.run("setup", "claude-code", cwd=project).returncode == 0
    settings = json.loads((installed.home / ".claude" / "settings.json").read_text())
    [[entry]] = [group["hooks"] for group in settings["hooks"]["PostToolUse"]]
    assert entry["command"].startswith(f"{python} -I -S -c ")
    # The registered command runs from the installed package: a big output becomes a notice.
    payload = {
        "session_id": "wheel", "cwd": str(project), "hook_event_name": "PostToolUse",
        "tool_name": "Bash", "tool_input": {"command": "cat big"},
        "tool_response": {"stdout": "y" * 200_000},
    }  # fmt: skip
    hooked = subprocess.run(
        ["/bin/sh", "-c", entry["command"]], input=json.dumps(payload), cwd=project,
        env=installed.env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    notice = json.loads(hooked.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert "indexed" in notice

    assert installed.run("setup", "claude-code", "--project", ".", cwd=project).returncode == 0
    report = installed.run("doctor", cwd=project).stdout
    assert "[WARN]" not in report and "[FAIL]" not in report, report
    assert "[OK] claude-code: " in report, report
    assert f"[OK] claude-code (project {project}): hooks and MCP server set up" in report

    for scope in ([], ["--project", "."]):
        undone = installed.run("setup", "claude-code", "--uninstall", *scope, cwd=project)
        assert undone.returncode == 0, undone.stderr
    assert tree(installed.home, skip=(".local",)) == home_before
    assert tree(project) == project_before


def test_the_mcp_server_setup_registers_answers_from_the_installed_package(installed, project):
    params = StdioServerParameters(
        command=str(installed.venv / "bin" / "ctxmode"), args=["serve"],
        env=installed.env, cwd=str(project),
    )  # fmt: skip

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            transport = stdio_client(params, errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=120) as client:
                listed = {tool.name for tool in (await client.list_tools()).tools}
                assert listed == set(TOOL_NAMES)
                arguments = {"content": "# Notes\nthe okapi widget", "source": "notes"}
                assert not (await client.call_tool("ctx_index", arguments)).is_error
                found = await client.call_tool("ctx_search", {"queries": ["okapi"]})
                assert "okapi widget" in str(found.content)

    anyio.run(main)


@pytest.mark.parametrize("host", ["opencode", "pi", "openclaw", "dsh"])
def test_plugin_hosts_get_the_wheel_s_shims_and_uninstall_leaves_home_as_it_was(
    installed, project, host
):
    with zipfile.ZipFile(installed.wheel) as wheel:
        shims = {wheel.read(n) for n in wheel.namelist() if n.startswith("ctxmode/plugins/")}
    before = tree(installed.home, skip=(".local",))
    done = installed.run("setup", host, cwd=project)
    assert done.returncode == 0, done.stderr
    written = tree(installed.home, skip=(".local",))
    scripts = {name: text for name, text in written.items() if name.endswith(".js")}
    assert scripts and all(text in shims for text in scripts.values()), sorted(scripts)
    assert installed.run("setup", host, "--uninstall", cwd=project).returncode == 0
    assert tree(installed.home, skip=(".local",)) == before


def test_two_terminals_in_one_workspace_reach_the_same_session(installed, project):
    assert installed.run("run", "--", "echo", "okapi", cwd=project).stdout == "okapi\n"
    other = subprocess.run(
        ["/bin/sh", "-c", "ctxmode run -- echo zebra"], cwd=project, env=installed.env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert other.stdout == "zebra\n"
    [session] = installed.run("session", "list", cwd=project).stdout.splitlines()
    assert "\t2 entries\t" in session and session.endswith(f"\t{project}")


def test_doctor_flags_a_setup_made_by_another_installation_and_setup_fixes_it(installed, project):
    """README's upgrade advice, from a developer checkout (this test run's) to the tool."""
    [flag] = re.findall(r"`(\[WARN\] \.\.\. [^`]+)`", " ".join(readme_user_path().split()))
    before = tree(installed.home, skip=(".local",))
    checkout = [sys.executable, "-m", "ctxmode", "setup", "claude-code"]
    subprocess.run(checkout, cwd=project, env=installed.env, check=True, capture_output=True)
    report = installed.run("doctor", cwd=project).stdout
    pattern = (
        re.escape(flag).replace(re.escape("..."), ".*").replace(re.escape("<host>"), "claude-code")
    )
    # README quotes the line in code, where the command's own backticks cannot go.
    assert re.search(pattern, report.replace("`", "")), report
    assert installed.run("setup", "claude-code", cwd=project).returncode == 0
    report = installed.run("doctor", cwd=project).stdout
    assert "[OK] claude-code: hooks and MCP server set up for this installation" in report
    assert installed.run("setup", "claude-code", "--uninstall", cwd=project).returncode == 0
    assert tree(installed.home, skip=(".local",)) == before


def test_ctrl_c_during_an_index_exits_130_and_says_how_far_it_got(installed, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(200):
        (docs / f"page{i:03}.md").write_text(f"# Page {i}\n" + f"ocelot line {i} of many\n" * 4000)
    projects = installed.home / ".local" / "share" / "ctxmode" / "projects"
    others = set(projects.glob("*.db"))
    child = subprocess.Popen(
        ["ctxmode", "index", str(docs)], cwd=tmp_path, env=installed.env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and indexed(set(projects.glob("*.db")) - others) < 3:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130 and "Traceback" not in err, (out, err)
    assert "Interrupted: " in err and " of 200 files done" in err
    done = int(err.split("Interrupted: ")[1].split(" ")[0])
    assert 3 <= done < 200
    rerun = installed.run("index", str(docs), cwd=tmp_path)
    assert f"Indexed {200 - done} files (" in rerun.stdout and f"{done} unchanged" in rerun.stdout


def indexed(databases: set[Path]) -> int:
    for path in databases:
        try:
            with sqlite3.connect(path, timeout=1) as conn:
                return conn.execute("SELECT count(*) FROM kb_sources").fetchone()[0]
        except sqlite3.Error:
            return 0
    return 0
