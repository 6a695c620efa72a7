"""The one retrieval entry point: a prompt and the paths being touched -> ranked decisions.

The CLI (`gitmem search`), the warm daemon (`gitmem watch`), the agent hooks and the
benchmarks all call :meth:`Retriever.retrieve`. Rankers, fused with reciprocal rank fusion:

* ``path``: decisions whose globs govern the touched paths and the paths the prompt names,
  by how many of them they govern, then by glob specificity;
* ``bm25``: Whoosh's BM25F over one field per part of a record (title x3, tags x2, glob
  words, summary, body; each field saturated and length-normalised on its own, with the
  record's idf), scored on the index's compiled postings (``gitmem.bm25``), queried with
  the prompt's words plus its entities (paths, identifiers, quoted names) boosted; in
  light mode (the hooks, no daemon) SQLite FTS5 over the same text, weights as repeats;
* ``embed``: cosine similarity between the query and each record's chunks (best chunk).

Severity and recency break ties. A superseded decision never outranks its successor: the
successor is pulled in just above it (flagged ``via_successor_of`` if no ranker found it).
Results whose embeddings are near-duplicates (cosine >= 0.92) collapse into the first.
"""

from __future__ import annotations

import math
import os

from gitmem import entities
from gitmem.location import folder_below, relative, worktree_roots
from gitmem.table import Entry, Table
from gitmem.vocab import CURRENT_STATUSES, MAX_TERM_SHARE, SEVERITY_RANK

# The prompt hook runs this module in light mode in a fresh process: module-level imports
# stay off `typing`, `pathlib`, `json` and `dataclasses` (together ~20 ms there), which is
# why Hit and Result are slotted classes; Whoosh, numpy and the index files load lazily.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gitmem.embed import Embedder
    from gitmem.location import Location
    from gitmem.repo import Repo

# A small k: with three rankers, where a decision sits in each list should matter as much
# as whether it is there at all (k=60 mostly rewards presence). Tuned on the development
# sets in ../shared/bench (see README: Retrieval quality).
RRF_K = 5
DUPLICATE_COSINE = 0.92
RANKER_DEPTH = 50
# Below this cosine a chunk says nothing about the query (all-MiniLM-L6-v2 puts unrelated
# texts around 0.0-0.15): the embedding ranker ignores it rather than rank noise.
EMBED_FLOOR = 0.10
WEIGHTS = {"path": 1.0, "bm25": 1.0, "embed": 0.5}
# The embedding model reads at most 512 tokens (gitmem.embed caps it; MiniLM reads 256),
# and every word is at least one token: path words past the 512th can never reach it, and
# tokenising 6,000 of them (a change touching hundreds of files) took ~28 ms (512: ~2.5 ms).
EMBED_QUERY_WORDS = 512
# Likewise its characters: 512 tokens of prose span ~2,500, of code or paths fewer, but the
# tokenizer reads the whole text before it truncates, and a 1 MB paste took 0.75-1.7 s to
# embed (session 40); 16,000 characters take ~20 ms and hold more than the model reads.
EMBED_QUERY_CHARS = 16_000
BM25_B = 0.75  # length normalisation
BM25_K1 = 1.2
MAX_QUERY_TERMS = 64
# How much of a prompt the keyword rankers analyse: its first distinct words and named
# entities (identifiers, quoted names, paths). Each goes through the analyzer (Whoosh's
# stemmer among it), and a 1 MB paste took the daemon 4-6 s to analyse before scoring 64
# terms of it (session 40); a real prompt (a commit message, a task) is far below both.
MAX_QUERY_WORDS = entities.MAX_WORDS
MAX_QUERY_ENTITIES = entities.MAX_IDENTIFIERS
MAX_ENTITY_CHARS = 100_000
PATH_WORD_BOOST = 0.5  # words of the touched paths: context, weighed below the prompt
ENTITY_BOOST = 2.0  # identifiers, quoted names and paths named in the prompt
# Globs that gitmem inferred from an ADR's prose are a weaker link than globs a person wrote.
INFERRED_PATH_WEIGHT = 0.3
# A file the prompt names by its name alone ("fix the rounding in charge.py"), where no
# file of that name is where the prompt was written: the repository's files of that name
# are the touched paths, where it has at most this many (`index.ts` in a monorepo names
# none of its hundreds). Before session 49 such a name matched no glob, and only its
# words reached the keyword rankers.
MAX_NAMESAKES = 3
MAX_NAMES = 8  # the names looked up per prompt


