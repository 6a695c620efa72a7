"""The compiled decision table: which decisions govern a path, without parsing any YAML.

Stored as SQLite in the work tree's git directory (``<git-dir>/gitmem/table.sqlite``; each
linked worktree has its own, since its branch may carry different decisions). Rows hold
everything a hook or ``gitmem why`` shows; a key table files each decision under the lookup
keys of its globs (see ``gitmem.globs``), so a lookup reads only the candidates for the
path's own keys: its cost depends on the path, not on how many decisions exist.

This module is on the prompt hook's path, so beyond SQLite it imports only built-in
modules and lean gitmem ones: no ``json``, ``pathlib`` or ``typing`` (each costs a fresh
interpreter milliseconds), which is why its records are slotted classes, not NamedTuples.
It opens SQLite through ``_sqlite3``, the C module that ``sqlite3`` re-exports (the same
``connect``, ``Connection`` and ``Error`` objects), which skips ``sqlite3.dbapi2``'s
``datetime`` and ``collections.abc`` imports: ~3 ms of a fresh prompt hook.
"""

from __future__ import annotations

import os

try:
    import _sqlite3 as sqlite3
except ImportError:  # pragma: no cover - an interpreter without the C module's usual name
    import sqlite3  # type: ignore[no-redef]

from gitmem import leanjson
from gitmem.pathmap import (
    Pattern,
    could_name_a_file,
    governs,
    path_keys,
    patterns_of,
    quick_fingerprint,
)
from gitmem.vocab import CURRENT_STATUSES, SEVERITY_RANK, clipped, shown_name

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~5 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitmem.repo import Repo

# Bump it when the table's layout changes, and also when what a record file parses into
# changes: the parse cache (`filecache`) lives in this table, keyed by file size and mtime,
# so an upgraded gitmem would otherwise keep what the old rules made of unchanged files.
# A table of another version is ignored and compiled afresh. 4: MADR 3/4 front-matter
# statuses with links (`status: "superseded by [ADR-0005](0005-x.md)"`). 5: a status or date
# in a table row; links to reStructuredText and AsciiDoc records. 6: summaries skip
# bookkeeping sections (Status, Changelog) and status-only Decision sections, and read links
# as their text (tables left out); "Implemented. Superseded by X" reads as superseded.
# 7: a gitmem record may name its successor (`superseded_by`). 8-10: summaries leave out
# HTML comments and contributor lines, read hard line breaks, drop a dangling "...like:",
# and complete "Option D" with its heading. 11: a summary still the template's is left empty.
# 12: an ADR's unknown front-matter keys warn only when they look like a typo of gitmem's.
# 13: "## Status: X" and "## Date: X" headings; struck-through statuses are not read.
# 14: "Supersedes:" / "Superseded by:" lines of their own; quoted ("> Status:") lines.
# 15: the FTS5 mirror holds runs of CJK characters as pairs (`entities.cjk_pairs`).
# 16: summaries clip at "。", "！" and "？", and drop announcements ending in "：".
# 17: a title ending "(Supersedes ADR-0011)" links the pair.
# 18: Chinese and Japanese ADR sections, keys, statuses and dates.
# 19: bracket expressions' POSIX classes are ranges, a `[` in a set is escaped (globs).
# 20: the records' errors in `meta` ("problems", see `Table.problems`).
# 21: unresolved merge conflicts in a record are its problem (`frontmatter.conflicts`).
# 22: a record in merge conflict is read as its side above `=======` (`frontmatter.ours`);
# an invalid `id:` gives way to the file name's.
# 23: an ADR's title leaves out the label that restates its number (`adrimport.plain_title`).
# 24: a rule's `paths` compiled with it (`path_patterns`): the hooks match them without
# pathspec; config.yaml's `commit_trailers` in `meta`, for the prepare-commit-msg hook.
# 25: the ADR folders config.yaml names that the work tree lacks, with the problems
# ("unread"), so that every command and hook says their records are not read.
# 26: a glob's `[...]` set also read as part of a name (`app/blog/[slug]/**`:
# `globs.compile_globs`).
# 27: a record is read without the characters its readers do not see (`gitmem.hidden`):
# tag characters, variation-selector runs, bidi controls, terminal escapes.
# 28: a record that is a link out of the work tree, or not a regular file, is not read
# (`fsutil.inside`).
# 29: a title longer than agents are given (`budget.MAX_TITLE`) is a warning.
# 30: a title is one line, its white space runs one space (`validate.build`).
# 31: a record whose file name holds a line break or hidden characters is not read
# (`hidden.in_name`); an ADR folder's `id_prefix` must be one (`config.load`).
# 32: an id taken from a file name has a `-` for each run of spaces and brackets
# (`validate.as_id`).
# 33: ADR statuses "In review", "Under discussion", "Not accepted", ... and an empty Status
# section read as proposed, with a warning for a status not understood (`vocab`,
# `adrfields.written_status`); globs inferred for `Type.member` and hidden folders' paths;
# a summary's list items read as sentences (`sections._join`); a `## Date` section, a
# status's date and a title label ended by "："; Spanish, Portuguese, German, French and
# Italian logs' section names, status words and supersession (`vocab`); dates written
# "17 Feb 2025", "05.03.2024" (`adrfields.iso_date`); an ADR's `Tags:` line, and `tags:`
# written as one string with commas (`adrfields.parse_tags`, `validate.build`).
# 34: a Decision that a status word opens ("Decided: use X") is a summary, and "Accepted on
# 2024-03-05" is no summary (`sections._status_only`); an ADR's front matter date under
# `decided-on`, `created`, ... or written "17 Feb 2025" (`store._front_matter_date`); no
# tag from a `Tags:` line's unfilled placeholder (`adrfields.parse_tags`); globs inferred
# for Rust's, C++'s and PHP's qualified names and extensionless partial paths; the `adrs`
# tool's front matter `links`; a Status section's history and choices
# (`adrfields.current_status`); Russian logs' words.
SCHEMA_VERSION = "34"
TABLE_NAME = "table.sqlite"


