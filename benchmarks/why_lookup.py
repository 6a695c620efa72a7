"""Benchmark: `gitmem why` and the raw compiled-table lookup at 100 / 1,000 / 10,000 decisions.

Prints, for each size, side by side in one run (these machines are noisy, so compare the
ratios): `python -c pass`, a fresh process doing only the hot-path lookup (what an agent
hook will do), `gitmem why` as a fresh process, the in-process lookup, and the one-off
table build. Usage:

    python benchmarks/why_lookup.py [--sizes 100,1000,10000] [--runs 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import wall_ms

EXTS = ["py", "go", "ts", "sql", "rs", "java", "yaml", "proto"]


def make_repo(root: Path, n: int) -> list[str]:
    """A repository with n decisions spread over n/20 services (~20 per service), so the
    number of decisions governing one path stays the same as n grows: a flat lookup must
    then cost the same at every size."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    ddir = root / ".continuity" / "decisions"
    ddir.mkdir(parents=True)
    services = max(1, n // 20)
    for i in range(1, n + 1):
        svc, mod = i % services, (i // services) % 10
        kind = (i // services) % 10
        if kind < 6:
            globs = [f"services/svc{svc}/mod{mod}/**"]
        elif kind < 8:
            globs = [f"services/svc{svc}/**", f"!services/svc{svc}/vendor/**"]
        elif kind == 8:
            globs = [f"**/*.{EXTS[i % len(EXTS)]}x{i % 97}"]
        else:
            globs = [f"services/svc{svc}/mod{mod}/handler_{i}.py"]
        (ddir / f"{i:05d}-decision-{i}.md").write_text(
            "---\n"
            f"title: Decision {i} about service {svc} module {mod}\n"
            "status: accepted\n"
            f"severity: {['critical', 'warning', 'info'][i % 3]}\n"
            f"globs: {json.dumps(globs)}\n"
            "---\n"
            f"## Decision\n\nService {svc} module {mod} does thing {i} this way.\n"
        )
    probe = "services/svc0/mod3/handler_1.py"
    (root / probe).parent.mkdir(parents=True, exist_ok=True)
    (root / probe).write_text("pass\n")
    ident = {
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@x",
    }
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env={**env, **ident})
    subprocess.run(
        ["git", "commit", "-q", "-m", "bench"], cwd=root, check=True, env={**env, **ident}
    )
    return [probe, "services/svc0/mod3/x.go", "README.md"]


LOOKUP_ONLY = (
    "import sys\n"
    "from gitmem.repo import discover\n"
    "from gitmem.table import Table\n"
    "r = discover()\n"
    "t = Table.open(r.state_dir / 'table.sqlite')\n"
    "print(len(t.match(sys.argv[1])))\n"
)


def bench(n: int, runs: int) -> dict[str, float]:
    from gitmem import compile as compiler
    from gitmem.repo import discover
    from gitmem.table import Table

    tmp = Path(tempfile.mkdtemp(prefix=f"gitmem-bench-{n}-"))
    try:
        probes = make_repo(tmp, n)
        repo = discover(tmp)
        t0 = time.perf_counter()
        compiler.build(repo)
        build_ms = (time.perf_counter() - t0) * 1000
        gitmem = shutil.which("gitmem") or "gitmem"
        py = sys.executable
        res = {
            "decisions": n,
            "build_ms": build_ms,
            "python_pass_ms": wall_ms([py, "-c", "pass"], tmp, runs),
            "lookup_process_ms": wall_ms([py, "-c", LOOKUP_ONLY, probes[0]], tmp, runs),
            "why_ms": wall_ms([gitmem, "why", "--json", probes[0]], tmp, runs),
            "why_no_provenance_ms": wall_ms(
                [gitmem, "why", "--json", "--no-provenance", probes[0]], tmp, runs
            ),
        }
        lookups = []
        for _ in range(runs * 20):
            t0 = time.perf_counter()
            t = Table.open(compiler.table_path(repo))
            assert t is not None
            for p in probes:
                t.match(p)
            t.close()
            lookups.append((time.perf_counter() - t0) / len(probes))
        res["lookup_in_process_us"] = statistics.median(lookups) * 1e6
        # one-record update: edit one record, then the next lookup recompiles (cached parses)
        rec = tmp / ".continuity" / "decisions" / f"{n // 2:05d}-decision-{n // 2}.md"
        rec.write_text(rec.read_text().replace("this way", "another way"))
        t0 = time.perf_counter()
        compiler.ensure(repo).close()
        res["one_record_update_ms"] = (time.perf_counter() - t0) * 1000
        t = Table.open(compiler.table_path(repo))
        assert t is not None
        res["matches_for_probe"] = len(t.match(probes[0]))
        t.close()
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [bench(int(s), args.runs) for s in args.sizes.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    head = f"{'decisions':>9} {'python -c pass':>15} {'lookup proc':>12} {'ratio':>6} {'gitmem why':>11} {'ratio':>6} {'why --no-prov':>14} {'lookup in-proc':>15} {'build':>9} {'1-rec update':>13}"
    print(head)
    for r in rows:
        base = r["python_pass_ms"]
        print(
            f"{r['decisions']:>9} {base:>12.1f} ms {r['lookup_process_ms']:>9.1f} ms "
            f"{r['lookup_process_ms'] / base:>5.2f}x {r['why_ms']:>8.1f} ms {r['why_ms'] / base:>5.2f}x "
            f"{r['why_no_provenance_ms']:>11.1f} ms {r['lookup_in_process_us']:>12.0f} us "
            f"{r['build_ms'] / 1000:>7.2f} s {r['one_record_update_ms']:>10.0f} ms"
        )
    print(
        "(medians; lookup proc = a fresh Python process that discovers the repo, opens the table and matches one path)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
