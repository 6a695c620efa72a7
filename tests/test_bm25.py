"""The compiled keyword scorer gives Whoosh's own BM25F scores, after full and incremental
builds (real Whoosh index, real git repository)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
from conftest import decision

from gitmem import bm25, index
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
    from whoosh import index as windex
    from whoosh import query as wq
    from whoosh import scoring

    ix = windex.open_dir(str(gen / "whoosh"))
    try:
        with ix.searcher(weighting=scoring.BM25F(B=BM25_B, K1=BM25_K1)) as s:
            q = wq.Or([wq.Term("content", w, boost=b) for w, b in weighted.items()])
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
    p = bm25.Postings(
        ("a", "b"),
        np.array([0, 3, 4], dtype=np.int64),
        np.array([0, 1, 2, 2], dtype=np.int32),
        np.array([1.0, 1.0, 3.0, 1.0], dtype=np.float32),
        np.array([4.0, 4.0, 4.0], dtype=np.float32),
        np.array([4.0, 4.0, 4.0], dtype=np.float32),
    )
    s = bm25.Scorer(p, k1=1.2, b=0.75)
    top = s.top({"a": 1.0, "b": 1.0}, 10)
    assert [n for n, _ in top] == [2, 0, 1]
    assert top[1][1] == top[2][1]
    assert [n for n, _ in s.top({"a": 1.0}, 1)] == [2]
    assert [n for n, _ in s.top({"a": 1.0}, 10, np.array([True, False, True]))] == [2, 0]
    assert s.top({"zzz": 1.0}, 5) == [] and s.doc_frequency("a") == 3


def postings_map(p: bm25.Postings, ids: list[str]) -> dict[str, dict[str, float]]:
    """term -> {record id: weight}, asserting each term's postings run in record order."""
    out: dict[str, dict[str, float]] = {}
    for t, term in enumerate(p.terms):
        docs = p.docs[p.ptr[t] : p.ptr[t + 1]]
        assert bool(np.all(np.diff(docs) > 0)), term
        if docs.size:
            tfs = p.tfs[p.ptr[t] : p.ptr[t + 1]]
            out[term] = {ids[d]: float(w) for d, w in zip(docs.tolist(), tfs.tolist(), strict=True)}
    return out


def test_update_merges_in_order_and_handles_reordered_records() -> None:
    """Both ways ``update`` places new postings (merged into the sorted ones when records
    keep their order, re-sorted when they move) give what indexing from scratch gives."""
    rnd = random.Random(9)
    field = index._schema()["content"]
    texts = {
        f"r{i}": " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 30))) for i in range(40)
    }
    empty = bm25.update(
        bm25.Postings(
            (),
            np.zeros(1, np.int64),
            np.zeros(0, np.int32),
            np.zeros(0, np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.float32),
        ),
        [],
        [],
        {},
    )

    def scratch(ids: list[str]) -> bm25.Postings:
        return bm25.update(empty, [], ids, {i: bm25.analyse(field, texts[i]) for i in ids})

    first_ids = sorted(texts)
    first = scratch(first_ids)
    texts["r3"] += " zebra cache"
    texts["r5"] = "zebra " + texts["r5"]
    texts["r99"] = "kafka quokka retention"
    for ids in [
        [i for i in first_ids if i != "r7"] + ["r99"],  # order kept
        list(reversed(first_ids)),  # every record moved
    ]:
        changed = {i: bm25.analyse(field, texts[i]) for i in ("r3", "r5", "r99") if i in ids}
        got = bm25.update(first, first_ids, ids, changed)
        want = scratch(ids)
        assert postings_map(got, ids) == postings_map(want, ids)
        assert np.array_equal(got.lengths, want.lengths) and np.array_equal(got.exact, want.exact)
