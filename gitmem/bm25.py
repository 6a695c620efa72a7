"""The keyword ranker's query path: Whoosh's BM25F, vectorised over compiled postings.

Whoosh scores a query in pure Python, one posting at a time: with 10,000 records a short
prompt's terms have hundreds of thousands of postings and a search took ~50-90 ms. The
index builder therefore compiles the Whoosh index's ``content`` postings into arrays,
term-major (``bm25.npz`` in the generation):

* ``terms``: the vocabulary, newline-joined UTF-8; a term's id is its position;
* ``ptr`` (int64, one more than the terms): term ``t``'s postings are ``ptr[t]:ptr[t+1]``;
* ``docs`` (int32): the record of each posting, as its position in the generation's ids;
* ``tfs`` (float32): the posting's weight (term frequency; title and tags are weighted by
  repetition, see ``gitmem.doctext``);
* ``lengths`` (float32, per record): the field length as Whoosh stores it (quantised to a
  byte), which BM25 normalises by; ``exact`` the true length, whose mean it normalises to.

A full build reads the postings from the Whoosh index it just wrote. An incremental build
keeps the previous arrays for unchanged records and adds the changed ones from the same
field analysis Whoosh indexes them with (``Field.index``), so it never re-reads the whole
index. The scores are Whoosh's own: ``idf = log(N / (df + 1)) + 1``, BM25 with its K1 and B,
the query terms' boosts multiplied in (a test checks them against Whoosh's searcher).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

FILE = "bm25.npz"
FIELD = "content"


@dataclass(frozen=True)
class Postings:
    terms: tuple[str, ...]
    ptr: npt.NDArray[np.int64]
    docs: npt.NDArray[np.int32]
    tfs: npt.NDArray[np.float32]
    lengths: npt.NDArray[np.float32]  # quantised, as Whoosh stores them
    exact: npt.NDArray[np.float32]  # exact field lengths (for the average)

    @property
    def records(self) -> int:
        return int(self.lengths.shape[0])


def analyzer() -> Any:
    """The content field's analyzer (the index and the queries must use the same one)."""
    from whoosh.analysis import (
        IntraWordFilter,
        LowercaseFilter,
        RegexTokenizer,
        StemFilter,
        StopFilter,
    )

    return (
        RegexTokenizer(r"[\w.\-/]+")
        | IntraWordFilter(mergewords=True, mergenums=True)
        | LowercaseFilter()
        | StopFilter()
        | StemFilter()
    )


def from_whoosh(ix: Any, ids: list[str]) -> Postings:
    """Every posting of an (optimised or not) Whoosh index, records in ``ids`` order."""
    position = {ident: n for n, ident in enumerate(ids)}
    with ix.reader() as reader:
        remap = np.full(reader.doc_count_all(), -1, dtype=np.int64)
        for docnum, stored in reader.iter_docs():
            n = position.get(stored.get("id"))
            if n is not None:
                remap[docnum] = n
        terms: list[str] = []
        counts: list[int] = []
        doc_parts: list[npt.NDArray[np.int64]] = []
        tf_parts: list[npt.NDArray[np.float32]] = []
        for term in reader.lexicon(FIELD):
            docnums: list[int] = []
            weights: list[float] = []
            for docnum, weight in reader.postings(FIELD, term).items_as("weight"):
                docnums.append(docnum)
                weights.append(weight)
            mapped = remap[np.asarray(docnums, dtype=np.int64)]
            keep = mapped >= 0
            if not keep.any():
                continue
            terms.append(term.decode("utf-8"))
            counts.append(int(keep.sum()))
            doc_parts.append(mapped[keep])
            tf_parts.append(np.asarray(weights, dtype=np.float32)[keep])
        lengths = np.zeros(len(ids), dtype=np.float32)
        for docnum, n in enumerate(remap):
            if n >= 0:
                lengths[n] = reader.doc_field_length(docnum, FIELD, 0)
    return _assemble(terms, counts, doc_parts, tf_parts, lengths)


