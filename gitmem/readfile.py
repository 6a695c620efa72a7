"""Reading a file that a command, an agent or a user names, without blocking on it.

A path in a command may name any file. A FIFO (`cp /tmp/fifo billing/x.py`, `echo x >
billing/pipe`) blocks whoever opens it until a writer comes: before session 43 the
tool-call hook that read it waited until its time ran out, and `gitmem check` on it
forever. A device (`/dev/zero`) never ends. So a file is opened without waiting and read
only when it is a regular file. Built-in modules only: the tool-call hooks import it.
"""

from __future__ import annotations

import os

_REGULAR = 0o100000  # stat.S_IFREG (the `stat` module is not needed for one constant)
_TYPE = 0o170000  # stat.S_IFMT


def read_regular(path: str, limit: int | None = None) -> str | None:
    """The text of the regular file at ``path`` (undecodable bytes replaced); None where
    it is missing, unreadable, no regular file, or larger than ``limit`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if os.fstat(fd).st_mode & _TYPE != _REGULAR:
            return None
        chunks: list[bytes] = []
        size = 0
        while limit is None or size <= limit:
            chunk = os.read(fd, (1 << 20) if limit is None else min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    if limit is not None and size > limit:
        return None
    return b"".join(chunks).decode("utf-8", "replace")
