"""What the after-tool hook tells the agent when its edit touched gitmem's own files: the
errors of a decision record or settings file it wrote, read as the index will read them
(``record_note``); an ADR given a number its log already uses; and what the edit took
from a current critical decision's force (``loosened``, said to the user too). Imported
only after an edit of a record, an ADR read in place or a settings file (a rare event,
where the YAML parser's cost is paid).
"""

from __future__ import annotations

import os

from gitmem.location import Location
from gitmem.vocab import RECORD_DIR, is_own_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.loosened import Loosening
    from gitmem.model import Problem


def _own_records(paths: list[str]) -> list[str]:
    """Those of ``paths`` that are gitmem's own records (``.continuity/decisions/*.md``)."""
    return [p for p in paths if is_own_record(p)]


def _may_hold_records(rel: str) -> bool:
    """Whether ``rel`` is no file of its own that names or holds gitmem's records: a
    folder (`.continuity`, `.continuity/decisions/`) or a glob (`.continuity/decisions/*`)
    a command deleted."""
    folder = RECORD_DIR.rstrip("/")
    under = rel == folder or rel.startswith(RECORD_DIR) or RECORD_DIR.startswith(rel + "/")
    return under and not rel.lower().endswith(".md")


def _records_gone_with(root: str, words: list[str]) -> list[str]:
    """The committed records under (or matching) ``words`` that are gone from the work
    tree: what `rm -r .continuity` or `rm .continuity/decisions/*` deleted."""
    from fnmatch import fnmatchcase

    from gitmem import leangit

    listed = leangit.output(["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", RECORD_DIR], root)
    out: list[str] = []
    for rel in (listed or "").split("\0"):
        if not _own_records([rel]) or os.path.lexists(os.path.join(root, rel)):
            continue
        if any(rel.startswith(w.rstrip("/") + "/") or fnmatchcase(rel, w) for w in words):
            out.append(rel)
    return out


def loosened(loc: Location, paths: list[str]) -> list[Loosening]:
    """What the edit of gitmem's records among ``paths`` took from a current critical
    decision's force, against the committed records (gitmem.loosened). Only where a
    record was edited, as ``record_note``: a `git show` and the YAML parser for each (at
    most NOTE_FILES). Its failure costs the note, never the hook (logged)."""
    records = _own_records(paths)
    folders = [p for p in paths if p not in records and _may_hold_records(p)]
    if not records and not folders:
        return []
    try:
        from pathlib import Path

        from gitmem import leangit, loosened
        from gitmem.agent.prompt import open_table

        if folders:  # `rm -r .continuity/decisions`: the records it took
            records += _records_gone_with(loc.root, folders)

        root = Path(loc.root)
        table = open_table(loc)

        def known(ident: str) -> loosened.Known | None:
            e = table.get(ident) if table is not None else None
            if e is None:
                return None
            return loosened.Known(e.id, e.title, e.file, e.severity, e.is_current, bool(e.rules))

        try:
            return loosened.loosenings(
                records[:NOTE_FILES],
                lambda rel: loosened.version(
                    root, rel, leangit.output(["show", f"HEAD:{rel}"], loc.root)
                ),
                lambda rel: loosened.on_disk(root, rel),
                known,
            )
        finally:
            if table is not None:
                table.close()
    except Exception as exc:  # fail open: logged for `gitmem doctor`
        from gitmem.agent.runner import ERROR_LOG, append_log

        append_log(loc.shared_state_dir, ERROR_LOG, f"post-tool loosened check: {exc!r}")
        return []


def loosened_note(found: list[Loosening]) -> str:
    """For the agent, after its edit."""
    said = "; ".join(f.sentence() for f in found)
    return (
        f"This edit loosens a critical project decision as committed: {said}. Decisions are"
        " the team's record: change one only when the user asked for it, and tell the user"
        " what changed; a rule that stops a change is not a reason to edit the decision."
    )


def loosened_message(found: list[Loosening]) -> str:
    """For the user (systemMessage), who may not be watching the record's diff."""
    return "gitmem: the agent's edit loosens a critical decision: " + "; ".join(
        f.sentence() for f in found
    )


def _numbered_alike(root: str, rel: str, ident: str) -> str | None:
    """Another record whose file name gives it ``ident`` (`0004-a.md` beside the
    `0004-b.md` just written): the table may not have it yet, when it was written a moment
    before (its refresh runs in the background). A listing of the records folder, and a
    read of a file that its name puts under the same id, on this rare event only."""
    from pathlib import Path

    from gitmem import store
    from gitmem.validate import derive_id

    folder = os.path.join(root, RECORD_DIR)
    for dirpath, _, names in os.walk(folder):
        for name in sorted(names):
            other = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            if other == rel or not name.lower().endswith(".md") or derive_id(name)[0] != ident:
                continue
            if store.check_record(Path(root), other)[0] == ident:  # no `id:` of its own
                return other
    return None


def _first_of(errors: list[Problem]) -> str:
    """The first of a file's problems (by line), and how many more there are."""
    first = min(errors, key=lambda p: p.line)
    return first.format() + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")


