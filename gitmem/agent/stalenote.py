"""The session-start digest's warning about stale instruction files.

Claude Code and Codex load CLAUDE.md / AGENTS.md into the agent's context as they are;
a line naming a file that was moved, or a make target that was removed, sends the agent
the wrong way. ``gitmem stale`` finds those lines (it greps the code: too slow for a
hook), and keeps its result in ``<git-dir>/gitmem/stale.json``. This module reads that
file, drops what an edit since has made moot, and says the rest in a few lines. When the
result is missing or older than HEAD or the files it checked, it starts ``gitmem stale``
in the background for the next session; it never waits for it.

Built-in modules only, and ``gitmem.leanjson`` / ``gitmem.location``.
"""

from __future__ import annotations

import os
import time

from gitmem import leanjson, location
from gitmem.location import Location
from gitmem.vocab import shown_name

# The kept result's name and version, and the instruction files' names: gitmem.stale
# imports them from here (this module must stay light; that one loads git and the table).
CACHE_NAME = "stale.json"
CACHE_VERSION = 1
NAMES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md")
# and the rule files of these folders, and these files
FOLDERS = (
    (".claude/rules/", (".md",)),
    (".cursor/rules/", (".mdc", ".md")),
    (".github/instructions/", (".instructions.md",)),
)
SINGLE = frozenset({".github/copilot-instructions.md"})


def is_instruction_file(rel: str) -> bool:
    """Whether the repository path ``rel`` is an agent instruction file (gitmem's own
    records aside), which its agent loads into its context as it is."""
    name = rel.rsplit("/", 1)[-1]
    if rel.startswith(".continuity/"):
        return False
    in_folder = any(rel.startswith(d) and name.endswith(exts) for d, exts in FOLDERS)
    return name in NAMES or rel in SINGLE or in_folder


MAX_LINES = 6
MAX_CHARS = 1200
RETRY_SECONDS = 120  # a refresh started this recently is not started again

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def note(loc: Location) -> str:
    """The warning (empty when nothing is known to be stale), refreshing in the background
    when the kept result is out of date."""
    path = os.path.join(loc.state_dir, CACHE_NAME)
    try:
        with open(path, encoding="utf-8") as fh:
            data: Any = leanjson.loads(fh.read())
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        # Never checked: worth a process only when the root holds an instruction file (a
        # repository with nested ones only is kept up to date once `gitmem stale` ran).
        if any(os.path.isfile(os.path.join(loc.root, name)) for name in NAMES):
            _refresh(loc, path)
        return ""
    raw = data.get("files")
    files: dict[str, Any] = raw if isinstance(raw, dict) else {}
    unchanged = {doc for doc, stat in files.items() if _stat(loc.root, doc) == stat}
    _, head = location.head(loc.git_dir, loc.common_dir)
    new_root_file = any(
        name not in files and os.path.isfile(os.path.join(loc.root, name)) for name in NAMES
    )
    if head != (data.get("head") or None) or len(unchanged) < len(files) or new_root_file:
        _refresh(loc, path)
    lines: list[str] = []
    for f in data.get("findings") or []:
        if not isinstance(f, dict) or f.get("file") not in unchanged:
            continue
        if f.get("kind") in ("path", "link") and _exists_now(loc.root, f):
            continue  # made moot by a change since the check
        where = f"{shown_name(str(f['file']))}:{f.get('line', 0)}"
        section = f" [{f['section']}]" if f.get("section") else ""
        lines.append(f"- {where}{section}: {str(f.get('message', ''))[:220]}")
    if not lines:
        return ""
    head_line = (
        "Some lines of this project's agent instructions no longer match the code or the "
        "current decisions (found by `gitmem stale`). Trust the code and the decisions over "
        "these lines, and mention them to the user if your task touches them:"
    )
    shown: list[str] = []
    used = len(head_line)
    for line in lines[:MAX_LINES]:
        if used + len(line) + 1 > MAX_CHARS:
            break
        shown.append(line)
        used += len(line) + 1
    more = len(lines) - len(shown)
    tail = [f"- and {more} more (`gitmem stale` lists them)."] if more else []
    return "\n".join([head_line, *shown, *tail])


def _stat(root: str, doc: str) -> list[int] | None:
    try:
        st = os.stat(os.path.join(root, doc))
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _exists_now(root: str, finding: dict[str, Any]) -> bool:
    ref = str(finding.get("ref") or "")
    base = os.path.dirname(str(finding.get("file") or ""))
    if not ref:
        return False
    where = [os.path.join(root, ref.lstrip("/"))]
    if not ref.startswith("/"):
        where.append(os.path.join(root, base, ref))
    return any(os.path.exists(p) for p in where)


def _refresh(loc: Location, path: str) -> None:
    """Start ``gitmem stale`` detached, unless one was started in the last
    RETRY_SECONDS (the marker file's time)."""
    marker = path + ".started"
    try:
        if time.time() - os.stat(marker).st_mtime < RETRY_SECONDS:
            return
    except OSError:
        pass
    try:
        os.makedirs(loc.state_dir, exist_ok=True)
        with open(marker, "w", encoding="utf-8") as fh:
            fh.write(str(os.getpid()))
    except OSError:
        return
    from gitmem.spawn import detach

    detach(["stale", "--json"], loc.root)