class Entry:
    """What the table knows about one decision."""

    __slots__ = (
        "date",
        "effective_status",
        "file",
        "globs",
        "globs_inferred",
        "id",
        "n",
        "pin",
        "rules",
        "severity",
        "status",
        "summary",
        "superseded_by",
        "supersedes",
        "tags",
        "title",
    )

    def __init__(
        self,
        *,
        n: int,
        id: str,
        title: str,
        status: str,
        effective_status: str,
        severity: str,
        file: str,
        summary: str,
        superseded_by: tuple[str, ...],
        supersedes: tuple[str, ...],
        tags: tuple[str, ...],
        pin: bool,
        date: str | None,
        globs: tuple[str, ...],
        globs_inferred: bool,
        rules: tuple[dict[str, object], ...],
    ) -> None:
        self.n = n
        self.id = id
        self.title = title
        self.status = status
        self.effective_status = effective_status
        self.severity = severity
        self.file = file
        self.summary = summary
        self.superseded_by = superseded_by
        self.supersedes = supersedes
        self.tags = tags
        self.pin = pin
        self.date = date
        self.globs = globs
        self.globs_inferred = globs_inferred
        self.rules = rules

    @property
    def is_current(self) -> bool:
        return self.effective_status in CURRENT_STATUSES

    def __repr__(self) -> str:
        return f"Entry({self.id!r}, {self.effective_status!r})"


class Match:
    """A decision governing a path, through one of its globs."""

    __slots__ = ("entry", "glob", "specificity")

    def __init__(self, entry: Entry, glob: str, specificity: int) -> None:
        self.entry = entry
        self.glob = glob
        self.specificity = specificity

    def __repr__(self) -> str:
        return f"Match({self.entry.id!r}, {self.glob!r}, {self.specificity})"


