"""The files a turn's shell commands wrote that their words do not name.

The tool-call hooks count a shell command's edits from its words (``sed -i``, ``>``,
``rm``, ``mv``: gitmem.agent.toolpaths.bash_writes). A command that runs other code names
nothing it writes: a code generator, a formatter, a migration, a script (``make gen``,
``npm run format``, ``ruff format .``, ``./scripts/bump.sh``). Before session 36 those
files were no edit of the session's, so `gitmem why` and `sessions --edited` never named
the session behind them, nor did the commit's ``Gitmem-Session:`` trailer.

So the pre- and post-tool hooks of a shell call mark when it ran (a ``shell`` line in the
session's state, a lock and an append each; since session 49 whether or not the session's
prompts are captured: turning capture off turned the rules' check below off too), and at
the turn's end the stop hook runs one ``git status`` (read-only: it takes no index lock)
and counts as the session's edits the changed and new files whose modification time falls
while one of the turn's commands ran (for a turn that never ended, the capture flusher
does when it notes the turn: gitmem.unfinished). Files git ignores (build output) are not
counted. A file someone else saved while a command ran would be counted too: the windows
are only as long as the commands. They are read on the clock of the file system that
stamps the files (``clock_skew``).

A deleted file has no time of its own; the folder it was in does (removing an entry
stamps its folder). So a tracked file deleted since the last commit counts when the
nearest folder of its path that still exists was last changed while a command ran, and
the session had not already seen it gone: at an earlier turn's end, or as the turn began
(each end notes the deletions it saw, and so does the turn-start job below: ``gone``
lines). What that cannot tell apart: a file the user deleted during the turn, in a folder
a command of the turn changed too.

What a command added to a file breaks a critical decision's rule? The stop hook reads it
against the file as the turn found it, not as the last commit has it, so a line the user
had not committed is not the command's (gitmem.agent.claude.commands_broke_a_rule), nor
one of the user's work a `git stash pop` put back (``stash_entries``).

Both come from one background job the prompt hook of a captured session starts
(``python -m gitmem _turn-start``, since session 38): one ``git status``, then the
deletions already there (a ``gone`` line) and the changed files a critical rule governs,
written to git's object store as they are, their ids noted (a ``base`` line). A job that
read the work tree after the turn's first command started notes nothing (the command
may have written already): the turn is then read as before session 38, from the last
commit and the earlier turns' ends.
"""

from __future__ import annotations

import os
import time

from gitmem import leangit
from gitmem.agent import state
from gitmem.agent.toolpaths import SHELL_TOOL
from gitmem.locked import touch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.location import Location

SHELL = "shell"  # the state line of a shell call: its start (end false) or end (end true)
GONE = "gone"  # the deletions a turn's end saw in the work tree (``paths``, ``root``)
# The changed files a critical rule governs, as a turn found them (``files``: path -> the
# id of a blob of its text then, or None where it was deleted; ``since``: the prompt's time)
BASE = "base"
MAX_BASE_BYTES = 1 << 20  # a larger file is not kept: the check reads it from the commit
# The stash's entries as a shell command whose words name it found them (``commits``:
# id -> commit time), before it ran: see ``stash_entries``
STASHED = "stashed"
# How far before a command's start (and after its end) a file's time may lie and still be
# its write: the kernel stamps files from a clock that may lag by a tick, the marks are
# rounded to the millisecond, and some file systems keep whole seconds (two on FAT), which
# their whole-second times say. No more: the agent itself writes its own files (Claude
# Code's settings) a moment before a command.
SLACK_S = 0.05
COARSE_SLACK_S = 2.0
# The files a turn's commands wrote that are counted, at most (the first in path order): a
# formatter run over a repository rewrites thousands, and with 500 (before session 40)
# `sessions` said "500 files edited" of 5,000. At 5,000 the stop hook's one `git diff` of
# them for critical rules took 1.9 s of its 2.4 (measured), well inside its 10 s.
MAX_FILES = 5000
# The changed files whose text a turn's start keeps (each a blob written to git's store)
MAX_BASE_FILES = 500
_STATUS = ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")


def mark(
    loc: Location, session_id: str, end: bool, background: bool = False, command: str = ""
) -> None:
    """Note that a shell call of the session starts (or ended) now, in the work tree at
    ``loc``; ``background``: the call returned, its command runs on (it then ends with
    the turn). A starting ``command`` that names the stash: its entries too (``stash_entries``)."""
    marks = {"bg": True} if background else {}
    stash = stash_entries(loc.root) if not end and "stash" in command else None
    with state.open_session(loc.shared_state_dir, session_id) as session:
        if stash:
            session.append(STASHED, commits=stash, root=loc.root)
        session.append(SHELL, end=end, root=loc.root, **marks)


