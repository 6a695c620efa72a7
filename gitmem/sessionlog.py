"""The captured sessions as a list: one summary per session ref, in three git processes
however many sessions a repository holds.

A team that captures every prompt gathers thousands of session refs within months (one ref
per session, see gitmem.capture). Reading each ref's records (a ``rev-list`` and a
``cat-file`` per session) took 9.3 s for 2,000 sessions and grew with every one (session
33, `benchmarks/sessions_scale.py`). Here the refs come from one ``for-each-ref``, every
commit of every session from one ``git log`` (its subject says whether it holds a prompt or
a closing record, or the end of a turn: ``gitmem prompt: …``, ``gitmem close: …``, ``gitmem
turn: …``, as gitmem.capture writes it), and their records from one ``cat-file --batch``.
Summaries are kept in the git directory by the tip they were read at, so a listing reads
only the sessions that are new or changed since the last one.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from gitmem import capture, git, hidden
from gitmem.fsutil import atomic_write
from gitmem.repo import Repo
from gitmem.vocab import clipped

# Summaries already read, by ref and the tip they were read at, in the git directory
# (`<git-common-dir>/gitmem/sessions.json`): a session's commits never change once
# written, so a listing reads from git only the sessions that are new or went on since.
CACHE = "sessions.json"
# 2: files edited read from turn records too, and branches (session 34); 3: the branches
# of every record, not only of the four a summary read (session 39); 4: a first line
# without what its readers do not see (session 52); 5: the agent (session 65)
CACHE_VERSION = 5
PROMPT_WIDTH = 100


@dataclass(frozen=True)
class SessionSummary:
    """Who, when, where, and what a captured session did, from its ref."""

    id: str  # "<user>/<session-id>", as the ref names it
    ref: str
    user: str
    session_id: str | None
    started: float | None
    last: float | None
    branch: str | None
    prompts: int
    files_edited: tuple[str, ...]
    closed: bool
    first_prompt: str = ""  # its first line, shortened: what the session set out to do
    # the branches the session was on, first to last, as its records say: an agent that
    # starts on main, makes a branch for its work and merges it back is found by each
    branches: tuple[str, ...] = ()
    # the files this clone's state says the session edited that no record lists yet (the
    # turn in progress, or one that never ended): with_unrecorded, never from git
    unrecorded: tuple[str, ...] = ()
    # the agent it ran in, as its first record names it (gitmem.agent.runner.AGENTS, and
    # "kilo": Kilo CLI, which runs OpenCode's plugin); None for a record that names none
    agent: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "ref": self.ref,
            "user": self.user,
            "session_id": self.session_id,
            "started": self.started,
            "last": self.last,
            "branch": self.branch,
            "prompts": self.prompts,
            "files_edited": list(self.files_edited),
            "closed": self.closed,
            "first_prompt": self.first_prompt,
            "branches": list(self.branches),
            "unrecorded": list(self.unrecorded),
            "agent": self.agent,
        }

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> SessionSummary:
        return cls(
            id=str(row["id"]),
            ref=str(row["ref"]),
            user=str(row["user"]),
            session_id=row["session_id"],
            started=row["started"],
            last=row["last"],
            branch=row["branch"],
            prompts=int(row["prompts"]),
            files_edited=tuple(row["files_edited"]),
            closed=bool(row["closed"]),
            first_prompt=str(row.get("first_prompt") or ""),
            branches=tuple(str(b) for b in row["branches"]),
            agent=row.get("agent"),
        )

    def edited_under(self, path: str) -> bool:
        """Whether the session edited ``path``, or a file under the folder ``path`` names
        (repository-relative, ``/``-separated), as its records or its unrecorded edits say."""
        return self.recorded_under(path) or any(_under(f, path) for f in self.unrecorded)

    def recorded_under(self, path: str) -> bool:
        """Whether the session's records list ``path``, or a file under it, as edited."""
        return any(_under(f, path) for f in self.files_edited)


def _under(file: str, path: str) -> bool:
    """Whether ``file`` is ``path``, or lies under the folder ``path`` names."""
    return file == path or file.startswith(path.rstrip("/") + "/")


