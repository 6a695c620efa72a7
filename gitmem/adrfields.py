"""What an ADR's Markdown says of its status, supersession, date and tags.

For a record without YAML front matter (Nygard, adr-tools, MADR 2, phodal/adr), or one
whose front matter leaves them out: the Status section (its history, its choices, a badge),
a ``Status:`` line or a table row; ``Supersedes`` / ``Superseded by`` lines and links; a
``Date:`` line, a Date section or a status's date; a ``Tags:`` line. In English, Chinese,
Japanese, Spanish, Portuguese, German, French, Italian and Russian (``gitmem.adrwords``).
Apart from ``gitmem.adrimport`` since session 75.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import PurePosixPath

from gitmem import markup, sections, validate
from gitmem.adrimport import number_of
from gitmem.adrwords import (
    ADR_STATUS_WORDS,
    CJK_STATUS_WORDS,
    MONTHS,
    STATUS_NEGATIONS,
    SUPERSEDED_BY_PHRASES,
    SUPERSEDES_WORDS,
    TRANSLATED_KEYS,
)

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|\b(?:ADR|RFC)[-_ ]?0*(\d+)\b", re.IGNORECASE)
# "Status: Accepted", "* **Status**: Accepted", "> **Status:** Accepted", "## Status: Accepted"
_STATUS_LINE = re.compile(
    sections.KEY_LINE + sections.STATUS_KEY + r"\**[ \t]*[:：][ \t]*(.+)$", re.I | re.M
)
# A date as logs write it: 2024-03-05, 2024年3月5日, and since session 74 2024/03/05,
# 05.03.2024 (day first, as German and others write it), 5 Mar 2024, 5th March 2024,
# March 5, 2024 (opentelemetry-rust's "17 Feb 2025" read as no date before). Not 03/05/2024:
# day or month first, nothing in it says which.
_MONTH = rf"(?:{'|'.join(MONTHS)})[a-z]*\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
DATE_FORMS = (
    r"\d{4}-\d{2}-\d{2}|\d{4}年\d{1,2}月\d{1,2}日|\d{4}/\d{1,2}/\d{1,2}|\d{1,2}\.\d{1,2}\.\d{4}"
    rf"|{_DAY}\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+{_DAY},?\s+\d{{4}}"
)
_DATE_LINE = re.compile(
    sections.KEY_LINE
    + sections.DATE_KEY
    + rf"\**[ \t]*[:：][ \t]*\**[ \t]*({DATE_FORMS})(?![\d/]|\.\d)",
    re.I | re.M,
)
_CJK_DATE = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日")
# the CJK status words, longest first: at one position the longer word wins
_CJK_STATUS = re.compile("|".join(sorted(CJK_STATUS_WORDS, key=len, reverse=True)))
# "被 ADR-0005 取代" / "ADR-0005 により置き換え": superseded by; "取代 ADR-0003": supersedes
_CJK_SUPERSEDED_BY = re.compile(r"被.*(?:取代|替代|代替)|(?:により|で|に)置き?換え")
_CJK_SUPERSEDES = re.compile(r"取代|替代|代替|を置き?換え")
# a status struck through is one the record no longer has: "~~Proposed~~ **Accepted**",
# or the choices of a template left struck: "~~Proposed~~ | **Accepted** | ~~Deprecated~~"
_STRUCK = re.compile(r"~~[^~\n]*~~")


def parse_status(body: str) -> tuple[str | None, list[str], list[str]]:
    """(status, link targets after "supersedes", link targets after "superseded by"), from
    the body's Status section, ``Status:`` line or table row, and its own ``Supersedes:``
    and ``Superseded by:`` lines."""
    text = _status_text(body)
    if text is not None:
        status, supersedes, superseded_by = parse_status_text(text)
    else:  # the first table value that is a status
        tried = (parse_status_text(value) for value in table_values(body, "status"))
        found = next((parsed for parsed in tried if parsed[0] is not None), None)
        status, supersedes, superseded_by = found or (None, [], [])
    title = _TITLE_SUPERSEDES.search(sections.first_heading(body) or "")
    if title:
        supersedes = [*supersedes, *_leading_refs(title.group(1))]
    for match in _SUCCESSION_LINE.finditer(body):
        refs = _leading_refs(match.group(2))
        if match.group(1).lower().startswith(("supersedes", "replaces")):
            supersedes = [*supersedes, *refs]
        elif refs:
            superseded_by = [*superseded_by, *refs]
            status = "superseded"
    return status, list(dict.fromkeys(supersedes)), list(dict.fromkeys(superseded_by))


# "- **Supersedes:** ADR-010 (Adopt Plane)", "Superseded-by: [ADR 7](0007-x.md)": a line of
# its own, as many logs keep beside "Status:" and "Date:"
_SUCCESSION_LINE = re.compile(
    sections.KEY_LINE
    + r"(supersedes|superseded[- _]by|replaces|replaced[- _]by)\**[ \t]*:\**[ \t]*(.+)$",
    re.IGNORECASE | re.MULTILINE,
)
# a title that names what it replaces: "# ADR-0012: Talos patching (Supersedes ADR-0011)";
# not a part of it: "(supersedes ADR-203's alias groups)"
_REF = r"(?:ADR|RFC)[-_ ]?\d+"
_TITLE_SUPERSEDES = re.compile(
    rf"\((?:supersedes|replaces)\s+({_REF}(?:\s*(?:,|and|&)\s*{_REF})*)\)\s*$", re.IGNORECASE
)
# the references that open such a line: "ADR-010 (Adopt Plane ...)", "[ADR-3](x.md), 4";
# not the ones further on ("the S2-B refusal only; everything else in ADR-0062 stands")
_LEADING_REFS = re.compile(
    rf"^(?:(?:\[[^\]]*\]\([^)\s]+\)|{_REF}|\d+)[*_`]*(?:\s*(?:[,;&/]|and)\s*|\s+|$))+",
    re.IGNORECASE,
)


def _leading_refs(value: str) -> list[str]:
    match = _LEADING_REFS.match(value.strip(" *_`"))
    if match is None:
        return []
    return [m.group(1) or m.group(2) for m in _LINK.finditer(match.group(0))] + [
        n for n in re.findall(r"(?<![\w-])(\d+)(?![\w-])", _LINK.sub(" ", match.group(0)))
    ]


# "- Tags: build, deps", as log4brains and MADR 2 logs keep them beside Status and Date
_TAGS_LINE = re.compile(sections.KEY_LINE + r"tags\**[ \t]*:\**[ \t]*(.+)$", re.I | re.M)


def parse_tags(body: str) -> list[str]:
    """The tags a ``Tags:`` line gives (commas between them; `#` and backticks dropped),
    for an ADR without front matter (since session 74: before, none were read); none
    from a template's placeholder left in place (``[comma separated list of tags]``)."""
    match = _TAGS_LINE.search(body)
    if match is None:
        return []
    value = re.sub(r"<!--.*?(?:-->|$)", "", match.group(1)).strip()
    if re.fullmatch(r"\[[^\]]*\]|\{[^}]*\}", value):  # a template's placeholder, unfilled
        return []
    tags = (t.strip(" `#*_[]") for t in value.split(","))
    return list(dict.fromkeys(t for t in tags if t))


