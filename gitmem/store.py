"""Load every decision record of a work tree and link them.

Sources: ``.continuity/decisions/**/*.md`` and the ADR folders registered in
``.continuity/config.yaml`` (read in place; Markdown, reStructuredText or AsciiDoc). One
unreadable record never stops the others from loading: its problems are collected and
reported by ``gitmem lint``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from gitmem import (
    adrfields,
    adrglobs,
    adrimport,
    config,
    frontmatter,
    fsutil,
    hidden,
    markup,
    moved,
    sections,
    validate,
)
from gitmem.errors import DecisionNotFoundError
from gitmem.globs import GlobError, compile_globs
from gitmem.model import (
    Decision,
    Problem,
    decision_from_json,
    decision_to_json,
    problem_from_json,
)
from gitmem.table import Problems
from gitmem.vocab import STATUSES, shown_name

# rel path -> (signature, payload): what reading one record produced, reused while the
# file's size and mtime (and, for an ADR, its imported.yaml entry) are unchanged.
ParseCache = Mapping[str, tuple[str, str]]

SUPERSEDING_STATUSES = ("accepted", "superseded", "deprecated")


class SourceFile(NamedTuple):
    """A record file to read (a NamedTuple: 10,000 of them are made on every load, and a
    frozen dataclass costs several times more to create)."""

    rel: str  # repository-relative path of the record
    source: str  # "continuity" or the ADR folder it lives in
    id_prefix: str


@dataclass(frozen=True)
class Catalog:
    decisions: tuple[Decision, ...]
    problems: tuple[Problem, ...]
    cache: dict[str, tuple[str, str]] = field(default_factory=dict, compare=False, repr=False)
    # record file -> its globs compiled as [regex, negated, glob, specificity, key]
    patterns: dict[str, list[list[object]]] = field(default_factory=dict, compare=False, repr=False)
    reparsed: int = field(default=0, compare=False, repr=False)  # files the cache missed
    # the ADR folders config.yaml names that this work tree lacks (in ``problems`` too, as
    # warnings): none of their records is read, which every command and hook must say
    unread: tuple[Problem, ...] = field(default=(), compare=False, repr=False)
    # record files not read for their name (not UTF-8), as ``problems`` name them
    unnamed: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    # the settings it was read with: config.yaml, and imported.yaml's entries
    settings: config.Config = field(default_factory=config.Config, compare=False, repr=False)
    imported: Mapping[str, config.ImportedEntry] = field(
        default_factory=dict, compare=False, repr=False
    )
    # imported.yaml's keys an ADR read was read with: its own path, or the one it had
    # (gitmem.moved); the others are entries no ADR has
    claimed: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def get(self, ident: str) -> Decision:
        wanted = ident.strip()
        for d in self.decisions:
            if d.id == wanted:
                return d
        low = wanted.lower()
        # as written or as its file is named (`Money is cents (v2)`: Money-is-cents-v2)
        named = {low, validate.as_id(wanted).lower()}
        matches = [d for d in self.decisions if d.id.lower() in named]
        asked = _NUMBER_ASKED.match(low) if not matches else None
        if asked:
            prefix, number = asked.group(1), int(asked.group(2))
            matches = [d for d in self.decisions if _number(d) == number]
            if prefix and len(matches) > 1:  # "rfc-1" beside "adr-001"
                matches = [d for d in matches if _named_like(d, prefix)] or matches
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            names = ", ".join(d.id for d in matches)
            raise DecisionNotFoundError(f"{ident!r} is ambiguous: {names}")
        found = self.errors()
        first = found.first if found else []
        left_out = [f"{shown_name(f[0])}:{f[1]}: {f[2]}: {f[3]}" for f in first if f[4]]
        hint = ""
        if left_out:  # the record asked for may be one of these
            hint = "; left out because of errors (`gitmem lint`): " + "; ".join(left_out)
        raise DecisionNotFoundError(
            f"no decision {ident!r}; `gitmem list` shows the ids that exist{hint}"
        )

    @property
    def by_id(self) -> dict[str, Decision]:
        return {d.id: d for d in self.decisions}

    def errors(self) -> Problems | None:
        """The records' errors, or None when every record file loaded cleanly. The
        compiled table keeps them (``meta`` "problems", read back by `Table.problems`) so
        that whatever opens it (`gitmem list`, `why`, `search`, `index`, the
        session-start hook) can say that a record file is left out, or loaded without
        part of it, instead of leaving that to `gitmem lint`: a typo in one decision's
        front matter otherwise silently keeps that decision from every agent.

        One entry per file (its first error by line), left-out files first, at most
        PROBLEM_FILES_KEPT. A record file is left out when it gave no record: unreadable,
        unparsable, or its id already taken (the first record with an id wins, as in the
        table). An ADR folder the work tree lacks (``unread``: moved, or left out by a
        sparse checkout) is only a warning to `gitmem lint`, but it leaves out every
        record in it, so it comes first, one entry each, counted apart."""
        kept: set[str] = set()
        seen: set[str] = set()
        for d in self.decisions:
            if d.id not in seen:
                seen.add(d.id)
                kept.add(d.file)
        first: dict[str, tuple[str, int, str, str, bool]] = {}
        errors = 0
        records: set[str] = set()  # record files (the others are gitmem's settings)
        for p in self.problems:
            if p.level != "error":
                continue
            errors += 1
            if p.file in self.cache or p.file in self.unnamed:
                records.add(p.file)
            known = first.get(p.file)
            if known is None or p.line < known[1]:
                left_out = p.file in self.unnamed or (p.file in self.cache and p.file not in kept)
                first[p.file] = (p.file, p.line, p.key, p.message, left_out)
        if not first and not self.unread:
            return None
        left = sum(1 for f in first.values() if f[4])
        shown = sorted(first.values(), key=lambda f: (not f[4], f[0]))
        folders = [(p.file, p.line, p.key, p.message, False) for p in self.unread]
        kept_files = max(PROBLEM_FILES_KEPT - len(folders), 0)
        return Problems(
            errors, len(first), len(records), left, folders + shown[:kept_files], len(folders)
        )


# How many files' first error the compiled table keeps for the commands and hooks that
# report them (`gitmem lint` lists every problem).
PROBLEM_FILES_KEPT = 5

# "7", "0007", "D-7", "ADR 007", "adr001", "#7": a record by its number in its log
_NUMBER_ASKED = re.compile(r"^([a-z]*)[-_ #]?0*(\d+)$")


def _number(d: Decision) -> int | None:
    """A record's number in its log: an ADR's also when its id is not ``ADR-NNNN``
    (``adr-013-use-x.md``, ``013rfc-x.md``, a front-matter id such as ``adrs-adr013``)."""
    if d.number is not None or d.source == "continuity":
        return d.number
    return adrimport.number_of(d.file)


def _named_like(d: Decision, prefix: str) -> bool:
    stem = PurePosixPath(d.file).stem.lower()
    return any(name.startswith(prefix) for name in (d.id.lower(), stem, stem.lstrip("0123456789")))


def decisions_dir(root: Path) -> Path:
    return root / ".continuity" / config.DECISIONS_DIR


def _is_record_name(name: str) -> bool:
    """Whether a file of this name in ``.continuity/decisions/`` is a record."""
    low = name.lower()
    if not low.endswith(".md") or low.startswith(("_", ".")):
        return False
    return low not in ("readme.md", "index.md")


def source_files(root: Path, cfg: config.Config) -> list[SourceFile]:
    out: list[SourceFile] = []
    ddir = decisions_dir(root)
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(ddir):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        found.extend(f"{rel_dir}/{name}" for name in filenames if _is_record_name(name))
    out.extend(SourceFile(rel, "continuity", "D") for rel in sorted(found))
    for src in cfg.sources:
        folder = root / src.path
        if not folder.is_dir():
            continue
        for path in adrimport.adr_files(folder):
            out.append(SourceFile(path.relative_to(root).as_posix(), src.path, src.id_prefix))
    return out


def watched_paths(root: Path, cfg: config.Config) -> list[Path]:
    """Folders and files whose change can change the catalog (for freshness checks)."""
    cdir = root / ".continuity"
    paths = [cdir / config.CONFIG_NAME, cdir / config.IMPORTED_NAME, decisions_dir(root)]
    paths += [root / s.path for s in cfg.sources]
    return paths


def unread_sources(root: Path, cfg: config.Config) -> list[Problem]:
    """The ADR folders ``cfg`` names that the work tree lacks (moved, or out of a sparse
    checkout), each a warning that says why and what to do: none of their ADRs is read."""
    return [
        Problem(
            f".continuity/{config.CONFIG_NAME}",
            src.line,
            "sources",
            f"{src.path}: {why_missing(root, src.path)}",
            "warning",
        )
        for src in cfg.sources
        if not (root / src.path).is_dir()
    ]


def why_missing(root: Path, folder: str) -> str:
    """What to say of an ADR folder config.yaml names and the work tree lacks: left out by
    a sparse checkout (the entry is right: bring the folder in), or moved."""
    from gitmem.errors import NotARepositoryError
    from gitmem.location import locate, sparse_excluded

    try:
        sparse = sparse_excluded(locate(root), folder)
    except NotARepositoryError:  # records outside any repository (a test, a copy)
        sparse = False
    if sparse:
        return (
            "outside this sparse checkout, so its ADRs are not read here: "
            f"`git sparse-checkout add {folder}` brings them in"
        )
    return (
        "no such folder, so its ADRs are not read (moved? `gitmem init` finds ADR folders; "
        "remove or fix this entry)"
    )


def load(
    root: Path,
    cache: ParseCache | None = None,
    stats: Mapping[str, tuple[int, int]] | None = None,
) -> Catalog:
    """Read every record. With ``cache`` (from a previous catalog), unchanged files are not
    parsed again: a one-record edit among thousands costs one parse. ``stats``: (size,
    mtime_ns) by path, as the caller just read them (saves a second stat per file)."""
    cfg = config.load(root)
    problems: list[Problem] = list(cfg.problems)
    unread = unread_sources(root, cfg)
    problems.extend(unread)
    imported, imp_problems = config.load_imported(root)
    problems.extend(imp_problems)
    pairs: list[tuple[str, str]] = []  # (record file, payload), in catalog order
    new_cache: dict[str, tuple[str, str]] = {}
    reparsed = 0
    base = os.path.join(root, "")  # the root with its separator: base + rel is a path
    inferred: dict[str, list[str]] | None = None
    # where imported.yaml did not read (its error says so), no warning for each ADR
    warn = not any(p.level == "error" for p in imp_problems)
    sources = []
    unnamed: set[str] = set()
    for sf in source_files(root, cfg):
        byte = fsutil.undecoded_byte(sf.rel)
        if byte is None:
            sources.append(sf)
            continue
        # git keeps names as bytes, and Python holds this one's odd byte as a lone
        # surrogate, which SQLite refuses: before session 55 the table could not be
        # written, and no decision reached any command or agent
        why = f"not read: its name is not UTF-8 (the byte 0x{byte:02x}); rename the file"
        shown = shown_name(sf.rel)
        unnamed.add(shown)
        problems.append(Problem(shown, 1, "file", why))
    renamed = (
        moved.moves(imported, (f.rel for f in sources if f.source != "continuity"))
        if imported
        else {}
    )
    for sf in sources:
        entry = imported.get(sf.rel)
        old = renamed.get(sf.rel) if entry is None else None
        if old is not None:  # renamed, or its log moved: its entry, reviewed or not, holds
            entry = imported[old]
        unlisted = entry is None and sf.source != "continuity"
        sig = _signature(
            base,
            sf,
            entry,
            stats,
            ("warned" if warn else "quiet") if unlisted else f"listed as {old}" if old else "",
        )
        cached = cache.get(sf.rel) if cache is not None and sig else None
        if cached is not None and cached[0] == sig:
            payload = cached[1]
        elif unlisted:
            if inferred is None:
                wanted = {
                    f.source for f in sources if f.source != "continuity" and f.rel not in imported
                }
                inferred = _infer_unlisted(root, cfg, wanted)
            payload = json.dumps(_read_unlisted(root, sf, inferred.get(sf.rel, []), warn))
            reparsed += 1
        else:
            read = _read_one(root, sf, entry)
            if old is not None and entry is not None:
                _listed_as(read, sf, old, entry)
            payload = json.dumps(read)
            reparsed += 1
        if sig:
            new_cache[sf.rel] = (sig, payload)
        pairs.append((sf.rel, payload))
    decisions, patterns = _assemble(pairs, problems)
    if len(_DECODED) > 2 * len(new_cache) + 64:  # forget records that are gone
        live = {payload for _, payload in new_cache.values()}
        for stale in [k for k in _DECODED if k not in live]:
            del _DECODED[stale]
    return Catalog(
        decisions,
        tuple(problems),
        new_cache,
        patterns,
        reparsed,
        tuple(unread),
        frozenset(unnamed),
        cfg,
        imported,
        frozenset({f.rel for f in sources if f.rel in imported} | set(renamed.values())),
    )


def _infer_unlisted(root: Path, cfg: config.Config, wanted: set[str]) -> dict[str, list[str]]:
    """Globs for the ADRs that imported.yaml does not list yet (written since `gitmem
    init` last ran: by hand, by adr-tools, by an agent), inferred as `init` would: without
    them such an ADR governed no path, and its tool-call hooks never brought it. Only the
    logs holding one (``wanted``) are read; where git cannot list the files, none are
    inferred."""
    from gitmem import leangit  # an agent hook may compile: no `subprocess` import

    listed = leangit.output(leangit.LS_FILES, str(root), timeout=10)
    if listed is None:
        return {}
    files = leangit.file_names(listed)
    return adrglobs.infer_logs(root, [s.path for s in cfg.sources], files, wanted)


def _read_unlisted(
    root: Path, sf: SourceFile, globs: list[str], warn: bool = True
) -> dict[str, object]:
    """An ADR that imported.yaml does not list, read with the globs inferred for it, and
    (``warn``) a warning that says so: a human has not reviewed them, and `init` writes
    them down."""
    payload = _read_one(root, sf, config.ImportedEntry(tuple(globs), True, 1))
    if not warn:
        return payload
    said = ", ".join(globs) if globs else "none found"
    problems = payload["problems"]
    assert isinstance(problems, list)
    problems.append(
        Problem(
            sf.rel,
            1,
            "globs",
            f"not in .continuity/{config.IMPORTED_NAME} yet, so its globs were inferred as it"
            f" loaded ({said}): `gitmem init` writes them there for you to review",
            "warning",
        ).to_json()
    )
    return payload


def _listed_as(
    payload: dict[str, object], sf: SourceFile, old: str, entry: config.ImportedEntry
) -> None:
    """Say that ``sf`` was read with the entry imported.yaml keeps under ``old``, the
    path it had (see gitmem.moved)."""
    problems = payload["problems"]
    assert isinstance(problems, list)
    kind = "reviewed globs" if not entry.inferred else "globs"
    said = ", ".join(entry.globs) if entry.globs else "none"
    problems.append(
        Problem(
            sf.rel,
            1,
            "globs",
            f".continuity/{config.IMPORTED_NAME}:{entry.line} lists it as {old}, the name"
            f" it had: its {kind} ({said}) hold; `gitmem init` moves the entry to its name",
            "warning",
        ).to_json()
    )


def decision_of(payload: str) -> Decision | None:
    """The (unlinked) decision a cached payload holds, if any."""
    return _decode(payload).decision


def linked(payloads: list[tuple[str, str]]) -> tuple[Decision, ...]:
    """The linked decisions that these (record file, cached payload) pairs, in catalog
    order, made: what ``load`` returned when it read them (see gitmem.compile._recall)."""
    return _assemble(payloads, [])[0]


def _assemble(
    pairs: list[tuple[str, str]], problems: list[Problem]
) -> tuple[tuple[Decision, ...], dict[str, list[list[object]]]]:
    """Decode (record file, payload) pairs in catalog order and link the decisions;
    their problems go to ``problems``. Returns the decisions and each file's patterns."""
    decisions: list[Decision] = []
    # (predecessor id, successor reference) pairs stated from the predecessor's side
    back_links: list[tuple[str, str, str]] = []
    patterns: dict[str, list[list[object]]] = {}
    for rel, payload in pairs:
        decoded = _decode(payload)
        problems.extend(decoded.problems)
        if decoded.decision is None:
            continue
        patterns[rel] = decoded.patterns
        if decoded.successors:
            back_links.extend((decoded.decision.id, ref, rel) for ref in decoded.successors)
        decisions.append(decoded.decision)
    return tuple(_link(decisions, back_links, problems)), patterns


