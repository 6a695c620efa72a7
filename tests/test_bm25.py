"""The compiled keyword scorer gives Whoosh's own multi-field BM25F scores (with the
record's idf), after full and incremental builds (real Whoosh index, real git repository)."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
from conftest import decision, write

from gitmem import bm25, index
from gitmem.doctext import FIELDS
from gitmem.indexfiles import current_generation, read_meta
from gitmem.repo import discover
from gitmem.retrieve import BM25_B, BM25_K1

WORDS = [
    "billing",
    "ledger",
    "cents",
    "refunds",
    "kafka",
    "topics",
    "retention",
    "schema",
    "migration",
    "postgres",
    "locks",
    "retries",
    "backoff",
    "idempotency",
    "keys",
    "gateway",
    "routing",
    "tracing",
    "metrics",
    "export",
    "invoices",
    "webhooks",
    "signed",
    "urls",
    "timestamps",
    "utc",
    "protobuf",
    "grpc",
    "streaming",
    "cache",
    "eviction",
]


def corpus(root: Path, n: int, seed: int) -> None:
    rnd = random.Random(seed)
    for i in range(1, n + 1):
        title = " ".join(rnd.sample(WORDS, 3)).capitalize()
        body = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(5, 60)))
        tags = rnd.sample(WORDS, rnd.randint(0, 2))
        decision(
            root,
            f"{i:04d}-r.md",
            title,
            globs=[f"svc{i % 7}/**"],
            extra=f"tags: [{', '.join(tags)}]\n",
            body=f"## Decision\n\n{body}.\n",
        )


def whoosh_scores(gen: Path, weighted: dict[str, float]) -> dict[str, float]:
    """Whoosh's searcher: each query word in every field, its BM25F summed over the fields,
    with one change gitmem makes: the idf counts the records holding the word in any field."""
    from whoosh import index as windex
    from whoosh import query as wq
    from whoosh import scoring

    class RecordIdf(scoring.BM25F):  # type: ignore[misc]
        def scorer(self, searcher: Any, fieldname: str, text: bytes, qf: int = 1) -> Any:
            scorer = super().scorer(searcher, fieldname, text, qf)
            holders: set[int] = set()
            for name in FIELDS:
                if (name, text) in searcher.reader():
                    holders.update(searcher.reader().postings(name, text).all_ids())
            scorer.idf = math.log(searcher.doc_count_all() / (len(holders) + 1)) + 1.0
            return scorer

    ix = windex.open_dir(str(gen / "whoosh"))
    try:
        with ix.searcher(weighting=RecordIdf(B=BM25_B, K1=BM25_K1)) as s:
            q = wq.Or([wq.Term(f, w, boost=b) for w, b in weighted.items() for f in FIELDS])
            return {hit["id"]: float(hit.score) for hit in s.search(q, limit=None)}
    finally:
        ix.close()


def compiled_scores(gen: Path, weighted: dict[str, float]) -> dict[str, float]:
    meta = read_meta(gen)
    assert meta is not None
    scorer = bm25.Scorer(bm25.load(gen), k1=BM25_K1, b=BM25_B)
    scores = scorer.scores(weighted)
    return {ident: float(scores[n]) for n, ident in enumerate(meta["ids"]) if scores[n] > 0}


def queries(seed: int) -> list[dict[str, float]]:
    rnd = random.Random(seed)
    analyzer = bm25.analyzer()
    out = []
    for _ in range(25):
        weighted: dict[str, float] = {}
        for word in rnd.sample(WORDS, rnd.randint(1, 6)):
            for token in analyzer(word):
                weighted[token.text] = rnd.choice([0.5, 1.0, 2.0])
        out.append(weighted)
    return out


def assert_same(a: dict[str, float], b: dict[str, float]) -> None:
    assert a.keys() == b.keys()
    for ident in a:
        assert abs(a[ident] - b[ident]) <= 1e-4 * max(1.0, abs(b[ident])), ident


def test_compiled_scores_are_whooshs(repo: Path) -> None:
    corpus(repo, 80, seed=3)
    r = discover(repo)
    index.build(r)
    gen = current_generation(r)
    assert gen is not None and (gen / bm25.FILE).is_file()
    for weighted in queries(5):
        expected = whoosh_scores(gen, weighted)
        assert expected, weighted  # the queries do match something
        assert_same(compiled_scores(gen, weighted), expected)


def test_incremental_postings_equal_a_full_build(repo: Path) -> None:
    corpus(repo, 60, seed=4)
    r = discover(repo)
    index.build(r)
    ddir = repo / ".continuity" / "decisions"
    (ddir / "0007-r.md").write_text((ddir / "0007-r.md").read_text() + "\nkafka kafka zebra.\n")
    (ddir / "0012-r.md").unlink()
    decision(repo, "0099-new.md", "Brand new quokka rule", body="## Decision\n\nquokka cache.\n")
    report = index.build(r)
    assert report.reindexed == 2 and report.removed == 1
    inc = current_generation(r)
    assert inc is not None
    cases = [*queries(6), {"zebra": 1.0}, {"quokka": 2.0, "kafka": 1.0}]
    incremental = [compiled_scores(inc, weighted) for weighted in cases]
    assert incremental[-2] and "D-0012" not in str(incremental)
    index.build(r, full=True)
    full = current_generation(r)
    assert full is not None and full != inc
    for weighted, got in zip(cases, incremental, strict=True):
        assert_same(got, compiled_scores(full, weighted))
        # and both are what Whoosh says about the full index
        assert_same(compiled_scores(full, weighted), whoosh_scores(full, weighted))


def test_top_ranks_by_score_then_position_and_honours_allowed() -> None:
    lengths = np.full((len(FIELDS), 3), 4.0, dtype=np.float32)
    p = bm25.Postings(
        ("a", "b"),
        np.array([0, 3, 4], dtype=np.int64),
        np.array([0, 1, 2, 2], dtype=np.int32),
        np.full(4, FIELDS.index("body"), dtype=np.int8),
        np.array([1.0, 1.0, 3.0, 1.0], dtype=np.float32),
        np.array([3, 1], dtype=np.int32),
        lengths,
        lengths.copy(),
    )
    s = bm25.Scorer(p, k1=1.2, b=0.75)
    top = s.top({"a": 1.0, "b": 1.0}, 10)
    assert [n for n, _ in top] == [2, 0, 1]
    assert top[1][1] == top[2][1]
    assert [n for n, _ in s.top({"a": 1.0}, 1)] == [2]
    assert [n for n, _ in s.top({"a": 1.0}, 10, np.array([True, False, True]))] == [2, 0]
    assert s.top({"zzz": 1.0}, 5) == [] and s.doc_frequency("a") == 3


def test_a_long_body_does_not_dilute_a_title_match(repo: Path) -> None:
    """Each field is saturated and length-normalised on its own: two records whose titles
    name the word score the same for it however long their bodies are. In one field of
    repeated text (before session 9) the record with the long body scored 0.39 of the
    other (1.30 against 3.32), below the record with the word only in its body. The idf
    counts records, not fields: a word in one record's title and another's body is in
    two."""
    filler = " ".join(WORDS[:20])

    def record(name: str, title: str, body: str) -> None:  # no H1: the title only once
        write(repo, f".continuity/decisions/{name}", f"---\ntitle: {title}\n---\n{body}\n")

    record("0001-a.md", "Quokka retention", filler)
    record("0002-b.md", "Quokka routing", " ".join([filler] * 25))
    record("0003-c.md", "Ledger cents", f"{filler} quokka")
    for i in range(4, 10):
        record(f"{i:04d}-x.md", f"Other {i}", filler)
    r = discover(repo)
    index.build(r)
    gen = current_generation(r)
    assert gen is not None
    got = compiled_scores(gen, {"quokka": 1.0})
    assert got.keys() == {"D-0001", "D-0002", "D-0003"}
    assert abs(got["D-0001"] - got["D-0002"]) <= 1e-5 * got["D-0001"]
    assert got["D-0001"] > got["D-0003"]
    assert bm25.Scorer(bm25.load(gen), k1=BM25_K1, b=BM25_B).doc_frequency("quokka") == 3


def postings_map(p: bm25.Postings, ids: list[str]) -> dict[tuple[str, str], dict[str, float]]:
    """(term, field) -> {record id: weight}, asserting each term's postings run in
    (record, field) order and its df counts its records."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    for t, term in enumerate(p.terms):
        docs = p.docs[p.ptr[t] : p.ptr[t + 1]].astype(np.int64)
        fields = p.fields[p.ptr[t] : p.ptr[t + 1]].astype(np.int64)
        assert bool(np.all(np.diff(docs * len(FIELDS) + fields) > 0)), term
        assert int(p.df[t]) == len(set(docs.tolist())), term
        tfs = p.tfs[p.ptr[t] : p.ptr[t + 1]]
        for d, f, w in zip(docs.tolist(), fields.tolist(), tfs.tolist(), strict=True):
            out.setdefault((term, FIELDS[f]), {})[ids[d]] = float(w)
    return out


