"""Existing ADR folders, read in place.

``gitmem init`` finds ADR folders (adr-tools' ``.adr-dir``, log4brains, the usual
``docs/adr`` family) and registers them as decision sources in ``config.yaml`` instead of
copying them: the ADRs stay the single source of truth. Records without YAML front matter
(Nygard, adr-tools, MADR 2) are parsed from their Markdown: number from the file name, title
from the first heading, status and supersession links from the Status section (or a
``Status:`` line, or a table row), date from a ``Date:`` line. ADRs in reStructuredText or
AsciiDoc are read the same way, through ``gitmem.markup``.

ADRs carry no globs, so globs are inferred from the repository paths and module names the
ADR text mentions and written to ``.continuity/imported.yaml``, marked ``inferred: true``,
for a human to review and edit.
"""

from __future__ import annotations

import datetime as dt
import gc
import os
import re
from collections import defaultdict
from pathlib import Path, PurePosixPath

from gitmem import fsutil, markup, sections, validate
from gitmem.adrwords import (
    ADR_STATUS_WORDS,
    CJK_STATUS_WORDS,
    MONTHS,
    STATUS_NEGATIONS,
    SUPERSEDED_BY_PHRASES,
    SUPERSEDES_WORDS,
    TRANSLATED_KEYS,
)
from gitmem.entities import PATH_SEGMENT, route_path

# Where ADR tools and guides put a log. A folder of another name is found by its name's
# words once it holds two numbered records (_numbered_logs); these are read from
# the first record (adr-tools' `adr init` writes `.adr-dir` only for a folder it is given;
# its README's example is doc/architecture/decisions).
CANDIDATE_DIRS = (
    "docs/adr",
    "doc/adr",
    "docs/adrs",
    "docs/decisions",
    "doc/decisions",
    "docs/architecture/decisions",
    "doc/architecture/decisions",
    "docs/architecture/adr",
    "docs/architecture/adrs",
    "architecture/decisions",
    "architecture/adr",
    "adr",
    "adrs",
    "decisions",
)
_NUMBER = re.compile(r"^(?:[A-Za-z]+[-_ ]?)?0*(\d+)")
_NUMBER_DIGITS = re.compile(r"^((?:[A-Za-z]+[-_ ]?)?)(\d+)")  # the same, with its padding
_SKIP_NAMES = {"readme", "index", "template", "adr-template", "0000-template", "summary"}
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


def detect(root: Path, files: list[str]) -> list[str]:
    """Repository-relative ADR folders, most authoritative first, from the repository's
    ``files`` (``git.ls_files``: tracked, and untracked but not ignored). Since session
    68 a log below the root is found among those files only, as `gitmem lint` looks for
    one no source reads: before, a walk of the work tree also took an ignored folder (a
    build's copy of the docs) for a log, which a teammate's clone does not have."""
    found: list[str] = []
    adr_dir = root / ".adr-dir"
    if adr_dir.is_file():
        rel = adr_dir.read_text(encoding="utf-8", errors="replace").strip().strip("/")
        if rel and (root / rel).is_dir():
            found.append(rel)
    for name in (".log4brains.yml", ".log4brains.yaml"):
        cfg = root / name
        if cfg.is_file():
            match = re.search(
                r"^\s*adrFolder:\s*['\"]?([^'\"\n]+)", cfg.read_text("utf-8", "replace"), re.M
            )
            if match:
                rel = match.group(1).strip().strip("./").strip("/")
                if (root / rel).is_dir() and rel not in found:
                    found.append(rel)
    adrs = root / "adrs.toml"  # the `adrs` tool's (Rust): adr_dir = "doc/adr"
    if adrs.is_file():
        match = re.search(
            r"^\s*adr_dir\s*=\s*['\"]([^'\"\n]+)", adrs.read_text("utf-8", "replace"), re.M
        )
        if match:
            rel = match.group(1).strip().removeprefix("./").strip("/")
            if rel and (root / rel).is_dir() and rel not in found:
                found.append(rel)
    for rel in CANDIDATE_DIRS:
        if (root / rel).is_dir() and rel not in found and adr_files(root / rel):
            found.append(rel)
    for rel in sorted({*_package_logs(files), *_numbered_logs(files)}):
        if rel not in found and not any(rel.startswith(f + "/") for f in found):
            found.append(rel)
    return found


