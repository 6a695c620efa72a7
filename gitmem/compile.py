"""Build the compiled decision table (see ``gitmem.table``) from the records.

The build writes a new database beside the old one and swaps it in with ``os.replace``,
so readers never see a half-written table and a killed build leaves the old one intact.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sqlite3
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from gitmem import config, fsutil, pathmap, store
from gitmem.doctext import weighted_text
from gitmem.errors import GitmemError
from gitmem.globs import GlobError
from gitmem.model import Decision
from gitmem.pathmap import quick_fingerprint
from gitmem.repo import Repo
from gitmem.rules import compile_paths
from gitmem.table import (
    SCHEMA_VERSION,
    TABLE_NAME,
    Table,
    full_fingerprint,
    open_current,
)
from gitmem.vocab import CURRENT_STATUSES, MAX_TERM_SHARE


def table_path(repo: Repo) -> Path:
    return repo.state_dir / TABLE_NAME


def watched(repo: Repo, cfg: config.Config) -> list[str]:
    out = []
    for p in store.watched_paths(repo.root, cfg):
        out.append(p.relative_to(repo.root).as_posix())
    return out


def capture_settings(repo: Repo) -> dict[str, object]:
    cfg = config.load(repo.root)
    return {
        "enabled": cfg.capture,
        "redact": list(cfg.capture_redact),
        "allow": list(cfg.capture_allow),
    }


def folders(root: Path, watched: list[str]) -> list[str]:
    """Every folder under the watched folders (stat-ed by the quick freshness check)."""
    out: list[str] = []
    for rel in watched:
        top = root / rel
        if not top.is_dir():
            continue
        for dirpath, dirnames, _ in os.walk(top):
            dirnames.sort()
            for name in dirnames:
                out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return out


MapRows = dict[int, tuple[Decision, bytes, tuple[str, ...]]]


@dataclass(frozen=True)
class _Compiled:
    """What this process last compiled for a repository. A long-lived process (``gitmem
    watch``) then updates the table and the path map for the records that changed instead
    of rewriting them: at 10,000 records a rewrite took ~0.8 s of a one-record update."""

    decisions: tuple[Decision, ...]
    cache: dict[str, tuple[str, str]]
    table: tuple[int, int, int]  # the table file this process wrote (inode, size, mtime)
    # id(record) -> (record, encoded path-map row, lookup keys); the catalog hands back
    # the same objects for unchanged records (see gitmem.store)
    map_rows: MapRows
    map_keys: dict[str, list[int]]
    map_blobs: list[bytes]


_LAST: dict[str, _Compiled] = {}


@dataclass(frozen=True)
class Fingerprint:
    """The record files' state, taken before they are read (so that an edit made during a
    build is seen by the next one)."""

    watch: list[str]
    dirs: list[str]
    quick: str  # folder mtimes
    full: str  # every file's size and mtime
    stats: dict[str, tuple[int, int]]  # path -> (size, mtime_ns), for the catalog


def fingerprint(repo: Repo) -> Fingerprint:
    watch = watched(repo, config.load(repo.root))
    dirs = folders(repo.root, watch)
    quick = quick_fingerprint(str(repo.root), watch, dirs)
    stats: dict[str, tuple[int, int]] = {}
    full = full_fingerprint(repo.root, watch, stats)
    return Fingerprint(watch, dirs, quick, full, stats)


def build(repo: Repo, taken: Fingerprint | None = None) -> store.Catalog:
    """Compile the table from the records on disk; returns the catalog it was built from.
    ``taken``: a fingerprint the caller took just before (not recomputed)."""
    fp = taken if taken is not None else fingerprint(repo)
    watch, dirs, quick, full, stats = fp.watch, fp.dirs, fp.quick, fp.full, fp.stats
    path = table_path(repo)
    last = _LAST.pop(str(repo.root), None)
    if last is not None and last.table != _identity(path):
        last = None  # another process wrote the table since
    if last is None:
        last = _recall(path)
    cache, old_common, old_count, old_drift = _previous(repo, with_cache=last is None)
    if last is not None:
        cache = last.cache  # what this process wrote there
    catalog = store.load(repo.root, cache=cache, stats=stats)
    common = _kept_common(catalog, old_common, old_count, old_drift)
    repo.state_dir.mkdir(parents=True, exist_ok=True)
    same_rows = last is not None and [d.id for d in last.decisions] == [
        d.id for d in catalog.decisions
    ]
    # 0666 less the umask, as git's own files: mkstemp's 0600 kept the other users of a
    # clone shared with core.sharedRepository from reading the table, so each of their
    # hooks compiled it again, and took it from the others in turn (seen, session 58)
    fd, tmp = fsutil.create_aside(path)
    os.close(fd)
    try:
        # no locks: the file is this process's own until it is renamed into place, and a
        # file system without them (NFS without its lock daemon, Lustre) refused SQLite's
        # ("database is locked"), so every call compiled the records in memory again
        aside = Path(tmp).as_uri() + "?nolock=1"
        if same_rows and last is not None and _copy_if_unchanged(path, tmp, last.table):
            conn = sqlite3.connect(aside, uri=True)
            _update(conn, catalog, last, repo, watch, dirs, quick, full, common)
        else:
            conn = sqlite3.connect(aside, uri=True)
            _write(conn, catalog, repo, watch, dirs, quick, full, common)
        conn.close()
        # the identity of the file written here (renaming keeps it), not of whatever is
        # at `path` after the rename: another process may replace it in between
        identity = _identity(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    rows, keys, blobs = _write_pathmap(
        repo,
        catalog,
        {"root": str(repo.root), "watched": watch, "dirs": dirs, "quick": quick},
        last,
    )
    if identity is not None:
        _LAST[str(repo.root)] = _Compiled(
            catalog.decisions, dict(catalog.cache), identity, rows, keys, blobs
        )
    return catalog


@dataclass(frozen=True)
class InMemory:
    """A table and a path map compiled into memory, for the process that compiled them."""

    conn: sqlite3.Connection  # the table's, open as long as the process holds this
    map_data: bytes
    why: str  # why they were not written (``not_written``)

    def table(self) -> Table:
        """The table (closing it leaves the connection open for the next)."""
        return Table(self.conn, ":memory:", shared=True)

    def path_map(self) -> pathmap.PathMap:
        opened = pathmap.PathMap.read(io.BytesIO(self.map_data))
        if opened is None:  # pragma: no cover - encoded by build_in_memory
            raise ValueError("could not read the path map compiled into memory")
        return opened


def build_or_in_memory(repo: Repo, what: str = "this command") -> InMemory | None:
    """``build``; None when the table and the path map were written. Where they could not
    be (``not_written``: the disk full, a quota, a git directory that cannot be written
    and no folder aside, see ``gitmem.location.state_dir_of``), they are compiled into
    memory for this process instead, said once on stderr (for ``what``), and returned:
    the answers are the records' own all the same. Before session 56 the commands ended
    in a traceback there, and the hooks went on with the table compiled before: a
    critical decision added since, by a `git pull` or the agent, did not hold. Any other
    error is raised."""
    taken = fingerprint(repo)
    try:
        build(repo, taken)
        return None
    except Exception as exc:
        why = not_written(exc)
        if why is None:
            raise
    compiled = build_in_memory(repo, why, taken)
    _say_unsaved(repo.state_dir, why, what)
    return compiled


def build_in_memory(repo: Repo, why: str, fp: Fingerprint) -> InMemory:
    """Compile the table and the path map into memory, writing nothing (``why``: why
    they were not written; ``fp``: the records' fingerprint, taken before). The parse
    cache of the table on disk is used, so only the records changed since are parsed;
    each such process compiles again (~60 ms at 40 records) until the table can be
    written."""
    cache, old_common, old_count, old_drift = _previous(repo)
    catalog = store.load(repo.root, cache=cache, stats=fp.stats)
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.execute("PRAGMA temp_store = MEMORY")  # the common-word list's temporary tables
    common = _kept_common(catalog, old_common, old_count, old_drift)
    _write(conn, catalog, repo, fp.watch, fp.dirs, fp.quick, fp.full, common)
    _, _, blobs, encoded, count = _encode_pathmap(catalog, None)
    header = {"root": str(repo.root), "watched": fp.watch, "dirs": fp.dirs, "quick": fp.quick}
    return InMemory(conn, pathmap.encoded({**header, "count": count}, blobs, encoded), why)


_SAID: set[str] = set()


def _say_unsaved(folder: Path, why: str, what: str) -> None:
    """One line on stderr, once per process and reason."""
    if why in _SAID:
        return
    _SAID.add(why)
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(
            f"gitmem: could not save the compiled decisions in {folder} ({why}); "
            f"read them from the records for {what} instead\n"
        )


def not_written(exc: BaseException) -> str | None:
    """Why ``build`` (or an index build) failed when it failed to write: an OSError, or
    SQLite's own "database or disk is full", "disk I/O error", "attempt to write a readonly
    database", or an error raised while handling one (Whoosh, meeting a full disk as it
    closes a file, raises "I/O operation on closed file"); None for any other error (a
    bug: compiling into memory would fail the same)."""
    seen: BaseException | None = exc
    for _ in range(4):
        if seen is None:
            return None
        if isinstance(seen, OSError):
            named = f"{seen.filename}: " if seen.filename else ""
            return f"{named}{seen.strerror or seen}"
        if isinstance(seen, sqlite3.OperationalError):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    return None


def _kept_common(
    catalog: store.Catalog, old_common: list[str] | None, old_count: int, old_drift: int
) -> tuple[list[str], int] | None:
    """The previous common-word list and its drift, where it is kept. A word's share of
    the records moves by at most (records changed) / (records), and words near the 50%
    line have an IDF near zero either way: small edits keep the previous list (computing
    it costs ~0.3 s at 10,000 records) until they add up to 1%."""
    drift = old_drift + catalog.reparsed + abs(len(catalog.decisions) - old_count)
    if old_common is None or drift > max(5, old_count // 100):
        return None
    return old_common, drift


def _recall(path: Path) -> _Compiled | None:
    """What the process that wrote the table on disk had compiled, rebuilt from the table
    itself: its parse cache and the record file of each row, in row order. A fresh
    process (`gitmem index` after an edit, `gitmem why`) then updates the changed rows
    too instead of rewriting ~30 MB at 10,000 records. None when the rows do not say the
    order (a duplicate id leaves a gap) or the table changed while it was read."""
    before = _identity(path)
    table = Table.open(path) if before is not None else None
    if table is None or before is None:
        return None
    try:
        rows = table.row_files()
        cache = table.parse_cache()
    except sqlite3.Error:
        return None
    finally:
        table.close()
    if _identity(path) != before or [n for n, _ in rows] != list(range(len(rows))):
        return None
    try:
        # every cached record that holds a decision has its row: no duplicate id was
        # left out (linking without it could differ from what the rows say)
        holding = {rel for rel, (_, payload) in cache.items() if store.decision_of(payload)}
        if holding != {rel for _, rel in rows}:
            return None
        decisions = store.linked([(rel, cache[rel][1]) for _, rel in rows])
    except (KeyError, ValueError):
        return None
    if [d.file for d in decisions] != [rel for _, rel in rows]:
        return None
    return _Compiled(decisions, cache, before, {}, {}, [])


def _copy_if_unchanged(path: Path, dest: str, identity: tuple[int, int, int]) -> bool:
    """Copy the table to ``dest`` if it is still the file this process wrote. Tables are
    replaced, never written in place, so the open file cannot change under the copy."""
    try:
        with open(path, "rb") as src:
            st = os.fstat(src.fileno())
            if (st.st_ino, st.st_size, st.st_mtime_ns) != identity:
                return False
            with open(dest, "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
    except OSError:
        with contextlib.suppress(OSError), open(dest, "wb"):
            pass  # leave an empty file for the full write
        return False
    return True


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _write_pathmap(
    repo: Repo,
    catalog: store.Catalog,
    header: dict[str, object],
    last: _Compiled | None = None,
) -> tuple[MapRows, dict[str, list[int]], list[bytes]]:
    """The hooks' path map (see ``gitmem.pathmap``): the decisions that have globs, filed
    under the same lookup keys as the table."""
    rows, keys, blobs, encoded, count = _encode_pathmap(catalog, last)
    pathmap.write_encoded(str(map_path(repo)), {**header, "count": count}, blobs, encoded)
    return rows, keys, blobs


def _encode_pathmap(
    catalog: store.Catalog, last: _Compiled | None
) -> tuple[MapRows, dict[str, list[int]], list[bytes], list[bytes], int]:
    """Encoded path-map rows and buckets, reusing those ``last`` encoded for the same
    records."""
    memo = last.map_rows if last is not None else {}
    rows: dict[int, tuple[Decision, bytes, tuple[str, ...]]] = {}
    encoded: list[bytes] = []
    keys: dict[str, list[int]] = {}
    seen: set[str] = set()
    for d in catalog.decisions:
        if d.id in seen:  # duplicates are lint errors; the first one wins, as in the table
            continue
        seen.add(d.id)
        compiled = catalog.patterns.get(d.file, [])
        if not compiled:
            continue
        hit = memo.get(id(d))
        if hit is None or hit[0] is not d:
            row = pathmap.record_row(
                d.id,
                d.title,
                d.effective_status,
                d.severity,
                d.file,
                d.summary,
                d.superseded_by,
                d.effective_status in CURRENT_STATUSES,
                bool(d.rules),
                pathmap.patterns_of([(r, neg, glob, spec) for r, neg, glob, spec, _ in compiled]),
            )
            lookup = tuple(str(k) for *_, k in compiled if k is not None)
            hit = (d, pathmap.encode_row(row), lookup)
        rows[id(d)] = hit
        i = len(encoded)
        encoded.append(hit[1])
        for key in hit[2]:
            keys.setdefault(key, []).append(i)
    if last is not None and last.map_blobs and last.map_keys == keys:
        blobs = last.map_blobs  # (none when recalled from the table: no keys is no news)
    else:
        blobs = pathmap.encode_buckets(keys)
    return rows, keys, blobs, encoded, len(seen)


def prime(repo: Repo) -> store.Catalog | None:
    """Remember the table and path map on disk as if this process had compiled them, when
    they are current. A long-lived process (the daemon) that found nothing to re-index at
    start pays here for what its first edit would otherwise pay: recalling the table's
    records (``_recall``) and encoding the whole path map. Writes nothing. The catalog
    when primed, else None."""
    last = _recall(table_path(repo))
    if last is None:
        return None
    catalog = store.load(repo.root, cache=last.cache, stats=fingerprint(repo).stats)
    if catalog.reparsed or [d.id for d in catalog.decisions] != [d.id for d in last.decisions]:
        return None  # something changed after all: the next build compiles
    rows, keys, blobs, _, _ = _encode_pathmap(catalog, None)
    _LAST[str(repo.root)] = replace(last, map_rows=rows, map_keys=keys, map_blobs=blobs)
    return catalog


def map_path(repo: Repo) -> Path:
    return repo.state_dir / pathmap.MAP_NAME


def catalog(repo: Repo) -> store.Catalog:
    """All records, re-parsing only those changed since the table was compiled."""
    return store.load(repo.root, cache=parse_cache(repo))


def _previous(
    repo: Repo, *, with_cache: bool = True
) -> tuple[dict[str, tuple[str, str]], list[str] | None, int, int]:
    """From the current table: its parse cache (unless not ``with_cache``), its
    common-word list, its record count, and how many records changed since that list was
    computed."""
    table = Table.open(table_path(repo))
    if table is None:
        return {}, None, 0, 0
    try:
        common = json.loads(table.meta("fts_common") or "null")
        count = int(table.meta("count") or 0)
        drift = int(table.meta("fts_common_drift") or 0)
        cache = table.parse_cache() if with_cache else {}
        return cache, common if isinstance(common, list) else None, count, drift
    except (sqlite3.Error, ValueError):
        return {}, None, 0, 0
    finally:
        table.close()


def parse_cache(repo: Repo) -> dict[str, tuple[str, str]]:
    """The parse cache of the current table, if it is readable and of this schema."""
    return _previous(repo)[0]


SCHEMA_SQL = """
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT);
    CREATE TABLE decision (
        n INTEGER PRIMARY KEY, id TEXT, title TEXT, status TEXT, effective_status TEXT,
        severity TEXT, file TEXT, summary TEXT, superseded_by TEXT, supersedes TEXT,
        tags TEXT, pin INTEGER, date TEXT, globs TEXT, globs_inferred INTEGER,
        rules TEXT, patterns TEXT);
    CREATE TABLE key (k TEXT, n INTEGER);
    CREATE TABLE filecache (rel TEXT PRIMARY KEY, sig TEXT, payload TEXT);
    CREATE VIRTUAL TABLE fts USING fts5(content, tokenize = 'porter unicode61');