@dataclass(frozen=True)
class _Decoded:
    decision: Decision | None
    problems: tuple[Problem, ...]
    patterns: list[list[object]]
    successors: tuple[str, ...]


# payload -> what it decodes to. A long-lived process (the `gitmem watch` daemon, which
# re-indexes after every edit) decodes only the records that changed: at 10,000 records
# decoding all of them took ~0.35 s of a one-record update. Keyed by the payload text
# itself, so it can never serve a stale record; the same objects come back for unchanged
# records, which lets the compiler and indexer spot what changed by identity.
_DECODED: dict[str, _Decoded] = {}


def _decode(payload: str) -> _Decoded:
    hit = _DECODED.get(payload)
    if hit is None:
        data = json.loads(payload)
        raw = data["decision"]
        hit = _Decoded(
            None if raw is None else decision_from_json(raw),
            tuple(problem_from_json(p) for p in data["problems"]),
            data.get("patterns") or [],
            tuple(data["successors"]),
        )
        _DECODED[payload] = hit
    return hit


def _signature(
    base: str,
    sf: SourceFile,
    entry: config.ImportedEntry | None,
    stats: Mapping[str, tuple[int, int]] | None = None,
    unlisted: str = "",
) -> str:
    path = base + sf.rel
    known = stats.get(path) if stats is not None else None
    if known is None:
        try:
            st = os.stat(path)
        except OSError:
            return ""
        known = (st.st_size, st.st_mtime_ns)
    if entry is not None:
        extra = json.dumps([list(entry.globs), entry.inferred, entry.line, unlisted])
    else:
        extra = f"inferred on load, {unlisted}" if unlisted else ""
    return f"{known[0]}:{known[1]}:{sf.source}:{sf.id_prefix}:{extra}"


