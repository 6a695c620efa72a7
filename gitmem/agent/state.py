"""Per-session state: which decisions were shown, which paths were read and edited.

One append-only JSON-lines file per session under ``<git-common-dir>/gitmem/sessions/``,
written under an exclusive ``flock`` so that parallel hooks of one session and concurrent
sessions never lose or duplicate an entry. Pure standard library.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


class SessionView(NamedTuple):
    shown: set[str]
    read: list[str]
    edited: list[str]
    closed: bool


def session_file(shared_dir: Path, session_id: str) -> Path:
    name = _SAFE.sub("_", session_id or "unknown")[:120] or "unknown"
    return shared_dir / "sessions" / f"{name}.jsonl"


def _parse(lines: list[str]) -> SessionView:
    shown: set[str] = set()
    read: list[str] = []
    edited: list[str] = []
    closed = False
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a torn line from a crash: skip it
        if not isinstance(item, dict):
            continue
        kind = item.get("k")
        if kind == "shown":
            shown.update(str(i) for i in item.get("ids", []))
        elif kind == "reset":
            shown.clear()
        elif kind == "read":
            read.extend(str(p) for p in item.get("paths", []))
        elif kind == "edited":
            edited.extend(str(p) for p in item.get("paths", []))
        elif kind == "closed":
            closed = True
    return SessionView(shown, read, edited, closed)


class Session:
    """An open, locked session file: read the view, then append."""

    def __init__(self, fh: Any) -> None:
        self._fh = fh

    def view(self) -> SessionView:
        self._fh.seek(0)
        return _parse(self._fh.read().splitlines())

    def append(self, kind: str, **data: Any) -> None:
        record = {"k": kind, "t": round(time.time(), 3), **data}
        self._fh.seek(0, os.SEEK_END)
        self._fh.write(json.dumps(record, separators=(",", ":")) + "\n")
        self._fh.flush()


@contextmanager
def open_session(shared_dir: Path, session_id: str) -> Iterator[Session]:
    path = session_file(shared_dir, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield Session(fh)
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def read_view(shared_dir: Path, session_id: str) -> SessionView:
    try:
        lines = session_file(shared_dir, session_id).read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    return _parse(lines)
