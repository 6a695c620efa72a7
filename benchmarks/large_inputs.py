"""Hooks and the warm daemon on large inputs an agent sends in ordinary work: a pasted log,
a base64 blob, a list of file names, a minified run, a heredoc writing a generated file.

    python benchmarks/large_inputs.py [--sizes 10000,100000,1000000] [--runs 3]
        [--baseline /other/venv/bin/gitmem-hook] [--daemon] [--cap 60] [--json]

Each input is sent to `gitmem-hook claude prompt` (or `pre-tool`, for the heredoc) as a
fresh process, in a repository of 100 decisions with its keyword index, without a daemon;
`--baseline` times another install's hook on the same inputs, taking turns with this one
(an older release: what the fixes of session 40 changed). A run past `--cap` seconds is
killed and shown as `>CAP`. The installed hooks allow 10 s (`gitmem.agent.install.
TIMEOUT_S`): past that the agent kills the hook, and its decisions never arrive.

`--daemon` (needs GITMEM_EMBED_MODEL_DIR) also times the same prompts through a warm `gitmem
watch`, the model loaded: a request that takes long there makes every hook behind it wait
its second and answer without the daemon.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from benchlib import hook_installs
from why_lookup import make_repo

from gitmem import compile as compiler
from gitmem import index
from gitmem.agent import install
from gitmem.repo import discover

RULED = "services/svc0/mod3"  # where RULE_RECORD's critical rule governs
RULE_RECORD = f"""---
id: D-9999
title: Money is integer cents
status: accepted
date: 2026-01-01
severity: critical
globs: ["{RULED}/**"]
rules:
  - forbid: 'float\\('
    message: amounts are integer cents
---

## Decision

