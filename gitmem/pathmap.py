"""The path map: which decisions govern a path, answered with a few seeks into one file.

The agent's tool-call hooks run as a fresh Python process on every Read, Edit or Bash, so
what they import is most of what they cost: ``sqlite3`` (which loads ``functools``,
``collections`` and ``datetime``), ``re``, ``pathlib`` and ``typing`` each add several
milliseconds to an interpreter that starts in ~15-20. This module answers "which decisions
govern these paths" with the standard library's built-in modules only (``os``), from a
file that ``gitmem index`` writes next to the SQLite table (``<git-dir>/gitmem/pathmap.bin``).

File layout (all offsets relative to the start of the body, 8-byte big-endian integers)::

    GITMEM-PATHMAP 1\\n
    {header JSON: counts, root, freshness fingerprint}\\n
    body: bucket table   nbuckets x (offset, length)   -> "key\\tI,I,I\\n" lines
          record table   nrecords x (offset, length)   -> one JSON array per decision
          key lines, record lines

A path's lookup keys (``path_keys``: its leading folders, component names, extension and
``*``, the same buckets the SQLite table uses) are hashed (FNV-1a) to buckets; each bucket
lists the records filed under its keys. The cost of a lookup depends on the path's depth,
never on the number of decisions.

Globs are matched without ``re``: at compile time ``classify`` recognises the regular
expressions pathspec emits for the common gitignore shapes (``dir/**``, ``dir/``, exact
paths, ``name``, ``*.ext``, ``**``) and stores an equivalent string test; anything else keeps
its regular expression, and ``re`` is imported only when such a pattern is a candidate.
A property test checks both forms agree.
"""

from __future__ import annotations

import os

from gitmem.vocab import SEVERITY_RANK

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, BinaryIO

MAGIC = b"GITMEM-PATHMAP 1\n"
MAP_NAME = "pathmap.bin"

# Pattern = (kind, literal, regex, negated, glob, specificity)
Pattern = tuple[str, str, str, bool, str, int]


# ------------------------------------------------------------------------------ keys


# Longer than Linux's PATH_MAX, or with a file name longer than NAME_MAX, a path names no
# file: a token of a pasted blob or a heredoc's base64 (whose "/" make it look like one).
# Such a path is looked up nowhere: its leading folders are as many keys as it has "/",
# and a 100,000-character one kept a tool-call hook busy for minutes (session 40).
PATH_MAX = 4096
NAME_MAX = 255


def could_name_a_file(path: str) -> bool:
    """Whether ``path`` is short enough to name a file (characters, not bytes: a path
    this refuses is too long in any encoding)."""
    if len(path) > PATH_MAX:
        return False
    return len(path) <= NAME_MAX or all(len(part) <= NAME_MAX for part in path.split("/"))


def path_keys(path: str) -> list[str]:
    """Every key under which a pattern matching ``path`` can be filed (see gitmem.globs)."""
    return [key for key, _ in _keyed(path, hashed=False)]


def _keyed(path: str, *, hashed: bool = True) -> list[tuple[str, int]]:
    """``path_keys`` with each key's hash (0 without ``hashed``: the SQLite table needs
    none). A leading folder's key extends the one before it, and so does its hash (FNV-1a
    reads bytes in order): hashing each from scratch made a deep path cost the square of
    its length."""
    fnv = _fnv if hashed else _no_hash
    update = _fnv_update if hashed else _no_update
    parts = [p for p in path.split("/") if p]
    out = [("*", fnv("*"))]
    prefix, h = "p:", update(_FNV_BASIS, b"p:")
    for i, part in enumerate(parts):
        if i:
            prefix, h = prefix + "/", update(h, b"/")
        prefix, h = prefix + part, update(h, part.encode("utf-8", "surrogatepass"))
        out.append((prefix, h))
    for part in parts:
        out.append(("n:" + part, fnv("n:" + part)))
        dot = part.rfind(".")
        if dot > 0:
            out.append(("x:" + part[dot:], fnv("x:" + part[dot:])))
    return out


def _no_hash(key: str) -> int:
    return 0


def _no_update(h: int, data: bytes) -> int:
    return 0