def _status_text(body: str) -> str | None:
    """The body's Status section, else the value of its ``Status:`` line; None if neither.
    A section that keeps the status's history, or lists the choices, is read for the
    current status (`current_status`)."""
    text = sections.section(body, "status")
    if text is not None:
        return current_status(text)
    if match := _STATUS_LINE.search(body):
        return current_status(match.group(1))
    return None


# a line of a status's history: its date first ("2019-10-26 proposed", "- 2024-03-01:
# Accepted"), as phodal/adr's `adr status` appends one
_HISTORY_LINE = re.compile(
    rf"^[ \t]*[-*]?[ \t]*[*_]*({DATE_FORMS})[*_]*[ \t]*[:：-]?[ \t]*\S", re.IGNORECASE
)


def current_status(text: str) -> str:
    """A Status section's text with the current status first: less the line that lists the
    choices ("STATUS：proposed/accepted/done/deprecated/superseded", phodal/adr's template;
    "列表：提议/通过/完成/已弃用/已取代") where another line names one (else the choice
    it marks in bold: "`Proposed` | **`Accepted`** | `Deprecated`"), and with the
    latest of a dated history ("2019-10-26 proposed" ... "2019-10-28 accepted") before the
    rest. Before session 75 the first status word was read: such a record was proposed
    whatever it became."""
    lines = [line for line in text.splitlines() if line.strip()]
    kept = [line for line in lines if not choices(line)]
    if not kept:  # only the choices: the one in bold, else a template's left unfilled
        chosen = [c for line in lines for c in _CHOSEN.findall(line) if choices(line)]
        return chosen[0] if len(chosen) == 1 else text
    dated = [(iso_date(m.group(1)) or "", n) for n, line in enumerate(kept)
             if (m := _HISTORY_LINE.match(line))]  # fmt: skip
    if len(dated) >= 2:
        latest = max(dated)[1]  # the latest date; of one day's, the last written
        kept = [kept[latest], *(line for n, line in enumerate(kept) if n != latest)]
    elif len(kept) == len(lines):
        return text
    return "\n".join(kept)


