"""``gitmem renumber``: give a free number to each gitmem record whose id another record
already has.

Two branches (two developers, or two agent sessions in two worktrees) each run
``gitmem new`` and each get the next number; after the merge, ``0002-use-kafka.md`` and
``0002-use-redis.md`` are both ``D-0002`` and one of them reaches no agent. Which one
moves: the record that reached the current branch first keeps the number, by the branch's
first-parent history (what was on ``main`` stays, what a merge brought in moves; a record
not committed yet is the newest), ties by file name. The moved record gets the next free
number: its file is renamed (``git mv`` when git tracks it) and an ``id:`` line in its
front matter rewritten.

References to the old id in ``supersedes`` / ``superseded_by`` are rewritten only in the
records that arrived together with the moved one (the same commit on the first-parent
history, or both not committed yet): those were written against its numbering. Every
other reference meant the record that kept the number. Mentions in prose are listed, not
changed. Only gitmem's own records (``.continuity/decisions/``) are renumbered; ADR
folders read in place are the project's own files and are named for a rename by hand.
Records kept in a submodule under the decisions folder (an organisation's shared records)
belong to that repository and to every project sharing it: they keep their ids, the
project's own record moves, and two of them that clash are named, to renumber there.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from gitmem import frontmatter, fsutil, git, store
from gitmem.errors import GitmemError
from gitmem.repo import Repo
from gitmem.validate import derive_id, normalize_ref
from gitmem.vocab import shown_name

PREFIX = "D"  # gitmem records' id prefix (store reads them with it)
_LEADING_NUMBER = re.compile(r"^(\d+)")
_ID_NUMBER = re.compile(r"^(.*?)(\d+)$")
_REF_KEYS = ("supersedes", "superseded_by")


@dataclass(frozen=True)
class Record:
    file: str  # repository-relative
    id: str
    explicit_id: bool  # `id:` written in the front matter
    refs: tuple[tuple[str, int], ...]  # (id referred to, line) in supersedes/superseded_by
    arrival: int  # position in first-parent history: higher arrived earlier; -1 not committed
    commit: str | None  # the first-parent commit it arrived with
    kept_in: str | None = None  # the submodule (or nested clone) that keeps this record


@dataclass(frozen=True)
class Move:
    old_file: str
    new_file: str
    old_id: str
    new_id: str
    kept_by: str  # the record that keeps the id
    rewritten: tuple[str, ...]  # records whose references now name new_id
    mentions: tuple[str, ...]  # records whose prose names old_id (left as written)


@dataclass(frozen=True)
class Plan:
    moves: tuple[Move, ...]
    unfixable: tuple[str, ...]  # duplicates it does not renumber, with why


def plan(repo: Repo) -> Plan:
    folder = store.decisions_dir(repo.root)
    records = _records(repo, folder)
    by_id: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_id[r.id].append(r)
    used = _used_numbers(records)
    moves: list[Move] = []
    unfixable: list[str] = []
    for ident in sorted(by_id):
        # a record kept in a submodule (an organisation's shared records) is that
        # repository's, numbered for every project that shares it: it keeps its id
        group = sorted(by_id[ident], key=lambda r: (r.kept_in is None, -r.arrival, r.file))
        if len(group) < 2:
            continue
        keeper = group[0]
        for r in group[1:]:
            if r.kept_in is not None:
                unfixable.append(
                    f"{r.file}: id {r.id} (also {keeper.file}) is a record of the repository"
                    f" at {r.kept_in}; renumber it there"
                )
                continue
            new = _next(r, used)
            if new is None:
                unfixable.append(
                    f"{r.file}: id {r.id} (also {keeper.file}) is written in its front matter "
                    "without a number to change; give it another id by hand"
                )
                continue
            new_id, new_file = new
            together = [
                o.file
                for o in records
                if o.kept_in is None
                and o.commit == r.commit
                and any(ref == ident for ref, _ in o.refs)
            ]
            mentions = [
                o.file
                for o in records
                if o.file not in together
                and o.file not in (r.file, keeper.file)
                and _mentions(repo, o, ident)
            ]
            moves.append(
                Move(r.file, new_file, ident, new_id, keeper.file, tuple(together), tuple(mentions))
            )
    unfixable.extend(_in_place_duplicates(repo))
    return Plan(tuple(moves), tuple(unfixable))


def apply(repo: Repo, todo: Plan) -> None:
    """Rewrite ids and references, then rename the files (``git mv`` when tracked): every
    edit first, at the paths the plan names, then every rename."""
    for move in todo.moves:
        for rel in move.rewritten:
            _rewrite_refs(repo.root / rel, move.old_id, move.new_id)
        path = repo.root / move.old_file
        parsed, _ = frontmatter.parse(fsutil.read_text(path), move.old_file)
        if parsed is not None and parsed.meta and "id" in parsed.meta:
            _rewrite_lines(path, {parsed.key_lines["id"]}, move.old_id, move.new_id, value=True)
    for move in todo.moves:
        _rename(repo, move.old_file, move.new_file)


# ------------------------------------------------------------------------------ helpers


def _records(repo: Repo, folder: Path) -> list[Record]:
    arrival, commits = _arrivals(repo, folder)
    out: list[Record] = []
    for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
        rel = path.relative_to(repo.root).as_posix()
        try:
            parsed, _ = frontmatter.parse(fsutil.read_text(path), rel)
        except (OSError, ValueError):
            continue  # unreadable: lint names it; it holds no id to clash
        if parsed is None:
            continue
        meta = parsed.meta or {}
        written = meta.get("id")
        ident = str(written).strip() if written not in (None, "") else derive_id(path.name)[0]
        refs: list[tuple[str, int]] = []
        for key in _REF_KEYS:
            values = meta.get(key)
            items = values if isinstance(values, list) else [values] if values else []
            lines = parsed.item_lines.get(key) or ()
            for i, value in enumerate(items):
                line = lines[i] if i < len(lines) else parsed.key_lines.get(key, 1)
                refs.append((normalize_ref(value, PREFIX), line))
        explicit = written not in (None, "")
        when = arrival.get(rel, -1), commits.get(rel)
        out.append(Record(rel, ident, explicit, tuple(refs), *when, _kept_in(repo, path)))
    return out


def _kept_in(repo: Repo, path: Path) -> str | None:
    """The repository below the work tree's root that holds ``path`` (a submodule or a
    nested clone under the decisions folder), as a repository-relative folder."""
    from gitmem.location import repository_of

    found = repository_of(str(path.parent), stop=str(repo.root))
    return None if found is None else Path(found.root).relative_to(repo.root).as_posix()


def _arrivals(repo: Repo, folder: Path) -> tuple[dict[str, int], dict[str, str]]:
    """For each record file in the branch's first-parent history: how early it arrived
    (higher: earlier) and the commit it arrived with (a merge brings the files of the
    branch it merges)."""
    rel = folder.relative_to(repo.root).as_posix()
    args = ["log", "--first-parent", "--no-renames", "--diff-filter=A", "--format=@%H"]
    code, out, _ = git.run(
        [*args, "--name-only", "-z", "--", rel],
        cwd=repo.root,
        check=False,
    )
    arrival: dict[str, int] = {}
    commits: dict[str, str] = {}
    if code != 0:
        return arrival, commits  # no commit yet
    position = 0
    commit = ""
    for item in out.replace("\n", "\0").split("\0"):
        if item.startswith("@"):
            commit = item[1:]
            position += 1
        elif item:
            arrival[item] = position  # log runs newest first: the last one seen is oldest
            commits[item] = commit
    return arrival, commits


def _used_numbers(records: list[Record]) -> set[int]:
    used: set[int] = set()
    for r in records:
        number = derive_id(PurePosixPath(r.file).name)[1]
        if number is not None:
            used.add(number)
        match = _ID_NUMBER.match(r.id)
        if match:
            used.add(int(match.group(2)))
    return used


def _next(r: Record, used: set[int]) -> tuple[str, str] | None:
    """The record's new id and file: the next number no record has."""
    name = PurePosixPath(r.file)
    leading = _LEADING_NUMBER.match(name.name)
    if r.explicit_id:
        match = _ID_NUMBER.match(r.id)
        if match is None:
            return None
        prefix, digits = match.group(1), match.group(2)
    elif leading is None:
        return None
    else:
        prefix, digits = f"{PREFIX}-", leading.group(1)
    number = max(used) + 1
    used.add(number)
    new_name = name.name
    if leading is not None:
        new_name = f"{number:0{len(leading.group(1))}d}{name.name[leading.end() :]}"
    # a derived id is what the store derives from the new name; a written one keeps its form
    new_id = f"{prefix}{number:0{len(digits)}d}" if r.explicit_id else derive_id(new_name)[0]
    return new_id, (name.parent / new_name).as_posix()


