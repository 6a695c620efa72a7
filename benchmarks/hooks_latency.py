"""Agent-hook latency: `gitmem hook claude EVENT` as Claude Code runs it (a fresh process
per event), next to `python -c pass`, at 100 and 10,000 decisions.

    python benchmarks/hooks_latency.py [--sizes 100,10000] [--runs 21] [--json]

Targets (issue 4): pre-tool p50 <= 1.5x `python -c pass` and flat from 100 to 10,000
decisions; prompt p50 <= 3x; session-start <= 150 ms. Prompt runs without a daemon
(keyword + path retrieval in-process), the cold path every user gets first.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from why_lookup import make_repo

from gitmem import compile as compiler
from gitmem import index
from gitmem.repo import discover


def p50(cmd: list[str], cwd: Path, stdin: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, input=stdin.encode(), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def bench(n: int, runs: int) -> dict[str, float | int]:
    tmp = Path(tempfile.mkdtemp(prefix=f"gitmem-hooks-{n}-"))
    try:
        probes = make_repo(tmp, n)
        repo = discover(tmp)
        compiler.build(repo)
        index.build(repo)  # keyword index (no embeddings): what a hook uses without a daemon
        gitmem = shutil.which("gitmem") or "gitmem"
        py = sys.executable
        target = str(tmp / probes[0])
        counter = iter(range(10**9))

        def payload(extra: dict[str, object]) -> str:
            # a new session each time, so every call injects (the expensive case)
            return json.dumps({"session_id": f"b{next(counter)}", "cwd": str(tmp), **extra})

        pre = {"tool_name": "Edit", "tool_input": {"file_path": target}}
        nothing = {"tool_name": "Read", "tool_input": {"file_path": str(tmp / "README.md")}}
        res: dict[str, float | int] = {"decisions": n}
        res["python_pass_ms"] = p50([py, "-c", "pass"], tmp, "", runs)
        res["pre_tool_ms"] = statistics.median(
            p50([gitmem, "hook", "claude", "pre-tool"], tmp, payload(pre), 1) for _ in range(runs))
        res["pre_tool_nomatch_ms"] = p50([gitmem, "hook", "claude", "pre-tool"], tmp,
                                         payload(nothing), runs)
        prompt = {"prompt": "Refactor handler 7 in service 0 module 3 to retry with backoff"}
        res["prompt_ms"] = statistics.median(
            p50([gitmem, "hook", "claude", "prompt"], tmp, payload(prompt), 1) for _ in range(runs))
        res["session_start_ms"] = statistics.median(
            p50([gitmem, "hook", "claude", "session-start"], tmp,
                payload({"source": "startup"}), 1) for _ in range(runs))
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description="agent hook latency")
    ap.add_argument("--sizes", default="100,10000")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [bench(int(s), args.runs) for s in args.sizes.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'decisions':>9} {'python -c pass':>15} {'pre-tool':>16} {'pre-tool, no match':>19} "
          f"{'prompt':>16} {'session-start':>14}")
    for r in rows:
        b = float(r["python_pass_ms"])
        print(f"{r['decisions']:>9} {b:>12.1f} ms {r['pre_tool_ms']:>7.1f} ms {float(r['pre_tool_ms']) / b:>4.2f}x "
              f"{r['pre_tool_nomatch_ms']:>10.1f} ms {float(r['pre_tool_nomatch_ms']) / b:>4.2f}x "
              f"{r['prompt_ms']:>7.1f} ms {float(r['prompt_ms']) / b:>4.2f}x {r['session_start_ms']:>11.1f} ms")
    print("(medians; a fresh process per event, as Claude Code runs hooks; prompt without a daemon)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
