"""The template an ADR log keeps for its next record, filled in as the log's own tool fills it.

adr-tools copies ``templates/template.md`` from the log folder and replaces NUMBER, TITLE,
DATE and STATUS in it; log4brains and MADR 2 keep ``template.md``, MADR 3/4
``adr-template.md``, with placeholders in brackets or braces (``- Status: [draft |
proposed | …]``, ``status: {proposed | rejected | …}``, ``date: {YYYY-MM-DD when …}``).
A log written in Portuguese, or with sections of its own, keeps them in its template:
``gitmem new --in`` writes the next record from it (since session 75: before, always from
gitmem's English Nygard template, so a MADR log got a Nygard record), unless
``--template`` names one of gitmem's.

Filled in: the heading (the title, labelled as the log labels it), the status (the
template's own word for it where its placeholder lists the choices), the date, and the
front matter's extras (tags, severity, supersedes). The rest is the template's text, for
the writer to replace.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from gitmem import adrfields, adrimport, sections
from gitmem.adrfields import choices as adrimport_choices
from gitmem.adrwords import ADR_STATUS_WORDS, CJK_STATUS_WORDS, TRANSLATED_KEYS

# Where the tools keep a log's template, in the log folder; the first found is used.
NAMES = (
    "templates/template.md",  # adr-tools
    "template.md",  # log4brains, MADR 2, most hand-kept logs
    "adr-template.md",  # MADR 3 and 4
    "templates/adr-template.md",
    "0000-template.md",
    "000-template.md",
)
# adr-tools' placeholders, as its `adr new` replaces them (upper case, whole words)
_ADR_TOOLS = re.compile(r"\b(NUMBER|TITLE|DATE|STATUS)\b")
_FRONT = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)
_H1 = re.compile(r"^#[ \t]+.*$", re.MULTILINE)
_STATUS_LINE = re.compile(
    sections.KEY_LINE + sections.STATUS_KEY + r"\**[ \t]*[:：]\**[ \t]*(.*)$", re.I | re.M
)
# a key line's key, as a record writes it ("Data:", "- **Fecha**:", "日期："), up to its value
_KEY = re.compile(
    sections.KEY_LINE + rf"(?:{sections.DATE_KEY}|{sections.STATUS_KEY}|tags)\**[ \t]*[:：]\**",
    re.I,
)
_TAGS_LINE = re.compile(sections.KEY_LINE + r"tags\**[ \t]*:\**[ \t]*(.*)$", re.I | re.M)
_DATE_LINE = re.compile(
    sections.KEY_LINE + sections.DATE_KEY + r"\**[ \t]*[:：]\**[ \t]*(.*)$", re.I | re.M
)


def find(folder: Path, root: Path | None = None) -> Path | None:
    """The template file the log in ``folder`` keeps (see NAMES), if any; first the
    custom template the `adrs` tool's ``adrs.toml`` in ``root`` names for it."""
    if root is not None:
        custom = _adrs_template(root, folder)
        if custom is not None:
            return custom
    for name in NAMES:
        path = folder / name
        if path.is_file():
            return path
    return None


def _adrs_template(root: Path, folder: Path) -> Path | None:
    """``[templates] custom = "..."`` of ``root/adrs.toml``, where its ``adr_dir`` (by
    default ``doc/adr``) is ``folder``."""
    custom = adrimport.adrs_setting(root, "custom")
    rel = (adrimport.adrs_setting(root, "adr_dir") or "doc/adr").removeprefix("./").strip("/")
    if custom is None or (root / rel).resolve() != folder.resolve():
        return None
    path = root / custom
    return path if path.is_file() else None


def skeleton(model: str) -> str | None:
    """A template made of a log's newest record, where that record is written in another
    language than English (a heading gitmem reads translated: `## Decisão`, `## 状态`)
    and keeps no front matter: its headings and its key lines (`Data:`, `日期:`), their
    text left out, and a Status section's list of the choices kept. None for any other
    record: gitmem's own template serves it (its prompts say what each section is for)."""
    text = model.replace("\r\n", "\n")
    if _FRONT.match(text):
        return None
    marks = sections.headings(text)
    if not any(
        h.strip().rstrip(":：").lower() in TRANSLATED_KEYS for _, level, h in marks if level > 1
    ):
        return None
    lines = text.split("\n")
    status_at = sections.heading_line(text, "status")
    out: list[str] = []
    for n, line in enumerate(lines):
        if n in {at for at, _, _ in marks}:
            out.extend(["", line, ""])
        elif key := _KEY.match(line):
            out.extend(["", key.group(0).rstrip() + " ", ""])
        elif status_at is not None and n > status_at and adrimport_choices(line):
            out.extend(["", line.strip(), ""])
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n") + "\n"


