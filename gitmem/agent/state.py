"""Per-session state: which decisions were shown, which paths were read and edited.

One append-only JSON-lines file per session under ``<git-common-dir>/gitmem/sessions/``
(and beside it a copy of the lines the tool-call hooks read: ``view_file``), written under
an exclusive ``flock`` so that parallel hooks of one session and concurrent
sessions never lose or duplicate an entry. Runs in every tool-call hook, so it imports
only built-in modules (no ``json``, ``re``, ``pathlib`` or ``typing``; see gitmem.leanjson).
"""

from __future__ import annotations

import os
import time

from gitmem import leanjson
from gitmem.locked import LockedFile, append_line

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import IO, Any

# How long after its last hook a session's file is read for what it edited: by the commit
# trailers (a day covers edits committed by the agent itself or by hand after it; older
# sessions are not guessed: gitmem.githooks) and for edits no record lists yet
# (gitmem.sessionlog.with_unrecorded).
RECENT_S = 24 * 3600

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


class SessionView:
    """What a session has seen so far."""

    __slots__ = (
        "all_shown",
        "closed",
        "edited",
        "elsewhere",
        "held",
        "read",
        "reset_at",
        "shown",
        "subagent",
    )

    def __init__(
        self,
        shown: set[str],
        read: list[str],
        edited: list[str],
        closed: bool,
        held: list[str] | None = None,
        reset_at: int = 0,
        all_shown: set[str] | None = None,
        subagent: str = "",
        elsewhere: list[str] | None = None,
    ) -> None:
        self.shown = shown  # in the context window asked about (the main agent's, or one
        # subagent's: gitmem.agent.state.context_of)
        self.all_shown = shown if all_shown is None else all_shown  # in any of them
        self.read = read
        self.edited = edited
        self.closed = closed
        self.held = held or []  # contexts waiting for the next tool result (runner.HELD)
        self.reset_at = reset_at  # the transcript's size at the last reset (Gemini CLI)
        # the context window of the subagent running now, where the agent's payloads do not
        # say (Gemini CLI: between its invoke_agent tool's before and after hooks), else ""
        self.subagent = subagent
        # the state folders of the other repositories that showed this session decisions
        # (a submodule's, a sibling clone's: gitmem.agent.tooluse), where a reset or the
        # session's end is written too (echo)
        self.elsewhere = elsewhere or []


def sessions_dir(shared_dir: str | os.PathLike[str]) -> str:
    """The session files' folder under ``shared_state_dir``."""
    return os.path.join(os.fspath(shared_dir), "sessions")


def session_file(shared_dir: str | os.PathLike[str], session_id: str) -> str:
    name = "".join(c if c in _SAFE else "_" for c in (session_id or "unknown"))[:120]
    return os.path.join(sessions_dir(shared_dir), f"{name or 'unknown'}.jsonl")


def view_file(path: str) -> str:
    """The session's view file beside its state file ``path`` (``<id>.view``: not
    ``.jsonl``, which every lister of sessions reads as a session): the lines of the kinds
    the tool-call hooks read (``_VIEW_KINDS``), a copy kept so that they need not read the
    whole state file. Since session 50: a session of 3,000 tool calls (~0.5 MB, mostly its
    deliveries, reads and edits) cost each hook +3.5 ms to parse, growing with every call.
    Written with the state file, under its lock (``Session.append``); made from the state
    file where it is missing. A line an older gitmem appends (two installs running one
    session's hooks) reaches only the state file: at worst a decision is shown again."""
    return (path[: -len(".jsonl")] if path.endswith(".jsonl") else path) + ".view"


def context_of(payload: dict[str, object]) -> str:
    """The context window a hook event belongs to: "" for the main agent, the subagent's
    ``agent_id`` for a subagent's tool calls (Claude Code sends it; a subagent starts with
    none of what the main agent was shown, so what it is shown is counted apart)."""
    agent = payload.get("agent_id")
    return agent if isinstance(agent, str) else ""


