"""The output of a short git command, for the agent hooks, without ``subprocess``.

Importing ``subprocess`` (with ``selectors``, ``signal``, ``threading``, ``contextlib``)
costs a fresh interpreter several milliseconds, and the session-start hook only needs two
short git commands. ``os.posix_spawnp`` and a pipe do the same job; where there is no
``posix_spawnp`` (Windows) this falls back to ``gitmem.git``.

The environment is ``plumbing_env()`` (the caller's without a git hook's ``GIT_DIR`` and
``GIT_INDEX_FILE``; ``gitmem.git`` uses it too) with ``GIT_OPTIONAL_LOCKS=0``: a read-only
``git status`` then does not take the index lock, so it never makes the user's own
``git commit`` fail with "index.lock exists" while an agent session starts.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Sequence


def plumbing_env() -> dict[str, str]:
    """For plumbing on the repository at ``cwd`` from inside another tool's process: a
    git hook's ``GIT_DIR`` and temporary ``GIT_INDEX_FILE`` must not leak into it."""
    return {k: v for k, v in os.environ.items() if k not in ("GIT_INDEX_FILE", "GIT_DIR")}


def environment() -> dict[str, str]:
    return {**plumbing_env(), "GIT_OPTIONAL_LOCKS": "0"}


def output(args: Sequence[str], root: str, *, timeout: float = 5.0) -> str | None:
    """The stdout of ``git ARGS`` run in ``root``, or None if git is missing, fails or
    runs past ``timeout`` seconds (it is then killed). stderr is discarded."""
    spawn = getattr(os, "posix_spawnp", None)
    if spawn is None:
        from gitmem import git

        code, out, _ = git.run(args, root, env=environment(), check=False, timeout=timeout)
        return out if code == 0 else None
    import select

    read_end, write_end = os.pipe()  # both close-on-exec; dup2 clears it on fd 1
    try:
        null = os.open(os.devnull, os.O_RDWR)
        try:
            pid = spawn(
                "git",
                ["git", "-C", root, *args],
                environment(),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, null, 0),
                    (os.POSIX_SPAWN_DUP2, write_end, 1),
                    (os.POSIX_SPAWN_DUP2, null, 2),
                ],
                setpgroup=0,  # its own process group: a timeout kills what git started too
            )
        finally:
            os.close(null)
    except OSError:
        os.close(read_end)
        return None
    finally:
        os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                timed_out = True
                try:  # noqa: SIM105 (contextlib costs a fresh interpreter ~1 ms)
                    os.killpg(pid, 9)
                except OSError:  # it has just exited
                    pass
                break
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    if timed_out or os.waitstatus_to_exitcode(status) != 0:
        return None
    return b"".join(chunks).decode("utf-8", "surrogateescape")


# the files a decision may govern: tracked ones plus untracked, not-ignored ones
LS_FILES = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")


def file_names(out: str) -> list[str]:
    """``git ls-files -z`` output as names, each once (a file in conflict is listed once per
    stage)."""
    return list(dict.fromkeys(name for name in out.split("\0") if name))


def foreign_owner(*paths: str | os.PathLike[str]) -> bool:
    """True if one of ``paths`` belongs to another user than the one running, as git's
    ``safe.directory`` check sees it: root run through sudo also owns ``SUDO_UID``'s files.
    Only a hint (a trusted ``safe.directory`` entry makes git accept such a repository), to
    be confirmed by a git command; two ``lstat`` calls, so the hooks can afford it. False
    where there are no user ids (Windows: git compares SIDs there)."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:
        return False
    uid = geteuid()
    mine = {uid}
    sudo = os.environ.get("SUDO_UID", "")
    if uid == 0 and sudo.isdigit():
        mine.add(int(sudo))
    for path in paths:
        try:
            if os.lstat(path).st_uid not in mine:
                return True
        except OSError:
            continue
    return False


def refused(root: str, git_dir: str) -> bool:
    """True if git refuses the repository at ``root`` for its owner (see
    ``foreign_owner``): one git process, and only when the owner differs."""
    return foreign_owner(root, git_dir) and output(["rev-parse", "--git-dir"], root) is None
