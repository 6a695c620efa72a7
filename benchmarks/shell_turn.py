"""Benchmark: what marking shell calls, and reading their writes at the turn's end, costs.

Since session 36 the pre- and post-tool hooks of a shell call append a line to the
session's state (where its prompts are captured), and the stop hook of a turn that ran
one lists the work tree's changes (`git status`) to count the files the commands wrote
(gitmem.agent.shelleffects). This times, in the demo repository, a fresh
`gitmem-hook claude` process for each of: pre-tool and post-tool of a Bash call that names
no file (`make test`) in a captured session, and the stop of a turn that ran one (a new
session each run: its prompt and the call's two hooks run first, untimed), next to
`python -c pass`. Since session 38 also the prompt of that captured session (each run a
new prompt), with a file the demo's critical money rule governs changed: the prompt hook
notes that a turn began and starts the background turn-start job, which keeps that file
as the turn found it (the job is awaited, untimed, after each run). With `--baseline OTHER/bin/gitmem-hook` (another install, e.g. the
previous release in its own virtual environment) both take turns run after run, each in
its own copy of the demo (made by its own `gitmem demo`). With `--shared`, each copy is
a clone a group shares (`git init --shared=group` run on it: since session 59 the hooks
widen their umask there as git does, gitmem.sharing).

    python benchmarks/shell_turn.py [--runs 21] [--baseline /path/to/other/bin/gitmem-hook]
        [--shared]

Run it with the Python of a clean, non-editable install, as docs/performance.md says.
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

from benchlib import hook_installs, install_demos, interleaved_ms, wait_for_detached

COMMAND = "make test"


def _hook(hook: str, event: str, root: Path, payload: dict[str, object]) -> None:
    subprocess.run([hook, "claude", event], cwd=root, input=json.dumps(payload), text=True,
                   capture_output=True, check=True)  # fmt: skip


def _bash(sid: str, root: Path) -> dict[str, object]:
    return {"session_id": sid, "cwd": str(root), "tool_name": "Bash",
            "tool_input": {"command": COMMAND}, "permission_mode": "default"}  # fmt: skip


def _stop_after_a_command(
    hook: str, root: Path, counter: itertools.count[int]
) -> Callable[[], str]:
    """The stop payload of a new session's turn that ran one shell command, its prompt and
    the call's hooks run first (untimed: this is called before the timed run)."""

    def make() -> str:
        sid = f"turn-{next(counter)}"
        _hook(hook, "prompt", root, {"session_id": sid, "cwd": str(root), "prompt": "run tests"})
        _hook(hook, "pre-tool", root, _bash(sid, root))
        _hook(hook, "post-tool", root, {**_bash(sid, root), "tool_response": {"stdout": "ok"}})
        return json.dumps({"session_id": sid, "cwd": str(root), "stop_hook_active": False})

    return make


def _prompt(sid: str, root: Path, counter: itertools.count[int]) -> Callable[[], str]:
    """A new prompt of the captured session ``sid`` each run (the same payload twice would
    be a delivery the hooks already answered)."""

    def make() -> str:
        text = f"refund a charge in paydash/billing ({next(counter)})"
        return json.dumps({"session_id": sid, "cwd": str(root), "prompt": text})

    return make


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--baseline", default=None, help="Another install's gitmem-hook.")
    ap.add_argument("--shared", action="store_true", help="Demos a group shares.")
    args = ap.parse_args()
    installs = hook_installs(args.baseline)
    root = Path(tempfile.mkdtemp(prefix="gitmem-shell-bench-"))
    counter = itertools.count()
    results: dict[str, dict[str, float]] = {}
    try:
        demos = install_demos(root, installs)
        for label, hook in installs.items():
            demo = demos[label]
            if args.shared:
                subprocess.run(["git", "init", "-q", "--shared=group", str(demo)], check=True)
            sid = f"calls-{label}"  # a captured session for the pre- and post-tool calls
            _hook(hook, "prompt", demo, {"session_id": sid, "cwd": str(demo), "prompt": "go"})
            charge = demo / "paydash" / "billing" / "charge.py"  # the user's, not committed
            charge.write_text(charge.read_text() + "\n# the user's note\n")
        for event in ("prompt", "pre-tool", "post-tool", "stop"):
            cmds: dict[str, tuple[list[str], Callable[[], str]]] = {}
            for label, hook in installs.items():
                demo = demos[label]
                if event == "stop":
                    stdin = _stop_after_a_command(hook, demo, counter)
                elif event == "prompt":
                    stdin = _prompt(f"calls-{label}", demo, counter)
                else:
                    call = json.dumps(_bash(f"calls-{label}", demo))
                    stdin = lambda call=call: call  # noqa: E731
                cmds[label] = ([hook, "claude", event], stdin)
            cmds["python -c pass"] = ([sys.executable, "-c", "pass"], str)
            cwds = {label: demos[label] for label in installs}
            results[event] = interleaved_ms(
                cmds, root, args.runs, cwds, settle=lambda: wait_for_detached(root)
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    where = " in a clone a group shares" if args.shared else ""
    print(f"`gitmem-hook claude EVENT` for a Bash call ({COMMAND!r}){where}, median of {args.runs}:")
    for event, found in results.items():
        line = "  ".join(f"{label} {ms:6.1f} ms" for label, ms in found.items())
        ratio = (
            f"  this / baseline {found['this'] / found['baseline']:.2f}" if args.baseline else ""
        )
        print(f"  {event:<10} {line}{ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
