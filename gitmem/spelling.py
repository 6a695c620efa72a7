"""Paths spelled as a case-insensitive file system stores them (macOS, Windows).

On APFS and HFS+ (macOS's defaults) and on NTFS, ``src/Payments/api.py`` and
``src/payments/API.py`` name one file, stored under the spelling it was made with; git
probes for such a file system at ``git init`` and ``git clone`` and sets
``core.ignorecase``. An agent's tool call, a user's shell or a prompt names a file in
whatever case it was typed, and a shell's ``cd`` into ``~/code/myapp`` leaves the working
folder spelled so even where the folder is ``~/Code/MyApp``. Before session 60 gitmem took
such a path as written: it matched no glob (no decision was shown, and a critical
decision's rule let the edit through), and a folder spelled otherwise than the repository's
root was taken for another repository, or for none.

In a repository whose ``core.ignorecase`` is true, gitmem now spells a path as it is
stored before it matches it: each name on the way is looked up in its folder's listing,
regardless of case and of Unicode normalization (APFS's lookups ignore both), and taken as
the listing has it; names not there yet (a file about to be written) stay as given. With
``core.precomposeunicode`` (git's default on macOS), names are given in NFC, as git gives
them. The repository's root is spelled so too, once per process (``gitmem.location``).

Globs keep matching as they are written, case and all: a record means the same on every
teammate's machine and in CI on Linux, as the agents' own path rules do (Claude Code's
``paths:``, Cursor's ``globs:``). ``gitmem lint`` names the spelling a glob misses.

Standard library only: the tool-call hooks import this module in such repositories.
"""

from __future__ import annotations

import os

# git config keys (lower case, as git compares them) and what they mean here
IGNORECASE = "ignorecase"
PRECOMPOSE = "precomposeunicode"


def fold(name: str) -> str:
    """The key names are compared by: case and Unicode normalization put aside."""
    if name.isascii():
        return name.lower()
    import unicodedata

    return unicodedata.normalize("NFD", name).casefold()


def flags(config_text: str) -> tuple[bool, bool]:
    """(``core.ignorecase``, ``core.precomposeunicode``) as a git config file's text sets
    them: its last value of each, false where it is not set."""
    from gitmem.gitconfig import core

    found = core(config_text, (IGNORECASE, PRECOMPOSE))
    values = [found.get(name, "false") for name in (IGNORECASE, PRECOMPOSE)]
    on = [truth("true" if v is None else v) for v in values]  # a bare key is true
    return on[0], on[1]


def truth(raw: str) -> bool:
    """A git boolean: true, yes, on or a non-zero number (``010``, ``0x1`` and ``1k`` as
    git reads them; a value as ``gitconfig.value_of`` gives it). Anything else is false
    here (git stops on a value it cannot read)."""
    text = raw.strip().lower()
    if text in ("true", "yes", "on"):
        return True
    text = text[:-1] if text[-1:] in ("k", "m", "g") else text
    for base in (0, 8):
        try:
            return int(text, base) != 0
        except ValueError:
            continue
    return False


def stored(folder: str, name: str) -> str | None:
    """``name`` as ``folder``'s listing spells it (the name itself where it is there as
    given), or None where the folder holds no such name or cannot be listed."""
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    if name in names:
        return name
    key = fold(name)
    return next((n for n in names if fold(n) == key), None)


def spelled(base: str, rel: str, precompose: bool = False) -> str:
    """``rel`` (``/``-separated, under the folder ``base``) with each name spelled as it is
    stored; from the first name that is not there, the rest as given."""
    if not rel:
        return rel
    parts = rel.split("/")
    out: list[str] = []
    folder = base
    for i, part in enumerate(parts):
        name = stored(folder, part) if part not in ("", ".", "..") else None
        if name is None:
            out.extend(parts[i:])
            break
        out.append(name)
        folder = os.path.join(folder, name)
    text = "/".join(out)
    if precompose and not text.isascii():
        import unicodedata

        text = unicodedata.normalize("NFC", text)
    return text


def absolute(path: str, precompose: bool = False) -> str:
    """The absolute, normalized ``path`` spelled as stored from the root of the file
    system down."""
    return "/" + spelled("/", path.lstrip("/"), precompose) if path.startswith("/") else path


def under(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` where it lies there, names compared as the file
    system compares them (``fold``); None otherwise."""
    theirs = [p for p in root.split("/") if p]
    mine = path.split("/")
    mine = [p for p in mine if p]
    if len(mine) < len(theirs):
        return None
    if any(a != b and fold(a) != fold(b) for a, b in zip(mine, theirs, strict=False)):
        return None
    return "/".join(mine[len(theirs) :])
