"""What the after-tool hook of a shell command tells the agent when the command took away
what a decision governs (`git mv billing payments`, `rm -r billing`, a case-only
rename on a case-insensitive file system): that decision now governs nothing there,
and no later hook would bring it. ``stat`` calls only, for the paths the command named.
"""

from __future__ import annotations

import os

from gitmem import pathmap
from gitmem.agent import state
from gitmem.location import Location, relative, spelling_of, worktree_roots


def gone_note(loc: Location, pm: pathmap.PathMap, paths: list[str], sid: str) -> str:
    """After a shell command (`git mv billing payments`, `rm -r billing`): the current
    decisions whose anchored glob named a folder or file of this command that is no longer
    in the work tree. Such a decision now governs nothing there, and no later hook would
    bring it; the commit-time check would say so, after the fact. Once per session and
    glob. ``stat`` calls only, and only for paths the command named that are gone."""
    lines: list[str] = []
    folds, precompose = spelling_of(loc.common_dir)
    for rel in paths:
        if not rel or _there(loc.root, rel, folds, precompose):
            continue
        for d, glob, _ in pm.match(rel, True):
            prefix = _literal_prefix(glob)
            if not d.current or not prefix or _there(loc.root, prefix, folds, precompose):
                continue
            if state.claim(loc.shared_state_dir, sid, f"gone:{d.id}:{glob}"):
                now = _respelled(loc.root, prefix, folds, precompose)
                lines.append(f"{d.id} {d.title.rstrip('.')} ({glob}{now}) [{d.file}]")
    if not lines:
        return ""
    return (
        "After this command, what these project decisions govern is no longer in the "
        "work tree: " + "; ".join(lines[:5]) + ". If the code moved and a decision still "
        "applies to it, change the decision's globs to its new place; if the code is "
        "gone, the decision may need superseding."
    )


def _there(root: str, rel: str, folds: bool, precompose: bool) -> bool:
    """Whether ``rel`` is in the work tree as spelled: on a case-insensitive file system
    (``folds``), not ``billing`` where the folder is now ``Billing``, which no glob
    written ``billing/**`` matches."""
    if not os.path.lexists(os.path.join(root, rel)):
        return False
    if not folds:
        return True
    from gitmem.spelling import spelled

    return spelled(root, rel, precompose) == rel


def _respelled(root: str, prefix: str, folds: bool, precompose: bool) -> str:
    """Where ``prefix`` is in the work tree in another case only: how it is spelled now."""
    if not folds or not os.path.lexists(os.path.join(root, prefix)):
        return ""
    from gitmem.spelling import spelled

    now = spelled(root, prefix, precompose)
    return f", which matches case as written: the work tree spells it {now}"


def renamed_by_case(loc: Location, words: list[str], cwd: str) -> list[str]:
    """In a repository on a case-insensitive file system (macOS's, Windows' defaults): the
    paths a shell command (its path ``words``, run in ``cwd``) names in two spellings of
    one name (`git mv Billing tmp && git mv tmp billing`, a case-only rename, which `git
    mv Billing billing` refuses there), as typed. Every path it names is spelled as
    stored, so a glob written `Billing/**`, which now governs nothing, was never looked
    up: before session 65 no hook said so (the commit-time check did)."""
    if not spelling_of(loc.common_dir)[0]:
        return []
    from gitmem.spelling import fold

    spellings: dict[str, dict[str, str]] = {}  # folded -> each word as typed -> its path
    for word in words:
        text = word.strip().strip('"').strip("'").replace("\\", "/")
        full = os.path.normpath(os.path.join(cwd, text))
        spellings.setdefault(fold(full), {})[word] = full
    twice = {w: full for words in spellings.values() if len(words) > 1 for w, full in words.items()}
    if not twice:  # the common case: no name in two spellings, nothing more to read
        return []
    roots = worktree_roots(loc.root, loc.common_dir)
    out: set[str] = set()
    for word, full in twice.items():
        rel = relative(word, loc.root, loc.common_dir, cwd, roots)  # spelled as stored
        if rel:
            parts = rel.split("/")
            typed = full.split("/")[-len(parts) :]
            same = len(typed) == len(parts) and all(
                fold(a) == fold(b) for a, b in zip(typed, parts, strict=True)
            )
            out.add("/".join(typed) if same else rel)
    return sorted(out)


def _literal_prefix(glob: str) -> str:
    """The folders (or file) an anchored glob names before its first wildcard: `billing`
    for `billing/**`, `src/api` for `/src/api/*.py`; "" for a glob that matches at any
    depth (`*.sql`, `migrations`) or a negation."""
    body = glob.strip()
    if body.startswith("!") or "/" not in body.rstrip("/"):
        return ""
    parts: list[str] = []
    for part in body.strip("/").split("/"):
        if not part or any(c in part for c in "*?[\\"):
            break
        parts.append(part)
    return "/".join(parts)
