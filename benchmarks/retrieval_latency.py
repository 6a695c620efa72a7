"""Retrieval latency and index build time on synthetic repositories.

    python benchmarks/retrieval_latency.py [--sizes 1000,10000] [--queries 40] [--json]

For each size: full index build (keyword + embeddings), one-record updates (in this process,
by the daemon's own code, as `gitmem watch` does after an edit: the re-index, and with the
retriever reopened on the new index; and by a fresh `gitmem index` process), and the query
latency three ways, side by side in one run: in-process (index and model loaded: what the
daemon does per request), through the warm daemon (a client round trip on the Unix socket),
and cold (`gitmem search` as a fresh process, without and with the daemon), next to
`python -c pass`. Needs GITMEM_EMBED_MODEL_DIR for the embedding parts.

When the build ran on OpenVINO (`gitmem[openvino]`, see gitmem.ovrun), the same build from
scratch is run again on onnxruntime right after it ("on onnxruntime": a `gitmem index`
process, ~0.5 s of imports included), so the two compare in one run.

Embedding is ~90% of a build, and the model's speed on these shared machines varied by half
within an hour; "model batch" (one fixed batch on one core, just before the build) says how
fast the machine ran the model, so builds from different runs can be compared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import median_ms

from gitmem import client, index
from gitmem import compile as compiler
from gitmem.daemon import Daemon
from gitmem.indexfiles import index_dir
from gitmem.repo import discover

TOPICS = [
    "billing",
    "ledger",
    "auth",
    "session",
    "cache",
    "queue",
    "search",
    "export",
    "import",
    "payments",
    "refunds",
    "invoices",
    "webhooks",
    "audit",
    "metrics",
    "tracing",
    "storage",
    "schema",
    "migration",
    "gateway",
    "routing",
    "pricing",
]
VERBS = ["must", "should", "never", "always", "only"]
NOUNS = [
    "integer cents",
    "idempotency keys",
    "retries with backoff",
    "structured logs",
    "feature flags",
    "read replicas",
    "event sourcing",
    "rate limits",
    "timeouts",
    "circuit breakers",
    "background jobs",
    "signed URLs",
    "UTC timestamps",
    "UUIDv7 ids",
    "protobuf messages",
    "JSON over HTTP",
    "gRPC streaming",
    "Postgres advisory locks",
]


def make_repo(root: Path, n: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    ddir = root / ".continuity" / "decisions"
    ddir.mkdir(parents=True)
    services = max(1, n // 20)
    for i in range(1, n + 1):
        topic = rnd.choice(TOPICS)
        noun = rnd.choice(NOUNS)
        svc = i % services
        title = f"{topic.capitalize()} {rnd.choice(VERBS)} use {noun} (service {svc})"
        body = " ".join(
            f"The {topic} code in service {svc} {rnd.choice(VERBS)} rely on {rnd.choice(NOUNS)}"
            f" because of {rnd.choice(TOPICS)} constraints."
            for _ in range(rnd.randint(2, 6))
        )
        (ddir / f"{i:05d}-d{i}.md").write_text(
            "---\n"
            f"title: {json.dumps(title)}\nstatus: accepted\n"
            f"globs: {json.dumps([f'services/svc{svc}/{topic}/**'])}\n"
            f"tags: [{topic}]\n---\n## Decision\n\n{body}\n"
        )


def model_batch_ms() -> float | None:
    """One batch of 32 texts of 56 tokens (the records' head chunks are ~55) on a single
    onnxruntime thread, configured as a bulk build runs it; median of five runs."""
    folder = os.environ.get("GITMEM_EMBED_MODEL_DIR")
    if not folder:
        return None
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    session = ort.InferenceSession(
        str(Path(folder) / "model.onnx"), options, providers=["CPUExecutionProvider"]
    )
    ids = np.random.default_rng(0).integers(1000, 20000, size=(32, 56)).astype(np.int64)
    inputs = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": ids * 0}
    feed = {i.name: inputs[i.name] for i in session.get_inputs()}
    session.run(None, feed)
    return median_ms(lambda: session.run(None, feed), 5)


def bench(n: int, queries: int) -> dict[str, float | int | str | None]:
    tmp = Path(tempfile.mkdtemp(prefix=f"gitmem-lat-{n}-"))
    proc = None
    try:
        root = tmp / "repo"
        make_repo(root, n)
        repo = discover(root)
        batch_ms = model_batch_ms()
        # as `gitmem index` loads the model (bulk)
        bulk = index.resolve_embedder(repo, allow_download=False, one_shot=True, bulk=True).embedder
        t0 = time.perf_counter()
        built = index.build(repo, embedder=bulk)
        build_s = time.perf_counter() - t0
        del bulk
        onnx_s = None
        if built.runtime is not None and built.runtime.startswith("openvino"):
            # The same build on onnxruntime, right after: the optional runtime's gain. From
            # scratch as the first one was (no table or index to reuse: the records are
            # parsed again), in a `gitmem index` process (its imports are ~0.5 s of it).
            compiler.table_path(repo).unlink()
            shutil.rmtree(index_dir(repo))
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "gitmem", "index", "--json"],
                cwd=root,
                env={**os.environ, "GITMEM_EMBED_BACKEND": "onnxruntime"},
                stdout=subprocess.DEVNULL,
                check=True,
            )
            onnx_s = round(time.perf_counter() - t0, 2)
        # one-record edits indexed by `gitmem watch`'s own code in this process (it loads
        # and warms the model, and settles between edits as it does when idle), then by a
        # fresh `gitmem index` process
        watcher = Daemon(repo, idle_seconds=3600, log=lambda _line: None)
        emb = watcher.embedder
        updates = []  # the re-index (`index.build`): the update itself
        serving = []  # and reopening the retriever on the new generation
        for k in range(5):
            rec = root / ".continuity" / "decisions" / f"{n // 2 + k:05d}-d{n // 2 + k}.md"
            rec.write_text(rec.read_text().replace("because of", "owing to", 1))
            t0 = time.perf_counter()
            upd = watcher.update()
            serving.append(time.perf_counter() - t0)
            assert upd is not None and upd.reindexed == 1, upd
            updates.append(upd.seconds)
            watcher.settle()
        update_s = sorted(updates)[len(updates) // 2]
        fresh_updates = []
        for k in range(3):
            rec = root / ".continuity" / "decisions" / f"{n // 3 + k:05d}-d{n // 3 + k}.md"
            rec.write_text(rec.read_text().replace("because of", "owing to", 1))
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "gitmem", "index", "--json"],
                cwd=root,
                stdout=subprocess.DEVNULL,
                check=True,
            )
            fresh_updates.append(time.perf_counter() - t0)
        update_fresh_s = sorted(fresh_updates)[1]
        rnd = random.Random(1)
        qs = [
            (
                f"how do we handle {rnd.choice(NOUNS)} in {rnd.choice(TOPICS)}?",
                [f"services/svc{rnd.randrange(max(1, n // 20))}/{rnd.choice(TOPICS)}/x.py"],
            )
            for _ in range(queries)
        ]
        watcher.reopen_if_moved()  # the fresh processes above re-indexed
        retr = watcher.retriever
        it = iter(qs * 3)
        retr.retrieve(*next(it))
        inproc = median_ms(lambda: retr.retrieve(*next(it)), queries)
        retr.close()
        env = {**os.environ}
        py = sys.executable
        proc = subprocess.Popen(
            [py, "-m", "gitmem", "watch", "--idle", "120", "--quiet"], cwd=root, env=env
        )
        for _ in range(600):
            if client.ping(repo):
                break
            time.sleep(0.05)
        it2 = iter(qs * 3)
        client.retrieve_raw(repo, *next(it2))
        daemon = median_ms(lambda: client.retrieve_raw(repo, *next(it2)), queries)
        beside = Path(py).parent / "gitmem"  # this interpreter's gitmem, not a PATH shim
        gitmem = str(beside) if beside.exists() else (shutil.which("gitmem") or "gitmem")

        def cli(*extra: str) -> None:
            subprocess.run(
                [gitmem, "search", "--json", *extra, "retries with backoff"],
                cwd=root,
                env=env,
                stdout=subprocess.DEVNULL,
                check=True,
            )

        cold_daemon = median_ms(lambda: cli(), 7)
        client.request(repo, {"op": "stop"})
        proc.wait(timeout=30)
        proc = None
        cold = median_ms(lambda: cli("--no-daemon"), 7)
        base = median_ms(lambda: subprocess.run([py, "-c", "pass"], check=True), 7)
        return {
            "decisions": n,
            "model": "yes" if emb is not None else "no",
            "build_s": round(build_s, 2),
            "build_runtime": built.runtime,
            "build_onnxruntime_s": onnx_s if onnx_s is not None else round(build_s, 2),
            "model_batch_ms": None if batch_ms is None else round(batch_ms),
            "update_s": round(update_s, 3),
            "updates_s": [round(u, 3) for u in updates],
            "update_and_reopen_s": round(sorted(serving)[len(serving) // 2], 3),
            "update_fresh_process_s": round(update_fresh_s, 3),
            "query_in_process_ms": round(inproc, 2),
            "query_daemon_ms": round(daemon, 2),
            "search_cli_with_daemon_ms": round(cold_daemon, 1),
            "search_cli_cold_ms": round(cold, 1),
            "python_pass_ms": round(base, 1),
        }
    finally:
        if proc is not None:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description="retrieval latency and index build time")
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [bench(int(s), args.queries) for s in args.sizes.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{'decisions':>9} {'model':>5} {'build':>8} {'runtime':>14} {'on onnxruntime':>14} "
        f"{'model batch':>11} "
        f"{'1-rec update':>12} {'(+reopen)':>10} "
        f"{'(fresh proc)':>12} "
        f"{'in-process':>11} "
        f"{'daemon':>8} {'CLI+daemon':>11} {'CLI cold':>9} {'python -c pass':>15}"
    )
    for r in rows:
        print(
            f"{r['decisions']:>9} {r['model']:>5} {r['build_s']:>6} s "
            f"{r['build_runtime'] or '-':>14} {r['build_onnxruntime_s']:>12} s "
            f"{str(r['model_batch_ms']) + ' ms':>11} {r['update_s']:>10} s "
            f"{r['update_and_reopen_s']:>8} s "
            f"{r['update_fresh_process_s']:>10} s "
            f"{r['query_in_process_ms']:>8} ms {r['query_daemon_ms']:>5} ms "
            f"{r['search_cli_with_daemon_ms']:>8} ms {r['search_cli_cold_ms']:>6} ms "
            f"{r['python_pass_ms']:>12} ms"
        )
    print(
        "(medians; targets: warm query <= 20 ms, cold CLI search <= 1 s, "
        "10,000-decision index <= 90 s, one-record update <= 0.5 s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