def record_file(root: Path, rel: str, cfg: config.Config | None = None) -> SourceFile | None:
    """The record `load` reads from the repository path ``rel`` (a gitmem record, or an
    ADR in a folder read in place), or None when it reads no record there. ``cfg`` is read
    only when ``rel`` is not under ``.continuity/``."""
    parts = rel.split("/")
    if rel.startswith(f".continuity/{config.DECISIONS_DIR}/"):
        hidden = any(d.startswith(".") for d in parts[2:-1])  # as source_files skips them
        ok = not hidden and _is_record_name(parts[-1])
        return SourceFile(rel, "continuity", "D") if ok else None
    if rel.startswith(".continuity/") or not adrimport.is_adr_name(parts[-1]):
        return None
    for src in (cfg or config.load(root)).sources:
        if rel.startswith(src.path.rstrip("/") + "/"):
            return SourceFile(rel, src.path, src.id_prefix)
    return None


def check_settings(root: Path, rel: str) -> list[Problem]:
    """The errors of ``.continuity/config.yaml`` or ``.continuity/imported.yaml`` as
    loading reads them, the globs imported.yaml gives each ADR included (for the hook that
    runs after an agent edits one of them)."""
    if rel.endswith(config.IMPORTED_NAME):
        entries, problems = config.load_imported(root)
        for adr, entry in entries.items():
            for glob in entry.globs:
                try:
                    compile_globs(glob)
                except GlobError as exc:  # as _build_adr reports it
                    problems.append(Problem(rel, entry.line, f"{adr}.globs", str(exc)))
    else:
        problems = list(config.load(root).problems)
    return [p for p in problems if p.level == "error" and p.file == rel]


