"""Installing gitmem's plugin files: OpenCode's plugin (also Kilo CLI's) and pi's
extension, each one file gitmem owns.

OpenCode loads every JavaScript file in ``.opencode/plugin/`` (and in
``~/.config/opencode/plugin/``) when it starts. gitmem's plugin (``hooks/opencode/gitmem.js``,
shipped in the wheel) is copied there as ``gitmem.js``. A file of that name gitmem did not
write is never overwritten or removed; one it wrote is replaced by the current plugin on
the next install (so `gitmem doctor` can say when it is out of date).

Kilo CLI (Kilo Code's, ``kilo``: a fork of OpenCode, 7.7.9 run here) loads the same
plugins from ``.kilo/plugin/`` and ``~/.config/kilo/plugin/``, not from OpenCode's
folders, and sends them OpenCode's events: `gitmem install kilo` writes the same plugin
there (its first lines naming the command that wrote it, and ``HOST`` set to ``kilo``), which
runs `gitmem-hook opencode` and sends ``gitmem_host``: its sessions are captured as Kilo
CLI's (gitmem.agent.runner.FORKS; before session 65, as OpenCode's).

pi (the pi coding agent) loads every TypeScript or JavaScript file in ``.pi/extensions/``,
once the user trusts the project (gitmem.agent.pi.untrusted), and in the user's
``~/.pi/agent/extensions/`` (``$PI_CODING_AGENT_DIR``): gitmem's extension
(``hooks/pi/gitmem.ts``) is copied there as ``gitmem.ts``.
"""

from __future__ import annotations

import os
from pathlib import Path

from gitmem import resources
from gitmem.errors import GitmemError
from gitmem.fsutil import atomic_write

MARK = "Installed by `gitmem install "  # opencode`, kilo` or pi`
HOSTS = {"opencode": "OpenCode", "kilo": "Kilo CLI", "pi": "pi"}  # the agents, by name
KIND = {"pi": "extension"}  # what each agent calls the file, where not a plugin
# the agents that load a file -> scope -> (under the work tree, the user's config folder,
# or pi's agent folder; the file's path there)
SCOPES = {
    "opencode": {
        "project": ("root", ".opencode/plugin/gitmem.js"),
        "user": ("config", "opencode/plugin/gitmem.js"),
    },
    "kilo": {
        "project": ("root", ".kilo/plugin/gitmem.js"),
        "user": ("config", "kilo/plugin/gitmem.js"),
    },
    "pi": {
        "project": ("root", ".pi/extensions/gitmem.ts"),
        "user": ("pi", "extensions/gitmem.ts"),
    },
}
SOURCES = {"pi": ("pi", "gitmem.ts")}  # under hooks/; the others: OpenCode's plugin


def path(scope: str, root: Path, home: Path, agent: str = "opencode") -> Path:
    if scope not in SCOPES[agent]:
        raise GitmemError(f"unknown scope {scope!r} for {agent}: use project or user")
    base, rel = SCOPES[agent][scope]
    if base == "root":
        return root / rel
    if base == "pi":
        from gitmem.agent.pi import agent_dir

        return agent_dir(home) / rel
    config = os.environ.get("XDG_CONFIG_HOME")
    return (Path(config) if config else home / ".config") / rel


def shipped(agent: str = "opencode") -> str:
    """The file as written for ``agent``: its first lines name the command that wrote it
    and the file, and the one that removes it."""
    folder, name = SOURCES.get(agent, ("opencode", "gitmem.js"))
    text = (resources.data_dir("hooks") / folder / name).read_text(encoding="utf-8")
    if agent in ("opencode", "pi"):
        return text
    return (
        text.replace("gitmem for OpenCode:", "gitmem for Kilo CLI (OpenCode's plugin):", 1)
        .replace(
            "`gitmem install opencode` (.opencode/plugin/",
            f"`gitmem install {agent}` (.kilo/plugin/",
            1,
        )
        .replace("`gitmem uninstall opencode`", f"`gitmem uninstall {agent}`", 1)
        .replace('const HOST = "opencode";', f'const HOST = "{agent}";', 1)
    )


def ours(file: Path) -> bool:
    try:
        with file.open(encoding="utf-8") as fh:
            return MARK in fh.read(600)
    except (OSError, UnicodeDecodeError):
        return False


def install(file: Path, agent: str = "opencode") -> bool:
    """Write the plugin; False when the current one was there already."""
    text = shipped(agent)
    if file.exists():
        if not ours(file):
            raise GitmemError(f"{file} exists and was not written by gitmem; nothing was changed")
        if file.read_text(encoding="utf-8") == text:
            return False
    file.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(file, text)
    return True


def uninstall(file: Path) -> bool:
    """Remove the plugin if gitmem wrote it (and the folders it leaves empty)."""
    if not file.exists() or not ours(file):
        return False
    file.unlink()
    for folder in (file.parent, file.parent.parent):
        try:
            folder.rmdir()  # only when empty
        except OSError:
            break
    return True


def status(root: Path, home: Path, agent: str = "opencode") -> dict[str, bool]:
    """scope -> whether the installed plugin is the current one, for the scopes that have
    gitmem's plugin."""
    out: dict[str, bool] = {}
    current = shipped(agent)
    for scope in SCOPES[agent]:
        file = path(scope, root, home, agent)
        if ours(file):
            out[scope] = file.read_text(encoding="utf-8") == current
    return out