def stash_entries(root: str) -> dict[str, int] | None:
    """Each entry of the stash of the work tree at ``root``: its commit's id and time.

    Why: `git stash pop` or `apply` run by the agent puts back work the
    user stashed. It is written while the agent's command runs, so before session 58 the
    turn's end read it as the command's, and where it broke a critical rule sent the agent
    back "to change it to follow the decision": to rewrite the user's own unfinished work,
    which a `git checkout` of a branch holding the same lines never did. The entries are
    read before the command runs, as a popped one is gone from the stash after it. One
    `git log` (1.4-1.7 ms more for the hook, measured), only for a command whose words
    say ``stash``."""
    out = leangit.output(
        ("log", "-g", "--no-show-signature", "--format=%H %ct", "refs/stash", "--"), root
    )
    if not out:
        return None
    found: dict[str, int] = {}
    for line in out.splitlines()[:MAX_STASHES]:
        sha, _, when = line.partition(" ")
        if sha and when.isdigit():
            found[sha] = int(when)
    return found or None


MAX_STASHES = 100  # the newest stash entries kept (a stash of years holds hundreds)


class Turn:
    """When the shell commands of the turn ran, and what its tool calls edited."""

    __slots__ = ("base", "edited", "gone", "named", "root", "spans", "stashed")

    def __init__(
        self,
        spans: list[tuple[float, float]],
        edited: set[str],
        root: str,
        gone: frozenset[str] = frozenset(),
        base: dict[str, str | None] | None = None,
        named: tuple[str, ...] = (),
        stashed: tuple[str, ...] = (),
    ) -> None:
        self.spans = spans
        self.edited = edited
        self.named = named  # what the turn's shell commands wrote by name (`sed -i`, `>`)
        self.root = root  # the work tree the latest command ran in ("": not said)
        self.gone = gone  # deletions an earlier turn's end of the session saw (any tree)
        # the changed files a critical rule governs as the turn found them, taken before
        # its first command started (None: no such note)
        self.base = base
        # the stash entries its commands found that were made before its first command
        # ran: the user's work, not the turn's (``stash_entries``)
        self.stashed = stashed


class Written:
    """What a turn's shell commands wrote (``paths``; ``named``: what their words named)
    and the turn's ``base``."""

    __slots__ = ("base", "named", "paths", "stashed")

    def __init__(
        self,
        paths: list[str],
        base: dict[str, str | None] | None,
        named: tuple[str, ...] = (),
        stashed: tuple[str, ...] = (),
    ) -> None:
        self.paths = paths
        self.base = base
        self.named = named
        self.stashed = stashed


