"""`gitmem check --staged` on a commit that touches 1,000 files (target: <= 1 s).

    python benchmarks/check_speed.py [--files 1000] [--decisions 200] [--runs 5]

Each file gets 20 added lines; decisions carry forbid rules over the touched folders, so
every added line is matched against the rules of every decision governing its file.
Prints the median wall time of the CLI as a fresh process, next to `python -c pass`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib import wall_ms

ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@x",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@x",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gitmem-check-bench-"))
    try:
        subprocess.run(["git", "init", "-q", str(root)], check=True, env=ENV)
        ddir = root / ".continuity" / "decisions"
        ddir.mkdir(parents=True)
        folders = 50
        for i in range(1, args.decisions + 1):
            (ddir / f"{i:04d}-d.md").write_text(
                f"---\ntitle: Rule {i}\nstatus: accepted\nseverity: warning\n"
                f"globs: ['pkg{i % folders}/**']\nrules:\n  - forbid: 'forbidden_{i}\\\\('\n"
                f"    message: do not call forbidden_{i}\n---\nx\n"
            )
        for f in range(args.files):
            path = root / f"pkg{f % folders}" / f"mod{f}.py"
            path.parent.mkdir(exist_ok=True)
            path.write_text("".join(f"value_{n} = compute({n})\n" for n in range(20)))
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=ENV)
        gitmem = shutil.which("gitmem") or "gitmem"
        subprocess.run([gitmem, "why", "pkg1/mod1.py"], cwd=root, env=ENV, capture_output=True)
        t_check = wall_ms([gitmem, "check", "--staged"], root, args.runs, env=ENV, check=False)
        t_pass = wall_ms([sys.executable, "-c", "pass"], root, args.runs, env=ENV)
        print(
            f"gitmem check --staged: {args.files} files x 20 added lines, {args.decisions} "
            f"decisions with rules: {t_check:.0f} ms (python -c pass: {t_pass:.0f} ms; "
            "target <= 1000 ms)"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