# What _parse reads, by kind; every other line ("got": the deliveries seen, "stop",
# "noted", the claims) is skipped without parsing. A long session's file is mostly "got",
# "read" and "edited" lines, and every hook reads the view: only the session's end needs
# the paths (``paths``), so the others skip those too.
_VIEW_KINDS = frozenset(
    ("shown", "reset", "rewound", "closed", "held", "released", "elsewhere", "subagent")
)
_PATH_KINDS = frozenset(("read", "edited"))
_EDITED = frozenset(("edited",))


_HEAD = '{"k":"'  # how Session.append's lines begin (leanjson, keys in order)


def items(lines: list[str], kinds: frozenset[str]) -> Iterator[dict[str, Any]]:
    """The entries of these ``kinds``, in order. A line whose kind begins otherwise is
    skipped unparsed (a slice and a set lookup: ~0.2 µs where parsing takes ~2 µs); the
    rest are parsed, and their kind checked. Torn lines (a crash) are skipped."""
    starts = frozenset(kind[:3] for kind in kinds)
    for line in lines:
        if line[6:9] not in starts and line[:6] == _HEAD:
            continue
        try:
            item = leanjson.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and item.get("k") in kinds:
            yield item


def _parse(lines: list[str], context: str | None = "", paths: bool = True) -> SessionView:
    wanted = _VIEW_KINDS | _PATH_KINDS if paths else _VIEW_KINDS
    # context window -> decisions shown there, each with when it was first shown
    by_window: dict[str, dict[str, float]] = {}
    digest: set[str] = set()  # what the session-start digest showed (the main window's)
    all_shown: set[str] = set()  # ever, a reset or a rewind notwithstanding
    read: list[str] = []
    edited: list[str] = []
    closed = False
    held: list[str] = []
    reset_at = 0
    started = running = 0  # subagents started, and running now (see SessionView.subagent)
    elsewhere: list[str] = []
    for item in items(lines, wanted):
        kind = item["k"]
        if kind == "shown":
            window = by_window.setdefault(str(item.get("a") or ""), {})
            when = item.get("t")
            for i in item.get("ids", []):
                window.setdefault(str(i), when if isinstance(when, (int, float)) else 0.0)
                all_shown.add(str(i))
            # the decisions whose latest showing was the digest's
            if str(item.get("event") or "").startswith("session-start"):
                digest.update(str(i) for i in item.get("ids", []))
            else:
                digest.difference_update(str(i) for i in item.get("ids", []))
        elif kind == "rewound":  # the session went back (gitmem.agent.rewind)
            since = item.get("since")
            # the session-start digest stayed (True) or went (False) whatever its time
            kept = digest if item.get("digest") is True else set()
            # what the conversation the session went back to holds, whatever its time
            kept = kept | {str(i) for i in item.get("kept") or ()}
            cut = digest if item.get("digest") is False else set()
            # (shown after ``until``, if given, it came after the cut: kept)
            until = item.get("until")
            end = until if isinstance(until, (int, float)) else float("inf")
            if isinstance(since, (int, float)):
                for window in by_window.values():
                    for i, when in list(window.items()):
                        if (since < when <= end or i in cut) and i not in kept:
                            del window[i]
        elif kind == "reset":
            by_window.clear()
            digest.clear()
            at = item.get("at")
            reset_at = at if isinstance(at, int) else reset_at
        elif kind == "read":
            read.extend(str(p) for p in item.get("paths", []))
        elif kind == "edited":
            edited.extend(str(p) for p in item.get("paths", []))
        elif kind == "closed":
            closed = True
        elif kind == "held":
            held.append(str(item.get("text") or ""))
        elif kind == "released":
            held.clear()
        elif kind == "elsewhere":
            elsewhere.extend(str(d) for d in item.get("dirs", []) if str(d) not in elsewhere)
        elif kind == "subagent":
            if item.get("on"):
                started, running = started + 1, running + 1
            else:
                running = max(0, running - 1)
    subagent = f"subagent-{started}" if running else ""
    shown = set(by_window.get(subagent if context is None else context, {}))
    return SessionView(
        shown, read, edited, closed, [t for t in held if t], reset_at, all_shown, subagent,
        elsewhere,
    )  # fmt: skip


