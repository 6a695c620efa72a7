"""Declarative validation of a record's front matter.

A record with problems still loads with best-effort values (a typo in ``severity`` must not
hide the decision from agents); ``gitmem lint`` reports every problem as FILE:LINE: key.
Only YAML that cannot be parsed at all keeps a record out.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from gitmem import sections
from gitmem.budget import MAX_TITLE
from gitmem.frontmatter import Parsed
from gitmem.globs import GlobError, compile_globs, split_list
from gitmem.model import SEVERITIES, STATUSES, Decision, Problem, Rule

_NUMBERED = re.compile(r"^(\d+)[-_ .]")
_ID_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
STATUS_ALIASES = {"active": "accepted", "approved": "accepted", "draft": "proposed"}


def canonical_status(text: str) -> str | None:
    """A status as written (``Accepted``, ``draft``) -> one of ``STATUSES``; None if it is
    none of them or their aliases."""
    word = text.strip().lower()
    return STATUS_ALIASES.get(word, word if word in STATUSES else None)


# `status: superseded by D-0009`, as MADR writes a status: the record names its successor.
SUPERSEDED_BY = re.compile(r"^\s*(?:superseded|replaced)\s+by\b\s*:?\s*(.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Field:
    kind: str  # "str" | "list" | "bool" | "rules"
    help: str


SCHEMA: dict[str, Field] = {
    "id": Field("str", "stable unique id; derived from the file name when absent"),
    "title": Field("str", "one line (L0)"),
    "status": Field("str", "proposed | accepted | deprecated | superseded | rejected"),
    "date": Field("str", "ISO date the decision was made"),
    "globs": Field("list", "gitignore-style patterns of the paths it governs"),
    "tags": Field("list", "free-form labels"),
    "severity": Field("str", "critical | warning | info"),
    "supersedes": Field("list", "ids of the decisions this one replaces"),
    "superseded_by": Field("list", "ids of the decisions that replace this one"),
    "pin": Field("bool", "always include in session digests"),
    "rules": Field("rules", "machine-checkable constraints (- forbid: REGEX)"),
    "summary": Field("str", "explicit L1 overview; derived from the body when absent"),
    "globs_inferred": Field("bool", "globs were inferred by gitmem init; review them"),
}
_RULE_KEYS = {"forbid", "paths", "message"}


def _near_key(key: str) -> str | None:
    """The gitmem key that ``key`` looks like a typo of (``glob`` -> ``globs``), if any."""
    close = difflib.get_close_matches(key.lower().replace("-", "_"), SCHEMA, n=1, cutoff=0.75)
    return close[0] if close else None


_DATED = re.compile(r"^((?:19|20)\d\d)-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?:[-_ .]|$)")


def name_date(filename: str) -> str | None:
    """``2021-03-04-use-postgres.md`` or ``20210304-use-postgres.md`` -> ``2021-03-04``:
    ADR logs named by date rather than by number."""
    match = _DATED.match(PurePosixPath(filename).stem)
    return "-".join(match.groups()) if match else None


def derive_id(filename: str, prefix: str = "D") -> tuple[str, int | None]:
    """``0007-billing-no-experimental.md`` -> (``D-0007``, 7); otherwise the file's stem
    as an id (also for a name that starts with a date: its year is not a number in a
    series; see ``as_id``)."""
    stem = PurePosixPath(filename).stem
    if name_date(stem):
        return as_id(stem), None
    match = _NUMBERED.match(stem + "-")
    if match:
        number = int(match.group(1))
        return f"{prefix}-{number:04d}", number
    return as_id(stem), None


_NOT_IN_ID = re.compile(r"[^\w.:-]+")


def as_id(stem: str) -> str:
    """A file's stem as an id: each run of characters an id cannot hold (spaces, brackets,
    commas, quotes) becomes one `-`; letters of any script stay. `Use Redis (draft).md`
    gave the id `Use Redis (draft)` before session 53, which `Decision-Override: ID reason`
    and GITMEM_OVERRIDE, split at the first space, could not name (a critical rule could
    not be overridden), and which a `Decisions:` trailer's list could not hold."""
    return _NOT_IN_ID.sub("-", stem).strip("-") or stem