# the choice a list of them marks in bold: "**`Proposed`** | `Accepted` | `Deprecated`"
_CHOSEN = re.compile(r"(?:\*\*|__)`?([^*_`|/\n]+?)`?(?:\*\*|__)")


def without_label(text: str) -> str:
    """``text`` without the short label before its colon ("STATUS：", "列表：")."""
    return re.sub(r"^[^:：/|]{0,20}[:：]", "", text.strip())


def choices(line: str) -> bool:
    """Whether ``line`` lists a template's status choices: three or more status words
    between "/" or "|" (after a label: "STATUS：", "列表：")."""
    rest = without_label(line)
    parts = [p.strip(" *_`[]{}") for p in re.split(r"[/|]", rest)]
    named = sum(
        1 for p in parts
        if ADR_STATUS_WORDS.get(p.lower()) is not None or p in CJK_STATUS_WORDS
    )  # fmt: skip
    return len(parts) >= 3 and named >= 3


def written_status(body: str) -> str | None:
    """The status as the body writes it, in its Status section or ``Status:`` line, for a
    warning when it names no status gitmem reads: its first line, "" for a section left
    empty (a template's, or one whose next heading is its own sub-heading); None where no
    status is written (a log that keeps none: each record reads as accepted, unwarned)."""
    text = _status_text(body)
    if text is None:
        return None
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return "" if first.startswith("#") else first


def status_line(body: str) -> int | None:
    """The 0-based line of ``body`` where its status is written (the Status heading, a
    ``Status:`` line or a table row naming it), for problems to point at; None if none."""
    at = sections.heading_line(body, "status")
    if at is not None:
        return at
    match = _STATUS_LINE.search(body)
    if match:
        return body.count("\n", 0, match.start())
    for n, line in enumerate(body.splitlines()):
        if line.lstrip().startswith("|") and "status" in (_cell_name(c) for c in _cells(line)):
            return n
    return None


# how "superseded by X" opens, and the words for "supersedes X", in the languages above
_SUPERSEDED_OPENS = tuple({phrase.split()[0] for phrase in SUPERSEDED_BY_PHRASES})
_SUPERSEDES_WORDS = re.compile(rf"\b(?:{'|'.join(SUPERSEDES_WORDS)})\b")


# A status shown as a badge: `![Status](https://img.shields.io/badge/status-accepted-green)`
_BADGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\s]*)\)")


def _badge_words(match: re.Match[str]) -> str:
    """An image as the words it shows: a shields.io badge's label and message
    (`badge/status-accepted-green`: "status accepted"; before session 75 its URL's
    words hid the status), else its alt text."""
    badge = re.search(r"/badge/([^/?#]+)", match.group(2))
    if badge is None:
        return match.group(1)
    parts = [p for p in re.split(r"(?<!-)-(?!-)", badge.group(1)) if p]
    return " ".join([match.group(1), *(p.replace("--", "-").replace("_", " ") for p in parts[:-1])])


def parse_status_text(text: str) -> tuple[str | None, list[str], list[str]]:
    """The same, from a status's own text: a Status section, or a front-matter value such
    as MADR 3/4's ``status: "superseded by [ADR-0005](0005-use-x.md)"``."""
    text = _STRUCK.sub(" ", text)
    if "](" in text:
        text = _BADGE.sub(_badge_words, text)
    if not text.strip():
        return None, [], []
    status: str | None = None
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", text)[:4]]  # "Accepté" whole
    negated = False  # by a word before this one: "Not yet decided"
    for word in words:
        said = ADR_STATUS_WORDS.get(word)
        if said is None:
            negated = negated or word in STATUS_NEGATIONS
            continue
        if negated and said != "accepted":
            negated = False  # "not rejected" says nothing
            continue
        status = "proposed" if negated else said  # "Not accepted": not in force
        break
    cjk = _CJK_STATUS.search(text[:40]) if status is None else None
    if cjk:
        status = CJK_STATUS_WORDS[cjk.group(0)]
    supersedes: list[str] = []
    superseded_by: list[str] = []
    for line in text.splitlines():
        low = line.lower().replace("superceded", "superseded")
        targets = [m.group(1) or m.group(2) for m in _LINK.finditer(line)]
        if any(phrase in low for phrase in SUPERSEDED_BY_PHRASES):
            # "Superseded by X" opening the line or one of its sentences ("Implemented.
            # Superseded by [ADR-013](...)"); not "Parts of this ADR were superseded by X"
            opens = (part.lstrip("-* ") for part in re.split(r"[.;]\s+", low))
            if any(part.startswith(_SUPERSEDED_OPENS) for part in opens) or not status:
                status = "superseded"
            superseded_by.extend(targets)
        elif _SUPERSEDES_WORDS.search(low):
            supersedes.extend(targets)
        elif targets and _CJK_SUPERSEDED_BY.search(line):
            status = "superseded" if status in (None, "accepted") else status
            superseded_by.extend(targets)
        elif targets and _CJK_SUPERSEDES.search(line):
            supersedes.extend(targets)
    return status, supersedes, superseded_by