class Problems:
    """The errors the table was compiled with (see ``gitmem.store.Catalog.errors``): how
    many, in how many files, how many of those are records and how many records made no
    row ("left out"), how many ADR folders named in config.yaml the work tree lacks
    ("unread": moved, or left out by a sparse checkout), and the first problem of a few
    files, unread folders and left-out files first. The other files with errors are
    gitmem's settings (``.continuity/config.yaml``, ``imported.yaml``)."""

    __slots__ = ("errors", "files", "first", "left_out", "records", "unread")

    def __init__(
        self,
        errors: int,
        files: int,
        records: int,
        left_out: int,
        first: list[tuple[str, int, str, str, bool]],
        unread: int = 0,
    ) -> None:
        self.errors = errors
        self.files = files
        self.records = records
        self.left_out = left_out
        self.first = first
        self.unread = unread

    def headline(self) -> str:
        """What a user or an agent must know, e.g. "2 decision files have errors and are
        left out"."""
        parts = []
        if self.unread:
            parts.append(
                "an ADR folder named in .continuity/config.yaml is not read"
                if self.unread == 1
                else f"{self.unread} ADR folders named in .continuity/config.yaml are not read"
            )
        n = self.records
        if n:
            files = "1 decision file has" if n == 1 else f"{n} decision files have"
            if self.left_out == n:
                parts.append(f"{files} errors and {'is' if n == 1 else 'are'} left out")
            elif self.left_out:
                others = "the other" if n - self.left_out == 1 else "the others"
                parts.append(f"{files} errors ({self.left_out} left out, {others} loaded in part)")
            else:
                parts.append(f"{files} errors and {'was' if n == 1 else 'were'} loaded in part")
        settings = self.files - n
        if settings:
            parts.append(
                "1 settings file has errors"
                if settings == 1
                else f"{settings} settings files have errors"
            )
        return "; ".join(parts)

    def what(self) -> str:
        """What gitmem does not apply as written because of these problems."""
        if (self.records or self.unread) and self.files > self.records:
            return "those decisions or its settings"
        return "those decisions" if self.records or self.unread else "its settings"

    def more(self) -> int:
        """How many files (or folders) with problems ``first`` leaves out."""
        return self.files + self.unread - len(self.first)

    def lines(self, width: int = 160) -> list[str]:
        """One line per kept file: ``FILE:LINE: key: message``, clipped to ``width``."""
        out = []
        for file, line, key, message, left_out in self.first:
            text = f"{shown_name(file)}:{line}: {key}: {message}"
            out.append(clipped(text, width) + (" (left out)" if left_out else ""))
        return out


def sort_key(m: Match) -> tuple[int, int, int, str]:
    """Current before superseded, then the most specific glob, then the most severe."""
    return (
        0 if m.entry.is_current else 1,
        -m.specificity,
        SEVERITY_RANK.get(m.entry.severity, 3),
        m.entry.id,
    )


_COLUMNS = (
    "n, id, title, status, effective_status, severity, file, summary, superseded_by, "
    "supersedes, tags, pin, date, globs, globs_inferred, rules, patterns"
)


