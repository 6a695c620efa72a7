"""``gitmem check``: the decisions governing a change, and their rules enforced.

For the changed files (staged, a revision range, or given paths): which decisions govern
them, grouped by decision, most severe first; every ``forbid`` rule matched against the
*added* lines (narrowed by the rule's own ``paths``), reported as
``FILE:LINE: decision ID: message``. A critical decision's violation blocks (exit 1);
warning and info only print. Changed decision records are linted, and globs that no longer
match any file are reported, as is a file the change moves out of a decision's globs
(with the glob for its new place, when the move renamed a folder the glob names).

Deliberate exceptions: a ``Decision-Override: ID reason`` trailer on a commit in the
checked range, or ``GITMEM_OVERRIDE="ID reason"`` in the environment for a staged check
(a pre-commit hook cannot see the message being written; `git am`'s pre-applypatch hook
reads the trailer in the patch's message). Overrides are printed, never silent.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitmem import git, markup
from gitmem.errors import DecisionNotFoundError, GitCommandError, GitmemError
from gitmem.globs import Files, lookup_key
from gitmem.model import CURRENT_STATUSES, Decision, Problem
from gitmem.paths import to_repo_relative
from gitmem.repo import Repo
from gitmem.rules import Violation, violations_in
from gitmem.table import Entry, Table, open_current
from gitmem.vocab import RECORD_DIR, SEVERITY_RANK, is_own_record, shown_name

if TYPE_CHECKING:
    from gitmem import store

# Every commit runs `gitmem check --staged` (the pre-commit hook). Loading every record
# (`store`, YAML) and gitignore-style matching (`pathspec`) cost ~100 ms of it, so they are
# imported only where a check needs them: a stale table, a changed record, a file moved out
# of a decision's globs, or a glob warning to report (see `_glob_warnings_possible`).

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_OVERRIDE = re.compile(r"^Decision-Override:\s*(\S+)\s*(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class MovedOut:
    """Files a current decision governed, which the change moves to where none of the
    decision's globs reach: the decision no longer comes to an agent working on them."""

    entry: Entry
    glob: str  # the glob that governed the old paths
    moves: tuple[tuple[str, str], ...]  # (old path, new path)
    suggestion: str | None  # the same glob for the new place, when the move renamed a folder
    line: int = 1  # of the record's globs

    def format(self) -> str:
        hint = (
            f"; if it still applies there, change the glob to {self.suggestion!r}"
            if self.suggestion
            else "; if it still applies there, add a glob for the new paths"
        )
        old, new = self.moves[0]
        extra = len(self.moves) - 1
        more = f" (and {extra} more file{'s' if extra > 1 else ''})" if extra else ""
        return (
            f"{self.entry.file}:{self.line}: globs: warning: {self.entry.id} ({self.glob}) "
            f"governed {shown_name(old)}, which this change moves to {shown_name(new)}{more}, "
            f"outside its globs{hint}"
        )


@dataclass(frozen=True)
class Report:
    files: tuple[str, ...]
    governing: tuple[tuple[Entry, tuple[str, ...]], ...]
    violations: tuple[Violation, ...]
    overridden: tuple[Violation, ...]
    overrides: dict[str, str] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    moved_out: tuple[MovedOut, ...] = ()
    # (path as given, why nothing was checked there) for the PATH arguments that name no
    # file of the repository: a typo must not read as "no decision governs these changes"
    unchecked: tuple[tuple[str, str], ...] = ()
    # the commits a merge in progress brings in: its rules read only what the merge adds
    # to every side (``new_to_every_parent``)
    merging: tuple[str, ...] = ()

    @property
    def blocked(self) -> bool:
        errors = any(p.level == "error" for p in self.problems)
        return errors or any(v.severity == "critical" for v in self.violations)