def _same_number(root: str, rel: str, ident: str) -> list[str]:
    """An ADR read in place whose file number another record of its folder has, where one
    of the two is new (not yet in git; if both are, the one just written is named): the
    log keeps the number for the first file in path order, so the other loses its id and
    the links that name it, and may take the older ADR's place in them. A clash between
    two committed ADRs is the log's own, for lint to report, not news to the agent that
    edited one of them."""
    from gitmem import adrimport, leangit

    folder, _, name = rel.rpartition("/")
    number = adrimport.number_of(name)
    if number is None:
        return []
    names = [n for n in os.listdir(os.path.join(root, folder)) if adrimport.is_adr_name(n)]
    same = sorted(n for n in names if n != name and adrimport.number_of(n) == number)
    if not same:
        return []
    other = f"{folder}/{same[0]}"
    tracked = leangit.output(["ls-files", "-z", "--", rel, other], root)
    known = set((tracked or "").split("\0"))
    if tracked is None or (rel in known and other in known):
        return []  # both committed: an old clash, the log's own
    # one new: rename that one; both new: the one just written
    new, kept = (other, rel) if rel in known else (rel, other)
    free = 1 + max(n for n in map(adrimport.number_of, names) if n is not None)
    base = new.rpartition("/")[2]
    return [
        f"{new}: its number {number} is already {kept}'s, so one of the two loses the "
        f"id {ident} and the links to it: rename it to "
        f"{folder}/{adrimport.renumbered(base, free)}, the next free number"
    ]


# gitmem's own records (vocab.RECORD_DIR); ADRs read in place are checked too (a MADR
# file's front matter can leave it out just the same)
NOTE_FILES = 3
# gitmem's settings, which an agent edits when asked to (read an ADR folder, turn capture
# off, review inferred globs): what their errors cost
SETTINGS_FILES = {  # (a value unread, the file unread)
    ".continuity/config.yaml": (
        "gitmem uses its default there",
        "gitmem reads none of it: its defaults, and no ADR folder read in place",
    ),
    ".continuity/imported.yaml": (
        "the globs it cannot read govern no path",
        "gitmem reads none of it: the ADRs read in place get globs inferred afresh, not"
        " the ones written there",
    ),
}


def record_note(loc: Location, paths: list[str], watched: list[str]) -> str:
    """The errors of the records this edit wrote, read as the index will read them, so
    that the agent can fix its own mistake (a colon in an unquoted title is enough to
    leave a record out of every later session), and an ADR given a number its folder
    already uses. Only when a record was edited: it costs the YAML parser on that rare
    event (~0.13 s more, measured). Its failure costs the note, never the hook; the
    reason goes to the error log for `gitmem doctor`."""
    folders = [w.rstrip("/") + "/" for w in watched if not w.startswith(".continuity/")]
    records = _own_records(paths)
    in_place = [p for p in paths if p.startswith(tuple(folders))]
    settings = [p for p in paths if p in SETTINGS_FILES]
    if not records and not in_place and not settings:
        return ""
    try:
        from pathlib import Path

        from gitmem import config, store
        from gitmem.agent.prompt import open_table

        root = Path(loc.root)
        cfg = config.load(root) if in_place else None
        table = None
        lines: list[str] = []
        for rel in (records + in_place)[:NOTE_FILES]:
            sf = store.record_file(root, rel, cfg)
            if sf is None or not os.path.isfile(os.path.join(loc.root, rel)):
                continue  # not a record; or deleted or moved: nothing to load
            ident, errors = store.check_record(root, rel, sf)
            if errors:
                kept = "left out" if ident is None else "the rest of it loaded"
                lines.append(f"{_first_of(errors)} ({kept})")
            elif ident is not None and sf.source != "continuity":
                lines.extend(_same_number(loc.root, rel, ident))
            elif ident is not None:
                table = table or open_table(loc)
                other = table.get(ident) if table is not None else None
                clash = other.file if other is not None and other.file != rel else None
                clash = clash or _numbered_alike(loc.root, rel, ident)
                if clash:
                    lines.append(
                        f"{rel}: id: {ident} is also {clash}'s id, and only one of "
                        "the two loads (`gitmem renumber` gives the newer one a free number)"
                    )
        if table is not None:
            table.close()
        said_of_records = len(lines)
        for rel in settings:
            if not os.path.isfile(os.path.join(loc.root, rel)):
                continue
            errors = store.check_settings(root, rel)
            if errors:
                unread = any(p.key == "yaml" for p in errors)  # none of it is read
                lines.append(f"{_first_of(errors)} ({SETTINGS_FILES[rel][1 if unread else 0]})")
    except Exception as exc:  # fail open: logged for `gitmem doctor`
        from gitmem.agent.runner import ERROR_LOG, append_log

        append_log(loc.shared_state_dir, ERROR_LOG, f"post-tool record check: {exc!r}")
        return ""
    if not lines:
        return ""
    if said_of_records == len(lines):
        head = "The decision record just edited has errors, so gitmem does not apply it"
    elif said_of_records == 0:
        head = "The settings file just edited has errors, so gitmem does not apply it"
    else:
        head = "The files just edited have errors, so gitmem does not apply them"
    return f"{head} as written: " + "; ".join(lines) + ". `gitmem lint` checks every record."
