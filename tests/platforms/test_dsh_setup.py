"""`ctxmode setup dsh`: the bundle and the MCP mount in each profile, and exactly ours removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxmode.platforms import _install as inst
from ctxmode.platforms import dsh
from support.cli import ctx

SERVER = ["/opt/ctx/bin/ctxmode", "serve"]
PREFIX = (
    '/opt/ctx/bin/python -I -S -c "import sys;from ctxmode._hook import main;main(sys.argv[1:])"'
)
SHIPPED_PATCH = "# Your patch layer for this dsh profile.\n[]\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "dsh-home"
    monkeypatch.setenv("DSH_HOME", str(root))
    return root


def make_profile(home: Path, name: str, patch: str = SHIPPED_PATCH) -> Path:
    profile = home / "profiles" / name
    profile.mkdir(parents=True)
    bundles = ["@deepseek-ai/dsh-base", f"@deepseek-ai/dsh-{name}"]
    package = {"name": f"dsh-profile-{name}", "private": True, "dependencies": {},
               "dsh": {"profile": {"bundles": bundles}}}  # fmt: skip
    (profile / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    (profile / "cordis.patch.yml").write_text(patch)
    return profile


def apply_all(changes: list[inst.Change]) -> None:
    for change in changes:
        inst.apply(change)


def bundles(profile: Path) -> list[str]:
    return json.loads((profile / "package.json").read_text())["dsh"]["profile"]["bundles"]


def test_install_adds_the_bundle_last_and_one_stdio_mount(home: Path):
    profile = make_profile(home, "headless")
    apply_all(dsh.install_changes(PREFIX, SERVER))
    assert bundles(profile)[-1] == "ctxmode-dsh"
    rows = [
        line
        for line in (profile / "cordis.patch.yml").read_text().splitlines()
        if line.startswith("- ")
    ]
    assert len(rows) == 1
    mount = json.loads(rows[0][2:])["insert"][0]
    assert mount["name"] == "@deepseek-ai/dsh-mcp-client"
    assert mount["config"] == {"serverName": "context-mode", "transport": "stdio",
                               "command": SERVER[0], "args": SERVER[1:],
                               "failOnStartupError": False}  # fmt: skip
    bundle = profile / "node_modules" / "ctxmode-dsh"
    assert {p.name for p in bundle.iterdir()} == {"package.json", "cordis.patch.yml", "index.js",
                                                  "bridge.js", "ctxmode.json"}  # fmt: skip
    launch = json.loads((bundle / "ctxmode.json").read_text())
    assert launch["hook"][:3] == ["/opt/ctx/bin/python", "-I", "-S"] and launch["hook"][-1] == "dsh"
    assert "ctxmode._bridge" in launch["bridge"][4]


def test_install_is_idempotent_and_uninstall_restores_the_profile(home: Path):
    profile = make_profile(home, "headless")
    before = {p: p.read_text() for p in (profile / "package.json", profile / "cordis.patch.yml")}
    apply_all(dsh.install_changes(PREFIX, SERVER))
    assert not any(change.changed for change in dsh.install_changes(PREFIX, SERVER))
    apply_all(dsh.uninstall_changes())
    assert json.loads((profile / "package.json").read_text()) == json.loads(
        before[profile / "package.json"]
    )
    assert (profile / "cordis.patch.yml").read_text().splitlines()[-1] == "[]"
    assert not (profile / "node_modules" / "ctxmode-dsh").exists()
    assert not any(change.changed for change in dsh.uninstall_changes())


def test_other_rows_survive_and_the_patch_stays_an_array(home: Path):
    theirs = "# mine\n- disable: [timer]\n"
    profile = make_profile(home, "web", patch=theirs)
    apply_all(dsh.install_changes(PREFIX, SERVER))
    text = (profile / "cordis.patch.yml").read_text()
    assert text.startswith(theirs) and text.count("\n- ") == 2
    apply_all(dsh.uninstall_changes())
    assert (profile / "cordis.patch.yml").read_text() == theirs


def test_every_existing_profile_by_default_or_only_those_chosen(home: Path):
    first, second = make_profile(home, "headless"), make_profile(home, "web")
    apply_all(dsh.install_changes(PREFIX, SERVER, chosen=("web",)))
    assert "ctxmode-dsh" not in bundles(first) and "ctxmode-dsh" in bundles(second)
    apply_all(dsh.install_changes(PREFIX, SERVER))
    assert "ctxmode-dsh" in bundles(first)


def test_without_profiles_the_sdk_profile_is_made_as_dsh_makes_it(home: Path):
    """DSH's Python SDK boots `sdk`; a profile made by setup still loads DSH's own bundles
    (DSH skips its template once package.json exists) and keeps pnpm's settings."""
    apply_all(dsh.install_changes(PREFIX, SERVER))
    assert [p.name for p in (home / "profiles").iterdir()] == ["sdk"]
    sdk = home / "profiles" / "sdk"
    assert bundles(sdk) == ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-sdk-app", "ctxmode-dsh"]
    assert json.loads((sdk / "package.json").read_text())["name"] == "dsh-profile-sdk"
    assert "nodeLinker: hoisted" in (sdk / "pnpm-workspace.yaml").read_text()
    assert (sdk / "cordis.patch.yml").read_text().startswith("- {")
    apply_all(dsh.install_changes(PREFIX, SERVER, chosen=("headless", "mine")))
    assert bundles(home / "profiles" / "headless")[:-1] == dsh.SHIPPED_BUNDLES["headless"]
    assert bundles(home / "profiles" / "mine") == ["@deepseek-ai/dsh-base", "ctxmode-dsh"]


def test_the_desktop_profile_is_set_up_only_once_the_desktop_app_made_it(home: Path):
    with pytest.raises(inst.InstallError, match="DeepSeek Harness Desktop"):
        dsh.install_changes(PREFIX, SERVER, chosen=("Desktop",))
    assert not (home / "profiles").exists()
    desktop = make_profile(home, "desktop")
    apply_all(dsh.install_changes(PREFIX, SERVER))
    assert bundles(desktop)[-1] == "ctxmode-dsh"


def test_a_malformed_package_json_is_refused(home: Path):
    profile = make_profile(home, "headless")
    (profile / "package.json").write_text('{"dsh": {"profile": {"bundles": "x"}}}')
    with pytest.raises(inst.InstallError):
        dsh.install_changes(PREFIX, SERVER)


def test_a_profile_name_cannot_leave_the_profiles_dir(home: Path):
    with pytest.raises(inst.InstallError):
        dsh.install_changes(PREFIX, SERVER, chosen=("../etc",))


def test_the_cli_prints_then_installs_then_uninstalls(home: Path, tmp_path: Path):
    profile = make_profile(home, "headless")
    printed = ctx("setup", "dsh", "--profile", "headless", "--print", cwd=tmp_path)
    assert printed.returncode == 0 and "cordis.patch.yml" in printed.stdout
    assert (
        "ctxmode-dsh/index.js" in printed.stdout and "export function apply" not in printed.stdout
    )
    assert "ctxmode-dsh" not in bundles(profile)
    assert ctx("setup", "dsh", "--profile", "headless", cwd=tmp_path).returncode == 0
    assert "ctxmode-dsh" in bundles(profile)
    assert ctx("setup", "dsh", "--uninstall", cwd=tmp_path).returncode == 0
    assert "ctxmode-dsh" not in bundles(profile)
    refused = ctx("setup", "claude-code", "--profile", "x", "--print", cwd=tmp_path)
    assert refused.returncode != 0 and "no profiles" in refused.stderr
