"""Derive the L0 / L1 / L2 views of a record from its Markdown body.

L0 is the title. L1 is a few sentences: an explicit ``summary`` key, else the section that
states the decision (Nygard "Decision", MADR "Decision Outcome", "Summary"), else a
Y-statement, else the first paragraph. L2 is the whole body. Later retrieval injects L1 and
falls back to L0 when the budget is tight.
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_PREFERRED = (
    "summary",
    "tl;dr",
    "decision",
    "decision outcome",
    "decision summary",
    "y-statement",
    "chosen option",
)
_META_LINE = re.compile(
    r"^\s*[-*]?\s*\**(date|status|deciders|decision-makers|consulted|informed|technical story"
    r"|tags|authors?)\**\s*:",
    re.IGNORECASE,
)
_Y_STATEMENT = re.compile(r"\bin the context of\b", re.IGNORECASE)
L1_MAX_CHARS = 480


def headings(body: str) -> list[tuple[int, int, str]]:
    """(line index, level, text) of every Markdown heading outside code fences."""
    out = []
    fenced = False
    for idx, line in enumerate(body.splitlines()):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        match = _HEADING.match(line)
        if match:
            out.append((idx, len(match.group(1)), match.group(2).strip()))
    return out


def first_heading(body: str, level: int = 1) -> str | None:
    for _, lvl, text in headings(body):
        if lvl == level:
            return text
    return None


def section(body: str, name: str) -> str | None:
    """The text under the first heading called ``name`` (case-insensitive), up to the next
    heading of the same or a higher level."""
    lines = body.splitlines()
    hs = headings(body)
    wanted = name.lower()
    for pos, (idx, level, text) in enumerate(hs):
        if _normal(text) == wanted:
            end = len(lines)
            for idx2, level2, _ in hs[pos + 1 :]:
                if level2 <= level:
                    end = idx2
                    break
            return "\n".join(lines[idx + 1 : end]).strip()
    return None


def _normal(heading: str) -> str:
    text = re.sub(r"^[\d.]+\s*", "", heading.strip().lower())
    return text.rstrip(":").strip()


def paragraphs(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        if not stripped or _HEADING.match(line):
            if current:
                out.append(" ".join(current))
                current = []
            continue
        if _META_LINE.match(line) or stripped.startswith(("<!--", "-->")):
            continue
        current.append(stripped)
    if current:
        out.append(" ".join(current))
    return out


def clip(text: str, limit: int = L1_MAX_CHARS) -> str:
    """Shorten at a sentence (else word) boundary, with an ellipsis when cut."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    if end >= limit // 3:
        return cut[: end + 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > 0 else cut).rstrip(",;:") + " …"


def summarize(body: str, explicit: str | None = None) -> str:
    """The L1 overview of a record body."""
    if explicit and explicit.strip():
        return clip(explicit)
    for name in _PREFERRED:
        text = section(body, name)
        if text:
            paras = paragraphs(text)
            if paras:
                return clip(" ".join(paras[:2]))
    paras = paragraphs(body)
    for para in paras:
        if _Y_STATEMENT.search(para):
            return clip(para)
    return clip(paras[0]) if paras else ""
