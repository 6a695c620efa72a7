"""What the retrieval experiments share: the development sets they measure, and the line
each prints per set (nothing in gitmem imports this)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import retrieval  # benchmarks/retrieval.py

# each set with a prompt and the touched paths, and the real-ADR sets with the paths alone
SETS = [
    ("continuity/paydash-api", False),
    ("continuity/data-pipeline", False),
    ("real-adr/celestiaorg__celestia-app", False),
    ("real-adr/informalsystems__apalache", False),
    ("real-adr/celestiaorg__celestia-app", True),
    ("real-adr/informalsystems__apalache", True),
]
BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench"


def run_sets(bench: Path, only: str = "", extra: Callable[[], str] = str) -> None:
    """Evaluate each set (those whose name holds ``only``) and print one line for it, with
    what ``extra`` says after the set's run (called before it too, to reset its counts)."""
    for name, paths_only in SETS:
        if only and only not in name:
            continue
        extra()
        r = retrieval.evaluate(bench / name, paths_only)
        mode = "paths only" if paths_only else "prompt + paths"
        print(f"{name:40s} {mode:15s} n={r['n']} hit@1={r['hit@1']:.4f} "
              f"hit@5={r['hit@5']:.4f} MRR={r['mrr']:.4f} p50={r['p50_ms']}ms {extra()}",
              flush=True)  # fmt: skip
