"""Running the real DSH (`dsh headless`) offline against a FakeModel: its environment.

DSH keeps its profiles under DSH_HOME; a headless run uses the `headless` profile, which is
where `ctxmode setup dsh --profile headless` installs our bundle.
"""

from __future__ import annotations

from support.hosts import HOSTS_DIR, HostRun, HostWorld, missing

DSH = HOSTS_DIR / "pypi" / "dsh" / "bin" / "dsh"
SETUP_OPTIONS = ("--profile", "headless")


def dsh_env(world: HostWorld, url: str = "") -> dict[str, str]:
    """DSH's environment in `world`, pointed at the fake model at `url` when given."""
    extra = {"DSH_HOME": str(world.root / "dsh-home"), "DSH_PERMISSION_MODE": "danger-full-access",
             "DSH_TELEMETRY_MODE": "DISABLED",
             # The runtime unpacks ~84 MB of native addons on first start: once per clone.
             "PKG_NATIVE_CACHE_PATH": str(HOSTS_DIR / "pypi" / "dsh" / "pkg-cache")}  # fmt: skip
    if url:
        extra.update(DEEPSEEK_BASE_URL=f"{url}/anthropic", DEEPSEEK_API_KEY="sk-fake")
    return world.env(**extra)


def prepare(world: HostWorld) -> None:
    """DSH's own config, as its first start writes it (setup then adds to it)."""
    if not DSH.exists():
        missing(f"DSH is not installed at {DSH}")
    made = world.run([DSH, "headless", "--dump-config"], env=dsh_env(world))
    assert made.returncode == 0, made.describe()


def run(world: HostWorld, url: str, prompt: str, timeout: float = 600) -> HostRun:
    return world.run([DSH, "headless", prompt], env=dsh_env(world, url), timeout=timeout)
