"""``gitmem hook claude EVENT``: Claude Code hooks that bring decisions to the agent.

Events: ``session-start``, ``prompt`` (UserPromptSubmit), ``pre-tool`` (PreToolUse),
``post-tool`` (PostToolUse), ``stop``, ``session-end``. Each reads the hook JSON on stdin
and prints JSON (or nothing) on stdout; see ``gitmem.agent.runner`` for the fail-open
wrapper. ``pre-tool`` and ``post-tool`` live in ``gitmem.agent.tooluse`` (they run around
every tool call and have a stricter import budget). Here: ``prompt`` uses the retrieval
module in light mode (FTS5 over the table, no Whoosh) unless a warm daemon answers;
nothing here loads an embedding model.

Like the tool-call hooks, these take a ``Location`` (strings and ``os``), not a ``Repo``:
session start runs in a fresh interpreter at every session, and ``pathlib``, ``typing``,
``datetime`` and ``subprocess`` each cost it milliseconds to import (a test keeps them out).
"""

from __future__ import annotations

import os

from gitmem import budget
from gitmem.agent import state
from gitmem.agent.common import CHARS_PER_TOKEN, Shown, context
from gitmem.agent.runner import AGENT_KEY
from gitmem.location import folder_below
from gitmem.vocab import SEVERITY_RANK

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from gitmem.location import Location
    from gitmem.table import Match, Problems, Table

BUDGET_SESSION_START = 2000


# ------------------------------------------------------------------------------ helpers


def governing(table: Table, paths: list[str], root: str) -> list[Match]:
    """Current decisions governing any of ``paths``, best first, each once."""
    seen: dict[str, Match] = {}
    for rel in paths:
        is_dir = rel == "" or os.path.isdir(os.path.join(root, rel))
        for m in table.match(rel, is_dir):
            if not m.entry.is_current:
                continue
            if m.entry.id not in seen or m.specificity > seen[m.entry.id].specificity:
                seen[m.entry.id] = m
    from gitmem.table import sort_key

    return sorted(seen.values(), key=sort_key)


# ------------------------------------------------------------------------------ events


def check_rules(
    changes: list[tuple[str, str]],
    table: Table,
    root: str,
    overridden: frozenset[str] = frozenset(),
) -> tuple[dict[str, Any] | None, list[str]]:
    """One pass of the rules of the decisions governing each changed file over the text
    about to be written to it, ``changes`` being (repository path, new text) pairs: (a
    deny answer if a critical rule matched, advisory lines for warning and info rules,
    said even when the decision itself was already shown this session). The decisions
    ``overridden`` (`GITMEM_OVERRIDE`, for a commit) are passed over."""
    from gitmem.rules import violations_in

    advisories: list[str] = []
    for path, text in changes:
        lines = list(enumerate(text.splitlines(), start=1))
        if not lines:
            continue
        for m in governing(table, [path], root):
            if not m.entry.rules or m.entry.id in overridden:
                continue
            found = violations_in(m.entry, path, lines)[:1]
            if not found:
                continue
            v = found[0]
            if m.entry.severity == "critical":
                reason = (
                    f"Project decision {m.entry.id} (critical) forbids this change to {path}: "
                    f"{v.message}. Offending line: {v.text.strip()[:160]!r}. "
                    f"See {m.entry.file}."
                )
                deny = {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": reason,
                    }
                }
                return deny, []
            advisories.append(
                f"- Project decision {m.entry.id} ({m.entry.severity}) has a rule this "
                f"change to {path} breaks: {v.message} (line {v.text.strip()[:120]!r}). "
                f"[{m.entry.file}]"
            )
    return None, advisories[:5]


def session_start(loc: Location, payload: dict[str, Any]) -> dict[str, Any] | None:
    source = str(payload.get("source") or "startup")
    from gitmem.agent.prompt import open_table  # the table (sqlite3): not for `stop`

    table = open_table(loc, session_start=True)
    if table is None:
        return None
    try:
        found = table.problems() if source != "resume" else None
        result = _session_digest(loc, payload, table, source, found)
        said = _unread_message(found)
        if said:  # the agent is told in the digest's note; the user must act, so tell them
            result = {**(result or {}), "systemMessage": said}
        return result
    finally:
        table.close()