_FNV_BASIS = 0x811C9DC5


def _fnv_update(h: int, data: bytes) -> int:
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def _fnv(key: str) -> int:
    return _fnv_update(_FNV_BASIS, key.encode("utf-8", "surrogatepass"))


# ------------------------------------------------------------------------------ matching

_ANY = "^(?:.+/)?"
_DIR = "(?P<ps_d>/)"
_END = "(?:(?P<ps_d>/)|$)"
_SPECIAL = set(".^$*+?{}[]|()")


def _literal(text: str) -> str | None:
    """The literal a ``re.escape``d fragment stands for, or None if it is not one."""
    if "\\" not in text and _SPECIAL.isdisjoint(text):
        return text or None  # the common case, without a loop in Python
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            if i + 1 >= len(text) or text[i + 1].isalnum():
                return None  # \d, \w, ...: a class, not an escaped character
            out.append(text[i + 1])
            i += 2
            continue
        if ch in _SPECIAL:
            return None
        out.append(ch)
        i += 1
    return "".join(out) or None


# The unbounded pieces of pathspec's regular expressions: `*` is `[^/]*`, `**` is `.+` or
# `.*` in a group. Python's `re` backtracks, so a pattern with k of them may try ~n^k/k!
# ways on a path of n characters before it fails: `**/*a*a*a*b` took 0.73 s on a name of
# 255 "a"s, `*a*a*a*a*b` 7.4 s on 100, `**/a/**/a/**/a/**/b` 4.7 s on a path 200 folders
# deep, and with three pieces `**/a/**/a/**/b` 0.23 s at 511 characters, 0.91 s at 1,023
# (before session 53, in every hook where the pattern was a candidate). Such a pattern
# runs on RE2 instead, in linear time (~34 ms to import, paid only then): from
# ``LINEAR_FROM`` pieces always, and from 3 on a path longer than ``LONG_PATH`` (at 255
# characters the worst case measured took 29 ms). Two pieces took at most 77 ms on a
# path of 4,093 characters, the longest looked up (``PATH_MAX``).
_UNBOUNDED = ("[^/]*", ".+", ".*")
LINEAR_FROM = 4
LONG_PATH = 256
_NEVER = 1 << 62


def _linear_from(regex: str) -> int:
    """The length of text from which ``regex`` is run on RE2, not ``re``."""
    pieces = sum(regex.count(p) for p in _UNBOUNDED)
    return 0 if pieces >= LINEAR_FROM else LONG_PATH + 1 if pieces == 3 else _NEVER


_LINEAR: dict[str, Any] = {}


def _ends_as_in_re(regex: str) -> str:
    """``regex`` for RE2 with ``re``'s meaning of ``$``: the end, or before a newline that
    ends the text (RE2's ``$`` is the end only). A match is all that is asked for, so the
    newline may be consumed."""
    out: list[str] = []
    i, n = 0, len(regex)
    while i < n:
        ch = regex[i]
        if ch == "\\":
            out.append(regex[i : i + 2])
            i += 2
            continue
        if ch == "[":  # a set: `$` in it is a character; `]` first in it is one too
            j = i + 1
            if j < n and regex[j] == "^":
                j += 1
            if j < n and regex[j] == "]":
                j += 1
            while j < n and regex[j] != "]":
                j += 2 if regex[j] == "\\" else 1
            out.append(regex[i : j + 1])
            i = j + 1
            continue
        out.append(r"(?:\n?\z)" if ch == "$" else ch)
        i += 1
    return "".join(out)


_SEARCHERS: dict[str, Callable[[str], bool]] = {}


def searcher(regex: str) -> Callable[[str], bool]:
    """Whether ``regex`` finds a match in a string (``re.search``), in linear time where
    ``re`` could take seconds (see ``LINEAR_FROM``); made once per pattern."""
    found = _SEARCHERS.get(regex)
    if found is None:
        found = _SEARCHERS[regex] = _searcher(regex)
    return found