# A log of the usual name below the root (a monorepo package's `services/billing/docs/adr`)
# is found from its first record, as the root's are; a bare `decisions/` deeper down is
# as often a part of the code, so it needs two numbered records (_numbered_logs).
# Before session 67 every nested log did: a package's log of one ADR was not read at all.
_NESTED_LOGS = tuple("/" + d for d in CANDIDATE_DIRS if d != "decisions")
_VENDORED = frozenset({"node_modules", "vendor", "third_party", ".venv", "venv"})


def _set_aside(folders: list[str]) -> bool:
    """Whether a path through these folders is vendored or hidden (`.git`, `.continuity`):
    no log of the project's is there."""
    return any(p in _VENDORED or p.startswith(".") for p in folders)


def _package_logs(files: list[str]) -> list[str]:
    """Folders below the root named as ADR logs are named (``*/docs/adr``, ``*/adr``, ...)
    that hold at least one tracked record, outside vendored and hidden folders."""
    found: set[str] = set()
    for f in files:
        if "adr" not in f and "decisions" not in f:  # in every such name: a cheap first cut
            continue
        parts = f.split("/")
        if len(parts) < 3 or not is_adr_name(parts[-1]):
            continue
        if _set_aside(parts[:-1]):
            continue
        for i in range(2, len(parts)):
            folder = "/".join(parts[:i])
            if folder.endswith(_NESTED_LOGS):
                found.add(folder)
                break
    return sorted(found)


_FOLDER_WORDS = ("adr", "decision", "architecture", "rfc")  # what _ADR_FOLDER_WORDS needs
_ADR_FOLDER_WORDS = re.compile(r"(^|[/_-])(adrs?|decisions?|architecture|rfcs?)($|[/_-])", re.I)
_NUMBERED_NAME = re.compile(r"^[A-Za-z]{0,4}[-_]?\d{1,5}[-_A-Za-z]")


def _numbered_logs(files: list[str]) -> list[str]:
    """Other folders that look like ADR logs: a name mentioning adr, decision, architecture
    or rfc, holding at least two numbered record files (``adr-001-x.md``, ``0002-y.rst``,
    ``003rfc-z.md``), outside hidden, vendored and dependency folders."""
    counts: dict[str, int] = defaultdict(int)
    for f in files:
        folder, _, name = f.rpartition("/")
        low = folder.lower()  # a string test first: a regex per file is 10 times slower
        if not any(w in low for w in _FOLDER_WORDS) or not _ADR_FOLDER_WORDS.search(folder):
            continue
        if _set_aside(folder.split("/")):
            continue
        if markup.kind(name) is not None and _NUMBERED_NAME.match(name):
            counts[folder] += 1
    return sorted(rel for rel, n in counts.items() if n >= 2)


def adr_files(folder: Path) -> list[Path]:
    """ADR records in a folder (recursively): Markdown, reStructuredText and AsciiDoc files,
    skipping READMEs, indexes and templates."""
    return [p for p in sorted(folder.rglob("*")) if is_adr_name(p.name) and p.is_file()]


def is_adr_name(name: str) -> bool:
    """Whether a file of this name in an ADR folder is one of its records."""
    if markup.kind(name) is None:
        return False
    stem = PurePosixPath(name).stem.lower()
    return not (stem in _SKIP_NAMES or stem.startswith(("_", ".")) or "template" in stem)


def renumbered(name: str, number: int) -> str:
    """``name`` with its record number replaced, keeping its padding: ``0002-x.md``, 3 ->
    ``0003-x.md``; ``adr-013-x.md``, 14 -> ``adr-014-x.md``."""
    match = _NUMBER_DIGITS.match(name)
    if match is None:
        return name
    digits = match.group(2)
    return f"{match.group(1)}{number:0{len(digits)}d}{name[match.end() :]}"


# a heading that restates the record's number before its title: "ADR 001: X", "ADR-16: X",
# "RFC-006: X", "1. X" (adr-tools), "Decision 12 - X", "ADR: X"
TITLE_LABEL = re.compile(
    r"^(?:(ADR|RFC|PDR|MADR|Decision)\s*[-#]?\s*)?"
    r"(?:0*(\d+))?\s*(?:[:.)\-\u2013\u2014]\s+|\uff1a\s*)(?=\S)",  # "：": no space after it
    re.IGNORECASE,
)


