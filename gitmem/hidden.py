"""Text a record's readers do not see: what gitmem leaves out before anyone is shown it.

A decision record is read by people in review and by agents, which gitmem hands it to
unasked. Some characters read differently to the two:

- Unicode tag characters (U+E0000–U+E007F) are invisible in editors, terminals and code
  review, yet models read them as the ASCII letters they shadow ("ASCII smuggling"): a
  record can carry instructions no reviewer saw. Only a flag emoji uses them (🏴 and its
  tags); that sequence is kept.
- Runs of variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) hide bytes the same way
  behind one visible character; a real one stands alone after its character (an emoji's
  U+FE0F typed twice, which emoji pickers do, is no run).
- Bidirectional controls (U+202A–U+202E, U+2066–U+2069) show the text in another order
  than it is read ("Trojan Source"); rustc refuses them in code for that reason.
- Terminal control characters and escape sequences (ESC, BEL, backspace, C1): `gitmem
  why`, `list` and `check` print a record's title to the user's terminal, where they set
  the window's title, recolour or hide what follows, and reach the agent as noise. A
  pasted coloured log is the honest way to get them.

gitmem reads a record without them (``visible``); `gitmem.frontmatter` reports each kind
once per record with the line of its first, as an error where it hides text (so `gitmem
check` stops the commit that adds it and `gitmem lint` fails CI) and as a warning for
terminal control characters. `gitmem check` and `gitmem stale` read added lines and agent
instruction files with it, and the prompt hook the user's prompt. Tab, line feed and
carriage return are text. Zero-width joiners and spaces, and the left-to-right and
right-to-left marks, are left alone: scripts and emoji use them and they reorder or hide
nothing.

Import-light (hook hot path): ``re`` only, the patterns compiled on first use.
"""

from __future__ import annotations

import re

# What each kind is called in a problem, what it does, and whether it hides text (an
# error) or only controls a terminal (a warning).
_KINDS = {
    "tag": ("invisible Unicode tag characters", "text reviewers do not see", "error"),
    "selector": ("variation selectors in a run", "data hidden behind one character", "error"),
    "bidi": ("bidirectional control characters", "text shown out of its order", "error"),
    "control": ("terminal control characters", "escapes that restyle a terminal", "warning"),
}

_FLAG = "\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"  # 🏴 + tags + cancel tag: a flag
_PATTERN = (
    f"(?P<flag>{_FLAG})"
    "|(?P<tag>[\U000e0000-\U000e007f]+)"
    "|(?P<selector>[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,})"
    "|(?P<bidi>[\u202a-\u202e\u2066-\u2069]+)"
    # CSI (colours, cursor moves), OSC (window title, links) to its terminator, any other
    # escape with the character it takes, and the other C0/C1 controls but \t \n \r and
    # NEL. None takes a line feed: the lines keep their numbers.
    "|(?P<control>(?:\x1b\\[[0-?]*[ -/]*[@-~]?|\x1b\\][^\x07\x1b\n]*(?:\x07|\x1b\\\\)?"
    "|\x1b.?|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x84\x86-\x9f])+)"
)
# Every character any alternative starts with: a clean text is one search of this
_ANY = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f"
    "\u202a-\u202e\u2066-\u2069\ufe00-\ufe0f\U000e0000-\U000e01ef]"
)
_compiled: tuple[re.Pattern[str], re.Pattern[str]] | None = None


def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    global _compiled
    if _compiled is None:
        _compiled = (re.compile(_ANY), re.compile(_PATTERN))
    return _compiled


class Found:
    """A kind of hidden character in a text: where its first is and how many there are.
    (A plain class: ``dataclasses`` costs the prompt hook ~19 ms to import.)"""

    __slots__ = ("count", "kind", "offset")

    def __init__(self, kind: str, offset: int, count: int) -> None:
        self.kind = kind
        self.offset = offset  # of the first, in the text searched
        self.count = count  # characters of that kind left out

    def __repr__(self) -> str:
        return f"Found({self.kind!r}, {self.offset}, {self.count})"

    @property
    def level(self) -> str:
        return _KINDS[self.kind][2]

    @property
    def named(self) -> str:
        """``12 bidirectional control characters``."""
        return f"{self.count:,} {_KINDS[self.kind][0]}"

    @property
    def said(self) -> str:
        """``12 bidirectional control characters (text shown out of its order)``."""
        return f"{self.named} ({_KINDS[self.kind][1]})"


# The ASCII controls ``visible`` leaves out: an ASCII text (most records) is checked for
# them in C, ~8x faster than the search (10,000 records are read in one `gitmem index`)
_ASCII_CONTROLS = bytes((*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F))


def has_any(text: str) -> bool:
    """Whether ``text`` may hold anything ``visible`` leaves out (one pass, no copy)."""
    if text.isascii():
        raw = text.encode("ascii")
        return len(raw.translate(None, _ASCII_CONTROLS)) != len(raw)
    return _patterns()[0].search(text) is not None


def visible(text: str) -> tuple[str, list[Found]]:
    """``text`` without what its readers do not see, and what that was, first first."""
    if not has_any(text):
        return text, []
    pattern = _patterns()[1]
    found: dict[str, Found] = {}
    parts: list[str] = []
    last = 0
    for m in pattern.finditer(text):
        kind = m.lastgroup or "control"
        if kind == "flag" or (kind == "selector" and not m.group().strip("\ufe0e\ufe0f")):
            continue  # a flag; an emoji's presentation selector typed twice hides nothing
        parts.append(text[last : m.start()])
        last = m.end()
        seen = found.get(kind)
        size = m.end() - m.start()
        if seen is None:
            found[kind] = Found(kind, m.start(), size)
        else:
            found[kind] = Found(kind, seen.offset, seen.count + size)
    if not found:
        return text, []
    parts.append(text[last:])
    return "".join(parts), sorted(found.values(), key=lambda f: f.offset)


LEFT_OUT = "gitmem leaves them out of what it shows and tells agents"


def describe(found: Found, then: str = LEFT_OUT) -> str:
    """A problem's message for ``found``: how many of what, and ``then``: what is done."""
    first = ", the first here" if found.count > 1 else ""
    return f"holds {found.said}{first}; {then}"


# A file name is one line: these break it where a reader is shown it (the agent's line
# ends in `[FILE]`, lint's in `FILE:LINE:`), and git quotes names holding them
_NAME_BREAKS = frozenset("\t\n\r\x85\u2028\u2029")


def in_name(name: str) -> str | None:
    """What a file name holds that its readers would not read as written (a line break,
    or a kind ``visible`` leaves out), said for a problem; None for an ordinary name."""
    if any(c in _NAME_BREAKS for c in name):
        return "a line break or tab"
    found = visible(name)[1]
    return found[0].said if found else None


def quoted(name: str) -> str:
    """``name`` as a terminal or an agent may be shown it: as it is when every character
    prints as itself, else in double quotes with escapes, as git quotes such names."""
    if name.isprintable() and not has_any(name):
        return name
    out = []
    for c in name:
        if c in '"\\':
            out.append("\\" + c)
        elif c.isprintable() and not has_any(c):
            out.append(c)
        elif c in "\t\n\r":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r"}[c])
        elif ord(c) < 0x100:
            out.append(f"\\x{ord(c):02x}")
        elif ord(c) < 0x10000:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(f"\\U{ord(c):08x}")
    return '"' + "".join(out) + '"'
