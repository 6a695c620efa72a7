"""What gitmem's hooks add to a real agent session, end to end.

Runs each agent CLI that is installed (Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen
Code, OpenCode, pi, Cline; see tests/agents/package.json) non-interactively on the demo
repository, against the scripted local model of tests/fakemodel.py, so that the model
itself takes no time. The model reads five files, then answers (Cline: ends the task with
its `submit_and_exit` tool, the only way its CLI ends one). Each round runs the same session twice: in a copy of the
demo without gitmem's hooks, and in one with them installed (`gitmem install AGENT`;
for Codex also `--trust`), interleaved so that both see the same machine load. Prints the
median wall time of each and what the hooks added: per session, and that divided by the
five tool calls (each fires gitmem's before- and after-tool hooks, and the session's own
start, prompt and stop hooks are spread over them). Run it with the Python of a clean
virtual environment with gitmem installed, whose `gitmem-hook` comes first on PATH: a
version manager's shim in front of it costs more than the hooks (`gitmem doctor` says so).

    python benchmarks/live_agents.py [--rounds 7] [--json]

The agents are found in GITMEM_AGENTS_BIN, else on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the scripted model the live tests use

from fakemodel import FakeModel, Step, offline  # noqa: E402

FILES = [
    "paydash/api/routes.py",
    "paydash/billing/charge.py",
    "paydash/money.py",
    "db/migrations/0001_init.sql",
    "paydash/worker/webhooks.py",
]
PROMPT = "Summarise how a charge flows through the code"


def binary(name: str) -> str | None:
    folder = os.environ.get("GITMEM_AGENTS_BIN")
    return (shutil.which(name, path=folder) if folder else None) or shutil.which(name)


def steps(agent: str, root: Path) -> list[Step]:
    if agent == "claude":
        return [Step("Read", {"file_path": str(root / f)}) for f in FILES]
    if agent == "codex":
        return [Step("exec_command", {"cmd": f"cat {f}"}) for f in FILES]
    if agent == "gemini":
        return [Step("read_file", {"file_path": f}) for f in FILES]
    if agent == "qwen":
        return [Step("read_file", {"file_path": str(root / f)}) for f in FILES]
    if agent == "opencode":
        return [Step("read", {"filePath": str(root / f)}) for f in FILES]
    if agent == "pi":
        return [Step("read", {"path": str(root / f)}) for f in FILES]
    if agent == "cline":
        summary = {"summary": "A charge flows through billing", "verified": True}
        done = Step("submit_and_exit", summary)
        return [*(Step("read_files", {"files": [{"path": str(root / f)}]}) for f in FILES), done]
    return [Step("view", {"path": str(root / f)}) for f in FILES]


def base_env() -> dict[str, str]:
    return dict(os.environ, NO_COLOR="1", CI="1")


def _hook_runs(root: Path, agent: str) -> dict[Path, int]:
    """When each of ``agent``'s hooks last ran in ``root`` (its hook-status files)."""
    folder = root / ".git" / "gitmem" / "hook-status"
    return {f: f.stat().st_mtime_ns for f in folder.glob(f"{agent}-*.json")}


def session(agent: str, exe: str, root: Path, home: Path) -> float:
    """One session's wall time, in seconds."""
    script = steps(agent, root)
    before = _hook_runs(root, agent)
    with FakeModel(script) as model:
        command, env = offline(agent, exe, home, root, model.url, base_env(), claude_tools="Read")
        start = time.perf_counter()
        proc = subprocess.run(command(PROMPT), cwd=root, env=env, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=300)  # fmt: skip
        elapsed = time.perf_counter() - start
    if proc.returncode != 0 or model.steps_taken != len(script):
        raise SystemExit(f"{agent} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    # whether this session ran gitmem's hooks (`gitmem demo` leaves hook-status files of
    # its own: their presence says nothing; before session 62 every run stopped here)
    hooked = _hook_runs(root, agent) != before
    if hooked != root.name.endswith("-hooked"):
        raise SystemExit(f"{agent}: hooks ran: {hooked}, in {root}")  # e.g. not trusted
    return elapsed


def gitmem(root: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["gitmem", *args], cwd=root, env=env, check=True, capture_output=True)


def measure(agent: str, exe: str, rounds: int, work: Path) -> dict[str, Any]:
    home = work / f"{agent}-home"
    home.mkdir()
    plain, hooked = work / f"{agent}-plain", work / f"{agent}-hooked"
    for root in (plain, hooked):
        subprocess.run(["gitmem", "demo", str(root)], check=True, capture_output=True,
                       env=dict(os.environ, HOME=str(home)))  # fmt: skip
    _, env = offline(agent, exe, home, hooked, "http://127.0.0.1:9", base_env())
    gitmem(hooked, env, "install", agent)
    if agent == "codex":
        gitmem(hooked, dict(env, GITMEM_CODEX=exe), "install", "codex", "--trust")
    session(agent, exe, plain, home)  # warm-up: caches, first-run files
    session(agent, exe, hooked, home)
    times: dict[str, list[float]] = {"plain": [], "hooked": []}
    for _ in range(rounds):
        times["plain"].append(session(agent, exe, plain, home))
        times["hooked"].append(session(agent, exe, hooked, home))
    without = statistics.median(times["plain"])
    with_hooks = statistics.median(times["hooked"])
    return {
        "agent": agent,
        "rounds": rounds,
        "without_s": round(without, 3),
        "with_s": round(with_hooks, 3),
        "added_ms": round((with_hooks - without) * 1000),
        "added_ms_per_tool_call": round((with_hooks - without) * 1000 / len(FILES), 1),
        "ratio": round(with_hooks / without, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--agents", default="claude,codex,gemini,copilot,qwen,opencode,pi,cline")
    args = parser.parse_args()
    found: list[tuple[str, str]] = []
    for agent in args.agents.split(","):
        exe = binary({"claude": "claude"}.get(agent, agent))
        if exe:
            found.append((agent, exe))
        else:
            print(f"{agent}: not installed, skipped", file=sys.stderr)
    report: Callable[[dict[str, Any]], None] = (
        (lambda r: print(json.dumps(r)))
        if args.json
        else (
            lambda r: print(
                f"{r['agent']:8} without hooks {r['without_s']:6.2f} s   with {r['with_s']:6.2f} s"
                f"   added {r['added_ms']:5d} ms per session, {r['added_ms_per_tool_call']:6.1f} ms"
                f" per tool call   (x{r['ratio']}, median of {r['rounds']})"
            )
        )
    )
    with tempfile.TemporaryDirectory(prefix="gitmem-live-bench-", ignore_cleanup_errors=True) as tmp:
        for agent, exe in found:
            report(measure(agent, exe, args.rounds, Path(tmp)))


if __name__ == "__main__":
    main()