def analyse(field: Any, text: str) -> tuple[dict[str, float], int]:
    """What Whoosh indexes for ``text`` in ``field``: term -> weight, and the exact length."""
    weights: dict[str, float] = {}
    length = 0
    for tbytes, freq, weight, _ in field.index(text):
        weights[tbytes.decode("utf-8")] = float(weight)
        length += int(freq)
    return weights, length


def quantise(length: int) -> float:
    """A field length as Whoosh stores it (a byte on a logarithmic scale)."""
    from whoosh.util.numeric import byte_to_length, length_to_byte

    return float(byte_to_length(length_to_byte(length))) if length else 0.0


def update(
    prev: Postings,
    prev_ids: list[str],
    ids: list[str],
    fresh: dict[str, tuple[dict[str, float], int]],  # changed id -> analyse() of its text
) -> Postings:
    """``prev`` with the records in ``fresh`` re-analysed, records no longer in ``ids``
    dropped, and records renumbered to ``ids``. Costs array operations over the postings
    plus the analysis of the changed records."""
    position = {ident: n for n, ident in enumerate(ids)}
    remap = np.fromiter(
        (-1 if ident in fresh else position.get(ident, -1) for ident in prev_ids),
        dtype=np.int64,
        count=len(prev_ids),
    )
    term_of = np.repeat(np.arange(len(prev.terms), dtype=np.int64), np.diff(prev.ptr))
    new_docs = remap[prev.docs] if prev.docs.size else prev.docs.astype(np.int64)
    keep = new_docs >= 0
    terms = list(prev.terms)
    term_id = {t: n for n, t in enumerate(terms)}
    lengths = np.zeros(len(ids), dtype=np.float32)
    exact = np.zeros(len(ids), dtype=np.float32)
    moved = remap >= 0
    lengths[remap[moved]] = prev.lengths[moved]
    exact[remap[moved]] = prev.exact[moved]
    add_terms: list[int] = []
    add_docs: list[int] = []
    add_tfs: list[float] = []
    for ident, (weights, length) in fresh.items():
        n = position.get(ident)
        if n is None:
            continue
        for term, weight in weights.items():
            t = term_id.get(term)
            if t is None:
                t = term_id[term] = len(terms)
                terms.append(term)
            add_terms.append(t)
            add_docs.append(n)
            add_tfs.append(weight)
        lengths[n] = quantise(length)
        exact[n] = length
    kept_terms, kept_docs, kept_tfs = term_of[keep], new_docs[keep], prev.tfs[keep]
    new_terms = np.asarray(add_terms, dtype=np.int64)
    new_doc_nums = np.asarray(add_docs, dtype=np.int64)
    new_tfs = np.asarray(add_tfs, dtype=np.float32)
    kept_order = remap[moved]
    if bool(np.all(kept_order[1:] > kept_order[:-1])):
        # Records kept their relative order (the usual edit): the kept postings are still
        # sorted by (term, record), so the few new ones are merged in, not everything
        # re-sorted (a lexsort of the postings took ~25 ms of a one-record update at
        # 10,000 records).
        span = max(len(ids), 1)
        kept_key = kept_terms * span + kept_docs
        new_key = new_terms * span + new_doc_nums
        by_key = np.argsort(new_key, kind="stable")
        at = np.searchsorted(kept_key, new_key[by_key])
        all_terms = np.insert(kept_terms, at, new_terms[by_key])
        all_docs = np.insert(kept_docs, at, new_doc_nums[by_key])
        all_tfs = np.insert(kept_tfs, at, new_tfs[by_key])
    else:
        all_terms = np.concatenate([kept_terms, new_terms])
        all_docs = np.concatenate([kept_docs, new_doc_nums])
        all_tfs = np.concatenate([kept_tfs, new_tfs])
        order = np.lexsort((all_docs, all_terms))
        all_terms, all_docs, all_tfs = all_terms[order], all_docs[order], all_tfs[order]
    counts = np.bincount(all_terms, minlength=len(terms))
    ptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return Postings(
        tuple(terms),
        ptr,
        all_docs.astype(np.int32),
        all_tfs.astype(np.float32),
        lengths,
        exact,
    )