def plain_title(heading: str, number: int | None) -> str:
    """An ADR's heading without the label that restates its number: ``ADR 020: Deterministic
    Square Construction`` -> ``Deterministic Square Construction``; ``1. Record architecture
    decisions`` -> ``Record architecture decisions``. Every line an agent reads names the
    record by its id already (``adr-020 ...``), so the label costs tokens and says nothing
    twice, and in the keyword and embedding indexes it is a word every title shares. A
    number other than the file's (``# 3. X`` in ``0002-x.md``), or a label with no title
    after it, is kept as written."""
    match = TITLE_LABEL.match(heading)
    if match is None:
        return heading
    label, said = match.group(1), match.group(2)
    if said is None and (label is None or label.lower() == "decision"):
        return heading  # "- x", "Decision: x"
    if said is not None and int(said) != number:
        return heading
    rest = heading[match.end() :].strip()
    return rest or heading


def number_of(filename: str) -> int | None:
    """``adr-013-x.md``, ``0013-x.md``, ``013rfc-x.md`` -> 13; a dated name has none."""
    stem = PurePosixPath(filename).stem
    if validate.name_date(stem):
        return None
    match = _NUMBER.match(stem)
    return int(match.group(1)) if match else None


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


def choices(line: str) -> bool:
    """Whether ``line`` lists a template's status choices: three or more status words
    between "/" or "|" (after a label: "STATUS：", "列表：")."""
    rest = re.sub(r"^[^:：/|]{0,20}[:：]", "", line.strip())
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


# ---------------------------------------------------------------------------- glob inference

_GENERIC = {
    "src",
    "lib",
    "libs",
    "test",
    "tests",
    "docs",
    "doc",
    "app",
    "apps",
    "cmd",
    "pkg",
    "internal",
    "utils",
    "util",
    "common",
    "main",
    "core",
    "build",
    "scripts",
    "tools",
    "bin",
    "config",
    "configs",
    "types",
    "api",
    "index",
    "data",
    "spec",
    "specs",
    "example",
    "examples",
    "readme",
    "license",
    "java",
    "scala",
    "python",
    "go",
    "js",
    "ts",
    "resources",
    "target",
    "dist",
    "vendor",
    "node_modules",
    "the",
    "and",
    "for",
    "with",
    "this",
    "that",
    "github",
    "http",
    "https",
    "www",
    "com",
    "org",
    "io",
    "net",
    "md",
    "x",
    "v1",
    "v2",
}
# a leading dot is a hidden file's or folder's (`.github/workflows/ci.yml`, `.eslintrc.json`),
# unless it follows a word, a dot or a slash (an ellipsis, `a..b`); before session 74 it was
# dropped, and `github/workflows/ci.yml` named nothing
_TOKEN = re.compile(r"(?:(?<![\w./-])\.)?[A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_]")
# what a mentioned path starts with that is not part of it: `./`, `../` (read as a partial
# path) and `/` (the repository's root)
_PATH_LEAD = re.compile(r"^(?:\.{1,2}/|/)+")
MAX_INFERRED = 12
# A name that parallel folders share (in parents of one name) and that together hold more
# than this share of the repository's files is its namespace, not a part of it: a
# project's own name as its root package in main and test trees. (`server/` beside
# `tests/server/` is a part, however large.) (Across a log of 6 records or more, `infer_all`
# also drops globs most records share; this catches it in a small log too.)
NAMESPACE_SHARE = 0.5