"""


def _row(
    n: int, d: Decision, compiled: list[list[object]]
) -> tuple[tuple[object, ...], list[tuple[str, int]]]:
    """A decision's table row and its lookup keys."""
    patterns = []
    keys = []
    for regex, negated, glob, spec, key in compiled:
        patterns.append([regex, negated, glob, spec])
        if key is not None:
            keys.append((str(key), n))
    rules = [
        {
            "forbid": r.forbid,
            "paths": list(r.paths),
            "message": r.message,
            "line": r.line,
            **_rule_patterns(r.paths),
        }
        for r in d.rules
    ]
    row = (
        n,
        d.id,
        d.title,
        d.status,
        d.effective_status,
        d.severity,
        d.file,
        d.summary,
        json.dumps(list(d.superseded_by)),
        json.dumps(list(d.supersedes)),
        json.dumps(list(d.tags)),
        int(d.pin),
        d.date,
        json.dumps(list(d.globs)),
        int(d.globs_inferred),
        json.dumps(rules),
        json.dumps(patterns),
    )
    return row, keys


def _rule_patterns(paths: tuple[str, ...] | list[str]) -> dict[str, object]:
    """A rule's ``paths`` compiled as the decision's globs are (``path_patterns``), so that
    the pre-tool hook and `gitmem check` match them without importing pathspec (~30 ms of
    a hook, measured); none where a glob does not compile (lint reports it)."""
    if not paths:
        return {}
    try:
        return {"path_patterns": compile_paths(paths)}
    except GlobError:
        return {}


