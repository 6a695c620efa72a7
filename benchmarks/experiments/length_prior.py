"""Session 72's record-length prior, measured on the development sets and not kept
(docs/retrieval-experiments.md). Kept so the numbers can be reproduced; nothing in gitmem
imports it.

Long, foundational ADRs take rank 1 from the specific one in celestia-app's misses. Here
each fused score is multiplied by (the record file's size / the candidates' median
size) ** -alpha before the final order.

    GITMEM_EMBED_MODEL_DIR=... python benchmarks/experiments/length_prior.py [--alpha A]
        [--bench ../shared/bench]

``--alpha 0`` reproduces the README's table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from devsets import BENCH, run_sets

from gitmem import retrieve as rt


def patch(alpha: float) -> None:
    original = rt.Retriever._fuse

    def fuse(self: rt.Retriever, runs: Any, globs: Any, k: int, allowed: Any = None) -> Any:
        whole = original(self, runs, globs, 1 << 30, allowed)
        root = str(self.repo.root)
        size: dict[str, float] = {}
        for ident, e in self.table.get_many([h.id for h in whole.hits]).items():
            size[ident] = float(os.path.getsize(os.path.join(root, e.file))) if e else 4000.0
        median = statistics.median(size.values()) if size else 1.0
        score = {h.id: h.score * (size[h.id] / median) ** -alpha for h in whole.hits}
        hits = sorted(whole.hits, key=lambda h: (-score[h.id], rt._order(h)))
        hits = self._successors_first(hits, allowed)
        return rt.Result(tuple(hits[:k]), len(hits), whole.rankers, whole.warnings)

    rt.Retriever._fuse = fuse  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--bench", type=Path, default=BENCH)
    args = ap.parse_args()
    if args.alpha:
        patch(args.alpha)
    run_sets(args.bench)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