# Why this process could not write session state (the disk full, the git directory
# read-only), once per reason: the runner reports it (gitmem.agent.runner).
UNRECORDED: list[str] = []


def _unrecorded(exc: OSError) -> None:
    reason = f"{type(exc).__name__}: {exc.strerror or exc}"
    if reason not in UNRECORDED:
        UNRECORDED.append(reason)


class Session:
    """An open, locked session file: read the view, then append. A context manager.

    Where the file cannot be written (the disk full, the git directory read-only), the
    session is read as it is and appends record nothing (``append`` says so, UNRECORDED
    says why): the hooks still deliver what they found, only without remembering it, so a
    decision may be shown again. Losing the decisions for want of a few bytes of
    bookkeeping would cost the agent more (fail open)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock: LockedFile | None = LockedFile(path)  # None: read-only (see above)
        self._fh: IO[str] | None = None
        self._open = False

    def __enter__(self) -> Session:
        try:
            if self._lock is not None:
                self._fh = self._lock.__enter__()
        except OSError as exc:
            _unrecorded(exc)
            self._lock = None
            try:
                self._fh = open(
                    self.path, encoding="utf-8", errors="replace"
                )  # read what is there, if any
            except OSError:
                self._fh = None
        self._open = True
        return self

    def __exit__(self, *exc: object) -> None:
        fh, self._fh, self._open = self._fh, None, False
        if self._lock is not None:
            self._lock.__exit__(*exc)
        elif fh is not None:
            fh.close()

    def _file(self) -> IO[str] | None:
        if not self._open:
            raise RuntimeError(f"session file {self.path} is not open")
        return self._fh

    def view(self, context: str | None = "", paths: bool = False) -> SessionView:
        """What the session has seen; ``shown``: in the main agent's context window, in
        that of the subagent ``context`` names, or (None) in the one the session is in
        now: an unnamed subagent's while one runs (SessionView.subagent), else the main
        agent's. The paths read and edited only with ``paths`` (the session's end), which
        reads the whole state file; without them, the view file (``view_file``)."""
        if paths:
            return _parse(self.text().splitlines(), context, paths)
        return _parse(self._view_lines(), context, paths)

    def _view_lines(self) -> list[str]:
        """The view file's lines: made from the state file where there is none yet (a new
        session, or one begun before session 50)."""
        try:
            with open(view_file(self.path), encoding="utf-8", errors="replace") as fh:
                return fh.read().splitlines()
        except FileNotFoundError:
            return self._seed()
        except OSError:
            return self.text().splitlines()

    def _seed(self) -> list[str]:
        """Write the view file afresh from the state file's lines of the view's kinds (under
        the state file's lock; written aside and renamed, so that a reader never sees it
        half written); those lines. Where it cannot be written, the next call tries again."""
        lines = [leanjson.dumps(item) for item in items(self.text().splitlines(), _VIEW_KINDS)]
        if self._lock is not None:
            target = view_file(self.path)
            tmp = f"{target}.{os.getpid()}.tmp"
            try:
                with open(tmp, "w", encoding="utf-8") as fh:
                    fh.write("".join(line + "\n" for line in lines))
                os.replace(tmp, target)
            except OSError:
                _forget(tmp)
        return lines

    def _copy_to_view(self, line: str) -> None:
        """Append the view kind's ``line``, just appended to the state file, to the view
        file; where there is none yet, make it (from the state file, which holds the line
        now). Where the append fails, the view file is removed, to be made again whole."""
        target = view_file(self.path)
        try:
            fd = os.open(target, os.O_WRONLY | os.O_APPEND)
        except FileNotFoundError:
            self._seed()
            return
        except OSError:
            _forget(target)
            return
        try:
            data = (line + "\n").encode("utf-8")
            if os.write(fd, data) != len(data):
                raise OSError("short write")
        except OSError:
            _forget(target)
        finally:
            os.close(fd)

    def text(self, tail: int = 0) -> str:
        """The file's lines as they are, or only its last ``tail`` bytes (records are
        ASCII: gitmem.leanjson; the first line may then be cut)."""
        fh = self._file()
        if fh is None:
            return ""
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - tail) if tail else 0)
        return fh.read()

    def append(self, kind: str, **data: object) -> bool:
        """Record ``kind``; False if it could not be written (see the class)."""
        fh = self._file()
        if fh is None or self._lock is None:
            return False
        line = leanjson.dumps({"k": kind, "t": round(time.time(), 3), **data})
        try:
            append_line(fh, line)
        except OSError as exc:
            _unrecorded(exc)
            return False
        if kind in _VIEW_KINDS:
            self._copy_to_view(line)
        return True


def _forget(path: str) -> None:
    try:  # noqa: SIM105 (contextlib costs a fresh interpreter ~1 ms)
        os.unlink(path)
    except OSError:
        pass


def open_session(shared_dir: str | os.PathLike[str], session_id: str) -> Session:
    """``with open_session(dir, sid) as session:`` locks the session's file."""
    return Session(session_file(shared_dir, session_id))


