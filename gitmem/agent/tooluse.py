"""``pre-tool`` and ``post-tool``: the decisions governing what a tool call touches.

These two hooks run as a fresh process around every Read, Edit, Grep or Bash call the agent
makes, so they are written against a strict import budget: built-in modules, ``_json`` and
the lean gitmem modules (``location``, ``pathmap``, ``leanjson``, ``budget``,
``agent.state``, ``agent.toolpaths``). No ``json``, ``re``, ``pathlib``, ``typing`` or
``sqlite3``: on a 2-core machine each costs several milliseconds of an interpreter that
starts in ~15-20 (``tests/test_hooks.py`` checks the list; ``benchmarks/hooks_latency.py``
measures it). The heavier modules load only when the event needs them: the SQLite table
and RE2 when an edit meets a decision with ``rules``; the compiler when the path map is
missing and the repository small; ``subprocess`` to start a background refresh. What
reads one kind of call is a module of its own, imported for that call alone:
``agent.unhooked`` (with ``agent.shellcommits``) for a command that may commit past the
repository's hooks, ``agent.shelledits`` for a `sed -i` or `perl -pi`,
``agent.shelldiffs`` for a `git apply` or `patch`,
``agent.recordnotes`` after an edit of gitmem's own files, ``agent.gonenotes`` after a
shell command.
"""

from __future__ import annotations

import os

from gitmem import budget, pathmap
from gitmem.agent import state, toolpaths
from gitmem.agent.common import (
    CHARS_PER_TOKEN,
    IN_MEMORY,
    build_inline,
    context,
    refresh_in_background,
    refreshed_inline,
    unpack,
)
from gitmem.location import (
    Location,
    link_target,
    other_repositories,
    relative,
    spelling_of,
    worktree_roots,
)
from gitmem.readfile import read_regular

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Hit = tuple[pathmap.Decision, str, int]

BUDGET_PRE_TOOL = 500
BUDGET_POST_TOOL = 300


# ------------------------------------------------------------------------------ the map


def open_map(loc: Location, *, current: bool = False) -> pathmap.PathMap | None:
    """The path map; a stale map is used as it is while a background process refreshes
    it (a hook never waits for a big rebuild). A missing one is compiled inline only for
    small repositories, and so is a stale one when the map must be ``current``: before an
    edit, whose critical rules a stale map would not know (a decision a `git pull`, a
    checkout or the agent itself just added), so the edit would go through unchecked."""
    held = IN_MEMORY.get(loc.state_dir)
    if held is not None:
        found: pathmap.PathMap = held.path_map()
        return found
    where = os.path.join(loc.state_dir, pathmap.MAP_NAME)
    pm = pathmap.PathMap.open(where)
    if pm is not None:
        if _fresh(pm, loc):
            return pm
        if not (current and build_inline(loc.root, stale=True)):
            refresh_in_background(loc.root)
            return pm
        pm.close()
        return _compiled(loc, where)
    inline = build_inline(loc.root)
    if inline:
        return _compiled(loc, where)
    if inline is not None:
        refresh_in_background(loc.root)
    return None


def _compiled(loc: Location, where: str) -> pathmap.PathMap | None:
    """The map compiled now: written at ``where``, or held in memory where it could not
    be (see ``refreshed_inline``)."""
    compiled = refreshed_inline(loc)
    if compiled is None:
        return pathmap.PathMap.open(where)
    found: pathmap.PathMap = compiled.path_map()
    return found


def _fresh(pm: pathmap.PathMap, loc: Location) -> bool:
    h = pm.header  # not its root: see gitmem.table.full_fingerprint
    dirs = [str(p) for p in h.get("dirs") or []]  # type: ignore[attr-defined]
    return pathmap.quick_fingerprint(loc.root, _watched(pm), dirs) == h.get("quick")


def _watched(pm: pathmap.PathMap) -> list[str]:
    """The record files and folders the map was compiled from (``.continuity/`` and the
    ADR folders it reads), relative to the repository root."""
    return [str(p) for p in pm.header.get("watched") or []]  # type: ignore[attr-defined]


def _records_among(pm: pathmap.PathMap, paths: list[str], *, folders: bool = False) -> bool:
    """Whether any of these repository paths is one of the map's records or inside one
    of its record folders; with ``folders``, or a folder that holds one (`.continuity`)."""
    watched = [w.rstrip("/") for w in _watched(pm)]
    return any(
        p == w or p.startswith(w + "/") or (folders and w.startswith(p + "/"))
        for p in paths
        for w in watched
    )


# ------------------------------------------------------------------------------ helpers


