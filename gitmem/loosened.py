"""What an edit of a decision record takes from a critical decision's force.

An agent that a critical rule stops has one way past it that no rule checks: the record
itself. Its rule deleted, its severity lowered, its status set to ``deprecated``, a glob
narrowed, or a new record that supersedes it, and the next check lets the code through.
Decisions are the team's to change, so such an edit is said, never refused: to the agent
(after its edit: loosen a decision only when the user asked) and to the user (Claude
Code's ``systemMessage``), and at commit time as a warning (``gitmem check``), which CI
shows on the pull request. Compared with the committed record (``HEAD``): what the team
reviewed, not what an earlier edit of the same session left.

Only critical decisions that are current (accepted or proposed) are compared: they are
the ones whose rules block. Adding to a decision (a rule, a glob) is never a loosening.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gitmem.model import Decision
from gitmem.vocab import CURRENT_STATUSES, SEVERITY_RANK


@dataclass(frozen=True)
class Loosening:
    ident: str
    title: str
    file: str
    what: tuple[str, ...]  # each change, in words: "its rule `\\bfloat\\(` removed"

    def sentence(self) -> str:
        return f"{self.ident} ({self.title}): " + "; ".join(self.what)


def _rule_words(d: Decision) -> dict[tuple[str, tuple[str, ...]], str]:
    return {(r.forbid, tuple(r.paths)): r.forbid for r in d.rules}


def compare(before: Decision, after: Decision | None) -> tuple[str, ...]:
    """What ``after`` (None: the record gone, or no longer a record) takes from
    ``before``, a current critical decision; () if nothing."""
    if before.severity != "critical" or before.status not in CURRENT_STATUSES:
        return ()
    if after is None:
        return ("the record removed, or no longer read as a record",)
    what: list[str] = []
    if after.id != before.id:
        what.append(f"its id changed to {after.id} (references to {before.id} go nowhere)")
    if after.status not in CURRENT_STATUSES:
        what.append(f"status {before.status} → {after.status}")
    if SEVERITY_RANK.get(after.severity, 3) > SEVERITY_RANK["critical"]:
        block = " (its rules no longer block)" if before.rules else ""
        what.append(f"severity critical → {after.severity}{block}")
    kept = _rule_words(after)
    for key, forbid in _rule_words(before).items():
        if key not in kept:
            changed = any(k[0] == key[0] for k in kept)
            what.append(f"its rule `{forbid}` " + ("given other paths" if changed else "removed"))
    gone = [g for g in before.globs if g not in after.globs and not g.startswith("!")]
    if gone:
        what.append("no longer governs " + ", ".join(gone))
    excluded = [g for g in after.globs if g.startswith("!") and g not in before.globs]
    if excluded:
        what.append("now excludes " + ", ".join(g[1:] for g in excluded))
    return tuple(what)


@dataclass(frozen=True)
class Known:
    """A decision as the current index knows it (``gitmem.table.Entry``, or a record
    loaded whole): enough to tell whether superseding it loosens anything."""

    ident: str
    title: str
    file: str
    severity: str
    current: bool
    rules: bool


def superseding(
    before: Decision | None, after: Decision | None, current: Callable[[str], Known | None]
) -> list[Loosening]:
    """The current critical decisions ``after`` newly says it supersedes (``current``
    looks a decision up by id), where ``after`` is accepted: superseded, their rules no
    longer apply."""
    if after is None or after.status != "accepted":
        return []
    # a record accepted now that named them while proposed supersedes them now too
    accepted = before is not None and before.status == "accepted"
    already = set(before.supersedes) if before is not None and accepted else set()
    out: list[Loosening] = []
    for ident in after.supersedes:
        old = current(ident)
        if ident in already or old is None or old.ident == after.id:
            continue
        if old.severity == "critical" and old.current:
            what = f"superseded by {after.id} ({after.file})"
            if old.rules and not after.rules:
                what += ", which has no rule of its own"
            out.append(Loosening(old.ident, old.title, old.file, (what,)))
    return out


def loosenings(
    rels: list[str],
    committed: Callable[[str], Decision | None],
    now: Callable[[str], Decision | None],
    current: Callable[[str], Known | None],
) -> list[Loosening]:
    """For each record path of ``rels``: what its version ``now`` takes from its
    ``committed`` version's force, and the decisions it newly supersedes."""
    out: list[Loosening] = []
    for rel in rels:
        before, after = committed(rel), now(rel)
        what = compare(before, after) if before is not None else ()
        if before is not None and what:
            out.append(Loosening(before.id, before.title, rel, what))
        out.extend(superseding(before, after, current))
    return out


def version(root: Path, rel: str, text: str | None) -> Decision | None:
    """The decision the text ``text`` of the record at ``rel`` gives (None: no text, or
    no record there)."""
    from gitmem import store

    if text is None:
        return None
    sf = store.record_file(root, rel)
    return None if sf is None else store.decision_in(text, sf)


def on_disk(root: Path, rel: str) -> Decision | None:
    """The record at ``rel`` as the work tree has it; where it is gone, a record of the
    same number in its folder (`git mv` to a new name keeps the decision)."""
    from gitmem import fsutil
    from gitmem.validate import derive_id

    path = root / rel
    if not path.is_file():
        ident, number = derive_id(path.name)
        twins = sorted(path.parent.glob("*.md")) if number is not None else []
        found = [p for p in twins if derive_id(p.name)[0] == ident]
        if not found:
            return None
        path, rel = found[0], found[0].relative_to(root).as_posix()
    try:
        return version(root, rel, fsutil.read_text(fsutil.inside(root, rel)))
    except (OSError, ValueError):
        return None