def remember_elsewhere(
    shared_dir: str | os.PathLike[str], session_id: str, dirs: list[str]
) -> None:
    """Note in the session's own file that the repositories whose state folders are
    ``dirs`` showed it decisions (each once)."""
    with open_session(shared_dir, session_id) as session:
        known = session.view().elsewhere
        new = [d for d in dict.fromkeys(dirs) if d not in known]
        if new:
            session.append("elsewhere", dirs=new)


def echo(dirs: list[str], session_id: str, kind: str, **data: object) -> None:
    """Record ``kind`` (a reset: compaction took what the hooks added out of the agent's
    window; the session's end) in this session's file in each of the state folders
    ``dirs``, where there is one: another repository's memory of what it showed the
    session must forget with the session's own."""
    for shared in dict.fromkeys(dirs):
        if os.path.exists(session_file(shared, session_id)):
            with open_session(shared, session_id) as session:
                session.append(kind, **data)


def append_edited(session: Session, paths: list[str], tool: str, root: str) -> None:
    """Note that the session edited ``paths`` in the work tree at ``root``: its path, and
    the folder it is (``tree``, since session 63), which the same work tree seen at another
    path shares (see ``_of_tree``)."""
    from gitmem.location import tree_of

    session.append("edited", paths=paths, tool=tool, root=root, tree=tree_of(root))


def _of_tree(item: dict[str, Any], root: str, tree: str | None) -> bool:
    """Whether an ``edited`` line is of the work tree at ``root`` (``tree``: its
    ``location.tree_of``). Every worktree of a repository shares the session files; an
    edit recorded before the work tree was (before session 33) counts for any. The
    folder decides where the path does not: a dev container edits the host's checkout at
    its own path, and before session 63 a commit on the host did not name the session."""
    said = item.get("root", root)
    return said == root or (tree is not None and item.get("tree") == tree)


def edited_in(shared_dir: str | os.PathLike[str], session_id: str, root: str) -> set[str]:
    """The paths the session edited in the work tree at ``root`` (see ``_of_tree``)."""
    from gitmem.location import tree_of

    tree = tree_of(root)
    found: set[str] = set()
    for item in items(_lines(shared_dir, session_id), _EDITED):
        if _of_tree(item, root, tree):
            found.update(str(p) for p in item.get("paths", []))
    return found


