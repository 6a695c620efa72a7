"""Existing ADR folders, read in place.

``gitmem init`` finds ADR folders (adr-tools' ``.adr-dir``, log4brains, the `adrs` tool,
the usual ``docs/adr`` family) and registers them as decision sources in ``config.yaml``
instead of copying them: the ADRs stay the single source of truth. This module finds the
logs and their records and reads what a record's name and heading say (number, title);
``gitmem.adrfields`` reads its status, supersession, date and tags from its Markdown
(records without YAML front matter: Nygard, adr-tools, MADR 2; reStructuredText and
AsciiDoc through ``gitmem.markup``), and ``gitmem.adrglobs`` infers the globs of the paths
and modules it mentions, written to ``.continuity/imported.yaml`` (``inferred: true``) for
a human to review. Split in three in session 75 (one module of 1,000 lines before).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path, PurePosixPath

from gitmem import markup, validate

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
    adrs = adrs_setting(root, "adr_dir")  # the `adrs` tool's (Rust): adr_dir = "doc/adr"
    if adrs is not None:
        rel = adrs.removeprefix("./").strip("/")
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


def adrs_setting(root: Path, key: str) -> str | None:
    """A string setting of the `adrs` tool's ``adrs.toml`` at ``root`` (``adr_dir``, its
    templates' ``custom``), read as a line ``key = "value"``; None where there is none."""
    try:
        text = (root / "adrs.toml").read_text("utf-8", "replace")
    except OSError:
        return None
    match = re.search(rf"^\s*{re.escape(key)}\s*=\s*['\"]([^'\"\n]+)", text, re.M)
    return match.group(1).strip() if match else None


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
