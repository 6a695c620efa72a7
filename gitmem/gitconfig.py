"""The ``[core]`` keys of a git config file's text, read without running git (the agent
hooks read the repository's own config once per process: ``gitmem.location``).

Enough of git's syntax for the keys gitmem takes from it (``core.sharedRepository``,
``core.ignorecase``, ``core.precomposeunicode``): sections and keys in any case, a key
on the section's own line, a bare key (true), comments, quotes. Not ``[include]``d files,
the user's or the system's config, nor continuation lines.
"""

from __future__ import annotations


def core(text: str, names: tuple[str, ...]) -> dict[str, str | None]:
    """The last value of each of ``names`` (lower case) in the ``[core]`` sections of a
    git config file's ``text``: None for a bare key (true); keys not set are left out."""
    found: dict[str, str | None] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            end = line.find("]")
            if end < 0:
                continue
            section = line[1:end].strip().lower()
            line = line[end + 1 :].strip()  # `[core] sharedRepository = group`
        if section != "core" or not line or line[0] in "#;":
            continue
        key, eq, value = line.partition("=")
        name = key.strip().lower()
        if name in names:
            found[name] = value_of(value) if eq else None
    return found


def value_of(raw: str) -> str:
    """A config value as git reads it: comments cut, quotes taken off, outer blanks
    dropped (enough for the values these keys take)."""
    out: list[str] = []
    quoted = False
    for ch in raw:
        if ch == '"':
            quoted = not quoted
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
    return "".join(out).strip()
