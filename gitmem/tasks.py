"""The tasks a project defines: Makefile targets, package.json scripts, justfile recipes,
tox environments, nox sessions and the project's own ``python -m`` modules. ``gitmem
stale`` asks whether a command an instruction file names still exists. Each reader
answers None when it cannot tell (a Makefile with pattern rules or computed targets, a
package.json that does not parse, a tox env_list with factors), and the checker then stays
silent rather than guess."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

_MAKE_RULE = re.compile(r"^([^\s#:=][^:=#]*?)\s*::?(?!=)")
_MAKE_INCLUDE = re.compile(r"^-?s?include\s+(.+)$")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)(?:\s+[^:=]*)?\s*:(?!=)")
_JUST_ALIAS = re.compile(r"^alias\s+([A-Za-z_][\w-]*)\s*:=")
_TOX_SECTION = re.compile(r"^\[testenv:([^\]]+)\]", re.MULTILINE)
_TOX_LIST = re.compile(r"^(?:envlist|env_list)\s*=(.*(?:\n[ \t]+.*)*)", re.MULTILINE)
_NOX_SESSION = re.compile(
    r"^@(?:nox\.)?session\b(\([^)]*\))?\s*\n(?:@.*\n)*\s*def\s+(\w+)", re.MULTILINE
)
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# tox runs `pyXY` and `pypyXY` environments without declaring them
TOX_IMPLICIT = re.compile(r"^(?:py|pypy)\d*$")
JUSTFILES = ("justfile", "Justfile", ".justfile")


def nearest(root: Path, start: str, names: tuple[str, ...]) -> Path | None:
    """The first of ``names`` found in ``start`` (repository-relative folder) or a parent
    folder up to the root."""
    here = start.strip("/")
    while True:
        for name in names:
            candidate = root / here / name if here else root / name
            if candidate.is_file():
                return candidate
        if not here:
            return None
        here = here.rpartition("/")[0]


def make_targets(makefile: Path) -> set[str] | None:
    """The Makefile's explicit targets (and those of the files it includes), or None when
    a pattern rule or a computed name could make any target exist."""
    return _make_targets(makefile, frozenset())


def _make_targets(makefile: Path, _seen: frozenset[Path]) -> set[str] | None:
    try:
        text = makefile.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    targets: set[str] = set()
    for raw in text.replace("\\\n", " ").splitlines():
        if raw.startswith("\t"):
            continue
        line = raw.strip()
        inc = _MAKE_INCLUDE.match(line)
        if inc:
            for name in inc.group(1).split():
                if "$" in name or "*" in name:
                    return None
                path = (makefile.parent / name).resolve()
                if path in _seen or not path.is_file():
                    continue
                more = _make_targets(path, _seen | {makefile.resolve()})
                if more is None:
                    return None
                targets |= more
            continue
        m = _MAKE_RULE.match(raw)
        if not m:
            continue
        for name in m.group(1).split():
            if "%" in name or "$" in name:
                return None
            if name not in (".PHONY", ".DEFAULT", ".SUFFIXES"):
                targets.add(name)
        if m.group(1).strip() == ".PHONY":
            targets |= set(raw.split(":", 1)[1].split())
    return targets


def npm_scripts(package_json: Path) -> set[str] | None:
    try:
        data = json.loads(package_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return set(scripts) if isinstance(scripts, dict) else set()


def just_recipes(justfile: Path) -> set[str] | None:
    try:
        text = justfile.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if re.search(r"^\s*(?:import|mod)\s", text, re.MULTILINE):
        return None  # recipes from other files: not followed
    out: set[str] = set()
    for line in text.splitlines():
        m = _JUST_ALIAS.match(line) or _JUST_RECIPE.match(line)
        if m and not line.startswith(("set ", "export ")):
            out.add(m.group(1))
    return out


def tox_envs(tox_ini: Path) -> set[str] | None:
    """The environments tox.ini declares (``[testenv:NAME]``, ``env_list``); None when a
    list uses factor expansion (``py{311,312}-django``): any name could exist."""
    try:
        text = tox_ini.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    envs = set(_TOX_SECTION.findall(text))
    for m in _TOX_LIST.finditer(text):
        for name in re.split(r"[\s,]+", m.group(1)):
            if "{" in name or "}" in name:
                return None
            if name:
                envs.add(name)
    return envs


def nox_sessions(noxfile: Path) -> set[str] | None:
    """The sessions noxfile.py defines (``@nox.session`` functions, or their ``name=``);
    None when it defines none that way (imported, or built in a loop)."""
    try:
        text = noxfile.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    out: set[str] = set()
    for args, func in _NOX_SESSION.findall(text):
        named = re.search(r"\bname\s*=\s*[\"']([^\"']+)", args or "")
        out.add(named.group(1) if named else func)
    return out or None


def python_module(root: Path, files: set[str], module: str) -> bool | None:
    """Whether the project's own module ``module`` exists; None when its top-level
    package is not in the repository (an installed tool: pytest, http.server)."""
    parts = module.split(".")
    for base in ("", "src/"):
        top = base + parts[0]
        if not (root / top).is_dir() and (top + ".py") not in files:
            continue
        stem = base + "/".join(parts)
        candidates = (stem + ".py", stem + "/__main__.py", stem + "/__init__.py")
        return any(c in files or os.path.isfile(root / c) for c in candidates)
    return None
