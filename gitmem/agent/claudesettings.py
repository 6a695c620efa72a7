"""What Claude Code's settings say about gitmem's hooks, for `gitmem doctor`: whether they
run at all, and gitmem's plugin as Claude Code installs it from a marketplace
(``claude plugin install gitmem@MARKETPLACE``).

Claude Code (2.1.328, seen running it) copies an installed plugin to
``~/.claude/plugins/cache/...`` and lists it in ``~/.claude/plugins/installed_plugins.json``;
the plugin runs where settings enable it: ``enabledPlugins: {"gitmem@MARKETPLACE": true}``
in the user's, the project's or the local settings, later ones overriding earlier ones
(user < project < local; only ``true`` enables). A plugin counts as gitmem's by what its
hooks run, not by its name: a team's marketplace may call it anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gitmem.agent import install
from gitmem.agent.common import read_settings, strongest

SETTINGS = (
    ("user", None),
    ("project", ".claude/settings.json"),
    ("local", ".claude/settings.local.json"),
)
# An organisation's settings, which override every other (Linux; on macOS they live in
# /Library/Application Support/ClaudeCode/)
MANAGED = Path("/etc/claude-code/managed-settings.json")


@dataclass(frozen=True)
class Plugin:
    key: str  # plugin@marketplace
    scope: str  # the settings that enable it: user, project or local
    path: Path  # where Claude Code installed it


def config_dir(home: Path) -> Path:
    """Claude Code's folder for the user: ``CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    return install.CLAUDE.path("user", home, home).parent


def _runs_gitmem(plugin_dir: Path) -> bool:
    try:
        text = (plugin_dir / "hooks" / "hooks.json").read_text(encoding="utf-8")
    except OSError:
        return False
    return any(form in text for form in (install.FAST_PREFIX, install.CONSOLE_PREFIX))


def enabled(root: Path, home: Path) -> list[Plugin]:
    """The installed plugins that run gitmem's hooks and that settings enable in ``root``."""
    on: dict[str, str] = {}  # plugin key -> the scope that enables it
    for scope, data in read_settings(_scopes(root, home)):
        plugins = data.get("enabledPlugins")
        if not isinstance(plugins, dict):
            continue
        for key, value in plugins.items():
            if value is True:
                on[key] = scope
            else:  # false, or a list of versions, which leaves it off
                on.pop(key, None)
    listing = read_settings([("", config_dir(home) / "plugins" / "installed_plugins.json")])
    installed = listing[0][1].get("plugins") if listing else None
    if not isinstance(installed, dict):
        return []
    found: list[Plugin] = []
    for key, scope in on.items():
        entries = installed.get(key)
        for entry in entries if isinstance(entries, list) else []:
            where = entry.get("installPath") if isinstance(entry, dict) else None
            if isinstance(where, str) and _runs_gitmem(Path(where)):
                found.append(Plugin(key, scope, Path(where)))
                break
    return found


def _scopes(root: Path, home: Path) -> list[tuple[str, Path]]:
    """Claude Code's settings files, weakest first."""
    files = [(scope, config_dir(home) / "settings.json" if rel is None else root / rel)
             for scope, rel in SETTINGS]  # fmt: skip
    return [*files, ("managed", MANAGED)]


def hooks_off(root: Path, home: Path) -> str | None:
    """Why Claude Code runs none of gitmem's hooks in ``root``, if settings say so:
    ``disableAllHooks`` (the strongest settings that set it decide), or managed settings'
    ``allowManagedHooksOnly``, which leaves out the hooks of every other settings file and
    of plugins a user installed."""
    found = read_settings(_scopes(root, home))
    off = strongest(found, "disableAllHooks")
    managed_only = any(
        scope == "managed" and data.get("allowManagedHooksOnly") is True for scope, data in found
    )
    if off is not None and off[1]:
        return f"`disableAllHooks: true` in Claude Code's {off[0]} settings: no hook runs"
    if managed_only:
        return (
            f"`allowManagedHooksOnly: true` in {MANAGED}: Claude Code runs only the hooks"
            " that managed settings define or enable, not gitmem's"
        )
    return None


def env_value(root: Path, home: Path, name: str) -> tuple[str, str] | None:
    """(scope, value) of the environment variable ``name`` that Claude Code's settings give
    its sessions (``env``), from the strongest settings that set it."""
    found = None
    for scope, data in read_settings(_scopes(root, home)):
        env = data.get("env")
        value = env.get(name) if isinstance(env, dict) else None
        if isinstance(value, str):
            found = (scope, value)
    return found
