"""``gitmem lint``: every problem of every record, plus globs that match no file."""

from __future__ import annotations

from dataclasses import dataclass

from gitmem import config, git, store
from gitmem.globs import Files, GlobError, compile_globs, matches_any
from gitmem.model import Problem
from gitmem.pathmap import searcher
from gitmem.repo import Repo
from gitmem.vocab import counted


@dataclass(frozen=True)
class LintReport:
    checked: int
    problems: tuple[Problem, ...]
    unread_logs: tuple[str, ...] = ()  # ADR logs that no source reads (doctor fails them)
    outdated: int = 0  # ADRs whose inferred globs `gitmem init` would now infer otherwise

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
    listed = git.ls_files(repo.root)
    problems = list(catalog.problems)
    problems.extend(unmatched_globs(repo, catalog, Files(listed)))
    problems.extend(exclusions_only(catalog))
    cfg, entries = catalog.settings, dict(catalog.imported)
    unread = unread_logs(repo, cfg, listed)
    problems.extend(p for _, p in unread)
    outdated = outdated_inferences(repo, cfg, entries, listed)
    problems.extend(p for _, p in outdated)
    problems.extend(orphaned_entries(repo, catalog))
    problems.sort(key=lambda p: (p.file, p.line, p.key, p.message))
    return LintReport(
        checked=len(catalog.decisions),
        problems=tuple(problems),
        unread_logs=tuple(folder for folder, _ in unread),
        outdated=sum(n for n, _ in outdated),
    )


_CONFIG = f".continuity/{config.CONFIG_NAME}"
_IMPORTED = f".continuity/{config.IMPORTED_NAME}"


def unread_logs(repo: Repo, cfg: config.Config, files: list[str]) -> list[tuple[str, Problem]]:
    """An ADR log that `gitmem init` would read but that no source names: one a package
    began after `init` ran, or one an older gitmem did not find (before session 67, a
    package's log of one record). Its ADRs reached no agent, and nothing said so."""
    from gitmem import adrimport, init

    out = []
    for folder in init.unread_logs(repo.root, cfg, files):
        count = len(adrimport.adr_files(repo.root / folder))
        out.append(
            (
                folder,
                Problem(
                    _CONFIG,
                    _sources_line(repo, cfg),
                    "sources",
                    f"{folder} holds {counted(count, 'ADR')} that no source reads, so no agent"
                    " is given them: `gitmem init` adds it (or list it under `skip_adr_dirs:`"
                    " to leave it unread)",
                    "warning",
                ),
            )
        )
    return out


def _sources_line(repo: Repo, cfg: config.Config) -> int:
    """The line of config.yaml's `sources:` key (of its last item, else 1)."""
    if cfg.sources:
        return cfg.sources[-1].line
    try:
        text = (repo.root / _CONFIG).read_text("utf-8", errors="replace")
    except OSError:
        return 1
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("sources:"):
            return n
    return 1


def outdated_inferences(
    repo: Repo,
    cfg: config.Config,
    entries: dict[str, config.ImportedEntry],
    files: list[str],
) -> list[tuple[int, Problem]]:
    """ADRs of a log whose globs in imported.yaml, still marked ``inferred: true``,
    differ from what `gitmem init` would infer now: inferred by an older gitmem (before
    session 67, a package's log lacked its package's glob) or before the files they name
    changed (added, moved). One warning per log, on its first such entry, with how many
    ADRs it stands for. Entries a person marked ``inferred: false`` are theirs, and never
    compared."""
    from gitmem import adrglobs

    if not any(e.inferred for e in entries.values()):
        return []
    folders = [s.path for s in cfg.sources if (repo.root / s.path).is_dir()]
    now = adrglobs.infer_logs(repo.root, folders, files)
    by_log: dict[str, list[tuple[str, config.ImportedEntry, list[str]]]] = {}
    for rel, globs in now.items():
        entry = entries.get(rel)
        if entry is None or not entry.inferred or set(entry.globs) == set(globs):
            continue
        log = max((f for f in folders if rel.startswith(f + "/")), key=len, default="")
        by_log.setdefault(log, []).append((rel, entry, globs))
    out = []
    for log, changed in sorted(by_log.items()):
        changed.sort(key=lambda c: c[1].line)
        rel, entry, globs = changed[0]
        added = [g for g in globs if g not in entry.globs]
        dropped = [g for g in entry.globs if g not in globs]
        said = "; ".join(
            part
            for part in (
                f"add {', '.join(added)}" if added else "",
                f"drop {', '.join(dropped)}" if dropped else "",
            )
            if part
        )
        more = len(changed) - 1
        others = f", as for {counted(more, 'other ADR')} of {log}" if more else ""
        out.append(
            (
                len(changed),
                Problem(
                    _IMPORTED,
                    entry.line,
                    f"{rel}.globs",
                    "inferred by an older gitmem, or before the files it names changed:"
                    f" `gitmem init` would now infer otherwise ({said}){others}. Run it to"
                    " update the entries marked `inferred: true` (mark one `inferred: false`"
                    " to keep it as it is)",
                    "warning",
                ),
            )
        )
    return out


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


def orphaned_entries(repo: Repo, catalog: store.Catalog) -> list[Problem]:
    """imported.yaml's entries that no ADR read in place was read with (``claimed``: by
    its path, or by the one it had, see gitmem.moved): a reviewed entry's globs then
    govern nothing. An entry whose folder the work tree lacks is left to the source's
    warning (moved, or out of a sparse checkout)."""
    import posixpath

    entries = catalog.imported
    out = []
    for key, entry in entries.items():
        if key in catalog.claimed or not (repo.root / posixpath.dirname(key)).is_dir():
            continue
        lost = "" if entry.inferred else "; the globs reviewed here govern nothing"
        out.append(
            Problem(
                _IMPORTED,
                entry.line,
                key,
                f"no ADR read in place has this path (deleted, renamed past recognition, or"
                f" its log no longer a source){lost}: key the entry by the ADR's path, or"
                " remove it",
                "warning",
            )
        )
    return out