def _unread_message(found: Problems | None) -> str:
    """For the user, an ADR folder config.yaml names that this work tree lacks (left out
    by a sparse checkout, or moved): none of its decisions reaches the agent until they
    bring it in or fix the entry."""
    if found is None or not found.unread:
        return ""
    folders = [f[3] for f in found.first[: found.unread]]
    return "gitmem: " + "; ".join(folders)


def _session_digest(
    loc: Location, payload: dict[str, Any], table: Table, source: str, found: Problems | None
) -> dict[str, Any] | None:
    """What the agent is told as a session starts (``source``: startup, resume, clear or
    compact), within BUDGET_SESSION_START, the decisions shown noted in its session;
    ``found``: the table's problems (None at a resume, which notes none)."""
    sid = str(payload.get("session_id") or "")
    current = table.count_current()
    pinned = table.where("pin = 1 OR severity = 'critical'", limit=50)
    changed = changed_paths(loc)
    on_branch = [m.entry for m in governing(table, changed, loc.root)] if changed else []
    # the folder below the root the session started in (a monorepo's package): its
    # decisions, as the agents read a package's own CLAUDE.md there (since session 67)
    here = folder_below(loc.root, payload.get("cwd"))
    in_folder = [m.entry for m in governing(table, [here], loc.root)] if here else []
    recent = _recent(table)
    with state.open_session(loc.shared_state_dir, sid) as session:
        view = session.view()
        if source in ("compact", "clear"):
            session.append("reset", source=source)
            state.echo(view.elsewhere, sid, "reset", source=source)
            already: set[str] = set()
        else:
            already = view.shown
        before = view.shown if source == "compact" else set()
        sections: list[tuple[str, list[Any]]] = [
            ("Pinned and critical project decisions:", pinned),
            ("Decisions governing files changed on this branch or uncommitted:", on_branch),
            (f"Decisions governing {here}/, where this session started:", in_folder),
            ("Recently added or superseding decisions:", recent),
        ]
        if before:
            kept = [table.get(i) for i in sorted(before)]
            sections.append(("Decisions shown earlier in this session:", [e for e in kept if e]))
        parts: list[str] = []
        shown_ids: list[str] = []
        notes = (
            (_refused_note(loc), _problems_note(found), _stale_note(loc), _submodules_note(loc))
            if source != "resume"
            else ()
        )
        warning = "\n\n".join(n for n in notes if n)
        remaining = BUDGET_SESSION_START * CHARS_PER_TOKEN - len(warning)
        for header, items in sections:
            fresh = [e for e in items if e.id not in already and e.id not in shown_ids]
            if not fresh or remaining < 200:
                continue
            text, ids = budget.render(
                [(Shown(e), None) for e in fresh],
                budget_tokens=remaining // CHARS_PER_TOKEN,
                chars_per_token=CHARS_PER_TOKEN,
                header=header,
                more_hint="`gitmem list` shows all decisions.",
            )
            if text:
                parts.append(text)
                shown_ids.extend(ids)
                remaining -= len(text) + 1
        if shown_ids:
            session.append("shown", ids=shown_ids, event=f"session-start:{source}")
    if not parts:
        # Nothing pinned, recent or governing a changed file (a settled project's usual
        # state): still tell the agent the decisions exist and what they are about, as
        # titles only. They are not marked shown: the hooks still bring a decision's
        # summary when the work reaches it.
        titles = _titles(table, current) if source != "resume" else ""
        if not titles:  # a resumed session has its first digest in its transcript
            return context("session-start", warning) if warning else None
        digest = (
            f"This repository records {current} current architectural "
            f"{'decision' if current == 1 else 'decisions'} with "
            f"gitmem. Those governing the files you touch, or matching your prompt, are "
            f"shown to you as you work; `gitmem why PATH` explains any path. "
            f"Decided so far: {titles}"
        )
        return context("session-start", "\n\n".join(p for p in (digest, warning) if p))
    intro = (
        f"This repository records architectural decisions with gitmem "
        f"({current} current). Each line names the record file for the full text."
    )
    return context("session-start", "\n\n".join([intro, *parts, *filter(None, [warning])]))


