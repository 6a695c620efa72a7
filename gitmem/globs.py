"""Gitignore-style globs: validation, regex form, specificity and lookup keys.

Compiling uses ``pathspec`` (the reference implementation of gitignore matching); the
compiled table stores plain regular expressions so that lookups need only ``re``.

Lookup keys let a path find its candidate decisions without scanning all of them:

* ``p:<dir>``  the literal leading directories of an anchored pattern (``billing/api/**``)
* ``n:<name>`` a literal name that may occur at any depth (``migrations``, ``**/Dockerfile``)
* ``x:<ext>``  the extension of an any-depth ``*.ext`` pattern
* ``*``        everything else (always a candidate)

A path generates all its prefixes, component names and its extension, so a lookup touches a
number of keys that depends on the path's depth, not on the number of decisions.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import NamedTuple

from gitmem.pathmap import governs, path_keys, patterns_of, searcher

__all__ = [
    "CompiledGlob",
    "Files",
    "GlobError",
    "brackets_literal",
    "compile_glob",
    "compile_globs",
    "expand_braces",
    "lookup_key",
    "matches",
    "matches_any",
    "path_keys",
    "split_list",
]

_WILD = re.compile(r"[*?\[]")


class CompiledGlob(NamedTuple):
    glob: str
    regex: str
    negated: bool
    specificity: int
    key: str | None  # None for negations (they never make a path a candidate)


class GlobError(ValueError):
    pass


@lru_cache(maxsize=8192)
def compile_glob(glob: str) -> CompiledGlob:
    """Validate and compile one gitignore-style pattern (``!`` negates)."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    text = glob.strip()
    if not text or text.startswith("#"):
        raise GlobError("empty pattern")
    if text in ("!", "/"):
        raise GlobError(f"pattern {glob!r} matches nothing")
    if text.count("[") != text.count("]"):
        raise GlobError(f"unbalanced brackets in {glob!r}")
    spelled = _posix_classes(text)
    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(spelled)
    except Exception as exc:  # pathspec raises a few different types
        raise GlobError(f"invalid pattern {glob!r}: {exc}") from exc
    if regex is None or include is None:
        raise GlobError(f"pattern {glob!r} matches nothing")
    regex_s = _literal_brackets(regex if isinstance(regex, str) else regex.decode())
    try:
        re.compile(regex_s)
    except re.error as exc:
        raise GlobError(f"invalid pattern {glob!r}: {exc}") from exc
    negated = not include
    body = text[1:] if negated else text
    return CompiledGlob(
        glob=text,
        regex=regex_s,
        negated=negated,
        specificity=specificity(body),
        key=None if negated else lookup_key(body),
    )


_SET = re.compile(r"(?<!\\)([\[\]])")


def brackets_literal(glob: str) -> str | None:
    """``glob`` with its unescaped `[` and `]` escaped, or None when it has none."""
    out = _SET.sub(r"\\\1", glob)
    return None if out == glob else out


def compile_globs(glob: str) -> list[CompiledGlob]:
    """``compile_glob`` for each glob that ``glob``'s brace lists expand to, and for each
    of those with a `[...]` set, the same with the set read as part of a name: Next.js,
    SvelteKit, Astro and Nuxt name route folders and files `[slug]`, `[...all]`, and a
    decision written `app/blog/[slug]/**` meant that folder, where gitignore reads one of
    the letters s, l, u, g (before session 41 it governed `app/blog/s/...` alone)."""
    out: list[CompiledGlob] = []
    for one in expand_braces(glob):
        compiled = compile_glob(one)
        out.append(compiled)
        named = brackets_literal(one)
        if named is not None:  # said as written: `matched app/blog/[slug]/**`
            out.append(compile_glob(named)._replace(glob=compiled.glob))
    return out


def matches_any(glob: str, files: Iterable[str] | Files) -> bool:
    """Whether ``glob`` (any of its brace expansions) matches one of ``files``: a written
    glob is stale only if none does. With ``Files``, only the files its lookup keys name
    are searched."""
    within = files if isinstance(files, Files) else Files(files, index=False)
    return any(within.any_match(c.regex, c.key) for c in compile_globs(glob))


