"""What a prompt talks about: paths, code identifiers, quoted names, and plain words.

Used by every ranker: paths feed the glob ranker, identifiers and quoted spans are boosted
in BM25, and everything feeds the embedding query. On the prompt hook's path: ``re`` and
nothing else (no ``typing``).
"""

from __future__ import annotations

import re

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_QUOTED = re.compile(r"`([^`\n]{2,80})`|\"([^\"\n]{2,80})\"|'([^'\n]{2,80})'")
_PATHLIKE = re.compile(
    r"(?<![\w/.-])((?:\.{0,2}/)?[\w.@+-]+(?:/[\w.@+-]+)+/?|[\w@+-]+\.[A-Za-z][\w]{0,7})(?![\w/])"
)
_IDENT = re.compile(
    r"\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b|\b[A-Za-z_][A-Za-z0-9_]*\b"
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z0-9]+")
_NOT_EXT = {"e.g", "i.e", "etc", "vs", "a.k.a"}
STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    }
)


class QueryTerms:
    __slots__ = ("identifiers", "paths", "quoted", "words")

    def __init__(
        self,
        paths: tuple[str, ...],
        identifiers: tuple[str, ...],  # dotted, snake_case, CamelCase, mixedCase names
        quoted: tuple[str, ...],
        words: tuple[str, ...],  # every word, lowercased, in order
    ) -> None:
        self.paths = paths
        self.identifiers = identifiers
        self.quoted = quoted
        self.words = words


def is_identifier(token: str) -> bool:
    if "." in token:
        return all(part for part in token.split("."))
    if "_" in token.strip("_"):
        return True
    return bool(re.search(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]", token))


def split_words(token: str) -> list[str]:
    """``ValsetConfirm`` -> [valset, confirm]; ``x/fibre/keeper.go`` -> [x, fibre, keeper, go]."""
    out: list[str] = []
    for piece in _WORD.findall(token):
        parts = _CAMEL.findall(piece) or [piece]
        out.extend(p.lower() for p in parts)
        if len(parts) > 1:
            out.append(piece.lower())
    return out


def extract(text: str) -> QueryTerms:
    clean = _URL.sub(" ", text)
    quoted = tuple(dict.fromkeys(a or b or c for a, b, c in _QUOTED.findall(clean)))
    paths: list[str] = []
    for match in _PATHLIKE.finditer(clean):
        token = match.group(1).rstrip(".,;:")
        low = token.lower()
        if low in _NOT_EXT or token.replace(".", "").isdigit():
            continue
        if "/" not in token and not re.search(r"\.[A-Za-z]", token):
            continue
        paths.append(token.lstrip("./") if token.startswith("./") else token)
    identifiers = [
        m for m in _IDENT.findall(clean) if is_identifier(m) and m.lower() not in _NOT_EXT
    ]
    words = tuple(w.lower() for w in _WORD.findall(clean))
    return QueryTerms(tuple(dict.fromkeys(paths)), tuple(dict.fromkeys(identifiers)), quoted, words)