def prompts_behind(repo: Repo, sessions: list[SessionSummary], path: str) -> list[str | None]:
    """For each of ``sessions``, the first line of the prompt whose turn first edited
    ``path`` (or a file under it): the request behind the change, where the session's
    first prompt only says what it set out to do. None where no turn record says
    (sessions captured before session 34 list their edits only when they close), and for
    every session where git cannot read them. Three git processes however many sessions:
    their tips, their commits, and the records of their prompts and turns."""
    if not sessions:
        return []
    from gitmem.errors import GitmemError

    try:
        out = _git_out(repo, ["for-each-ref", "--format=%(objectname) %(refname)",
                              *(s.ref for s in sessions)])  # fmt: skip
        rows = (line.partition(" ") for line in out.decode().splitlines())
        tips = {ref: sha for sha, _, ref in rows}
        commits = _commits(repo, list(tips.values())) if tips else {}
        chains = [_chain(commits, tips.get(s.ref)) for s in sessions]
        wanted = [sha for chain in chains for sha in chain]
        records = capture.records_at(repo, wanted) if wanted else {}
    except GitmemError:
        return [None] * len(sessions)
    behind: list[str | None] = []
    for s, chain in zip(sessions, chains, strict=True):
        read = [records.get(sha, {}) for sha in chain]
        if s.unrecorded:  # the prompt of the turn in progress may still wait to be committed
            read += waiting_records(repo, s.session_id, {str(r.get("uid")) for r in read})
        behind.append(_behind(read, path, s.unrecorded))
    return behind


def _chain(commits: dict[str, _Commit], tip: str | None) -> list[str]:
    """A session's prompt, turn and closing commits, oldest first."""
    kinds = ("prompt", *EDIT_KINDS)
    walked = _walk(commits, tip or "")
    return [sha for sha in reversed(walked) if capture.kind_of(commits[sha].subject) in kinds]


def _walk(commits: dict[str, _Commit], tip: str) -> list[str]:
    """A session's commits from ``tip`` back to its first, by first parent."""
    out: list[str] = []
    sha, seen = tip, set()
    while sha in commits and sha not in seen:  # linear histories; guard a cycle anyway
        seen.add(sha)
        out.append(sha)
        sha = commits[sha].parent or ""
    return out


def _behind(
    records: list[dict[str, Any]], path: str, unrecorded: tuple[str, ...] = ()
) -> str | None:
    prompt: dict[str, Any] | None = None
    for record in records:
        kind = record.get("kind", "prompt")
        if kind == "prompt":
            prompt = record
        elif any(_under(str(f), path) for f in record.get("files_edited") or []):
            if kind != "turn" or prompt is None:
                return None  # first listed at the session's close: after any of its prompts
            return _first_line(prompt.get("prompt")) or None
    if prompt is not None and any(_under(f, path) for f in unrecorded):
        return _first_line(prompt.get("prompt")) or None  # edited since: in its latest turn
    return None


def waiting_records(repo: Repo, session_id: str | None, seen: set[str]) -> list[dict[str, Any]]:
    """The session's records waiting in its write-ahead file to be committed (not those
    in ``seen``, by uid: a flush may be committing them), oldest first."""
    try:
        with open(capture.wal_path(repo, session_id or "unknown"), "rb") as fh:
            waiting = capture.records_in(fh.read())
    except OSError:
        return []
    kept = (capture.as_committed(r) for r in waiting)  # as they will be committed
    return sorted((r for r in kept if str(r.get("uid")) not in seen), key=_time)


def with_unrecorded(repo: Repo, rows: list[SessionSummary]) -> list[SessionSummary]:
    """``rows`` (newest first), with the edits that this clone's captured sessions made
    and no record lists yet (SessionSummary.unrecorded): the turn in progress, or one the
    agent was killed in, which the capture flusher notes only once the session has been
    quiet for a while (gitmem.unfinished). A session whose records all still wait to be
    committed (its first turn) is added, read from its write-ahead file. Only sessions
    whose state was written within ``state.RECENT_S``, as for the commit trailers (a
    listing, and a read of each such state file)."""
    import os
    import time

    from gitmem.agent import state

    folder = state.sessions_dir(repo.shared_state_dir)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".jsonl"))
    except OSError:
        return rows
    out = list(rows)
    now = time.time()
    for name in names:
        sid = name[: -len(".jsonl")]
        try:
            if now - os.stat(os.path.join(folder, name)).st_mtime > state.RECENT_S:
                continue
        except OSError:
            continue
        if not os.path.exists(capture.wal_path(repo, sid)) or os.path.exists(
            capture.forgotten_marker(repo, sid)
        ):
            continue  # not captured (capture off), or forgotten
        edits = state.unrecorded_edits(repo.shared_state_dir, sid, str(repo.root))
        if not edits:
            continue
        at = next((n for n, r in enumerate(out) if r.ref.endswith("/" + capture.safe(sid))), None)
        if at is None:
            row = _waiting_summary(repo, sid)
            if row is not None:
                out.append(replace(row, unrecorded=tuple(edits)))
            continue
        row = out[at]
        # its prompts waiting to be committed (the turn in progress's) count too, and so
        # do the branches they were typed on
        waiting = waiting_records(repo, sid, set())
        prompts = sum(r.get("kind", "prompt") == "prompt" for r in waiting)
        unrecorded = tuple(f for f in edits if f not in row.files_edited)
        branches = tuple(dict.fromkeys([*row.branches, *_branches(waiting)]))
        out[at] = replace(
            row, unrecorded=unrecorded, prompts=row.prompts + prompts, branches=branches
        )
    return sorted(out, key=lambda r: r.started or 0.0, reverse=True)


