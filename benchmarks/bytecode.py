"""A hook where PYTHONDONTWRITEBYTECODE is set and gitmem was installed without bytecode
(uv's default; pip compiles at install), as before session 48 and now.

    python benchmarks/bytecode.py [--runs 21] [--json]

Every command runs with PYTHONDONTWRITEBYTECODE=1, taking turns: `python -c pass`; the
pre-tool hook of a copy of gitmem's package with no bytecode run as the `gitmem-hook`
script was before session 48 (the variable honoured: it compiles every module on every
run); and the same with today's script (the first run writes the bytecode, the others read
it). `benchmarks/hooks_latency.py` times pip's install, which has its bytecode.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import interleaved_ms
from why_lookup import make_repo

import gitmem
from gitmem import compile as compiler
from gitmem import resources
from gitmem.repo import discover

SCRIPT = Path(__file__).resolve().parents[1] / "hooks/bin/gitmem-hook"
# hooks/bin/gitmem-hook as it was before session 48
BEFORE = "import sys; from gitmem.agent.runner import main; sys.exit(main())"


def bare_copy(folder: Path) -> Path:
    """gitmem's package laid out as a wheel has it, without bytecode, in ``folder``."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "_data")
    shutil.copytree(Path(gitmem.__file__).parent, folder / "gitmem", ignore=skip)
    for name in ("hooks", "templates"):
        shutil.copytree(resources.data_dir(name), folder / "gitmem/_data" / name)
    return folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gitmem-bytecode-"))
    try:
        project = tmp / "project"
        probe = make_repo(project, 100)[0]
        compiler.build(discover(project))
        before, now = bare_copy(tmp / "before"), bare_copy(tmp / "now")
        py = sys.executable
        payload = {"tool_name": "Edit", "tool_input": {"file_path": str(project / probe)}}
        counter = iter(range(10**9))

        def stdin() -> str:  # a new session each time, so every call injects
            return json.dumps({"session_id": f"b{next(counter)}", "cwd": str(project), **payload})

        def with_env(site: Path | None, *cmd: str) -> list[str]:
            extra = [f"PYTHONPATH={site}"] if site else []
            return ["env", "-u", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE=1", *extra, *cmd]

        cmds = {
            "python_pass_ms": (with_env(None, py, "-c", "pass"), lambda: ""),
            "before_ms": (
                with_env(before, py, "-c", BEFORE, "claude", "pre-tool"),
                stdin,
            ),
            "now_ms": (with_env(now, py, str(SCRIPT), "claude", "pre-tool"), stdin),
        }
        for name, (cmd, data) in cmds.items():  # each answers as a hook should
            out = subprocess.run(cmd, cwd=project, input=data(), capture_output=True, text=True)
            if name != "python_pass_ms" and "Project decision" not in out.stdout:
                sys.exit(f"{name}: the hook did not answer: {out.stderr.strip()}")
        # the run above gave `now` its bytecode: time from none, as an install leaves it
        shutil.rmtree(now)
        bare_copy(now)
        res = interleaved_ms(cmds, project, args.runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(res))
        return
    base = res["python_pass_ms"]
    print(f"pre-tool hook at 100 decisions, PYTHONDONTWRITEBYTECODE=1, median of {args.runs}:")
    print(f"  python -c pass                          {base:7.1f} ms")
    for key, label in (
        ("before_ms", "installed without bytecode, before 48"),
        ("now_ms", "installed without bytecode, now"),
    ):
        print(f"  {label:39s} {res[key]:7.1f} ms  {res[key] / base:.2f}x")


if __name__ == "__main__":
    main()
