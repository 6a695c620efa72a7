"""Session 66's history rankers, measured on the real-ADR development sets and not kept
(docs/retrieval-experiments.md). Kept so the numbers can be reproduced; nothing in gitmem
imports it.

A git-native signal: the commits that cited an ADR in their message, or changed it along
with code, say which paths it governs and how people describe work under it. For each
case, the earlier cases of the same set (strictly older; the cases are exactly the
ADR-linked commits of the project's mainline) stand in for that history:

* ``hpath``: the touched paths against the paths those commits changed, by the most
  specific match (the file, else its nearest folder), each weighted by its inverse
  frequency over the decisions, a folder discounted by its distance;
* ``htext``: BM25 of the prompt over each decision's earlier commit messages (redacted).

Each is fused as a further reciprocal-rank ranker.

    GITMEM_EMBED_MODEL_DIR=... python benchmarks/experiments/history.py [--wpath W]
        [--wtext W] [--max-linked N] [--bench ../shared/bench]

``--wpath 0 --wtext 0`` reproduces the README's table.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from devsets import BENCH, retrieval, run_sets

from gitmem import entities
from gitmem import retrieve as rt

STATE: dict[str, Any] = {"queue": [], "all": [], "path_of": {}}
_build = retrieval.build_real_adr


def _build_keeping_cases(root: Path, data: Path) -> Any:
    """The benchmark's own build, remembering each evaluated case whole, in order."""
    cases, to_bench = _build(root, data)
    raw = {c["id"]: c for c in json.loads((data / "cases.json").read_text())}
    STATE["path_of"] = {
        d["id"]: d["path"] for d in json.loads((data / "decisions.json").read_text())
    }
    STATE["all"] = list(raw.values())
    STATE["queue"] = [raw[c["id"]] for c in cases]
    return cases, to_bench


def _words(text: str) -> list[str]:
    return [
        w
        for w in (x.lower() for x in re.findall(r"[^\W_]+", text))
        if w not in entities.STOPWORDS and len(w) > 1
    ]


def _folders(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[:i]) + "/" for i in range(1, len(parts) + 1)]


def _rank_paths(history: dict[str, Counter[str]], paths: Any) -> list[tuple[str, float]]:
    n = max(1, len(history))
    df = Counter(key for keys in history.values() for key in keys)
    scores = {}
    for ident, keys in history.items():
        score = 0.0
        for q in paths:
            for distance, key in enumerate([q, *reversed(_folders(q))]):
                if key in keys:
                    score += math.log(1 + n / df[key]) / (1 + distance)
                    break
        if score:
            scores[ident] = score
    return sorted(scores.items(), key=lambda kv: -kv[1])


def _rank_text(messages: dict[str, list[str]], prompt: str) -> list[tuple[str, float]]:
    query = set(_words(prompt))
    docs = {i: Counter(_words(" ".join(m))) for i, m in messages.items()}
    if not query or not docs:
        return []
    avg = sum(sum(d.values()) for d in docs.values()) / len(docs)
    df = Counter(w for d in docs.values() for w in d)
    scores = {}
    for ident, doc in docs.items():
        length, score = sum(doc.values()), 0.0
        for w in query:
            tf = doc.get(w, 0)
            if tf:
                idf = math.log(1 + (len(docs) - df[w] + 0.5) / (df[w] + 0.5))
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg))
        if score:
            scores[ident] = score
    return sorted(scores.items(), key=lambda kv: -kv[1])


def patch(wpath: float, wtext: float, max_linked: int) -> None:
    retrieval.build_real_adr = _build_keeping_cases
    original_retrieve = rt.Retriever.retrieve
    original_fuse = rt.Retriever._fuse
    runs_for_case: dict[str, list[tuple[str, float]]] = {}

    def retrieve(self: rt.Retriever, prompt: str = "", paths: Any = (), **kw: Any) -> Any:
        runs_for_case.clear()
        case = STATE["queue"].pop(0) if STATE["queue"] else None
        if case is not None:
            file_to_id = {e.file: e.id for e in self.table.entries()}
            history: dict[str, Counter[str]] = defaultdict(Counter)
            messages: dict[str, list[str]] = defaultdict(list)
            for earlier in STATE["all"]:
                linked = earlier.get("relevant") or []
                if earlier["date"] >= case["date"] or len(linked) > max_linked:
                    continue
                for bench_id in linked:
                    ours = file_to_id.get(STATE["path_of"].get(bench_id, ""))
                    if not ours:
                        continue
                    for f in earlier["changed_paths"]:
                        history[ours].update([f, *_folders(f)])
                    messages[ours].append(earlier["message_redacted"])
            runs_for_case["hpath"] = _rank_paths(history, paths)
            runs_for_case["htext"] = _rank_text(messages, prompt)
        return original_retrieve(self, prompt, paths, **kw)

    def fuse(self: rt.Retriever, runs: Any, globs: Any, k: int, allowed: Any = None) -> Any:
        runs = dict(runs)
        for name, weight in (("hpath", wpath), ("htext", wtext)):
            ranked = [(i, s) for i, s in runs_for_case.get(name, []) if not allowed or i in allowed]
            if weight and ranked:
                runs[name] = ranked[: rt.RANKER_DEPTH]
                rt.WEIGHTS[name] = weight
        return original_fuse(self, runs, globs, k, allowed)

    rt.Retriever.retrieve = retrieve  # type: ignore[method-assign]
    rt.Retriever._fuse = fuse  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wpath", type=float, default=0.25)
    ap.add_argument("--wtext", type=float, default=0.0)
    ap.add_argument("--max-linked", type=int, default=99, help="skip commits linked to more ADRs")
    ap.add_argument("--bench", type=Path, default=BENCH)
    args = ap.parse_args()
    patch(args.wpath, args.wtext, args.max_linked)
    run_sets(args.bench, "real-adr")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
