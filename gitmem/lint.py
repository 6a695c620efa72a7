"""``gitmem lint``: every problem of every record, plus globs that match no file."""

from __future__ import annotations

from dataclasses import dataclass

from gitmem import git, store
from gitmem.globs import Files, GlobError, compile_globs, matches_any
from gitmem.model import Problem
from gitmem.pathmap import searcher
from gitmem.repo import Repo
from gitmem.vocab import counted


@dataclass(frozen=True)
class LintReport:
    checked: int
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.level == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for p in self.problems if p.level == "warning")

    def summary(self) -> str:
        """ "3 records checked: 1 error, 2 warnings"."""
        return (
            f"{counted(self.checked, 'record')} checked: {counted(self.errors, 'error')}, "
            f"{counted(self.warnings, 'warning')}"
        )


def lint(repo: Repo) -> LintReport:
    from gitmem import compile as compiler

    catalog = compiler.catalog(repo)
    problems = list(catalog.problems)
    problems.extend(unmatched_globs(repo, catalog))
    problems.extend(exclusions_only(catalog))
    problems.sort(key=lambda p: (p.file, p.line, p.key, p.message))
    return LintReport(checked=len(catalog.decisions), problems=tuple(problems))


def unmatched_globs(
    repo: Repo, catalog: store.Catalog, files: Files | None = None
) -> list[Problem]:
    """A positive glob that matches no tracked (or untracked, unignored) file is stale.
    ``files``: those files, if the caller has them."""
    if files is None:
        files = Files(git.ls_files(repo.root))
    out = []
    cache: dict[str, bool] = {}
    misspelled = 0
    folded: _Folded | None = None
    for d in catalog.decisions:
        for idx, glob in enumerate(d.globs):
            if compile_globs(glob)[0].negated:
                continue
            if glob not in cache:
                cache[glob] = matches_any(glob, files)  # `*.{ts,tsx}`: either will do
            if not cache[glob]:
                where = "globs" if d.source == "continuity" else f"globs[{idx}] (inferred)"
                message = f"{glob!r} matches no file"
                if misspelled < MISSPELLED_MAX:
                    misspelled += 1
                    if folded is None:
                        folded = _Folded(files)
                    other = folded.match(glob)
                    if other is not None:
                        message += (
                            f"; in another case it would match {other} (globs match"
                            " case as written, on every file system)"
                        )
                out.append(Problem(d.file, d.line("globs"), where, message, "warning"))
    return out


# Globs that match no file looked at again regardless of case, at most
MISSPELLED_MAX = 20


class _Folded:
    """The files in lower case, each with its own spelling, asked for a file a glob would
    match were case put aside (``src/payments/**`` and the folder ``src/Payments``: one
    folder on macOS and Windows, where the glob looked right; see ``gitmem.spelling``).
    Made only where some glob matches no file; its lookups use the glob's key, as
    ``Files`` does (a folder's files by bisection), not a pass over every file."""

    def __init__(self, files: Files) -> None:
        self._spelled: dict[str, str] = {}
        for f in files:
            self._spelled.setdefault(f.lower(), f)
        self._files = Files(self._spelled)

    def match(self, glob: str) -> str | None:
        try:
            compiled = compile_globs(glob.lower())
        except GlobError:
            return None
        for c in compiled:
            if c.negated:
                continue
            search = searcher(c.regex)
            found = next((f for f in self._files.candidates(c.key) if search(f)), None)
            if found is not None:
                return self._spelled[found]
        return None


def exclusions_only(catalog: store.Catalog) -> list[Problem]:
    """A decision whose globs all exclude (`!x`) governs no path: the last matching glob
    wins, and `!x` only takes back what an earlier glob matched."""
    out = []
    for d in catalog.decisions:
        negated = [g for g in d.globs if compile_globs(g)[0].negated]
        if negated and len(negated) == len(d.globs):
            out.append(
                Problem(
                    d.file,
                    d.line("globs"),
                    "globs",
                    f"only exclusions ({', '.join(negated)}): the decision governs no path; "
                    f"name what it governs first (`src/**`, then `!src/legacy/**`)",
                    "warning",
                )
            )
    return out
