"""The files a turn's shell commands wrote that their words do not name.

The tool-call hooks count a shell command's edits from its words (``sed -i``, ``>``,
``rm``, ``mv``: gitmem.agent.toolpaths.bash_writes). A command that runs other code names
nothing it writes: a code generator, a formatter, a migration, a script (``make gen``,
``npm run format``, ``ruff format .``, ``./scripts/bump.sh``). Before session 36 those
files were no edit of the session's, so `gitmem why` and `sessions --edited` never named
the session behind them, nor did the commit's ``Gitmem-Session:`` trailer.

So the pre- and post-tool hooks of a shell call mark when it ran (a ``shell`` line in the
session's state, a lock and an append each; only where the session is captured), and at
the turn's end the stop hook runs one ``git status`` (read-only: it takes no index lock)
and counts as the session's edits the changed and new files whose modification time falls
while one of the turn's commands ran (for a turn that never ended, the capture flusher
does when it notes the turn: gitmem.unfinished). Files git ignores (build output) are not
counted, nor are deletions (a deleted file has no time to tell). A file someone else saved
while a command ran would be counted too: the windows are only as long as the commands.
"""

from __future__ import annotations

import os

from gitmem import leangit
from gitmem.agent import state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.location import Location

SHELL = "shell"  # the state line of a shell call: its start (end false) or end (end true)
# How far before a command's start (and after its end) a file's time may lie and still be
# its write: the kernel stamps files from a clock that may lag by a tick, the marks are
# rounded to the millisecond, and some file systems keep whole seconds (two on FAT), which
# their whole-second times say. No more: the agent itself writes its own files (Claude
# Code's settings) a moment before a command.
SLACK_S = 0.05
COARSE_SLACK_S = 2.0
MAX_FILES = 500
_STATUS = ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")


def mark(loc: Location, session_id: str, end: bool) -> None:
    """Note that a shell call of the session starts (or ended) now, in the work tree at
    ``loc``."""
    with state.open_session(loc.shared_state_dir, session_id) as session:
        session.append(SHELL, end=end, root=loc.root)


class Turn:
    """When the shell commands of the turn ran, and what its tool calls edited."""

    __slots__ = ("edited", "root", "spans")

    def __init__(self, spans: list[tuple[float, float]], edited: set[str], root: str) -> None:
        self.spans = spans
        self.edited = edited
        self.root = root  # the work tree the latest command ran in ("": not said)


def turn(session: state.Session) -> Turn:
    """The turn in progress (since the session's edits were last noted): when its shell
    commands ran since the last turn's end, as (start, end) spans, and the paths its tool
    calls edited. Each end is paired with the latest start still open (calls an agent runs
    in parallel end in any order; their spans then cover them together). A start never
    ended (a command interrupted, its writes unknown) is left out: its span would run on
    through whatever the user did before the next turn. An end whose start was not marked
    (an agent with no before-tool hook for it) runs from the session's previous line."""
    spans: list[tuple[float, float]] = []
    edited: set[str] = set()
    starts: list[float] = []
    previous, root = 0.0, ""
    for item in state.since_noted(session):
        kind, when = item.get("k"), item.get("t")
        if kind == "edited":
            edited.update(str(p) for p in item.get("paths") or [])
        elif kind == "stop":  # an earlier turn's end looked at its commands
            spans, starts = [], []
        if not isinstance(when, (int, float)):
            continue
        if kind == SHELL and not item.get("end"):
            starts.append(when)
        elif kind == SHELL:
            spans.append((starts.pop() if starts else previous or when, when))
            root = str(item.get("root") or root)
        previous = when
    return Turn(spans, edited, root)


def note_written(shared_dir: str | os.PathLike[str], session_id: str, root: str) -> list[str]:
    """What the session's turn in progress wrote through its shell commands
    (``written``), recorded as the session's edits; returns those paths. The work tree
    is the one the commands ran in, else ``root``; git runs outside the session's lock.
    The turn's end (the stop hook) and the capture flusher, for a turn that never ended
    (gitmem.unfinished), call this before they note the edits."""
    with state.open_session(shared_dir, session_id) as session:
        done = turn(session)
    where = done.root or root
    wrote = written(where, done)
    if wrote:
        with state.open_session(shared_dir, session_id) as session:
            session.append("edited", paths=wrote, tool=SHELL, root=where)
    return wrote


def written(root: str, turn: Turn) -> list[str]:
    """The changed and new files of the work tree at ``root`` (git's paths, sorted) last
    written while one of the turn's shell commands ran, and not edited by its tool calls
    (what their words named, or an edit tool's); none where git cannot say."""
    spans = turn.spans
    if not spans:
        return []
    out = leangit.output(_STATUS, root, timeout=10)
    if out is None:
        return []
    found: list[str] = []
    for entry in out.split("\0"):
        code, path = entry[:2], entry[3:]
        if not path or "D" in code or path in turn.edited:
            continue
        try:
            mtime = os.stat(os.path.join(root, path)).st_mtime
        except OSError:
            continue
        slack = COARSE_SLACK_S if mtime == int(mtime) else SLACK_S
        if any(start - slack <= mtime <= end + slack for start, end in spans):
            found.append(path)
    return sorted(found)[:MAX_FILES]