def _waiting_summary(repo: Repo, session_id: str) -> SessionSummary | None:
    """A session no commit holds yet, from the records waiting in its write-ahead file."""
    waiting = waiting_records(repo, session_id, set())
    ref = str(waiting[0].get("ref") or "") if waiting else ""
    if not ref.startswith(capture.REF_ROOT + "/"):
        return None
    prompts = sum(1 for r in waiting if r.get("kind", "prompt") == "prompt")
    edits = [r for r in waiting if r.get("kind") in EDIT_KINDS]
    closing = [r for r in edits if r.get("kind") == "close"]
    return _summary(
        ref, waiting[0], waiting[-1], closing[-1] if closing else {}, edits[-1] if edits else {},
        prompts, waiting,
    )  # fmt: skip


@dataclass(frozen=True)
class _Commit:
    parent: str | None
    subject: str


class _Walked(NamedTuple):
    """One session's ref walked: its first and last commit, its latest closing record,
    the latest record that lists the files it edited, how many prompts it holds, and all
    its commits, tip first."""

    ref: str
    root: str
    tip: str
    close: str | None
    edits: str | None
    prompts: int
    shas: tuple[str, ...]


# The records that list every file the session edited so far (files_edited): the closing
# record, and the end of each agent turn that edited files (gitmem.agent.claude.stop), so
# that a session without an end (Codex has none; a killed agent sends none) still says.
EDIT_KINDS = ("close", "turn")


def _git_out(repo: Repo, args: list[str], input_: bytes | None = None) -> bytes:
    code, out, err = git.run_bytes(
        args, repo.root, env=git.plumbing_env(), input_=input_, timeout=120
    )
    if code != 0:
        from gitmem.errors import GitmemError

        said = err.decode("utf-8", "replace").strip().splitlines()
        raise GitmemError(
            f"git {args[0]} failed reading the captured sessions: "
            f"{said[0] if said else 'no message'}"
        )
    return out


def _commits(repo: Repo, tips: list[str]) -> dict[str, _Commit]:
    """Every commit reachable from ``tips``: its first parent and its subject."""
    out = _git_out(
        repo,
        ["log", "--stdin", "--format=%H %P%x09%s", "--no-color"],
        input_="".join(t + "\n" for t in tips).encode(),
    )
    commits: dict[str, _Commit] = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        head, _, subject = line.partition("\t")
        shas = head.split()
        if shas:
            commits[shas[0]] = _Commit(shas[1] if len(shas) > 1 else None, subject)
    return commits


def _float(value: object) -> float | None:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _cache_path(repo: Repo) -> Path:
    return repo.shared_state_dir / CACHE