def has_front_matter(text: str) -> bool:
    return _FRONT.match(text.replace("\r\n", "\n")) is not None


def status_word(placeholder: str, status: str, fallback: str) -> str:
    """The word a template's status placeholder offers for ``status``: ``proposed`` from
    ``[draft | proposed | rejected | …]``, ``Propuesto`` from ``{Propuesto | Aceptado}``
    (the one that says it exactly first, else the first that means it); ``fallback``
    where none does (``STATUS``, or a placeholder that lists no choices)."""
    placeholder = adrfields.without_label(placeholder)  # "列表：", "STATUS:"
    options = [o.strip(" \t[]{}()<>*_`\"'") for o in re.split(r"[|,/]", placeholder)]
    meaning = []
    for option in options:
        words = re.findall(r"[^\W\d_]+", option.lower())
        if len(words) != 1:  # "superseded by [xxx](…)", "…": no status word alone
            continue
        if words[0] == status:
            return option
        if (ADR_STATUS_WORDS.get(words[0]) or CJK_STATUS_WORDS.get(words[0])) == status:
            meaning.append(option)
    return meaning[0] if meaning else fallback


def fill(
    template: str,
    *,
    heading: str,
    number: int,
    title: str,
    status: str,
    said: str,
    today: str,
    meta: list[tuple[str, str]],
    links: list[str],
    tags: list[str],
) -> str:
    """``template`` filled in for a new record: headed ``heading``; its status ``status``
    (in front matter as gitmem writes it, in the body as the template offers it, else as
    ``said``); dated ``today``; ``meta`` (key, YAML value) set in its front matter;
    ``links`` to the records it supersedes beside a status in the body; ``tags`` on its
    ``Tags:`` line where it keeps them there."""
    crlf = "\r\n" in template
    text = template.replace("\r\n", "\n")
    if "TITLE" in (sections.first_heading(text) or ""):  # adr-tools' placeholders
        values = {"NUMBER": str(number), "TITLE": title, "DATE": today, "STATUS": said}
        text = _ADR_TOOLS.sub(lambda m: values[m.group(1)], text)
    if "{{" in text or "{%" in text:  # the `adrs` tool's (Jinja) placeholders
        text = jinja(text, number=number, title=title, date=today, status=said)
    front_match = _FRONT.match(text)
    front = (front_match.group(1) or "") if front_match else None
    body = text[front_match.end() :] if front_match else text
    if _H1.search(body):
        body = _H1.sub(lambda _: f"# {heading}", body, count=1)
    else:
        body = f"# {heading}\n\n{body.lstrip()}"
    status_in_front = front is not None and (
        re.search(r"^status[ \t]*:", front, re.M) is not None or not _has_status_place(body)
    )
    if front is not None:
        dated = re.search(r"^date[ \t]*:", front, re.M) or not _DATE_LINE.search(body)
        titled = re.search(r"^title[ \t]*:", front, re.M)  # a site's (`title: {title}`)
        meta = [
            *([("title", json.dumps(title, ensure_ascii=False))] if titled else []),
            *([("status", status)] if status_in_front else []),
            *([("date", today)] if dated else []),
            *meta,
        ]
        for key, value in meta:
            front = _set_key(front, key, value)
    if not status_in_front:
        body = _set_status(body, status, said, links)
    if front is None:
        body = _set_tags(body, tags)
    body = _set_date(body, today)
    out = (f"---\n{front}---\n" if front is not None else "") + body
    return out.replace("\n", "\r\n") if crlf else out


_JINJA_VALUE = re.compile(
    r"\{\{-?\s*(number|title|date|status)\s*(?:\|\s*(\w+)\s*(?:\(([^)]*)\))?\s*)?-?\}\}"
)
_JINJA_BLOCK = re.compile(r"\{%-?\s*(if|for)\b.*?%\}.*?\{%-?\s*end(?:if|for)\s*-?%\}\n?", re.DOTALL)