def check_record(
    root: Path, rel: str, sf: SourceFile | None = None
) -> tuple[str | None, list[Problem]]:
    """One record (``.continuity/decisions/...md``, or ``sf``: an ADR read in place) read
    as `load` reads it: its id (None when it gave no record) and its errors. For the hook
    that runs after an agent edits a record (``gitmem.agent.tooluse``): it learns there
    and then that its file does not load, rather than never. Errors that need the other
    records (a duplicate id) are the caller's to find."""
    payload = _read_one(root, sf or SourceFile(rel, "continuity", "D"), None)
    raw = payload["problems"]
    problems = [problem_from_json(p) for p in raw] if isinstance(raw, list) else []
    data = payload["decision"]
    ident = str(data["id"]) if isinstance(data, dict) else None
    return ident, [p for p in problems if p.level == "error"]


def decision_in(text: str, sf: SourceFile) -> Decision | None:
    """The decision the text ``text`` of the record ``sf`` gives, read as `load` reads a
    file (another version of it: the committed one, the staged one), without its
    supersession links; None where it gives none."""
    if sf.source != "continuity":
        text = markup.to_markdown(text, markup.kind(sf.rel))
    parsed, _ = frontmatter.parse(text, sf.rel)
    if parsed is None:
        return None
    if sf.source == "continuity":
        return validate.build(parsed, sf.rel)[0]
    return _build_adr(parsed, sf, None)[0]