def _cached(repo: Repo) -> dict[str, tuple[str, SessionSummary]]:
    """The summaries a previous listing stored, by ref: (the tip it read, the summary)."""
    try:
        data = json.loads(_cache_path(repo).read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION:
            return {}
        return {
            ref: (str(row["tip"]), SessionSummary.from_json(row))
            for ref, row in data["sessions"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # missing, torn or from another version: read the sessions afresh


def _store(repo: Repo, rows: dict[str, tuple[str, SessionSummary]]) -> None:
    data = {
        "version": CACHE_VERSION,
        "sessions": {ref: {"tip": tip, **row.as_json()} for ref, (tip, row) in rows.items()},
    }
    with contextlib.suppress(OSError):  # read-only: the next listing reads them again
        atomic_write(_cache_path(repo), json.dumps(data, separators=(",", ":")))


def summaries(repo: Repo) -> list[SessionSummary]:
    """Every captured session of this clone, newest first (by when it started)."""
    fmt = "--format=%(objectname) %(objecttype) %(refname)"
    out = _git_out(repo, ["for-each-ref", fmt, capture.REF_ROOT])
    tips: dict[str, str] = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        sha, kind, ref = [*line.split(" ", 2), "", ""][:3]
        if ref and kind == "commit":  # a ref to anything else is no session of gitmem's
            tips[ref] = sha
    cached = _cached(repo)
    known = {ref: cached[ref] for ref, tip in tips.items() if cached.get(ref, ("",))[0] == tip}
    todo = [(ref, tip) for ref, tip in tips.items() if ref not in known]
    read = zip(todo, _read(repo, todo), strict=True)
    rows = {**known, **{ref: (tip, row) for (ref, tip), row in read}}
    if todo or len(cached) != len(rows):
        _store(repo, rows)
    return sorted((row for _, row in rows.values()), key=lambda r: r.started or 0.0, reverse=True)


def _read(repo: Repo, tips: list[tuple[str, str]]) -> list[SessionSummary]:
    """The summaries of the sessions whose refs point at these tips, read from git."""
    if not tips:
        return []
    commits = _commits(repo, [sha for _, sha in tips])
    walked: list[_Walked] = []
    for ref, tip in tips:
        close, edits, prompts = None, None, 0
        shas = _walk(commits, tip)
        for sha in shas:
            kind = capture.kind_of(commits[sha].subject)
            if kind in EDIT_KINDS:  # the latest of each, walking from the tip
                edits = edits or sha
                close = close or (sha if kind == "close" else None)
            elif kind == "prompt":
                prompts += 1
        root = shas[-1] if shas else tip
        walked.append(_Walked(ref, root, tip, close, edits, prompts, tuple(shas) or (tip,)))
    # every record, for the branches: a session may pass through a branch between its
    # first and last turn (session 39; before, `--branch` missed it)
    records = capture.records_at(repo, [s for w in walked for s in w.shas])
    return [
        _summary(
            w.ref,
            records.get(w.root, {}),
            records.get(w.tip, {}),
            records.get(w.close, {}) if w.close else {},
            records.get(w.edits, {}) if w.edits else {},
            w.prompts,
            [records[s] for s in reversed(w.shas) if s in records],
        )
        for w in walked
    ]


def _summary(
    ref: str,
    first: dict[str, Any],
    last: dict[str, Any],
    closing: dict[str, Any],
    listing: dict[str, Any],
    prompts: int,
    every: list[dict[str, Any]],
) -> SessionSummary:
    """A session's summary from its first and last records, its latest closing record and
    its latest list of files edited (each {} where it has none), and the branches of all
    its records (``every``, oldest first)."""
    short = ref[len(capture.REF_ROOT) + 1 :]
    edited = listing.get("files_edited") or []
    return SessionSummary(
        id=short,
        ref=ref,
        user=short.split("/", 1)[0],
        session_id=first.get("session_id"),
        started=_float(first.get("time")),
        last=_float(last.get("time")),
        branch=first.get("branch"),
        prompts=prompts,
        files_edited=tuple(str(f) for f in edited if isinstance(f, str)),
        closed=bool(closing),
        first_prompt=_first_line(first.get("prompt")),
        branches=_branches(every),
        agent=str(first["agent"]) if first.get("agent") else None,
    )


def _branches(records: list[dict[str, Any]]) -> tuple[str, ...]:
    """The branches ``records`` (oldest first) were written on, first to last, each once."""
    went = (r.get("branch") for r in records)
    return tuple(dict.fromkeys(b for b in went if isinstance(b, str) and b))


def _time(record: dict[str, Any]) -> float:
    return _float(record.get("time")) or 0.0


def _first_line(prompt: object) -> str:
    """A prompt's first line, shortened, without what its readers do not see (a prompt
    captured before session 52 may hold pasted tag characters: `why` and the MCP server
    hand this line to agents)."""
    text = hidden.visible(str(prompt or ""))[0]
    line = next((x.strip() for x in text.splitlines() if x.strip()), "")
    return clipped(line, PROMPT_WIDTH)


def commits_naming(repo: Repo, session: str) -> list[tuple[str, str]]:
    """The commits of the branches, tags and remotes whose message names ``session``
    (``user/session-id``) in a ``Gitmem-Session:`` trailer (see gitmem.githooks): the
    changes the session led to, newest first, as (sha, subject)."""
    from gitmem.githooks import SESSION_TRAILER

    pattern = f"^{SESSION_TRAILER}: {session.replace('.', '[.]')}$"  # ids: [A-Za-z0-9._/-]
    out = _git_out(
        repo,
        ["log", "--branches", "--tags", "--remotes", f"--grep={pattern}", "--format=%H%x09%s"],
    )
    rows = [line.partition("\t") for line in out.decode("utf-8", "replace").splitlines()]
    return [(sha, subject) for sha, _, subject in rows if sha]
