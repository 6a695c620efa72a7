"""Session 31's title-phrase ranker, measured on the development sets and not kept (README:
Retrieval quality). Kept so the numbers can be reproduced; nothing in gitmem imports it.

A sequential-dependence signal: for each candidate the other rankers found, the number of
adjacent word pairs of the prompt (stopwords out, a plural ``s`` folded) that occur
adjacent in its title, fused as a fourth reciprocal-rank ranker.

    GITMEM_EMBED_MODEL_DIR=... python benchmarks/experiments/title_phrase.py [--weight W]
        [--pairs-from prompt|both] [--field title|titlesum] [--bench ../shared/bench]

``--weight 0`` reproduces the README's table.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from devsets import BENCH, run_sets

from gitmem import entities
from gitmem import retrieve as rt


def _norm(word: str) -> str:
    word = word.lower()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def _words(text: str) -> list[str]:
    return [
        _norm(w)
        for w in re.findall(r"[^\W_]+", text)
        if w.lower() not in entities.STOPWORDS and len(w) > 1
    ]


def _pairs(words: list[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in itertools.pairwise(words) if a != b}


def patch(weight: float, pairs_from: str, field: str) -> None:
    original_retrieve = rt.Retriever.retrieve
    original_fuse = rt.Retriever._fuse
    query: dict[str, set[tuple[str, str]]] = {"pairs": set()}

    def retrieve(self: rt.Retriever, prompt: str = "", paths: Any = (), **kw: Any) -> Any:
        pairs = _pairs(_words(prompt))
        if pairs_from == "both":
            for p in paths:
                pairs |= _pairs([_norm(w) for w in entities.split_words(p)])
        query["pairs"] = pairs
        return original_retrieve(self, prompt, paths, **kw)

    def fuse(self: rt.Retriever, runs: Any, globs: Any, k: int, allowed: Any = None) -> Any:
        if weight and query["pairs"]:
            found = {i for ranked in runs.values() for i, _ in ranked}
            scored = []
            for ident, e in self.table.get_many(list(found)).items():
                if e is None:
                    continue
                text = e.title + (" " + e.summary if field == "titlesum" else "")
                n = len(query["pairs"] & _pairs(_words(text)))
                if n:
                    scored.append((ident, float(n)))
            scored.sort(key=lambda kv: -kv[1])
            runs = {**runs, "phrase": scored}
            rt.WEIGHTS["phrase"] = weight
        return original_fuse(self, runs, globs, k, allowed)

    rt.Retriever.retrieve = retrieve  # type: ignore[method-assign]
    rt.Retriever._fuse = fuse  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weight", type=float, default=0.5)
    ap.add_argument("--pairs-from", choices=["prompt", "both"], default="prompt")
    ap.add_argument("--field", choices=["title", "titlesum"], default="title")
    ap.add_argument("--bench", type=Path, default=BENCH)
    args = ap.parse_args()
    patch(args.weight, args.pairs_from, args.field)
    run_sets(args.bench)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
