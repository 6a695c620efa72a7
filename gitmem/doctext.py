"""The text a record is keyword-indexed under (shared by the Whoosh index and the table's
FTS5 mirror). Standard library only."""

from __future__ import annotations

from typing import Any

FIELD_WEIGHTS = {"title": 3, "tags": 2, "paths": 1, "summary": 1, "body": 1}


def glob_words(globs: tuple[str, ...] | list[str]) -> str:
    """Globs as words, so a query mentioning ``x/fibre`` matches a record governing it."""
    parts: list[str] = []
    for glob in globs:
        if glob.startswith("!"):
            continue
        parts.extend(p for p in glob.replace("*", " ").replace("/", " ").split() if p)
    return " ".join(parts)


def weighted_text(d: Any) -> str:
    """The BM25F document ("simple BM25F": field weights applied to term frequencies by
    repetition): title x3, tags x2, glob words, summary (if not already in the body), body."""
    parts = [d.title] * FIELD_WEIGHTS["title"]
    parts += [" ".join(d.tags)] * FIELD_WEIGHTS["tags"]
    parts.append(glob_words(d.globs))
    if d.summary and d.summary[:80] not in d.body:
        parts.append(d.summary)
    parts.append(d.body)
    return "\n".join(p for p in parts if p)
