"""An append-and-read file under an exclusive ``flock``: the session state files and the
capture write-ahead files. Built-in modules only (the agent hooks use it)."""

from __future__ import annotations

import fcntl
import os

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from typing import IO


class LockedFile:
    """``with LockedFile(path) as fh``: ``path`` (and its folder) created if needed, opened
    for appending and reading, and held under an exclusive lock until the block ends."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fh: IO[str] | None = None

    def __enter__(self) -> IO[str]:
        while True:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            fh = open(self.path, "a+", encoding="utf-8", errors="replace")
            try:
                fcntl.flock(fh, fcntl.LOCK_EX)
                # `remove_idle` may have deleted the file while this waited for the lock: a
                # lock on a deleted file guards nothing, and what is written there is lost
                if _is_at(fh, self.path):
                    break
            except BaseException:
                fh.close()
                raise
            fh.close()
        self._fh = fh
        return fh

    def __exit__(self, *exc: object) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            try:
                fcntl.flock(fh, fcntl.LOCK_UN)
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
        with open(path, encoding="utf-8") as fh:  # never creates it
            fcntl.flock(fh, fcntl.LOCK_EX)
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
