"""The tasks a project defines: Makefile targets, package.json scripts, justfile recipes,
tox environments, nox sessions, Hatch environments, Poe the Poet and Taskfile tasks, Cargo
packages and targets, Go modules and the project's own ``python -m`` modules. ``gitmem
stale`` asks whether a command an instruction file names still exists. Each reader answers
None when it cannot tell (a Makefile with pattern rules or computed targets, a package.json
or TOML file that does not parse, a tox env_list with factors), and the checker then stays
silent rather than guess."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10: the same parser, before it joined the standard library
    import tomli as tomllib

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
# where Hatch reads a project's environments: hatch.toml first, else pyproject.toml
HATCH_FILES = ("hatch.toml", "pyproject.toml")
# the environments Hatch always has (its `test`, `fmt`, `build` and uv commands use them)
HATCH_BUILTIN = frozenset(
    {"default", "hatch-test", "hatch-static-analysis", "hatch-build", "hatch-uv"}
)
# go-task's file names, in the order it looks for them
TASKFILES = tuple(
    f"{case}askfile{dist}.{ext}"
    for dist in ("", ".dist")
    for ext in ("yml", "yaml")
    for case in "Tt"
)
# what `cargo --bin/--example/--test/--bench NAME` names: [[bin]] tables and the folder
# Cargo finds such targets in without one (a file there, or a folder with main.rs)
CARGO_TARGETS = {"bin": "src/bin", "example": "examples", "test": "tests", "bench": "benches"}


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


def _toml(path: Path) -> dict[str, object] | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _table(data: object, *keys: str) -> dict[str, object]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def hatch_envs(config: Path) -> set[str] | None:
    """The environments Hatch has in this project: hatch.toml's ``[envs.NAME]`` or
    pyproject.toml's ``[tool.hatch.envs.NAME]``, and its own (``default``, ...)."""
    data = _toml(config)
    if data is None:
        return None
    envs = (
        _table(data, "envs")
        if config.name == "hatch.toml"
        else _table(data, "tool", "hatch", "envs")
    )
    return set(envs) | HATCH_BUILTIN


def poe_tasks(pyproject: Path) -> set[str] | None:
    """The tasks of Poe the Poet (``[tool.poe.tasks]``); None when pyproject.toml does not
    configure it (``poe`` may read another file) or includes tasks from other files."""
    data = _toml(pyproject)
    poe = _table(data, "tool", "poe")
    if not poe or "include" in poe:
        return None
    return set(_table(poe, "tasks"))


def taskfile_tasks(taskfile: Path) -> set[str] | None:
    """The tasks of a Taskfile (go-task: ``tasks:`` and each one's ``aliases``); None when
    it includes other Taskfiles (their tasks are namespaced), has wildcard names, or does
    not parse."""
    from ruamel.yaml import YAML  # only `gitmem stale` reads Taskfiles
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe").load(taskfile.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("includes"):
        return None
    tasks = data.get("tasks")
    if not isinstance(tasks, dict):
        return set()
    out = {str(name) for name in tasks}
    for task in tasks.values():
        aliases = task.get("aliases") if isinstance(task, dict) else None
        out |= {str(a) for a in aliases} if isinstance(aliases, list) else set()
    return None if any("*" in name for name in out) else out


def cargo_targets(root: Path, manifests: list[str]) -> dict[str, set[str]] | None:
    """What ``cargo -p``, ``--bin``, ``--example``, ``--test`` and ``--bench`` can name
    in the repository's packages (``manifests``: its Cargo.toml files): ``package`` ->
    package names, and ``bin`` (a package's ``src/main.rs`` is a binary of its name),
    ``example``, ``test``, ``bench`` -> target names, declared or where Cargo finds them.
    None when a manifest does not parse."""
    out: dict[str, set[str]] = {"package": set(), **{kind: set() for kind in CARGO_TARGETS}}
    for rel in manifests:
        data = _toml(root / rel)
        if data is None:
            return None
        name = _table(data, "package").get("name")
        if not isinstance(name, str):
            continue  # a workspace's root manifest
        out["package"].add(name)
        folder = (root / rel).parent
        if (folder / "src" / "main.rs").is_file():
            out["bin"].add(name)
        for kind, auto in CARGO_TARGETS.items():
            declared = data.get(kind)
            for target in declared if isinstance(declared, list) else []:
                if isinstance(target, dict) and isinstance(target.get("name"), str):
                    out[kind].add(target["name"])
            try:
                entries = list((folder / auto).iterdir())
            except OSError:
                continue
            for entry in entries:
                if entry.suffix == ".rs" and entry.is_file():
                    out[kind].add(entry.stem)
                elif (entry / "main.rs").is_file():
                    out[kind].add(entry.name)
    return out


_GO_MODULE = re.compile(r"^module\s+\"?([^\s\"]+)", re.MULTILINE)


def go_modules(root: Path, go_mods: list[str]) -> dict[str, str]:
    """The Go modules of the repository (``go_mods``: its go.mod files): module path ->
    the repository-relative folder it lives in."""
    out: dict[str, str] = {}
    for rel in go_mods:
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        m = _GO_MODULE.search(text)
        if m:
            out[m.group(1)] = rel.rpartition("/")[0]
    return out


def go_package(modules: dict[str, str], package: str) -> str | None:
    """The repository-relative folder of ``package`` (an import path), or None when no
    module of the repository holds it (the standard library, another module)."""
    best = max(
        (m for m in modules if package == m or package.startswith(m + "/")), key=len, default=None
    )
    if best is None:
        return None
    rest = package[len(best) :].strip("/")
    return "/".join(p for p in (modules[best], rest) if p)