def _read_one(root: Path, sf: SourceFile, entry: config.ImportedEntry | None) -> dict[str, object]:
    """Parse one record into a JSON-able payload: decision, problems, successor refs."""
    problems: list[Problem] = []
    successors: list[str] = []
    odd = hidden.in_name(sf.rel)
    if odd is not None:
        # The agent is given a record's file name with its decision (`[FILE]`): a line
        # break there began a line of the name's own text, and tag characters carried
        # text no reviewer of the name saw (before session 53)
        why = f"not read: its name holds {odd}; rename the file"
        problems.append(Problem(sf.rel, 1, "file", why))
        return {"decision": None, "problems": [p.to_json() for p in problems], "successors": []}
    try:
        text = fsutil.read_text(fsutil.inside(root, sf.rel))
    except (OSError, fsutil.NotUtf8) as exc:
        line = exc.line if isinstance(exc, fsutil.NotUtf8) else 1
        problems.append(Problem(sf.rel, line, "file", fsutil.unread(exc)))
        return {"decision": None, "problems": [p.to_json() for p in problems], "successors": []}
    if sf.source != "continuity":
        text = markup.to_markdown(text, markup.kind(sf.rel))  # .rst / .adoc ADRs
    parsed, file_problems = frontmatter.parse(text, sf.rel)
    problems.extend(file_problems)
    decision: Decision | None = None
    if parsed is not None:
        if sf.source == "continuity":
            decision, more = validate.build(parsed, sf.rel)
            successors = _named_successors(parsed.meta or {}, sf)
        else:
            decision, more, successors = _build_adr(parsed, sf, entry)
        problems.extend(more)
    compiled = []
    for glob in decision.globs if decision is not None else ():
        for c in compile_globs(glob):  # validated while building: cannot fail here
            compiled.append([c.regex, c.negated, c.glob, c.specificity, c.key])
    return {
        "decision": None if decision is None else decision_to_json(decision),
        "problems": [p.to_json() for p in problems],
        "successors": successors,
        "patterns": compiled,
    }


def _named_successors(meta: Mapping[str, Any], sf: SourceFile) -> list[str]:
    """The successors a gitmem record names from its own side, as MADR users write them:
    ``superseded_by: [D-0009]`` or ``status: superseded by D-0009`` (a link to the record
    file works too). The successor's ``supersedes`` is the usual place; both are linked."""
    named: list[str] = []
    value = meta.get("superseded_by")
    items = value if isinstance(value, list) else [value] if isinstance(value, str | int) else []
    named.extend(validate.normalize_ref(v, sf.id_prefix) for v in items if v is not None)
    status = meta.get("status")
    status = status if isinstance(status, str) else ""
    match = validate.SUPERSEDED_BY.match(status)
    if match:
        links = adrfields.parse_status_text(status)[2]  # links to record files, "ADR 13"
        if links:
            named.extend(r for r in (_link_ref(t, sf) for t in links) if r is not None)
        else:
            words = re.split(r"\s*(?:,|;|\band\b|\s)\s*", match.group(1))
            named.extend(validate.normalize_ref(w.strip("`'\"[]()."), sf.id_prefix) for w in words)
    return [n for n in dict.fromkeys(named) if n]


