"""One checkout seen from two places (a dev container's bind mount and its host): the
tool-call hook when the two sides take turns, against one side alone.

    python benchmarks/two_views.py [--decisions 1000] [--runs 15] [--baseline PATH] [--json]

Needs root and ``unshare`` (util-linux): the container is a mount and PID namespace of
its own where the repository is bind-mounted at another path, as in
tests/test_dev_container.py. Each round runs `gitmem-hook claude pre-tool` (an Edit of a
governed file) once on the host and once in the container; "alone" rounds run it twice in
the container. The container's runs include `unshare` and the mount (the "alone" column
shows that cost). With ``--baseline OTHER/bin/gitmem-hook`` another install runs the same
rounds in a copy of the repository, taking turns with this one (before session 63 each
side's call after the other's compiled the records again).
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

ENTER = 'mkdir -p "$VIEW" && mount --bind "$REPO" "$VIEW" && cd "$VIEW" && exec "$@"'


def payload(root: str, probe: str, session: str) -> str:
    return json.dumps({
        "session_id": session, "cwd": root, "transcript_path": f"{root}/t.jsonl",
        "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "t",
        "tool_input": {"file_path": f"{root}/{probe}", "old_string": "a", "new_string": "b"},
    })  # fmt: skip


class Side:
    """Runs one install's hook on the host or in the container, timing each call."""

    def __init__(self, hook: str, repo: Path, view: Path, probe: str) -> None:
        self.hook, self.repo, self.view, self.probe = hook, repo, view, probe
        self.count = 0

    def run(self, where: str) -> float:
        self.count += 1
        session = f"{where}-{self.count}"  # a new session: nothing is held back as shown
        if where == "host":
            cmd = [self.hook, "claude", "pre-tool"]
            stdin = payload(str(self.repo), self.probe, session)
        else:
            cmd = ["unshare", "--mount", "--pid", "--fork", "--mount-proc", "sh", "-c", ENTER,
                   "sh", self.hook, "claude", "pre-tool"]  # fmt: skip
            stdin = payload(str(self.view), self.probe, session)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.repo.parent / "home"),
               "REPO": str(self.repo), "VIEW": str(self.view)}  # fmt: skip
        t0 = time.perf_counter()
        done = subprocess.run(cmd, input=stdin, env=env, capture_output=True, text=True)
        ms = (time.perf_counter() - t0) * 1000
        if done.returncode != 0 or "additionalContext" not in done.stdout:
            raise SystemExit(f"{where}: no context ({done.returncode}): {done.stderr[-500:]}")
        return ms


def bench(n: int, runs: int, baseline: str | None) -> dict[str, dict[str, float]]:
    tmp = Path(tempfile.mkdtemp(prefix="gitmem-views-"))
    try:
        (tmp / "home").mkdir()
        probe = make_repo(tmp / "repo", n)[0]
        beside = Path(sys.executable).parent / "gitmem-hook"
        installs = {"this": str(beside) if beside.exists() else "gitmem-hook"}
        if baseline is not None:
            shutil.copytree(tmp / "repo", tmp / "repo-baseline", symlinks=True)
            installs["baseline"] = baseline
        sides = {
            name: Side(hook, tmp / ("repo" if name == "this" else "repo-baseline"),
                       tmp / f"view-{name}", probe)
            for name, hook in installs.items()
        }  # fmt: skip
        times: dict[str, dict[str, list[float]]] = {
            name: {"host, taking turns": [], "container, taking turns": [],
                   "container alone": []}
            for name in sides
        }  # fmt: skip
        for side in sides.values():  # compile and index once, untimed, with its own gitmem
            cli = str(Path(side.hook).parent / "gitmem")
            subprocess.run([cli, "index"], cwd=side.repo, check=True, capture_output=True)
            side.run("host")
        for _ in range(runs):
            for name, side in sides.items():
                times[name]["host, taking turns"].append(side.run("host"))
                times[name]["container, taking turns"].append(side.run("container"))
            for name, side in sides.items():
                side.run("container")
                times[name]["container alone"].append(side.run("container"))
        return {
            name: {k: round(statistics.median(v), 1) for k, v in cols.items()}
            for name, cols in times.items()
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--baseline", default=None, help="Another install's gitmem-hook.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if shutil.which("unshare") is None:
        raise SystemExit("needs unshare (util-linux) and root")
    result = bench(args.decisions, args.runs, args.baseline)
    if args.json:
        print(json.dumps({"decisions": args.decisions, "runs": args.runs, **result}))
        return 0
    print(f"pre-tool hook, median ms of {args.runs} runs, {args.decisions} decisions")
    for name, cols in result.items():
        print(f"  {name:9}" + "".join(f"  {k}: {v:7.1f}" for k, v in cols.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
