"""The edits of agent turns that never ended, noted once their session has gone quiet.

A session's captured ref says which files it edited through its ``turn`` records, which the
stop hook writes at the end of each turn that edited a new file, and its closing record
(gitmem.agent.claude). A turn that never ends sends neither: the agent was killed, or the
user interrupted it (Claude Code runs no Stop hook after an interrupt) and then quit an
agent that has no session end (Codex). Its edits were only in the session's state file,
so `gitmem why` and `gitmem sessions --edited` missed them.

The capture flusher (`gitmem capture flush`, which every stop hook starts in the
background) and `gitmem sync` look for sessions whose state file has been idle for
``IDLE_S`` and holds edits no record lists yet, and write a ``turn`` record for them marked
``unfinished``: every file the session edited so far, as the stop hook would have (with
what the turn's ended shell commands wrote: gitmem.agent.shelleffects). The
record comes after the session's last prompt, so the prompt it is put down to is the one
the unended turn answered. A session merely quiet for a while (a long build inside a turn)
gets the same record early; its next stop notes any later edits, as after any turn.

Only where the session's prompts were captured (its write-ahead file exists, as the stop
hook requires); a session its user forgot is left alone by the capture itself.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any

from gitmem import capture, location
from gitmem.agent import shelleffects, state
from gitmem.agent.runner import AGENT_KEY
from gitmem.location import Location
from gitmem.locked import touch
from gitmem.repo import Repo

IDLE_S = 10 * 60  # no hook of the session for ten minutes
MAX_AGE_S = 14 * 24 * 3600  # older state files are tidy's (gitmem.tidy), not ours
STAMP = "unfinished-noted"  # under shared_state_dir: its time is the last look's horizon


def quiet_sessions(repo: Repo, since: float, horizon: float) -> list[str]:
    """The ids of sessions with a write-ahead file whose state file was last written after
    ``since`` and no later than ``horizon``: a listing and a ``stat`` each."""
    folder = state.sessions_dir(repo.shared_state_dir)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out: list[str] = []
    for name in sorted(names):
        if not name.endswith(".jsonl"):
            continue
        sid = name[: -len(".jsonl")]
        try:
            written = os.stat(os.path.join(folder, name)).st_mtime
        except OSError:
            continue
        if since < written <= horizon and os.path.exists(capture.wal_path(repo, sid)):
            out.append(sid)
    return out


def note(repo: Repo, *, idle_s: float = IDLE_S, now: float | None = None) -> list[str]:
    """Write an ``unfinished`` turn record for each session quiet for ``idle_s`` with
    edits no record lists; returns the sessions noted (their records wait in the
    write-ahead files for the flush). Under the session's lock, as the stop hook notes, so
    the two never both do.

    Each state file is read once after it went quiet, not at every flush: the stamp file's
    time is the horizon of the last look (files written before it were looked at then),
    and a session written to since is looked at again once it is quiet again."""
    now = time.time() if now is None else now
    horizon = now - idle_s
    stamp = os.path.join(repo.shared_state_dir, STAMP)
    try:
        since = os.stat(stamp).st_mtime
    except OSError:
        since = now - MAX_AGE_S
    if since >= horizon:
        return []
    noted: list[str] = []
    for sid in quiet_sessions(repo, since, horizon):
        # what the commands it ran before it was killed wrote, as at a turn's end
        wrote = shelleffects.note_written(repo.shared_state_dir, sid, str(repo.root)).paths
        with state.open_session(repo.shared_state_dir, sid) as session:
            edited = state.unnoted_edits(session)
            if not edited:
                continue
            roots = state.edit_roots(session)
            session.append(state.NOTED, n=len(edited))
        _capture(repo, sid, edited, roots[-1] if roots else None, wrote)
        noted.append(sid)
    with contextlib.suppress(OSError):  # a read-only git directory: nothing was noted either
        touch(stamp, (horizon, horizon))
    return noted


def _capture(repo: Repo, sid: str, edited: list[str], root: str | None, wrote: list[str]) -> None:
    from gitmem.agent import prompt

    last = _last_record(repo, sid)
    payload: dict[str, Any] = {
        "session_id": str(last.get("session_id") or sid),
        AGENT_KEY: str(last.get("agent") or "claude"),
        "permission_mode": last.get("permission_mode"),
    }
    record: dict[str, Any] = {"kind": "turn", "files_edited": edited, "unfinished": True}
    if wrote:  # of those, the files only a command's run says it wrote
        record["written_by_commands"] = wrote
    prompt.capture_with_settings(_work_tree(repo, root), payload, record)


def _last_record(repo: Repo, sid: str) -> dict[str, Any]:
    """The session's latest captured record: waiting in its write-ahead file, else at the
    tip of its ref (who ran it, with which agent); empty if neither has one."""
    try:
        with open(capture.wal_path(repo, sid), "rb") as fh:
            waiting = capture.records_in(fh.read())
    except OSError:
        waiting = []
    if waiting:
        return waiting[-1]
    from gitmem.errors import GitmemError

    ref = capture.ref_for(sid)
    try:
        return capture.records_at(repo, [ref]).get(ref, {})
    except GitmemError:
        return {}


def _work_tree(repo: Repo, root: str | None) -> Location:
    """The work tree the session edited in (the record's branch and HEAD are read there),
    if it is still one of this repository's; else the repository's own."""
    own = location.location_of(repo)
    if root and os.path.realpath(root) != os.path.realpath(own.root):
        found = location.repository_of(root)
        if found is not None and os.path.realpath(found.common_dir) == os.path.realpath(
            own.common_dir
        ):
            return found
    return own