def parse_date(body: str) -> str | None:
    for match in _DATE_LINE.finditer(body):
        date = iso_date(match.group(1))
        if date:
            return date
    for value in table_values(body, "date"):
        found = _SOME_DATE.match(value.strip("* "))
        if found and (date := iso_date(found.group(0))):
            return date
    # a Date section ("## Date\n\n2026-08-08"), else the date a status was given on
    # ("## Status\n\nAccepted 2026-09-18."); before session 74 neither was read
    for name in ("date", "status"):
        text = sections.section(body, name) or ""
        for match in _SOME_DATE.finditer(text[:200] if name == "status" else text[:40]):
            if date := iso_date(match.group(0)):
                return date
    return None


_SOME_DATE = re.compile(rf"(?<![\d/])(?<!\d\.)(?:{DATE_FORMS})(?![\d/]|\.\d)", re.IGNORECASE)


def iso_date(date: str) -> str | None:
    """A date in one of ``DATE_FORMS`` as ``YYYY-MM-DD``; None where it names no day
    (``2024-13-45``)."""
    text = date.strip().lower()
    if cjk := _CJK_DATE.match(text):
        year, month, day = (int(g) for g in cjk.groups())
    elif parts := re.fullmatch(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})", text):
        year, month, day = (int(g) for g in parts.groups())
    elif parts := re.fullmatch(r"(\d{1,2})\.(\d{1,2})\.(\d{4})", text):
        day, month, year = (int(g) for g in parts.groups())
    else:
        words = re.findall(r"\d+|[a-z]+", text)
        numbers = [int(w) for w in words if w.isdigit()]
        names = [w[:3] for w in words if w.isalpha() and w[:3] in MONTHS]
        if len(numbers) != 2 or len(names) != 1:
            return None
        day, year, month = numbers[0], numbers[1], MONTHS.index(names[0]) + 1
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def table_values(body: str, key: str) -> list[str]:
    """Values some ADR templates keep in a table, as candidates for the caller to try in
    order: the first row under a column headed ``Status``, and the cell after a row's own
    ``| Status | Accepted |``. (A two-cell first row may be either.)"""
    found: list[str] = []
    lines = body.splitlines()
    for n, line in enumerate(lines):
        if not line.lstrip().startswith("|"):
            continue
        cells = _cells(line)
        names = [_cell_name(c) for c in cells]
        if key in names and n + 2 < len(lines) and _TABLE_RULE.match(lines[n + 1]):
            row = _cells(lines[n + 2])
            at = names.index(key)
            if at < len(row) and row[at]:
                found.append(row[at])
        if len(cells) >= 2 and names[0] == key and cells[1]:
            found.append(cells[1])
    return found


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") else text
    return [cell.strip() for cell in text.split("|")]


def _cell_name(cell: str) -> str:
    name = cell.strip("*_ ").rstrip(":：").strip("*_ ").lower()
    return TRANSLATED_KEYS.get(name, name)


def ref_id(target: str, prefix: str) -> str | None:
    """The id a supersession reference names. A linked record file has the id its file name
    gives it (``0002-use-x.md`` -> ``ADR-0002``, ``./adr-020-foo.md`` -> ``adr-020-foo``);
    a bare number (``ADR 13``) becomes ``ADR-0013``, which ``gitmem.store`` maps to the
    record numbered 13 when that log's ids are file names. Web links name no record."""
    if target.isdigit():
        return f"{prefix}-{int(target):04d}"
    name = PurePosixPath(target.split("#", 1)[0]).name
    if markup.kind(name) is not None:
        return validate.derive_id(name, prefix)[0]
    if "://" in target:
        return None
    number = number_of(name)
    return None if number is None else f"{prefix}-{number:04d}"