def _problems_note(found: Problems | None) -> str:
    """Record files the table was compiled without (or with part of), and settings files
    with errors, so that the agent knows what gitmem does not apply and can say so;
    without it, a typo in a decision's front matter would keep the decision from every
    session in silence."""
    if found is None:
        return ""
    lines = found.lines(width=PROBLEM_LINE_CHARS)[:PROBLEM_LINES]
    more = found.more() + len(found.first) - len(lines)
    tail = f"; and {more} more" if more > 0 else ""
    return (
        f"Note: {found.headline()}, so gitmem does not apply {found.what()} as written; "
        "`gitmem lint` lists every problem: " + "; ".join(lines) + tail + "."
    )


def _refused_note(loc: Location) -> str:
    """When git refuses the repository for its owner (a dev container's or CI job's user
    is not the checkout's), the decisions still come from the compiled table, but git
    fails for the agent as for gitmem: nothing changed on the branch is seen and prompts
    wait uncommitted. Said once per session, with the fix, so the agent can pass it on.
    Two ``lstat`` calls unless the owner differs."""
    from gitmem import leangit

    if not leangit.refused(loc.root, loc.git_dir):
        return ""
    return (
        "Note: git refuses this repository (it belongs to another user than the one "
        "running the agent: git's safe.directory check), so git commands fail here and "
        "gitmem cannot see what changed or commit the session's prompts. If the user "
        f"trusts it: `git config --global --add safe.directory {loc.root}`."
    )


# at most ~600 characters of the session-start budget go to files with errors
PROBLEM_LINES = 3
PROBLEM_LINE_CHARS = 160


def _stale_note(loc: Location) -> str:
    """Lines of CLAUDE.md / AGENTS.md found stale (see ``gitmem.agent.stalenote``). Its
    failure costs the note, never the digest; the reason goes to the hook error log."""
    try:
        from gitmem.agent.stalenote import note

        return note(loc)
    except Exception as exc:  # fail open: logged for `gitmem doctor`
        from gitmem.agent.runner import ERROR_LOG, append_log

        append_log(loc.shared_state_dir, ERROR_LOG, f"session-start stale note: {exc!r}")
        return ""


TITLES_CHARS = 1200  # the digest of titles when nothing else is worth saying (~300 tokens)
# most severe (as `vocab.SEVERITY_RANK` orders them everywhere else), then newest
_BY_WEIGHT = (
    "CASE severity "
    + " ".join(f"WHEN '{name}' THEN {rank}" for name, rank in SEVERITY_RANK.items())
    + f" ELSE {len(SEVERITY_RANK)} END, date DESC, n"
)


def _titles(table: Table, current: int, chars: int = TITLES_CHARS) -> str:
    """Current decisions' titles, most severe then newest first, "; "-joined within
    ``chars``, ending with how many more there are."""
    out: list[str] = []
    used = 0
    for e in table.where("1", limit=100, order=_BY_WEIGHT):
        title = budget.clip(e.title.rstrip("."))  # a pasted paragraph ended the list here
        if used + len(title) + 2 > chars - 60:  # room for the "more" line
            break
        out.append(title)
        used += len(title) + 2
    if not out:
        return ""
    more = current - len(out)
    tail = f" (and {more} more: `gitmem list`)." if more > 0 else "."
    return "; ".join(out) + tail


# At most this many repositories are named by the digest of a folder of clones.
CLONES_MAX = 12