def repo_paths(
    loc: Location, raw: list[str], cwd: str, check_shell: bool, pm: pathmap.PathMap
) -> list[str]:
    """Repository-relative forms of ``raw``; shell words are kept only when they exist on
    disk or some decision governs them."""
    out: list[str] = []
    roots = worktree_roots(loc.root, loc.common_dir)
    real_root = os.path.realpath(loc.root)
    for item in raw:
        rel = relative(item, loc.root, loc.common_dir, cwd, roots)
        if rel is None or rel in out:
            continue
        if check_shell and not (
            os.path.exists(os.path.join(loc.root, rel))
            or pm.match(rel)
            or pm.match(rel, True)  # governed as a folder: `billing` after `git mv billing x`
            or _records_among(pm, [rel], folders=True)  # `rm` of a record, or of its folder
        ):
            continue
        out.append(rel)
        target = link_target(real_root, rel)
        if target is not None and target not in out:
            out.append(target)
    return out


def governing(pm: pathmap.PathMap, paths: list[str], root: str) -> list[Hit]:
    """Current decisions governing any of ``paths``, best first, each once."""
    seen: dict[str, Hit] = {}
    for rel in paths:
        is_dir = rel == "" or os.path.isdir(os.path.join(root, rel))
        for found in pm.match(rel, is_dir):
            d, _, spec = found
            if d.current and (d.id not in seen or spec > seen[d.id][2]):
                seen[d.id] = found
    return sorted(seen.values(), key=pathmap.sort_key)


def _inject_new(
    loc: Location, payload: dict[str, Any], event: str, hits: list[Hit], tokens: int
) -> dict[str, Any] | None:
    sid = str(payload.get("session_id") or "")
    window = state.context_of(payload)
    with state.open_session(loc.shared_state_dir, sid) as session:
        view = session.view(window or None)  # None: an unnamed subagent's, if one runs
        window = window or view.subagent
        shown = view.shown
        fresh = [(d, glob) for d, glob, _ in hits if d.id not in shown]
        if not fresh:
            return None
        text, ids = budget.render(
            fresh,
            budget_tokens=tokens,
            chars_per_token=CHARS_PER_TOKEN,
            more_hint="`gitmem why PATH` lists them.",
        )
        if ids:
            session.append("shown", ids=ids, event=event, **({"a": window} if window else {}))
    return context(event, text)


def _touched(loc: Location, payload: dict[str, Any], pm: pathmap.PathMap) -> tuple[str, list[str]]:
    raw, from_shell = _raw_touched(payload)
    return str(payload.get("tool_name") or ""), repo_paths(loc, raw, _cwd(payload), from_shell, pm)


_TOUCHED = "\0gitmem touched"  # the payload's own key for what the call touches


def _raw_touched(payload: dict[str, Any]) -> tuple[list[str], bool]:
    """``toolpaths.touched`` for the call, worked out once however many repositories ask
    (a shell command's words take tens of microseconds); a shell command's with the files
    the diffs it applies write (``_diffs``)."""
    found = payload.get(_TOUCHED)
    if found is None:
        tool = str(payload.get("tool_name") or "")
        found = toolpaths.touched(tool, payload.get("tool_input"))
        if found[1] and tool == toolpaths.SHELL_TOOL:
            words = found[0]
            copied = [path for path, _, _ in _copies(payload)]
            listed = [os.path.join(f, n) for f, _, _, names in _listed(payload) for n in names]
            more = [
                p for p in [*(p for p, _ in _diffs(payload)), *copied, *listed] if p not in words
            ]
            found = ([*words, *more], True)
        payload[_TOUCHED] = found
    return found


_DIFFS = "\0gitmem diffs"  # the payload's own key for the diffs a shell command applies
MAX_DIFF_BYTES = 1 << 20  # a larger diff file is not read before it is applied


def _diffs(payload: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, the lines it gains) for each file a shell command's `git apply` or `patch`
    writes (shelldiffs.applied_diffs), a diff file read from the command's folder."""
    found = payload.get(_DIFFS)
    if found is None:
        command = _command(payload)
        cwd = _cwd(payload)

        def read(path: str) -> str | None:
            return read_regular(os.path.join(cwd, path), MAX_DIFF_BYTES)

        found = []
        if command is not None and toolpaths.may_apply_diff(command):
            from gitmem.agent import shelldiffs

            found = shelldiffs.applied_diffs(command, read)
        payload[_DIFFS] = found
    return found


_COPIES = "\0gitmem copies"  # ... and for the files it copies or moves


