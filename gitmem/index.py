"""``gitmem index``: the keyword index (Whoosh BM25F) and the embedding matrix.

Layout, in the work tree's git directory::

    gitmem/index/CURRENT            name of the live generation (swapped atomically)
    gitmem/index/gen-<id>/whoosh/   Whoosh index: id; title, tags, glob words, summary, body
    gitmem/index/gen-<id>/bm25.npz  its postings compiled to arrays (see gitmem.bm25)
    gitmem/index/gen-<id>/vectors.npy   float32, one row per chunk, L2-normalised
    gitmem/index/gen-<id>/meta.json     ids, content hashes, chunk owners, model fingerprint

A build writes a new generation beside the live one (copying the previous Whoosh index and
applying only the changed records; re-embedding only records whose content hash changed),
then replaces ``CURRENT``. A killed build leaves the live generation untouched; a corrupt or
missing generation is rebuilt from scratch. One builder at a time (a lock file).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem import bm25, config, embed, entities, frontmatter, fsutil, globs, locked, sections
from gitmem import compile as compiler
from gitmem.doctext import FIELD_WEIGHTS, FIELDS, field_texts
from gitmem.fsutil import atomic_write
from gitmem.indexfiles import FORMAT, current_generation, index_dir, read_meta
from gitmem.location import machine_id

__all__ = [
    "BuildReport",
    "build",
    "current_generation",
    "index_dir",
    "read_meta",
    "resolve_embedder",
]
from gitmem.model import Decision
from gitmem.repo import Repo

CHUNK_WORDS = 120
# Embedding runs at ~5k tokens/s on 2 CPU cores, so every record's head chunk is kept
# short (title + the start of its summary, ~50 tokens); long bodies get their own chunks.
HEAD_SUMMARY_CHARS = 240
LONG_BODY_WORDS = 150  # shorter bodies are covered by the title + summary chunk
MAX_BODY_CHUNKS = 3
# From this many records to re-index, the keyword index is written beside the embedding
# (see `_beside`): a full build at 10,000 records spends ~10 s on it, one core's work.
BESIDE_FROM = 256
# (phase, done, total): phase is "keyword index" or "embedding"; embedding is most of a
# long build (~90% at 10,000 records, measured), so it reports its own progress
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class BuildReport:
    generation: Path
    total: int
    reindexed: int
    removed: int
    embedded: int  # chunks embedded this run
    model: str | None
    warning: str | None
    seconds: float
    unchanged: bool = False
    runtime: str | None = None  # what embedded this build's texts (see `embed.Embedder`)
    runtime_note: str | None = None  # why OpenVINO, asked for, did not
    # why the model, found, failed in this build (an onnxruntime too old for its file...):
    # the index was written without embeddings, and every caller says so
    model_failure: str | None = None
    # records that have no embeddings yet: indexed where there was no model (see build)
    unembedded: int = 0


# Records holding CJK text are keyword-indexed as character pairs since this version: a
# change of their hashes makes an existing index re-index them (and only them).
CJK_INDEXING = "\ncjk-pairs-1"


def content_hash(d: Decision) -> str:
    known = _HASHES.get(id(d))
    if known is not None and known[0] is d:
        return known[1]
    payload = json.dumps(
        [d.id, d.title, d.tags, d.summary, d.body, d.effective_status, d.globs, d.superseded_by],
        ensure_ascii=False,
    )
    if entities.has_cjk(payload):
        payload += CJK_INDEXING  # indexed differently since: re-index such records once
    digest = hashlib.sha1(payload.encode("utf-8")).hexdigest()
    _HASHES[id(d)] = (d, digest)
    return digest


# id(record) -> (record, content hash), for a long-lived process: the daemon re-indexes
# after each edit, and the catalog hands back the same objects for unchanged records
# (see gitmem.store). Hashing 10,000 records took ~0.1 s of a one-record update. The
# entry holds the record, so its id cannot be reused while it is here.
_HASHES: dict[int, tuple[Decision, str]] = {}


def warm(decisions: tuple[Decision, ...]) -> None:
    """For a long-lived process at start (the daemon, after ``compile.prime``): hash the
    records and load what re-indexing one record needs (the YAML parser, the glob
    compiler, Whoosh's writer), so that the first edit costs what later ones do. At 10,000
    records the daemon's first update took 0.43-0.58 s, later ones 0.24-0.38 s; with this
    the first took 0.26-0.30 s (three alternating runs each, measured)."""
    for d in _unique(decisions):
        content_hash(d)
    frontmatter.parse("---\ntitle: warm\n---\n", "<warm>")
    globs.compile_glob("warm/**")
    import whoosh.searching  # the writer searches for what it deletes
    import whoosh.writing  # noqa: F401


def chunks(d: Decision) -> list[str]:
    """Texts embedded for a record: title + summary first, then windows of the body."""
    head = f"{d.title}. {sections.clip(d.summary, HEAD_SUMMARY_CHARS)}".strip()
    if d.tags:
        head += " Tags: " + ", ".join(d.tags) + "."
    out = [head]
    words = " ".join(sections.paragraphs(d.body)).split()
    if len(words) > LONG_BODY_WORDS:
        for start in range(0, len(words), CHUNK_WORDS):
            if len(out) > MAX_BODY_CHUNKS:
                break
            out.append(f"{d.title}: " + " ".join(words[start : start + CHUNK_WORDS]))
    return out


def _schema() -> Any:
    from whoosh.fields import ID, STORED, TEXT, Schema

    # One field per part of a record, weighted by its field_boost (see gitmem.bm25 for
    # the scoring). No positions: nothing queries phrases.
    text = {
        name: TEXT(analyzer=bm25.analyzer(), phrase=False, field_boost=float(weight))
        for name, weight in FIELD_WEIGHTS.items()
    }
    return Schema(id=ID(stored=True, unique=True), hash=STORED(), **text)


def _keyword_fields() -> list[Any]:
    """The schema's keyword fields, in ``FIELDS`` order (for ``bm25.analyse``)."""
    schema = _schema()
    return [schema[name] for name in FIELDS]


@contextlib.contextmanager
def _build_lock(repo: Repo) -> Iterator[None]:
    """One build at a time. The lock file is opened for reading: ``flock`` needs no more,
    and one another user made (a `sudo gitmem index`) is then locked as well as one's
    own. Opened for writing, as before session 58, it refused every later build of the
    user's ("the index could not be written (…build.lock: Permission denied)")."""
    index_dir(repo).mkdir(parents=True, exist_ok=True)
    fd = os.open(index_dir(repo) / "build.lock", os.O_RDONLY | os.O_CREAT, 0o666)
    try:
        with locked.Held(fd):  # (a stand-in where the file system has no locks)
            yield
    finally:
        os.close(fd)


def build(
    repo: Repo,
    *,
    full: bool = False,
    embedder: embed.Embedder | None = None,
    model_warning: str | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """Bring the index up to date with the records (incrementally unless ``full``)."""
    started = time.perf_counter()
    with _build_lock(repo):
        model_fp = embedder.info.fingerprint if embedder is not None else None
        taken = compiler.fingerprint(repo)
        current = current_generation(repo)
        current_meta = read_meta(current) if current is not None else None
        # Without a model, the embeddings there are kept (see _write_vectors): one place
        # that has no model (an agent's hooks whose environment lacks
        # GITMEM_EMBED_MODEL_DIR, a dev container without the model folder) re-indexed
        # every record without vectors, and the next place with the model embedded them
        # all again, after every change of a record.
        if embedder is None and not full and current_meta is not None:
            model_fp = current_meta.get("model")
        if not full:
            same = _nothing_changed(repo, current, current_meta, model_fp, taken.full)
            if same is not None and _to_embed(current_meta, embedder):
                same = None
            if same is not None:
                gen, total = same
                return BuildReport(
                    gen,
                    total,
                    0,
                    0,
                    0,
                    model_fp,
                    model_warning,
                    time.perf_counter() - started,
                    unchanged=True,
                )
        catalog = compiler.build(repo, taken)  # the table, from its parse cache
        source = taken.full
        decisions = _unique(catalog.decisions)
        hashes = {d.id: content_hash(d) for d in decisions}
        if len(_HASHES) > 2 * len(decisions) + 64:
            live = {id(d) for d in decisions}
            for gone in [key for key in _HASHES if key not in live]:
                del _HASHES[gone]
        prev, prev_meta = (None, None) if full else (current, current_meta)
        old_postings = _readable_postings(prev, prev_meta)
        if prev is not None and (
            prev_meta is None
            or not _whoosh_ok(prev)
            or old_postings is None
            or not _vectors_ok(prev, prev_meta)
        ):
            prev, prev_meta, old_postings = None, None, None  # unreadable: from scratch
        if (
            prev is not None
            and prev_meta is not None
            and prev_meta.get("hashes") == hashes
            and prev_meta.get("model") == model_fp
            and not _to_embed(prev_meta, embedder)
        ):
            # nothing to re-index, but the table was just recompiled: stamp the index as
            # current so that readers do not take it for stale
            stamped = {**prev_meta, "built": time.time(), "source": source}
            atomic_write(prev / "meta.json", json.dumps(stamped))
            return BuildReport(
                prev,
                len(decisions),
                0,
                0,
                0,
                model_fp,
                model_warning,
                time.perf_counter() - started,
                unchanged=True,
            )
        old_hashes: dict[str, str] = dict(prev_meta.get("hashes", {})) if prev_meta else {}
        changed = [d for d in decisions if old_hashes.get(d.id) != hashes[d.id]]
        removed = [i for i in old_hashes if i not in hashes]
        gen = index_dir(repo) / f"gen-{int(time.time())}-{uuid.uuid4().hex[:8]}"
        gen.mkdir(parents=True)
        building = _building(gen, prev)
        try:

            def write_keyword(report: Progress | None) -> None:
                _write_whoosh(gen, prev, decisions, changed, removed, hashes, report)
                if report is not None:
                    report("keyword index", len(changed), len(changed))
                _write_postings(gen, old_postings, prev_meta, decisions, changed)

            def write_vectors() -> tuple[list[int], int, str | None]:
                """(chunk owners, texts embedded, why the model failed: then none)"""
                try:
                    owners, embedded = _write_vectors(
                        gen, prev, prev_meta, decisions, hashes, embedder, progress, model_fp
                    )
                except embed.ModelError as exc:
                    return [], 0, str(exc)
                return owners, embedded, None

            if embedder is None or len(changed) < BESIDE_FROM:
                write_keyword(progress)
                owners, embedded, failure = write_vectors()
            else:
                with _beside(write_keyword) as keyword_written:
                    owners, embedded, failure = write_vectors()
                    keyword_written()
            model_failure = None
            if failure is not None:  # fail open: keyword + path, and say so
                model_fp = None
                model_failure = f"{failure}; the index has no embeddings (keyword + path only)"
                model_warning = model_failure
            meta: dict[str, Any] = {
                "format": FORMAT,
                "model": model_fp,
                "ids": [d.id for d in decisions],
                "hashes": hashes,
                "owners": owners,
                "built": time.time(),
                "source": source,
            }
            if model_fp is not None:  # records with no vectors yet (indexed without a model)
                held = set(owners)
                unembedded = [d.id for i, d in enumerate(decisions) if i not in held]
                if unembedded:
                    meta["unembedded"] = unembedded
            atomic_write(gen / "meta.json", json.dumps(meta))
            atomic_write(index_dir(repo) / "CURRENT", gen.name + "\n")
        except BaseException:
            shutil.rmtree(gen, ignore_errors=True)
            raise
        finally:
            with contextlib.suppress(OSError):
                building.unlink()
        _prune(repo, keep={gen.name, prev.name if prev is not None else ""})
        return BuildReport(
            gen,
            len(decisions),
            len(changed),
            len(removed),
            embedded,
            model_fp,
            model_warning,
            time.perf_counter() - started,
            runtime=embedder.runtime if embedder is not None and embedded else None,
            runtime_note=embedder.note if embedder is not None and embedded else None,
            model_failure=model_failure,
            unembedded=len(meta.get("unembedded", ())),
        )


def _to_embed(meta: dict[str, Any] | None, embedder: embed.Embedder | None) -> bool:
    """Whether a build with ``embedder`` has records of ``meta``'s generation to embed
    though none changed: ones indexed where there was no model (``unembedded``)."""
    return embedder is not None and bool((meta or {}).get("unembedded"))


class _Stopped(Exception):
    """The work beside a build's embedding was abandoned because the build failed."""


@contextlib.contextmanager
def _beside(job: Callable[[Progress], None]) -> Iterator[Callable[[], None]]:
    """Run ``job`` on a thread while the caller embeds; the function handed to the caller
    waits for it and raises its error. The keyword index is pure Python and the embedding
    runs on every core with the GIL released, so a large build writes the first beside the
    second instead of with one core idle. If the caller fails, the job stops at its next
    progress report and is waited for before the error goes on, so nothing writes into
    the generation once it is removed. The job's own progress is not reported: the
    embedding, which takes longer, has the bar."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def stopped(_phase: str, _done: int, _total: int) -> None:
        if stop.is_set():
            raise _Stopped

    def run() -> None:
        try:
            job(stopped)
        except BaseException as exc:  # handed to the caller by `written`
            errors.append(exc)

    thread = threading.Thread(target=run, name="gitmem-keyword-index", daemon=True)
    thread.start()

    def written() -> None:
        thread.join()
        if errors:
            raise errors[0]

    try:
        yield written
    finally:
        stop.set()
        thread.join()


def _nothing_changed(
    repo: Repo,
    gen: Path | None,
    meta: dict[str, Any] | None,
    model_fp: str | None,
    full: str,
) -> tuple[Path, int] | None:
    """(live generation, records) when the record files are as they were when it was
    built (``full``: their fingerprint now), the table was compiled from them too, the
    model is the same and the index files are readable: then there is nothing to do, and
    reading the catalog (~1-2 s at 10,000 records) is skipped. `gitmem index` runs after
    every commit (git hooks), mostly with nothing to do. None when anything needs a look."""
    from gitmem.table import Table

    if gen is None or meta is None or meta.get("model") != model_fp:
        return None
    if meta.get("source") != full:
        return None
    table = Table.open(compiler.table_path(repo))
    if table is None:
        return None
    try:
        if table.meta("full") != full:  # its root may be another view's (full_fingerprint)
            return None
    except Exception:
        return None
    finally:
        table.close()
    if not _whoosh_ok(gen) or _readable_postings(gen, meta) is None:
        return None
    if not _vectors_ok(gen, meta):
        return None
    return gen, len(meta["ids"])


def _unique(decisions: tuple[Decision, ...]) -> list[Decision]:
    seen: set[str] = set()
    out = []
    for d in decisions:
        if d.id not in seen:
            seen.add(d.id)
            out.append(d)
    return out


def _storage(folder: Path, *, mapped: bool | None = None) -> Any:
    """Whoosh's storage of the existing ``folder``, read through ``mmap`` only where its
    file system maps files: one that does not (FUSE mounts with direct I/O, some network
    file systems: "No such device") made every `gitmem index` fail ("the index could not
    be written (No such device)") until session 59. Reading instead costs ~20% of
    reading the postings back (209 against 176 ms at 3,000 records), so mmap stays where
    it works. ``mapped``: given, not tried (False for what reads no segment)."""
    from whoosh.filedb.filestore import FileStorage

    maps = _maps(folder) if mapped is None else mapped
    return FileStorage(str(folder), supports_mmap=maps)


_MAPS: dict[int, bool] = {}  # whether a file system (by device) maps files


def _maps(folder: Path) -> bool:
    """Whether files in the existing ``folder`` can be mapped: a one-byte file tried
    there, once per process and file system."""
    import mmap

    device = os.stat(folder).st_dev
    if device not in _MAPS:
        probe = folder / f".mmap-{os.getpid()}"
        try:
            with open(probe, "w+b") as fh:
                fh.write(b"\0")
                fh.flush()
                mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ).close()
            _MAPS[device] = True
        except OSError:
            _MAPS[device] = False
        finally:
            with contextlib.suppress(OSError):
                probe.unlink()
    return _MAPS[device]


def _whoosh_ok(gen: Path) -> bool:
    try:
        # its table of contents alone is read: no file to try mapping for
        return bool(_storage(gen / "whoosh", mapped=False).index_exists())
    except Exception:
        return False


def _vectors_ok(gen: Path, meta: dict[str, Any]) -> bool:
    """The embedding matrix matches its metadata (reads only the .npy header)."""
    if meta.get("model") is None:
        return True  # built without a model: there is no matrix
    import numpy as np

    try:  # the header alone, read (not mapped: see _storage; and cheaper)
        with open(gen / "vectors.npy", "rb") as fh:
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
            else:
                shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
        want = (len(meta.get("owners", ())), embed.DIM)
        return bool(tuple(shape) == want and dtype == np.float32)
    except Exception:
        return False


def _readable_postings(gen: Path | None, meta: dict[str, Any] | None) -> bm25.Postings | None:
    """A generation's compiled postings, if they load and match its metadata."""
    if gen is None or meta is None:
        return None
    try:
        postings = bm25.load(gen)
    except Exception:
        return None
    return postings if postings.records == len(meta.get("ids", ())) else None


def _write_whoosh(
    gen: Path,
    prev: Path | None,
    decisions: list[Decision],
    changed: list[Decision],
    removed: list[str],
    hashes: dict[str, str],
    progress: Progress | None,
) -> None:
    target = gen / "whoosh"
    if prev is not None and (prev / "whoosh").is_dir():
        shutil.copytree(prev / "whoosh", target)
        ix = _storage(target).open_index()
        todo = changed
    else:
        target.mkdir()
        ix = _storage(target).create_index(_schema())
        todo = decisions
    # no whoosh lock (an flock, which a file system without locks refuses): the
    # generation is this build's own until it is made current, under the build lock
    writer = ix.writer(limitmb=128, _lk=False)
    try:
        for ident in removed:
            writer.delete_by_term("id", ident)
        for n, d in enumerate(todo, start=1):
            text = dict(zip(FIELDS, field_texts(d), strict=True))
            writer.update_document(id=d.id, hash=hashes[d.id], **text)
            if progress is not None and n % 200 == 0:
                progress("keyword index", n, len(todo))
        writer.commit(optimize=len(todo) == len(decisions))
    except BaseException:
        writer.cancel()
        raise
    finally:
        ix.close()


def _write_postings(
    gen: Path,
    old: bm25.Postings | None,
    prev_meta: dict[str, Any] | None,
    decisions: list[Decision],
    changed: list[Decision],
) -> None:
    """The keyword ranker's compiled postings (``gitmem.bm25``): the previous
    generation's (``old``) with the changed records re-analysed, or read from the Whoosh
    index just written."""
    ids = [d.id for d in decisions]
    if old is not None and prev_meta is not None:
        fields = _keyword_fields()
        fresh = {d.id: bm25.analyse(fields, field_texts(d)) for d in changed}
        bm25.save(gen, bm25.update(old, list(prev_meta["ids"]), ids, fresh))
        return
    ix = _storage(gen / "whoosh").open_index()
    try:
        bm25.save(gen, bm25.from_whoosh(ix, ids))
    finally:
        ix.close()


def _write_vectors(
    gen: Path,
    prev: Path | None,
    prev_meta: dict[str, Any] | None,
    decisions: list[Decision],
    hashes: dict[str, str],
    embedder: embed.Embedder | None,
    progress: Progress | None = None,
    model: str | None = None,
) -> tuple[list[int], int]:
    """One row per chunk, records in order; unchanged records keep their rows from the
    previous generation (gathered with one index array, not copied record by record).
    Without an ``embedder``, the previous generation's rows of ``model`` are kept all the
    same, and the records without them get none (``unembedded`` in the metadata: the
    next build with the model embeds them)."""
    import numpy as np

    if embedder is not None:
        model = embedder.info.fingerprint
    if model is None:
        return [], 0
    old = None
    old_rows: dict[str, tuple[int, int]] = {}  # reusable id -> (first row, row count)
    if (
        prev is not None
        and prev_meta is not None
        and prev_meta.get("model") == model
        and (prev / "vectors.npy").is_file()
    ):
        old = np.load(prev / "vectors.npy")
        old_ids = prev_meta["ids"]
        old_hashes = prev_meta["hashes"]
        owners = np.asarray(prev_meta["owners"], dtype=np.int64)
        # a record's chunks are consecutive rows (as written below); anything else is a
        # damaged file, and nothing is reused from it
        if old.shape[0] == owners.shape[0] > 0 and bool(np.all(np.diff(owners) >= 0)):
            firsts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
            counts = np.diff(np.r_[firsts, owners.shape[0]])
            for owner, first, count in zip(
                owners[firsts].tolist(), firsts.tolist(), counts.tolist(), strict=True
            ):
                ident = old_ids[owner]
                if hashes.get(ident) == old_hashes.get(ident):
                    old_rows[ident] = (first, count)
    texts: list[str] = []
    # per record: its first old row (>= 0), or -(1 + index of its first fresh text)
    span_starts: list[int] = []
    span_counts: list[int] = []
    for d in decisions:
        span = old_rows.get(d.id)
        if span is None:
            fresh_texts = chunks(d) if embedder is not None else []
            span = (-1 - len(texts), len(fresh_texts))
            texts.extend(fresh_texts)
        span_starts.append(span[0])
        span_counts.append(span[1])
    fresh = (
        embedder.embed(
            texts,
            None if progress is None else lambda done, total: progress("embedding", done, total),
        )
        if embedder is not None
        else np.empty((0, embed.DIM), dtype=np.float32)
    )
    counts_arr = np.asarray(span_counts, dtype=np.int64)
    owners_arr = np.repeat(np.arange(len(decisions), dtype=np.int64), counts_arr)
    begin = np.repeat(np.asarray(span_starts, dtype=np.int64), counts_arr)
    offset = np.arange(owners_arr.shape[0]) - np.repeat(
        np.cumsum(counts_arr) - counts_arr, counts_arr
    )
    src = np.where(begin >= 0, begin + offset, begin - offset)  # old row, or -(1 + text)
    matrix = np.empty((src.shape[0], embed.DIM), dtype=np.float32)
    reused = src >= 0
    if old is not None and reused.any():
        np.take(old, np.where(reused, src, 0), axis=0, out=matrix)
    if texts:
        matrix[~reused] = fresh[-1 - src[~reused]]
    tmp = gen / "vectors.tmp.npy"
    np.save(tmp, matrix)
    os.replace(tmp, gen / "vectors.npy")
    return owners_arr.tolist(), len(texts)


# A generation being built has a file beside it, ``<generation>.building``, naming the
# machine that builds it (gitmem.location.machine_id) and the generation it starts from.
BUILDING = ".building"
# how long another machine's build is waited for: a 10,000-record build takes minutes
BUILDING_S = 3600


def _building(gen: Path, prev: Path | None) -> Path:
    """The file that says ``gen`` is being built here, from ``prev`` (see ``_prune``)."""
    marker = gen.with_name(gen.name + BUILDING)
    with contextlib.suppress(OSError):  # without it, only another machine's prune differs
        marker.write_text(
            f"machine {machine_id()}\nfrom {prev.name if prev is not None else ''}\n",
            encoding="utf-8",
        )
    return marker


def _prune(repo: Repo, keep: set[str]) -> None:
    """Delete generations other than the live one and the one it replaced (a reader may
    still have that one open), and other than one another machine is building, with the
    one it builds from, for up to ``BUILDING_S``: this machine's builds take turns under
    the build lock, but a clone on a network file system may keep each machine's locks to
    itself. Before session 64 a build on one machine removed the other's unfinished
    generation, and that build failed ("the index could not be written (…vectors.tmp.npy:
    No such file or directory)")."""
    folder = index_dir(repo)
    keep = set(keep)
    here = machine_id()
    markers = [entry for entry in folder.iterdir() if entry.name.endswith(BUILDING)]
    for marker in markers:
        try:
            noted = fsutil.fields(marker.read_text("utf-8").splitlines())
            age = time.time() - marker.stat().st_mtime
        except (OSError, UnicodeDecodeError):
            continue
        there = noted.get("machine", "")
        if here and there and there != here and age < BUILDING_S:
            keep |= {marker.name.removesuffix(BUILDING), noted.get("from", "")}
    for entry in folder.iterdir():
        name = entry.name.removesuffix(BUILDING)
        if name.startswith("gen-") and name not in keep:
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    entry.unlink()  # what a build killed here, or long ago elsewhere, left


def resolve_embedder(
    repo: Repo, *, allow_download: bool, one_shot: bool = False, bulk: bool = False
) -> embed.Resolution:
    cfg = config.load(repo.root)
    return embed.resolve(
        repo.root,
        cfg.embed_model_dir,
        allow_download=allow_download and cfg.embed_download,
        marker=repo.shared_state_dir / "model-download-failed",
        stamp=repo.shared_state_dir / "model-checked",
        one_shot=one_shot,
        bulk=bulk,
    )
