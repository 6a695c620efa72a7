"""Where the index lives and how to read its metadata. Standard library only: the prompt
hook reads these without importing the index builder."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gitmem.repo import Repo

FORMAT = 5  # 3: compiled keyword postings (bm25.npz); 4: one keyword field per part;
# 5: words mixing letters and digits kept whole (gitmem.wordfilter)


def index_dir(repo: Repo) -> Path:
    return repo.state_dir / "index"


def current_generation(repo: Repo) -> Path | None:
    try:
        name = (index_dir(repo) / "CURRENT").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    gen = index_dir(repo) / name
    return gen if name.startswith("gen-") and gen.is_dir() else None


def read_meta(gen: Path) -> dict[str, Any] | None:
    try:
        meta = json.loads((gen / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        return None
    return meta


def is_stale(
    meta: dict[str, Any], table_full: str | None, table_path: str | os.PathLike[str]
) -> bool:
    """Whether the records changed since the index was built: the index records the
    fingerprint of the record files its table was compiled from (``source``); indexes
    written before that compare their build time with the table file's."""
    source = meta.get("source")
    if source:
        return bool(source != table_full)
    try:
        table_mtime = os.stat(table_path).st_mtime
    except OSError:
        table_mtime = 0.0
    return float(meta.get("built", 0)) < table_mtime - 1e-3
