"""Fail-open execution of agent hooks.

Whatever goes wrong inside gitmem (malformed stdin, no repository, a missing or corrupt
index, unreadable records, a crash) the hook exits 0 with valid JSON or nothing on stdout,
and the reason goes to ``<git-common-dir>/gitmem/hook-errors.log`` where ``gitmem doctor``
shows it. The last successful run of each event is kept for ``gitmem doctor`` as well.
Deliberate blocks (a critical decision's rule, a later issue) are the only exit 2.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ERROR_LOG = "hook-errors.log"
STATUS_DIR = "hook-status"
MAX_LOG_BYTES = 256 * 1024


def _log_error(shared: Path | None, event: str, message: str) -> None:
    if shared is None:
        return
    try:
        shared.mkdir(parents=True, exist_ok=True)
        log = shared / ERROR_LOG
        if log.exists() and log.stat().st_size > MAX_LOG_BYTES:
            os.replace(log, shared / (ERROR_LOG + ".1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} claude {event}: {message}\n")
    except OSError:
        pass


def _record_success(shared: Path, event: str, ms: float) -> None:
    try:
        folder = shared / STATUS_DIR
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".claude-{event}.{os.getpid()}"
        tmp.write_text(json.dumps({"time": time.time(), "ms": round(ms, 2)}))
        os.replace(tmp, folder / f"claude-{event}.json")
    except OSError:
        pass


def run_claude(event: str, stdin: Any = None, stdout: Any = None) -> int:
    started = time.perf_counter()
    out = stdout if stdout is not None else sys.stdout
    shared: Path | None = None
    result: dict[str, Any] | None = None
    try:
        from gitmem.agent import claude

        handler = claude.HANDLERS.get(event)
        raw = (stdin if stdin is not None else sys.stdin.buffer).read()
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", "replace")
        payload: Any = json.loads(raw) if raw.strip() else {}
        if not isinstance(payload, dict):
            raise ValueError(f"stdin is JSON but not an object: {type(payload).__name__}")
        from gitmem.errors import NotARepositoryError
        from gitmem.repo import discover

        cwd = payload.get("cwd")
        try:
            repo = discover(cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None)
        except NotARepositoryError:
            return _emit(out, None)  # not a git repository: nothing to do, nothing to log
        shared = repo.shared_state_dir
        if handler is None:
            raise ValueError(f"unknown event {event!r}; use one of {', '.join(claude.HANDLERS)}")
        if event == "session-start":
            claude.autostart_daemon(repo)
        result = handler(repo, payload)
        _record_success(shared, event, (time.perf_counter() - started) * 1000)
    except Exception as exc:  # fail open: our bug must never block the agent
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        loc = f" at {where[0].filename}:{where[0].lineno}" if where else ""
        _log_error(shared or _guess_shared(), event, f"{detail}{loc}")
        result = None
    return _emit(out, result)


def _guess_shared() -> Path | None:
    try:
        from gitmem.repo import discover

        return discover().shared_state_dir
    except Exception:
        return None


def _emit(out: Any, result: dict[str, Any] | None) -> int:
    if result:
        try:
            out.write(json.dumps(result))
            out.flush()
        except (OSError, ValueError, TypeError):
            pass
    return 0