def _searcher(regex: str) -> Callable[[str], bool]:
    import re

    search = re.compile(regex).search
    start = _linear_from(regex)
    if start == _NEVER:
        return lambda s: search(s) is not None
    found = _LINEAR.get(regex)
    if found is None:
        import re2

        options = re2.Options()
        options.log_errors = False
        try:
            found = _LINEAR[regex] = re2.compile(_ends_as_in_re(regex), options=options)
        except Exception:  # past RE2's memory budget (a glob of many braces): as before
            return lambda s: search(s) is not None

    def linear(s: str) -> bool:
        if len(s) < start:
            return search(s) is not None
        try:
            return found.search(s) is not None
        except UnicodeEncodeError:  # a name that is not UTF-8, read with surrogateescape
            text = s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            return found.search(text) is not None

    return linear


def classify(regex: str) -> tuple[str, str]:
    """(kind, literal) of a pathspec regular expression; kind ``re`` when no string test
    is known to be equivalent."""
    if regex == ".":
        return "all", ""
    if regex.startswith(_ANY):
        body = regex[len(_ANY) :]
        if body.startswith("[^/]*") and body.endswith(_END):
            lit = _literal(body[5 : -len(_END)])
            if lit is not None and "/" not in lit:
                return "suffix", lit
        elif body.endswith(_END):
            lit = _literal(body[: -len(_END)])
            if lit is not None:
                return "name", lit
        elif body.endswith(_DIR):
            lit = _literal(body[: -len(_DIR)])
            if lit is not None:
                return "namedir", lit
        return "re", ""
    if regex.startswith("^"):
        body = regex[1:]
        if body.endswith(_END):
            lit = _literal(body[: -len(_END)])
            if lit is not None:
                return "exact", lit
        elif body.endswith(_DIR):
            lit = _literal(body[: -len(_DIR)])
            if lit is not None:
                return "under", lit
        elif body.endswith("/"):
            lit = _literal(body[:-1])
            if lit is not None:
                return "under", lit
    return "re", ""


def hit(kind: str, lit: str, regex: str, s: str) -> bool:
    """Whether ``re.search(regex, s)`` would match, with a string test when ``kind`` has one.
    Paths with a newline or a leading slash take the regular expression (``.`` and ``$``
    treat newlines specially, and ``.+/`` needs a character before the slash)."""
    if kind != "re" and "\n" not in s and not s.startswith("/"):
        if kind == "under":
            return s.startswith(lit + "/")
        if kind == "exact":
            return s == lit or s.startswith(lit + "/")
        if kind == "name":
            return ("/" + s + "/").find("/" + lit + "/") >= 0
        if kind == "namedir":
            return ("/" + s).find("/" + lit + "/") >= 0
        if kind == "suffix":
            return any(part.endswith(lit) for part in s.split("/"))
        if kind == "all":
            return bool(s)
    return searcher(regex)(s)


def governs(patterns: Sequence[Pattern], path: str, is_dir: bool = False) -> tuple[str, int] | None:
    """Gitignore semantics over one decision's ordered patterns: the last pattern that
    matches decides. Returns the most specific positive glob that matched, or None when
    the path is not governed. ``is_dir`` lets ``billing/**`` govern the folder itself."""
    included = False
    best: tuple[str, int] | None = None
    for kind, lit, regex, negated, glob, spec in patterns:
        if hit(kind, lit, regex, path) or (is_dir and hit(kind, lit, regex, path + "/")):
            if negated:
                included = False
                best = None
            else:
                included = True
                if best is None or spec > best[1]:
                    best = (glob, spec)
    return best if included else None


def patterns_of(raw: Iterable[Sequence[object]]) -> list[Pattern]:
    """(regex, negated, glob, specificity) rows as matchable patterns."""
    out: list[Pattern] = []
    for row in raw:
        regex = str(row[0])
        kind, lit = classify(regex)
        out.append((kind, lit, regex, bool(row[1]), str(row[2]), int(row[3])))  # type: ignore[call-overload]
    return out


# ------------------------------------------------------------------------------ freshness


def quick_fingerprint(root: str, watched: Sequence[str], folders: Sequence[str]) -> str:
    """mtimes of the watched files and folders and of the sub-folders known at compile time.

    Catches added, removed and renamed records (and editors that save by rename) with a
    stat call per folder, never listing the records themselves: a new sub-folder changes
    its parent's mtime. In-place edits are caught by the table's full fingerprint.
    """
    parts: list[str] = []
    for rel in [*watched, *folders]:
        try:
            parts.append(f"{rel}:{os.stat(os.path.join(root, rel)).st_mtime_ns}")
        except OSError:
            parts.append(f"{rel}:-")
    return "\n".join(parts)