def _assemble(
    terms: list[str],
    counts: list[int],
    doc_parts: list[npt.NDArray[np.int64]],
    tf_parts: list[npt.NDArray[np.float32]],
    lengths: npt.NDArray[np.float32],
) -> Postings:
    ptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(np.asarray(counts, dtype=np.int64), out=ptr[1:])
    docs = np.concatenate(doc_parts).astype(np.int32) if doc_parts else np.zeros(0, np.int32)
    tfs = np.concatenate(tf_parts).astype(np.float32) if tf_parts else np.zeros(0, np.float32)
    # The exact length of a record is the sum of its weights: the field has no boosts,
    # so a posting's weight is its term frequency (Whoosh itself stores only a byte).
    exact = np.bincount(docs, weights=tfs, minlength=lengths.shape[0]).astype(np.float32)
    return Postings(tuple(terms), ptr, docs, tfs, lengths, exact)


def save(gen: Path, p: Postings) -> None:
    vocab = np.frombuffer("\n".join(p.terms).encode("utf-8"), dtype=np.uint8)
    tmp = gen / "bm25.tmp.npz"
    with open(tmp, "wb") as fh:
        np.savez(
            fh,
            terms=vocab,
            ptr=p.ptr,
            docs=p.docs,
            tfs=p.tfs,
            lengths=p.lengths,
            exact=p.exact,
        )
    os.replace(tmp, gen / FILE)


def load(gen: Path) -> Postings:
    with np.load(gen / FILE) as data:
        raw = data["terms"].tobytes().decode("utf-8")
        terms = tuple(raw.split("\n")) if raw else ()
        p = Postings(
            terms,
            data["ptr"].astype(np.int64),
            data["docs"].astype(np.int32),
            data["tfs"].astype(np.float32),
            data["lengths"].astype(np.float32),
            data["exact"].astype(np.float32),
        )
    if (
        p.ptr.shape[0] != len(terms) + 1
        or p.docs.shape != p.tfs.shape
        or p.lengths.shape != p.exact.shape
        or int(p.ptr[-1]) != p.docs.shape[0]
    ):
        raise ValueError(f"{gen / FILE}: inconsistent arrays")
    return p


class Scorer:
    """BM25 (Whoosh's BM25F formula) over :class:`Postings`."""

    def __init__(self, p: Postings, *, k1: float, b: float) -> None:
        self.p = p
        self.k1 = k1
        self._term_id = {t: n for n, t in enumerate(p.terms)}
        self._count = p.records
        # Whoosh: the total field length over the document count, or 1
        avg = float(p.exact.sum(dtype=np.float64)) / self._count if self._count else 0.0
        avg = avg or 1.0
        self._norm = (k1 * ((1.0 - b) + b * p.lengths / avg)).astype(np.float32)

    @property
    def records(self) -> int:
        return self._count

    def doc_frequency(self, term: str) -> int:
        t = self._term_id.get(term)
        return 0 if t is None else int(self.p.ptr[t + 1] - self.p.ptr[t])

    def scores(self, weighted: dict[str, float]) -> npt.NDArray[np.float32]:
        """One score per record: the sum over the terms of boost x idf x saturated tf."""
        out = np.zeros(self._count, dtype=np.float32)
        for term, boost in weighted.items():
            t = self._term_id.get(term)
            if t is None:
                continue
            start, end = int(self.p.ptr[t]), int(self.p.ptr[t + 1])
            if start == end:
                continue
            idf = math.log(self._count / (end - start + 1)) + 1.0
            docs = self.p.docs[start:end]
            tf = self.p.tfs[start:end]
            out[docs] += np.float32(boost * idf) * (tf * (self.k1 + 1)) / (tf + self._norm[docs])
        return out

    def top(
        self, weighted: dict[str, float], limit: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> list[tuple[int, float]]:
        """The best ``limit`` records (position, score), best first; ties by position."""
        s = self.scores(weighted)
        if allowed is not None:
            s = np.where(allowed, s, 0.0).astype(np.float32)
        hits = np.flatnonzero(s > 0)
        if hits.size > limit:
            part = np.argpartition(-s[hits], limit - 1)[:limit]
            hits = hits[part]
        order = np.lexsort((hits, -s[hits]))
        return [(int(hits[i]), float(s[hits[i]])) for i in order]
