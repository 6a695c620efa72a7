"""The tool-call hook that brings a touched file's decisions, for each agent gitmem
installs into, as the agent runs it (a fresh `gitmem-hook AGENT EVENT` process, the
agent's own payload), next to `python -c pass`, all taking turns run after run.

    python benchmarks/agents_latency.py [--decisions 1000] [--runs 21] [--json]

Claude Code, Codex, Copilot CLI and OpenCode get the decisions before the call (pre-tool); Gemini
CLI, Cursor, Qwen Code and Droid after it (post-tool: their before-tool hooks cannot add context).
Every run is a new session, so every call injects. The
translation layers (gitmem.agent.gemini, .cursor, .copilot, .qwen, .droid, .opencode, .pi) should cost
next to nothing. `droid exec` runs no prompt hook, so the before-tool hook of a turn's first call
reads the prompt from Droid's transcript and does the prompt hook's work (its decisions held
for the call's result, the work tree noted): "droid pre-tool, turn's first" is that call.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import interleaved_ms
from why_lookup import make_repo

from gitmem import compile as compiler
from gitmem.repo import discover

FIRST_CALL = "droid pre-tool, turn's first"


def bench(n: int, runs: int) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix=f"gitmem-agents-{n}-"))
    try:
        target = str(tmp / make_repo(tmp, n)[0])
        compiler.build(discover(tmp))
        beside = Path(sys.executable).parent / "gitmem-hook"
        hook = str(beside) if beside.exists() else (shutil.which("gitmem-hook") or "gitmem-hook")
        ids = count()
        root = str(tmp)
        payloads = {
            "claude pre-tool": {"tool_name": "Read", "tool_input": {"file_path": target}},
            "codex pre-tool": {"tool_name": "Bash", "tool_input": {"command": f"cat {target}"}},
            "gemini post-tool": {"tool_name": "read_file", "tool_input": {"absolute_path": target}},
            "cursor post-tool": {
                "tool_name": "Read",
                "tool_input": {"file_path": target},
                "tool_output": "",
                "workspace_roots": [root],
            },
            "copilot pre-tool": {"tool_name": "view", "tool_input": {"path": target}},
            "qwen post-tool": {"tool_name": "read_file", "tool_input": {"file_path": target}},
            "opencode pre-tool": {"tool_name": "read", "tool_input": {"filePath": target}},
            "droid post-tool": {"tool_name": "Read", "tool_input": {"file_path": target}},
            "pi pre-tool": {"tool_name": "read", "tool_input": {"path": target}},
            FIRST_CALL: {
                "tool_name": "Read",
                "tool_input": {"file_path": target},
                "transcript_path": str(tmp / "droid.jsonl"),
            },
        }
        typed = {"role": "user", "content": [{"type": "text", "text": f"Tidy up {target}"}]}
        line = {"type": "message", "id": "m1", "message": typed}
        (tmp / "droid.jsonl").write_text(json.dumps(line) + "\n")

        def stdin(extra: dict[str, object]) -> str:
            sid = f"b{next(ids)}"
            return json.dumps({"session_id": sid, "conversation_id": sid, "cwd": root, **extra})

        cmds = {
            name: ([hook, *name.split(",")[0].split()], lambda extra=extra: stdin(extra))
            for name, extra in payloads.items()
        }
        cmds["python -c pass"] = ([sys.executable, "-c", "pass"], lambda: "")
        # the informing hooks must inform (the path measured must be the one named)
        for name, (argv, make) in cmds.items():
            if name == "python -c pass" or name == FIRST_CALL:
                continue  # a Droid before-tool hook holds what it finds for the result
            out = subprocess.run(argv, cwd=tmp, input=make(), capture_output=True, text=True)
            if "Project decision" not in out.stdout:
                raise RuntimeError(f"{name} brought no decision: {out.stdout[:200]!r}")
        return interleaved_ms(cmds, tmp, runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description="tool-call hook latency per agent")
    ap.add_argument("--decisions", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    res = bench(args.decisions, args.runs)
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    base = res["python -c pass"]
    print(f"{args.decisions} decisions, median of {args.runs} interleaved runs:")
    for name, ms in res.items():
        print(f"  {name:28} {ms:6.1f} ms  {ms / base:4.2f}x `python -c pass`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