def _build_adr(
    parsed: frontmatter.Parsed, sf: SourceFile, entry: config.ImportedEntry | None
) -> tuple[Decision, list[Problem], list[str]]:
    """An ADR without (or with partial) front matter, completed from its Markdown."""
    meta = dict(parsed.meta or {})
    status, supersedes, superseded_by = adrfields.parse_status(parsed.body)
    written = meta.get("status")
    if isinstance(written, str) and validate.canonical_status(written) is None:
        # MADR 3/4 keep the status in front matter, links included:
        # `status: "superseded by [ADR-0005](0005-use-x.md)"`.
        said, more_supersedes, more_superseded_by = adrfields.parse_status_text(written)
        if said is not None:
            meta["status"] = said
        supersedes = more_supersedes + supersedes
        superseded_by = more_superseded_by + superseded_by
    more_supersedes, more_superseded_by = _front_matter_links(meta.get("links"))
    supersedes = supersedes + more_supersedes
    superseded_by = superseded_by + more_superseded_by
    unread = None if status or "status" in meta else adrfields.written_status(parsed.body)
    if unread == "":  # a Status section left empty: the record is not finished
        status = "proposed"
    meta.setdefault("status", status or "accepted")
    if "tags" not in meta and (tags := adrfields.parse_tags(parsed.body)):
        meta["tags"] = tags  # "- Tags: build, deps"
    heading = sections.first_heading(parsed.body)
    if heading and "title" not in meta:
        meta["title"] = adrimport.plain_title(heading, adrimport.number_of(sf.rel))
    written_date = _front_matter_date(meta)
    if written_date:
        meta["date"] = written_date
    date = adrfields.parse_date(parsed.body) or validate.name_date(sf.rel)
    if date:
        meta.setdefault("date", date)
    if supersedes and "supersedes" not in meta:
        refs = [_link_ref(t, sf) for t in supersedes]
        meta["supersedes"] = [r for r in refs if r is not None]
    problems: list[Problem] = []
    if entry is not None:
        good = []
        for glob in entry.globs:
            try:
                compile_globs(glob)
                good.append(glob)
            except GlobError as exc:
                where = f".continuity/{config.IMPORTED_NAME}"
                problems.append(Problem(where, entry.line, f"{sf.rel}.globs", str(exc)))
        meta.setdefault("globs", good)
        meta.setdefault("globs_inferred", entry.inferred)
    key_lines = parsed.key_lines
    if "status" not in key_lines and (at := adrfields.status_line(parsed.body)) is not None:
        key_lines = {**key_lines, "status": parsed.body_line + at}  # problems point there
    synth = dataclasses.replace(parsed, meta=meta, key_lines=key_lines)
    decision, more = validate.build(synth, sf.rel, id_prefix=sf.id_prefix, source=sf.source)
    problems.extend(p for p in more if p.key != "status" or parsed.meta)
    if unread is not None:  # said, since session 74: before, each read as accepted, silently
        said = f'"{unread[:60]}" is no status gitmem knows' if unread else "the section is empty"
        known = ", ".join(s.capitalize() for s in STATUSES)
        problems.append(Problem(
            sf.rel, key_lines.get("status", parsed.body_line), "status",
            f"{said}: read as {meta['status']} (write {known}, or as ADR logs say it: "
            "Implemented, Draft, Superseded by ADR-N, ...)",
            level="warning",
        ))  # fmt: skip
    successors = []
    for target in superseded_by:
        ref = _link_ref(target, sf)
        if ref is not None:
            successors.append(ref)
    return decision, problems, successors


def _front_matter_links(value: object) -> tuple[list[str], list[str]]:
    """(supersedes, superseded by) as the `adrs` tool's front matter writes them (its
    "nextgen" mode): ``links: [{kind: supersedes, target: 3}]``, `supersededby`,
    `Superseded by`; other kinds (amends, relates to) say nothing of succession. Before
    session 75 they were not read."""
    supersedes: list[str] = []
    superseded_by: list[str] = []
    for link in value if isinstance(value, list) else []:
        if not isinstance(link, dict) or link.get("target") is None:
            continue
        kind = re.sub(r"[\s_-]", "", str(link.get("kind", "")).lower())
        kind = kind.replace("erc", "ers")  # "supercedes", as adr-tools spelt it
        target = str(link["target"]).strip()
        if kind == "supersedes":
            supersedes.append(target)
        elif kind == "supersededby":
            superseded_by.append(target)
    return supersedes, superseded_by


# The keys other than `date` an ADR's front matter writes its date under (before session 75
# none was read: the date came from the body or the file name, or there was none)
_DATE_KEYS = ("date", "decided-on", "decided_on", "decided", "decision-date", "decision_date",
              "date-decided", "date_decided", "created", "created-on", "created_on",
              "created-at", "created_at")  # fmt: skip


