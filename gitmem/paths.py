"""Turn whatever path an agent or a user hands us into a repository-relative POSIX path.

Handles absolute paths, paths relative to a cwd in a subdirectory, Windows separators,
symlinked temp dirs, and paths inside another linked worktree of the same repository.
Import-light: used on the hook hot path.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gitmem.repo import Repo, worktree_roots

_DRIVE = re.compile(r"^[A-Za-z]:/")


def _rel_under(path: str, root: str) -> str | None:
    if path == root:
        return ""
    prefix = root.rstrip("/") + "/"
    if path.startswith(prefix):
        return path[len(prefix) :]
    return None


def to_repo_relative(raw: str, repo: Repo, cwd: str | os.PathLike[str] | None = None) -> str | None:
    """Return ``raw`` relative to the repository root, or None if it lies outside it.

    The result uses ``/`` separators, has no ``./`` or ``..`` parts and no trailing slash;
    the repository root itself is ``""``.
    """
    text = raw.strip().strip('"').strip("'")
    if not text:
        return None
    text = text.replace("\\", "/")
    base = Path(os.path.abspath(cwd)) if cwd is not None else Path.cwd()
    if _DRIVE.match(text):
        # A Windows absolute path on a POSIX machine: match it against the roots by suffix.
        lowered = text.lower()
        for root in worktree_roots(repo):
            name = root.as_posix().lower().lstrip("/")
            idx = lowered.find("/" + name.rsplit("/", 1)[-1] + "/")
            if idx >= 0:
                tail = text[idx + 1 :].split("/", 1)
                return _clean(tail[1] if len(tail) > 1 else "")
        return None
    joined = text if text.startswith("/") else (base / text).as_posix()
    normal = os.path.normpath(joined).replace("\\", "/")
    for candidate in _variants(normal):
        for root in worktree_roots(repo):
            for root_variant in _variants(root.as_posix()):
                rel = _rel_under(candidate, root_variant)
                if rel is not None:
                    return _clean(rel)
    return None


def _variants(path: str) -> list[str]:
    """The path as given and with symlinks resolved (e.g. /tmp vs /private/tmp)."""
    out = [path]
    try:
        real = os.path.realpath(path)
    except OSError:
        return out
    if real != path:
        out.append(real)
    return out


def _clean(rel: str) -> str:
    rel = os.path.normpath(rel).replace("\\", "/") if rel else ""
    if rel == ".":
        return ""
    return rel.strip("/")
