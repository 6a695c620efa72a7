"""Benchmark: the agent hooks late in a long session.

Every hook reads its session's view (``gitmem.agent.state``). The state file gains a line for
each delivery, read and edit of the session: after 3,000 tool calls, ~0.5 MB; since session
50 the tool-call hooks read the view from the view file beside it, which holds only the
lines of what was shown (before, parsing the whole file cost +3.5 ms a hook). This times
`gitmem-hook claude pre-tool` and `post-tool` (an edit of a governed file whose decision
was already shown, so nothing new to say) in such a session and in a session of one call,
as fresh processes, the commands taking turns run after run. With `--baseline
OTHER/bin/gitmem-hook` (another install, e.g. an older release in its own virtual
environment), both installs take turns too, so their ratio holds on a noisy machine.

    python benchmarks/long_session.py [--calls 3000] [--runs 15] [--baseline PATH] [--json]

Run it with the Python of a clean, non-editable install (byte-code written).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchlib import interleaved_ms
from why_lookup import make_repo

from gitmem import compile as compiler
from gitmem.agent import state
from gitmem.repo import discover


def fill(shared: Path, sid: str, root: Path, calls: int) -> int:
    """Write the state lines of ``calls`` tool calls, as the hooks write them: each call
    delivered (its key kept against a second delivery) and read, one in five an edit."""
    with state.open_session(shared, sid) as session:
        for i in range(calls):
            session.append("got", h=f"post-tool-{i:016x}-200")
            path = f"services/svc{i % 10}/module{i % 37}.py"
            session.append("read", paths=[path], tool="Read")
            if i % 5 == 0:
                session.append("edited", paths=[path], tool="Edit", root=str(root))
    return os.path.getsize(state.session_file(shared, sid))


class Calls:
    """The payloads of successive calls: each its own ``tool_use_id``, as the agent sends."""

    def __init__(self, payload: dict[str, object]) -> None:
        self.payload, self.n = payload, 0

    def __call__(self) -> str:
        self.n += 1
        return json.dumps({**self.payload, "tool_use_id": f"t{self.n}"})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--baseline", default=None, help="Another install's gitmem-hook.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    ours = shutil.which("gitmem-hook", path=os.path.dirname(sys.executable))
    if ours is None:
        sys.exit("gitmem-hook is not installed beside this Python")
    installs = {"this": ours, **({"baseline": args.baseline} if args.baseline else {})}
    root = Path(tempfile.mkdtemp(prefix="gitmem-long-session-"))
    try:
        probes = make_repo(root, 100)
        repo = discover(root)
        compiler.build(repo)
        edit = {"tool_name": "Edit", "tool_input": {"file_path": str(root / probes[0])}}
        sizes: dict[str, int] = {}
        cmds: dict[str, tuple[list[str], Callable[[], str]]] = {}
        for label, hook in installs.items():
            for length, calls in (("long", args.calls), ("short", 1)):
                sid = f"{label}-{length}"
                sizes[sid] = fill(repo.shared_state_dir, sid, root, calls)
                payload = {"session_id": sid, "cwd": str(root), **edit}
                for event in ("pre-tool", "post-tool"):
                    cmds[f"{label}|{length}|{event}"] = ([hook, "claude", event], Calls(payload))
        for argv, data in cmds.values():  # the decision shown once, byte-code written
            subprocess.run(argv, cwd=root, input=data().encode(), capture_output=True)
        found = interleaved_ms(cmds, root, args.runs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps({"calls": args.calls, "runs": args.runs, "ms": found}, indent=1))
        return 0
    kb = round(max(sizes.values()) / 1024)
    print(
        f"median of {args.runs} fresh processes each; a session of {args.calls:,} tool calls"
        f" ({kb} KB of state) against one of a single call"
    )
    for event in ("pre-tool", "post-tool"):
        for label in installs:
            long_, short = found[f"{label}|long|{event}"], found[f"{label}|short|{event}"]
            print(
                f"  {event:<9} {label:<8} long {long_:6.1f} ms  short {short:6.1f} ms"
                f"  ({long_ - short:+.1f} ms)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