_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\d)[T ]\d\d:\d\d")


def _front_matter_date(meta: Mapping[str, Any]) -> str | None:
    """The date an ADR's front matter gives, as ``YYYY-MM-DD``: under `date` or one of
    ``_DATE_KEYS``, written in one of the forms ADR logs write (``17 Feb 2025``). None
    when it gives none gitmem can read (a `date` left as written is then warned of; the
    other keys are read only where there is no `date`)."""
    for key in ("date",) if "date" in meta else _DATE_KEYS:
        value = meta.get(key)
        if value is not None and not isinstance(value, dict | list):
            text = str(value).strip()[:40]
            stamp = _TIMESTAMP.match(text)  # `date: 2024-03-05 10:00`, as YAML reads it
            date = adrfields.iso_date(stamp.group(1) if stamp else text)
            if date:
                return date
    return None


# A reference by link carries the linked file's path after this separator (ids hold no
# tabs): `_link` resolves it to whatever id the record in that file has, and falls back to
# the id the file name gives (``ADR-0005``) when no record is there.
_AT_FILE = "\t"


def _link_ref(target: str, sf: SourceFile) -> str | None:
    """A supersession reference, as written in an ADR: a link to a record file or a bare
    number (see ``adrfields.ref_id``)."""
    ref = adrfields.ref_id(target, sf.id_prefix)
    name = target.split("#", 1)[0]
    if ref is None or target.isdigit() or "://" in name:
        return ref
    if markup.kind(name) is None and PurePosixPath(name).suffix:
        return ref  # a link to another kind of file
    # a name without a suffix (`:doc:` roles, some sites' links) is looked up with each
    # record suffix in `_aliases`
    if name.startswith("/"):  # a site-absolute link: relative to the repository root
        path = posixpath.normpath(name.lstrip("/"))
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(sf.rel), name))
    return ref + _AT_FILE + path


_NUMBERED_REF = re.compile(r"^[A-Za-z][A-Za-z0-9]*-(\d+)$")  # a prefix as init.id_prefix makes


def _aliases(seen: Mapping[str, Decision]) -> Callable[[str, str], str]:
    """Resolve a reference to a record of an ADR log whose id is not the one its reference
    names. A link resolves to the record in the linked file, whatever its id (in gitmem's
    own records too, whose other references are the ids as written). Otherwise
    ``ADR-0013`` (what a bare "ADR 13", or a link to a file that is not there, becomes)
    resolves to the record numbered 13 in the same log when that log's ids are file names
    (``adr-013-zero-padding``) or front-matter ids, and ``use-x`` to the record in
    ``use-x.md`` when its front matter gives it another id. The index is built on the
    first reference that needs it."""
    by_number: dict[tuple[str, int], str | None] = {}
    by_stem: dict[tuple[str, str], str | None] = {}
    by_file: dict[str, str] = {}
    built: list[bool] = []

    def index() -> None:
        built.append(True)
        for d in seen.values():
            by_file[d.file] = d.id
            if d.source == "continuity":
                continue  # gitmem's own ids are the ones written: no aliases by number
            name = PurePosixPath(d.file).name
            number = adrimport.number_of(name)
            if number is not None:
                key = (d.source, number)
                by_number[key] = None if key in by_number else d.id  # ambiguous: no alias
            stem = (d.source, PurePosixPath(name).stem)
            if stem[1] != d.id:
                by_stem[stem] = None if stem in by_stem else d.id

    def resolve(ref: str, source: str) -> str:
        ref, _, path = ref.partition(_AT_FILE)
        if not path and ref not in seen and validate.as_id(ref) in seen:
            return validate.as_id(ref)  # a record named as its file is: `use redis (draft)`
        if not path and (source == "continuity" or ref in seen):
            return ref
        if not built:
            index()
        for candidate in (path, *(path + sfx for sfx in markup.SUFFIXES)) if path else ():
            if candidate in by_file:
                return by_file[candidate]
        if ref in seen or source == "continuity":
            return ref
        named = by_stem.get((source, ref))
        if named is not None:
            return named
        match = _NUMBERED_REF.match(ref)
        if match is None:
            return ref
        return by_number.get((source, int(match.group(1)))) or ref

    return resolve