class RepoLayout:
    """The repository's paths, indexed for matching what an ADR's text mentions."""

    def __init__(self, files: list[str], exclude_prefixes: tuple[str, ...] = ()) -> None:
        # the collector would walk the growing indexes again and again as they fill (a
        # third of the time for 200,000 files): nothing here is a cycle
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._index(files, exclude_prefixes)
        finally:
            if enabled:
                gc.enable()

    def _index(self, files: list[str], exclude_prefixes: tuple[str, ...]) -> None:
        self.files = {f for f in files if not f.startswith(exclude_prefixes)}
        self.dirs: set[str] = set()
        self.by_dirname: dict[str, set[str]] = defaultdict(set)
        self.by_basename: dict[str, list[str]] = {}
        self.by_stem: dict[str, list[str]] = {}
        self.held: dict[str, int] = defaultdict(int)  # folder -> files under it
        # each file's folder is counted once, and a folder's parents are walked only the
        # first time it is seen, not every parent of every file (since session 68, when
        # lint began to infer globs as init does)
        direct: dict[str, int] = defaultdict(int)
        for f in self.files:
            cut = f.rfind("/")
            name = f[cut + 1 :].lower()
            got = self.by_basename.get(name)  # lists, not sets: one of each name is usual
            if got is None:
                self.by_basename[name] = [f]
            else:
                got.append(f)
            dot = name.rfind(".")
            stem = name[:dot] if dot >= 0 else name  # `.env`: none
            if stem:
                got = self.by_stem.get(stem)
                if got is None:
                    self.by_stem[stem] = [f]
                else:
                    got.append(f)
            if cut < 0:
                continue
            d = f[:cut]
            direct[d] += 1
            while d not in self.dirs:
                self.dirs.add(d)
                up = d.rfind("/")
                self.by_dirname[d[up + 1 :].lower()].add(d)
                if up < 0:
                    break
                d = d[:up]
        for d in sorted(self.dirs, key=lambda d: d.count("/"), reverse=True):
            self.held[d] += direct.get(d, 0)  # its children, deeper, have added theirs
            up = d.rfind("/")
            if up >= 0:
                self.held[d[:up]] += self.held[d]

    def resolve(self, token: str, within: str | None = None) -> list[str]:
        """Globs for one mentioned token, most specific first; [] when it names nothing.
        ``within``: the package whose ADR log mentions it (``services/billing``), where a
        path is read first, and whose paths win over the same names elsewhere: its ADRs
        write `src/ledger.py` for ``services/billing/src/ledger.py``."""
        if QUALIFIED_JOIN in token:
            return self._module(token.split(QUALIFIED_JOIN), within)
        t = _PATH_LEAD.sub("", token).rstrip("./")  # `.github/` keeps its dot
        if t.startswith("."):
            hidden = self._resolve(t, within)
            if hidden:
                return hidden
            t = t.lstrip(".")  # `.json` (JSON files) is read as the word, as before
        return self._resolve(t, within) if t else []

    def _resolve(self, t: str, within: str | None) -> list[str]:
        """``resolve`` for a token without what a path starts with (``_PATH_LEAD``)."""
        for base in (f"{within}/{t}", t) if within else (t,):
            if base in self.files:
                return [base]
            if base in self.dirs:
                return [base + "/**"]
        low = t.lower()
        if "/" in t:
            # A partial path: match it as a suffix of real paths; without an extension, of
            # files' too (`storage/engine` for `src/storage/engine.rs`, since session 75)
            hits = [d + "/**" for d in self.dirs if d.lower().endswith("/" + low)]
            hits += [f for f in self.files if f.lower().endswith("/" + low)]
            if not hits and "." not in low.rsplit("/", 1)[-1]:
                hits = [f for f in self.files if _stem_path(f.lower()).endswith("/" + low)]
            hits = _inside(hits, within)
            return sorted(hits)[:3] if 0 < len(hits) <= 3 else []
        if "." in t and not t.startswith(".") and t.count(".") >= 2:
            # A dotted module name (``at.forsyte.apalache.io``, ``gitmem.store``).
            as_path = low.replace(".", "/")
            hits = [d + "/**" for d in self.dirs if d.lower().endswith(as_path)]
            hits += [f for f in self.files if f.lower().rsplit(".", 1)[0].endswith(as_path)]
            hits = _inside(hits, within)
            return sorted(hits)[:3] if 0 < len(hits) <= 3 else self._owner(t, within)
        if low in _GENERIC or len(low) < 3:
            return []
        named = _inside(list(self.by_basename.get(low, ())), within)
        if named and len(named) <= 3:
            return sorted(named)
        dirs = set(_inside(list(self.by_dirname.get(low, ())), within))
        if dirs and len(dirs) <= 3:
            if self._namespace(dirs):
                return []  # `src/{main,test}/java/org/acme` for "Acme": the whole project
            return sorted(d + "/**" for d in dirs)
        # a file stem only for a code name: an acronym in capitals ("a CLI flag") is prose
        stems = _inside(list(self.by_stem.get(low, ())), within)
        if stems and len(stems) <= 2 and _identifier_like(t) and not t.isupper():
            return sorted(stems)
        return self._owner(t, within)

    def _module(self, parts: list[str], within: str | None) -> list[str]:
        """A qualified name's globs (``_qualified_names``): the longest start of it that
        names a path (`storage::engine::Compactor`: `src/storage/engine.rs`, the module
        that holds the type), down to its first part alone, read as any token is."""
        for n in range(len(parts), 1, -1):
            hits = self._resolve("/".join(parts[:n]), within)
            if hits:
                return hits
        return self._resolve(parts[0], within) if parts else []

    def _owner(self, token: str, within: str | None) -> list[str]:
        """The file of the type a member is named by (`AuthenticationController.Login`,
        `OrderService.placeOrder()`: `AuthenticationController.cs`), when the name before
        the dot is a code name and a file stem. C#, Java, Kotlin, Scala and TypeScript
        ADRs name the code they govern so; before session 74 such a name matched nothing
        (only the whole token was looked up, as a file name). A lower-case head
        (`store.load`, Go's `square.Build`) is a word or a package, and stays one."""
        head, dot, _ = token.partition(".")
        if not dot or not _identifier_like(head) or head.isupper():
            return []
        stems = _inside(list(self.by_stem.get(head.lower(), ())), within)
        return sorted(stems) if 0 < len(stems) <= 2 else []

    def _namespace(self, dirs: set[str]) -> bool:
        """Parallel folders of one name in the same kind of parent (``org/acme`` in a main
        and a test tree) that together hold most of the repository."""
        parents = {PurePosixPath(d).parent.name for d in dirs}
        held = sum(self.held[d] for d in dirs)
        return len(dirs) > 1 and len(parents) == 1 and held > NAMESPACE_SHARE * len(self.files)