NOTED = "noted"  # the session's edits so far went into a captured record (their count)
ASKED = "asked"  # a captured prompt of the user's came: a turn began (since session 38)


def unnoted_edits(session: Session) -> list[str]:
    """Every path the session edited, sorted, if it edited one since the edits were last
    noted (``NOTED``); else none. Edits only add paths, so a count tells."""
    edited: set[str] = set()
    noted = 0
    for item in items(session.text().splitlines(), _EDITED | {NOTED}):
        if item["k"] == "edited":
            edited.update(str(p) for p in item.get("paths", []))
        elif isinstance(item.get("n"), int):
            noted = item["n"]
    return sorted(edited) if len(edited) > noted else []


# The lines after which every edit so far is in a captured record: the stop hook's or the
# flusher's note of a turn (NOTED), and the session's end (its closing record lists them).
_RECORDED_HEADS = tuple(f'\n{_HEAD}{kind}"'.encode() for kind in (NOTED, "closed"))


def _recorded_up_to(data: bytes) -> int:
    """Where the last such line of a session file's bytes starts; 0 if none (or only the
    first line: nothing comes before it). Found from the end, without parsing."""
    return max(data.rfind(head) for head in _RECORDED_HEADS) + 1


def unrecorded_edits(shared_dir: str | os.PathLike[str], session_id: str, root: str) -> list[str]:
    """The paths the session edited in the work tree at ``root`` that no captured record
    lists yet, sorted: first edited since its edits were last noted or its end. The edits
    of the turn in progress, or of one that never ended (gitmem.unfinished notes those
    later). The last note is found in the file's bytes; only the lines after it are
    parsed, and those before it only when the lines after it hold an edit."""
    try:
        with open(session_file(shared_dir, session_id), "rb") as fh:
            data = fh.read()
    except OSError:
        return []
    from gitmem.location import tree_of

    mark = _recorded_up_to(data)
    since: set[str] = set()
    tree = tree_of(root)
    for item in items(data[mark:].decode("utf-8", "replace").splitlines(), _EDITED):
        if _of_tree(item, root, tree):
            since.update(str(p) for p in item.get("paths", []))
    if since:  # less what an earlier turn's record lists already
        before = data[:mark].decode("utf-8", "replace").splitlines()
        since.difference_update(
            str(p) for item in items(before, _EDITED) for p in item.get("paths", [])
        )
    return sorted(since)


def since_noted(text: str) -> list[dict[str, Any]]:
    """Every entry of a session file's ``text`` after its edits were last noted or its
    end (the turn in progress), in order."""
    data = text.encode()
    mark = _recorded_up_to(data)
    out: list[dict[str, Any]] = []
    for line in data[mark:].decode().splitlines():
        try:
            item = leanjson.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def edit_roots(session: Session) -> list[str]:
    """The work trees the session's edits were recorded in, in order (since session 33)."""
    return [
        str(item["root"])
        for item in items(session.text().splitlines(), _EDITED)
        if isinstance(item.get("root"), str)
    ]


def _lines(shared_dir: str | os.PathLike[str], session_id: str) -> list[str]:
    """The session file's lines; none where it cannot be read."""
    try:
        with open(session_file(shared_dir, session_id), encoding="utf-8", errors="replace") as fh:
            return fh.read().splitlines()
    except OSError:
        return []


def read_view(
    shared_dir: str | os.PathLike[str], session_id: str, context: str = "", paths: bool = True
) -> SessionView:
    """The view, read without the lock: without ``paths``, from the view file where there
    is one (see ``view_file``)."""
    if not paths:
        try:
            with open(
                view_file(session_file(shared_dir, session_id)), encoding="utf-8", errors="replace"
            ) as fh:
                return _parse(fh.read().splitlines(), context, paths)
        except OSError:
            pass
    return _parse(_lines(shared_dir, session_id), context, paths)


