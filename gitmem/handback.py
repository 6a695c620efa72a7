"""What root makes in another user's repository is handed to that user.

An agent in a container that runs as root, with the user's checkout bind-mounted
(``docker run -v "$PWD":/work``; git there needs ``safe.directory``), or a ``sudo``
command: gitmem's hooks write in the user's git directory on every prompt (the session's
capture is git objects and a ref; the session state, compiled records and index are under
``.git/gitmem``), and all of it was root's. git makes a loose object's folder
(``.git/objects/xx/``) once and then only adds to it, so a folder root made refused the
user's own objects: their next ``git commit`` failed now and then with "insufficient
permission for adding an object to repository database" (seen: 3 of 60 objects the user
wrote after one root session of six prompts), and their gitmem could not write its state.

So a gitmem process that runs as root where the git directory is another user's hands to
that user, when it ends (and a hook, which ends with ``os._exit``, before it does): every
entry of gitmem's own folders there (``.git/gitmem``, ``refs/gitmem``, their reflogs) that
root owns, and what root made since the process started among the object folders and the
git directory's own files (a ``packed-refs`` or ``index`` rewritten). Objects root's other
git commands made before are left as they are: gitmem did not make them. Elsewhere this
costs one ``geteuid`` call, and root in its own repository a ``stat`` more (a rootless
container, where the user is root inside, is one: the files are the user's already).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.location import Location

ROOTS_DAEMON = "watch-0."
SLACK_S = 2.0  # a file's time may trail the clock by a tick of the file system's
# (common dir, git dir) -> (uid, gid, since): what this process hands back, once each
_PENDING: dict[tuple[str, str], tuple[int, int, float]] = {}
_REGISTERED: list[bool] = []


def adopt(loc: Location, uid: int, gid: int) -> None:
    """Hand to ``uid:gid``, at exit, what this process makes in ``loc``'s git directory
    (``gitmem.location.locate`` calls this where the process is root and the directory
    that user's)."""
    key = (loc.common_dir, loc.git_dir)
    if key in _PENDING:
        return
    _PENDING[key] = (uid, gid, time.time() - SLACK_S)
    if not _REGISTERED:
        import atexit

        atexit.register(finish)
        _REGISTERED.append(True)


def finish() -> None:
    """Hand back what is pending (see the module's text), at the process's end."""
    sweep()
    _PENDING.clear()


def sweep() -> None:
    """Hand back what this process made so far (a daemon, after each re-index); never
    raises: nothing here may fail the command."""
    for (common, git_dir), (uid, gid, since) in list(_PENDING.items()):
        try:  # noqa: SIM105 (contextlib costs a hook ~1 ms)
            hand_back(common, git_dir, uid, gid, since)
        except Exception:
            pass


def hand_back(common: str, git_dir: str, uid: int, gid: int, since: float) -> int:
    """Give ``uid:gid`` what root owns among gitmem's folders in the repository (all of
    it) and among git's (what changed since ``since``); how many entries changed hands."""
    handed = 0
    for folder in dict.fromkeys(
        (
            os.path.join(common, "gitmem"),
            os.path.join(git_dir, "gitmem"),
            os.path.join(common, "refs", "gitmem"),
            os.path.join(common, "logs", "refs", "gitmem"),
        )
    ):
        handed += _all_of(folder, uid, gid)
    objects = os.path.join(common, "objects")
    for name in _names(objects):
        folder = os.path.join(objects, name)
        if _changed(folder, since):  # an entry added changes the folder's time
            handed += _own(folder, uid, gid) + _entries(folder, uid, gid, since)
    for top in dict.fromkeys((common, git_dir)):
        handed += _entries(top, uid, gid, since, files_only=True)
    return handed


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _changed(path: str, since: float) -> bool:
    try:
        return os.lstat(path).st_mtime >= since
    except OSError:
        return False


def _own(path: str, uid: int, gid: int) -> int:
    """``path`` given to ``uid:gid`` if root owns it; 1 if it was."""
    try:
        if os.lstat(path).st_uid != 0:
            return 0
        os.chown(path, uid, gid, follow_symlinks=False)
    except OSError:
        return 0
    return 1


def _entries(folder: str, uid: int, gid: int, since: float, *, files_only: bool = False) -> int:
    handed = 0
    try:
        with os.scandir(folder) as it:
            for entry in it:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if st.st_uid != 0 or st.st_mtime < since:
                    continue
                if files_only and entry.is_dir(follow_symlinks=False):
                    continue
                handed += _own(entry.path, uid, gid)
    except OSError:
        pass
    return handed


def _all_of(folder: str, uid: int, gid: int) -> int:
    """Everything root owns in ``folder``, the folder too, but root's own daemon's files
    (``watch-0.sock``, its lock and pointer: gitmem.client.daemon_file), which its
    clients find by their owner."""
    if not os.path.isdir(folder):
        return 0
    handed = _own(folder, uid, gid)
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            if not name.startswith(ROOTS_DAEMON):
                handed += _own(os.path.join(dirpath, name), uid, gid)
    return handed