def _copies(payload: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(path, the file whose text it will hold, whether it is appended) for each file a
    shell command's `cp`, `mv`, `install` or `cat` puts there (toolpaths.copied_files);
    into a folder, under the source's name. Read by ``_shell_changes`` where a rule
    governs the path."""
    found = payload.get(_COPIES)
    if found is None:
        command = _command(payload)
        cwd = _cwd(payload)
        found = []
        for source, target, folded, append in toolpaths.copied_files(command) if command else []:
            if folded or os.path.isdir(os.path.join(cwd, target)):
                target = os.path.join(target, os.path.basename(source))
            found.append((target, os.path.join(cwd, source), append))
        payload[_COPIES] = found
    return found


_LISTED = "\0gitmem listed"  # ... and for the files a `sed -i` is given by another command
_BEFORE = "\0gitmem before"  # set before the call runs (pre_tool)
MAX_LISTED = 256  # files of a listing read (each is a path the call touches)
LIST_TIMEOUT_S = 2.0  # how long the listing may run before the call


def _listed(payload: dict[str, Any]) -> list[tuple[str, str, list[str], list[str]]]:
    """(folder, "sed" or "perl", its arguments, the files, from that folder) for each
    `sed -i` or `perl -pi` of a shell command that other commands give its files
    (shelledits.listed_edits: `find -exec sed`, `grep -rl X | grep -v test | xargs sed`),
    before the call runs: those commands, which only read and print names, are run from
    the same folder to list them (at most MAX_LISTED; nothing where one fails or they run
    past LIST_TIMEOUT_S: the after-tool check reads what the command wrote). After the
    call the listing would differ (the files are renamed), so it is only run before."""
    found = payload.get(_LISTED)
    if found is None:
        found = []
        command = _command(payload)
        if command is not None and payload.get(_BEFORE):
            cwd = _cwd(payload)
            for folder, editor, args, pipeline, nul in _listed_edits(command):
                names = _listing(pipeline, os.path.join(cwd, folder), nul, command)
                if names:
                    found.append((folder, editor, args, names))
        payload[_LISTED] = found
    return found


def _listed_edits(command: str) -> list[tuple[str, str, list[str], list[list[str]], bool]]:
    """``shelledits.listed_edits``, that module imported only for a command that may hold
    a `sed -i` or `perl -pi`."""
    if not (toolpaths.may_sed_in_place(command) or toolpaths.may_perl_in_place(command)):
        return []
    from gitmem.agent import shelledits

    return shelledits.listed_edits(command)


def _listing(pipeline: list[list[str]], where: str, nul: bool, command: str) -> list[str]:
    """The names the last of ``pipeline`` prints, each command's output the next one's
    input, run from ``where``. A word with `*`, `?` or `[` that ``command`` does not quote
    (`grep -l x *.py`, not `find . -name '*.py'`) is first expanded as the shell would,
    and kept as it is where it matches nothing, as bash does."""
    import signal
    import subprocess
    import time

    from gitmem import leangit

    def quoted(word: str) -> bool:
        return f"'{word}'" in command or f'"{word}"' in command

    def expand(argv: list[str]) -> list[str]:
        if not any(c in w for w in argv[1:] if not w.startswith("-") for c in "*?["):
            return argv
        import glob

        expanded = [argv[0]]
        for word in argv[1:]:
            globbed = not word.startswith("-") and any(c in word for c in "*?[")
            found = sorted(glob.glob(word, root_dir=where)) if globbed and not quoted(word) else []
            expanded += found or [word]
        return expanded

    procs: list[subprocess.Popen[bytes]] = []
    deadline = time.monotonic() + LIST_TIMEOUT_S
    env = leangit.environment()
    try:
        for argv in pipeline:
            given = procs[-1].stdout if procs else None
            procs.append(
                subprocess.Popen(
                    expand(argv),
                    cwd=where,
                    stdin=given if given is not None else subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=env,
                )
            )
            if given is not None:
                given.close()  # the next command holds it: an early exit reaches this one
        out = procs[-1].communicate(timeout=max(0.0, deadline - time.monotonic()))[0]
        codes = [p.wait(timeout=max(0.0, deadline - time.monotonic())) for p in procs]
    except (OSError, subprocess.TimeoutExpired):
        for proc in procs:
            proc.kill()
            proc.wait()
        return []
    # 1: grep found nothing; a command before `head` may be cut off by its closed pipe
    if codes[-1] not in (0, 1) or any(c not in (0, 1, -signal.SIGPIPE) for c in codes):
        return []
    text = out.decode("utf-8", "surrogateescape")
    return [name for name in (text.split("\0") if nul else text.split()) if name][:MAX_LISTED]


def _cwd(payload: dict[str, Any]) -> str:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else os.getcwd()


def _command(payload: dict[str, Any]) -> str | None:
    """The shell command of a call (any tool's ``command`` string)."""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    return command if isinstance(command, str) else None


# ------------------------------------------------------------------------------ events


class _Reading:
    """``with _Reading(loc, pm):`` uses the map and closes it. A map that opened but cannot
    be read (a damaged disk; writes are atomic) raises ValueError: it is then rebuilt in
    the background, and the error goes on to the runner, which logs it for doctor."""

    def __init__(self, loc: Location, pm: pathmap.PathMap) -> None:
        self.loc = loc
        self.pm = pm

    def __enter__(self) -> pathmap.PathMap:
        return self.pm

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self.pm.close()
        if kind is not None and issubclass(kind, ValueError):
            refresh_in_background(self.loc.root)


# Tools that run a subagent whose own tool calls arrive under the same session, unnamed
# (Gemini CLI 0.61: `invoke_agent`; seen running it). Their before and after hooks bracket
# the subagent's calls, which count what they are shown in a context window of their own.
SUBAGENT_TOOLS = frozenset({"invoke_agent"})


def _subagent(loc: Location, payload: dict[str, Any], starting: bool) -> bool:
    """Record a subagent starting or ending, if the call is one (True)."""
    if payload.get("tool_name") not in SUBAGENT_TOOLS:
        return False
    sid = str(payload.get("session_id") or "")
    with state.open_session(loc.shared_state_dir, sid) as session:
        session.append("subagent", on=starting)
    return True


# ------------------------------------------------------------------- other repositories

# At most this many repositories besides the session's are looked into per tool call.
MAX_OTHER_REPOS = 4


def other_repos(loc: Location | None, payload: dict[str, Any]) -> list[Location]:
    """The repositories besides ``loc`` that hold paths of this tool call and keep
    decisions (a ``.continuity`` folder): a submodule or nested clone inside ``loc``'s
    work tree, a sibling reached by an absolute or ``../`` path, or, when the agent runs
    in a folder that is no repository (one holding several), each one it touches. Each
    answers for its own paths from its own path map, and remembers what it showed in its
    own session state, so that ids never clash. ``stat`` calls only: one or two per
    folder between a path and the work tree root holding it."""
    raw, from_shell = _raw_touched(payload)
    return other_repositories(raw, _cwd(payload), loc, on_disk=from_shell, limit=MAX_OTHER_REPOS)


def _each_repo(
    event: str,
    loc: Location,
    payload: dict[str, Any],
    answer: Callable[[Location, int | None], dict[str, Any] | None],
) -> dict[str, Any] | None:
    """``answer(repository, tokens)`` for the session's repository (its event's own budget:
    None) and for each other one the call touches (other_repos: BUDGET_ELSEWHERE each, so
    that all of it stays within MAX_EVENT_CHARS), as one answer: a deny as it is, else the
    texts, each other repository's under a line naming it."""
    first = answer(loc, None)
    others = other_repos(loc, payload)
    cwd = _cwd(payload)
    if not others and _holds(loc, cwd):
        return first  # the usual call: one repository, the one the agent works in
    texts: list[str] = []
    told: list[str] = []
    for where, result in [(loc, first), *((o, answer(o, BUDGET_ELSEWHERE)) for o in others)]:
        denied, text = unpack(result)
        if denied is not None:
            return result
        if text:
            texts.append(_named(where, cwd, text))
            if where is not loc:
                told.append(where.shared_state_dir)
    _remember(loc, payload, told)
    return context(event, "\n\n".join(texts))


def _remember(home: Location | None, payload: dict[str, Any], told: list[str]) -> None:
    """Note in the session's own state the other repositories that showed it decisions
    (state.echo: compaction and the session's end reach them too). Not in a repository
    that keeps no decisions: nothing of gitmem's is written there."""
    if told and home is not None and os.path.isdir(os.path.join(home.root, ".continuity")):
        state.remember_elsewhere(home.shared_state_dir, str(payload.get("session_id") or ""), told)


# What each other repository may add to an event (tokens): with MAX_OTHER_REPOS of them
# and the event's own budget, an answer stays within MAX_EVENT_CHARS.
BUDGET_ELSEWHERE = 300


def _named(where: Location, cwd: str, text: str) -> str:
    """``text`` under a line naming ``where``, unless the agent works inside it."""
    if _holds(where, cwd):
        return text
    rel = os.path.relpath(where.root, cwd)
    shown = where.root if rel.startswith(os.pardir + os.sep + os.pardir) else rel
    return (
        f"In the repository at {shown} (the globs and record files below are relative "
        f"to it):\n{text}"
    )


def probe(payload: dict[str, Any], raw_paths: list[str]) -> dict[str, Any]:
    """``payload`` as a tool call that touches ``raw_paths`` (a prompt's, as written; only
    those on disk count), for other_repos and the path-map lookups."""
    return {**payload, "tool_name": "", "tool_input": None, _TOUCHED: (raw_paths, True)}


def answers_elsewhere(
    home: Location | None, payload: dict[str, Any], raw_paths: list[str]
) -> list[str]:
    """What the repositories besides ``home`` that hold ``raw_paths`` (named by a prompt)
    say of them, each named and remembered in its own session state."""
    if not raw_paths:
        return []
    look = probe(payload, raw_paths)
    cwd = _cwd(payload)
    out: list[str] = []
    told: list[str] = []
    for other in other_repos(home, look):
        text = unpack(_pre_tool(other, look, False, BUDGET_ELSEWHERE))[1]
        if text:
            out.append(_named(other, cwd, text))
            told.append(other.shared_state_dir)
    _remember(home, payload, told)
    return out


def _mark_shell(loc: Location, payload: dict[str, Any], end: bool) -> None:
    """A shell call's start or end, for the files it writes that its words do not name
    (gitmem.agent.shelleffects), which the turn's end reads against the critical rules
    (since session 49 whether or not the session's prompts are captured). A call that
    returned while its command runs on in the background is marked so: Claude Code's
    answer carries ``backgroundTaskId`` (``run_in_background``, a command moved there at
    its timeout or by the user's Ctrl+B), Qwen Code's and Gemini CLI's calls ask
    ``is_background``."""
    if payload.get("tool_name") != toolpaths.SHELL_TOOL:
        return
    from gitmem.agent import shelleffects

    sid = str(payload.get("session_id") or "")
    command = "" if end else _command(payload) or ""
    shelleffects.mark(loc, sid, end, end and _backgrounded(payload), command)


def _backgrounded(payload: dict[str, Any]) -> bool:
    """Whether the shell call's command runs on after the call returned."""
    response, asked = payload.get("tool_response"), payload.get("tool_input")
    if isinstance(response, dict) and response.get("backgroundTaskId"):
        return True
    return isinstance(asked, dict) and asked.get("is_background") is True


def _holds(where: Location, path: str) -> bool:
    """Whether the folder ``path`` is in ``where``'s work tree (named in any case on a
    case-insensitive file system: ``gitmem.spelling``)."""
    root = where.root
    if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
        return True
    if not spelling_of(where.common_dir)[0]:
        return False
    from gitmem.spelling import under

    return under(path, root) is not None


def pre_tool(
    loc: Location, payload: dict[str, Any], *, rules_only: bool = False
) -> dict[str, Any] | None:
    """Before a tool call: a deny when an edit breaks a critical rule, else the decisions
    governing the touched paths, in every repository that holds them (other_repos). A
    tool that runs a subagent (SUBAGENT_TOOLS) opens its context window instead.
    ``rules_only``: the deny, or other rules' advisories, alone (for agents whose
    before-tool hook cannot add context: the runner holds them for the call's result or
    drops them, and the after-tool hook brings the decisions)."""
    payload[_BEFORE] = True  # the call has not run: what lists a sed's files may be run
    if _subagent(loc, payload, True):
        return None
    _mark_shell(loc, payload, end=False)
    return _each_repo(
        "pre-tool",
        loc,
        payload,
        lambda where, tokens: _pre_tool(where, payload, rules_only, tokens),
    )


def _pre_tool(
    loc: Location, payload: dict[str, Any], rules_only: bool, tokens: int | None = None
) -> dict[str, Any] | None:
    edit = toolpaths.is_edit(str(payload.get("tool_name") or ""), payload.get("tool_input"))
    pm = open_map(loc, current=edit)
    if pm is None:
        return None
    command = _command(payload)
    if (
        command is not None
        and payload.get("tool_name") == toolpaths.SHELL_TOOL
        and toolpaths.may_commit(command)
    ):
        from gitmem.agent import unhooked

        denied = unhooked.deny(loc, command, _cwd(payload))
        if denied is not None:
            return denied
    with _Reading(loc, pm):
        tool, paths = _touched(loc, payload, pm)
        if not paths:
            return None
        hits = governing(pm, paths, loc.root)
    if not hits:
        return None
    advisories: list[str] = []
    tool_input = payload.get("tool_input")
    ruled = any(d.has_rules for d, _, _ in hits)
    if ruled and toolpaths.is_edit(tool, tool_input):
        denied, advisories = _check_rules(loc, _changes(loc, payload, tool, paths))
        if denied is not None:
            return denied
    elif ruled and tool == toolpaths.SHELL_TOOL:
        written = _shell_changes(loc, payload, paths)
        denied, advisories = _check_rules(loc, written) if written else (None, [])
        if denied is not None:
            return denied
    if rules_only:
        return context("pre-tool", "\n".join(advisories))
    result = _inject_new(loc, payload, "pre-tool", hits, tokens or BUDGET_PRE_TOOL)
    if not advisories:
        return result
    text = "\n".join(advisories)
    if result is not None:
        text += "\n" + unpack(result)[1]
    return context("pre-tool", text)


def _changes(
    loc: Location, payload: dict[str, Any], tool: str, paths: list[str]
) -> list[tuple[str, str]]:
    """(repository path, the lines about to be added) for each of ``paths`` an edit
    writes (toolpaths.added_text: a Write's against the file as it is now)."""
    out: list[tuple[str, str]] = []
    roots = worktree_roots(loc.root, loc.common_dir)
    tool_input = payload.get("tool_input")
    writes = isinstance(tool_input, dict) and isinstance(tool_input.get("content"), str)
    for raw, text in toolpaths.changes(tool, tool_input):
        if raw is None:  # one file, the call's: every path is it
            for path in paths:
                now = _current(loc.root, path) if writes else None
                out.append((path, text if now is None else toolpaths.added_text(tool_input, now)))
            continue
        rel = relative(raw, loc.root, loc.common_dir, _cwd(payload), roots)
        if rel in paths:
            out.append((rel, text))
    return out


def _shell_changes(
    loc: Location, payload: dict[str, Any], paths: list[str]
) -> list[tuple[str, str]]:
    """(repository path, the lines it gains) for each `cat` or `tee` heredoc, or `echo`
    or `printf` of one quoted argument, of a shell command into one of ``paths``
    (toolpaths.heredoc_writes, toolpaths.echo_writes): read as a Write of its text (an
    append: all of it), so a critical rule denies it before it runs; and likewise for
    each file a diff it applies (``_diffs``), a `cp` or `mv` (``_copies``), a `sed -i`
    (``_sed_text``) or a `perl -pi` (``_perl_text``) changes, their files listed by other
    commands too (``_listed``)."""
    command = _command(payload)
    if command is None:
        return []
    roots = worktree_roots(loc.root, loc.common_dir)
    out: list[tuple[str, str]] = []
    for raw, body, append in [*toolpaths.heredoc_writes(command), *toolpaths.echo_writes(command)]:
        rel = relative(raw, loc.root, loc.common_dir, _cwd(payload), roots)
        if rel is None or rel not in paths:
            continue
        now = None if append else _current(loc.root, rel)
        out.append((rel, toolpaths.added_text({"content": body}, now)))
    for raw, added in _diffs(payload):
        rel = relative(raw, loc.root, loc.common_dir, _cwd(payload), roots)
        if rel is not None and rel in paths:
            out.append((rel, added))
    for raw, source, append in _copies(payload):
        rel = relative(raw, loc.root, loc.common_dir, _cwd(payload), roots)
        text = read_regular(source, MAX_CURRENT_BYTES) if rel is not None and rel in paths else None
        if rel is not None and text is not None:
            now = None if append else _current(loc.root, rel)
            out.append((rel, toolpaths.added_text({"content": text}, now)))
    cwd = _cwd(payload)
    listed = _listed(payload)
    sed = toolpaths.may_sed_in_place(command)
    perl = toolpaths.may_perl_in_place(command)
    if not (sed or perl or listed):
        return out
    from gitmem.agent import shelledits

    seds = [*(shelledits.sed_edits(command) if sed else []),
            *((f, a, n) for f, e, a, n in listed if e == "sed")]  # fmt: skip
    out += _edit_runs(loc, seds, cwd, paths, roots, _sed_text(cwd))
    perls = [*(shelledits.perl_edits(command) if perl else []),
             *((f, a, n) for f, e, a, n in listed if e == "perl")]  # fmt: skip
    return out + _edit_runs(loc, perls, cwd, paths, roots, _perl_text)


# How long the before-tool check lets `sed --sandbox` run a command's `sed -i` on a copy
# (a script that loops is cut off; the after-tool check still reads what it did).
SED_TIMEOUT_S = 2.0


def _sed_text(cwd: str) -> Callable[[str, list[str], str], str | None]:
    """For ``_edit_runs``: a file's text after a `sed -i` (shelledits.sed_edits), found by
    running that sed on a copy: ``--sandbox`` (GNU sed) runs no command and reads or
    writes no file; where it is missing (BSD sed) or the script fails, None. Before
    session 42 a critical rule met `sed -i` only once it had written the file."""

    def run(folder: str, args: list[str], text: str) -> str | None:
        import subprocess

        try:
            proc = subprocess.run(
                ["sed", "--sandbox", *args],
                input=text.encode("utf-8"),
                capture_output=True,
                cwd=os.path.join(cwd, folder),
                timeout=SED_TIMEOUT_S,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        if proc.returncode != 0:
            return None  # an error, or a sed with no sandbox
        return proc.stdout.decode("utf-8", "replace")

    return run


def _perl_text(folder: str, args: list[str], text: str) -> str | None:
    """For ``_edit_runs``: a file's text after a `perl -pi -e 's/…/…/'`
    (shelledits.perl_edits). Perl cannot be run on a copy safely (its script is code), so
    its substitutions are done with `re` (gitmem.agent.perlsub); None for a script that
    is more than substitutions perlsub reads as perl does (before session 44, every one
    was read only after it ran)."""
    from gitmem.agent import perlsub

    script, ends, *more = args
    subs = perlsub.substitutions(script)
    if subs is None:
        return None
    record_end = {"lines": "\n", "nul": "\0"}.get(ends)
    return perlsub.apply(subs, text, ends=record_end, chomp="chomp" in more)


def _edit_runs(
    loc: Location,
    edits: list[tuple[str, list[str], list[str]]],
    cwd: str,
    paths: list[str],
    roots: list[str],
    run: Callable[[str, list[str], str], str | None],
) -> list[tuple[str, str]]:
    """(repository path, the lines it gains) for each file of ``paths`` that one of
    ``edits`` (its folder, its arguments, its files from that folder) changes in place,
    ``run`` giving a file's text after it (None: not known, and then nothing is read
    before the command runs). Several edits of one file run in turn."""
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for folder, args, files in edits:
        for word in files:
            rel = relative(os.path.join(folder, word), loc.root, loc.common_dir, cwd, roots)
            if rel is None or rel not in paths:
                continue
            text = after.get(rel)
            if text is None:
                text = _current(loc.root, rel)
                if text is None:
                    continue
                before[rel] = text
            changed = run(folder, args, text)
            if changed is None:
                return []
            after[rel] = changed
    return [(rel, toolpaths.added_text({"content": after[rel]}, before[rel])) for rel in after]


# A file larger than this is not read to tell a Write's new lines from those it keeps:
# all of its lines are read against the rules then.
MAX_CURRENT_BYTES = 4 << 20


def _current(root: str, path: str) -> str | None:
    """The text of ``path`` in the work tree now; None where it is missing, too large or
    unreadable (a Write's every line is then read against the rules)."""
    return read_regular(os.path.join(root, path), MAX_CURRENT_BYTES)


def _check_rules(
    loc: Location, changes: list[tuple[str, str]]
) -> tuple[dict[str, Any] | None, list[str]]:
    """The governing decisions' rules over the text about to be written (SQLite table and
    RE2: loaded only for an edit that meets a decision with rules)."""
    from gitmem.agent import claude
    from gitmem.agent.prompt import open_table

    table = open_table(loc)
    if table is None:
        return None, []
    try:
        return claude.check_rules(changes, table, loc.root)
    finally:
        table.close()


def post_tool(
    loc: Location, payload: dict[str, Any], *, every_touch: bool = False
) -> dict[str, Any] | None:
    """After a tool call: record what was read or edited, and bring the decisions an
    edit's paths meet that were not shown yet. ``every_touch``: a read's too, within the
    pre-tool budget, after what was held for this moment (a rule's advisory from before
    the call, Cursor's prompt context): for Gemini CLI and Cursor, whose before-tool hooks
    cannot add context."""
    if _subagent(loc, payload, False):
        return None
    _mark_shell(loc, payload, end=True)
    result = _each_repo(
        "post-tool",
        loc,
        payload,
        lambda where, tokens: _after_tool(where, payload, every_touch, tokens),
    )
    if not every_touch:
        return result
    held = state.release(loc.shared_state_dir, str(payload.get("session_id") or ""))
    if not held:
        return result
    own = unpack(result)[1]
    return context("post-tool", held + ("\n\n" + own if own else ""))


def tool_failed(loc: Location, payload: dict[str, Any]) -> dict[str, Any] | None:
    """After a tool call that failed or was interrupted (Claude Code's and Qwen Code's
    PostToolUseFailure, sent instead of PostToolUse): a shell command's end, for the files
    it wrote before it failed (a generator stopped by an error, a test run's report, a
    command the user interrupted: ``is_interrupt``). Nothing else: a failed edit edited
    nothing, and a failed read brought nothing to show."""
    _mark_shell(loc, payload, end=True)
    return None


def _after_tool(
    loc: Location, payload: dict[str, Any], every_touch: bool, tokens: int | None = None
) -> dict[str, Any] | None:
    pm = open_map(loc)
    if pm is None:
        return None
    with _Reading(loc, pm):
        tool, paths = _touched(loc, payload, pm)
        if not paths:
            return None
        touched = paths
        edited = toolpaths.is_edit(tool, payload.get("tool_input"))
        read = [] if edited else paths
        if not edited and tool == toolpaths.SHELL_TOOL:  # `sed -i`, `>`, `rm`, `git mv`
            written = _shell_written(loc, payload, pm)
            read = [p for p in paths if p not in written]
            paths, edited = (written, True) if written else (paths, False)
        # a shell command's writes to files a rule governs: read against the rules below
        ruled = _ruled(pm, paths, loc.root) if edited and tool == toolpaths.SHELL_TOOL else []
        base: dict[str, str | None] | None = None
        stashed: tuple[str, ...] = ()
        told_user = ""  # a systemMessage, for what the user must know of the edit
        sid = str(payload.get("session_id") or "")
        with state.open_session(loc.shared_state_dir, sid) as session:
            if edited:  # in which work tree: a commit names the sessions that edited it
                state.append_edited(session, paths, tool, loc.root)
            if read:
                session.append("read", paths=read, tool=tool)
            if ruled:  # the files as the turn found them, where noted, and the stash
                from gitmem.agent import shelleffects

                turn = shelleffects.turn(session)
                base, stashed = turn.base, turn.stashed
        note = _command_broke_a_rule(loc, ruled, base, stashed) if ruled else ""
        if edited and _records_among(pm, paths, folders=True):
            # an edit in place leaves the folders' mtimes alone, so the next hook would
            # take the map for fresh (see _fresh): refresh it now, without waiting
            refresh_in_background(loc.root)
            from gitmem.agent import recordnotes

            said = recordnotes.record_note(loc, paths, _watched(pm))
            note = "\n\n".join(filter(None, (note, said)))
            loosened = [  # each said once a session, until what it says changes
                f
                for f in recordnotes.loosened(loc, paths)
                if state.claim(
                    loc.shared_state_dir,
                    sid,
                    "loosened-" + state.fingerprint(f.sentence().encode()),
                )
            ]
            if loosened:
                note = "\n\n".join(filter(None, (note, recordnotes.loosened_note(loosened))))
                told_user = recordnotes.loosened_message(loosened)
        words, from_shell = _raw_touched(payload)
        if from_shell:  # a shell command: it may have moved code away
            from gitmem.agent import gonenotes

            moved = [*touched, *gonenotes.renamed_by_case(loc, words, _cwd(payload))]
            note = "\n\n".join(filter(None, (note, gonenotes.gone_note(loc, pm, moved, sid))))
        if not edited and not every_touch:
            return context("post-tool", note)  # a read brings nothing more
        hits = governing(pm, touched if every_touch else paths, loc.root)
    tokens = tokens or (BUDGET_PRE_TOOL if every_touch else BUDGET_POST_TOOL)
    found = _inject_new(loc, payload, "post-tool", hits, tokens) if hits else None
    if not note:
        return found
    shown = unpack(found)[1]
    out = context("post-tool", note + ("\n\n" + shown if shown else ""))
    return {**out, "systemMessage": told_user} if out is not None and told_user else out


def _ruled(pm: pathmap.PathMap, paths: list[str], root: str) -> list[str]:
    """Those of ``paths`` a current decision with rules governs."""
    return [p for p in paths if any(d.has_rules for d, _, _ in governing(pm, [p], root))]


def _command_broke_a_rule(
    loc: Location,
    ruled: list[str],
    base: dict[str, str | None] | None,
    stashed: tuple[str, ...] = (),
) -> str:
    """Where a shell command wrote files its words name (``sed -i``, ``>>``, ``tee``)
    that a decision with rules governs (``ruled``): what it added to them (against
    ``base``, the files as the turn found them), read against those rules, as the stop
    hook reads what a script wrote (gitmem.agent.claude.rules_broken; ``stashed``: the
    stash entries the user made, whose lines are not the command's). Said to the agent
    at once: the edit is made, and no before-tool check could read it. Before session 41
    nothing but the commit-time check did."""
    from gitmem.agent import claude

    said, advisories = claude.rules_broken(loc, ruled, base, "The command just run", stashed)
    return said or "\n".join(advisories)


def _shell_written(loc: Location, payload: dict[str, Any], pm: pathmap.PathMap) -> list[str]:
    """The repository paths a shell command wrote, as its words say
    (``toolpaths.bash_writes``) and the diffs it applies (``_diffs``): what `gitmem why`,
    `sessions --edited` and the commit's session trailer count as the session's edits."""
    command = _command(payload)
    writes = toolpaths.bash_writes(command) if command is not None else []
    writes += [path for path, _ in _diffs(payload) if path not in writes]
    return repo_paths(loc, writes, _cwd(payload), True, pm) if writes else []