def test_update_merges_in_order_and_handles_reordered_records() -> None:
    """Both ways ``update`` places new postings (merged into the sorted ones when records
    keep their order, re-sorted when they move) give what indexing from scratch gives."""
    rnd = random.Random(9)
    fields = index._keyword_fields()

    def words(lo: int, hi: int) -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(lo, hi)))

    texts = {f"r{i}": [words(1, 4), words(0, 2), "", "", words(3, 30)] for i in range(40)}
    empty = bm25.update(bm25.empty(), [], [], {})

    def scratch(ids: list[str]) -> bm25.Postings:
        return bm25.update(empty, [], ids, {i: bm25.analyse(fields, texts[i]) for i in ids})

    first_ids = sorted(texts)
    first = scratch(first_ids)
    texts["r3"][4] += " zebra cache"
    texts["r5"][0] = "zebra " + texts["r5"][0]
    texts["r99"] = ["kafka quokka", "", "", "retention", "kafka"]
    for ids in [
        [i for i in first_ids if i != "r7"] + ["r99"],  # order kept
        list(reversed(first_ids)),  # every record moved
    ]:
        changed = {i: bm25.analyse(fields, texts[i]) for i in ("r3", "r5", "r99") if i in ids}
        got = bm25.update(first, first_ids, ids, changed)
        want = scratch(ids)
        assert postings_map(got, ids) == postings_map(want, ids)
        assert np.array_equal(got.lengths, want.lengths) and np.array_equal(got.exact, want.exact)
        assert ("zebra", "title") in postings_map(got, ids)