# ------------------------------------------------------------------------------ records


class Decision:
    """What a hook shows about one decision (the ``gitmem.budget.Shown`` shape)."""

    __slots__ = (
        "current",
        "file",
        "has_rules",
        "id",
        "patterns",
        "severity",
        "status",
        "summary",
        "superseded_by",
        "title",
    )

    def __init__(self, row: list[object]) -> None:
        self.id = str(row[0])
        self.title = str(row[1])
        self.status = str(row[2])  # the effective status
        self.severity = str(row[3])
        self.file = str(row[4])
        self.summary = str(row[5])
        self.superseded_by = tuple(str(s) for s in row[6])  # type: ignore[attr-defined]
        self.current = bool(row[7])
        self.has_rules = bool(row[8])
        self.patterns: list[Pattern] = [
            (str(p[0]), str(p[1]), str(p[2]), bool(p[3]), str(p[4]), int(p[5]))
            for p in row[9]  # type: ignore[attr-defined]
        ]


def record_row(
    ident: str,
    title: str,
    status: str,
    severity: str,
    file: str,
    summary: str,
    superseded_by: Sequence[str],
    current: bool,
    has_rules: bool,
    patterns: Sequence[Pattern],
) -> list[object]:
    return [
        ident,
        title,
        status,
        severity,
        file,
        summary,
        list(superseded_by),
        current,
        has_rules,
        [list(p) for p in patterns],
    ]


def sort_key(item: tuple[Decision, str, int]) -> tuple[int, int, int, str]:
    """Current before superseded, then the most specific glob, then the most severe."""
    d, _, spec = item
    return (0 if d.current else 1, -spec, SEVERITY_RANK.get(d.severity, 3), d.id)


class PathMap:
    """A read-only path map (see the module docstring)."""

    def __init__(self, fh: BinaryIO, header: dict[str, object], base: int) -> None:
        self._fh = fh
        self.header = header
        self._base = base
        self._nbuckets = int(header["buckets"])  # type: ignore[call-overload]
        self._nrecords = int(header["records"])  # type: ignore[call-overload]
        self._records_at = 16 * self._nbuckets
        self._cache: dict[int, Decision] = {}
        # a hook asks about a shell word to keep it, then again for its decisions
        self._matched: dict[tuple[str, bool], list[tuple[Decision, str, int]]] = {}

    @classmethod
    def open(cls, path: str) -> PathMap | None:
        """Open a map; None when it is missing, truncated or of another version."""
        try:
            fh = open(path, "rb")  # noqa: SIM115 - closed by close()
        except OSError:
            return None
        return cls.read(fh)

    @classmethod
    def read(cls, fh: BinaryIO) -> PathMap | None:
        """A map read from ``fh`` (closed here when it is not one)."""
        from gitmem import leanjson

        try:
            if fh.readline() != MAGIC:
                raise ValueError("not a path map")
            header = leanjson.loads(fh.readline())
            if not isinstance(header, dict) or not isinstance(header.get("buckets"), int):
                raise ValueError("bad header")
            if header["buckets"] < 1:  # written by gitmem before session 30: rebuild it
                raise ValueError("no buckets")
            return cls(fh, header, fh.tell())
        except (OSError, ValueError, KeyError, TypeError):
            fh.close()
            return None

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> PathMap:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read(self, offset: int, length: int) -> bytes:
        self._fh.seek(self._base + offset)
        data = self._fh.read(length)
        if len(data) != length:
            raise ValueError("path map is truncated")
        return data

    def _slot(self, at: int) -> tuple[int, int]:
        raw = self._read(at, 16)
        return int.from_bytes(raw[:8], "big"), int.from_bytes(raw[8:], "big")

    def candidates(self, keys: Iterable[tuple[str, int]]) -> list[int]:
        """The records filed under ``keys`` (each with its hash, see ``_keyed``)."""
        out: set[int] = set()
        for key, hashed in keys:
            offset, length = self._slot(16 * (hashed % self._nbuckets))
            if not length:
                continue
            for line in self._read(offset, length).decode("utf-8", "surrogatepass").split("\n"):
                name, _, numbers = line.partition("\t")
                if name == key and numbers:
                    out.update(int(n) for n in numbers.split(","))
        return sorted(out)

    def record(self, i: int) -> Decision:
        cached = self._cache.get(i)
        if cached is not None:
            return cached
        from gitmem import leanjson

        if not 0 <= i < self._nrecords:
            raise ValueError(f"path map record {i} out of range")
        offset, length = self._slot(self._records_at + 16 * i)
        row = leanjson.loads(self._read(offset, length).decode("utf-8", "surrogatepass"))
        if not isinstance(row, list):
            raise ValueError(f"path map record {i} is not a list")
        d = Decision(row)
        self._cache[i] = d
        return d

    def match(self, path: str, is_dir: bool = False) -> list[tuple[Decision, str, int]]:
        """Decisions whose globs govern the repository-relative ``path``, best first, as
        (decision, matched glob, specificity)."""
        known = self._matched.get((path, is_dir))
        if known is not None:
            return list(known)
        if not could_name_a_file(path):
            return []
        out = []
        for i in self.candidates(_keyed(path)):
            d = self.record(i)
            found = governs(d.patterns, path, is_dir)
            if found is not None:
                out.append((d, found[0], found[1]))
        out.sort(key=sort_key)
        self._matched[(path, is_dir)] = out
        return list(out)