def _write(
    conn: sqlite3.Connection,
    catalog: store.Catalog,
    repo: Repo,
    watch: list[str],
    dirs: list[str],
    quick: str,
    full: str,
    keep_common: tuple[list[str], int] | None = None,
) -> None:
    try:
        conn.executescript(SCHEMA_SQL)
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc):
            raise
        raise GitmemError(
            f"this Python's SQLite ({sqlite3.sqlite_version}) was built without FTS5, which "
            "gitmem's match table needs: install gitmem with another Python (python.org's, "
            "pyenv's, conda's or a Linux distribution's have it)"
        ) from exc
    conn.executemany(
        "INSERT INTO filecache VALUES (?, ?, ?)",
        [(rel, sig, payload) for rel, (sig, payload) in sorted(catalog.cache.items())],
    )
    seen: set[str] = set()
    rows = []
    keys = []
    texts = []
    for n, d in enumerate(catalog.decisions):
        if d.id in seen:  # duplicates are lint errors; the first one wins
            continue
        seen.add(d.id)
        row, row_keys = _row(n, d, catalog.patterns.get(d.file, []))
        rows.append(row)
        keys.extend(row_keys)
        texts.append((n, weighted_text(d)))
    conn.executemany(f"INSERT INTO decision VALUES ({','.join('?' * 17)})", rows)
    # FTS5 mirror of the keyword text, rowid = n: BM25 in C for the agent hooks, which must
    # not import Whoosh (see gitmem.retrieve, light mode)
    conn.executemany("INSERT INTO fts (rowid, content) VALUES (?, ?)", texts)
    common, drift = keep_common if keep_common is not None else (_common_words(conn, len(rows)), 0)
    conn.executemany("INSERT INTO key VALUES (?, ?)", sorted(set(keys)))
    conn.execute("CREATE INDEX key_k ON key (k)")
    conn.execute("CREATE UNIQUE INDEX decision_id ON decision (id)")
    meta = _meta(repo, watch, dirs, quick, full, len(rows), common, drift, catalog)
    conn.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
    conn.commit()