def turn(session: state.Session, until: float | None = None) -> Turn:
    """The turn in progress (since the session's edits were last noted): when its shell
    commands ran since the last turn's end, as (start, end) spans, and the paths its tool
    calls edited. Each end is paired with the latest start still open (calls an agent runs
    in parallel end in any order; their spans then cover them together). A failed or
    interrupted command ends too where the agent says so (Claude Code's and Qwen Code's
    PostToolUseFailure). An end whose start was not marked (an agent with no before-tool
    hook for it) runs from the session's previous line.

    A call that returned while its command runs on in the background (Claude Code's
    ``run_in_background``, or a command it moved there at its timeout; Qwen Code's and
    Gemini CLI's ``is_background``), and a start never ended (Codex's ``exec_command``
    returns with no after-tool hook when the command outlives its wait; a command killed,
    or interrupted where the agent says nothing), run to the end of their turn: to
    ``until`` (the stop hook's now) or, for a turn that never ended, to its last line
    (the flusher's reading, or the line before the next prompt's ``asked``). Never past
    it: a server left running, or the span of a command the user interrupted, would
    otherwise claim every file the user saves between turns."""
    spans: list[tuple[float, float]] = []
    edited: set[str] = set()
    named: dict[str, None] = {}  # in order, once each
    starts: list[float] = []
    running: list[float] = []  # the starts of commands that went on in the background
    bases: list[tuple[float, dict[str, str | None]]] = []
    stash: dict[str, int] = {}
    previous, root = 0.0, ""
    text = session.text()  # read once: the turn's lines, and the deletions seen before it
    for item in state.since_noted(text):
        kind, when = item.get("k"), item.get("t")
        if kind == "edited":
            edited.update(str(p) for p in item.get("paths") or [])
            if item.get("tool") == SHELL_TOOL:  # the post-tool hook's, from the words
                named.update((str(p), None) for p in item.get("paths") or [])
        elif kind == "stop":  # an earlier turn's end looked at its commands
            spans, starts, running, bases, stash = [], [], [], [], {}
            edited, named = set(), {}  # (where no record notes them: capture off)
        elif kind == STASHED and isinstance(item.get("commits"), dict):
            stash.update((str(c), int(t)) for c, t in item["commits"].items() if isinstance(t, int))
        if not isinstance(when, (int, float)):
            continue
        if kind == BASE:  # not a moment of the turn's calls: `previous` stays
            files = item.get("files")
            if isinstance(files, dict):
                bases.append(
                    (when, {str(p): b if isinstance(b, str) else None for p, b in files.items()})
                )
            continue
        if kind == SHELL:
            root = str(item.get("root") or root)  # the work tree the latest command ran in
            if not item.get("end"):
                starts.append(when)
            else:
                start = starts.pop() if starts else previous or when
                if item.get("bg"):
                    running.append(start)
                else:
                    spans.append((start, when))
        elif kind == state.ASKED and previous:  # the turn before never ended: what ran ends with it
            spans.extend((start, max(start, previous)) for start in [*running, *starts])
            running, starts = [], []
        previous = when
    end = previous if until is None else until
    spans.extend((start, max(start, end)) for start in [*running, *starts])
    if not spans:
        return Turn(spans, edited, root, named=tuple(named))
    first = min(start for start, _ in spans)
    taken = [files for when, files in bases if when <= first]  # before any command ran
    # an entry made in the turn (a whole second before its first command, at least) may
    # hold what its commands wrote: `git stash`, then `git stash pop`
    users = tuple(c for c, made in stash.items() if made < int(first))
    return Turn(spans, edited, root, _gone(text), taken[-1] if taken else None, tuple(named), users)


def _gone(text: str) -> frozenset[str]:
    """Every deletion an earlier turn's end of the session (its file's ``text``) saw."""
    items = state.items(text.splitlines(), frozenset((GONE,)))
    return frozenset(str(p) for item in items for p in item.get("paths") or [])


def note_written(
    shared_dir: str | os.PathLike[str], session_id: str, root: str, until: float | None = None
) -> Written:
    """What the session's turn in progress wrote through its shell commands
    (``written``), recorded as the session's edits; returns those paths and the turn's
    base. The work tree is the one the commands ran in, else ``root``; git runs outside
    the session's lock. The turn's end (the stop hook) and the capture flusher, for a turn
    that never ended (gitmem.unfinished), call this before they note the edits; ``until``:
    when the turn ends (see ``turn``)."""
    with state.open_session(shared_dir, session_id) as session:
        done = turn(session, until)
    skew = clock_skew(os.fspath(shared_dir))
    where = done.root or root
    gone: list[str] = []
    wrote = written(where, done, gone, skew)
    seen = sorted(set(gone) - done.gone)[:MAX_FILES]
    if wrote or seen:
        with state.open_session(shared_dir, session_id) as session:
            if wrote:
                state.append_edited(session, wrote, SHELL, where)
            if seen:
                session.append(GONE, paths=seen, root=where)
    return Written(wrote, done.base, done.named, done.stashed)


def written(root: str, turn: Turn, gone: list[str] | None = None, skew: float = 0.0) -> list[str]:
    """The changed, new and deleted files of the work tree at ``root`` (git's paths,
    sorted) last written while one of the turn's shell commands ran (a deletion: see the
    module's text), and not edited by its tool calls (what their words named, or an edit
    tool's); none where git cannot say. Every deletion git lists is added to ``gone``.
    ``skew``: how far the file system's clock is ahead of this machine's (``clock_skew``)."""
    spans = [(start + skew, end + skew) for start, end in turn.spans]
    if not spans:
        return []
    changes = status(root)
    if changes is None:
        return []
    found: list[str] = []
    for code, path in changes:
        deleted = "D" in code
        if deleted and gone is not None:
            gone.append(path)
        if path in turn.edited or (deleted and path in turn.gone):
            continue
        mtime = _folder_time(root, path) if deleted else _time(os.path.join(root, path))
        if mtime is None:
            continue
        slack = COARSE_SLACK_S if mtime == int(mtime) else SLACK_S
        if any(start - slack <= mtime <= end + slack for start, end in spans):
            found.append(path)
    return sorted(found)[:MAX_FILES]