def _clones(folder: str) -> list[Location]:
    """The repositories right below ``folder`` that record decisions (CLONES_MAX at most)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return _keeping_decisions(os.path.join(folder, name) for name in names)


def _keeping_decisions(roots: Iterable[str]) -> list[Location]:
    """Those of ``roots`` that are a repository's root and record decisions, CLONES_MAX at
    most."""
    from gitmem.location import repository_of, same_dir

    found: list[Location] = []
    for root in roots:
        if os.path.isdir(os.path.join(root, ".continuity")):
            loc = repository_of(root)
            # (spelled as stored, on a case-insensitive file system: .gitmodules may not)
            if loc is not None and same_dir(loc.root, root):
                found.append(loc)
                if len(found) == CLONES_MAX:
                    break
    return found


def clones_digest(folder: str) -> dict[str, Any] | None:
    """At session start in a folder that is no repository: the repositories right below it
    that record decisions, each with its number of current decisions and its weightiest
    titles, within TITLES_CHARS in all. Their decisions come as the agent touches their
    files or a prompt names them (``tooluse.other_repos``); none is marked shown."""
    lines = _repos_lines(_clones(folder), folder, TITLES_CHARS)
    if not lines:
        return None
    return context(
        "session-start",
        "Repositories in this folder record architectural decisions with gitmem:\n"
        + "\n".join(lines)
        + "\nThose governing the files you touch there, or name in a prompt, are shown to "
        "you as you work; `gitmem why PATH`, run inside a repository, explains any path.",
    )


def _repos_lines(found: list[Location], base: str, chars: int) -> list[str]:
    """A line for each of ``found`` (named from ``base``): its number of current decisions
    and its weightiest titles, within ``chars`` in all. Only tables already built: a dozen
    repositories compiled inline would hold the session's start for seconds, and as many
    background builds would load as many models; a repository's table is built when the
    agent first touches its files."""
    from gitmem.table import TABLE_NAME, Table

    share = max(200, chars // max(1, len(found)))
    lines: list[str] = []
    for loc in found:
        name = os.path.relpath(loc.root, base)
        table = Table.open(os.path.join(loc.state_dir, TABLE_NAME))
        if table is None:
            lines.append(f"- {name}: not indexed yet")
            continue
        try:
            current = table.count_current()
            titles = _titles(table, current, share)
        finally:
            table.close()
        if titles:
            lines.append(f"- {name}: {current} current: {titles}")
    return lines


SUBMODULES_CHARS = 600  # of the session-start budget, for submodules' own decisions


def _submodules(root: str) -> list[Location]:
    """``root``'s submodules (checked out) that record decisions, CLONES_MAX at most."""
    paths = (os.path.normpath(os.path.join(root, rel)) for rel in _submodule_paths(root))
    return _keeping_decisions(p for p in paths if p.startswith(root + os.sep))


def _submodules_note(loc: Location) -> str:
    """The submodules that record decisions of their own: their decisions come as the
    agent touches their files, and without this line it would not know they exist. One
    read of .gitmodules where there is none."""
    lines = _repos_lines(_submodules(loc.root), loc.root, SUBMODULES_CHARS)
    if not lines:
        return ""
    return (
        "Submodules of this repository record architectural decisions of their own, shown "
        "to you when you touch their files:\n" + "\n".join(lines)
    )


def submodules_digest(home: Location) -> dict[str, Any] | None:
    """At session start in a repository that records no decisions: its submodules that do
    (``_submodules_note``)."""
    note = _submodules_note(home)
    return context("session-start", note) if note else None


def _recent(table: Table, days: int = 30) -> list[Any]:
    import time

    cutoff = time.strftime("%Y-%m-%d", time.localtime(time.time() - days * 86400))
    out = table.where("date >= ? AND (status = 'accepted' OR supersedes != '[]')", (cutoff,))
    out.sort(key=lambda e: e.date or "", reverse=True)
    return out[:10]