def _bare_name(raw: str) -> bool:
    """Whether a path the prompt names is a file's name alone (`charge.py`)."""
    return not any(c in raw for c in "/\\*?[") and "." in raw.strip(".")


def _mentioned(raw: str, root: str, common: str, cwd: str, roots: list[str]) -> str:
    """A file mention as the agents write one (`@src/app.py`, `@charge.py`: Claude Code,
    Gemini CLI, Qwen Code, Cursor): the path without its `@`, where that names a file or
    folder here or a file's name alone; else ``raw`` as written (`@types/node`, a scoped
    npm package). Before session 51 the `@` stayed, and such a path matched no glob."""
    bare = raw[1:]
    rel = relative(bare, root, common, cwd, roots) if bare else None
    if rel is not None and (_bare_name(bare) or os.path.exists(f"{root}/{rel}")):
        return bare
    return raw


def _module_specs(parts: tuple[str, ...]) -> list[str]:
    """Pathspecs of the files a module path may be (``storage/engine``: `engine.rs`, or
    `engine/mod.rs`, `engine/__init__.py`), for each start of it of two parts or more."""
    specs = []
    for n in range(len(parts), 1, -1):
        stem = "/".join(parts[:n])
        specs += [f":(glob,icase)**/{stem}{end}" for end in _MODULE_FILES]
    return specs


_MODULE_FILES = (".*", "/mod.rs", "/__init__.py")


def _module_files(parts: tuple[str, ...], listed: list[str], within: str) -> list[str]:
    """The files of ``listed`` a module path names: of its longest start that names any,
    at most MAX_NAMESAKES (within the prompt's package where it has some)."""
    low = [(rel, rel.lower()) for rel in listed]
    for n in range(len(parts), 1, -1):
        stem = "/" + "/".join(parts[:n]).lower()
        hits = [rel for rel, path in low if _module_file(path, stem)]
        inside = [rel for rel in hits if rel.startswith(within + "/")] if within else []
        hits = inside or hits
        if 0 < len(hits) <= MAX_NAMESAKES:
            return hits
    return []


def _module_file(path: str, stem: str) -> bool:
    """Whether ``path`` (lower case) is the file of the module ``stem`` (``/a/b``)."""
    full = "/" + path
    if full.endswith((stem + "/mod.rs", stem + "/__init__.py")):
        return True
    cut = full.rfind(".")
    return cut > full.rfind("/") and full[:cut].endswith(stem)


def files_named(
    root: str,
    names: list[str],
    within: str = "",
    modules: tuple[tuple[str, ...], ...] = (),
) -> list[str]:
    """The files git tracks in the repository at ``root`` named as each of ``names`` is,
    in any folder, for each name that at most MAX_NAMESAKES files have (one git process,
    reading the index; none for no name). ``within``: the folder below the root the prompt
    was written in (a monorepo's package), whose files of a name are the ones meant where
    it has any (since session 67: before, `money.py` in billing named web's too, or, in
    more than three packages, none)."""
    if not names and not modules:
        return []
    from gitmem import leangit

    specs = [f":(glob)**/{name}" for name in dict.fromkeys(names)]
    specs += [spec for parts in modules for spec in _module_specs(parts)]
    out = leangit.output(("ls-files", "-z", "--", *specs), root, timeout=2.0)
    listed = [rel for rel in (out or "").split("\0") if rel]
    wanted = set(names)
    by_name: dict[str, list[str]] = {}
    for rel in listed:
        name = rel.rsplit("/", 1)[-1]
        if name in wanted:
            by_name.setdefault(name, []).append(rel)
    found: list[str] = [rel for parts in modules for rel in _module_files(parts, listed, within)]
    for rels in by_name.values():
        inside = [rel for rel in rels if rel.startswith(within + "/")] if within else []
        rels = inside or rels
        found.extend(rels if len(rels) <= MAX_NAMESAKES else ())
    return found


