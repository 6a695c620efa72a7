"""Locate a git repository without spawning git or importing pygit2.

Hooks run this on every agent tool call, so it is pure Python over a few stat calls.
It understands plain repositories, linked worktrees (a ``.git`` file pointing at
``<common>/worktrees/<name>``), submodules, and ``GIT_DIR`` / ``GIT_WORK_TREE``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from gitmem.errors import NotARepositoryError


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
        """Derived state for this work tree (its decisions may differ from other worktrees')."""
        return self.git_dir / "gitmem"

    @property
    def shared_state_dir(self) -> Path:
        """Derived state shared by every worktree of the repository (logs, sessions)."""
        return self.common_dir / "gitmem"


def _read_gitfile(dotgit: Path) -> Path | None:
    try:
        text = dotgit.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    if not target.is_absolute():
        target = dotgit.parent / target
    return Path(os.path.normpath(target))


def _common_dir(git_dir: Path) -> Path:
    try:
        rel = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    common = Path(rel)
    if not common.is_absolute():
        common = git_dir / common
    return Path(os.path.normpath(common))


def discover(start: str | os.PathLike[str] | None = None) -> Repo:
    """Find the repository containing ``start`` (default: the current directory)."""
    env_dir = os.environ.get("GIT_DIR")
    if env_dir:
        # As git does: with GIT_DIR and no GIT_WORK_TREE, the work tree is the current
        # directory (git hooks run at the top of the work tree, e.g. a linked worktree's,
        # with GIT_DIR=<common>/worktrees/<name>).
        git_dir = Path(os.path.abspath(env_dir))
        work = os.environ.get("GIT_WORK_TREE")
        root = Path(os.path.abspath(work if work else (start or os.getcwd())))
        return Repo(root=root, git_dir=git_dir, common_dir=_common_dir(git_dir))

    here = Path(os.path.abspath(start if start is not None else os.getcwd()))
    for candidate in (here, *here.parents):
        dotgit = candidate / ".git"
        if dotgit.is_dir():
            return Repo(root=candidate, git_dir=dotgit, common_dir=_common_dir(dotgit))
        if dotgit.is_file():
            linked = _read_gitfile(dotgit)
            if linked is not None and linked.is_dir():
                return Repo(root=candidate, git_dir=linked, common_dir=_common_dir(linked))
    raise NotARepositoryError(str(here))


def worktree_roots(repo: Repo) -> list[Path]:
    """Work-tree roots of every worktree of the repository, this one first."""
    roots = [repo.root]
    main_root = repo.common_dir.parent if repo.common_dir.name == ".git" else None
    if main_root is not None and main_root != repo.root:
        roots.append(main_root)
    wt_dir = repo.common_dir / "worktrees"
    try:
        entries = list(wt_dir.iterdir())
    except OSError:
        entries = []
    for entry in entries:
        try:
            dotgit = (entry / "gitdir").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        root = Path(os.path.normpath(dotgit)).parent
        if root not in roots:
            roots.append(root)
    return roots
