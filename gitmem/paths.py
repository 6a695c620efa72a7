"""Turn whatever path an agent or a user hands us into a repository-relative POSIX path.

Handles absolute paths, paths relative to a cwd in a subdirectory, Windows separators,
symlinked temp dirs, and paths inside another linked worktree of the same repository.
The rules live in ``gitmem.location`` (string-only, for the agent hooks); this is the
``Repo`` wrapper the rest of gitmem uses.
"""

from __future__ import annotations

import os

from gitmem import location
from gitmem.repo import Repo


def to_repo_relative(raw: str, repo: Repo, cwd: str | os.PathLike[str] | None = None) -> str | None:
    """Return ``raw`` relative to the repository root, or None if it lies outside it
    (see ``gitmem.location.relative``)."""
    return location.relative(
        raw, str(repo.root), str(repo.common_dir), None if cwd is None else os.fspath(cwd)
    )