def jinja(text: str, **values: object) -> str:
    """A template of the `adrs` tool with its values: ``{{ number | pad(4) }}``,
    ``{{ title }}``, ``{{ date }}``, ``{{ status | lower }}``; its blocks (``{% if links
    %}...{% endif %}``) left out, as gitmem writes a new record's links itself."""

    def value(match: re.Match[str]) -> str:
        said = str(values[match.group(1)])
        name, args = match.group(2), match.group(3) or ""
        if name == "lower":
            return said.lower()
        if name == "upper":
            return said.upper()
        if name == "pad" and (width := re.search(r"\d+", args)):
            return said.zfill(int(width.group(0)))
        return said

    return _JINJA_VALUE.sub(value, _JINJA_BLOCK.sub("", text))


def _set_key(front: str, key: str, value: str) -> str:
    """``front`` (a front matter's text) with ``key: value``: in place of the key's line
    (and the lines indented under it), else added at the end."""
    line = re.compile(rf"^{re.escape(key)}[ \t]*:.*(?:\n[ \t]+.*)*$", re.M)
    if line.search(front):
        return line.sub(lambda _: f"{key}: {value}", front, count=1)
    return f"{front}{key}: {value}\n"


def _has_status_place(body: str) -> bool:
    return sections.heading_line(body, "status") is not None or bool(_STATUS_LINE.search(body))


def _set_status(body: str, status: str, said: str, links: list[str]) -> str:
    """The body with its status said where the template says it: a Status section, a
    ``Status:`` line, else a ``Status:`` line under the heading."""
    supersedes = f"Supersedes {', '.join(links)}" if links else ""
    lines = body.split("\n")
    at = sections.heading_line(body, "status")
    if at is not None:
        end = next((n for n in range(at + 1, len(lines)) if _is_heading(lines[n])), len(lines))
        placeholder = "\n".join(lines[at + 1 : end]).strip()
        word = status_word(placeholder, status, said)
        said_lines = ["", word, *(["", supersedes] if supersedes else []), ""]
        return "\n".join([*lines[: at + 1], *said_lines, *lines[end:]])
    match = _STATUS_LINE.search(body)
    if match is not None:
        word = status_word(_no_comment(match.group(1)), status, said)
        opening = match.group(0)[: match.start(1) - match.start()]
        line = opening + word
        if supersedes:
            key = re.match(r"^[ \t>]*[-*]?[ \t]*", opening)
            line += "\n" + (key.group(0) if key else "") + supersedes.replace(" ", ": ", 1)
        return body[: match.start()] + line + body[match.end() :]
    heading = _H1.search(body)
    cut = heading.end() if heading else 0
    added = f"\n\nStatus: {said}" + (f"\n\n{supersedes}" if supersedes else "")
    return body[:cut] + added + body[cut:]


def tags_line(body: str) -> bool:
    """Whether the template has a ``Tags:`` line (log4brains, MADR 2) for tags."""
    return _TAGS_LINE.search(body) is not None


def _set_tags(body: str, tags: list[str]) -> str:
    match = _TAGS_LINE.search(body)
    if match is None or not tags:
        return body
    return body[: match.start(1)] + ", ".join(tags) + body[match.end() :]


def _set_date(body: str, today: str) -> str:
    """The body with today's date on its ``Date:`` line or in its Date section, if it has
    one (``Date: [YYYY-MM-DD when …]``, ``Data: DATE`` already filled)."""
    match = _DATE_LINE.search(body)
    if match is not None and not adrfields.iso_date(match.group(1).strip()):
        return body[: match.start(1)] + today + body[match.end() :]
    lines = body.split("\n")
    at = sections.heading_line(body, "date")
    if at is None:
        return body
    end = next((n for n in range(at + 1, len(lines)) if _is_heading(lines[n])), len(lines))
    return "\n".join([*lines[: at + 1], "", today, "", *lines[end:]])


def _is_heading(line: str) -> bool:
    return re.match(r"^#{1,6}[ \t]", line) is not None


def _no_comment(text: str) -> str:
    return re.sub(r"<!--.*?-->", "", text).strip()