# `git diff` as the added lines are read (see added_lines): the user's configuration aside
DIFF = (
    "-c",
    "core.quotepath=off",
    "diff",
    "-U0",
    "--no-ext-diff",
    "--no-color",
    "--no-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


def hidden_text(repo: Repo, changes: Mapping[str, list[tuple[int, str]] | None]) -> list[Problem]:
    """What a change adds that its reviewers do not see and agents read (`gitmem.hidden`),
    each kind once per file, at its first added line. Invisible tag characters and
    variation-selector runs anywhere are errors (they stop the commit): hidden
    instructions in a code comment reach the agent that reads the file as surely as in a
    rule file. In an agent instruction file bidi controls are errors too, and terminal
    escapes a warning; in other files bidi controls are a warning ("Trojan Source", but
    right-to-left text may hold them) and escapes are not said (test fixtures hold them).
    A decision record's are its own problems, said as it loads (`check` drops these)."""
    from gitmem import hidden
    from gitmem.agent.stalenote import is_instruction_file

    out: list[Problem] = []
    for path, lines in sorted(changes.items()):
        rules = is_instruction_file(path)
        if lines is None:
            if not rules:
                continue  # `check .` reads a file only where a rule needs it
            lines = _lines(repo, path)
        firsts: dict[str, tuple[int, int]] = {}  # kind -> (line, count)
        for n, text in lines:
            if not hidden.has_any(text):
                continue
            for f in hidden.visible(text)[1]:
                line, count = firsts.get(f.kind, (n, 0))
                firsts[f.kind] = (line, count + f.count)
        for kind, (line, count) in firsts.items():
            found = hidden.Found(kind, 0, count)
            level = found.level
            if not rules and kind in ("bidi", "control"):
                if kind == "control":
                    continue
                level = "warning"
            message = hidden.describe(found, "agents read what no reviewer saw: remove them")
            out.append(Problem(path, line, "hidden", message, level))
    return out


def added_lines(repo: Repo, diff_args: list[str]) -> dict[str, list[tuple[int, str]]]:
    """{path: [(new line number, text)]} for the lines a diff adds.

    Read whatever the user's git configuration: the prefixes are given (``diff.noprefix``
    and ``diff.mnemonicPrefix`` would otherwise turn ``b/billing/x.py`` into
    ``billing/x.py`` or ``i/billing/x.py``, and the check would find no decision: a
    critical rule not enforced), a name git quotes (``"billing/a\\"b.py"``) is unquoted,
    and the tab git puts after a name holding a space is not part of it. A hunk's lines
    are counted from its header, so an added line that reads ``++ x`` is a line, not a
    file's header; lines end at ``\\n`` only (a form feed or U+2028 inside a line is
    text)."""
    _, out, _ = git.run([*DIFF, *diff_args], cwd=repo.root)
    return added_in(out)


def added_in(out: str) -> dict[str, list[tuple[int, str]]]:
    """{path: [(new line number, text)]} for the lines the diff ``out`` (``DIFF``'s
    output) adds."""
    result: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    lineno = old_left = new_left = 0
    for line in out.split("\n"):
        if old_left > 0 or new_left > 0:  # inside a hunk
            tag = line[:1]
            if tag == "+":
                if current is not None:
                    result[current].append((lineno, line[1:].removesuffix("\r")))
                lineno += 1
                new_left -= 1
                continue
            if tag in ("-", " "):
                old_left -= 1
                new_left -= tag == " "
                lineno += tag == " "
                continue
            if tag == "\\":  # "\ No newline at end of file"
                continue
            old_left = new_left = 0  # a hunk shorter than its header said: a header
        if line.startswith("+++ "):
            current = _diff_path(line[4:])
            if current is not None:
                result.setdefault(current, [])
            continue
        match = _HUNK.match(line)
        if match:
            old_left = int(match.group(1) or 1)
            lineno = int(match.group(2))
            new_left = int(match.group(3) or 1)
    return result


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _diff_path(label: str) -> str | None:
    """The path of a ``+++`` line's label (``b/PATH``), or None for ``/dev/null``."""
    label = label.removesuffix("\t")  # git adds it after a name holding a space
    if label == "/dev/null":
        return None
    if label.startswith('"'):
        label = _unquote(label)
    return label.removeprefix("b/")


def _unquote(quoted: str) -> str:
    """A name as git quotes it (C style: ``\\"``, ``\\\\``, ``\\t``, ``\\303\\251``)."""
    body = quoted[1:-1] if quoted.endswith('"') and len(quoted) > 1 else quoted[1:]
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in _C_ESCAPES:
                out.append(_C_ESCAPES[nxt])
                i += 2
                continue
            digits = body[i + 1 : i + 4]
            if len(digits) == 3 and all(d in "01234567" for d in digits):
                out.append(int(digits, 8) & 0xFF)
                i += 4
                continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def renames(repo: Repo, diff_args: list[str]) -> list[tuple[str, str]]:
    """(old, new) for each file a diff renames (git's rename detection)."""
    args = ["-c", "core.quotepath=off", "diff", "--name-status", "-M", "-z", "--no-ext-diff"]
    code, out, _ = git.run(
        [*args, *diff_args],
        cwd=repo.root,
        check=False,
    )
    if code != 0:
        return []
    items = out.split("\0")
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(items) and items[i]:
        status = items[i]
        if status[:1] in ("R", "C"):
            if status[0] == "R" and i + 2 < len(items):
                found.append((items[i + 1], items[i + 2]))
            i += 3
        else:
            i += 2
    return found


def moved_out(table: Table, moves: list[tuple[str, str]]) -> list[MovedOut]:
    """The current decisions that governed moved files' old paths and not their new ones,
    one per decision and glob (a moved folder is many files), with the new glob most of
    the moves point to."""
    found: dict[tuple[str, str], tuple[Entry, list[tuple[str, str]], list[str]]] = {}
    for old, new in moves:
        now = {m.entry.id for m in table.match(new)}
        for m in table.match(old):
            if m.entry.is_current and m.entry.id not in now:
                _, pairs, hints = found.setdefault((m.entry.id, m.glob), (m.entry, [], []))
                pairs.append((old, new))
                hint = _moved_glob(m.glob, old, new)
                if hint is not None:
                    hints.append(hint)
    out = []
    for (_, glob), (entry, pairs, hints) in found.items():
        best = max(set(hints), key=lambda h: (hints.count(h), h)) if hints else None
        out.append(MovedOut(entry, glob, tuple(pairs), best))
    return out


def _moved_glob(glob: str, old: str, new: str) -> str | None:
    """``glob`` carried along with the move: the folders before the part of the path the
    move kept (``billing/**`` for ``billing/charge.py`` -> ``payments/charge.py`` becomes
    ``payments/**``; for ``billing/x.py`` -> ``core/billing/x.py``, ``core/billing/**``),
    or else the one folder the move renamed, where the glob names it once
    (``**/billing/**`` -> ``**/payments/**``); for a glob naming the file, its new path."""
    if glob == old:
        return new  # a glob naming the file itself
    a, b = old.split("/"), new.split("/")
    tail = 0
    while tail < min(len(a), len(b)) and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    if tail == 0:
        return None
    was, now = a[: len(a) - tail], b[: len(b) - tail]
    parts = glob.split("/")
    if parts[: len(was)] == was:
        return "/".join([*now, *parts[len(was) :]])
    head = 0
    while head < min(len(was), len(now)) and was[head] == now[head]:
        head += 1
    mid_was, mid_now = was[head:], now[head:]
    width = len(mid_was)
    spots = [i for i in range(len(parts)) if width and parts[i : i + width] == mid_was]
    if len(spots) != 1 or not mid_now:
        return None
    i = spots[0]
    return "/".join([*parts[:i], *mid_now, *parts[i + width :]])


def _globs_line(catalog: store.Catalog, ident: str) -> int:
    try:
        return catalog.get(ident).line("globs")
    except DecisionNotFoundError:
        return 1


def whole_files(
    repo: Repo, paths: list[str], cwd: str | None = None
) -> dict[str, list[tuple[int, str]]]:
    """{path: [(line number, text)]} for every line of each file, ``paths`` taken from
    ``cwd`` (default: the current folder)."""
    from gitmem.readfile import read_regular

    out: dict[str, list[tuple[int, str]]] = {}
    for raw in paths:
        rel = to_repo_relative(raw, repo, cwd or os.getcwd())
        if rel is None:
            continue
        text = read_regular(str(repo.root / rel))  # a FIFO or a device: no text
        if text is None:
            out.setdefault(rel, [])
            continue
        out[rel] = list(enumerate(text.splitlines(), start=1))
    return out


def named_files(
    repo: Repo, paths: list[str], files: Files, cwd: str | None = None
) -> tuple[list[str], list[tuple[str, str]]]:
    """The repository files ``paths`` (taken from ``cwd``, default the current folder)
    name, a folder standing for the ``files`` under it (those git tracks or would track:
    ``.`` is the whole work tree, as `ruff check .` or `git add .` read it); and (path, why)
    for each path that names none. Before session 48 a folder was read as one file with no
    lines, and `gitmem check src/` said "no decision governs these changes" over a file in
    it that broke a critical rule."""
    named: dict[str, None] = {}
    unchecked: list[tuple[str, str]] = []
    for raw in paths:
        rel = to_repo_relative(raw, repo, cwd or os.getcwd()) if raw else None
        if rel is None:
            unchecked.append((raw, "outside this repository"))
            continue
        full = repo.root / rel
        if full.is_dir() and not (rel and (full / ".git").exists()):  # a submodule: one entry
            present = [f for f in files.under(rel) if os.path.lexists(repo.root / f)]
            named.update(dict.fromkeys(present))
            if not present:
                unchecked.append((raw, "a folder holding no file git tracks or would track"))
        elif os.path.lexists(full):
            named[rel] = None
        else:
            hint = " (a revision range? `gitmem check --range A..B`)" if ".." in raw else ""
            unchecked.append((raw, f"no such file or folder{hint}"))
    return list(named), unchecked


def _named_in_change(
    repo: Repo, paths: list[str], *, staged: bool, cwd: str | None = None
) -> tuple[list[str], list[tuple[str, str]]]:
    """The repository paths (files or folders) ``paths`` name, taken from ``cwd``, to
    limit a change to (the index's, a range's), and (path, why) for each that names
    nothing: outside the repository, or (``staged``) neither in the work tree nor in the
    index. A hook manager that gives the staged files (lefthook's `gitmem check --staged
    {staged_files}`) means their staged change: before session 49 the paths won and their
    whole files were read, so a line the commit did not add could block it."""
    rels: list[str] = []
    unchecked: list[tuple[str, str]] = []
    tracked: Files | None = None  # the index's files: listed only for a path not on disk
    for raw in paths:
        rel = to_repo_relative(raw, repo, cwd or os.getcwd()) if raw else None
        if rel is None:
            unchecked.append((raw, "outside this repository"))
            continue
        if staged and rel and not os.path.lexists(repo.root / rel):
            if tracked is None:
                tracked = Files(git.ls_files(repo.root))
            if not tracked.holds(rel):
                unchecked.append((raw, "no such file or folder"))
                continue
        rels.append(rel)
    return rels, unchecked


def merging(repo: Repo) -> list[str]:
    """The commits a merge in progress brings in (``MERGE_HEAD``: one, several for an
    octopus merge); none outside a merge."""
    try:
        text = (repo.git_dir / "MERGE_HEAD").read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    return [line.strip() for line in text.splitlines() if line.strip()]


def new_to_every_parent(
    repo: Repo,
    changes: Mapping[str, list[tuple[int, str]] | None],
    others: list[str],
    specs: list[str],
    *,
    cached: bool = True,
) -> None:
    """Keep, of the staged ``changes`` (against HEAD), the lines the index adds against
    each of ``others`` too: what the merge itself brings (a conflict's resolution, an
    edit made while merging), not what a side had already. A line the merged branch
    committed was that commit's to answer for, as when the merge needs no resolution
    (``git merge`` then commits with no pre-commit hook at all); checked here, it blocked
    the one resolving a conflict over a teammate's line. Line numbers are the index's in
    every diff, so a line is kept where each diff adds it. In place; every file stays
    (its decisions are still listed). ``cached=False``: ``changes`` are the work tree's
    (``git commit -a``), and so is each diff."""
    for other in others:
        args = ["--cached", other] if cached else [other]
        theirs = added_lines(repo, [*args, "--", *specs] if specs else args)
        for path, lines in changes.items():
            if lines:
                kept = {n for n, _ in theirs.get(path, [])}
                lines[:] = [(n, text) for n, text in lines if n in kept]


def _deleted_records(repo: Repo, diff_args: list[str]) -> list[str]:
    """gitmem's records the change deletes (a deleted file has no added lines, so the
    added-lines diff leaves it out)."""
    args = ["diff", "--name-only", "-z", "--no-renames", "--diff-filter=D", *diff_args]
    _, out, _ = git.run([*args, "--", f":(top){RECORD_DIR}"], cwd=repo.root)
    return [p for p in out.split("\0") if is_own_record(p)]


def _sides(repo: Repo, rev_range: str | None) -> tuple[str, str] | None:
    """The revisions a change goes from and to, as ``git show REV:path`` names them: HEAD
    and the index (``""``) for the staged change; A (or the merge base, for ``A...B``)
    and B (HEAD where left out) for a range; None for a range of another form."""
    if rev_range is None:
        return "HEAD", ""
    sep = "..." if "..." in rev_range else ".." if ".." in rev_range else None
    if sep is None:
        return None
    a, _, b = rev_range.partition(sep)
    a, b = a or "HEAD", b or "HEAD"
    if sep == "...":
        code, out, _ = git.run(["merge-base", a, b], cwd=repo.root, check=False)
        if code != 0:
            return None
        a = out.strip()
    return a, b


def loosened_records(
    repo: Repo,
    rev_range: str | None,
    changed: set[str],
    deleted: list[str],
    catalog: store.Catalog,
) -> list[Problem]:
    """Warnings for what the change takes from a current critical decision's force: its
    rule removed, its severity lowered, its status set past it, a glob narrowed, the
    record deleted or superseded (gitmem.loosened). Said, not blocked: decisions change
    by review, and this shows the reviewer (the commit's author, CI on a pull request)
    what would otherwise pass as a one-line diff of a Markdown file."""
    from gitmem import loosened

    sides = _sides(repo, rev_range)
    rels = sorted(r for r in changed if is_own_record(r))
    if sides is None or not (rels or deleted):
        return []
    before, after = sides

    texts: dict[tuple[str, str], str | None] = {}  # a record's side read once

    def shown(rev: str, rel: str) -> str | None:
        if (rev, rel) not in texts:
            code, out, _ = git.run(["show", f"{rev}:{rel}"], cwd=repo.root, check=False)
            texts[rev, rel] = out if code == 0 else None
        return texts[rev, rel]

    def now(rel: str) -> Decision | None:
        if rel in deleted:  # moved elsewhere (the diff does not pair renames), or gone
            old = loosened.version(repo.root, rel, shown(before, rel))
            return catalog.by_id.get(old.id) if old is not None else None
        return loosened.version(repo.root, rel, shown(after, rel))

    def known(ident: str) -> loosened.Known | None:  # as it was before the change
        d = catalog.by_id.get(ident)
        if d is None:
            return None
        was = loosened.version(repo.root, d.file, shown(before, d.file)) or d
        current = was.status in CURRENT_STATUSES  # as declared: superseding makes it past
        return loosened.Known(d.id, d.title, d.file, was.severity, current, bool(was.rules))

    found = loosened.loosenings(
        [*rels, *deleted],
        lambda rel: loosened.version(repo.root, rel, shown(before, rel)),
        now,
        known,
    )
    merged: dict[str, tuple[loosened.Loosening, list[str]]] = {}
    for f in found:  # a record's own edit and a new record superseding it: one line
        _, what = merged.setdefault(f.ident, (f, []))
        what.extend(w for w in f.what if w not in what)
    return [
        Problem(f.file, 1, "loosened", f"{f.ident} (critical): " + "; ".join(what), "warning")
        for f, what in merged.values()
    ]


def _within(path: str, rels: list[str]) -> bool:
    """Whether ``path`` is one of ``rels`` or under one of them ("" is the root)."""
    return any(not rel or path == rel or path.startswith(rel + "/") for rel in rels)


def _lines(repo: Repo, rel: str) -> list[tuple[int, str]]:
    return whole_files(repo, [rel], cwd=str(repo.root)).get(rel, [])


def _overrides(repo: Repo, rev_range: str | None) -> dict[str, str]:
    found: dict[str, str] = {}
    if rev_range:
        _, log, _ = git.run(["log", "--format=%B%x00", rev_range], cwd=repo.root, check=False)
        for ident, reason in _OVERRIDE.findall(log):
            found[ident] = reason.strip()
    else:
        # the message of the patch `git am` is applying (its pre-applypatch hook), which
        # the commit will carry: its trailer counts, as it will in a `--range` check
        applying = repo.git_dir / "rebase-apply"
        if (applying / "applying").is_file():
            with contextlib.suppress(OSError):
                message = (applying / "final-commit").read_text(encoding="utf-8", errors="replace")
                for ident, reason in _OVERRIDE.findall(message):
                    found[ident] = reason.strip()
    env = os.environ.get("GITMEM_OVERRIDE", "").strip()
    if env:
        ident, _, reason = env.partition(" ")
        found[ident] = reason.strip() or "(no reason given)"
    return found


def _range_error(repo: Repo, rev_range: str | None, exc: GitCommandError) -> GitmemError:
    """What to do when git cannot diff a range. A CI checkout is usually shallow (GitHub's
    `actions/checkout` fetches one commit), so `origin/main...HEAD` has no merge base
    there, or names a branch that was never fetched; git says only that."""
    if not rev_range:
        return exc
    _, shallow, _ = git.run(["rev-parse", "--is-shallow-repository"], repo.root, check=False)
    lines = exc.stderr.strip().splitlines()
    said = next((x for x in lines if x.startswith("fatal:")), lines[0] if lines else str(exc))
    said = said.rstrip(".")
    if shallow.strip() != "true":
        return GitmemError(f"cannot diff {rev_range}: {said}")
    return GitmemError(
        f"cannot diff {rev_range}: {said}. This clone is shallow, as CI checkouts "
        "usually are: fetch the history the range needs (GitHub Actions: "
        "`actions/checkout` with `fetch-depth: 0`; elsewhere `git fetch --unshallow`, "
        "or fetch the base branch too)"
    )


def _glob_warnings_possible(table: Table, files: Files) -> bool:
    """Whether `lint.unmatched_globs` or `lint.exclusions_only` may have something to say,
    from the table's compiled patterns, without loading the records: a decision whose
    patterns all exclude, or a pattern that matches none of ``files``. Never False where
    they would report (a brace glob's expansions are looked at one by one, which can only
    say True more often)."""
    matched: set[str] = set()
    for entry in table.entries():
        patterns = table.patterns(entry)
        if patterns and all(p[3] for p in patterns):
            return True
        for _kind, _literal, regex, negated, glob, _ in patterns:
            if negated or regex in matched:
                continue
            if not files.any_match(regex, lookup_key(glob)):  # as `globs.matches_any` does
                return True
            matched.add(regex)
    return False


def check(
    repo: Repo,
    *,
    staged: bool = False,
    rev_range: str | None = None,
    paths: list[str] | None = None,
) -> Report:
    diff_args = [rev_range] if rev_range else ["--cached"] if staged else []
    unchecked: list[tuple[str, str]] = []
    limit: list[str] | None = None  # the change to these paths only (repository-relative)
    if paths and diff_args:  # `--staged {staged_files}` (lefthook): the change to these only
        limit, unchecked = _named_in_change(repo, paths, staged=staged and not rev_range)
        paths = None
    files = Files(git.ls_files(repo.root)) if paths else None
    others = merging(repo) if staged and not rev_range and not paths else []
    changes: dict[str, list[tuple[int, str]] | None]  # None: a named file, read if ruled
    try:
        if paths and files is not None:
            named, unchecked = named_files(repo, paths, files)
            changes = dict.fromkeys(named)
        elif limit == []:  # every path named nothing here
            changes = {}
        else:
            specs = [f":(top,literal){rel}" if rel else ":(top)" for rel in limit or []]
            changes = dict(added_lines(repo, [*diff_args, "--", *specs] if specs else diff_args))
            if others:
                new_to_every_parent(repo, changes, others, specs)
    except GitCommandError as exc:
        raise _range_error(repo, rev_range, exc) from exc
    table = open_current(repo)
    try:
        # moves from the whole change (a rename's two sides), those touching the paths
        moves = [] if paths or limit == [] else renames(repo, diff_args)
        if limit:
            moves = [(old, new) for old, new in moves if _within(old, limit) or _within(new, limit)]
        left = moved_out(table, moves) if moves else []
        groups: dict[str, tuple[Entry, list[str]]] = {}
        found: list[Violation] = []
        for path, lines in sorted(changes.items()):
            seen: set[str] = set()
            for m in table.match(path):
                if not m.entry.is_current or m.entry.id in seen:
                    continue
                seen.add(m.entry.id)
                groups.setdefault(m.entry.id, (m.entry, []))[1].append(path)
                if m.entry.rules and lines is None:  # `check .`: read only what a rule reads
                    lines = _lines(repo, path)
                found.extend(violations_in(m.entry, path, lines or []))
        if files is None:
            files = Files(git.ls_files(repo.root))
        glob_warnings = _glob_warnings_possible(table, files)
    finally:
        table.close()
    overrides = _overrides(repo, rev_range)
    kept = [v for v in found if v.decision not in overrides]
    skipped = [v for v in found if v.decision in overrides]
    ordered = sorted(groups.values(), key=lambda g: (SEVERITY_RANK.get(g[0].severity, 3), g[0].id))
    changed_records = {
        p for p in changes if p.startswith(".continuity/") or markup.kind(p) is not None
    }
    problems: list[Problem] = []
    gone_records = _deleted_records(repo, diff_args) if diff_args and not paths else []
    if limit is not None:  # `--staged PATH...`: the change to those paths only
        gone_records = [p for p in gone_records if _within(p, limit)]
    problems += hidden_text(repo, changes)
    if changed_records or left or glob_warnings or gone_records:
        from gitmem import compile as compiler
        from gitmem import lint

        catalog = compiler.catalog(repo)  # one load serves the checks below
        # a record's hidden text is its own problem, with the key that held it
        records = {d.file for d in catalog.decisions} | {p.file for p in catalog.problems}
        problems = [p for p in problems if p.file not in records]
        # problems of the changed records, and globs that no longer match any file (a
        # change may have moved or deleted the code they govern)
        problems += [p for p in catalog.problems if p.file in changed_records]
        problems += lint.unmatched_globs(repo, catalog, files)
        problems += lint.exclusions_only(catalog)
        if changed_records:  # an ADR written to a log that no source reads (session 68)
            problems += [
                p
                for log, p in lint.unread_logs(repo, catalog.settings, list(files))
                if any(_within(r, [log]) for r in changed_records)
            ]
        if diff_args and not paths:
            problems += loosened_records(repo, rev_range, changed_records, gone_records, catalog)
        left = [dataclasses.replace(m, line=_globs_line(catalog, m.entry.id)) for m in left]
    problems.sort(key=lambda p: (p.file, p.line, p.key, p.message))
    return Report(
        files=tuple(sorted(changes)),
        governing=tuple((e, tuple(files)) for e, files in ordered),
        violations=tuple(kept),
        overridden=tuple(skipped),
        overrides=overrides,
        problems=tuple(problems),
        moved_out=tuple(left),
        unchecked=tuple(unchecked),
        merging=tuple(others),
    )
