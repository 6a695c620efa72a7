"""``gitmem why``: the decisions governing each path, with their git provenance, and the
captured agent sessions that edited it (the prompts behind its changes)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from gitmem import git, sessionlog
from gitmem.errors import GitmemError
from gitmem.globs import Files
from gitmem.location import link_target, location_of, other_repository, repository_of
from gitmem.paths import to_repo_relative
from gitmem.repo import Repo, worktree_roots
from gitmem.table import Entry, Match, Table, open_current, sort_key
from gitmem.vocab import SEVERITY_RANK


@dataclass(frozen=True)
class Successor:
    id: str
    title: str
    file: str


@dataclass(frozen=True)
class Governing:
    id: str
    title: str
    status: str
    severity: str
    glob: str
    file: str
    summary: str
    superseded_by: tuple[Successor, ...] = ()
    globs_inferred: bool = False
    provenance: git.Provenance | None = None

    @property
    def is_current(self) -> bool:
        return not self.superseded_by and self.status in ("accepted", "proposed")

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "severity": self.severity,
            "glob": self.glob,
            "globs_inferred": self.globs_inferred,
            "file": self.file,
            "summary": self.summary,
            "superseded_by": [s.__dict__ for s in self.superseded_by],
            "provenance": None if self.provenance is None else self.provenance._asdict(),
        }


@dataclass(frozen=True)
class EditedIn:
    """A captured session that edited the path, and the first line of the prompt whose
    turn did (None where its records do not say: sessionlog.prompts_behind)."""

    session: sessionlog.SessionSummary
    prompt: str | None = None
    # no record lists the edit yet: this clone's session is in that turn, or was killed in
    # it (sessionlog.with_unrecorded)
    unrecorded: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            **self.session.as_json(),
            "prompt_behind_edit": self.prompt,
            "edit_unrecorded": self.unrecorded,
        }


@dataclass(frozen=True)
class Under:
    """A current decision that governs files under a folder without governing the folder
    itself (``paydash/billing/**`` for ``paydash``), and how many of them."""

    id: str
    title: str
    severity: str
    file: str
    files: int
    example: str  # one of them, the first in path order

    def to_json(self) -> dict[str, object]:
        return dict(self.__dict__)


# `why FOLDER` looks each file under it up in the table: `why .` in a repository of 40,201
# files took 1.8 s in all (session 48). Past this many it says how many files there are and
# asks for a narrower folder instead.
UNDER_MAX_FILES = 50_000


@dataclass(frozen=True)
class PathReport:
    query: str  # as the user wrote it
    path: str | None  # repository-relative; None when outside the repository
    decisions: tuple[Governing, ...] = field(default=())
    # another repository's answer for the same path (a submodule, a nested or sibling
    # clone): its root, and ``path`` and the decisions' files are relative to it
    repository: str | None = None
    # the newest captured sessions that edited the path (or a file under the folder), at
    # most SESSIONS_SHOWN, and how many there are in all
    sessions: tuple[EditedIn, ...] = ()
    sessions_total: int = 0
    # for a folder: the current decisions that govern files under it and not the folder
    # itself (before session 48 `why src` said only "no decision governs this path" when
    # decisions governed src/billing/** and src/api/**), and how many files git tracks or
    # would track under it (the decisions are not read past UNDER_MAX_FILES); None: a file
    under: tuple[Under, ...] = ()
    files_under: int | None = None
    # where nothing governs it: the current decisions a glob of which would, were case put
    # aside (`Billing/**` for `billing/charge.py`: a folder renamed by case only, or a path
    # typed in another case than the file's), as (id, title, glob, record file)
    other_case: tuple[tuple[str, str, str, str], ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "query": self.query,
            "path": self.path,
            "repository": self.repository,
            "decisions": [d.to_json() for d in self.decisions],
            "under": [u.to_json() for u in self.under],
            "files_under": self.files_under,
            "sessions": [s.to_json() for s in self.sessions],
            "sessions_total": self.sessions_total,
            "other_case": [
                {"id": i, "title": t, "glob": g, "file": f} for i, t, g, f in self.other_case
            ],
        }


SESSIONS_SHOWN = 3


def why(
    repo: Repo,
    queries: list[str],
    *,
    cwd: str | None = None,
    provenance: bool = True,
    sessions: bool | None = None,
) -> list[PathReport]:
    """One report per query; a path that lies in another repository keeping decisions
    (``location.other_repository``) gets that repository's report after it, as the
    tool-call hooks bring both. With ``sessions`` (by default, with ``provenance``), each
    report also names the captured sessions that edited the path."""
    table = open_current(repo)
    here = os.path.abspath(cwd) if cwd is not None else os.getcwd()
    roots = [str(r) for r in worktree_roots(repo)]
    captured = _captured(repo) if (provenance if sessions is None else sessions) else []
    listing: list[Files] = []  # git's files, listed for the first folder asked about
    out: list[PathReport] = []
    try:
        for q in queries:
            report = _one(repo, table, q, cwd, provenance)
            if report.path is not None and _is_dir(repo, report.path):
                if not listing:
                    listing.append(Files(git.ls_files(repo.root)))
                report = _under(table, report, listing[0])
            out.append(_with_sessions(repo, report, captured))
            text = q.strip().strip('"').strip("'")
            path = os.path.normpath(os.path.join(here, os.path.expanduser(text)))
            other = other_repository(path, location_of(repo), roots) if text else None
            if other is not None:
                (theirs,) = why(other.repo(), [path], provenance=provenance, sessions=sessions)
                out.append(replace(theirs, query=q, repository=other.root))
    finally:
        table.close()
    return out


def _captured(repo: Repo) -> list[sessionlog.SessionSummary]:
    """The sessions that edited files, newest first: as their records list, and this
    clone's edits no record lists yet (a turn in progress, or one the agent was killed in);
    none where git cannot list them (the decisions are what `why` is for, and they do not
    wait on this)."""
    try:
        rows = sessionlog.with_unrecorded(repo, sessionlog.summaries(repo))
    except GitmemError:
        return []
    return [s for s in rows if s.files_edited or s.unrecorded]


def _with_sessions(
    repo: Repo, report: PathReport, captured: list[sessionlog.SessionSummary]
) -> PathReport:
    if not report.path:  # outside the repository, or its root: every session edited it
        return report
    path = report.path
    edited = [s for s in captured if s.edited_under(path)]
    named = edited[:SESSIONS_SHOWN]
    behind = sessionlog.prompts_behind(repo, named, path)
    shown = tuple(
        EditedIn(s, prompt, not s.recorded_under(path))
        for s, prompt in zip(named, behind, strict=True)
    )
    return replace(report, sessions=shown, sessions_total=len(edited))


def _is_dir(repo: Repo, rel: str) -> bool:
    return rel == "" or os.path.isdir(repo.root / rel)


def _under(table: Table, report: PathReport, files: Files) -> PathReport:
    """``report`` of a folder, with the current decisions governing files under it that it
    does not already name."""
    inside = files.under(report.path or "")
    if len(inside) > UNDER_MAX_FILES:
        return replace(report, files_under=len(inside))
    named = {d.id for d in report.decisions}
    found: dict[str, tuple[Entry, list[str]]] = {}
    for f in inside:
        for m in table.match(f):
            if m.entry.is_current and m.entry.id not in named:
                found.setdefault(m.entry.id, (m.entry, []))[1].append(f)
    rank = sorted(found.values(), key=lambda g: (SEVERITY_RANK.get(g[0].severity, 3), -len(g[1])))
    under = tuple(
        Under(e.id, e.title, e.severity, e.file, len(paths), paths[0]) for e, paths in rank
    )
    return replace(report, under=under, files_under=len(inside))


def _one(repo: Repo, table: Table, query: str, cwd: str | None, provenance: bool) -> PathReport:
    rel = to_repo_relative(query, repo, cwd)
    if rel is None:
        return PathReport(query, None)
    is_dir = _is_dir(repo, rel)
    matches = {m.entry.id: m for m in table.match(rel, is_dir)}
    # a symbolic link to another place in the repository: what governs the target too
    target = link_target(os.path.realpath(repo.root), rel)
    for m in table.match(target, is_dir) if target is not None else []:
        matches.setdefault(m.entry.id, m)
    ordered = sorted(matches.values(), key=sort_key) if target is not None else matches.values()
    out = [_governing(repo, table, m, provenance) for m in ordered]
    other = _in_another_case(table, rel, is_dir) if not out and rel else ()
    return PathReport(query, rel, tuple(out), other_case=other)


def _in_another_case(table: Table, rel: str, is_dir: bool) -> tuple[tuple[str, str, str, str], ...]:
    """The current decisions whose globs would govern ``rel`` were case put aside (see
    ``PathReport.other_case``); globs match case as written, on every file system, and
    `gitmem lint` names a glob that matches no file only by case."""
    found = [m for m in table.match_in_any_case(rel, is_dir) if m.entry.is_current]
    return tuple((m.entry.id, m.entry.title, m.glob, m.entry.file) for m in found)


def _governing(repo: Repo, table: Table, m: Match, provenance: bool) -> Governing:
    succ = []
    for ident in m.entry.superseded_by:
        e = table.get(ident)
        succ.append(Successor(ident, e.title if e else "", e.file if e else ""))
    return Governing(
        id=m.entry.id,
        title=m.entry.title,
        status=m.entry.effective_status,
        severity=m.entry.severity,
        glob=m.glob,
        file=m.entry.file,
        summary=m.entry.summary,
        superseded_by=tuple(succ),
        globs_inferred=m.entry.globs_inferred,
        provenance=_last_change(repo, m.entry.file) if provenance else None,
    )


def _last_change(repo: Repo, rel: str) -> git.Provenance | None:
    """The last commit that changed a record, in the repository that tracks it: a folder
    of records shared as a submodule (`.continuity/decisions/org/`) keeps its own
    history, where the superproject's has none of the file."""
    path = os.path.join(repo.root, rel)
    holder = repository_of(os.path.dirname(path))
    if holder is not None and holder.root != str(repo.root):
        return git.last_change(Path(holder.root), os.path.relpath(path, holder.root))
    return git.last_change(repo.root, rel)