def changed_paths(loc: Location) -> list[str]:
    """Files changed on the current branch against its upstream (or the default branch),
    plus uncommitted and untracked files."""
    from gitmem import leangit, location

    paths: list[str] = []

    def git(*args: str) -> str | None:
        return leangit.output(args, loc.root, timeout=5)

    status = git("status", "--porcelain", "-z", "--untracked-files=all")
    if status:
        entries = status.split("\0")
        i = 0
        while i < len(entries):
            entry = entries[i]
            if len(entry) > 3:
                paths.append(entry[3:])
                if entry[0] in "RC":
                    i += 1  # the rename's source path follows
            i += 1
    # the first base that exists, found from files: one git process, not one per guess
    branch, _ = location.head(loc.git_dir, loc.common_dir)
    bases = ["@{upstream}"] if branch and location.has_upstream(loc.common_dir, branch) else []
    for name in ("HEAD", "main", "master"):
        if location.resolve_ref(loc.git_dir, loc.common_dir, f"refs/remotes/origin/{name}"):
            bases.append(f"origin/{name}")
    for base in bases:
        diff = git("diff", "--name-only", "-z", "--no-ext-diff", f"{base}...HEAD")
        if diff is not None:
            paths.extend(p for p in diff.split("\0") if p)
            break
    return list(dict.fromkeys(p for p in paths if not p.startswith(".continuity/")))[:500]


