"""``gitmem check``: the decisions governing a change, and their rules enforced.

For the changed files (staged, a revision range, or given paths): which decisions govern
them, grouped by decision, most severe first; every ``forbid`` rule matched against the
*added* lines (narrowed by the rule's own ``paths``), reported as
``FILE:LINE: decision ID: message``. A critical decision's violation blocks (exit 1);
warning and info only print. Changed decision records are linted, and globs that no longer
match any file are reported.

Deliberate exceptions: a ``Decision-Override: ID reason`` trailer on a commit in the
checked range, or ``GITMEM_OVERRIDE="ID reason"`` in the environment for a staged check
(a pre-commit hook cannot see the message being written). Overrides are printed, never
silent.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from gitmem import compile as compiler
from gitmem import git, lint, markup
from gitmem.model import Problem
from gitmem.repo import Repo
from gitmem.rules import Violation, violations_in
from gitmem.table import Entry
from gitmem.vocab import SEVERITY_RANK

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_OVERRIDE = re.compile(r"^Decision-Override:\s*(\S+)\s*(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Report:
    files: tuple[str, ...]
    governing: tuple[tuple[Entry, tuple[str, ...]], ...]
    violations: tuple[Violation, ...]
    overridden: tuple[Violation, ...]
    overrides: dict[str, str] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()

    @property
    def blocked(self) -> bool:
        errors = any(p.level == "error" for p in self.problems)
        return errors or any(v.severity == "critical" for v in self.violations)


def added_lines(repo: Repo, diff_args: list[str]) -> dict[str, list[tuple[int, str]]]:
    """{path: [(new line number, text)]} for the lines a diff adds."""
    _, out, _ = git.run(
        [
            "-c",
            "core.quotepath=off",
            "diff",
            "-U0",
            "--no-ext-diff",
            "--no-color",
            "--no-renames",
            *diff_args,
        ],
        cwd=repo.root,
    )
    result: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    lineno = 0
    for line in out.splitlines():
        if line.startswith("+++ "):
            target = line[4:]
            current = None if target == "/dev/null" else target.removeprefix("b/")
            if current is not None:
                result.setdefault(current, [])
            continue
        if line.startswith("--- ") or line.startswith("diff --git"):
            continue
        match = _HUNK.match(line)
        if match:
            lineno = int(match.group(1))
            continue
        if current is not None and line.startswith("+"):
            result[current].append((lineno, line[1:]))
            lineno += 1
    return result


def whole_files(repo: Repo, paths: list[str]) -> dict[str, list[tuple[int, str]]]:
    from gitmem.paths import to_repo_relative

    out: dict[str, list[tuple[int, str]]] = {}
    for raw in paths:
        rel = to_repo_relative(raw, repo, os.getcwd())
        if rel is None:
            continue
        try:
            text = (repo.root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            out.setdefault(rel, [])
            continue
        out[rel] = list(enumerate(text.splitlines(), start=1))
    return out


def _overrides(repo: Repo, rev_range: str | None) -> dict[str, str]:
    found: dict[str, str] = {}
    if rev_range:
        _, log, _ = git.run(["log", "--format=%B%x00", rev_range], cwd=repo.root, check=False)
        for ident, reason in _OVERRIDE.findall(log):
            found[ident] = reason.strip()
    env = os.environ.get("GITMEM_OVERRIDE", "").strip()
    if env:
        ident, _, reason = env.partition(" ")
        found[ident] = reason.strip() or "(no reason given)"
    return found


def check(
    repo: Repo,
    *,
    staged: bool = False,
    rev_range: str | None = None,
    paths: list[str] | None = None,
) -> Report:
    if paths:
        changes = whole_files(repo, paths)
    elif rev_range:
        changes = added_lines(repo, [rev_range])
    else:
        changes = added_lines(repo, ["--cached"] if staged else [])
    table = compiler.ensure(repo)
    try:
        groups: dict[str, tuple[Entry, list[str]]] = {}
        found: list[Violation] = []
        for path, lines in sorted(changes.items()):
            seen: set[str] = set()
            for m in table.match(path):
                if not m.entry.is_current or m.entry.id in seen:
                    continue
                seen.add(m.entry.id)
                groups.setdefault(m.entry.id, (m.entry, []))[1].append(path)
                found.extend(violations_in(m.entry, path, lines))
    finally:
        table.close()
    overrides = _overrides(repo, rev_range)
    kept = [v for v in found if v.decision not in overrides]
    skipped = [v for v in found if v.decision in overrides]
    ordered = sorted(groups.values(), key=lambda g: (SEVERITY_RANK.get(g[0].severity, 3), g[0].id))
    changed_records = {
        p for p in changes if p.startswith(".continuity/") or markup.kind(p) is not None
    }
    catalog = compiler.catalog(repo)  # one load serves both checks below
    # problems of the changed records, and globs that no longer match any file (a change
    # may have moved or deleted the code they govern)
    problems = [p for p in catalog.problems if p.file in changed_records]
    problems += lint.unmatched_globs(repo, catalog)
    problems.sort(key=lambda p: (p.file, p.line, p.key, p.message))
    return Report(
        files=tuple(sorted(changes)),
        governing=tuple((e, tuple(files)) for e, files in ordered),
        violations=tuple(kept),
        overridden=tuple(skipped),
        overrides=overrides,
        problems=tuple(problems),
    )
