"""Benchmark: the `gitmem` commands a developer's git runs on every commit and checkout,
and the ones typed most, as fresh processes.

The installed git hooks run `gitmem check --staged` (pre-commit) and `gitmem trailers`
(prepare-commit-msg) on every commit: two cold starts each time, and `gitmem index
--no-download --quiet-refresh` on every checkout and merge (here with nothing to refresh).
This prints their median wall time, and that of `gitmem why`, `gitmem sessions -n 1` and
`gitmem --version`, next to
`python -c pass`, in a repository with 40 decisions, one staged edit and five captured
sessions that edited the file `why` asks about. With
`--baseline OTHER_GITMEM` (the `gitmem` of another install, e.g. an older release in its own
virtual environment), both take turns run after run, so the ratio holds on a noisy machine.

    python benchmarks/cli_startup.py [--runs 21] [--baseline /path/to/other/bin/gitmem] [--json]

Run it with the Python of a clean, non-editable install (byte-code written), as
`docs/performance.md` says for every latency benchmark.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib import interleaved_ms, wait_for_detached

ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@x",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@x",
}
COMMANDS = {
    "check --staged": ["check", "--staged"],
    "trailers": ["trailers", ".git/COMMIT_EDITMSG"],
    "index (post-checkout)": ["index", "--no-download", "--quiet-refresh"],
    "why": ["why", "services/svc3/handler.py"],
    "sessions -n 1": ["sessions", "-n", "1"],
    "--version": ["--version"],
}


def make_repo(root: Path, decisions: int = 40) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=ENV)
    ddir = root / ".continuity" / "decisions"
    ddir.mkdir(parents=True)
    for i in range(1, decisions + 1):
        svc = i % 10
        (ddir / f"{i:04d}-decision-{i}.md").write_text(
            f"---\nid: D-{i:04d}\ntitle: Decision {i} for service {svc}\nstatus: accepted\n"
            f"date: 2026-01-01\nglobs: ['services/svc{svc}/**']\nseverity: warning\n---\n\n"
            f"## Decision\n\nService {svc} handlers never call print; use the logger.\n"
        )
    for svc in range(10):
        (root / "services" / f"svc{svc}").mkdir(parents=True)
        (root / "services" / f"svc{svc}" / "handler.py").write_text("x = 1\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=ENV)
    subprocess.run(["git", "commit", "-q", "-m", "init"], cwd=root, check=True, env=ENV)
    (root / "services" / "svc3" / "handler.py").write_text("x = 2\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=ENV)
    (root / ".git" / "COMMIT_EDITMSG").write_text("Change svc3\n")
    add_sessions(root)


def add_sessions(root: Path, sessions: int = 5, prompts: int = 20) -> None:
    """Captured agent sessions that edited the file `why` asks about, halfway through
    (a turn record, since session 34), each closed: `why` names the newest three, and the
    prompt behind each one's edit, read from its records."""
    from gitmem import capture
    from gitmem.repo import discover

    repo = discover(root)
    edited = ["services/svc3/handler.py"]
    for s in range(sessions):
        sid, at = f"bench{s}", 1.7e9 + 1000 * s

        def put(record: dict[str, object], sid: str = sid) -> None:
            capture.append(repo, sid, {"session_id": sid, "user": "b", **record})

        for n in range(prompts):
            put({"kind": "prompt", "prompt": f"prompt {n} of session {s}", "time": at + n})
            if n == prompts // 2:
                put({"kind": "turn", "files_edited": edited, "time": at + n + 0.5})
        put({"kind": "close", "files_edited": edited, "time": at + prompts})
        capture.flush(repo, sid)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--baseline", default=None, help="Another install's gitmem to compare.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    ours = shutil.which("gitmem", path=os.path.dirname(sys.executable)) or shutil.which("gitmem")
    if ours is None:
        sys.exit("gitmem is not installed in this environment")
    installs = {"this": ours, **({"baseline": args.baseline} if args.baseline else {})}
    root = Path(tempfile.mkdtemp(prefix="gitmem-cli-bench-"))
    try:
        # each install in its own copy of the repository: the compiled table and the
        # sessions listing's cache are written per version, and two installs sharing them
        # would each rebuild what the other wrote (since session 35; before, the table's
        # schema happened to be the same)
        repos = {label: root / label for label in installs}
        for label, exe in installs.items():
            make_repo(repos[label])
            for argv in COMMANDS.values():  # warm the table and byte-code once, untimed
                subprocess.run([exe, *argv], cwd=repos[label], env=ENV, capture_output=True)
        cmds = {
            f"{label}|{name}": ([exe, *argv], str)
            for name, argv in COMMANDS.items()
            for label, exe in installs.items()
        }
        cwds = {key: repos[key.split("|")[0]] for key in cmds}
        cmds["python|pass"] = ([sys.executable, "-c", "pass"], str)
        # `index --quiet-refresh` starts a refresh in the background and returns: it is
        # let finish before the next command, which would otherwise share the CPU with it
        # (since session 35; the command now returns well before its refresh is done)
        found = interleaved_ms(cmds, root, args.runs, cwds, lambda: wait_for_detached(root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows = {
        name: {label: round(found[f"{label}|{name}"], 1) for label in installs} for name in COMMANDS
    }
    floor = round(found["python|pass"], 1)
    if args.json:
        print(json.dumps({"runs": args.runs, "python_pass_ms": floor, "commands": rows}, indent=1))
        return 0
    print(f"median of {args.runs} fresh processes each; python -c pass {floor} ms")
    for name, row in rows.items():
        line = f"  gitmem {name:<21} " + "  ".join(f"{k} {v:6.1f} ms" for k, v in row.items())
        if "baseline" in row:
            line += f"  (this / baseline {row['this'] / row['baseline']:.2f})"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