class Table:
    def __init__(
        self, conn: sqlite3.Connection, path: str | os.PathLike[str], *, shared: bool = False
    ) -> None:
        self._conn = conn
        self.path = path
        self._shared = shared  # a connection that outlives this table (a table in memory)
        self._raw_patterns: dict[int, object] = {}  # classified on first use (see _patterns)
        self._patterns: dict[int, list[Pattern]] = {}
        self._entries: dict[int, Entry] = {}
        self._common: set[str] | None = None  # see compile._common_words

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Table | None:
        """Open a table; None when it is missing, corrupt or from another version."""
        if not os.path.isfile(path):
            return None
        try:
            # check_same_thread off: the daemon serves from worker threads under one lock
            conn = sqlite3.connect(
                f"file:{os.fspath(path)}?mode=ro&immutable=1", uri=True, check_same_thread=False
            )
            row = conn.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
        except sqlite3.Error:
            return None
        if row is None or row[0] != SCHEMA_VERSION:
            conn.close()
            return None
        return cls(conn, path)

    def close(self) -> None:
        if not self._shared:
            self._conn.close()

    def meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def problems(self) -> Problems | None:
        """The records' errors, or None when every record loaded cleanly (or the meta
        entry is unreadable: a report about errors must never be one)."""
        try:
            data = leanjson.loads(self.meta("problems") or "{}")
            if not isinstance(data, dict) or not (data.get("files") or data.get("unread")):
                return None
            first = [
                (str(f[0]), int(f[1]), str(f[2]), str(f[3]), bool(f[4]))
                for f in data.get("first") or []
            ]
            return Problems(
                int(data["errors"]),
                int(data["files"]),
                int(data["records"] if "records" in data else data["files"]),
                int(data["left_out"]),
                first,
                int(data.get("unread") or 0),
            )
        except (ValueError, TypeError, KeyError, IndexError, sqlite3.Error):
            return None

    def _load(self, rows: Sequence[Sequence[object]]) -> None:
        for row in rows:
            n = int(row[0])  # type: ignore[call-overload]
            if n in self._entries:
                continue
            self._entries[n] = _entry(row)
            self._raw_patterns[n] = row[16]

    def _patterns_of(self, n: int) -> list[Pattern]:
        pats = self._patterns.get(n)
        if pats is None:
            pats = self._patterns[n] = patterns_of(_list(self._raw_patterns[n]))  # type: ignore[arg-type]
        return pats

    def patterns(self, entry: Entry) -> list[Pattern]:
        """The compiled patterns of a decision's globs (written and inferred), in order."""
        return self._patterns_of(entry.n)

    def match(self, path: str, is_dir: bool = False) -> list[Match]:
        """Decisions whose globs govern the repository-relative ``path``, best first."""
        if not path.isascii():
            # a name whose bytes are not UTF-8 (git's names are bytes; Python holds such
            # a byte as a lone surrogate, which SQLite and RE2 refuse): each such byte as
            # U+FFFD, which wildcards match (before session 55, `gitmem why` on it, and
            # the check of a commit holding it, ended in a UnicodeEncodeError)
            path = leanjson.well_formed(path)
        if not could_name_a_file(path):  # (and its keys would pass SQLite's 32,766 `?`)
            return []
        out = []
        for n in self._filed(path_keys(path), "k"):
            hit = governs(self._patterns_of(n), path, is_dir)
            if hit is not None:
                out.append(Match(self._entries[n], hit[0], hit[1]))
        out.sort(key=sort_key)
        return out

    def match_in_any_case(self, path: str, is_dir: bool = False) -> list[Match]:
        """``match`` were case put aside (ASCII letters, as SQLite's ``lower`` folds the
        keys): the decisions whose globs would govern ``path`` in another case. One pass
        over the keys in lower case, not over every decision's globs: matching every
        decision's globs in lower case took `gitmem why` 0.5 s at 10,000 decisions."""
        from gitmem.globs import GlobError, compile_globs

        path = (path if path.isascii() else leanjson.well_formed(path)).lower()  # as match
        if not could_name_a_file(path):
            return []
        out = []
        for n in self._filed(path_keys(path), "lower(k)"):
            written = dict.fromkeys(pattern[4] for pattern in self._patterns_of(n))  # in order
            try:
                rows = [
                    (c.regex, c.negated, glob, c.specificity)
                    for glob in written
                    for c in compile_globs(glob.lower())
                ]
            except GlobError:
                continue
            hit = governs(patterns_of(rows), path, is_dir)
            if hit is not None:
                out.append(Match(self._entries[n], hit[0], hit[1]))
        out.sort(key=sort_key)
        return out

    def _filed(self, keys: list[str], column: str) -> list[int]:
        """The rows of the decisions filed under ``keys`` (as ``column`` gives a key:
        ``k``, or ``lower(k)``), each loaded."""
        marks = ",".join("?" * len(keys))
        query = f"SELECT DISTINCT n FROM key WHERE {column} IN ({marks})"
        cands = [int(r[0]) for r in self._conn.execute(query, keys)]
        missing = [n for n in cands if n not in self._entries]
        if missing:
            marks = ",".join("?" * len(missing))
            self._load(
                self._conn.execute(
                    f"SELECT {_COLUMNS} FROM decision WHERE n IN ({marks})", missing
                ).fetchall()
            )
        return cands

    def row_files(self) -> list[tuple[int, str]]:
        """(row number, record file) of every decision row, in row order."""
        rows = self._conn.execute("SELECT n, file FROM decision ORDER BY n").fetchall()
        return [(int(r[0]), str(r[1])) for r in rows]

    def parse_cache(self) -> dict[str, tuple[str, str]]:
        """What the compiler parsed per record file last time (see ``store.load``)."""
        rows = self._conn.execute("SELECT rel, sig, payload FROM filecache").fetchall()
        return {str(r[0]): (str(r[1]), str(r[2])) for r in rows}

    def entries(self) -> list[Entry]:
        rows = self._conn.execute(f"SELECT {_COLUMNS} FROM decision ORDER BY n").fetchall()
        self._load(rows)
        return [self._entries[int(r[0])] for r in rows]

    def where(
        self,
        condition: str,
        params: tuple[object, ...] = (),
        limit: int = 200,
        order: str = "n",
    ) -> list[Entry]:
        """Current entries matching an SQL condition on the decision table, in SQL ``order``
        (no full scan into Python: session digests at 10,000 records stay fast)."""
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM decision WHERE effective_status IN ('accepted', "
            f"'proposed') AND ({condition}) ORDER BY {order} LIMIT ?",
            (*params, limit),
        ).fetchall()
        self._load(rows)
        return [self._entries[int(r[0])] for r in rows]

    def count_current(self) -> int:
        row = self._conn.execute(
            "SELECT COUNT(*) FROM decision WHERE effective_status IN ('accepted', 'proposed')"
        ).fetchone()
        return int(row[0]) if row else 0

    def keyword(self, words: list[str], limit: int = 50) -> list[tuple[str, float]]:
        """BM25 (FTS5, porter stemming) over the records' weighted text; best first, as
        (id, score) with higher = better. Words in most records are left out (their IDF is
        floored to nothing; see compile._common_words)."""
        if self._common is None:
            try:
                self._common = {str(w) for w in _list(self.meta("fts_common"))}
            except ValueError:
                self._common = set()
        common = self._common
        terms = [w for w in dict.fromkeys(words) if w.isalnum() and w.lower() not in common]
        terms = terms[:64]
        if not terms:
            return []
        query = " OR ".join(f'"{t}"' for t in terms)
        try:
            rows = self._conn.execute(
                "SELECT d.id, -bm25(fts) FROM fts JOIN decision d ON d.n = fts.rowid "
                "WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?",
                (query, limit),
            ).fetchall()
        except sqlite3.Error:
            return []
        return [(str(r[0]), float(r[1])) for r in rows]

    def get_many(self, idents: list[str]) -> dict[str, Entry]:
        out: dict[str, Entry] = {}
        for start in range(0, len(idents), 500):
            part = idents[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._conn.execute(
                f"SELECT {_COLUMNS} FROM decision WHERE id IN ({marks})", part
            ).fetchall()
            self._load(rows)
            for r in rows:
                e = self._entries[int(r[0])]
                out[e.id] = e
        return out

    def get(self, ident: str) -> Entry | None:
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM decision WHERE id = ?", (ident,)
        ).fetchone()
        if row is None:
            return None
        self._load([row])
        return self._entries[int(row[0])]


