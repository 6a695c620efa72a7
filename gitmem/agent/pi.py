"""pi's events (the pi coding agent, ``pi``), on the handlers written for Claude Code's
payloads.

pi has no command hooks: its extensions are TypeScript modules. gitmem's extension
(``hooks/pi/gitmem.ts``, installed as ``.pi/extensions/gitmem.ts``) forwards each event to
``gitmem-hook pi EVENT`` with Claude Code's payload fields (``session_id``, ``cwd``,
``tool_name``, ``tool_input``, ``prompt``) and reads Claude Code's answers, which it
places where pi reads them (see the extension). What is left here are pi's tool names and
arguments (1.6.0, read in its tools' schemas and seen in its events): ``read``, ``write``
(``path``, ``content``), ``edit`` (``path`` and ``edits``, a list of
``{oldText, newText}``: Claude Code's MultiEdit), ``bash`` (``command``), ``grep``
(``pattern``, ``path``, ``glob``), ``find`` (a glob ``pattern`` under ``path``) and ``ls``
(``path``).

Also here, for `gitmem doctor` and `gitmem install`: whether pi trusts a project, since it
loads a project's extensions only then (``trusted``).

Built-in modules only: the tool-call hooks import this module.
"""

from __future__ import annotations

import os

from gitmem.agent.toolpaths import translate

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from pathlib import Path
    from typing import Any

_PATH: dict[str, tuple[str, ...]] = {"file_path": ("path", "file_path")}
# pi tool -> (Claude Code tool, {Claude argument: pi's arguments, first found wins})
_TOOLS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "read": ("Read", _PATH),
    "write": ("Write", _PATH),
    "edit": ("MultiEdit", _PATH),  # its edits: see adapt
    "bash": ("Bash", {}),
    "grep": ("Grep", {}),
    "find": ("Glob", {}),
    "ls": ("LS", {}),
}


def _edit(edit: Any) -> Any:
    """One of pi's replacements as Claude Code's (``old_string``, ``new_string``)."""
    if not isinstance(edit, dict):
        return edit
    return {"old_string": edit.get("oldText"), "new_string": edit.get("newText")}


def adapt(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with pi's tool name and arguments as Claude Code names them (the
    original name kept as ``pi_tool_name``). An edit's replacements become MultiEdit's, so
    that a critical rule reads the lines they add; a single replacement given at the top
    level (pi's older edit tool) as well."""
    out = translate(payload, _TOOLS, "pi")
    tool_input = out.get("tool_input")
    if out.get("pi_tool_name") != "edit" or not isinstance(tool_input, dict):
        return out
    edits = tool_input.get("edits")
    adapted = dict(tool_input)
    if isinstance(edits, list):
        adapted["edits"] = [_edit(edit) for edit in edits]
    if "oldText" in tool_input or "newText" in tool_input:
        adapted.update(_edit(tool_input))
    return {**out, "tool_input": adapted}


def agent_dir(home: Path) -> Path:
    """pi's folder of the user's settings, extensions and trust decisions."""
    from pathlib import Path

    moved = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(moved).expanduser() if moved else home / ".pi" / "agent"


def untrusted(root: Path, home: Path) -> str | None:
    """Why pi would not load this project's extensions (its project trust, read as pi 1.6.0
    decides it, ``core/trust-manager.js``), or None when it would. The nearest folder, from
    the project up, with a decision in ``trust.json`` decides (true or false; null is no
    decision); else ``defaultProjectTrust`` in the user's settings.json: "always" trusts,
    "ask" (the default) asks when pi starts interactively and declines in print, JSON and
    RPC modes, "never" declines."""
    import json

    folder = agent_dir(home)
    try:
        with open(folder / "trust.json", encoding="utf-8-sig") as fh:
            decisions = json.load(fh)
    except FileNotFoundError:
        decisions = {}
    except (OSError, ValueError) as exc:
        return f"pi cannot read {folder / 'trust.json'} ({exc})"
    decisions = decisions if isinstance(decisions, dict) else {}
    current = os.path.realpath(root)
    while True:
        decision = decisions.get(current)
        if decision is True:
            return None
        if decision is False:
            return f"pi was told not to trust {current} ({folder / 'trust.json'})"
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    try:
        with open(folder / "settings.json", encoding="utf-8-sig") as fh:
            settings = json.load(fh)
    except (OSError, ValueError):
        settings = {}
    default = settings.get("defaultProjectTrust") if isinstance(settings, dict) else None
    if default == "always":
        return None
    if default == "never":
        return "pi trusts no project it was not told to (defaultProjectTrust: never)"
    return (
        "pi has not been told to trust this project: it asks when started here, and "
        "`pi -p` (print, JSON and RPC modes) skips the project's extensions without a word"
    )


def _glob(pattern: str) -> re.Pattern[str]:
    """A compiled minimatch glob, as pi matches its settings' patterns (``*`` and ``?``
    within a segment, ``**`` across them, ``[...]`` and ``{a,b}``)."""
    import re

    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        elif c == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out.append(
                "(?:" + "|".join(re.escape(a) for a in pattern[i + 1 : end].split(",")) + ")"
            )
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


def _normal(pattern: str) -> str:
    import posixpath

    pattern = pattern[2:] if pattern.startswith(("./", ".\\")) else pattern
    return posixpath.normpath(pattern.replace("\\", "/")) if pattern else pattern


def _turned_off(path: str, entries: list[str], base: str) -> str | None:
    """The entry of a settings ``extensions`` list that leaves the auto-discovered
    extension ``path`` unloaded (pi 1.6.0's ``isEnabledByOverrides``: a ``!glob`` matching
    its path from ``base``, its name or its whole path turns it off, a ``+path`` naming it
    exactly back on, a ``-path`` off again), or None."""
    rel = os.path.relpath(path, base).replace(os.sep, "/")
    names = (rel, os.path.basename(path), path.replace(os.sep, "/"))
    off = None
    for entry in entries:
        if entry.startswith("!") and any(_glob(_normal(entry[1:])).fullmatch(n) for n in names):
            off = entry
    for entry in entries:
        if entry.startswith("+") and _normal(entry[1:]) in (rel, names[2]):
            off = None
    for entry in entries:
        if entry.startswith("-") and _normal(entry[1:]) in (rel, names[2]):
            off = entry
    return off


def _extensions_setting(settings: Path) -> list[str]:
    import json

    try:
        with open(settings, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return []
    entries = data.get("extensions") if isinstance(data, dict) else None
    return [e for e in entries if isinstance(e, str)] if isinstance(entries, list) else []


def unloaded(root: Path, home: Path, scope: str, extension: Path) -> str | None:
    """Why pi's settings leave gitmem's extension of ``scope`` (project, user) at
    ``extension`` unloaded (``pi config`` writes such entries, and a team's committed
    .pi/settings.json may carry them), or None. A project's settings decide for its own
    extensions, and for a user extension they name by its whole path (as `pi config`'s
    project view writes them); the user's settings for the user's."""
    path = str(extension)
    project = root / ".pi"
    entries = _extensions_setting(project / "settings.json")
    base, where = project, project / "settings.json"
    if scope != "project" and not any(_normal(e.lstrip("!+-")) == path for e in entries):
        base = agent_dir(home)
        where = base / "settings.json"
        entries = _extensions_setting(where)
    said = _turned_off(path, entries, str(base))
    if said is None:
        return None
    return f'`{said}` under "extensions" in {where} leaves pi\'s copy in {path} unloaded'
