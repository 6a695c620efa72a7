"""An append-and-read file under an exclusive ``flock``: the session state files and the
capture write-ahead files; and ``lock``, the lock every gitmem lock file takes. Built-in
modules only (the agent hooks use it)."""

from __future__ import annotations

import errno
import fcntl
import os

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from typing import IO

# What a file system without locks says to ``flock``: an NFS mount whose lock daemon does
# not answer ("No locks available"), Lustre mounted without `flock` ("Function not
# implemented"), some FUSE and virtual machines' shared folders ("Operation not
# supported").
NO_LOCKS = frozenset((errno.ENOLCK, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP))


def lock(fd: int, *, wait: bool = True) -> int | None:
    """An exclusive ``flock`` on the open file ``fd`` (``wait``: until it is free; else
    BlockingIOError at once). Where the file system has no locks (``NO_LOCKS``), the lock
    is taken instead on a stand-in file of the same identity (device and inode) in this
    user's own temporary folder, whose descriptor is returned (None for a lock on ``fd``
    itself): pass it to ``unlock``. That stands in among this machine's processes, not
    another machine's on the same network file system. Before session 59 every lock there
    failed: no prompt of a session was captured, each decision was shown again on every
    tool call, and `gitmem index` and `gitmem watch` stopped ("No locks available")."""
    how = fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB
    try:
        fcntl.flock(fd, how)
        return None
    except OSError as exc:
        if exc.errno not in NO_LOCKS:
            raise
        refused = exc
    from gitmem.location import temp_folder

    folder = temp_folder(create=True, fixed=True)
    if folder is None:
        raise refused
    st = os.fstat(fd)
    stand_ins = os.path.join(folder, "locks")
    os.makedirs(stand_ins, exist_ok=True)
    path = os.path.join(stand_ins, f"{st.st_dev:x}-{st.st_ino:x}.lock")
    stand_in = os.open(path, os.O_RDONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(stand_in, how)
    except BaseException:
        os.close(stand_in)
        raise
    return stand_in


def unlock(fd: int, stand_in: int | None) -> None:
    """Release what ``lock`` took on ``fd`` (``stand_in``: what it returned)."""
    if stand_in is None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    else:
        os.close(stand_in)


class Held:
    """``with Held(fd)``: ``fd`` locked (``lock``) while the block runs."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.stand_in: int | None = None

    def __enter__(self) -> None:
        self.stand_in = lock(self.fd)

    def __exit__(self, *exc: object) -> None:
        unlock(self.fd, self.stand_in)


class LockedFile:
    """``with LockedFile(path) as fh``: ``path`` (and its folder) created if needed, opened
    for appending and reading, and held under an exclusive lock until the block ends."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fh: IO[str] | None = None
        self._stand_in: int | None = None

    def __enter__(self) -> IO[str]:
        while True:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            fh = open(self.path, "a+", encoding="utf-8", errors="replace")
            stand_in = None
            try:
                stand_in = lock(fh.fileno())
                # `remove_idle` may have deleted the file while this waited for the lock: a
                # lock on a deleted file guards nothing, and what is written there is lost
                if _is_at(fh, self.path):
                    break
            except BaseException:
                if stand_in is not None:
                    os.close(stand_in)
                fh.close()
                raise
            if stand_in is not None:
                os.close(stand_in)
            fh.close()
        self._fh, self._stand_in = fh, stand_in
        return fh

    def __exit__(self, *exc: object) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            try:
                unlock(fh.fileno(), self._stand_in)
            finally:
                fh.close()


def append_line(fh: IO[str], line: str) -> None:
    """Append ``line`` to the locked file ``fh`` in one write, on a line of its own (after a
    line an earlier writer left torn, if one did: killed midway). A write that fails midway
    (the disk full) is undone, the file cut back to its size before, so that it cannot tear
    the next writer's line; the OSError is raised. Written through the descriptor, not the
    text buffer, which would retry the failed write when the file is closed."""
    fd = fh.fileno()
    size = os.fstat(fd).st_size
    data = line.encode("utf-8") + b"\n"
    if size and os.pread(fd, 1, size - 1) != b"\n":
        data = b"\n" + data
    try:
        while data:  # a short write is the disk filling up: the next one says so (OSError)
            written = os.write(fd, data)
            if not written:
                raise OSError(f"{fh.name}: nothing written")
            data = data[written:]
    except OSError:
        try:  # noqa: SIM105 (contextlib costs a fresh interpreter ~1 ms)
            os.ftruncate(fd, size)
        except OSError:
            pass
        raise


def _is_at(fh: IO[str], path: str) -> bool:
    """``fh`` is the file at ``path`` (not one deleted, or replaced, since it was opened)."""
    try:
        at = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fh.fileno())
    return (at.st_dev, at.st_ino) == (mine.st_dev, mine.st_ino)


def remove_idle(
    path: str, idle_seconds: float, *, only_empty: bool = False, also: str | None = None
) -> bool:
    """Delete ``path`` if nothing has written to it for ``idle_seconds`` (and, with
    ``only_empty``, if it is empty), under its lock: a writer that opened it meanwhile
    finds it gone once it has the lock and opens the path again (``LockedFile``), so
    nothing is written into a deleted file. ``also``: a file that goes with it (under the
    same lock), where there is one. True if deleted."""
    import time

    try:
        with open(path, encoding="utf-8") as fh, Held(fh.fileno()):  # never creates it
            if not _is_at(fh, path):
                return False
            stat = os.fstat(fh.fileno())
            if time.time() - stat.st_mtime < idle_seconds or (only_empty and stat.st_size):
                return False
            if also is not None:
                try:  # noqa: SIM105 (contextlib costs a fresh interpreter ~1 ms)
                    os.unlink(also)
                except FileNotFoundError:
                    pass
            os.unlink(path)
            return True
    except FileNotFoundError:
        return False


def touch(path: str, times: tuple[float, float] | None = None) -> None:
    """Set the times of ``path`` (now, or ``times``), made if missing. One another user
    left (a `sudo gitmem`) is replaced by this user's own, where the folder lets them:
    only its owner may set a file's times to a moment of their choosing, so before
    session 58 such a stamp stopped the tidying of idle sessions for good, and the clock
    check of a turn's end (gitmem.agent.shelleffects.clock_skew). OSError where neither
    can be done (a read-only git directory)."""
    try:
        os.utime(path, times)
        return
    except FileNotFoundError:
        pass
    except PermissionError:
        os.unlink(path)
    with open(path, "a", encoding="utf-8"):
        pass
    if times is not None:
        os.utime(path, times)