def _mentions(repo: Repo, r: Record, ident: str) -> bool:
    try:
        text = fsutil.read_text(repo.root / r.file)
    except (OSError, ValueError):
        return False
    return re.search(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", text) is not None


def _rewrite_refs(path: Path, old: str, new: str) -> None:
    parsed, _ = frontmatter.parse(fsutil.read_text(path), path.name)
    if parsed is None or not parsed.meta:
        return
    lines: set[int] = set()
    for key in _REF_KEYS:
        lines.update(parsed.item_lines.get(key) or ())
        if key in parsed.key_lines:
            lines.add(parsed.key_lines[key])
    _rewrite_lines(path, lines, old, new)


def _rewrite_lines(path: Path, lines: set[int], old: str, new: str, *, value: bool = False) -> None:
    """Replace the id ``old`` (or its bare number) by ``new`` on these lines of ``path``
    (``value``: only after the line's first colon), keeping the file's line endings."""
    raw = path.read_bytes().decode("utf-8")
    text = raw.splitlines(keepends=True)
    number = _ID_NUMBER.match(old)
    forms = [re.escape(old)]
    if number is not None and old.startswith(f"{PREFIX}-"):
        forms.append(rf"0*{int(number.group(2))}")  # `supersedes: [2]`
    pattern = re.compile(rf"(?<![\w-])(?:{'|'.join(forms)})(?![\w-])")
    for line in lines:
        if 1 <= line <= len(text):
            head, sep, rest = text[line - 1].partition(":") if value else ("", "", text[line - 1])
            text[line - 1] = head + sep + pattern.sub(new, rest)
    if "".join(text) != raw:
        fsutil.atomic_write(path, "".join(text))


def _rename(repo: Repo, old: str, new: str) -> None:
    if (repo.root / new).exists():
        raise GitmemError(f"{new} exists already; nothing more was renamed")
    code, _, _ = git.run(["ls-files", "--error-unmatch", "--", old], cwd=repo.root, check=False)
    if code == 0:
        git.run(["mv", "--", old, new], cwd=repo.root)
    else:
        os.replace(repo.root / old, repo.root / new)


def _in_place_duplicates(repo: Repo) -> list[str]:
    """Duplicate ids among ADRs read in place: named, not renamed."""
    from gitmem import compile as compiler

    catalog = compiler.catalog(repo)  # the parse cache: the records were just read
    out = []
    for p in catalog.problems:
        if (
            p.key == "id"
            and p.message.startswith("duplicate id")
            and not p.file.startswith(".continuity/")
        ):
            out.append(f"{shown_name(p.file)}:{p.line}: {p.message}; rename it by hand")
    return out
