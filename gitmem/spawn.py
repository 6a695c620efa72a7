"""Start a gitmem command in the background, detached from the caller (hooks never wait)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path


def detach(args: list[str], cwd: Path) -> bool:
    """Run ``python -m gitmem ARGS`` in its own session with no stdio; False if it could
    not be started (the caller's work is never lost: it is retried by a later run)."""
    import subprocess

    with contextlib.suppress(OSError):
        subprocess.Popen(
            [sys.executable, "-m", "gitmem", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        return True
    return False
