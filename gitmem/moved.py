"""imported.yaml's entries for ADRs that were renamed or whose log moved (since session 68).

imported.yaml keys each ADR read in place by its file's path. An ADR renamed (its title
reworded in the file name, its number changed by hand after a merge) or a log moved
(`git mv docs/adr docs/decisions`) left its entry under the old path: the ADR then loaded
with globs inferred afresh, and the globs a person had reviewed (``inferred: false``) were
lost without a word. Here the ADR it became is found, by its name alone, with no git
call (loading runs in the agents' hooks): the same file name elsewhere (a log moved), else
in the same folder the same number (a title reworded), else the same title after the
number (a number changed). A pairing is made only where it is the one candidate both ways.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable

from gitmem.adrimport import number_of

# the title part of a numbered name: `0012-use-queues.md` -> `use-queues.md`
_AFTER_NUMBER = re.compile(r"^(?:[A-Za-z]+[-_ ]?)?\d+[-_ ]?")


def moves(listed: Collection[str], present: Iterable[str]) -> dict[str, str]:
    """{ADR file now: the path imported.yaml still lists it under}, for the ADRs that
    imported.yaml does not list (``listed``: its keys) among ``present`` (the ADRs read
    in place), each matched to one listed path that is no longer present."""
    here = set(present)
    gone = sorted(k for k in listed if k not in here)
    new = sorted(r for r in here if r not in listed)
    if not gone or not new:
        return {}
    out: dict[str, str] = {}
    for key in (_name, _folder_number, _folder_title):
        paired = _pairs(
            [r for r in new if r not in out], [g for g in gone if g not in out.values()], key
        )
        out.update(paired)
    return out


def _pairs(new: list[str], gone: list[str], key: Callable[[str], object]) -> dict[str, str]:
    """The pairs one ``key`` makes where each side has exactly one match on the other."""
    by_key: dict[object, list[str]] = defaultdict(list)
    for g in gone:
        k = key(g)
        if k is not None:
            by_key[k].append(g)
    claims: dict[object, list[str]] = defaultdict(list)
    for r in new:
        k = key(r)
        if k is not None and k in by_key:
            claims[k].append(r)
    return {
        found[0]: by_key[k][0]
        for k, found in claims.items()
        if len(found) == 1 and len(by_key[k]) == 1
    }


def _name(path: str) -> object:
    return posixpath.basename(path)


def _folder_number(path: str) -> object:
    n = number_of(posixpath.basename(path))
    return None if n is None else (posixpath.dirname(path), n)


def _folder_title(path: str) -> object:
    name = posixpath.basename(path)
    if number_of(name) is None:
        return None
    title = _AFTER_NUMBER.sub("", name)
    return (posixpath.dirname(path), title) if title and title != name else None