def _first_distinct(words: list[str] | tuple[str, ...], limit: int) -> list[str]:
    return list(dict.fromkeys(words))[:limit]


def _entities(terms: entities.QueryTerms) -> list[str]:
    """The prompt's identifiers, quoted names and paths the keyword rankers boost: at most
    MAX_QUERY_ENTITIES of them, of MAX_ENTITY_CHARS in all (each is split into words and
    analysed; a thousand paths of thousands of characters are no query)."""
    out: list[str] = []
    chars = 0
    for entity in [*terms.identifiers, *terms.quoted, *terms.paths][:MAX_QUERY_ENTITIES]:
        chars += len(entity)
        if chars > MAX_ENTITY_CHARS:
            break
        out.append(entity)
    return out


class Hit:
    """One ranked decision, with each ranker's (rank, raw score)."""

    __slots__ = (
        "date",
        "duplicates",
        "file",
        "glob",
        "id",
        "ranks",
        "score",
        "severity",
        "status",
        "summary",
        "superseded_by",
        "title",
        "via_successor_of",
    )

    def __init__(
        self,
        *,
        id: str,
        title: str,
        status: str,  # effective status
        severity: str,
        file: str,
        summary: str,
        date: str | None,
        superseded_by: tuple[str, ...],
        score: float,
        ranks: dict[str, tuple[int, float]],  # ranker -> (rank, raw)
        glob: str | None = None,  # the glob that matched a touched/mentioned path
        duplicates: tuple[str, ...] = (),
        via_successor_of: str | None = None,
    ) -> None:
        self.id = id
        self.title = title
        self.status = status
        self.severity = severity
        self.file = file
        self.summary = summary
        self.date = date
        self.superseded_by = superseded_by
        self.score = score
        self.ranks = ranks
        self.glob = glob
        self.duplicates = duplicates
        self.via_successor_of = via_successor_of

    def __repr__(self) -> str:
        return f"Hit({self.id!r}, score={self.score:.4f})"

    def with_duplicates(self, duplicates: tuple[str, ...]) -> Hit:
        fields = {name: getattr(self, name) for name in self.__slots__}
        return Hit(**{**fields, "duplicates": duplicates})

    @property
    def is_current(self) -> bool:
        return not self.superseded_by and self.status in ("accepted", "proposed")

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "severity": self.severity,
            "file": self.file,
            "summary": self.summary,
            "date": self.date,
            "superseded_by": list(self.superseded_by),
            "score": round(self.score, 6),
            "ranks": {k: {"rank": r, "score": round(s, 6)} for k, (r, s) in self.ranks.items()},
            "glob": self.glob,
            "duplicates": list(self.duplicates),
            "via_successor_of": self.via_successor_of,
        }


class Result:
    """Ranked hits, how many decisions matched at all, and which rankers ran."""

    __slots__ = ("hits", "rankers", "total", "warnings")

    def __init__(
        self,
        hits: tuple[Hit, ...],
        total: int,  # how many decisions any ranker matched (before k)
        rankers: tuple[str, ...],  # the rankers that ran
        warnings: tuple[str, ...] = (),
    ) -> None:
        self.hits = hits
        self.total = total
        self.rankers = rankers
        self.warnings = warnings

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        hits = []
        for h in data["hits"]:
            hits.append(
                Hit(
                    id=h["id"],
                    title=h["title"],
                    status=h["status"],
                    severity=h["severity"],
                    file=h["file"],
                    summary=h["summary"],
                    date=h["date"],
                    superseded_by=tuple(h["superseded_by"]),
                    score=float(h["score"]),
                    ranks={k: (int(v["rank"]), float(v["score"])) for k, v in h["ranks"].items()},
                    glob=h["glob"],
                    duplicates=tuple(h["duplicates"]),
                    via_successor_of=h["via_successor_of"],
                )
            )
        return cls(tuple(hits), int(data["total"]), tuple(data["rankers"]), tuple(data["warnings"]))

    def to_json(self) -> dict[str, object]:
        return {
            "hits": [h.to_json() for h in self.hits],
            "total": self.total,
            "rankers": list(self.rankers),
            "warnings": list(self.warnings),
        }