def clock_skew(folder: str) -> float:
    """How far ahead of this machine's clock the clock that stamps files in ``folder`` is
    (seconds; 0.0 where it cannot be told or is within ``SLACK_S``): the times of a file
    of gitmem's there (``CLOCK_FILE``) set to "now" (``utime``: on NFS the server's now,
    through a container's bind mount the host's), then read back. The turn's spans are
    marked on this machine's clock and compared with the files' modification times, which
    the file system's clock stamps: on a network file system whose server's clock is off
    (NFS home folders), or in a dev container whose virtual machine's clock drifts from
    the host's after a sleep, a second apart was enough that nothing a script wrote was
    the turn's, before session 58 (seen with the hooks' clock set one second off either
    way): not recorded, and its breaking of a critical rule not sent back. On a file system
    that keeps whole seconds, only a skew past ``COARSE_SLACK_S`` (which such times are
    read with) is said. A file of its own, not the session's state file, whose time says
    when the session last wrote (gitmem.unfinished). Two system calls, at a turn's end."""
    probe = os.path.join(folder, CLOCK_FILE)
    try:
        touch(probe)
        stamped = os.stat(probe).st_mtime
    except OSError:
        return 0.0
    skew = stamped - time.time()
    # a whole second (a file system that keeps no finer) says the skew to within one
    limit = COARSE_SLACK_S if stamped == int(stamped) else SLACK_S
    return skew if abs(skew) > limit else 0.0


CLOCK_FILE = "clock"  # in the git directory's gitmem/ folder: see ``clock_skew``


def status(root: str) -> list[tuple[str, str]] | None:
    """(git's two-letter status, path) of each changed, new and deleted file of the work
    tree at ``root``, files git ignores left out; None where git cannot say."""
    out = leangit.output(_STATUS, root, timeout=10)
    if out is None:
        return None
    return [(entry[:2], entry[3:]) for entry in out.split("\0") if entry[3:]]


def note_turn_start(
    loc: Location, session_id: str, since: float, deleted: list[str], kept: list[str]
) -> bool:
    """Note what the work tree at ``loc`` held as the turn whose prompt came at ``since``
    began, before any command of it ran: the ``deleted`` files (a ``gone`` line: not the
    turn's commands' deletions), and the ``kept`` changed files (a ``base`` line: each
    file's text written to git's object store as it is on disk, no filters, so a
    checkout's line endings stay; None for a file not there). Nothing when a turn's end
    came after ``since`` (the turn is over: the note would be the next turn's, taken
    late), nor when a shell command of the session started after ``since`` and before
    the files were read (its writes may be in them). Whether it noted anything."""
    files: dict[str, str | None] = {}
    hashed: list[str] = []
    for path in kept[:MAX_BASE_FILES]:
        full = os.path.join(loc.root, path)
        try:
            if os.path.getsize(full) > MAX_BASE_BYTES or not os.path.isfile(full):
                continue
        except OSError:  # not there: deleted
            files[path] = None
            continue
        hashed.append(path)
    if hashed:
        args = ("hash-object", "-w", "--no-filters", "--", *hashed)
        out = leangit.output(args, loc.root, timeout=30)
        ids = out.split() if out is not None else []
        if len(ids) == len(hashed):
            files.update(zip(hashed, ids, strict=True))
    read = time.time()  # the work tree was read by now
    if not files and not deleted:
        return False
    with state.open_session(loc.shared_state_dir, session_id) as session:
        newest_first = session.text().splitlines()[::-1]  # the lines since the prompt only
        for item in state.items(newest_first, frozenset(("stop", SHELL))):
            when = item.get("t")
            if not isinstance(when, (int, float)):
                continue
            if when < since:
                break
            if item.get("k") == "stop" or when <= read:
                return False
        if deleted:
            session.append(GONE, paths=sorted(deleted)[:MAX_FILES], root=loc.root)
        if files:
            session.append(BASE, since=since, files=files, root=loc.root)
    return True


def _time(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def _folder_time(root: str, path: str) -> float | None:
    """When the nearest folder of ``path`` that still exists last changed (an entry added,
    removed or renamed in it): the time of a deletion, at the latest."""
    folder = os.path.dirname(path)
    while folder and not os.path.isdir(os.path.join(root, folder)):
        folder = os.path.dirname(folder)
    return _time(os.path.join(root, folder) if folder else root)