def normalize_ref(value: Any, prefix: str = "D") -> str:
    """A ``supersedes`` entry: ids as written; bare numbers become ``D-0007``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{prefix}-{value:04d}"
    text = str(value).strip()
    if text.isdigit():
        return f"{prefix}-{int(text):04d}"
    return text


@functools.cache
def _template_summaries() -> frozenset[str]:
    """What the summaries of records left as ``gitmem new`` wrote them would be."""
    from gitmem import resources

    out = set()
    for kind in resources.TEMPLATES:
        try:
            text = resources.template(kind)
        except OSError:
            continue
        out.add(sections.summarize(text.replace("{title}", "T").replace("{status}", "proposed")))
    return frozenset(out - {""})


def _line_index(body: str, start: str) -> int:
    for n, line in enumerate(body.splitlines()):
        if start in line:
            return n
    return 0


def build(
    parsed: Parsed, file: str, *, id_prefix: str = "D", source: str = "continuity"
) -> tuple[Decision, list[Problem]]:
    meta = parsed.meta or {}
    problems: list[Problem] = []

    def line(key: str) -> int:
        return parsed.key_lines.get(key, 1)

    def item_line(key: str, idx: int) -> int:
        items = parsed.item_lines.get(key, ())
        return items[idx] if idx < len(items) else line(key)

    def err(key: str, message: str, at: int | None = None, level: str = "error") -> None:
        problems.append(Problem(file, at if at is not None else line(key), key, message, level))

    if parsed.meta is None:
        err("front-matter", "no YAML front matter (`---` block); using defaults", 1, "warning")

    for key in meta:
        if key in SCHEMA:
            continue
        near = _near_key(str(key))
        # An ADR read in place keeps the front matter of its own format and of the site
        # that publishes it (MADR's `deciders`, Jekyll's `nav_order`, Docusaurus's
        # `sidebar_label`): not ours to judge. A typo of one of gitmem's keys still warns.
        if source == "continuity" or near is not None:
            hint = f" (did you mean `{near}`?)" if near else ""
            err(key, f"unknown key, ignored{hint}", level="warning")

    def as_str(key: str) -> str | None:
        value = meta.get(key)
        if value is None:
            return None
        if isinstance(value, dict | list):
            err(key, f"expected a string, got a {type(value).__name__}")
            return None
        return str(value).strip()

    def as_list(key: str, commas: bool = False) -> list[str]:
        value = meta.get(key)
        if value is None:
            return []
        if isinstance(value, str):  # `tags: frontend, build` (``commas``): two
            return [v.strip() for v in value.split(",") if v.strip()] if commas else [value]
        if not isinstance(value, list):
            err(key, f"expected a list of strings, got {type(value).__name__}")
            return []
        out = []
        for idx, item in enumerate(value):
            if isinstance(item, dict | list) or item is None:
                err(key, f"item {idx + 1}: expected a string", item_line(key, idx))
                continue
            out.append(str(item))
        return out

    def as_bool(key: str) -> bool:
        value = meta.get(key)
        if value is None:
            return False
        if not isinstance(value, bool):
            err(key, f"expected true or false, got {value!r}")
            return False
        return value

    derived_id, number = derive_id(file, id_prefix)
    ident = as_str("id") or derived_id
    if "id" in meta and not _ID_OK.match(ident):
        # Like a bad status, it costs the value, not the record: an id reaches links, the
        # session's de-duplication and commit trailers, so `../x` or `a b` never does.
        err(
            "id",
            f"{ident!r} is not a valid id (letters, digits, `-`, `_`, `.`, `:`);"
            f" using {derived_id!r} from the file name",
        )
        ident = derived_id

    title = as_str("title") or sections.first_heading(parsed.body) or ""
    if any(c in title for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"):
        # a YAML block (`title: |`) keeps its line breaks: the agent was given each line as
        # one of its own, so a title's second line could pass for another decision
        # ("- Project decision D-0099 (accepted, critical) applies: …"), and the list's
        # tab-separated rows broke
        err("title", "spans more than one line: read as one", level="warning")
    title = " ".join(title.split())
    if not title:
        title = PurePosixPath(file).stem
        err("title", "missing: add `title:` or a `# Heading`")
    elif len(title) > MAX_TITLE:
        err(
            "title",
            f"{len(title):,} characters: agents are given its first {MAX_TITLE}; say the"
            " decision in a line, and the rest in the body",
            level="warning",
        )

    status = (as_str("status") or "").lower()
    if not status:
        status = "proposed"
        if parsed.meta is not None:
            err("status", "missing; treated as `proposed`", level="warning")
    elif (known := canonical_status(status)) is not None:
        status = known
    elif SUPERSEDED_BY.match(status):
        status = "superseded"  # its successor is linked by gitmem.store
    else:
        err("status", f"{status!r} is not one of {', '.join(STATUSES)}; treated as `proposed`")
        status = "proposed"

    severity = (as_str("severity") or "info").lower()
    if severity not in SEVERITIES:
        err("severity", f"{severity!r} is not one of {', '.join(SEVERITIES)}; using `info`")
        severity = "info"

    date = as_str("date")
    if date and not re.match(r"^\d{4}-\d{2}-\d{2}", date):
        err("date", f"{date!r} is not an ISO date (YYYY-MM-DD)", level="warning")

    globs: list[str] = []
    written = meta.get("globs")  # Cursor's form, a comma-separated string, is a list too
    listed = split_list(written) if isinstance(written, str) else as_list("globs")
    for idx, glob in enumerate(listed):
        try:
            compile_globs(glob)
        except GlobError as exc:
            err("globs", str(exc), item_line("globs", idx))
            continue
        globs.append(glob.strip())

    supersedes = tuple(normalize_ref(v, id_prefix) for v in as_list("supersedes"))
    as_list("superseded_by")  # type-checked here; gitmem.store links what it names
    rules = _rules(meta.get("rules"), parsed, file, problems)
    summary = sections.summarize(parsed.body, as_str("summary"))
    if summary in _template_summaries():
        # `gitmem new` wrote it (also `--in`, in an ADR log) and nobody filled it in:
        # agents get the title, not this
        at = parsed.body_line + _line_index(parsed.body, summary[:24])
        err(
            "summary",
            "the decision is still the template's text: say what was decided",
            at,
            "warning",
        )
        summary = ""
    line_of = tuple(parsed.key_lines.items())

    decision = Decision(
        id=ident,
        title=title,
        status=status,
        file=file,
        date=date,
        globs=tuple(globs),
        globs_inferred=as_bool("globs_inferred"),
        tags=tuple(as_list("tags", commas=True)),
        severity=severity,
        supersedes=supersedes,
        pin=as_bool("pin"),
        rules=rules,
        summary=summary,
        body=parsed.body.strip(),
        source=source,
        number=number,
        line_of=line_of,
    )
    return decision, problems


def _reporter(problems: list[Problem], file: str, at: int) -> Callable[[str, str], None]:
    def report(key: str, message: str) -> None:
        problems.append(Problem(file, at, key, message))

    return report


def _rules(value: Any, parsed: Parsed, file: str, problems: list[Problem]) -> tuple[Rule, ...]:
    if value is None:
        return ()
    base = parsed.key_lines.get("rules", 1)
    if not isinstance(value, list):
        problems.append(Problem(file, base, "rules", "expected a list of `- forbid: REGEX`"))
        return ()
    lines = parsed.item_lines.get("rules", ())
    out: list[Rule] = []
    for idx, item in enumerate(value):
        at = lines[idx] if idx < len(lines) else base
        where = f"rules[{idx}]"
        report = _reporter(problems, file, at)
        if not isinstance(item, dict):
            report(where, "expected a mapping with `forbid`")
            continue
        for key in item:
            if key not in _RULE_KEYS:
                problems.append(
                    Problem(file, at, f"{where}.{key}", "unknown rule key, ignored", "warning")
                )
        forbid = item.get("forbid")
        if not isinstance(forbid, str) or not forbid:
            report(f"{where}.forbid", "required: a regular expression")
            continue
        try:
            re.compile(forbid)
        except re.error as exc:
            report(f"{where}.forbid", f"invalid regular expression: {exc}")
            continue
        from gitmem.rules import RuleError, compile_rule

        try:
            compile_rule(forbid)
        except RuleError as exc:
            report(f"{where}.forbid", str(exc))
            continue
        paths_v = item.get("paths", [])
        paths = split_list(paths_v) if isinstance(paths_v, str) else paths_v
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            report(f"{where}.paths", "expected a list of globs")
            paths = []
        good_paths = []
        for glob in paths:
            try:
                compile_globs(glob)
                good_paths.append(glob)
            except GlobError as exc:
                report(f"{where}.paths", str(exc))
        message = item.get("message")
        if message is not None and not isinstance(message, str):
            report(f"{where}.message", "expected a string")
            message = None
        out.append(Rule(forbid=forbid, paths=tuple(good_paths), message=message, line=at))
    return tuple(out)