class Files:
    """A repository's files, asked whether a pattern matches any of them. A pattern's
    match always has the pattern's lookup key among its own keys (``path_keys``: what the
    table's lookup rests on, property-tested), so only those files are searched: the ones
    under a pattern's literal folder, found by bisection in the sorted list, or with its
    literal name or extension in some component. Before session 44 every file was
    searched for every glob at every commit (``gitmem check --staged``): for a one-line
    change in a repository of 200,000 files, 1.2 s with 60 decisions and 6.2 s with 200;
    now 0.38 and 0.43 s (`git status` there: 0.33-0.53 s; benchmarks/check_speed.py)."""

    def __init__(self, files: Iterable[str], *, index: bool = True) -> None:
        self._files = sorted(files) if index else list(files)
        self._index = index

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def any_match(self, regex: str, key: str | None) -> bool:
        search = searcher(regex)
        return any(search(f) for f in self.candidates(key))

    def under(self, folder: str) -> list[str]:
        """The files under ``folder`` (repository-relative; "" for the root: all)."""
        return [f for f in self._under(folder) if f != folder] if folder else list(self)

    def holds(self, path: str) -> bool:
        """Whether ``path`` is one of the files, or a folder holding some."""
        return next(self._under(path), None) is not None

    def candidates(self, key: str | None) -> Iterable[str]:
        """The files that have ``key`` among their ``path_keys`` (all of them for the
        catch-all key or none)."""
        if not self._index or key is None or key == "*":
            return self._files
        kind, _, text = key.partition(":")
        if kind == "p":
            return self._under(text)
        return (f for f in self._files if text in f and key in path_keys(f))

    def _under(self, folder: str) -> Iterator[str]:
        """``folder`` itself and the files under it: they sort together (every name that
        starts with ``folder`` does), so the run starts where bisection puts ``folder``."""
        files = self._files
        for i in range(bisect.bisect_left(files, folder), len(files)):
            f = files[i]
            if not f.startswith(folder):
                return
            if len(f) == len(folder) or f[len(folder)] == "/":
                yield f


# Brace lists are how agents write the globs of their own rules (Claude Code's `paths:`,
# Cursor's `globs:`, both minimatch), so a decision gets them too: `src/**/*.{ts,tsx}`
# would otherwise match no file, the decision governing nothing. Gitignore patterns have no
# braces, so a brace list is expanded into the globs it stands for before compiling.
MAX_EXPANSIONS = 64


def expand_braces(glob: str) -> list[str]:
    """``src/*.{ts,tsx}`` as ``src/*.ts`` and ``src/*.tsx``, nested lists too (``{a,b{1,2}}``
    gives ``a``, ``b1``, ``b2``). As in the shell and minimatch, a brace pair with no comma of
    its own, an escaped brace and one inside a ``[...]`` set stay literal. More than
    MAX_EXPANSIONS globs is an error: a typo, not a list."""
    out = _expand(glob)
    if len(out) > MAX_EXPANSIONS:
        raise GlobError(f"{glob!r} expands to more than {MAX_EXPANSIONS} globs")
    return out


def split_list(text: str) -> list[str]:
    """A comma-separated string of globs (Cursor's `globs:` form), split at the commas that
    are not inside a brace list or a ``[...]`` set; blanks dropped."""
    parts: list[str] = []
    last = 0
    for i, depth in _scan(text):
        if text[i] == "," and depth == 0:
            parts.append(text[last:i])
            last = i + 1
    parts.append(text[last:])
    return [p.strip() for p in parts if p.strip()]


def _scan(text: str) -> list[tuple[int, int]]:
    """The positions of ``{``, ``}`` and ``,`` that are not escaped or inside a ``[...]``
    set, each with the brace depth before it."""
    out: list[tuple[int, int]] = []
    i, depth, in_set = 0, 0, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if in_set:
            in_set = c != "]"
        elif c == "[":
            in_set = True
            i += 1 + (text[i + 1 : i + 2] in ("!", "^"))
            i += text[i : i + 1] == "]"  # a `]` first in a set is a member
            continue
        elif c in "{},":
            out.append((i, depth))
            depth = depth + 1 if c == "{" else max(0, depth - 1) if c == "}" else depth
        i += 1
    return out


def _expand(text: str) -> list[str]:
    marks = _scan(text)
    for n, (start, depth) in enumerate(marks):
        if text[start] != "{":
            continue
        commas: list[int] = []
        for i, d in marks[n + 1 :]:
            if text[i] == "," and d == depth + 1:
                commas.append(i)
            elif text[i] == "}" and d == depth + 1:
                if not commas:
                    break  # `{a}`: literal; look for the next list
                bounds = [start, *commas, i]
                head, tail = text[:start], text[i + 1 :]
                out: list[str] = []
                for a, b in itertools.pairwise(bounds):
                    out.extend(_expand(head + text[a + 1 : b] + tail))
                    if len(out) > MAX_EXPANSIONS:
                        break
                return out
    return [text]