# said when an index without embeddings is opened with a model at hand; a search that has
# just re-indexed and seen the model fail says why instead (gitmem.search)
NO_EMBEDDINGS = "the index has no embeddings (built without a working model): run `gitmem index`"
# said where the index could not be written (the disk full: gitmem.search, gitmem.daemon),
# and the records are ranked from the table compiled into memory, in light mode
NOT_INDEXED = (
    "the search index could not be brought up to date ({}): ranked by keyword and path only"
)


class Retriever:
    """Holds the table, the Whoosh searcher, the vectors and (optionally) the model."""

    def __init__(
        self,
        repo: Repo | Location,
        table: Table,
        generation: Path | None,
        embedder: Embedder | None,
        warnings: list[str],
        light: bool = False,
    ) -> None:
        self.repo = repo
        self.light = light
        self._owns_table = True
        self.table = table
        self.generation = generation
        self.embedder = embedder
        self.warnings = list(warnings)
        self._keyword: Any = None  # gitmem.bm25.Scorer
        self._analyzer: Any = None
        self._vectors: Any = None
        self._owners: Any = None
        self._ids: list[str] = []
        self._head_rows: dict[str, int] = {}
        self._record_of_group: Any = None
        self._mask_for: set[str] | None = None  # the `allowed` set _mask was made for
        self._mask: Any = None
        self._group_starts: Any = None
        self._inferred: set[str] | None = None
        meta = None
        if generation is not None and not light:
            from gitmem.indexfiles import read_meta

            meta = read_meta(generation)
        # records indexed where there was no model, which have no vectors yet
        self.unembedded = len(meta.get("unembedded") or ()) if meta is not None else 0
        self.stale = False
        if not light:  # (the hooks say it once, at session start; see gitmem.agent.claude)
            problems = table.problems()
            if problems is not None:
                self.warnings.append(f"{problems.headline()}: `gitmem lint` shows why")
        if light:
            pass  # keyword ranking from the table's FTS5 mirror; no Whoosh, no vectors
        elif meta is not None:
            self._ids = list(meta["ids"])
            self._open_keyword(generation)  # type: ignore[arg-type]
            self._open_vectors(generation, meta)  # type: ignore[arg-type]
            from gitmem.indexfiles import is_stale

            self.stale = is_stale(meta, table.meta("full"), table.path)
            if self.stale:
                self.warnings.append("records changed since the last `gitmem index`")
            elif self.unembedded and self._vectors is not None:
                self.stale = True  # a build with the model embeds them
                self.warnings.append(
                    f"{self.unembedded} of the records were indexed without the embedding "
                    "model: `gitmem index` embeds them"
                )
        elif generation is None:
            self.warnings.append("no index yet: run `gitmem index` (path ranking only)")
        else:
            self.stale = True
            self.warnings.append(
                "the index is unreadable or from another gitmem version: run `gitmem index`"
            )

    # ------------------------------------------------------------------ set-up
    @classmethod
    def open(
        cls,
        repo: Repo | Location,
        *,
        embedder: Embedder | None = None,
        light: bool = False,
        table: Table | None = None,
    ) -> Retriever:
        """``light``: path + FTS5 keyword ranking only, standard library only (the agent
        hooks, which must not import Whoosh or load a model). ``table``: an already open
        match table, used as it is (the hooks' freshness policy: never wait for a
        rebuild); it stays the caller's to close."""
        if table is not None:
            gen = None if light else _generation(repo)
            r = cls(repo, table, gen, None if light else embedder, [], light=light)
            r._owns_table = False
            return r
        repo = _as_repo(repo)
        table = Table.open(compiler_table_path(repo))
        if table is None or not quick_fresh(table, repo):
            from gitmem import compile as compiler  # the YAML side loads only to rebuild

            if table is not None:
                table.close()
            table = compiler.ensure(repo, full=False)
        return cls(repo, table, _generation(repo), None if light else embedder, [], light=light)

    def _open_keyword(self, gen: Path) -> None:
        try:
            from gitmem import bm25

            postings = bm25.load(gen)
            if postings.records != len(self._ids):
                raise ValueError(f"{postings.records} records, the index has {len(self._ids)}")
            self._keyword = bm25.Scorer(postings, k1=BM25_K1, b=BM25_B)
            self._analyzer = bm25.analyzer()
        except Exception as exc:  # a broken index degrades to the other rankers
            self._keyword = None
            self.warnings.append(f"keyword index unreadable ({exc}); run `gitmem index --full`")

    def _open_vectors(self, gen: Path, meta: dict[str, Any]) -> None:
        if self.embedder is None:
            return
        if meta.get("model") is None:
            self.warnings.append(NO_EMBEDDINGS)
            return
        if meta["model"] != self.embedder.info.fingerprint:
            self.warnings.append("index built with another embedding model; run `gitmem index`")
            return
        try:
            import numpy as np

            # read whole (15 MB at 10,000 records): every query touches every row
            vectors = np.load(gen / "vectors.npy")
            owners = np.asarray(meta["owners"], dtype=np.int64)
            if vectors.shape[0] != owners.shape[0] or np.any(np.diff(owners) < 0):
                raise ValueError("chunk owners do not match the matrix")
        except Exception as exc:
            self.warnings.append(f"embedding matrix unreadable ({exc}); run `gitmem index --full`")
            return
        # a record's chunks are consecutive rows: its best chunk is a reduceat over them
        self._record_of_group, self._group_starts = np.unique(owners, return_index=True)
        self._vectors, self._owners = vectors, owners
        for group, row in zip(self._record_of_group, self._group_starts, strict=True):
            self._head_rows[self._ids[int(group)]] = int(row)

    def close(self) -> None:
        if self._owns_table:
            self.table.close()

    @property
    def rankers(self) -> tuple[str, ...]:
        out = ["path"]
        if self.light or self._keyword is not None:
            out.append("bm25")
        if self._vectors is not None and self.embedder is not None:
            out.append("embed")
        return tuple(out)

    # ------------------------------------------------------------------ rankers
    def rank_paths(
        self, paths: list[str], allowed: set[str] | None
    ) -> tuple[list[tuple[str, float]], dict[str, str]]:
        """Decisions governing the paths. A path governed by few decisions says more about
        each of them than one governed by many (an IDF weight), and a more specific glob
        counts a little more than a broad one."""
        per_path: list[list[tuple[str, int, str]]] = []
        for rel in paths:
            is_dir = rel == "" or os.path.isdir(os.path.join(self.repo.root, rel))
            found = [
                (m.entry.id, m.specificity, m.glob)
                for m in self.table.match(rel, is_dir)
                if allowed is None or m.entry.id in allowed
            ]
            if found:
                per_path.append(found)
        total = len(allowed) if allowed is not None else max(1, self._count())
        scores: dict[str, float] = {}
        globs: dict[str, tuple[str, int]] = {}
        for found in per_path:
            idf = math.log(1.0 + total / len(found))
            for ident, spec, glob in found:
                scores[ident] = scores.get(ident, 0.0) + idf * (1.0 + spec / 1000.0)
                if ident not in globs or spec > globs[ident][1]:
                    globs[ident] = (glob, spec)
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])[:RANKER_DEPTH]
        return ranked, {k: v[0] for k, v in globs.items()}

    def _inferred_ids(self) -> set[str]:
        if self._inferred is None:
            self._inferred = {e.id for e in self.table.entries() if e.globs_inferred}
        return self._inferred

    def _count(self) -> int:
        return int(self.table.meta("count") or 0)

    def rank_bm25(
        self, terms: entities.QueryTerms, path_words: list[str], allowed: set[str] | None
    ) -> list[tuple[str, float]]:
        if self._keyword is None:
            return []
        analyzer = self._analyzer
        weighted: dict[str, float] = {}

        def add(text: str, boost: float) -> None:
            for token in analyzer(entities.cjk_pairs(text)):
                word = token.text
                weighted[word] = max(weighted.get(word, 0.0), boost)

        # each word once (the weight is the highest boost, however often it occurs)
        add(" ".join(_first_distinct(terms.words, MAX_QUERY_WORDS)), 1.0)
        add(" ".join(_first_distinct(path_words, MAX_QUERY_WORDS)), PATH_WORD_BOOST)
        for ident in _entities(terms):
            add(ident, ENTITY_BOOST)
        kept = self._prune_terms(weighted)
        if not kept:
            return []
        mask = None if allowed is None else self._allowed_mask(allowed)
        top = self._keyword.top({w: weighted[w] for w in kept}, RANKER_DEPTH, mask)
        return [(self._ids[n], score) for n, score in top]

    def rank_fts(
        self, terms: entities.QueryTerms, path_words: list[str], allowed: set[str] | None
    ) -> list[tuple[str, float]]:
        """The keyword ranker in light mode: SQLite FTS5 BM25 over the same weighted text."""
        words: list[str] = []
        for ident in _entities(terms):
            words.extend(entities.split_words(ident))
        words.extend(_first_distinct(terms.words, MAX_QUERY_WORDS))
        words.extend(_first_distinct(path_words, MAX_QUERY_WORDS))
        words = [w for w in words if len(w) > 1 and w not in entities.STOPWORDS]
        ranked = self.table.keyword(words, limit=RANKER_DEPTH * (4 if allowed else 1))
        if allowed is not None:
            ranked = [(i, s) for i, s in ranked if i in allowed]
        return ranked[:RANKER_DEPTH]

    def _allowed_mask(self, allowed: set[str]) -> Any:
        """One bool per indexed record: is it among the ``allowed`` candidates? Both the
        keyword and embedding rankers filter with it; it is computed once per query."""
        if self._mask_for is not allowed:
            import numpy as np

            ids = self._ids
            self._mask = np.fromiter((i in allowed for i in ids), dtype=bool, count=len(ids))
            self._mask_for = allowed
        return self._mask

    def _prune_terms(self, weighted: dict[str, float]) -> list[str]:
        """Keep the query terms worth scoring: known to the index, not in most records
        (their IDF is near zero but they cost the most postings to score), and at most
        MAX_QUERY_TERMS of them, entities and rare terms first. Long prompts (commit
        messages, pasted logs) stay fast without changing what ranks first."""
        total = max(1, self._keyword.records)
        df = {w: n for w in weighted if (n := self._keyword.doc_frequency(w))}
        common = total * MAX_TERM_SHARE if total >= 20 else total + 1
        kept = [w for w in df if df[w] <= common]
        kept.sort(key=lambda w: (-weighted[w], df[w], w))
        return kept[:MAX_QUERY_TERMS]

    def rank_embed(self, text: str, allowed: set[str] | None) -> list[tuple[str, float]]:
        if self._vectors is None or self.embedder is None or not text.strip():
            return []
        if not self._group_starts.size:
            return []
        import numpy as np

        from gitmem.embed import ModelError

        try:
            qv = self.embedder.embed([text[:EMBED_QUERY_CHARS]])[0]
        except ModelError as exc:  # fail open: the other rankers still answer
            self.warnings.append(str(exc))
            self._vectors = None
            return []
        best = np.maximum.reduceat(self._vectors @ qv, self._group_starts)  # per record
        if allowed is not None:
            best = np.where(self._allowed_mask(allowed)[self._record_of_group], best, -1.0)
        top = np.flatnonzero(best >= EMBED_FLOOR)
        if top.size > RANKER_DEPTH:
            top = top[np.argpartition(-best[top], RANKER_DEPTH - 1)[:RANKER_DEPTH]]
        top = top[np.lexsort((top, -best[top]))]
        return [(self._ids[int(self._record_of_group[g])], float(best[g])) for g in top]

    # ------------------------------------------------------------------ entry point
    def retrieve(
        self,
        prompt: str = "",
        paths: list[str] | tuple[str, ...] = (),
        *,
        k: int = 10,
        cwd: str | None = None,
        allowed: set[str] | None = None,
        client_root: str | None = None,
    ) -> Result:
        """Rank the decisions relevant to ``prompt`` and the touched ``paths``.

        ``client_root``: where the process asking (a daemon's client) sees this work tree,
        if it sees it elsewhere: a dev container's bind mount of the host's checkout, or
        the host, asking a daemon that a container's hook started. Before session 63 its
        paths (and a relative path's ``cwd``) lay outside this root and were dropped: no
        decision was found by path, and no path's words reached BM25."""
        self._mask_for = None  # a candidate mask serves one query (the set may change)
        terms = entities.extract(prompt)
        root, common = str(self.repo.root), str(self.repo.common_dir)
        roots = worktree_roots(root, common)
        if isinstance(client_root, str) and client_root.startswith("/") and client_root != root:
            roots.append(client_root)
        found: dict[str, None] = {}  # in order, once each (a list's `in` made 40,000 take 8 s)
        names: list[str] = []  # the prompt's bare file names that name no file there
        for raw, named in [*((p, False) for p in paths), *((p, True) for p in terms.paths)]:
            if named and raw.startswith("@"):
                raw = _mentioned(raw, root, common, cwd or root, roots)
            rel = relative(raw, root, common, cwd or root, roots)
            if rel is None:
                continue
            if named and _bare_name(raw) and not os.path.exists(f"{root}/{rel}"):
                names.append(raw)
            else:
                found[rel] = None
        # the prompt's bare file names and module paths (`crate::storage::engine`)
        looked_up = files_named(root, names[:MAX_NAMES], folder_below(root, cwd), terms.modules)
        for rel in looked_up:
            found[rel] = None
        # a code host's link names a path of some repository: this one's where it is here
        # (a link to another project's file is no path of this one)
        for raw in terms.hosted[:MAX_NAMES]:
            if ".." not in raw.split("/") and os.path.exists(f"{root}/{raw}"):
                found[raw] = None
        rel_paths = list(found)
        path_words: list[str] = []
        for rel in rel_paths:
            path_words.extend(entities.split_words(rel))
            path_words.extend(entities.known_file_words(rel))
        runs: dict[str, list[tuple[str, float]]] = {}
        runs["path"], matched_globs = self.rank_paths(rel_paths, allowed)
        if self.light:
            runs["bm25"] = self.rank_fts(terms, path_words, allowed)
        elif self._keyword is not None:
            runs["bm25"] = self.rank_bm25(terms, path_words, allowed)
        if self._vectors is not None:
            # the prompt and the touched paths, as the keyword ranker sees them
            words = path_words[:EMBED_QUERY_WORDS]
            query_text = " ".join([prompt.strip(), *words]).strip()
            runs["embed"] = self.rank_embed(query_text, allowed)
        return self._fuse(runs, matched_globs, k, allowed)

    def _fuse(
        self,
        runs: dict[str, list[tuple[str, float]]],
        globs: dict[str, str],
        k: int,
        allowed: set[str] | None = None,
    ) -> Result:
        fused: dict[str, float] = {}
        ranks: dict[str, dict[str, tuple[int, float]]] = {}
        inferred = self._inferred_ids() if runs.get("path") else set()
        for name, ranked in runs.items():
            weight = WEIGHTS.get(name, 1.0)
            for rank, (ident, raw) in enumerate(ranked, start=1):
                w = weight * (INFERRED_PATH_WEIGHT if name == "path" and ident in inferred else 1)
                fused[ident] = fused.get(ident, 0.0) + w / (RRF_K + rank)
                ranks.setdefault(ident, {})[name] = (rank, raw)
        entries = self.table.get_many(list(fused))
        hits = [self._hit(e, fused[i], ranks[i], globs.get(i)) for i, e in entries.items() if e]
        hits.sort(key=_order)
        hits = self._successors_first(hits, allowed)
        # only the head of the list can be shown: collapse duplicates there
        head = self._collapse_duplicates(hits[: k * 3])
        hits = head + hits[k * 3 :]
        return Result(tuple(hits[:k]), len(hits), tuple(runs), tuple(self.warnings))

    def _hit(
        self,
        e: Entry,
        score: float,
        ranks: dict[str, tuple[int, float]],
        glob: str | None,
        via: str | None = None,
    ) -> Hit:
        return Hit(
            id=e.id,
            title=e.title,
            status=e.effective_status,
            severity=e.severity,
            file=e.file,
            summary=e.summary,
            date=e.date,
            superseded_by=e.superseded_by,
            score=score,
            ranks=ranks,
            glob=glob,
            via_successor_of=via,
        )

    def _current_successors(self, ident: str, allowed: set[str] | None = None) -> list[Entry]:
        """The current decisions that (transitively) replace ``ident``. With ``allowed``
        (the decisions that existed at some point in time), the others do not count: a
        successor written later is not pulled in, and one whose own successors all came
        later was current then."""
        out: list[Entry] = []
        seen = {ident}
        frontier = [ident]
        while frontier:
            e = self.table.get(frontier.pop())
            if e is None:
                continue
            for succ in e.superseded_by:
                if succ in seen or (allowed is not None and succ not in allowed):
                    continue
                seen.add(succ)
                s = self.table.get(succ)
                if s is None:
                    continue
                if allowed is None:
                    current = s.is_current
                else:  # current then: its own status, and no successor of it yet
                    current = s.status in CURRENT_STATUSES and not any(
                        later in allowed for later in s.superseded_by
                    )
                if current:
                    out.append(s)
                else:
                    frontier.append(succ)
        return out

    def _successors_first(self, hits: list[Hit], allowed: set[str] | None = None) -> list[Hit]:
        """Place each superseded hit right after its current successor(s)."""
        out: list[Hit] = []
        placed: set[str] = set()
        by_id = {h.id: h for h in hits}
        for h in hits:
            if h.id in placed:
                continue
            if h.superseded_by:
                for s in self._current_successors(h.id, allowed):
                    if s.id in placed:
                        continue
                    succ = by_id.get(s.id)
                    if succ is None:
                        succ = self._hit(s, h.score, {}, None, via=h.id)
                    out.append(succ)
                    placed.add(s.id)
            out.append(h)
            placed.add(h.id)
        return out

    def _collapse_duplicates(self, hits: list[Hit]) -> list[Hit]:
        if self._vectors is None or not self._head_rows:
            return hits

        rows = [self._head_rows.get(h.id) for h in hits]
        have = [n for n, row in enumerate(rows) if row is not None]
        heads = self._vectors[[rows[n] for n in have]]
        sims = heads @ heads.T  # head chunks' cosines, pairwise
        where = {n: i for i, n in enumerate(have)}
        kept: list[int] = []
        dups: dict[str, list[str]] = {}
        for n, h in enumerate(hits):
            twin = None
            if n in where:
                for m in kept:
                    other = hits[m]
                    same_kind = other.is_current == h.is_current
                    if m in where and same_kind and sims[where[n], where[m]] >= DUPLICATE_COSINE:
                        twin = other
                        break
            if twin is not None:
                dups.setdefault(twin.id, []).append(h.id)
                continue
            kept.append(n)
        out = [hits[m] for m in kept]
        return [h.with_duplicates(tuple(dups[h.id])) if h.id in dups else h for h in out]


