"""Timing helpers shared by the benchmarks (medians, side by side in one run)."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path


def median_ms(fn: Callable[[], object], runs: int) -> float:
    """Median wall time of ``fn()`` in milliseconds."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def wall_ms(
    cmd: list[str],
    cwd: Path,
    runs: int,
    *,
    stdin: str = "",
    env: Mapping[str, str] | None = None,
    check: bool = True,
) -> float:
    """Median wall time of a fresh process running ``cmd``, in milliseconds."""
    return median_ms(
        lambda: subprocess.run(
            cmd,
            cwd=cwd,
            input=stdin.encode(),
            env=None if env is None else dict(env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=check,
        ),
        runs,
    )


def interleaved_ms(
    cmds: Mapping[str, tuple[list[str], Callable[[], str]]],
    cwd: Path,
    runs: int,
    cwds: Mapping[str, Path] | None = None,
    settle: Callable[[], None] | None = None,
) -> dict[str, float]:
    """Median wall time of fresh processes, the commands taking turns run after run (so a
    machine that speeds up or slows down during the benchmark affects them alike). Each
    command is (argv, a function returning its stdin for the next run), run in ``cwd``
    unless ``cwds`` names another folder for it; ``settle``, if given, after each (untimed):
    to let what a command left running in the background finish before the next."""
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, (cmd, stdin) in cmds.items():
            data = stdin().encode()
            where = (cwds or {}).get(name, cwd)
            t0 = time.perf_counter()
            subprocess.run(
                cmd, cwd=where, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            times[name].append((time.perf_counter() - t0) * 1000)
            if settle is not None:
                settle()
    return {name: statistics.median(t) for name, t in times.items()}


def wait_for_detached(folder: Path, timeout_s: float = 30.0) -> None:
    """Wait until no process gitmem started detached (`gitmem.spawn`: a `runpy`
    trampoline given the folder to change into) runs under ``folder``: the background
    refresh a git hook starts, the flusher a stop hook starts. Linux (/proc); elsewhere, a
    no-op."""
    if not os.path.isdir("/proc"):
        return
    needle = str(folder).encode()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        busy = False
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    cmdline = fh.read()
            except OSError:
                continue
            if b"runpy" in cmdline and needle in cmdline:
                busy = True
                break
        if not busy:
            return
        time.sleep(0.02)


def hook_installs(baseline: str | None) -> dict[str, str]:
    """The `gitmem-hook` of this Python's install ("this") and, if given, another install's
    ("baseline"), to time side by side; exits where this one has none."""
    here = os.path.dirname(sys.executable)
    ours = shutil.which("gitmem-hook", path=here) or shutil.which("gitmem-hook")
    if ours is None:
        sys.exit("gitmem-hook is not installed in this environment")
    return {"this": ours, **({"baseline": baseline} if baseline else {})}


def install_demos(root: Path, installs: Mapping[str, str]) -> dict[str, Path]:
    """A copy of the demo repository for each install (label -> its `gitmem-hook`), made
    by that install's own `gitmem demo`, under ``root``."""
    demos: dict[str, Path] = {}
    for label, hook in installs.items():
        demo = demos[label] = root / label
        gitmem = str(Path(hook).with_name("gitmem"))
        subprocess.run([gitmem, "demo", str(demo)], capture_output=True, check=True)
    return demos


def warm(cmds: Mapping[str, tuple[list[str], Callable[[], str]]], cwds: Mapping[str, Path]) -> None:
    """Run each command twice, untimed: byte-code, the table and what a first call
    notes, before the timed runs."""
    for name, (cmd, stdin) in cmds.items():
        for _ in range(2):
            subprocess.run(cmd, cwd=cwds[name], input=stdin(), text=True, capture_output=True)
