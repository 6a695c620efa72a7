"""gitmem's Claude Code plugin as Claude Code installs it from a marketplace
(``claude plugin install gitmem@MARKETPLACE``), for `gitmem doctor`.

Claude Code (2.1.328, seen running it) copies an installed plugin to
``~/.claude/plugins/cache/...`` and lists it in ``~/.claude/plugins/installed_plugins.json``;
the plugin runs where settings enable it: ``enabledPlugins: {"gitmem@MARKETPLACE": true}``
in the user's, the project's or the local settings, later ones overriding earlier ones
(user < project < local; only ``true`` enables). A plugin counts as gitmem's by what its
hooks run, not by its name: a team's marketplace may call it anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gitmem.agent import install

SETTINGS = (
    ("user", None),
    ("project", ".claude/settings.json"),
    ("local", ".claude/settings.local.json"),
)


@dataclass(frozen=True)
class Plugin:
    key: str  # plugin@marketplace
    scope: str  # the settings that enable it: user, project or local
    path: Path  # where Claude Code installed it


def config_dir(home: Path) -> Path:
    """Claude Code's folder for the user: ``CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    return install.CLAUDE.path("user", home, home).parent


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _runs_gitmem(plugin_dir: Path) -> bool:
    try:
        text = (plugin_dir / "hooks" / "hooks.json").read_text(encoding="utf-8")
    except OSError:
        return False
    return any(form in text for form in (install.FAST_PREFIX, install.CONSOLE_PREFIX))


def enabled(root: Path, home: Path) -> list[Plugin]:
    """The installed plugins that run gitmem's hooks and that settings enable in ``root``."""
    on: dict[str, str] = {}  # plugin key -> the scope that enables it
    for scope, rel in SETTINGS:
        path = config_dir(home) / "settings.json" if rel is None else root / rel
        plugins = _read(path).get("enabledPlugins")
        if not isinstance(plugins, dict):
            continue
        for key, value in plugins.items():
            if value is True:
                on[key] = scope
            else:  # false, or a list of versions, which leaves it off
                on.pop(key, None)
    installed = _read(config_dir(home) / "plugins" / "installed_plugins.json").get("plugins")
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