def _stem_path(path: str) -> str:
    """``path`` without its file's extension, after a "/" (``/src/storage/engine`` for
    ``src/storage/engine.rs``): for a suffix match at a folder's boundary."""
    cut = path.rfind("/")
    dot = path.rfind(".")
    return "/" + (path[:dot] if dot > cut + 1 else path)


def _inside(hits: list[str], within: str | None) -> list[str]:
    """The ``hits`` inside the package ``within`` where there are any, else all of them."""
    if not within:
        return hits
    inside = [h for h in hits if h.startswith(within + "/")]
    return inside or hits


def _identifier_like(token: str) -> bool:
    """Mixed case or snake_case: likely a code name, not an English word."""
    return ("_" in token) or (
        token != token.lower() and token != token.upper()[:1] + token[1:].lower()
    )


_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"`([^`\n]{2,160})`")
_URL = re.compile(r"https?://\S+")
_REPO_URL_PATH = re.compile(r"/(?:blob|tree)/[^/\s]+/([^\s)#?]+)")
# a command-line option's name (`--features=no-rows`, `-Xmx`) names no path; its value may
_OPTION = re.compile(r"(?<![\w/.-])--?[A-Za-z][\w-]*")
MAX_SHARE = 0.35  # a glob inferred for more of an ADR log's records than this says nothing


# A path with a route segment (Next.js `app/blog/[slug]/page.tsx`, `app/(site)/about`):
# read whole, before the words are split at its brackets (which gave `app/blog`, so the
# decision governed the whole blog; before session 42).
_ROUTE_PATH = re.compile(rf"(?<![\w/.\[(-]){PATH_SEGMENT}(?:/{PATH_SEGMENT})+/?")


# A qualified name of the languages that write a module path with `::` or `\` (Rust's
# `crate::storage::engine::Compactor`, C++'s `billing::Ledger`, PHP's
# `App\Http\Controllers\UserController`), read as the path it names (since session 75:
# before, its parts were read one by one, as words). A Windows path (`src\app\x.py`) is a
# path with `/`.
_QUALIFIED = re.compile(
    r"(?<![\w:\\])\\?((?:[A-Za-z_]\w*(?:::|\\))+[A-Za-z_]\w*)(\.[A-Za-z]\w{0,7})?(?![\w:\\])"
)
# Rust's names of the crate and module a path starts from
_RELATIVE_HEADS = frozenset({"crate", "self", "super"})
# the standard libraries' roots (Rust's, C++'s): `std::sync::Arc` names no module here
_STANDARD_LIBRARIES = frozenset({"std", "core", "alloc", "boost"})
# what joins a qualified name's parts in a token for `RepoLayout.resolve` (no path holds it)
QUALIFIED_JOIN = "\\"