# git's bracket expressions take POSIX classes (`[[:upper:]]*.py`); pathspec reads
# `[[:upper:]` as a set and the last `]` as a literal. The ASCII classes become ranges
# before pathspec sees the pattern; the others are refused by name.
_POSIX = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "xdigit": "0-9A-Fa-f",
}
_CLASS = re.compile(r"\[:([a-z]*):\]")


Member = Callable[[str, int], tuple[str, int]]


def _sets(text: str, negations: tuple[str, ...], member: Member) -> str:
    """``text`` with the body of each bracket expression rewritten, one member at a time
    (``member(text, i)``: what to write for the member at ``i``, and where the next
    starts). A backslash escapes the character after it; a ``]`` right after the opening
    (and negation) is a member."""
    out: list[str] = []
    i, in_set = 0, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            out.append(text[i : i + 2])
            i += 2
        elif not in_set and c == "[":
            j = i + 1 + (text[i + 1 : i + 2] in negations)
            j += text[j : j + 1] == "]"
            out.append(text[i:j])
            i, in_set = j, True
        elif in_set and c != "]":
            piece, i = member(text, i)
            out.append(piece)
        else:
            in_set = in_set and c != "]"
            out.append(c)
            i += 1
    return "".join(out)


def _posix_class(text: str, i: int) -> tuple[str, int]:
    m = _CLASS.match(text, i)
    if m is None:
        return text[i], i + 1
    if m.group(1) not in _POSIX:
        raise GlobError(
            f"character class [:{m.group(1)}:] in {text!r} is not supported:"
            f" use one of {', '.join(f'[:{n}:]' for n in _POSIX)}, or a range"
        )
    return _POSIX[m.group(1)], m.end()


def _posix_classes(text: str) -> str:
    """``text`` with each POSIX class inside a bracket expression spelled as ranges."""
    return _sets(text, ("!", "^"), _posix_class)


def _literal_brackets(regex: str) -> str:
    """``regex`` with each `[` inside a character set escaped: the same set (a `[` member),
    without Python's "possible nested set" FutureWarning, which a hook would print."""
    return _sets(regex, ("^",), lambda r, i: ("\\[" if r[i] == "[" else r[i], i + 1))


def specificity(pattern: str) -> int:
    """Higher is more specific: literal path segments count most, then literal characters,
    and each ``**`` costs. ``billing/api/charge.py`` > ``billing/api/*.py`` > ``billing/**``
    > ``*.py`` > ``**``."""
    parts = [p for p in pattern.strip("/").split("/") if p]
    literal_segments = sum(1 for p in parts if not _WILD.search(p))
    literal_chars = sum(len(_WILD.sub("", p)) for p in parts if p != "**")
    anchored = 1 if "/" in pattern.rstrip("/") else 0
    return literal_segments * 100 + anchored * 10 + literal_chars - 20 * pattern.count("**")


def lookup_key(pattern: str) -> str:
    """The bucket a positive pattern is filed under (see the module docstring)."""
    p = pattern.rstrip("/")
    if p.startswith("**/"):
        return _name_key(p[3:].split("/", 1)[0])
    if "/" not in p:
        return _name_key(p)
    parts = p.lstrip("/").split("/")
    prefix: list[str] = []
    for part in parts:
        if _WILD.search(part) or "\\" in part:
            break
        prefix.append(part)
    return "p:" + "/".join(prefix) if prefix else "*"


def _name_key(segment: str) -> str:
    if not segment or "\\" in segment:
        return "*"
    if not _WILD.search(segment):
        return "n:" + segment
    if segment.startswith("*") and not _WILD.search(segment[1:]) and "." in segment:
        return "x:" + segment[segment.rfind(".") :]
    return "*"


def matches(
    patterns: list[tuple[str, bool, str, int]], path: str, is_dir: bool = False
) -> tuple[str, int] | None:
    """Gitignore semantics over one decision's ordered patterns, given as (regex, negated,
    glob, specificity): the last pattern that matches decides. Returns the most specific
    positive glob that matched, or None when the path is not governed (see
    ``gitmem.pathmap.governs``, which does the matching)."""
    return governs(patterns_of(patterns), path, is_dir)