def _list(text: object) -> list[object]:
    value = leanjson.loads(str(text or "[]"))
    if not isinstance(value, list):
        raise ValueError(f"expected a JSON list, got {type(value).__name__}")
    return value


def _entry(row: Sequence[object]) -> Entry:
    return Entry(
        n=int(row[0]),  # type: ignore[call-overload]
        id=str(row[1]),
        title=str(row[2]),
        status=str(row[3]),
        effective_status=str(row[4]),
        severity=str(row[5]),
        file=str(row[6]),
        summary=str(row[7]),
        superseded_by=tuple(str(x) for x in _list(row[8])),
        supersedes=tuple(str(x) for x in _list(row[9])),
        tags=tuple(str(x) for x in _list(row[10])),
        pin=bool(row[11]),
        date=None if row[12] is None else str(row[12]),
        globs=tuple(str(x) for x in _list(row[13])),
        globs_inferred=bool(row[14]),
        rules=tuple(r for r in _list(row[15]) if isinstance(r, dict)),
    )


# ------------------------------------------------------------------------------ freshness


def full_fingerprint(
    root: str | os.PathLike[str],
    watched: list[str],
    stats: dict[str, tuple[int, int]] | None = None,
) -> str:
    """Path, size and mtime of every file under the watched paths, checksummed. ``stats``,
    if given, receives each file's (size, mtime_ns) by path, for the caller to reuse.

    A change detector, not a security boundary: length, CRC-32 and Adler-32 of the list
    (zlib imports in ~0.5 ms; hashlib's OpenSSL ~5-15 ms, which the session-start hook,
    which compares this, should not pay).

    Paths are the repository's, not absolute: one work tree seen at two places (a dev
    container's bind mount of the host's checkout) has the same records. Before session
    63 each side took the other's table for stale and compiled it again, on every hook
    call that followed one of the other side's (benchmarks/two_views.py: 163 ms a tool
    call at 1,000 records, against 20.5 ms)."""
    import zlib

    skip = len(os.path.join(root, ""))
    parts: list[str] = []
    for rel in watched:
        top = os.path.join(root, rel)
        if os.path.isfile(top):
            st = os.stat(top)
            parts.append(f"{rel}:{st.st_size}:{st.st_mtime_ns}")
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                try:
                    st = os.stat(full)
                except OSError:
                    continue
                parts.append(f"{full[skip:]}:{st.st_size}:{st.st_mtime_ns}")
                if stats is not None:
                    stats[full] = (st.st_size, st.st_mtime_ns)
    data = "\n".join(parts).encode("utf-8", "surrogateescape")  # a name may not be UTF-8
    return f"{len(data):x}-{zlib.crc32(data):08x}-{zlib.adler32(data):08x}"


