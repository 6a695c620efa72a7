"""Installing gitmem's Cline hooks: one small script per Cline event, each a file gitmem
owns.

Cline finds its hooks by file name (``PreToolUse``, ``TaskStart``, ...) in
``.clinerules/hooks/`` of the workspace and in ``~/Documents/Cline/Hooks/``; the CLI runs
them through their ``#!`` line, the extension as executables. Each of gitmem's calls
``gitmem-hook cline EVENT`` (or ``gitmem hook cline EVENT`` where only the console script is
on PATH), guarded as the other agents' commands are (gitmem.agent.install.GUARD), and,
when neither is found or runs, answers ``{"cancel": false}`` itself: Cline's extension
blocks the action on a hook that fails or prints no JSON, and a missing or broken gitmem
must not block anyone. A file of one of those names that gitmem did not write is never overwritten
or removed: install stops before writing anything and says which.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
from pathlib import Path

from gitmem.agent.cline import EVENTS
from gitmem.agent.install import MISSING_NOTE, guarded
from gitmem.errors import GitmemError
from gitmem.fsutil import atomic_write

MARK = "Installed by `gitmem install cline`"
SCOPES = {"project": ("root", ".clinerules/hooks"), "user": ("home", "Documents/Cline/Hooks")}


def folder(scope: str, root: Path, home: Path) -> Path:
    if scope not in SCOPES:
        raise GitmemError(f"unknown scope {scope!r} for cline: use project or user")
    base, rel = SCOPES[scope]
    return (root if base == "root" else home) / rel


def script(hook: str) -> str:
    """The file gitmem writes for Cline's ``hook`` event."""
    event = EVENTS[hook]
    return (
        "#!/bin/sh\n"
        f"# {MARK}: Cline runs it on {hook} and gitmem brings the\n"
        "# project's decisions; `gitmem uninstall cline` removes it.\n"
        f"{guarded(f'gitmem-hook cline {event}')}\n"
        f"{guarded(f'gitmem hook cline {event}')}\n"
        + (_missing_once() if event == "post-tool" else "")
        + "echo '{\"cancel\": false}'  # gitmem is not on PATH here, or failed: let Cline go on\n"
    )


# Where gitmem does not run, the other agents' session-start command tells the agent so
# (gitmem.agent.install.MISSING_NOTE). Cline does not read its start hook's answer, so
# the after-tool script says it, with a task's first tool result, as gitmem's digest
# comes: once per task, remembered by an empty file created exclusively (`set -C`: of two
# scripts at once, from both scopes, one says it). The task's id is read from the payload
# still unread on stdin (gitmem never ran); a gitmem that ran and failed has read it, and
# nothing is said. The id's characters are checked before it names a file. The answer
# is gitmem's own for a post-tool note, in Cline's shape (runner.translated).
def _missing_once() -> str:
    """The after-tool script's lines that say, once per task, that gitmem did not run."""
    from gitmem.agent import runner
    from gitmem.agent.common import context

    told = runner.translated("cline", "post-tool", context("post-tool", MISSING_NOTE))
    return (
        'task=$(sed -n \'s/.*"taskId" *: *"\\([A-Za-z0-9_.:-]*\\)".*/\\1/p\' | head -n 1)\n'
        'if [ -n "$task" ] && (set -C; : > "${TMPDIR:-/tmp}/gitmem-cline-$(id -u)-$task") '
        "2>/dev/null; then\n"
        f"    printf '%s\\n' {shlex.quote(json.dumps(told))}\n"
        "    exit 0\nfi\n"
    )


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def ours(file: Path) -> bool:
    try:
        with file.open(encoding="utf-8") as fh:
            return MARK in fh.read(400)
    except (OSError, UnicodeDecodeError):
        return False


def install(where: Path) -> list[str]:
    """Write the missing or outdated hook files; returns the events written."""
    foreign = [where / h for h in EVENTS if (where / h).exists() and not ours(where / h)]
    if foreign:
        names = ", ".join(str(f) for f in foreign)
        raise GitmemError(
            f"{names}: not written by gitmem; nothing was changed. Cline runs one file per "
            "event name: have yours call `gitmem-hook cline EVENT` (see the README), or "
            "move it aside and install again"
        )
    written = []
    for hook in EVENTS:
        file, text = where / hook, script(hook)
        if _read(file) == text and os.access(file, os.X_OK):
            continue
        where.mkdir(parents=True, exist_ok=True)
        atomic_write(file, text)
        file.chmod(0o755)  # the extension runs the file itself
        written.append(hook)
    return written


def uninstall(where: Path) -> int:
    """Remove gitmem's hook files (and the folders they leave empty); returns how many."""
    removed = 0
    for hook in EVENTS:
        file = where / hook
        if file.exists() and ours(file):
            file.unlink()
            removed += 1
    if removed:
        for empty in (where, where.parent):
            with contextlib.suppress(OSError):
                empty.rmdir()  # only when nothing else is in it
    return removed


def status(root: Path, home: Path) -> dict[str, list[str]]:
    """scope -> the events whose hook file is missing or outdated (empty: all current),
    for the scopes that have any of gitmem's hook files."""
    out: dict[str, list[str]] = {}
    for scope in SCOPES:
        where = folder(scope, root, home)
        if not any(ours(where / h) for h in EVENTS):
            continue
        out[scope] = [h for h in EVENTS if _read(where / h) != script(h)]  # holds MARK
    return out
