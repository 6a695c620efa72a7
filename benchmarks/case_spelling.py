"""Benchmark: what spelling paths as stored costs the pre-tool hook where git found the file
system case-insensitive (core.ignorecase: macOS's and Windows' defaults; gitmem.spelling).

Times a fresh `gitmem-hook claude pre-tool` for a Read of a file the demo's decisions
govern, in two copies of the demo: one as `git init` leaves it on Linux, one with
`core.ignorecase=true` (where every name on the path's way is looked up in its folder's
listing). Each copy also has a folder of ``--files`` files, and a Read of one of them is
timed too (its listing is what such a lookup reads). The four take turns run after run,
with `python -c pass` beside them; each in a new session, so it always injects.

    python benchmarks/case_spelling.py [--runs 21] [--files 5000]

Run it with the Python of a clean, non-editable install, as docs/performance.md says. On
Linux the listing is ext4's (or tmpfs'), not APFS's or NTFS's: the ratio says what the
lookup adds here, not on a Mac.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchlib import hook_installs, install_demos, interleaved_ms, warm

GOVERNED = "paydash/billing/charge.py"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--files", type=int, default=5000, help="Files in the big folder.")
    args = ap.parse_args()
    hook = hook_installs(None)["this"]
    root = Path(tempfile.mkdtemp(prefix="gitmem-case-bench-"))
    counter = itertools.count()
    try:
        demos = install_demos(root, {"plain": hook, "ignorecase": hook})
        subprocess.run(
            ["git", "config", "core.ignorecase", "true"], cwd=demos["ignorecase"], check=True
        )
        for demo in demos.values():
            big = demo / "paydash" / "generated"
            big.mkdir()
            for i in range(args.files):
                (big / f"model_{i:05d}.py").write_text("")
        cmds: dict[str, tuple[list[str], Callable[[], str]]] = {}
        cwds: dict[str, Path] = {}
        for label, demo in demos.items():
            last = f"paydash/generated/model_{args.files - 1:05d}.py"
            for what, rel in (("governed file", GOVERNED), ("big folder", last)):

                def stdin(demo: Path = demo, rel: str = rel) -> str:
                    call = {"tool_name": "Read", "tool_input": {"file_path": str(demo / rel)}}
                    return json.dumps({"session_id": f"s{next(counter)}", "cwd": str(demo), **call})

                name = f"{what}, {label}"
                cmds[name] = ([hook, "claude", "pre-tool"], stdin)
                cwds[name] = demo
        said = subprocess.run(
            cmds["governed file, ignorecase"][0],
            cwd=demos["ignorecase"],
            input=cmds["governed file, ignorecase"][1](),
            capture_output=True,
            text=True,
        ).stdout
        if "integer minor units" not in said:  # the path measured must be the one that injects
            raise RuntimeError(f"no decision for {GOVERNED}: {said[:200]!r}")
        warm(cmds, cwds)
        cmds["python -c pass"] = ([sys.executable, "-c", "pass"], str)
        cwds["python -c pass"] = root
        found = interleaved_ms(cmds, root, args.runs, cwds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"`gitmem-hook claude pre-tool` for a Read, median of {args.runs}:")
    for what in ("governed file", "big folder"):
        plain, folded = found[f"{what}, plain"], found[f"{what}, ignorecase"]
        print(
            f"  {what:<14} plain {plain:6.1f} ms  core.ignorecase {folded:6.1f} ms"
            f"  ratio {folded / plain:.2f}"
        )
    print(
        f"  python -c pass {found['python -c pass']:6.1f} ms  (the big folder: {args.files} files)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
