"""Locate a git repository without spawning git or importing pygit2.

A ``Path``-based view of ``gitmem.location`` (which the agent hooks use directly): plain
repositories, linked worktrees, submodules, and ``GIT_DIR`` / ``GIT_WORK_TREE``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from gitmem import location
from gitmem.location import locate


class Repo(NamedTuple):
    """A work tree and its git directories.

    ``git_dir`` is the per-worktree git directory (``git rev-parse --git-dir``);
    ``common_dir`` is shared by all worktrees (``git rev-parse --git-common-dir``).
    """

    root: Path
    git_dir: Path
    common_dir: Path

    @property
    def continuity_dir(self) -> Path:
        return self.root / ".continuity"

    @property
    def state_dir(self) -> Path:
        """Derived state for this work tree (its decisions may differ from other worktrees'):
        ``<git_dir>/gitmem``, or where that cannot be written a folder of this user's in a
        temporary directory (see ``gitmem.location.state_dir_of``)."""
        return Path(location.state_dir_of(str(self.git_dir)))

    @property
    def shared_state_dir(self) -> Path:
        """Derived state shared by every worktree of the repository (logs, sessions)."""
        return self.common_dir / "gitmem"


def discover(start: str | os.PathLike[str] | None = None) -> Repo:
    """Find the repository containing ``start`` (default: the current directory)."""
    return locate(start).repo()


def worktree_roots(repo: Repo) -> list[Path]:
    """Work-tree roots of every worktree of the repository, this one first."""
    return [Path(p) for p in location.worktree_roots(str(repo.root), str(repo.common_dir))]