def open_current(repo: Repo, *, full: bool = True) -> Table:
    """The current table, compiled first if any record or the settings changed (or it is
    missing or unreadable). Checking costs only SQLite; the compiler, with the record
    loader and YAML, is imported only to compile (`compile.ensure` is this function)."""
    path = repo.state_dir / TABLE_NAME
    table = Table.open(path)
    if table is not None:
        try:
            if is_fresh(table, repo.root, full=full):
                return table
        except (sqlite3.Error, ValueError):  # unreadable: compiled again below
            pass
        table.close()
    from gitmem import compile as compiler

    compiled = compiler.build_or_in_memory(repo)
    if compiled is not None:  # it could not be written: compiled into memory
        return compiled.table()
    fresh = Table.open(path)
    if fresh is None:  # pragma: no cover - the build just wrote it
        raise RuntimeError(f"could not open the table just built at {path}")
    return fresh


def table_problems(repo: Repo) -> Problems | None:
    """The errors the current table was compiled with (None: none, or no table)."""
    table = Table.open(repo.state_dir / TABLE_NAME)
    if table is None:
        return None
    try:
        return table.problems()
    finally:
        table.close()


def is_fresh(table: Table, root: str | os.PathLike[str], *, full: bool) -> bool:
    watched = [str(w) for w in _list(table.meta("watched"))]
    folders = [str(f) for f in _list(table.meta("dirs"))]
    # not the root the table was compiled at (see full_fingerprint): records alike are alike
    if quick_fingerprint(str(root), watched, folders) != table.meta("quick"):
        return False
    return not full or full_fingerprint(root, watched) == table.meta("full")