def _update(
    conn: sqlite3.Connection,
    catalog: store.Catalog,
    last: _Compiled,
    repo: Repo,
    watch: list[str],
    dirs: list[str],
    quick: str,
    full: str,
    keep_common: tuple[list[str], int] | None,
) -> None:
    """Bring a copy of the table ``last`` wrote up to ``catalog``, whose records are the
    same ids in the same order: rewrite the rows of the records that changed."""
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    for rel, entry in catalog.cache.items():
        if last.cache.get(rel) != entry:
            conn.execute("INSERT OR REPLACE INTO filecache VALUES (?, ?, ?)", (rel, *entry))
    for rel in last.cache.keys() - catalog.cache.keys():
        conn.execute("DELETE FROM filecache WHERE rel = ?", (rel,))
    seen: set[str] = set()
    for n, (d, old) in enumerate(zip(catalog.decisions, last.decisions, strict=True)):
        if d.id in seen:
            continue
        seen.add(d.id)
        if d is old or d == old:
            continue
        row, keys = _row(n, d, catalog.patterns.get(d.file, []))
        conn.execute("DELETE FROM decision WHERE n = ?", (n,))
        conn.execute("DELETE FROM key WHERE n = ?", (n,))
        conn.execute("DELETE FROM fts WHERE rowid = ?", (n,))
        conn.execute(f"INSERT INTO decision VALUES ({','.join('?' * 17)})", row)
        conn.executemany("INSERT INTO key VALUES (?, ?)", sorted(set(keys)))
        conn.execute("INSERT INTO fts (rowid, content) VALUES (?, ?)", (n, weighted_text(d)))
    count = len(seen)
    common, drift = keep_common if keep_common is not None else (_common_words(conn, count), 0)
    meta = _meta(repo, watch, dirs, quick, full, count, common, drift, catalog)
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", sorted(meta.items()))
    conn.commit()


