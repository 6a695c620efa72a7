"""What `perl -pi -e 's/…/…/'` would make of a file's text, without running perl.

Agents edit files through the shell with `perl -pi -e` (and `perl -0pi -e` for several
lines at once) nearly as often as with `sed -i`. Perl has no sandbox like GNU sed's, and
its script is code, so the before-tool check cannot run it. The one form agents write,
substitutions, is read here instead and done with Python's `re`: a script of `s///`
statements (any delimiter, `{}`-style pairs too; flags `g`, `i`, `m`, `s`, `x`), whose
patterns and replacements use only what reads the same in both (groups, `$1` and `${1}`,
`$&`, `\\n`, `\\t`, escaped punctuation; `(?<name>…)` and `\\k<name>`; `\\z`, `\\h`).
Anything else, a variable interpolated, `\\U`, an `e` flag, code around the substitution,
returns None, and the command is left to the after-tool check, which reads what perl
wrote. Imported only for a command that runs `perl -i`.

One difference is left: without `-C`, perl reads bytes and Python here reads characters,
so a `.` or a class meeting a non-ASCII character matches one byte of it in perl and the
whole character here (the differential test, tests/test_perlsub.py, uses ASCII text).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable

_PAIRS = {"{": "}", "[": "]", "(": ")", "<": ">"}
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}
# Perl pattern escapes that Python reads otherwise or not at all
_PATTERN_ESCAPES = {"z": r"\Z", "h": r"[ \t]", "H": r"[^ \t]"}
_UNREAD_ESCAPES = frozenset("ZKQEGRXpPNgCLlUu")
_TEXT_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "e": "\x1b", "a": "\x07", "0": "\0"}

Substitution = tuple["re.Pattern[str]", Callable[["re.Match[str]"], str], int]


def substitutions(script: str) -> list[Substitution] | None:
    """The script's `s///` statements, in order, as (pattern, replacement, count: 0 for
    all); None for any other script."""
    out: list[Substitution] = []
    i, n = 0, len(script)
    while True:
        while i < n and (script[i].isspace() or script[i] == ";"):
            i += 1
        if i == n:
            return out or None
        if script[i] != "s" or i + 1 == n:
            return None
        parsed = _statement(script, i + 1)
        if parsed is None:
            return None
        sub, i = parsed
        out.append(sub)


def _statement(script: str, i: int) -> tuple[Substitution, int] | None:
    opener = script[i]
    if opener.isalnum() or opener.isspace() or opener in "#\\":
        return None  # `s #…#` is a comment in Perl; a word is not a delimiter
    found = _delimited(script, i)
    if found is None:
        return None
    pattern, i = found
    if opener in _PAIRS:
        while i < len(script) and script[i].isspace():
            i += 1
        if i == len(script) or script[i] not in _PAIRS:
            return None
        found = _delimited(script, i)
    else:
        found = _delimited(script, i - 1)  # the closing delimiter opens the replacement
    if found is None:
        return None
    replacement, i = found
    flags = ""
    while i < len(script) and script[i].isalpha():
        flags += script[i]
        i += 1
    if any(f not in "gimsx" for f in flags):
        return None  # `e` (code), `r`, `o`, …
    compiled = _pattern(pattern, flags)
    expand = _replacement(replacement)
    if compiled is None or expand is None:
        return None
    return (compiled, expand, 0 if "g" in flags else 1), i


def _delimited(script: str, i: int) -> tuple[str, int] | None:
    """The text after the delimiter at ``i`` up to its closing one (nested pairs counted,
    escapes kept), and the index after it."""
    opener = script[i]
    closer = _PAIRS.get(opener, opener)
    depth, j, out = 1, i + 1, []
    while j < len(script):
        c = script[j]
        if c == "\\" and j + 1 < len(script):
            out.append(script[j : j + 2])
            j += 2
            continue
        if c == opener and closer != opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return "".join(out), j + 1
        out.append(c)
        j += 1
    return None


def _pattern(text: str, flags: str) -> re.Pattern[str] | None:
    if re.search(r"\(\?\^?[a-z]*m", text):
        return None  # `(?m)`: its `^` is read below for the `m` flag only
    out: list[str] = []
    in_class = False  # within `[...]`
    i = 0
    while i < len(text):
        c = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if c == "\\" and nxt:
            if nxt in _UNREAD_ESCAPES or (in_class and nxt in _PATTERN_ESCAPES):
                return None
            out.append(_PATTERN_ESCAPES.get(nxt, c + nxt))
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            start = i + 2 if nxt == "^" else i + 1
            if text[start : start + 1] == "]":  # `[]a]`, `[^]a]`: a `]` first is itself
                start += 1
            if text.startswith("[:", i + 1):
                return None  # a POSIX class
            out.append(text[i:start])
            i = start
            continue
        if c == "]" and in_class:
            in_class = False
        elif c == "^" and not in_class and "m" in flags:
            # Perl's `^` under /m matches after a newline, but not after the last one
            # when it ends the text (Python's does)
            out.append(r"(?:\A|(?<=\n)(?!\Z))")
            i += 1
            continue
        if (c == "$" and nxt not in ("", ")", "|")) or (
            c == "@" and (nxt.isalnum() or nxt in "_{:$")
        ):
            return None  # a variable interpolated (`$)` and `$|` are not, in a pattern)
        if text.startswith("(?<", i) and nxt and text[i + 3 : i + 4] not in ("=", "!"):
            out.append("(?P<")  # a named group
            i += 3
            continue
        if text.startswith("(?{", i) or text.startswith("(??{", i):
            return None  # code
        out.append(c)
        i += 1
    pattern = "".join(out)
    pattern = re.sub(r"\\k<(\w+)>", r"(?P=\1)", pattern)
    mode = 0
    for f in flags:
        mode |= _FLAGS.get(f, 0)
    try:
        with warnings.catch_warnings():
            # Python 3.10 takes `x(?i)y` for the whole pattern's flag (with a warning;
            # 3.11 refuses it), where Perl reads it from there on: not read
            warnings.simplefilter("error")
            return re.compile(pattern, mode)
    except (re.error, OverflowError, Warning):
        return None


def _replacement(text: str) -> Callable[[re.Match[str]], str] | None:
    """A Perl replacement (a double-quoted string) as a function of the match."""
    parts: list[str | int] = []  # text, or a group's number
    i = 0
    while i < len(text):
        c = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if c == "\\" and nxt:
            if nxt.isdigit() and nxt != "0":
                if text[i + 2 : i + 3] in ("{", "["):
                    return None  # `\1{…}` is `$1{…}`: a subscript
                parts.append(int(nxt))
            elif nxt in "uUlLEQ" or nxt in "xcNo":
                return None  # case changes, quoting, codes: not read
            else:
                parts.append(_TEXT_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        if c == "$":
            ref = re.match(r"&|\{(\d+)\}|(\d+)", text[i + 1 :])
            if ref is None or text[i + 1 + len(ref.group(0)) :][:1] in ("{", "["):
                return None  # a variable, `$+`, a subscript (`$1{…}`), a final `$`
            parts.append(0 if ref.group(0) == "&" else int(ref.group(1) or ref.group(2)))
            i += 1 + len(ref.group(0))
            continue
        if c == "@" and (nxt.isalnum() or nxt in "_{:$"):
            return None  # an array
        parts.append(c)
        i += 1

    def expand(m: re.Match[str]) -> str:
        out = []
        for part in parts:
            if isinstance(part, int):
                out.append((m.group(part) if part <= (m.re.groups or 0) else None) or "")
            else:
                out.append(part)
        return "".join(out)

    return expand


def apply(subs: list[Substitution], text: str, *, ends: str | None, chomp: bool) -> str:
    """``text`` as `perl -p` with ``subs`` leaves it: record by record, each ending at
    ``ends`` ("\\n"; "\\0" for `-0`), or the whole text as one (None: `-0777`), each
    record's end taken off and put back with ``chomp`` (`-l`)."""
    # perl reads one record, even from an empty file, with -0777; lines end at "\\n" only
    # (not at "\\r" or "\\f", as str.splitlines ends them)
    records = [text] if ends is None else re.findall(f"[^{ends}]*{ends}|[^{ends}]+$", text)
    out = []
    for record in records:
        ending = ""
        if chomp and ends and record.endswith(ends):
            record, ending = record[: -len(ends)], ends
        elif chomp:
            ending = ends or "\n"
        for pattern, expand, count in subs:
            record = pattern.sub(expand, record, count=count)
        out.append(record + ending)
    return "".join(out)