def claim(shared_dir: str | os.PathLike[str], session_id: str, kind: str) -> bool:
    """Whether this call is the first of the session to claim ``kind`` (then recorded):
    of parallel hooks, exactly one is; none, where the session cannot be written."""
    marker = '"k":"' + kind + '"'
    try:
        with open(session_file(shared_dir, session_id), encoding="utf-8", errors="replace") as fh:
            if marker in fh.read():
                return False  # the common case: no lock taken
    except OSError:
        pass
    with open_session(shared_dir, session_id) as session:
        # unrecorded, it is not claimed: else every later call would claim it again
        return marker not in session.text() and session.append(kind)


# A hook event delivered again within this many seconds, byte for byte, is the same event
# (first_delivery); the agents concerned stamp each event (a turn id, a time in ms), so a
# later event of their session never reads the same (Claude Code, which does not stamp
# its prompts, gets a shorter window: gitmem.agent.runner.DELIVERED_TWICE).
REDELIVERY_S = 30.0
_TAIL_BYTES = 16384  # the records of the last few seconds, at any pace of hooks
_MERSENNE_61 = (1 << 61) - 1
_SMALL = 65536


def fingerprint(data: bytes) -> str:
    """A short digest of ``data`` for telling two hook payloads apart (not for security):
    the bytes as one integer modulo a Mersenne prime, in C with no import (~7 us for 2 KB,
    ~0.23 ms for 64 KB, measured), or past 64 KB zlib's CRC-32 (importing zlib costs
    ~0.3 ms, which a tool-call hook would otherwise pay on every call). With the length."""
    if len(data) <= _SMALL:
        return f"{int.from_bytes(data, 'little') % _MERSENNE_61:x}-{len(data)}"
    import zlib

    return f"c{zlib.crc32(data):08x}-{len(data)}"


def first_delivery(
    shared_dir: str | os.PathLike[str], session_id: str, key: str, within: float = REDELIVERY_S
) -> bool:
    """Whether this is the first delivery of the hook event ``key`` names (then recorded),
    or the same event again within ``within`` seconds: an agent that runs every scope's
    hooks runs gitmem twice per event when it is installed for the project and for the
    user, and Claude Code runs a plugin's hooks beside the settings'
    (gitmem.agent.runner.DELIVERED_TWICE). Of those parallel runs, exactly one is first."""
    marker = '"k":"got","t":'
    needle = '"h":"' + key + '"'
    with open_session(shared_dir, session_id) as session:
        now = time.time()
        for line in session.text(tail=_TAIL_BYTES).splitlines():
            if line.startswith("{" + marker) and needle in line:
                try:
                    seen = float(line[len(marker) + 1 :].partition(",")[0])
                except ValueError:
                    continue
                if now - seen < within:
                    return False
        session.append("got", h=key)
    return True


# What may wait for the session's next tool result, at most (newest kept): a prompt's
# context is at most ~3,200 characters (gitmem.agent.prompt.BUDGET_PROMPT).
HELD_CHARS = 5000


def hold(shared_dir: str | os.PathLike[str], session_id: str, text: str) -> None:
    """Keep ``text`` for the session's next tool result, where an agent's hook cannot add
    context (gitmem.agent.runner.HELD); gitmem.agent.tooluse.post_tool delivers it."""
    with open_session(shared_dir, session_id) as session:
        session.append("held", text=text)


def release(shared_dir: str | os.PathLike[str], session_id: str) -> str:
    """What was held for the session, now marked delivered: the newest texts that fit in
    ``HELD_CHARS`` (several prompts may pass without a tool call), oldest first."""
    if not read_view(shared_dir, session_id, paths=False).held:
        return ""  # the common case: no lock taken
    with open_session(shared_dir, session_id) as session:
        held = session.view().held
        if held:
            session.append("released")
    kept: list[str] = []
    for text in reversed(held):
        if kept and sum(map(len, kept)) + len(text) > HELD_CHARS:
            break
        kept.insert(0, text)
    return "\n\n".join(kept)