def _meta(
    repo: Repo,
    watch: list[str],
    dirs: list[str],
    quick: str,
    full: str,
    count: int,
    common: list[str],
    drift: int,
    catalog: store.Catalog,
) -> dict[str, str]:
    return {
        "problems": _problems_json(catalog),
        "schema": SCHEMA_VERSION,
        "root": str(repo.root),
        "watched": json.dumps(watch),
        "quick": quick,
        "dirs": json.dumps(dirs),
        "capture": json.dumps(capture_settings(repo)),
        "commit_trailers": "1" if config.load(repo.root).commit_trailers else "0",
        "full": full,
        "count": str(count),
        "fts_common": json.dumps(common),
        "fts_common_drift": str(drift),
    }


def _problems_json(catalog: store.Catalog) -> str:
    found = catalog.errors()
    if found is None:
        return "{}"
    data = {
        "errors": found.errors,
        "files": found.files,
        "records": found.records,
        "left_out": found.left_out,
        "unread": found.unread,
        "first": [list(f) for f in found.first],
    }
    return json.dumps(data, ensure_ascii=False)


def _common_words(conn: sqlite3.Connection, records: int) -> list[str]:
    """The words of the records whose FTS5 term (porter stem) is in more than
    MAX_TERM_SHARE of them. The hooks' keyword ranker leaves them out of its queries, as
    the Whoosh ranker does: their IDF is floored to nothing, and with 10,000 records a
    prompt's few common words would cost FTS5 most of 20 ms to score."""
    if records < 20:
        return []
    conn.execute("CREATE VIRTUAL TABLE temp.fts_terms USING fts5vocab(main, fts, row)")
    common = {
        str(r[0])
        for r in conn.execute(
            "SELECT term FROM temp.fts_terms WHERE doc > ?", (records * MAX_TERM_SHARE,)
        )
    }
    if not common:
        return []
    # Which spellings stem to those terms: let the same tokenizer stem the candidate words.
    # Porter stemming keeps a word's first two letters, so only words that start like a
    # common stem can stem to one.
    import re

    starts = {t[:2] for t in common}
    words = sorted(
        {
            w
            for (text,) in conn.execute("SELECT content FROM fts")
            for w in re.findall(r"[^\W_]+", str(text).lower())
            if w[:2] in starts
        }
    )
    conn.execute("CREATE VIRTUAL TABLE temp.words USING fts5(w, tokenize = 'porter unicode61')")
    conn.executemany("INSERT INTO temp.words (rowid, w) VALUES (?, ?)", enumerate(words))
    conn.execute("CREATE VIRTUAL TABLE temp.word_terms USING fts5vocab(temp, words, instance)")
    out = sorted(
        {
            words[int(r[1])]
            for r in conn.execute("SELECT term, doc FROM temp.word_terms")
            if r[0] in common
        }
    )
    for name in ("word_terms", "words", "fts_terms"):
        conn.execute(f"DROP TABLE temp.{name}")
    return out


def ensure(repo: Repo, *, full: bool = True) -> Table:
    """The current table, rebuilt first if any record changed (or it is missing/corrupt):
    `table.open_current`, which the commit hooks and `why` call without importing this
    module."""
    return open_current(repo, full=full)