def compiler_table_path(repo: Repo) -> Path:
    from gitmem.table import TABLE_NAME

    return repo.state_dir / TABLE_NAME


def _as_repo(place: Repo | Location) -> Repo:
    from gitmem.location import Location

    return place.repo() if isinstance(place, Location) else place


def _generation(place: Repo | Location) -> Path | None:
    from gitmem.indexfiles import current_generation

    return current_generation(_as_repo(place))


def quick_fresh(table: Table, repo: Repo) -> bool:
    from gitmem.table import is_fresh

    try:
        return is_fresh(table, repo.root, full=False)
    except Exception:
        return False


def _order(h: Hit) -> tuple[float, int, str, str]:
    date = h.date or ""
    # higher score first, then more severe, then more recent, then id
    return (-round(h.score, 9), SEVERITY_RANK.get(h.severity, 3), _neg(date), h.id)


def _neg(text: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in text)


def retrieve(
    repo: Repo,
    prompt: str = "",
    paths: list[str] | tuple[str, ...] = (),
    *,
    k: int = 10,
    cwd: str | None = None,
    embedder: Embedder | None = None,
    allowed: set[str] | None = None,
) -> Result:
    """One-shot in-process retrieval (opens and closes everything)."""
    r = Retriever.open(repo, embedder=embedder)
    try:
        return r.retrieve(prompt, paths, k=k, cwd=cwd, allowed=allowed)
    finally:
        r.close()
