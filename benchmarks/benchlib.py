"""Timing helpers shared by the benchmarks (medians, side by side in one run)."""

from __future__ import annotations

import statistics
import subprocess
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
