"""Talk to a running ``gitmem watch`` over its Unix socket. Import-light (hook hot path):
``socket`` (~5 ms to import, with its enums) loads only when a socket file exists.

Every failure (no daemon, stale socket, timeout, bad reply) returns None: callers fall back
to in-process retrieval. Nothing here ever waits long.
"""

from __future__ import annotations

import os

from gitmem import leanjson
from gitmem.location import git_state_dir, machine_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeGuard

    from gitmem.location import Location
    from gitmem.repo import Repo

CONNECT_TIMEOUT_S = 0.2
REPLY_TIMEOUT_S = 5.0
# An agent's prompt waits on the hook. A warm daemon answers in ~20 ms, and when it is
# busy for longer (re-indexing a branch switch: 19 s at 1,500 records), the hook's own
# in-process retrieval (~0.3 s) beats waiting: it had waited the full 5 s (measured).
HOOK_REPLY_TIMEOUT_S = 1.0


def compat() -> str:
    """What a daemon must share with its clients: gitmem's version and the match table's
    schema. A daemon refuses other clients, so a hook never gets answers from another
    version of gitmem (a second install elsewhere), nor makes it rebuild the table in
    another schema."""
    from gitmem import __version__
    from gitmem.table import SCHEMA_VERSION  # on the prompt hook's path already

    return f"{__version__}/{SCHEMA_VERSION}"


def socket_path(
    repo: Repo | Location,
    folder: str | None = None,
    *,
    create: bool = False,
    far: bool = False,
    machine: bool = False,
) -> str | None:
    """``<state dir>/watch.sock`` (``folder``: another state folder's; ``machine``: the
    name of this machine's own daemon, see ``daemon_file``), or, where that is
    too long for a Unix socket (about 100 bytes: a deep checkout) or ``far`` (the state
    folder's file system cannot hold one: see ``pointer``),
    ``watch-<hash of the git directory>.sock`` in this user's own temporary folder
    (``location.temp_folder``, made with ``create``), in /tmp or the next that is theirs,
    whatever ``$TMPDIR`` says: an agent's hooks and the user's shell must find the same
    socket. Before session 58 that was a name in /tmp itself, where another user could
    listen first: their answers reached this user's agent as project decisions, and they
    read this user's prompts (seen, with two accounts). None where this user has no such
    folder."""
    state = folder or os.fspath(repo.state_dir)
    path = os.path.join(state, daemon_file(state, "sock", machine=machine))
    if len(path.encode()) < 100 and not far:
        return path
    import hashlib

    from gitmem.location import temp_folder

    private = temp_folder(create=create, fixed=True)
    if private is None:
        return None
    digest = hashlib.sha1(str(repo.git_dir).encode()).hexdigest()[:16]
    return os.path.join(private, f"watch-{digest}.sock")


def pointer(state: str, *, machine: bool = False) -> str:
    """The file in the state folder ``state`` that names the socket a daemon listens on
    elsewhere: where that folder's file system cannot hold a socket (a Windows or SMB
    share, a virtual machine's shared folder: `bind` fails with "Operation not
    supported"), the daemon listens in the user's own temporary folder and leaves this
    file for its clients. Before session 59 `gitmem watch` stopped there with "Error:
    cannot use: Operation not supported", and no hook ever ranked with embeddings."""
    return os.path.join(state, daemon_file(state, "where", machine=machine))


def listening(repo: Repo | Location) -> str | None:
    """The socket this user's daemon for ``repo`` listens on, where there is one of
    theirs: in the state folder; where this process keeps its state aside (a sandbox that
    keeps .git read-only: gitmem.location.state_dir_of), the one in .git, where the daemon
    started outside listens; or the one a ``pointer`` names. This machine's own names
    first (see ``daemon_file``): where another machine's daemon holds the plain ones, they
    lead nowhere from here. Where no daemon runs, three to six ``lstat`` calls."""
    states = [os.fspath(repo.state_dir)]
    primary = git_state_dir(os.fspath(repo.git_dir))
    if primary != states[0]:
        states.append(primary)
    namings = (True, False) if machine_id() else (False,)
    for machine in namings:
        for state in states:
            path = socket_path(repo, state, machine=machine)
            if ours(path):
                return path
    for machine in namings:
        for state in states:
            named = pointer(state, machine=machine)
            try:
                if os.lstat(named).st_uid != _uid():
                    continue  # another user's (see ours)
                with open(named, encoding="utf-8") as fh:
                    path = fh.read().strip()
            except OSError:
                continue
            if path == socket_path(repo, far=True) and ours(path):
                return path
    return None


def _uid() -> int | None:
    """This process's user, or None where there is no such thing (Windows, where no socket
    is made)."""
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None


