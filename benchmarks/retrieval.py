"""Retrieval quality on the shared benchmark sets, through the same entry point the hooks use.

    python benchmarks/retrieval.py --dataset ../shared/bench/real-adr/celestiaorg__celestia-app
    python benchmarks/retrieval.py --dataset DIR --paths-only --json

Accepts both formats in ../shared/bench (read its README for the protocol):

* continuity: ``decisions.json`` + ``queries.json``; prompt = ``text``, paths =
  ``touched_paths``, scored on ``relevant``.
* real-adr: ``decisions.json`` + ``cases.json`` + ``files.txt``. The temporary repository
  holds every path of ``files.txt`` and the ADRs at their own paths; ``gitmem init``
  detects the ADR folder and reads it in place, inferring globs as for any user (a folder
  it does not recognise is named to it, as ``--adr-dir`` does, and said on stderr). Prompt =
  ``message_redacted``, paths = ``changed_paths``; only cases with ``relevant_preexisting``
  count, and candidates are the ADRs whose ``git_first_commit_date`` is on or before the
  case's ``date``.

Prints n, hit@1, hit@5, MRR (first relevant id within the top 10, else 0) and the median
query latency (in-process, the index and model already loaded: what the warm daemon does).
``--light`` answers as the prompt hook does when no daemon answers (path + FTS5, no model).
Set GITMEM_EMBED_MODEL_DIR for the embedding ranker (see `gitmem model assemble`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath
from typing import Any

from gitmem import adrimport, index, init
from gitmem import git as gitmem_git
from gitmem.repo import discover
from gitmem.retrieve import Retriever

GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)


def yaml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def build_continuity(root: Path, data: Path) -> tuple[list[dict[str, Any]], dict[str, str]]:
    decisions = json.loads((data / "decisions.json").read_text())
    queries = json.loads((data / "queries.json").read_text())
    ddir = root / ".continuity" / "decisions"
    ddir.mkdir(parents=True)
    for n, d in enumerate(decisions, start=1):
        status = d.get("status") or "accepted"  # `active` is a status alias gitmem reads
        lines = [
            "---",
            f"id: {d['id']}",
            f"title: {yaml_str(d['title'])}",
            f"status: {status}",
            f"tags: {json.dumps(d.get('tags') or [])}",
            f"globs: {json.dumps(d.get('globs') or [])}",
        ]
        if d.get("date"):
            lines.append(f"date: {str(d['date'])[:10]}")
        # a link may be given from either side (or both): the records say it as given
        for key in ("supersedes", "superseded_by"):
            if d.get(key):
                ids = d[key] if isinstance(d[key], list) else [d[key]]
                lines.append(f"{key}: {json.dumps(ids)}")
        lines += ["---", f"# {d['title']}", "", "## Decision", "", d.get("rationale") or "", ""]
        (ddir / f"{n:04d}-{d['id']}.md").write_text("\n".join(lines))
    for q in queries:
        for p in q.get("touched_paths") or []:
            target = root / p
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
    cases = [
        {
            "id": q["id"],
            "prompt": q["text"],
            "paths": q.get("touched_paths") or [],
            "relevant": q["relevant"],
            "allowed": None,
            "kind": q.get("kind"),
        }
        for q in queries
        if q.get("relevant")
    ]
    return cases, {d["id"]: d["id"] for d in decisions}


def _date(text: str) -> dt.datetime:
    when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def build_real_adr(root: Path, data: Path) -> tuple[list[dict[str, Any]], dict[str, str]]:
    decisions = json.loads((data / "decisions.json").read_text())
    cases = json.loads((data / "cases.json").read_text())
    for rel in (data / "files.txt").read_text().splitlines():
        rel = rel.strip()
        if not rel or rel.startswith("/") or ".." in rel.split("/"):
            continue
        target = root / rel
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    for d in decisions:
        target = root / d["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(d["body"])
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "snapshot")
    # A log in a folder that detection does not recognise is named, as a user would with
    # `gitmem init --adr-dir` (said on stderr: it means detection missed a real ADR log).
    found = adrimport.detect(root, gitmem_git.ls_files(root))
    missing = sorted(
        {
            str(PurePosixPath(d["path"]).parent)
            for d in decisions
            if not any(d["path"].startswith(f + "/") for f in found)
        }
    )
    if missing:
        print(f"gitmem init did not find {', '.join(missing)}: --adr-dir", file=sys.stderr)
    report = init.init(discover(root), adr_dirs=[str(root / m) for m in missing])
    if not report.sources_added:
        raise SystemExit(f"gitmem init found no ADR folder in {data}")
    # bench id <- our record file
    by_path = {d["path"]: d for d in decisions}
    out = []
    for c in cases:
        if not c.get("relevant_preexisting"):
            continue
        # a case without a date restricts nothing; an ADR without its first commit's date
        # is not known to have existed before any case
        when = _date(c["date"]) if c.get("date") else None
        allowed_paths = {
            d["path"]
            for d in decisions
            if when is None
            or (d.get("git_first_commit_date") and _date(d["git_first_commit_date"]) <= when)
        }
        out.append(
            {
                "id": c["id"],
                "prompt": c["message_redacted"],
                "paths": c["changed_paths"],
                "relevant": c["relevant_preexisting"],
                "allowed_paths": allowed_paths,
            }
        )
    return out, {p: d["id"] for p, d in by_path.items()}


def evaluate(
    dataset: Path, paths_only: bool, keep: bool = False, light: bool = False
) -> dict[str, Any]:
    real = (dataset / "cases.json").is_file()
    tmp = Path(tempfile.mkdtemp(prefix="gitmem-retrieval-"))
    try:
        root = tmp / "repo"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        cases, to_bench = build_real_adr(root, dataset) if real else build_continuity(root, dataset)
        repo = discover(root)
        # the index as `gitmem index` builds it (its bulk configuration), the queries as the
        # daemon answers them
        builder = index.resolve_embedder(repo, allow_download=False, one_shot=True, bulk=True)
        index.build(repo, embedder=builder.embedder)
        del builder
        resolution = index.resolve_embedder(repo, allow_download=False)
        if resolution.warning:
            print(f"warning: {resolution.warning}", file=sys.stderr)
        # light: what the prompt hook answers when no daemon does (path + FTS5, no model)
        retriever = Retriever.open(
            repo, embedder=None if light else resolution.embedder, light=light
        )
        file_to_id = {e.file: e.id for e in retriever.table.entries()}
        ours_to_bench = {
            ours: to_bench.get(file, ours) if real else ours for file, ours in file_to_id.items()
        }
        hit1 = hit5 = 0
        rr = 0.0
        latencies = []
        details = []
        for case in cases:
            allowed = None
            if real:
                allowed = {file_to_id[p] for p in case["allowed_paths"] if p in file_to_id}
            prompt = "" if paths_only else case["prompt"]
            t0 = time.perf_counter()
            result = retriever.retrieve(prompt, case["paths"], k=10, allowed=allowed)
            latencies.append((time.perf_counter() - t0) * 1000)
            ranked = [ours_to_bench.get(h.id, h.id) for h in result.hits]
            relevant = set(case["relevant"])
            first = next((i for i, r in enumerate(ranked, start=1) if r in relevant), None)
            hit1 += int(first == 1)
            hit5 += int(first is not None and first <= 5)
            rr += 1.0 / first if first is not None else 0.0
            details.append(
                {"id": case["id"], "rank": first, "top": ranked[:5], "relevant": sorted(relevant)}
            )
        retriever.close()
        n = len(cases)
        return {
            "dataset": dataset.name,
            "mode": ("paths-only" if paths_only else "prompt+paths") + (", light" if light else ""),
            "rankers": list(retriever.rankers),
            "n": n,
            "hit@1": round(hit1 / n, 4) if n else 0.0,
            "hit@5": round(hit5 / n, 4) if n else 0.0,
            "mrr": round(rr / n, 4) if n else 0.0,
            "p50_ms": round(statistics.median(latencies), 2) if latencies else 0.0,
            "details": details,
        }
    finally:
        if keep:
            print(f"kept the repository at {tmp / 'repo'}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description="Retrieval benchmark (hit@1, hit@5, MRR, p50).")
    ap.add_argument(
        "--dataset",
        required=True,
        type=Path,
        action="append",
        help="a benchmark folder (repeat for several)",
    )
    ap.add_argument("--paths-only", action="store_true", help="no prompt text, only the paths")
    ap.add_argument("--json", action="store_true", help="one JSON object per dataset")
    ap.add_argument("--details", action="store_true", help="print each case's rank")
    ap.add_argument("--keep", action="store_true", help="keep the temporary repository")
    ap.add_argument(
        "--light",
        action="store_true",
        help="the agent hooks' fallback when no daemon answers: path + FTS5, no model",
    )
    ap.add_argument(
        "--weights", default=None, help="ranker weights for experiments, e.g. path=1,bm25=1,embed=0"
    )
    args = ap.parse_args()
    for ds in args.dataset:
        # either format of ../shared/bench: real-adr (cases.json) or continuity (queries.json)
        if not (
            (ds / "decisions.json").is_file()
            and any((ds / name).is_file() for name in ("cases.json", "queries.json"))
        ):
            ap.error(
                f"--dataset {ds}: not a benchmark folder (no decisions.json with cases.json"
                " or queries.json)"
            )
    if args.weights:
        from gitmem import retrieve

        for item in args.weights.split(","):
            name, value = item.split("=")
            retrieve.WEIGHTS[name] = float(value)
    for ds in args.dataset:
        res = evaluate(ds.resolve(), args.paths_only, args.keep, args.light)
        if args.json:
            keys = ("n", "hit@1", "hit@5", "mrr", "p50_ms")
            print(json.dumps({k: res[k] for k in keys}))
            continue
        print(
            f"{res['dataset']} ({res['mode']}, rankers: {'+'.join(res['rankers'])}): "
            f"n={res['n']} hit@1={res['hit@1']:.2f} hit@5={res['hit@5']:.2f} "
            f"MRR={res['mrr']:.2f} p50={res['p50_ms']:.1f} ms"
        )
        if args.details:
            for d in res["details"]:
                mark = (
                    "ok "
                    if d["rank"] == 1
                    else ("top5" if d["rank"] and d["rank"] <= 5 else "MISS")
                )
                print(
                    f"  {mark} {d['id']}: rank={d['rank']} relevant={d['relevant']} top={d['top']}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