def _qualified_names(text: str, out: list[str]) -> str:
    """``text`` less its qualified names, which go to ``out`` as tokens (parts joined by
    QUALIFIED_JOIN) that `RepoLayout.resolve` reads as a module path."""

    def take(match: re.Match[str]) -> str:
        parts = re.split(r"::|\\", match.group(1))
        if "\\" in match.group(0) and any(p.startswith("_") for p in parts[1:]):
            return match.group(0).replace("\\", "")  # Markdown's escapes: `my\_name`
        if match.group(2):  # `src\app\x.py`
            out.append("/".join(parts) + match.group(2))
            return " "
        if parts[0] in _STANDARD_LIBRARIES:  # `std::vector`: none of the repository's
            return " "
        while parts and parts[0] in _RELATIVE_HEADS:
            parts = parts[1:]
        if parts:
            out.append(QUALIFIED_JOIN.join(parts))
        return " "

    return _QUALIFIED.sub(take, text) if "::" in text or "\\" in text else text


def _route_paths(text: str, out: list[str]) -> str:
    """``text`` less its paths with a route segment, which go to ``out``."""

    def take(match: re.Match[str]) -> str:
        token = match.group(0)
        if not route_path(token):
            return token
        out.append(token.rstrip("/"))
        return " "

    return _ROUTE_PATH.sub(take, text) if "/" in text else text


def mentions(text: str, adr_rel: str = "") -> list[str]:
    """Tokens of an ADR that may name repository paths or modules, strongest first:
    relative links and repository URLs, code spans, then code-like words of the prose
    (paths, dotted/snake_case/CamelCase names; plain English words only count inside code
    spans). Command-line options' names are left out: `--features` is a flag, not the
    `features/` folder."""
    out: list[str] = []
    base = PurePosixPath(adr_rel).parent
    for target in _LINK_TARGET.findall(text):
        if target.startswith(("http://", "https://")):
            match = _REPO_URL_PATH.search(target)
            if match:
                out.append(match.group(1))
            continue
        if target.startswith(("#", "mailto:")):
            continue
        joined = os.path.normpath((base / target.split("#", 1)[0]).as_posix())
        if not joined.startswith(".."):
            out.append(joined)
    for match in _URL.findall(text):
        found = _REPO_URL_PATH.search(match)
        if found:
            out.append(found.group(1))
    for span in _CODE_SPAN.findall(text):
        span = _qualified_names(_route_paths(span, out), out)
        out.extend(_TOKEN.findall(_OPTION.sub(" ", span)))
    prose = _URL.sub(" ", _CODE_SPAN.sub(" ", _LINK_TARGET.sub("]", text)))
    prose = _qualified_names(_route_paths(prose, out), out)
    for token in _TOKEN.findall(_OPTION.sub(" ", prose)):
        if "/" in token or re.search(r"\.[A-Za-z]{1,5}$", token) or _identifier_like(token):
            out.append(token)
    return out


def infer_globs(
    text: str, layout: RepoLayout, adr_rel: str = "", within: str | None = None
) -> list[str]:
    """Globs for the paths and modules an ADR's text mentions that exist in the repository,
    most mentioned first (``within``: see ``RepoLayout.resolve``)."""
    counts: dict[str, int] = defaultdict(int)
    order: list[str] = []
    for token in mentions(text, adr_rel):
        for glob in layout.resolve(token, within):
            if glob not in counts:
                order.append(glob)
            counts[glob] += 1
    first = {g: i for i, g in enumerate(order)}
    order.sort(key=lambda g: (-counts[g], first[g]))
    return _prune(order)


def infer_all(
    texts: dict[str, str], layout: RepoLayout, within: str | None = None
) -> dict[str, list[str]]:
    """Infer globs for every ADR of a log, then drop globs that most records share (the
    project's own name matching a folder, an umbrella folder): they do not discriminate."""
    raw = {rel: infer_globs(text, layout, rel, within) for rel, text in texts.items()}
    df: dict[str, int] = defaultdict(int)
    for globs in raw.values():
        for g in set(globs):
            df[g] += 1
    limit = max(2, int(MAX_SHARE * len(texts))) if len(texts) >= 6 else len(texts)
    return {rel: [g for g in globs if df[g] <= limit][:MAX_INFERRED] for rel, globs in raw.items()}