# ------------------------------------------------------------------------------ writing


def encode_row(record: list[object]) -> bytes:
    """One record line (json's C encoder: the writer is not on a hook's path; the same
    text leanjson writes)."""
    import json

    return json.dumps(record, separators=(",", ":")).encode("utf-8", "surrogatepass")


def encode_buckets(keys: dict[str, list[int]]) -> list[bytes]:
    """The bucket blobs for ``keys`` (lookup key -> record indexes)."""
    nbuckets = 1
    while nbuckets < 2 * max(len(keys), 1):
        nbuckets *= 2
    buckets: list[list[str]] = [[] for _ in range(nbuckets)]
    for key in sorted(keys):
        numbers = ",".join(str(n) for n in sorted(set(keys[key])))
        buckets[_fnv(key) % nbuckets].append(f"{key}\t{numbers}")
    return [("\n".join(lines)).encode("utf-8", "surrogatepass") for lines in buckets]


def write_encoded(
    dest: str, header: dict[str, object], blobs: Sequence[bytes], rows: Sequence[bytes]
) -> None:
    """Write a path map atomically (aside, then ``os.replace``) from its encoded bucket
    blobs (``encode_buckets``) and record lines (``encode_row``): a compile re-encodes
    only the records that changed."""
    import contextlib
    from pathlib import Path

    from gitmem.fsutil import create_aside

    fd, tmp = create_aside(Path(dest))  # 0666 less the umask, as the table (compile.py)
    try:
        with os.fdopen(fd, "wb") as fh:
            for part in _parts(header, blobs, rows):
                fh.write(part)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def encoded(header: dict[str, object], blobs: Sequence[bytes], rows: Sequence[bytes]) -> bytes:
    """The bytes of the path map ``write_encoded`` writes: for a process that could not
    write it, which holds it in memory (see ``gitmem.compile.build_in_memory``)."""
    return b"".join(_parts(header, blobs, rows))


def _parts(header: dict[str, object], blobs: Sequence[bytes], rows: Sequence[bytes]) -> list[bytes]:
    import json

    nbuckets = len(blobs)
    offset = 16 * (nbuckets + len(rows))
    table = bytearray()
    for blob in [*blobs, *rows]:
        table += offset.to_bytes(8, "big") + len(blob).to_bytes(8, "big")
        offset += len(blob)
    head = {**header, "buckets": nbuckets, "records": len(rows)}
    return [
        MAGIC,
        json.dumps(head, separators=(",", ":")).encode() + b"\n",
        bytes(table),
        b"".join(blobs),
        b"".join(rows),
    ]
