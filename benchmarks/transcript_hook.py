"""Benchmark: what reading a Claude Code transcript for rewinds costs a tool-call hook.

Since session 45 every Claude Code hook that may show decisions reads what the session's
transcript gained since the last look (gitmem.agent.rewind). This times `gitmem-hook
claude pre-tool` on a Read in the demo repository, in one long session whose transcript
(JSON lines as Claude Code 2.1.332 writes them, ``--mb`` of them to start with) gains a
tool result of ``--result-kb`` before each call, next to the same call with no
``transcript_path``, and, with ``--baseline OTHER/bin/gitmem-hook`` (an install from before
session 45), that install given the same transcript. The commands take turns run after
run, each in its own copy of the demo (made by its own `gitmem demo`).

    python benchmarks/transcript_hook.py [--runs 31] [--mb 20] [--result-kb 20] [--baseline ...]

Run it with the Python of a clean, non-editable install, as docs/performance.md says.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchlib import hook_installs, install_demos, interleaved_ms, warm


def _line(n: int, kind: str, content: object, parent: str) -> str:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    entry = {"parentUuid": parent, "isSidechain": False, "type": kind,
             "message": {"role": kind, "content": content},
             "uuid": f"{n:08x}-0000-4000-8000-000000000000", "timestamp": stamp}  # fmt: skip
    return json.dumps(entry, separators=(",", ":")) + "\n"


class _Transcript:
    """A transcript that gains a tool call and its result each time it is asked for."""

    def __init__(self, path: Path, mb: float, result_kb: int) -> None:
        self.path, self.result = path, "x" * (result_kb * 1024)
        self.count = itertools.count(1)
        self.leaf = ""
        with path.open("w") as fh:
            while fh.tell() < mb * 1e6:
                fh.write(self._round())

    def _round(self) -> str:
        out = []
        for kind, content in (
            ("assistant", [{"type": "tool_use", "id": "t", "name": "Read"}]),
            ("user", [{"type": "tool_result", "tool_use_id": "t", "content": self.result}]),
        ):
            n = next(self.count)
            out.append(_line(n, kind, content, self.leaf))
            self.leaf = f"{n:08x}-0000-4000-8000-000000000000"
        return "".join(out)

    def grow(self) -> None:
        with self.path.open("a") as fh:
            fh.write(self._round())


def _payload(root: Path, transcript: _Transcript | None, sid: str) -> Callable[[], str]:
    def make() -> str:
        data = {"session_id": sid, "cwd": str(root), "hook_event_name": "PreToolUse",
                "tool_name": "Read", "permission_mode": "default",
                "tool_input": {"file_path": str(root / "paydash/api/routes.py")}}  # fmt: skip
        if transcript is not None:
            transcript.grow()
            data["transcript_path"] = str(transcript.path)
        return json.dumps(data)

    return make


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--mb", type=float, default=20.0, help="The transcript's size to start.")
    ap.add_argument("--result-kb", type=int, default=20, help="What it gains per call.")
    ap.add_argument("--baseline", default=None, help="Another install's gitmem-hook.")
    args = ap.parse_args()
    installs = hook_installs(args.baseline)
    root = Path(tempfile.mkdtemp(prefix="gitmem-transcript-bench-"))
    try:
        cmds: dict[str, tuple[list[str], Callable[[], str]]] = {}
        cwds: dict[str, Path] = {}
        for label, demo in install_demos(root, installs).items():
            hook = installs[label]
            transcript = _Transcript(root / f"{label}.jsonl", args.mb, args.result_kb)
            for how, given in (("transcript", transcript), ("none", None)):
                if label == "baseline" and given is None:
                    continue
                name = f"{label} ({how})"
                cmds[name] = ([hook, "claude", "pre-tool"], _payload(demo, given, f"bench-{how}"))
                cwds[name] = demo
        warm(cmds, cwds)  # each session's first look at its transcript too
        cmds["python -c pass"] = ([sys.executable, "-c", "pass"], str)
        found = interleaved_ms(cmds, root, args.runs, cwds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"pre-tool on a Read, a {args.mb:g} MB transcript gaining {args.result_kb} KB per call, "
          f"median of {args.runs} fresh processes:")  # fmt: skip
    for label, ms in found.items():
        print(f"  {label:<22} {ms:6.1f} ms")
    print(f"  transcript / none      {found['this (transcript)'] / found['this (none)']:.2f}")
    if args.baseline:
        ratio = found["this (transcript)"] / found["baseline (transcript)"]
        print(f"  this / baseline        {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