def _link(
    decisions: list[Decision], back_links: list[tuple[str, str, str]], problems: list[Problem]
) -> list[Decision]:
    seen: dict[str, Decision] = {}
    renamed: dict[str, str] = {}  # record file -> the id it got instead of a taken one
    kept: list[Decision] = []
    for d in decisions:
        if d.id in seen:
            other = seen[d.id]
            stem = validate.as_id(PurePosixPath(d.file).stem)
            if d.source != "continuity" and other.source == d.source and stem not in seen:
                # Numbers restarting in sub-folders of one ADR log (docs/adr/web/0001-x.md,
                # docs/adr/api/0001-y.md): the record keeps its file name as id, not lost.
                problems.append(
                    Problem(
                        d.file,
                        d.line("id"),
                        "id",
                        f"{d.id} is also {other.file}: this record's id is {stem}",
                        "warning",
                    )
                )
                renamed[d.file] = stem
                d = dataclasses.replace(d, id=stem)
            else:
                hint = ""
                if d.source != other.source and "continuity" not in (d.source, other.source):
                    hint = f"; give the source {d.source} an id_prefix of its own in config.yaml"
                elif d.source == other.source == "continuity":
                    hint = "; `gitmem renumber` gives the newer record a free number"
                problems.append(
                    Problem(
                        d.file, d.line("id"), "id", f"duplicate id {d.id} (also {other.file}){hint}"
                    )
                )
                kept.append(d)  # still shown to agents; lint reports the clash
                continue
        seen[d.id] = d
        kept.append(d)
    decisions = kept
    resolve = _aliases(seen)
    extra: dict[str, list[str]] = defaultdict(list)
    declared: set[tuple[str, str]] = set()  # (record, successor) the record itself names
    for pred, ref, file in back_links:
        pred = renamed.get(file, pred)
        succ_ref = resolve(ref, seen[pred].source)
        declared.add((pred, succ_ref))
        if succ_ref in seen:
            if pred not in seen[succ_ref].supersedes:
                extra[succ_ref].append(pred)
        else:
            d = seen[pred]
            key = "superseded_by" if dict(d.line_of).get("superseded_by") else "status"
            problems.append(
                Problem(
                    file,
                    d.line(key),
                    key,
                    f"superseded by {succ_ref}, which does not exist",
                    "warning",
                )
            )
    linked = []
    for d in decisions:
        refs = tuple(resolve(ref, d.source) for ref in d.supersedes)
        if d.id in extra or refs != d.supersedes:
            # a link both ways names a pair once, whichever id each side wrote
            both = dict.fromkeys(refs + tuple(extra.get(d.id, ())))
            d = dataclasses.replace(d, supersedes=tuple(both))
        linked.append(d)
    by_id = {d.id: d for d in linked}
    successors: dict[str, list[str]] = defaultdict(list)
    for d in linked:
        for ref in d.supersedes:
            if ref == d.id:
                problems.append(
                    Problem(d.file, d.line("supersedes"), "supersedes", "supersedes itself")
                )
            elif ref not in by_id:
                problems.append(
                    Problem(d.file, d.line("supersedes"), "supersedes", f"unknown decision {ref!r}")
                )
            elif d.status in SUPERSEDING_STATUSES:
                successors[ref].append(d.id)
    for cycle in _cycles(by_id):
        first = by_id[cycle[0]]
        chain = " -> ".join([*cycle, cycle[0]])
        problems.append(
            Problem(
                first.file, first.line("supersedes"), "supersedes", f"supersession cycle: {chain}"
            )
        )
    out = []
    for d in linked:
        succ: tuple[str, ...] = tuple(sorted(set(successors.get(d.id, ()))))
        if succ:
            d = dataclasses.replace(d, superseded_by=succ)
            # A record that names its successor itself and stays accepted ("Parts of this
            # ADR were superseded by X") says what it means: only an old record nobody
            # updated is worth a warning.
            unsaid = [i for i in succ if (d.id, i) not in declared]
            if d.status in ("accepted", "proposed") and unsaid:
                problems.append(
                    Problem(
                        d.file,
                        d.line("status"),
                        "status",
                        f"says {d.status} but {', '.join(unsaid)} supersedes it; "
                        + (
                            "set `status: superseded`"
                            if d.source == "continuity"
                            else f"mark it `Superseded by {unsaid[0]}` where its status is written"
                        ),
                        "warning",
                    )
                )
        elif d.status == "superseded":
            problems.append(
                Problem(
                    d.file,
                    d.line("status"),
                    "status",
                    "superseded, but no record names it in `supersedes`"
                    + (
                        " (or name the successor here: `superseded_by: [ID]`)"
                        if d.source == "continuity"
                        else ""
                    ),
                    "warning",
                )
            )
        out.append(d)
    return out


def _cycles(by_id: dict[str, Decision]) -> list[list[str]]:
    """Each supersession cycle once, as the list of ids along it (iterative DFS)."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    reported: set[frozenset[str]] = set()
    # only records that supersede something can be on a cycle (the others are leaves, and
    # visiting them first or not changes nothing found): 10,000 records, a few roots
    for root in sorted(i for i, d in by_id.items() if d.supersedes):
        if root in state:
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        path: list[str] = [root]
        state[root] = 1
        while stack:
            node, idx = stack[-1]
            refs = by_id[node].supersedes
            if idx >= len(refs):
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            stack[-1] = (node, idx + 1)
            nxt = refs[idx]
            if nxt not in by_id or nxt == node:
                continue
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    cycles.append(cycle)
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, 0))
                path.append(nxt)
    return cycles
