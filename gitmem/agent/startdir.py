"""Where an agent started in a subfolder of the repository looks for the project's hooks.

Claude Code, Gemini CLI, Qwen Code and pi read a project's settings (its hooks, its
extensions) only in the folder they start in. They do not look in the repository's root
above it. So an agent started in a monorepo package (`cd services/billing && claude`) runs
none of the hooks `gitmem install` wrote for the project, and nothing says so: doctor run
there said they were installed. Run for real in session 67, with gitmem installed for the
project and each agent started in a subfolder: Claude Code 2.1.332, Gemini CLI 0.61.0, Qwen
Code 0.24.4 and pi 1.6.0 ran none of its hooks. Codex, Copilot CLI, OpenCode, Kilo CLI,
Cline CLI and Droid found the root's. Claude Code's tracker has it as a known bug
(anthropics/claude-code#74023, #86187). Hooks installed for the user run wherever the agent
starts, and so does a plugin the user's settings enable.
"""

from __future__ import annotations

from pathlib import Path

from gitmem.agent import claudesettings, install, plugins
from gitmem.location import folder_below

# agent -> (its name, the folder of the settings it reads where it starts)
CWD_ONLY = {
    "claude": ("Claude Code", ".claude"),
    "gemini": ("Gemini CLI", ".gemini"),
    "qwen": ("Qwen Code", ".qwen"),
    "pi": ("pi", ".pi"),
}


def scopes_of(agent: str, folder: Path, home: Path) -> set[str]:
    """The scopes whose files hold gitmem's hooks (pi: its extension) for ``agent``, as
    the agent started in ``folder`` reads them; for Claude Code, also those of settings
    that enable gitmem's plugin."""
    if agent == "pi":
        return set(plugins.status(folder, home, "pi"))
    found = set(install.installed_scopes(folder, home, install.AGENTS[agent]))
    if agent == "claude":
        found |= {p.scope for p in claudesettings.enabled(folder, home)}
    return found


def _unread(agent: str, root: Path, here: Path, home: Path) -> bool:
    """Whether ``agent`` started in ``here`` (below ``root``) runs none of gitmem's hooks:
    they are installed for the project only, and ``here`` has no settings of its own
    that hold them."""
    at_root = scopes_of(agent, root, home)
    return bool(at_root) and "user" not in at_root and not scopes_of(agent, here, home) - {"user"}


def unread_from(root: Path, here: Path, home: Path) -> dict[str, str]:
    """agent -> what to tell the user, for each agent that, started in ``here`` (a folder
    below ``root``), runs none of gitmem's hooks."""
    rel = folder_below(str(root), str(here))
    if not rel:
        return {}
    return {
        agent: (
            f"{name} started in {rel}/ reads a project's settings there only, not in "
            f"{root / folder}/: it runs none of gitmem's hooks. {advice(agent)}"
        )
        for agent, (name, folder) in CWD_ONLY.items()
        if _unread(agent, root, here, home)
    }


def advice(agent: str) -> str:
    return (
        "Start it at the repository's root, or install them for your user too: "
        f"`gitmem install {agent} --scope user` (they run wherever it starts, and do "
        "nothing in a repository without .continuity/)"
    )


def install_note(agent: str, root: Path, here: Path, home: Path) -> str | None:
    """What to say after installing ``agent``'s hooks for the project, where the user may
    start it below the root: run from a subfolder, or in a repository with packages
    (adrglobs.package_folders). None where it need not be said: an agent that finds the
    root's hooks, or one whose hooks are installed for the user too."""
    if agent not in CWD_ONLY:
        return None
    name, folder = CWD_ONLY[agent]
    rel = folder_below(str(root), str(here))
    if rel:
        if not _unread(agent, root, here, home):
            return None
        where = f"started here ({rel}/)"
    elif "user" not in scopes_of(agent, root, home):
        from gitmem import adrglobs, git

        packages = adrglobs.package_folders(git.ls_files(root))
        if not packages:
            return None
        where = f"started in a package of this repository ({min(packages)}/, ...)"
    else:
        return None
    return (
        f"note: {name} reads a project's {folder}/ only in the folder it starts in: {where}, "
        f"it runs none of these hooks. {advice(agent)}"
    )
