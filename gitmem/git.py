"""Every git subprocess goes through here.

Always ``-z`` where git lists paths, ``--no-ext-diff`` on diffs, and ``no_git_env()`` when
talking to a repository other than the one whose hook exported ``GIT_*`` variables.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from gitmem import leangit
from gitmem.errors import GitCommandError, UnsafeRepositoryError

# Variables that configure how git reaches the outside world or which configuration it
# reads, not which repository it uses.
_KEEP = {
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_SSL_CAINFO",
    "GIT_SSL_NO_VERIFY",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_GLOBAL",  # which configuration files the user's git reads
    "GIT_CONFIG_SYSTEM",
    "GIT_ASKPASS",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
}


def no_git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without the ``GIT_*`` variables git exports while a hook runs."""
    env = dict(os.environ if base is None else base)
    return {k: v for k, v in env.items() if not k.startswith("GIT_") or k in _KEEP}


plumbing_env = leangit.plumbing_env  # one definition, light enough for the hooks


# Settings of the user's that change what gitmem reads: `log.showSignature` prints the
# verification of a signed commit ("Good "git" signature for ...") on stdout before the
# `--format` output of `git log` and `git show`, so provenance read a garbled sha.
_FIXED = ("-c", "log.showSignature=false")


def run_bytes(
    args: Sequence[str],
    cwd: str | os.PathLike[str],
    *,
    env: Mapping[str, str] | None = None,
    input_: bytes | None = None,
    timeout: float | None = None,
) -> tuple[int, bytes, bytes]:
    """Run ``git ARGS`` in ``cwd``; return (returncode, stdout, stderr) as bytes. A time-out
    or a missing git is returncode -1. Raises UnsafeRepositoryError, whatever the caller
    makes of failures, when git refused the repository for its owner."""
    try:
        proc = subprocess.run(
            ["git", *_FIXED, *args],
            cwd=cwd,
            env=None if env is None else dict(env),
            input=input_,
            capture_output=True,
            check=False,
            timeout=timeout,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return -1, b"", str(exc).encode()
    if proc.returncode != 0:
        _raise_if_refused(cwd, proc.stderr, env)
    return proc.returncode, proc.stdout, proc.stderr


def _raise_if_refused(
    cwd: str | os.PathLike[str], stderr: bytes, env: Mapping[str, str] | None
) -> None:
    """Most commands say so when git refuses a repository for its owner; some (``git
    diff``) then run as if outside any repository and say only that, so a failure in a
    folder that belongs to another user is confirmed with ``rev-parse``. Only on failures:
    a command that works costs nothing more."""
    said = stderr
    if b"safe.directory" not in said:
        if not leangit.foreign_owner(cwd):
            return
        try:
            said = subprocess.run(
                ["git", "rev-parse", "--git-dir"],
                cwd=cwd,
                env=None if env is None else dict(env),
                capture_output=True,
                check=False,
                timeout=10,
            ).stderr
        except (OSError, subprocess.TimeoutExpired):
            return
        if b"safe.directory" not in said:
            return
    raise UnsafeRepositoryError(os.fspath(cwd), said.decode("utf-8", "replace"))


def run(
    args: Sequence[str],
    cwd: str | os.PathLike[str],
    *,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    input_: bytes | None = None,
    timeout: float | None = None,
) -> tuple[int, str, str]:
    """Run ``git ARGS`` in ``cwd``; return (returncode, stdout, stderr)."""
    code, raw_out, raw_err = run_bytes(args, cwd, env=env, input_=input_, timeout=timeout)
    out = raw_out.decode("utf-8", "surrogateescape")
    err = raw_err.decode("utf-8", "surrogateescape")
    if check and code != 0:
        raise GitCommandError(["git", *args], code, out, err)
    return code, out, err


# Partial clones (`git clone --filter=blob:none`, common for large repositories) leave
# blobs on the remote, and git fetches one the first time it is read: a round trip each.
# Where gitmem reads many (the records of the captured sessions, every version of a file
# `git blame` reads), it fetches them first, in one request (session 39).


def promisor_remote(cwd: str | os.PathLike[str]) -> str | None:
    """The remote a partial clone fetches its missing objects from, or None (no partial
    clone): ``remote.<name>.promisor``, or ``extensions.partialClone`` as older git wrote
    it. Read from the repository's config file first: git is asked only where that file
    names either (or includes others), so other clones pay no git process."""
    from gitmem.errors import NotARepositoryError
    from gitmem.location import locate

    try:
        config = os.path.join(locate(os.fspath(cwd)).common_dir, "config")
        with open(config, encoding="utf-8", errors="replace") as fh:
            text = fh.read().lower()
    except (NotARepositoryError, OSError):
        text = "promisor"  # git knows better
    if not any(word in text for word in ("promisor", "partialclone", "[include")):
        return None
    pattern = r"^(remote\..*\.promisor|extensions\.partialclone)$"
    code, out, _ = run(["config", "--get-regexp", pattern], cwd, env=no_git_env(), check=False)
    for line in out.splitlines() if code == 0 else []:
        key, _, value = line.partition(" ")
        if key == "extensions.partialclone":
            return value.strip() or None
        if value.strip().lower() in ("true", "yes", "on", "1"):
            return key[len("remote.") : -len(".promisor")]
    return None


def fetch_missing(
    cwd: str | os.PathLike[str], remote: str, revs: Sequence[str], commits: Sequence[str] = ()
) -> None:
    """Fetch from ``remote``, in one request, the objects that ``git rev-list --objects
    REVS`` reaches (or, with ``commits``, the trees of those commits alone) and this
    clone lacks, as git's own on-demand fetch does for one at a time. Best effort: what
    is still missing is fetched when read."""
    env = no_git_env()
    args = ["rev-list", "--objects", "--missing=print", *revs]
    if commits:
        args += ["--no-walk", "--stdin"]
    listed = "".join(c + "\n" for c in commits).encode() if commits else None
    code, out, _ = run(args, cwd, env=env, check=False, timeout=60, input_=listed)
    missing = [line[1:].strip() for line in out.splitlines() if line.startswith("?")]
    if code != 0 or not missing:
        return
    # without the clone's filter: a tree it left out (`--filter=tree:0`) comes with what
    # is in it, which rev-list could not list
    run(
        ["-c", f"remote.{remote}.partialclonefilter=", "-c", "fetch.negotiationAlgorithm=noop",
         "fetch", remote, "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no",
         "--stdin"],
        cwd, env=env, check=False, timeout=120,
        input_="".join(oid + "\n" for oid in missing).encode(),
    )  # fmt: skip


def read_blobs(
    cwd: str | os.PathLike[str],
    names: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> dict[str, bytes]:
    """The blob each of ``names`` names (``<rev>:<path>``; no name holds a newline, as the
    batch reads one a line), read in one ``git cat-file --batch``, by name; a name that
    names no blob (missing, a tree) is left out. GitmemError where git fails."""
    from gitmem.errors import GitmemError

    unique = list(dict.fromkeys(names))
    batch = "".join(f"{n}\n" for n in unique).encode("utf-8", "surrogateescape")
    code, data, err = run_bytes(
        ["cat-file", "--batch"], cwd, env=env, input_=batch, timeout=timeout
    )
    if code != 0:
        said = err.decode("utf-8", "replace").strip().splitlines() or [f"exit {code}"]
        raise GitmemError(f"git cat-file failed: {said[0]}")
    found: dict[str, bytes] = {}
    pos = 0
    for name in unique:  # answered in the order asked, one header line each
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            continue  # "<name> missing"
        size = int(header[2])
        found[name] = data[pos : pos + size]
        pos += size + 1
    return found


def ls_files(root: Path) -> list[str]:
    """Tracked files plus untracked, not-ignored ones: the files a decision may govern."""
    _, out, _ = run(list(leangit.LS_FILES), cwd=root)
    return leangit.file_names(out)


class Provenance(NamedTuple):
    """The last commit that changed a file. ``shallow``: that commit is where a shallow
    clone's history was cut (``git clone --depth``, CI checkouts): git reports it as
    adding every file it holds, so the change was made there *or earlier*, by whoever."""

    sha: str
    author: str
    date: str
    subject: str
    shallow: bool = False


def last_change(root: Path, relpath: str) -> Provenance | None:
    """The last commit that changed ``relpath`` at its current path, or None if uncommitted.

    No ``--follow``: a rename is itself the last change at the new path, and rename
    detection over a large commit costs seconds.
    """
    rc, out, _ = run(
        [
            "log",
            "-1",
            "--no-ext-diff",
            "--format=%H%x00%an%x00%aI%x00%s%x00%P%x00%D",
            "--",
            relpath,
        ],
        cwd=root,
        check=False,
    )
    if rc != 0 or not out.strip():
        return None
    fields = [*out.rstrip("\n").split("\x00"), "", "", "", "", "", ""]
    sha, author, date, subject, parents, decorations = fields[:6]
    # a shallow clone's boundary commit shows no parents and the pseudo-decoration "grafted"
    cut = not parents.strip() and "grafted" in decorations.split(", ")
    return Provenance(sha=sha, author=author, date=date, subject=subject, shallow=cut)
