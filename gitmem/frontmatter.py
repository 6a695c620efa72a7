"""Split a Markdown record into YAML front matter and body, keeping line numbers."""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import Any

from gitmem import hidden
from gitmem.model import Problem


@dataclass(frozen=True)
class Parsed:
    meta: dict[str, Any] | None  # None when there is no front matter
    key_lines: dict[str, int]  # top-level key -> 1-based line in the file
    item_lines: dict[str, tuple[int, ...]]  # list-valued key -> line of each item
    body: str
    body_line: int  # 1-based line where the body starts


def split(text: str) -> tuple[str | None, str, int]:
    """Return (front matter text or None, body, 1-based line of the body's first line)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), i + 2
    return None, text, 1  # an unterminated fence is body text, reported by validation


def conflicts(text: str, file: str) -> list[Problem]:
    """The merge conflicts git left unresolved in a record: each `<<<<<<<` ... `>>>>>>>`
    block (the `=======` between alone is a Markdown heading underline). Committed as it
    is, such a record says two things at once, or none: its front matter no longer reads
    as YAML. Until it is resolved the record is read as one side (`ours`)."""
    if "<<<<<<<" not in text:
        return []
    out: list[Problem] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        marker = _marker(line)
        if marker == "<<<<<<<":
            start = number
        elif marker == ">>>>>>>" and start:
            out.append(
                Problem(
                    file,
                    start,
                    "merge-conflict",
                    f"unresolved merge conflict, lines {start}-{number} (read as the side "
                    "above `=======` until resolved)",
                )
            )
            start = 0
    return out


def _marker(line: str) -> str:
    """The conflict marker a line is (``<<<<<<<``, ``|||||||``, ``=======``,
    ``>>>>>>>``), or ""."""
    text = line.rstrip("\r\n")
    mark = text[:7]
    if mark in ("<<<<<<<", "|||||||", "=======", ">>>>>>>") and (len(text) == 7 or text[7] == " "):
        return mark
    return ""


def ours(text: str) -> str:
    """A record in merge conflict as its own side of each conflict (above ``=======``: the
    branch checked out): the other side, a diff3 base and the markers become empty lines,
    so every other line keeps its number. The text as it is when a conflict is not closed."""
    out: list[str] = []
    state = ""  # "", "ours", "base", "theirs"
    for line in text.splitlines(keepends=True):
        mark = _marker(line)
        blank = line[len(line.rstrip("\r\n")) :]
        if mark == "<<<<<<<" and not state:
            state = "ours"
        elif mark == "|||||||" and state == "ours":
            state = "base"
        elif mark == "=======" and state in ("ours", "base"):
            state = "theirs"
        elif mark == ">>>>>>>" and state == "theirs":
            state = ""
        elif state in ("", "ours"):
            out.append(line)
            continue
        out.append(blank or "\n")
    return text if state else "".join(out)


def parse(text: str, file: str) -> tuple[Parsed | None, list[Problem]]:
    """Parse a record. Returns (None, problems) when the YAML cannot be read at all.
    Unresolved merge conflicts are problems too, and the record is read as its own side of
    each (``ours``): the agent resolving the merge still gets the decision, once, not both
    sides and the markers. Before session 31 one in the front matter left it out."""
    original = text
    text, hidden_found = hidden.visible(text)
    found = conflicts(text, file)
    if found:
        text = ours(text)
    parsed, problems = _parse(text, file)
    if parsed is not None and parsed.meta:
        parsed, in_values = _visible_values(parsed)
    else:
        in_values = []
    shown = (
        _hidden_problems(original, hidden_found, in_values, parsed, file)
        if (hidden_found or in_values)
        else []
    )
    return parsed, found + shown + problems


def _visible_values(parsed: Parsed) -> tuple[Parsed, list[tuple[str, hidden.Found]]]:
    """``parsed`` with its values as ``hidden.visible`` leaves them, and what it left out
    of each key's. The file's text is cleaned before YAML reads it; these came from a
    double-quoted scalar's escapes (``"\\e[31m"``, ``"\\U000E0041"``)."""
    assert parsed.meta is not None
    found: list[tuple[str, hidden.Found]] = []

    def clean(value: Any, key: str) -> Any:
        if isinstance(value, str):
            kept, left = hidden.visible(value)
            found.extend((key, f) for f in left)
            return kept
        if isinstance(value, list):
            return [clean(v, key) for v in value]
        if isinstance(value, dict):
            return {clean(k, key): clean(v, key) for k, v in value.items()}
        return value

    meta = {key: clean(value, key) for key, value in parsed.meta.items()}
    if not found:
        return parsed, []
    return dataclasses.replace(parsed, meta=meta), found