def stop(loc: Location, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The end of an agent turn: commit what the turn captured. A turn that edited files
    adds a ``turn`` record with every file the session has edited so far, so the session's
    ref says what it changed before it ends: Codex has no session end, and a session
    killed before its end never sends one (`gitmem why` and `sessions --edited` read it).
    Also a turn an API error ended (Claude Code's and Qwen Code's StopFailure)."""
    sid = str(payload.get("session_id") or "")
    from gitmem import capture

    # the session's prompts captured (capture on, the session not forgotten)
    captured = os.path.exists(capture.wal_path(loc, sid or "unknown"))
    # what the turn's shell commands wrote that their words do not name, and the ruled
    # files as the turn found them: read against the rules, captured or not (since
    # session 49; before, turning capture off turned this check off too)
    import time

    from gitmem.agent import shelleffects

    wrote = shelleffects.note_written(loc.shared_state_dir, sid, loc.root, time.time())
    by_commands, base, stashed = wrote.paths, wrote.base, wrote.stashed
    named = wrote.named  # what they wrote by name (`sed -i`, `>`): checked too
    with state.open_session(loc.shared_state_dir, sid) as session:
        edited = state.unnoted_edits(session) if captured else []
        session.append("stop")
        if edited:
            session.append(state.NOTED, n=len(edited))
    if edited:  # the table (sqlite3) only then: for the team's capture settings
        from gitmem.agent import prompt

        record: dict[str, Any] = {"kind": "turn", "files_edited": edited}
        if by_commands:  # of those, the files only a command's run says it wrote
            record["written_by_commands"] = by_commands
        prompt.capture_with_settings(loc, payload, record)
    if captured:
        capture.spawn_flush(loc, sid or "unknown")  # commit what the turn captured
    again = payload.get("stop_hook_active")  # the agent went on because a stop hook said so
    failed = payload.get("hook_event_name") == "StopFailure"  # its answer is not read
    checked = list(dict.fromkeys([*by_commands, *named]))
    if checked and payload.get(AGENT_KEY) in STOP_BLOCKS and not again and not failed:
        return commands_broke_a_rule(loc, checked, base, stashed)
    return None


# The agents whose stop hook can send the agent back to work with a reason
# (``{"decision": "block", "reason": …}``: Codex, Qwen Code and Droid read Claude Code's answer;
# Gemini CLI's AfterAgent reads it as a deny, gitmem.agent.gemini.answer; pi's extension
# asks for one more turn, with the reason, from agent_before_settle), each run for real
# with it. Copilot CLI and OpenCode ended the turn all the same (tried, session 36): there
# it waits for the commit-time check (`gitmem check`).
STOP_BLOCKS = ("claude", "codex", "gemini", "qwen", "droid", "pi")


def commands_broke_a_rule(
    loc: Location,
    paths: list[str],
    base: dict[str, str | None] | None = None,
    stashed: tuple[str, ...] = (),
) -> dict[str, Any] | None:
    """The turn's commands wrote ``paths`` (files their words do not name: a generator's,
    a script's): where what they added breaks a critical decision's rule, the answer that
    sends the agent back to fix it, once a turn (not when the agent already went on
    because a stop hook said so: ``stop_hook_active``). What they added: the lines a file
    gained since the turn began, for a file ``base`` has (changed then: its text as the
    turn found it, see gitmem.agent.shelleffects), else since the last commit (a tracked
    file), or a new file's whole text. So a line the user had not committed when the turn
    began is not the command's, nor one of the user's work it put back from the stash
    (``stashed``: the entries the user made, gitmem.agent.shelleffects.stash_entries)."""
    said, _ = rules_broken(loc, paths, base, "A command run in this turn", stashed)
    return None if said is None else {"decision": "block", "reason": said}


def rules_broken(
    loc: Location,
    paths: list[str],
    base: dict[str, str | None] | None,
    who: str,
    stashed: tuple[str, ...] = (),
) -> tuple[str | None, list[str]]:
    """What ``who`` (a command) added to ``paths`` against the rules of the decisions
    governing them (what it added: see ``commands_broke_a_rule``): the reason to give the
    agent where a critical rule is broken, and the advisories of the others' rules."""
    from gitmem.agent.prompt import open_table

    table = open_table(loc)
    if table is None:
        return None, []
    try:
        ruled = [p for p in paths if any(m.entry.rules for m in governing(table, [p], loc.root))]
        if not ruled:
            return None, []
        added = _added(loc, ruled, base or {})
        if stashed and added:
            added = _not_stashed(loc.root, added, stashed)
        deny, advisories = check_rules(added, table, loc.root)
    finally:
        table.close()
    if deny is None:
        return None, advisories
    said = str(deny["hookSpecificOutput"]["permissionDecisionReason"])
    return (
        f"{who} wrote a file that breaks a critical project decision. {said} Change it to "
        "follow the decision, or tell the user why it cannot.",
        [],
    )


def turn_start_job(session_id: str, since: str) -> int:
    """``take_turn_start`` for the session's turn whose prompt came at ``since`` (Unix
    time), in the repository of the current folder: run detached by the prompt hook
    (gitmem.agent.prompt.start_turn_job, through gitmem.entry). Prints nothing, exits 0;
    a failure is logged for `gitmem doctor` (without the note, the turn's check reads from
    the last commit and a deletion from before the turn may count as its commands')."""
    from gitmem.location import locate

    loc = None
    try:
        loc = locate()
        take_turn_start(loc, session_id, float(since))
    except Exception as exc:
        from gitmem.agent.runner import _log_error

        _log_error(loc.shared_state_dir if loc else None, "turn start", f"{exc!r}")
    return 0


def take_turn_start(loc: Location, session_id: str, since: float) -> bool:
    """What the work tree holds as the turn that began at ``since`` starts: one `git
    status`, then its deletions and the changed files a critical decision's rule
    governs, kept (gitmem.agent.shelleffects.note_turn_start). Whether it noted any."""
    from gitmem.agent import shelleffects
    from gitmem.agent.prompt import open_table

    changes = shelleffects.status(loc.root)
    if not changes:
        return False
    deleted = [path for code, path in changes if "D" in code]
    ruled: list[str] = []
    table = open_table(loc)
    if table is not None:
        try:
            ruled = [
                path
                for _, path in changes
                if any(
                    m.entry.rules and m.entry.severity == "critical"
                    for m in governing(table, [path], loc.root)
                )
            ]
        finally:
            table.close()
    return shelleffects.note_turn_start(loc, session_id, since, deleted, ruled)


def _added(loc: Location, paths: list[str], base: dict[str, str | None]) -> list[tuple[str, str]]:
    """(path, the text it gained) for each of ``paths``: against its text in ``base``
    (the blob noted as the turn began; None: the file was not there), else since the last
    commit: a tracked file's added lines, an untracked file's whole text (as `gitmem
    check` reads them; in a merge, what the merge adds to every side)."""
    from gitmem.check import added_lines, merging, new_to_every_parent, whole_files
    from gitmem.errors import GitmemError

    out: dict[str, str] = {}
    for path in paths:
        if path in base:
            gained = _gained_since(loc.root, path, base[path])
            if gained is not None:
                out[path] = gained
    rest = [p for p in paths if p not in out]
    if rest:
        repo = loc.repo()
        try:
            lines = added_lines(repo, ["HEAD", "--", *rest])
            new_to_every_parent(repo, lines, merging(repo), rest, cached=False)
        except GitmemError:  # no commit yet
            lines = {}
        lines.update(whole_files(repo, [p for p in rest if p not in lines], cwd=loc.root))
        out.update((p, "\n".join(text for _, text in lines[p])) for p in rest if p in lines)
    return [(p, out[p]) for p in paths if p in out]


def _not_stashed(
    root: str, added: list[tuple[str, str]], stashed: tuple[str, ...]
) -> list[tuple[str, str]]:
    """``added`` without the lines the file holds in one of the ``stashed`` entries: the
    user's work that `git stash pop` or `apply` put back. An entry's work tree is its
    commit, the untracked files it kept (`stash -u`) its third parent. One `git cat-file`
    for them all, on the rare turn whose commands both named the stash and broke a rule."""
    from gitmem import git
    from gitmem.errors import GitmemError

    names = [
        f"{c}{side}:{p}"
        for p, _ in added
        if "\n" not in p  # (the batch reads a name a line)
        for c in stashed
        for side in ("", "^3")
    ]
    try:
        blobs = git.read_blobs(root, names, timeout=30)
    except GitmemError:
        return added
    theirs: dict[str, set[str]] = {}
    for name, blob in blobs.items():
        text = blob.decode("utf-8", "replace")
        theirs.setdefault(name.partition(":")[2], set()).update(text.splitlines())
    kept: list[tuple[str, str]] = []
    for path, text in added:
        lines = [line for line in text.split("\n") if line not in theirs.get(path, set())]
        if any(line.strip() for line in lines):
            kept.append((path, "\n".join(lines)))
    return kept


MAX_WHOLE_BYTES = 64 << 20  # a new file larger than this is read the other way (git's)


def _gained_since(root: str, path: str, blob: str | None) -> str | None:
    """The lines of ``path`` (in the work tree at ``root``) that its text in ``blob``
    did not have, joined; all of them when ``blob`` is None (the file was not there).
    None where either text cannot be read (the caller reads from the commit instead).
    Compared by git's own diff, as `gitmem check` reads a commit's (``git diff
    --no-index`` against the blob's text in a temporary file): Python's difflib took 30 s
    over a 30,000-line generated file with one line added, in a hook the agent waits for."""
    if blob is None:  # a FIFO a command wrote to is no text (and would block the hook)
        from gitmem.readfile import read_regular

        return read_regular(os.path.join(root, path), MAX_WHOLE_BYTES)
    if not os.path.isfile(os.path.join(root, path)):  # `diff --no-index` says 1 for this too
        return None
    import tempfile

    from gitmem import git
    from gitmem.check import DIFF, added_in

    code, text, _ = git.run_bytes(("cat-file", "blob", blob), root, timeout=10)
    if code != 0:  # pruned, or another object store
        return None
    with tempfile.NamedTemporaryFile(prefix="gitmem-base-", delete=False) as fh:
        fh.write(text)
    try:
        args = [*DIFF, "--no-index", "--no-textconv", "--", fh.name, path]
        code, out, _ = git.run(args, root, check=False, timeout=30)
    finally:
        os.unlink(fh.name)
    if code not in (0, 1):  # 1: the two differ
        return None
    return "\n".join(line for _, line in added_in(out).get(path, []))


def session_end(loc: Location, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Close the session: a final record with what was read and edited, the decisions
    shown, and retrieval corrections (decisions governing edited files never shown)."""
    sid = str(payload.get("session_id") or "")
    reason = str(payload.get("reason") or "")
    with state.open_session(loc.shared_state_dir, sid) as session:
        view = session.view(paths=True)
        session.append("closed", reason=reason)
    state.echo(view.elsewhere, sid, "closed", reason=reason)
    from gitmem.agent.prompt import capture, capture_settings, open_table

    corrections: list[str] = []
    table = open_table(loc)
    settings = capture_settings(table)
    if table is not None:
        try:
            governing_edits = governing(table, list(dict.fromkeys(view.edited)), loc.root)
            corrections = [m.entry.id for m in governing_edits if m.entry.id not in view.all_shown]
        finally:
            table.close()
    capture(
        loc,
        payload,
        {
            "kind": "close",
            "reason": str(payload.get("reason") or ""),
            "files_read": sorted(set(view.read)),
            "files_edited": sorted(set(view.edited)),
            "decisions_shown": sorted(view.all_shown),
            "retrieval_corrections": corrections,
        },
        settings,
    )
    return None


def post_compact(loc: Location, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Codex's PostCompact (it answers with no context): what the hooks added is gone from
    the agent's window, so the decisions shown so far may be shown again. Claude Code says
    the same with SessionStart's ``compact`` source, which also re-sends the digest.
    Gemini CLI's PreCompress also comes before every turn that compresses nothing
    (``gemini.compressed``)."""
    sid = str(payload.get("session_id") or "")
    with state.open_session(loc.shared_state_dir, sid) as session:
        view = session.view()
        if payload.get("hook_event_name") == "PreCompress":
            from gitmem.agent import gemini

            size = gemini.compressed(payload, view.reset_at)
            if size is None:
                return None
            session.append("reset", source="compact", at=size)
        else:
            session.append("reset", source="compact")
    state.echo(view.elsewhere, sid, "reset", source="compact")
    return None


def reset_visited(home: Location | None, cwd: str, sid: str, source: str) -> None:
    """Compaction (or `/clear`) in a session that has no repository of its own keeping
    decisions: the repositories whose decisions it was shown forget them too. Those are
    the clones right below ``cwd`` (a folder of clones) and ``home``'s submodules (a
    superproject that keeps none); nothing of gitmem's is written in ``home`` to list
    them, so those are what is found."""
    from gitmem.location import repository_of

    roots = [loc.root for loc in _clones(cwd)]
    if home is not None:
        roots += [os.path.join(home.root, p) for p in _submodule_paths(home.root)]
    dirs = []
    for root in roots:
        loc = repository_of(root)
        if loc is not None and os.path.isdir(os.path.join(loc.root, ".continuity")):
            dirs.append(loc.shared_state_dir)
    state.echo(dirs, sid, "reset", source=source)


def _submodule_paths(root: str) -> list[str]:
    """The ``path =`` entries of ``root``'s .gitmodules."""
    try:
        with open(os.path.join(root, ".gitmodules"), encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    out = []
    for line in lines:
        key, eq, value = line.strip().partition("=")
        if eq and key.strip() == "path" and value.strip():
            out.append(value.strip().strip('"'))
    return out


HANDLERS = {
    "session-start": session_start,
    "stop": stop,
    "session-end": session_end,
    "post-compact": post_compact,
}


def autostart_daemon(loc: Location) -> None:
    """Start `gitmem watch` when `.continuity/config.yaml` says `watch_autostart: true`
    (read with a line scan: no YAML import on the hook path)."""
    try:
        path = os.path.join(loc.root, ".continuity", "config.yaml")
        with open(path, encoding="utf-8", errors="replace") as fh:  # lint names a bad byte
            text = fh.read()
    except OSError:
        return
    for line in text.splitlines():
        if line.strip().replace(" ", "") in ("watch_autostart:true", "watch_autostart:yes"):
            from gitmem import daemon

            daemon.spawn(loc.repo())
            return
