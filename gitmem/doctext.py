"""The text a record is keyword-indexed under (shared by the Whoosh index and the table's
FTS5 mirror). Standard library only, and ``gitmem.entities``."""

from __future__ import annotations

from typing import Any

from gitmem.entities import cjk_pairs

# The keyword fields and their weights. The Whoosh index keeps one field per part, the
# weight as its ``field_boost`` (term frequencies scaled before BM25 saturates them, each
# field normalised by its own average length); the FTS5 mirror repeats them in one text.
FIELD_WEIGHTS = {"title": 3, "tags": 2, "globs": 1, "summary": 1, "body": 1}
FIELDS = tuple(FIELD_WEIGHTS)


def glob_words(globs: tuple[str, ...] | list[str]) -> str:
    """Globs as words, so a query mentioning ``x/fibre`` matches a record governing it."""
    parts: list[str] = []
    for glob in globs:
        if glob.startswith("!"):
            continue
        parts.extend(p for p in glob.replace("*", " ").replace("/", " ").split() if p)
    return " ".join(parts)


# A body's first characters keyword-indexed, at most: ~30,000 words, ten times the longest
# ADR of the development sets. The text is analysed twice (Whoosh, the compiled postings)
# at ~2 us a word, and a record with 4.5 MB of pasted logs took 10 s to re-index, the
# daemon's one-record update included (session 40). The record's text is unchanged.
MAX_BODY_CHARS = 200_000


def field_texts(d: Any) -> tuple[str, ...]:
    """A record's text per keyword field, in ``FIELDS`` order. The summary counts only
    when the body does not already hold it. Runs of CJK characters are indexed as pairs
    (see ``entities.cjk_pairs``), as queries read them."""
    body = d.body[:MAX_BODY_CHARS]
    summary = d.summary if d.summary and d.summary[:80] not in body else ""
    texts = (d.title, " ".join(d.tags), glob_words(d.globs), summary, body)
    return tuple(cjk_pairs(text) for text in texts)


def weighted_text(d: Any) -> str:
    """The FTS5 mirror's document ("simple BM25F": field weights applied to term
    frequencies by repetition): title x3, tags x2, glob words, summary, body."""
    parts: list[str] = []
    for name, text in zip(FIELDS, field_texts(d), strict=True):
        if text:
            parts += [text] * FIELD_WEIGHTS[name]
    return "\n".join(parts)
