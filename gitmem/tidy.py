"""Per-session files removed once their session is long over.

Every agent session leaves small files in the shared git directory: its state
(``gitmem/sessions/<id>.jsonl``: what was shown, read and edited; see gitmem.agent.state)
with the copy of its view's lines the tool-call hooks read (``<id>.view``), and its
capture write-ahead file (``gitmem/capture/<id>.jsonl``, empty once flushed). The capture
flusher, which the stop hook starts in the background at the end of every agent turn,
removes them when they have been idle long enough, at most once an hour. A session
resumed after that starts with a fresh state: decisions it was shown before are shown
again once. Write-ahead files that still hold records are never removed (`gitmem sync`
commits them). Deletion happens under each file's lock, and the hooks re-open a file
removed while they waited for it (``gitmem.locked``), so no record is written into a
deleted file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from gitmem.agent.state import sessions_dir, view_file
from gitmem.capture import wal_dir
from gitmem.locked import remove_idle, touch

CAPTURE_IDLE_S = 24 * 3600  # an empty write-ahead file untouched for a day
SESSION_IDLE_S = 14 * 24 * 3600  # session state untouched for two weeks
EVERY_S = 3600
STAMP = "tidied"


def tidy(shared_dir: Path, *, force: bool = False) -> int:
    """Remove idle per-session files under ``shared_dir`` (``Repo.shared_state_dir``);
    returns how many. Without ``force``, does nothing if it ran in the last hour."""
    stamp = shared_dir / STAMP
    try:
        if not force and time.time() - stamp.stat().st_mtime < EVERY_S:
            return 0
    except FileNotFoundError:
        pass
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        touch(str(stamp))
    except OSError:  # a read-only git directory: nothing to tidy there either
        return 0
    removed = 0
    for folder, idle, only_empty in (
        (wal_dir(shared_dir), CAPTURE_IDLE_S, True),
        (sessions_dir(shared_dir), SESSION_IDLE_S, False),
    ):
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                if name.endswith(".jsonl"):
                    # a session's state file goes with its view file (gitmem.agent.state)
                    also = None if only_empty else view_file(path)
                    removed += remove_idle(path, idle, only_empty=only_empty, also=also)
                elif name.endswith(".view") and not os.path.exists(path[:-5] + ".jsonl"):
                    # its state file removed without it (by a gitmem before session 50)
                    removed += remove_idle(path, idle)
                elif (
                    ".transcript" in name or ".view." in name or name.endswith(".droid-turn")
                ) and _idle(path, idle):
                    # how far a transcript was read (gitmem.agent.rewind), whether a Droid
                    # turn's prompt was had (gitmem.agent.droid), or a write of either or
                    # of a view file (`<id>.view.<pid>.tmp`) cut off
                    os.unlink(path)
                    removed += 1
            except OSError:
                continue  # unreadable or racing another tidy: next time
    return removed


def _idle(path: str, seconds: float) -> bool:
    return time.time() - os.stat(path).st_mtime > seconds
