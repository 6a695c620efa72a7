"""Split a Markdown record into YAML front matter and body, keeping line numbers."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

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


def parse(text: str, file: str) -> tuple[Parsed | None, list[Problem]]:
    """Parse a record. Returns (None, problems) when the YAML cannot be read at all."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    fm, body, body_line = split(text)
    if fm is None:
        problems: list[Problem] = []
        if text.lstrip("\ufeff").startswith("---"):
            problems.append(Problem(file, 1, "front-matter", "the `---` block is never closed"))
        return Parsed(None, {}, {}, body, body_line), problems
    yaml = YAML(typ="rt")
    try:
        data = yaml.load(fm)
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
    plain = _plain(data)
    assert isinstance(plain, dict)
    return Parsed(plain, key_lines, item_lines, body, body_line), []


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
