"""Benchmark: captured sessions at a team's scale (100 / 1,000 / 5,000 sessions).

A team that captures every prompt gathers a ref per agent session: thousands within months.
For each size, in one repository whose session refs are written by gitmem's own writer
(`gitmem.capture`, ten prompts and a closing record per session, four users), this prints,
side by side in one run (compare the ratios; these machines are noisy):

* the summaries `gitmem sessions` lists, in-process (`gitmem.sessionlog`), read from git,
  and again with the summaries an earlier listing kept; against every session's records
  read one session at a time, as `gitmem sessions` did before session 33
  (`capture.records` per ref: two git processes per session);
* `gitmem sessions --json`, a fresh process (with the kept summaries);
* `gitmem sessions show ID`, a fresh process;
* `gitmem sync` to a local bare remote: the first (pushing every session) and a second with
  nothing new;
* `python -c pass`, the floor of any fresh process.

Usage:

    python benchmarks/sessions_scale.py [--sizes 100,1000,5000] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import median_ms, wall_ms

from gitmem import capture, sessionlog
from gitmem.repo import Repo, discover

USERS = ("ana", "bo", "cy", "dee")
PROMPTS = 10


def make_repo(root: Path, n: int) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    (root / ".continuity" / "decisions").mkdir(parents=True)
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty",
         "-m", "init"],
        cwd=root, check=True, env=env,
    )  # fmt: skip
    stream: list[bytes] = []
    for s in range(n):
        user, sid = USERS[s % len(USERS)], f"session-{s:06d}"
        start = 1.7e9 + s * 3600
        records: list[dict[str, object]] = []
        for i in range(PROMPTS):
            records.append({
                "uid": os.urandom(16).hex(), "kind": "prompt", "time": start + i * 60,
                "session_id": sid, "agent": "claude", "user": user, "repository": root.name,
                "branch": "main", "head": "0" * 40, "decisions_injected": ["D-0001"],
                "prompt": f"prompt {i} of session {s}: make refunds in billing/charge.py "
                          "idempotent and keep money in integer cents",
            })  # fmt: skip
        records.append({
            "uid": os.urandom(16).hex(), "kind": "close", "time": start + PROMPTS * 60,
            "session_id": sid, "user": user, "files_edited": [f"billing/f{s % 50}.py"],
            "files_read": [], "decisions_shown": ["D-0001"], "retrieval_corrections": [],
        })  # fmt: skip
        stream.append(capture._stream(capture.ref_for(sid, user), None, records))
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True, env=env
    )


def one_at_a_time(repo: Repo) -> int:
    """What `gitmem sessions` read before session 33: every record of every session."""
    return sum(len(capture.records(repo, ref)) for ref, _ in capture.session_refs(repo))


def measure(root: Path, gitmem: str, runs: int) -> dict[str, float]:
    env = {**os.environ, "GITMEM_USER": "bench"}
    repo = discover(root)
    cache = repo.shared_state_dir / sessionlog.CACHE

    def cold() -> None:
        cache.unlink(missing_ok=True)
        sessionlog.summaries(repo)

    found = {
        "summaries_ms": median_ms(cold, runs),
        "summaries_cached_ms": median_ms(lambda: sessionlog.summaries(repo), runs),
        "one_at_a_time_ms": median_ms(lambda: one_at_a_time(repo), runs),
        "sessions_json_ms": wall_ms([gitmem, "sessions", "--json"], root, runs, env=env),
        "show_ms": wall_ms([gitmem, "sessions", "show", "session-000001"], root, runs, env=env),
    }
    remote = root.parent / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=root, check=True)
    found["sync_first_ms"] = wall_ms([gitmem, "sync"], root, 1, env=env)
    found["sync_again_ms"] = wall_ms([gitmem, "sync"], root, runs, env=env)
    found["python_pass_ms"] = wall_ms([sys.executable, "-c", "pass"], root, runs)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000,5000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    gitmem = shutil.which("gitmem", path=os.path.dirname(sys.executable)) or shutil.which("gitmem")
    if gitmem is None:
        sys.exit("gitmem is not installed in this environment")
    results = []
    for n in (int(x) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "repo"
            t0 = time.perf_counter()
            make_repo(root, n)
            made = time.perf_counter() - t0
            found = measure(root, gitmem, args.runs)
        results.append({"sessions": n, "commits": n * (PROMPTS + 1), "made_s": round(made, 1),
                        **{k: round(v, 1) for k, v in found.items()}})  # fmt: skip
        if not args.json:
            new, old = found["summaries_ms"], found["one_at_a_time_ms"]
            print(
                f"{n:>6} sessions: summaries {new:7.0f} ms (kept: "
                f"{found['summaries_cached_ms']:4.0f} ms), one session at a time (before "
                f"session 33) {old:7.0f} ms ({old / new:.1f}x) | fresh `gitmem sessions "
                f"--json` {found['sessions_json_ms']:6.0f} ms, `sessions show` "
                f"{found['show_ms']:4.0f} ms | sync {found['sync_first_ms']:6.0f} ms, again "
                f"{found['sync_again_ms']:4.0f} ms | python -c pass "
                f"{found['python_pass_ms']:3.0f} ms",
                flush=True,
            )
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