def infer_logs(
    root: Path, folders: list[str], files: list[str], wanted: set[str] | None = None
) -> dict[str, list[str]]:
    """Globs for every ADR of the logs in ``folders`` (``wanted``: only those logs), from
    the repository's ``files``: what ``gitmem init`` writes to imported.yaml, and what
    loading infers for an ADR added to a log since ``init`` last ran. The logs' own
    folders and ``.continuity/`` are no evidence."""
    excluded = (*tuple(f.rstrip("/") + "/" for f in folders), ".continuity/")
    layout = RepoLayout(files, excluded)
    packages = package_folders(files)
    out: dict[str, list[str]] = {}
    for folder in folders:
        if wanted is not None and folder not in wanted:
            continue
        texts: dict[str, str] = {}
        for path in adr_files(root / folder):
            rel = path.relative_to(root).as_posix()
            try:
                texts[rel] = fsutil.inside(root, rel).read_text("utf-8", errors="replace")
            except OSError:  # loading says why it is not read
                continue
        package = package_of(folder, packages)
        inferred = infer_all(texts, layout, package)
        if package is not None:
            # the log's place says what it governs: its package, whatever else each ADR
            # names (kept, as more specific, to rank it first for those paths)
            scope = package + "/**"
            for globs in inferred.values():
                if not any(g.endswith("/**") and scope.startswith(g[:-2]) for g in globs):
                    globs.append(scope)
        out.update(inferred)
    return out


# What marks a folder of a monorepo as a package of its own: the manifests of the
# ecosystems' package managers and build tools (Nx's project.json, Bazel's BUILD files).
PACKAGE_MANIFESTS = frozenset({
    "package.json", "deno.json", "deno.jsonc", "project.json", "pyproject.toml", "setup.py",
    "setup.cfg", "go.mod", "Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts",
    "build.sbt", "composer.json", "Gemfile", "mix.exs", "Package.swift", "pubspec.yaml",
    "BUILD", "BUILD.bazel", "dune-project", "stack.yaml", "rebar.config",
})  # fmt: skip
_MANIFEST_SUFFIXES = (".csproj", ".fsproj", ".vbproj", ".cabal", ".gemspec")
_MANIFEST_ENDINGS = (*("/" + name for name in PACKAGE_MANIFESTS), *_MANIFEST_SUFFIXES)
# A package that is the project's documentation (a Docusaurus `website/`, a `docs/` site)
# publishes the whole repository's ADRs: its log is not its own.
_DOCS_PACKAGES = frozenset({"docs", "doc", "documentation", "website", "site", "www", "wiki"})


def package_folders(files: list[str]) -> set[str]:
    """The folders below the root that hold a package manifest."""
    out = set()
    for f in files:
        if f.endswith(_MANIFEST_ENDINGS):  # one C-level test for most files
            folder, _, name = f.rpartition("/")
            if folder and (name in PACKAGE_MANIFESTS or name.endswith(_MANIFEST_SUFFIXES)):
                out.add(folder)
    return out


def package_of(folder: str, packages: set[str]) -> str | None:
    """The monorepo package an ADR log belongs to: the nearest folder at or above it that
    holds a package manifest (``services/billing`` for ``services/billing/docs/adr``).
    A documentation package does not count (``website/docs/adr``: that log is the whole
    repository's, unless a package holds the site). None for a log of the whole
    repository: no such folder below the root (``docs/adr``)."""
    parts = folder.split("/")
    for i in range(len(parts), 0, -1):
        candidate = "/".join(parts[:i])
        if candidate in packages and parts[i - 1].lower() not in _DOCS_PACKAGES:
            return candidate
    return None


def _prune(globs: list[str]) -> list[str]:
    """Drop globs already covered by a broader directory glob in the list."""
    dirs = [g[:-3] for g in globs if g.endswith("/**")]
    out = []
    for g in globs:
        base = g[:-3] if g.endswith("/**") else g
        if any(base != d and base.startswith(d + "/") for d in dirs):
            continue
        out.append(g)
    return out