Amounts are integer cents, never floats.
"""


def _fill(unit: Callable[[int], str], size: int) -> str:
    parts: list[str] = []
    total, i = 0, 0
    while total < size:
        piece = unit(i)
        parts.append(piece)
        total += len(piece)
        i += 1
    return "".join(parts)[:size]


def inputs(size: int) -> dict[str, tuple[str, dict[str, object]]]:
    """name -> (hook event, payload fields) for inputs of ``size`` characters."""
    rnd = random.Random(size)
    blob = base64.b64encode(rnd.randbytes(size * 3 // 4 + 3)).decode()[:size]
    log = _fill(
        lambda i: (
            f"2026-01-01T00:00:{i % 60:02d} INFO services/svc0/mod3/handler_{i % 50}.py:"
            f"{i} Handler.process_event(user_id={i}) took {i % 97} ms\n"
        ),
        size,
    )
    files = _fill(lambda i: f"services/svc{i % 5}/mod{i % 10}/handler_{i}.py\n", size)
    dotted = _fill(lambda i: "x.", size)
    camel = _fill(lambda i: "Ab", size)
    code = _fill(lambda i: f"ROW_{i} = {{'id': {i}, 'amount_cents': {i * 7}}}\n", size)
    heredoc = f"cat > services/svc0/mod3/generated.py <<'EOF'\nDATA = '''\n{blob}\n'''\nEOF"
    return {
        "prompt: pasted log": ("prompt", {"prompt": f"why does this fail?\n{log}"}),
        "prompt: base64 blob": ("prompt", {"prompt": f"decode this: {blob}"}),
        "prompt: file list": ("prompt", {"prompt": f"review these files:\n{files}"}),
        "prompt: minified run": ("prompt", {"prompt": f"what is {dotted}"}),
        "prompt: case-change run": ("prompt", {"prompt": f"what is {camel}"}),
        "pre-tool: heredoc": (
            "pre-tool",
            {"tool_name": "Bash", "tool_input": {"command": heredoc}},
        ),
        # a generated file written where a critical rule governs, breaking it on its last
        # line: every added line is read against the rule (in blocks since session 49)
        "pre-tool: Write under a rule": (
            "pre-tool",
            {
                "tool_name": "Write",
                "tool_input": {
                    "file_path": f"{RULED}/fixtures.py",
                    "content": code + "T = float(1)\n",
                },
            },
        ),
    }


def timed(cmd: list[str], cwd: Path, data: bytes, cap: float) -> float:
    """Wall seconds, or inf when killed at ``cap``."""
    t0 = time.perf_counter()
    try:
        subprocess.run(
            cmd,
            cwd=cwd,
            input=data,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=cap,
        )
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.perf_counter() - t0


def daemon_times(root: Path, prompts: dict[str, str], cap: float) -> dict[str, float]:
    from gitmem import client
    from gitmem.location import locate

    proc = subprocess.Popen(
        [sys.executable, "-m", "gitmem", "watch", "--idle", "600", "--quiet"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        loc = locate(root)
        deadline = time.monotonic() + 120
        while client.retrieve_raw(loc, "warm up", [], k=5, cwd=str(root), timeout=30) is None:
            if time.monotonic() > deadline:
                sys.exit("the daemon did not answer within 2 minutes")
            time.sleep(0.5)
        out: dict[str, float] = {}
        for name, text in prompts.items():
            t0 = time.perf_counter()
            raw = client.retrieve_raw(loc, text, [], k=10, cwd=str(root), timeout=cap)
            out[name] = time.perf_counter() - t0 if raw is not None else float("inf")
            if raw is None:  # it is still busy with this one: the rest would queue
                break
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def shown(seconds: float, cap: float) -> str:
    return f">{cap:.0f} s" if seconds == float("inf") else f"{seconds:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", default=None, help="Another install's gitmem-hook.")
    ap.add_argument("--daemon", action="store_true", help="Also time a warm daemon.")
    ap.add_argument("--cap", type=float, default=60.0, help="Seconds before a run is killed.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    hooks = hook_installs(args.baseline)
    sizes = [int(s) for s in args.sizes.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="gitmem-large-"))
    rows: list[dict[str, object]] = []
    try:
        make_repo(tmp, 100)
        (tmp / ".continuity/decisions/9999-money.md").write_text(RULE_RECORD)
        repo = discover(tmp)
        compiler.build(repo)
        index.build(repo)
        counter = iter(range(10**9))
        for size in sizes:
            cases = inputs(size)
            for name, (event, fields) in cases.items():
                row: dict[str, object] = {"input": name, "chars": size}
                times: dict[str, list[float]] = {label: [] for label in hooks}
                for _ in range(args.runs):
                    for label, hook in hooks.items():
                        payload = {"session_id": f"L{next(counter)}", "cwd": str(tmp), **fields}
                        given = fields.get("tool_input")
                        if isinstance(given, dict) and "file_path" in given:  # absolute
                            path = str(tmp / str(given["file_path"]))
                            payload["tool_input"] = {**given, "file_path": path}
                        data = json.dumps(payload).encode()
                        times[label].append(timed([hook, "claude", event], tmp, data, args.cap))
                for label, ts in times.items():
                    row[label] = statistics.median(ts)
                rows.append(row)
                if not args.json:
                    line = f"{name:26s} {size:>9,d} chars  this {shown(row['this'], args.cap)}"  # type: ignore[arg-type]
                    if "baseline" in row:
                        line += f"  baseline {shown(row['baseline'], args.cap)}"  # type: ignore[arg-type]
                    print(line, flush=True)
        if args.daemon:
            prompts = {
                f"{name} {size:,d}": str(fields["prompt"])
                for size in sizes
                for name, (event, fields) in inputs(size).items()
                if event == "prompt"
            }
            for name, seconds in daemon_times(tmp, prompts, args.cap).items():
                rows.append({"input": f"daemon: {name}", "this": seconds})
                if not args.json:
                    print(f"daemon {name:40s} {shown(seconds, args.cap)}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"hook_timeout_s": install.TIMEOUT_S, "rows": rows}, default=str))
    else:
        print(f"(the installed hooks allow {install.TIMEOUT_S} s)")


if __name__ == "__main__":
    main()