def _hidden_problems(
    text: str,
    in_text: list[hidden.Found],
    in_values: list[tuple[str, hidden.Found]],
    parsed: Parsed | None,
    file: str,
) -> list[Problem]:
    """One problem per kind of hidden character the record held, at its first: the key
    whose value held it, else the front-matter key above its line, else ``body``."""
    key_lines = parsed.key_lines if parsed is not None else {}
    body_line = split(hidden.visible(text)[0])[2]  # the same lines, with or without them
    firsts: dict[str, tuple[int, str]] = {}  # kind -> (line, key) of its first
    counts: dict[str, int] = {}
    for f in in_text:
        line = text.count("\n", 0, f.offset) + 1
        key = "body"
        if line < body_line:
            above = [(at, k) for k, at in key_lines.items() if at <= line]
            key = max(above)[1] if above else "front-matter"
        firsts[f.kind] = min(firsts.get(f.kind, (line, key)), (line, key))
        counts[f.kind] = counts.get(f.kind, 0) + f.count
    for key, f in in_values:
        line = key_lines.get(key, 1)
        firsts[f.kind] = min(firsts.get(f.kind, (line, key)), (line, key))
        counts[f.kind] = counts.get(f.kind, 0) + f.count
    problems = []
    for kind, (line, key) in sorted(firsts.items(), key=lambda item: item[1]):
        found = hidden.Found(kind, 0, counts[kind])
        problems.append(Problem(file, line, key, hidden.describe(found), found.level))
    return problems


def _parse(text: str, file: str) -> tuple[Parsed | None, list[Problem]]:
    fm, body, body_line = split(text)
    if fm is None:
        problems: list[Problem] = []
        if text.lstrip("\ufeff").startswith("---"):
            problems.append(Problem(file, 1, "front-matter", "the `---` block is never closed"))
        return Parsed(None, {}, {}, body, body_line), problems
    if too_nested(fm):
        return None, [too_deep(fm, file)]
    try:
        fast = _parse_fast(fm)
    except RecursionError:  # the round-trip reader would take seconds to fail the same way
        return None, [too_deep(fm, file)]
    if fast is not None:
        data, key_lines, item_lines = fast
        return Parsed(data, key_lines, item_lines, body, body_line), []
    return _parse_round_trip(fm, file, body, body_line)


_FAST: Any = None


def _fast_loader() -> Any:
    """ruamel's safe loader on libyaml's C parser (``ruamel.yaml.clib``), or False when
    that is not installed. About 5x faster than the round-trip loader, which matters at
    thousands of records: 10,000 front matters took ~15 s to read, now ~2.5 s."""
    global _FAST
    if _FAST is None:
        from ruamel.yaml import YAML

        try:
            loader = YAML(typ="safe")
            _FAST = loader if "CParser" in getattr(loader.Parser, "__name__", "") else False
        except Exception:  # no C extension: round-trip only
            _FAST = False
    return _FAST


def _parse_fast(
    fm: str,
) -> tuple[dict[str, Any], dict[str, int], dict[str, tuple[int, ...]]] | None:
    """The front matter through the C parser, with each key's and list item's line taken
    from the composed nodes. None when anything is unusual (a YAML error, a merge key, a
    non-mapping, a non-string key): the round-trip loader then parses it and reports the
    exact error, as it always has. A test checks both paths agree on every record."""
    loader = _fast_loader()
    if not loader:
        return None
    try:
        node = loader.compose(fm)
        if node is None:
            return {}, {}, {}
        if node.id != "mapping":
            return None
        key_lines: dict[str, int] = {}
        item_lines: dict[str, tuple[int, ...]] = {}
        for key_node, value_node in node.value:
            if key_node.id != "scalar" or key_node.tag.endswith(":merge"):
                return None
            key = str(key_node.value)
            key_lines[key] = key_node.start_mark.line + 2
            if value_node.id == "sequence":
                item_lines[key] = tuple(i.start_mark.line + 2 for i in value_node.value)
        data = loader.constructor.construct_document(node)
    except RecursionError:
        raise
    except Exception:
        return None
    if not isinstance(data, dict) or list(data) != list(key_lines) or _oversized(data):
        return None  # the round-trip loader reports an oversized value with its line
    plain = _plain(data)
    assert isinstance(plain, dict)
    return plain, key_lines, item_lines


