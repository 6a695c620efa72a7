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
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX)
        except BaseException:
            fh.close()
            raise
        self._fh = fh
        return fh

    def __exit__(self, *exc: object) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            try:
                fcntl.flock(fh, fcntl.LOCK_UN)
            finally:
                fh.close()
