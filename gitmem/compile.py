"""Build the compiled decision table (see ``gitmem.table``) from the records.

The build writes a new database beside the old one and swaps it in with ``os.replace``,
so readers never see a half-written table and a killed build leaves the old one intact.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
from pathlib import Path

from gitmem import config, pathmap, store
from gitmem.doctext import weighted_text
from gitmem.pathmap import quick_fingerprint
from gitmem.repo import Repo
from gitmem.table import (
    SCHEMA_VERSION,
    TABLE_NAME,
    Table,
    full_fingerprint,
    is_fresh,
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


def build(repo: Repo) -> store.Catalog:
    """Compile the table from the records on disk; returns the catalog it was built from."""
    cfg = config.load(repo.root)
    watch = watched(repo, cfg)
    # Fingerprint before reading, so an edit made during the build is seen next time.
    dirs = folders(repo.root, watch)
    quick = quick_fingerprint(str(repo.root), watch, dirs)
    full = full_fingerprint(repo.root, watch)
    cache, old_common, old_count, old_drift = _previous(repo)
    catalog = store.load(repo.root, cache=cache)
    # A word's share of the records moves by at most (records changed) / (records), and
    # words near the 50% line have an IDF near zero either way: small edits keep the
    # previous list (computing it costs ~0.3 s at 10,000 records) until they add up to 1%.
    drift = old_drift + catalog.reparsed + abs(len(catalog.decisions) - old_count)
    keep = drift <= max(5, old_count // 100)
    common = (old_common, drift) if keep and old_common is not None else None
    repo.state_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".table-", suffix=".tmp", dir=repo.state_dir)
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp)
        _write(conn, catalog, repo, watch, dirs, quick, full, common)
        conn.close()
        os.replace(tmp, table_path(repo))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _write_pathmap(
        repo, catalog, {"root": str(repo.root), "watched": watch, "dirs": dirs, "quick": quick}
    )
    return catalog


def _write_pathmap(repo: Repo, catalog: store.Catalog, header: dict[str, object]) -> None:
    """The hooks' path map (see ``gitmem.pathmap``): the decisions that have globs, filed
    under the same lookup keys as the table."""
    records: list[list[object]] = []
    keys: dict[str, list[int]] = {}
    seen: set[str] = set()
    for d in catalog.decisions:
        if d.id in seen:  # duplicates are lint errors; the first one wins, as in the table
            continue
        seen.add(d.id)
        compiled = catalog.patterns.get(d.file, [])
        if not compiled:
            continue
        i = len(records)
        records.append(
            pathmap.record_row(
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
        )
        for *_, key in compiled:
            if key is not None:
                keys.setdefault(str(key), []).append(i)
    pathmap.write(str(map_path(repo)), {**header, "count": len(seen)}, records, keys)


def map_path(repo: Repo) -> Path:
    return repo.state_dir / pathmap.MAP_NAME


def catalog(repo: Repo) -> store.Catalog:
    """All records, re-parsing only those changed since the table was compiled."""
    return store.load(repo.root, cache=parse_cache(repo))


def _previous(
    repo: Repo,
) -> tuple[dict[str, tuple[str, str]], list[str] | None, int, int]:
    """From the current table: its parse cache, its common-word list, its record count,
    and how many records changed since that list was computed."""
    table = Table.open(table_path(repo))
    if table is None:
        return {}, None, 0, 0
    try:
        common = json.loads(table.meta("fts_common") or "null")
        count = int(table.meta("count") or 0)
        drift = int(table.meta("fts_common_drift") or 0)
        cache = table.parse_cache()
        return cache, common if isinstance(common, list) else None, count, drift
    except (sqlite3.Error, ValueError):
        return {}, None, 0, 0
    finally:
        table.close()


def parse_cache(repo: Repo) -> dict[str, tuple[str, str]]:
    """The parse cache of the current table, if it is readable and of this schema."""
    return _previous(repo)[0]


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
    conn.executescript(
        """
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
    )
    conn.executemany(
        "INSERT INTO filecache VALUES (?, ?, ?)",
        [(rel, sig, payload) for rel, (sig, payload) in sorted(catalog.cache.items())],
    )
    seen: set[str] = set()
    rows = []
    keys = []
    for n, d in enumerate(catalog.decisions):
        if d.id in seen:  # duplicates are lint errors; the first one wins
            continue
        seen.add(d.id)
        patterns = []
        for regex, negated, glob, spec, key in catalog.patterns.get(d.file, []):
            patterns.append([regex, negated, glob, spec])
            if key is not None:
                keys.append((str(key), n))
        rules = [
            {"forbid": r.forbid, "paths": list(r.paths), "message": r.message, "line": r.line}
            for r in d.rules
        ]
        rows.append(
            (
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
        )
    conn.executemany(f"INSERT INTO decision VALUES ({','.join('?' * 17)})", rows)
    # FTS5 mirror of the keyword text, rowid = n: BM25 in C for the agent hooks, which must
    # not import Whoosh (see gitmem.retrieve, light mode)
    by_n = {n: d for n, d in enumerate(catalog.decisions)}
    conn.executemany(
        "INSERT INTO fts (rowid, content) VALUES (?, ?)",
        [(row[0], weighted_text(by_n[int(row[0])])) for row in rows],
    )
    common, drift = keep_common if keep_common is not None else (_common_words(conn, len(rows)), 0)
    conn.executemany("INSERT INTO key VALUES (?, ?)", sorted(set(keys)))
    conn.execute("CREATE INDEX key_k ON key (k)")
    conn.execute("CREATE UNIQUE INDEX decision_id ON decision (id)")
    meta = {
        "schema": SCHEMA_VERSION,
        "root": str(repo.root),
        "watched": json.dumps(watch),
        "quick": quick,
        "dirs": json.dumps(dirs),
        "capture": json.dumps(capture_settings(repo)),
        "full": full,
        "count": str(len(rows)),
        "fts_common": json.dumps(common),
        "fts_common_drift": str(drift),
    }
    conn.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
    conn.commit()


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
    """The current table, rebuilt first if any record changed (or it is missing/corrupt)."""
    path = table_path(repo)
    table = Table.open(path)
    if table is not None:
        try:
            if is_fresh(table, repo.root, full=full):
                return table
        except (sqlite3.Error, ValueError):
            pass
        table.close()
    build(repo)
    fresh = Table.open(path)
    if fresh is None:  # pragma: no cover - the build just wrote it
        raise RuntimeError(f"could not open the table just built at {path}")
    return fresh
