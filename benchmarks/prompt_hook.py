"""Benchmark: the prompt hook, as Claude Code, Gemini CLI and Qwen Code run it, against
another install.

Since session 46 the prompt hook reads the session's state on every prompt (to bring back
pinned decisions a compaction or a rewind took out of the context), and Gemini CLI's and
Qwen Code's hooks read what their transcripts gained for rewinds (gitmem.agent.rewind),
as Claude Code's did since session 45. This times `gitmem-hook AGENT prompt` in the demo
repository, one session per agent and install, each prompt after a turn the transcript
gained (in that agent's format), for a prompt that names a governed file and one that
matches nothing. With ``--baseline OTHER/bin/gitmem-hook`` that install runs the same, the
commands taking turns run after run, each install in its own copy of the demo.

    python benchmarks/prompt_hook.py [--runs 21] [--baseline OTHER/bin/gitmem-hook]

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

AGENTS = {"claude": "UserPromptSubmit", "gemini": "BeforeAgent", "qwen": "UserPromptSubmit"}
PROMPTS = {
    "names a file": "Why does paydash/api/routes.py send a version header?",
    "matches nothing": "Tidy up the whitespace please",
}


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


class _Transcript:
    """A session's transcript in ``agent``'s format, a turn (prompt, tool call, result of
    4 KB, answer) longer each time it grows."""

    def __init__(self, path: Path, agent: str) -> None:
        self.path, self.agent = path, agent
        self.count = itertools.count(1)
        self.leaf: str | None = None
        path.write_text("")
        for _ in range(50):
            self.grow()

    def _entry(self, kind: str, content: object) -> str:
        uid = f"{next(self.count):08x}-0000-4000-8000-000000000000"
        if self.agent == "gemini":
            entry: dict[str, object] = {"id": uid, "timestamp": _stamp(), "type": kind,
                                        "content": content}  # fmt: skip
        elif self.agent == "qwen":
            entry = {"uuid": uid, "parentUuid": self.leaf, "sessionId": "s",
                     "timestamp": _stamp(), "type": kind, "message": {"parts": content}}  # fmt: skip
        else:
            entry = {"parentUuid": self.leaf, "isSidechain": False, "type": kind,
                     "message": {"role": kind, "content": content}, "uuid": uid,
                     "timestamp": _stamp()}  # fmt: skip
        self.leaf = uid
        return json.dumps(entry, separators=(",", ":")) + "\n"

    def grow(self) -> None:
        answer = "gemini" if self.agent == "gemini" else "assistant"
        lines = [self._entry("user", [{"text": "Go on"}]),
                 self._entry(answer, [{"type": "tool_use", "id": "t"}]),
                 self._entry("user", [{"type": "tool_result", "content": "x" * 4096}]),
                 self._entry(answer, [{"type": "text", "text": "Done."}])]  # fmt: skip
        with self.path.open("a") as fh:
            fh.write("".join(lines))


def _payload(root: Path, agent: str, transcript: _Transcript, prompt: str) -> Callable[[], str]:
    count = itertools.count(1)

    def make() -> str:  # each prompt its own words (one said twice is a redelivery)
        transcript.grow()
        return json.dumps({"session_id": f"bench-{agent}-{len(prompt)}", "cwd": str(root),
                           "hook_event_name": AGENTS[agent], "prompt": f"{prompt} ({next(count)})",
                           "transcript_path": str(transcript.path)})  # fmt: skip

    return make


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--baseline", default=None, help="Another install's gitmem-hook.")
    args = ap.parse_args()
    installs = hook_installs(args.baseline)
    root = Path(tempfile.mkdtemp(prefix="gitmem-prompt-bench-"))
    try:
        cmds: dict[str, tuple[list[str], Callable[[], str]]] = {}
        cwds: dict[str, Path] = {}
        for label, demo in install_demos(root, installs).items():
            for agent, (what, prompt) in itertools.product(AGENTS, PROMPTS.items()):
                name = f"{label} {agent} ({what})"
                transcript = _Transcript(root / f"{label}-{agent}-{len(prompt)}.jsonl", agent)
                cmds[name] = ([installs[label], agent, "prompt"],
                              _payload(demo, agent, transcript, prompt))  # fmt: skip
                cwds[name] = demo
        warm(cmds, cwds)
        found = interleaved_ms(cmds, root, args.runs, cwds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"prompt hook in the demo, a turn more in the transcript each time, median of "
          f"{args.runs} fresh processes:")  # fmt: skip
    for name, ms in found.items():
        print(f"  {name:<40} {ms:6.1f} ms")
    if args.baseline:
        for agent, what in itertools.product(AGENTS, PROMPTS):
            ratio = found[f"this {agent} ({what})"] / found[f"baseline {agent} ({what})"]
            print(f"  this / baseline, {agent} ({what}){'':<{18 - len(what)}} {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
