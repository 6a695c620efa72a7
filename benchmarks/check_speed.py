"""`gitmem check --staged` on a commit that touches 1,000 files (target: <= 1 s).

    python benchmarks/check_speed.py [--files 1000] [--decisions 200] [--runs 5]
    python benchmarks/check_speed.py --tree 200000 [--decisions 60] [--adrs N] [--baseline GITMEM]

Each file gets 20 added lines; decisions carry forbid rules over the touched folders, so
every added line is matched against the rules of every decision governing its file.
Prints the median wall time of the CLI as a fresh process, next to `python -c pass`.

`--tree N`: a one-line change in a repository of N committed files (a monorepo), each
decision governing one service's folder. Prints `check --staged` and `lint`, next to `git
status` (which every commit pays anyway), and with `--baseline` the same commands of
another install (its `gitmem` executable), measured alternately in the same run.
`--adrs N` adds N ADRs kept in the services' own logs (`services/svcK/docs/adr`, each
service a package with a `pyproject.toml`), read in place after `gitmem init`: what lint
reads again to tell an unread log or globs `init` would now infer otherwise (session 68).
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


def tree(files: int, decisions: int, runs: int, baseline: str | None, adrs: int = 0) -> None:
    root = Path(tempfile.mkdtemp(prefix="gitmem-tree-bench-"))
    try:
        subprocess.run(["git", "init", "-q", str(root)], check=True, env=ENV)
        services = max(decisions, files // 1000)
        for n in range(files):
            path = root / "services" / f"svc{n % services}" / f"mod{n // 20 % 50}" / f"f{n}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"x = {n}\n")
        ddir = root / ".continuity" / "decisions"
        ddir.mkdir(parents=True)
        for i in range(1, decisions + 1):
            (ddir / f"{i:04d}-d.md").write_text(
                f"---\ntitle: Service {i} decision\nstatus: accepted\n"
                f"globs: ['services/svc{i}/**']\n---\nx\n"
            )
        for i in range(adrs):
            svc = root / "services" / f"svc{i % services}"
            (svc / "pyproject.toml").write_text(f'[project]\nname = "svc{i % services}"\n')
            log = svc / "docs" / "adr"
            log.mkdir(parents=True, exist_ok=True)
            (log / f"{i // services + 1:04d}-decision-{i}.md").write_text(
                f"# {i // services + 1}. Decision {i}\n\nDate: 2024-01-01\n\n## Status\n\n"
                f"Accepted\n\n## Decision\n\nKeep `mod{i % 50}/` small; see `f{i}.py`.\n"
            )
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=ENV)
        subprocess.run(["git", "commit", "-qm", "tree"], cwd=root, check=True, env=ENV)
        if adrs:
            gitmem = shutil.which("gitmem") or "gitmem"
            subprocess.run([gitmem, "init"], cwd=root, check=True, env=ENV, capture_output=True)
            subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=ENV)
            subprocess.run(["git", "commit", "-qm", "init"], cwd=root, check=True, env=ENV)
        with (root / "services" / "svc5" / "mod0" / "f5.py").open("a") as fh:
            fh.write("y = 1\n")
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=ENV)
        installs = {"this": shutil.which("gitmem") or "gitmem"}
        if baseline:
            installs["baseline"] = baseline
        for exe in installs.values():  # the table compiled, as the hooks keep it
            subprocess.run([exe, "why", "services/svc1"], cwd=root, env=ENV, capture_output=True)
        rows: dict[str, list[float]] = {}
        for _ in range(2):  # alternately: these machines are noisy
            rows.setdefault("git status", []).append(
                wall_ms(["git", "status", "--short"], root, runs, env=ENV)
            )
            for name, exe in installs.items():
                for cmd in (["check", "--staged"], ["lint"]):
                    label = f"{name}: gitmem {' '.join(cmd)}"
                    rows.setdefault(label, []).append(
                        wall_ms([exe, *cmd], root, runs, env=ENV, check=False)
                    )
        logs = f", {adrs} ADRs in the services' logs" if adrs else ""
        print(
            f"{files} files, {decisions} decisions{logs}, a one-line change"
            f" (median of {runs}, two rounds)"
        )
        for label, times in rows.items():
            print(f"  {label:32} {' / '.join(f'{t:.0f}' for t in times)} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--decisions", type=int, default=None)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", type=int, default=None, metavar="N")
    ap.add_argument("--baseline", default=None, metavar="GITMEM")
    ap.add_argument("--adrs", type=int, default=0, metavar="N")
    args = ap.parse_args()
    if args.tree:
        tree(args.tree, args.decisions or 60, args.runs, args.baseline, args.adrs)
        return 0
    args.decisions = args.decisions or 200
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