def _parse_round_trip(
    fm: str, file: str, body: str, body_line: int
) -> tuple[Parsed | None, list[Problem]]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="rt")
    try:
        data = yaml.load(fm)
    except RecursionError:  # `[[[[…]]]]` thousands deep: ruamel reads nesting recursively
        return None, [too_deep(fm, file)]
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line + 2) if mark is not None else 1
        reason = (exc.problem or exc.context or "invalid YAML").strip()
        return None, [Problem(file, line, "front-matter", f"invalid YAML: {reason}")]
    except YAMLError as exc:
        return None, [Problem(file, 1, "front-matter", f"invalid YAML: {exc}")]
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return None, [Problem(file, 2, "front-matter", "must be a mapping of keys to values")]
    key_lines: dict[str, int] = {}
    item_lines: dict[str, tuple[int, ...]] = {}
    lc = getattr(data, "lc", None)
    for key in data:
        line = 2
        if lc is not None:
            with contextlib.suppress(KeyError, TypeError):
                line = int(lc.key(key)[0]) + 2
        key_lines[str(key)] = line
        value = data[key]
        vlc = getattr(value, "lc", None)
        if isinstance(value, list) and vlc is not None:
            lines = []
            for idx in range(len(value)):
                try:
                    lines.append(int(vlc.item(idx)[0]) + 2)
                except (KeyError, TypeError):
                    lines.append(line)
            item_lines[str(key)] = tuple(lines)
    big = _oversized(data)
    if big is not None:
        line = key_lines.get(big, 2)
        said = f"expands to more than {MAX_VALUES:,} values through YAML aliases, or holds itself"
        return None, [Problem(file, line, big, f"{said}: the record is not read")]
    plain = _plain(data)
    assert isinstance(plain, dict)
    return Parsed(plain, key_lines, item_lines, body, body_line), []


# How deep YAML's brackets may nest before a file is refused unread. The reader recurses
# (~1,000 levels crash it) and ruamel's round-trip scanner took ~5 s to fail on 3,000; no
# record or settings file nests more than a few levels.
MAX_NESTING = 100


def nesting(text: str) -> int:
    """The deepest nesting of flow brackets (``[``, ``{``) in YAML ``text``, quoted
    scalars and comments aside: a linear scan, to refuse what the reader cannot read."""
    depth = deepest = 0
    quote = ""
    comment = False
    for c in text:
        if comment:
            comment = c != "\n"
        elif quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#":
            comment = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(depth - 1, 0)
    return deepest


def too_nested(text: str) -> bool:
    """Whether YAML ``text`` nests its brackets past MAX_NESTING: counted first (at C
    speed), scanned only where there are that many brackets at all."""
    return text.count("[") + text.count("{") > MAX_NESTING and nesting(text) > MAX_NESTING


def too_deep(text: str, file: str, first: int = 2) -> Problem:
    """YAML nested too deeply for the reader (it recurses), named at the line that opens
    the most brackets or block-sequence dashes, where such nesting begins. ``first``: the
    file's line number of ``text``'s first line (a record's front matter starts at 2)."""
    lines = text.splitlines() or [""]
    scores = [sum(line.count(c) for c in "[{-") for line in lines]
    at = scores.index(max(scores))
    key = lines[at].split(":", 1)[0].strip() or "yaml"
    return Problem(file, at + first, key, "nested too deeply to read: the file is not read")


# A record's front matter holds tens of values. YAML aliases let a few lines stand for
# billions (nine anchors of nine aliases each: 9**9), or for a list that holds itself: read
# as plain values, either took `gitmem lint`, the commit check and the hooks' table refresh
# minutes of CPU, or crashed them (RecursionError), and no record loaded (session 48). Past
# this many values the record is left out with an error; the others load.
MAX_VALUES = 10_000


class _TooLarge(Exception):
    pass


def _oversized(data: dict[Any, Any]) -> str | None:
    """The first key whose value, expanded, passes MAX_VALUES values with the ones before
    it, or holds itself; None when all is well. A container counts one, and each of its
    entries its key (a list's: its slot) and its value; a shared (aliased) container is
    counted at each use but walked once."""
    sizes: dict[int, int] = {}
    total = 0
    for key, value in data.items():
        try:
            total += _size(value, sizes, set())
        except (_TooLarge, RecursionError):
            return str(key)
        if total > MAX_VALUES:
            return str(key)
    return None


def _size(value: Any, sizes: dict[int, int], walking: set[int]) -> int:
    if not isinstance(value, dict | list):
        return 1
    known = sizes.get(id(value))
    if known is not None:
        return known
    if id(value) in walking:
        raise _TooLarge  # holds itself
    walking.add(id(value))
    n = 1
    for key, item in value.items() if isinstance(value, dict) else enumerate(value):
        n += _size(key, sizes, walking) + _size(item, sizes, walking)
        if n > MAX_VALUES:
            raise _TooLarge
    walking.discard(id(value))
    sizes[id(value)] = n
    return n


def _plain(value: Any) -> Any:
    """ruamel's round-trip containers as plain dicts, lists and scalars."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    if isinstance(value, bool | int | float) or value is None:
        return value
    return str(value)