def daemon_file(state: str, kind: str, *, machine: bool = False) -> str:
    """The name of the daemon's ``kind`` of file (``sock``, ``lock``, ``where``: see
    ``pointer``) in the state folder
    ``state``: ``watch.<kind>`` where the folder is this user's (a clone of one user's, the
    usual), else ``watch-<uid>.<kind>``; with ``machine``, ``watch.<machine id>.<kind>``
    (``watch-<uid>.<machine id>.<kind>``), the names of a daemon of this machine's where
    another machine's holds the plain ones (see ``gitmem.daemon.run``). Before session 64
    a second machine working in a clone on a network file system got no daemon of its own
    where the file system's locks span machines ("another `gitmem watch` of yours already
    serves this work tree"), and where they do not, its daemon took the socket's name and
    the first machine's exited ("its socket was removed"), and then the other way round.
    In a clone several accounts share
    (gitmem.sharing), each runs a daemon of their own, which no other account asks (see
    ``ours``): before session 59 the first account's daemon held the work tree's one lock,
    and every other account's hooks ranked without embeddings for as long as it ran (their
    `gitmem watch`: "another `gitmem watch` already serves this work tree")."""
    uid = _uid()
    try:
        owner = os.stat(state).st_uid if uid is not None else None
        if uid == 0 and owner == 0:
            # root in another user's repository hands them the state folder it makes
            # (gitmem.handback): the git directory's owner names its files from the start
            owner = os.stat(os.path.dirname(state)).st_uid
    except OSError:
        owner = None  # not made yet: whoever makes it (the daemon) owns it
    name = "watch" if uid is None or owner is None or owner == uid else f"watch-{uid}"
    tag = machine_id() if machine else ""
    return f"{name}.{tag}.{kind}" if tag else f"{name}.{kind}"


def ours(path: str | None) -> TypeGuard[str]:
    """``path`` is a socket of this user's: a daemon of another user (a clone several
    accounts share, with the git directory open to the group) is not asked, as its
    answers would be given to this user's agent as the project's decisions."""
    import stat  # loaded with os already

    if path is None:
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    uid = _uid()
    return stat.S_ISSOCK(st.st_mode) and (uid is None or st.st_uid == uid)


def request(
    repo: Repo | Location, payload: dict[str, Any], timeout: float = REPLY_TIMEOUT_S
) -> Any:
    path = listening(repo)
    if path is None:
        return None
    reply = _exchange(path, {**payload, "compat": compat()}, timeout)
    if not isinstance(reply, dict) or not reply.get("ok"):
        return None
    if "compat" not in reply and payload.get("op") != "stop":
        # a daemon older than the check of its own code (see gitmem.daemon.CodeStamp): it
        # would serve an upgraded gitmem with the old code until idle. Stop it; the next
        # hook that starts daemons starts the current one.
        _exchange(path, {"op": "stop"}, CONNECT_TIMEOUT_S)
        return None
    return reply.get("result")


def _exchange(path: str, payload: dict[str, Any], timeout: float) -> Any:
    """Send one request line and read one reply line; None on any failure."""
    import socket

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect(path)
            sock.settimeout(timeout)
            sock.sendall(leanjson.dumps(payload).encode() + b"\n")
            chunks = []
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                chunks.append(data)
                if data.endswith(b"\n"):
                    break
        return leanjson.loads(b"".join(chunks))
    except (OSError, ValueError):
        return None


def retrieve_raw(
    repo: Repo | Location,
    prompt: str,
    paths: list[str],
    *,
    k: int = 10,
    cwd: str | None = None,
    timeout: float = REPLY_TIMEOUT_S,
) -> dict[str, Any] | None:
    # the work tree's root as this process sees it: a dev container's bind mount of the
    # host's checkout is one work tree at two places, and one daemon serves both (the
    # socket is in the git directory they share; see Retriever.retrieve's client_root)
    root = os.fspath(repo.root)
    payload = {"op": "retrieve", "prompt": prompt, "paths": paths, "k": k, "cwd": cwd, "root": root}
    result = request(repo, payload, timeout)
    return result if isinstance(result, dict) else None


def retrieve(
    repo: Repo, prompt: str, paths: list[str], *, k: int = 10, cwd: str | None = None
) -> Any:
    """The daemon's answer as a ``gitmem.retrieve.Result``, or None."""
    raw = retrieve_raw(repo, prompt, paths, k=k, cwd=cwd)
    if raw is None:
        return None
    from gitmem.retrieve import Result

    try:
        return Result.from_json(raw)
    except (KeyError, TypeError, ValueError):
        return None


def ping(repo: Repo, timeout: float = 1.0) -> dict[str, Any] | None:
    result = request(repo, {"op": "ping"}, timeout=timeout)
    return result if isinstance(result, dict) else None
