"""Whether this gitmem runs from a temporary environment: one a tool made in its cache
to run a command once (``uvx gitmem ...``, ``uv run --with gitmem ...``, ``pipx run
gitmem ...``).

Everything gitmem installs (agent hooks, plugins, git hook shims, the MCP registration)
calls gitmem again later, from the agent's or git's PATH, where such an environment is not:
``uvx`` puts its folder on PATH for the one command only, and ``pipx run`` not at all. So
``uvx gitmem install claude`` said "added ... hooks" and doctor, run the same way, found
``gitmem-hook`` on PATH, in uv's cache; the agent then ran without gitmem (its hooks say
so once, at session start). Worse, a git hook shim named that environment's ``gitmem`` as
its fallback, and uv keeps its cache until it is cleaned: the commit-time check ran
whichever gitmem the user first tried, however much newer the installed one was.

The sign is a cache directory tag (CACHEDIR.TAG, https://bford.info/cachedir/) in a folder
*above* the environment, where that folder is uv's or pipx's cache: they tag their cache
roots (``~/.cache/uv``, ``~/.cache/pipx``; uv's may be anywhere, ``UV_CACHE_DIR``, and is
then known by its layout: ``archive-v0/<id>`` for ``uvx``, ``builds-v0/.tmp<id>`` for ``uv run
--with``). uv and virtualenv (20.28 on) also tag every environment they create, a tool's
(``uv tool install``) and a project's ``.venv`` included, so the environment's own folder
does not count. Another tool's tagged cache is not taken for a temporary one: Poetry keeps
its lasting environments in ``~/.cache/pypoetry/virtualenvs``.

Likewise ``uv run gitmem install claude`` in a project that has gitmem among its
development dependencies (``uv add --dev gitmem``): ``uv run`` puts the project's
environment (``.venv/bin``) first on PATH for its command only (it sets
``UV_RUN_RECURSION_DEPTH``); an agent started from a shell where that environment is not
active does not find gitmem there.

Not on a hook's path: install, doctor and the git hook shims' writer only.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
# what each tool's temporary environments are made by, for the message
MADE_BY = {"uv": "`uvx` or `uv run --with`", "pipx": "`pipx run`"}
# the folders of uv's cache that hold its temporary environments (wherever the cache is)
UV_LAYOUT = re.compile(r"(archive|builds|environments)-v\d+")


@dataclass(frozen=True)
class Temporary:
    """A temporary environment: ``prefix``, inside ``tool``'s tagged cache folder ``cache``."""

    prefix: Path
    cache: Path
    tool: str  # uv or pipx

    def describe(self) -> str:
        return (
            f"a temporary environment in {self.tool}'s cache ({self.prefix}), "
            f"as {MADE_BY[self.tool]} makes one"
        )


def _tagged(folder: Path) -> bool:
    try:
        with open(folder / "CACHEDIR.TAG", "rb") as fh:
            return fh.read(len(SIGNATURE)) == SIGNATURE
    except OSError:
        return False


def temporary(prefix: str | Path | None = None) -> Temporary | None:
    """The temporary environment ``prefix`` (default: this interpreter's) is, or None."""
    try:
        env = Path(prefix if prefix is not None else sys.prefix).resolve()
    except (OSError, RuntimeError):
        return None
    for folder in env.parents:
        if _tagged(folder):
            if folder.name in MADE_BY:
                return Temporary(env, folder, folder.name)
            if UV_LAYOUT.fullmatch(env.relative_to(folder).parts[0]):
                return Temporary(env, folder, "uv")
            return None
    return None


def temporary_program(program: str | Path) -> Temporary | None:
    """The temporary environment a console script (``<env>/bin/gitmem``) belongs to."""
    try:
        env = Path(program).resolve().parent.parent
    except (OSError, RuntimeError):
        return None
    return temporary(env)


INSTALL_FOR_GOOD = (
    "install gitmem for good (`uv tool install gitmem`, `pipx install gitmem`, or "
    "`pip install gitmem` in an environment on PATH)"
)


def one_command_entries(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The PATH entries this command has for itself alone, which the PATH an agent or git
    runs gitmem from later will not have, each with what put it there: a temporary
    environment's scripts folder (``uvx`` puts it first), and the project environment
    ``uv run`` puts first (unless PATH holds it further on too: a shell that has it
    active)."""
    env = os.environ if environ is None else environ
    entries = env.get("PATH", "").split(os.pathsep)
    out: dict[str, str] = {}
    venv = env.get("VIRTUAL_ENV", "")
    first = entries[0] if entries else ""
    uv_run = bool(env.get("UV_RUN_RECURSION_DEPTH") and venv)
    if uv_run and first == os.path.join(venv, "bin") and entries.count(first) == 1:
        out[first] = f"the environment {venv}, which `uv run` puts on PATH for its command only"
    for entry in entries:
        if entry and entry not in out:
            found = temporary(Path(entry).parent)
            if found is not None:
                out[entry] = found.describe()
    return out


def lasting_path(environ: Mapping[str, str] | None = None) -> str:
    """PATH without its entries for this command alone (``one_command_entries``)."""
    env = os.environ if environ is None else environ
    return _without(env.get("PATH", ""), one_command_entries(env))


def _without(path: str, dropped: Mapping[str, str]) -> str:
    return os.pathsep.join(e for e in path.split(os.pathsep) if e not in dropped)


def unreachable(program: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Why what gitmem installs will not find ``program`` (gitmem-hook, gitmem) later:
    where it is on PATH only for this command, or where this gitmem runs from a temporary
    environment that PATH does not hold at all (``pipx run``); "" where it is on no PATH
    (an environment run by its path, not active); None where the PATH that lasts has it."""
    env = os.environ if environ is None else environ
    dropped = one_command_entries(env)
    if shutil.which(program, path=_without(env.get("PATH", ""), dropped)):
        return None
    for entry, why in dropped.items():
        if shutil.which(program, path=entry):
            return why
    here = temporary()
    return here.describe() if here is not None else ""


def advice(why: str) -> str:
    """What to do about ``unreachable``'s answer."""
    if "`uv run`" in why:
        return (
            "start the agent where that environment is active (`source .venv/bin/activate`, "
            "or `uv run claude`), or " + INSTALL_FOR_GOOD
        )
    return INSTALL_FOR_GOOD
