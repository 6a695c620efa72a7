"""Claude Code's rewind: what the hooks showed the agent after the point it went back to is
gone from its context.

gitmem shows each decision once per session (gitmem.agent.state). Claude Code can take a
session back to an earlier message: `/rewind` (Esc Esc) restores the conversation to
before a prompt, `claude -p --resume ID --resume-session-at MESSAGE` goes on from a
message, and the Agent SDK does both. The session keeps its id, so before session 45
gitmem went on taking the decisions it had shown after that point for shown, and the
agent, its context cut back, never saw them again (run for real: Claude Code 2.1.332
read the API file again after `--resume-session-at` and got nothing).

No hook says that a session went back. Its transcript does (``transcript_path``, JSON
lines, each message with a ``uuid`` and its ``parentUuid``; seen in 2.1.332): a user's
prompt follows the conversation's latest message, and after a rewind it follows an
earlier one, with the messages that were cut between them. So each hook of a Claude Code
session that may show decisions (prompt, before and after a tool, the turn's end) reads
what the transcript gained since the session's last look (a few hundred bytes to a tool
result's size; only the user's prompts are parsed), and where a prompt's parent is
followed by messages of the conversation before the prompt (a user's or the model's, not
a subagent's), notes it in the session's state (``rewound``: the time of the parent); the
decisions shown after that time count as not shown (gitmem.agent.state). Claude Code
writes the prompt after the prompt hook ran (seen in 2.1.332): so the rewind is noted by
the next hook, the first tool call's of that turn, or its end; decisions the prompt alone
brings (no path of theirs touched) come again from the next prompt on.

Gemini CLI (`/rewind`, Esc Esc; seen in 0.61.0) and Qwen Code (its `/rewind`, Esc Esc;
seen in 0.24.4) go back too, and say so in their transcripts: Gemini appends
``{"$rewindTo": ID}`` (the prompt gone back to before) and then ``{"$set": {"messages":
[...]}}``, the conversation as it now is; Qwen Code appends a ``system`` record of subtype
``rewind`` whose ``parentUuid`` is the last record kept (null: none). Both write the
rewind before the next prompt, so its hook notes it and the prompt's own decisions come
at once. The time gone back to is that of the latest message kept (Gemini: the latest
``timestamp`` in the messages set; none kept, as when the first prompt was gone back
to, 0); Gemini's hooks ran before the message they added to was written (seen: the
prompt's hook 95 ms before the prompt), so what a hook showed after the latest kept
message is gone with what followed it. Qwen Code keeps the session-start digest in the
system prompt, which a rewind leaves as it is (seen: the digest in every request after
one), so its ``rewound`` line says the digest stays (``digest``). Gemini CLI's digest is a
message of the conversation, one Gemini CLI leaves out of the conversation it rebuilds at
every rewind (its isIgnoredUserContent: a user message that begins ``<hook_context>``;
seen: the requests after a rewind held neither the digest nor the session context), so
its ``rewound`` line says the digest went, whatever the time gone back to. (A prompt's
own context is a part after the prompt's text in the same message: kept with it.)

Codex (its backtrack; seen in 0.171.0) goes on in a new rollout file and sends
SessionStart ``resume`` naming it: see ``codex_session``. OpenCode (`/undo`; seen in
1.18.33) keeps no transcript file: gitmem's plugin follows its reverts and says when the
cut began: see ``plugin_revert``, which pi's `/tree` (1.6.0) reaches the same way through
gitmem's extension.

Where the transcript is missing, unreadable or of another shape, nothing is noted: the
session goes on as before (a decision may then stay unshown after a rewind, as before).
Going back too far the other way costs only tokens: a decision shown again.
"""

from __future__ import annotations

import os

from gitmem import leanjson
from gitmem.agent import state
from gitmem.agent.common import user_folder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, BinaryIO

    # (the transcript, its new whole lines, where they begin) -> the ``rewound`` line's
    # fields (``since``: the time gone back to; see gitmem.agent.state), or None
    Reader = Callable[[BinaryIO, bytes, int], "dict[str, Any] | None"]

REWOUND = "rewound"  # the session's state line: ``since``, the time gone back to
# the larger lines are tool results and file snapshots: no prompt of the user's is this long
MAX_PROMPT_LINE = 1 << 20


def check(shared_dir: str, payload: dict[str, Any], agent: str = "claude") -> bool:
    """Note in the session's state a rewind ``agent``'s transcript shows since the last
    look (see the module docstring); whether one was noted. The first look at a session's
    transcript only notes how long it is."""
    reader = READERS.get(agent)
    path = payload.get("transcript_path")
    sid = str(payload.get("session_id") or "")
    if reader is None or not isinstance(path, str) or not path or not sid:
        return False
    if payload.get("agent_id"):
        return False  # a subagent's call: its context is its own, and goes back with none
    try:
        size = os.stat(path).st_size
    except OSError:
        return False
    mark_file = _mark_file(shared_dir, sid, path)
    if _mark(mark_file) == size:
        return False  # nothing new: the session's lock is not taken
    cut: dict[str, Any] | None = None
    with state.open_session(shared_dir, sid) as session:
        offset = _mark(mark_file)  # again, under the lock: a parallel hook may have read on
        if offset == size:
            return False
        if offset is None and agent in READ_FROM_START and size <= FIRST_LOOK_MAX:
            offset = 0  # a file that begins with the conversation it goes on (a resume)
        if offset is None or offset > size:  # a first look, or another file: from here on
            if offset is None and agent == "claude" and size and not _seed(session, path):
                # no message in it yet: Claude Code 2.1.332 writes a fork's bookkeeping
                # lines (mode, tools-used, queue-operation) before its first hook and the
                # copied conversation after it; marked read here, the copy was never
                # seeded (seen in this session's CI run: the API decision twice in one
                # context). The next look is a first look again.
                return False
            _save(mark_file, size)
            return False
        try:
            with open(path, "rb") as fh:
                fh.seek(offset)
                data = fh.read(size - offset)
                end = data.rfind(b"\n") + 1  # whole lines only: the rest is read next time
                cut = reader(fh, data[:end], offset)
        except OSError:
            return False
        if cut is not None:
            _note(session, sid, cut)
        _save(mark_file, offset + end)
    return cut is not None


def _note(session: state.Session, sid: str, cut: dict[str, Any]) -> None:
    """The ``rewound`` line, in the session's state and where other repositories (a
    submodule's) showed this session decisions."""
    session.append(REWOUND, **cut)
    state.echo(session.view().elsewhere, sid, REWOUND, **cut)


def _mark_file(shared_dir: str, sid: str, path: str) -> str:
    """Where how far the transcript at ``path`` was read is kept: beside the session's
    state, one for each transcript the session's hooks name."""
    key = 0x811C9DC5  # FNV-1a, 32 bits: a name, not a secret (no zlib or hashlib import)
    for byte in path.encode("utf-8", "replace"):
        key = ((key ^ byte) * 0x01000193) & 0xFFFFFFFF
    name = state.session_file(shared_dir, sid)[: -len(".jsonl")]
    return f"{name}.{key:08x}.transcript"


def _mark(mark_file: str) -> int | None:
    """How far the session's transcript was read; None before the first look."""
    try:
        with open(mark_file, encoding="ascii") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None


def _save(mark_file: str, offset: int) -> None:
    tmp = f"{mark_file}.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(str(offset))
        os.replace(tmp, mark_file)
    except OSError:
        pass  # read again next time: a rewind is found then, or was already noted


def _claude_went_back(fh: BinaryIO, data: bytes, offset: int) -> dict[str, Any] | None:
    """Claude Code's: the ``rewound`` line, for a rewind in ``data``."""
    since = _went_back(fh, data, offset)
    return None if since is None else {"since": since}


def _went_back(fh: BinaryIO, data: bytes, offset: int) -> float | None:
    """Claude Code's: the time of the earliest message a rewind in ``data`` (the
    transcript's bytes from ``offset``, whole lines; ``fh`` the file) went back to; None
    where none did."""
    since: float | None = None
    at = 0
    while at < len(data):
        nl = data.find(b"\n", at)
        line, start, at = data[at:nl], at, nl + 1
        if len(line) > MAX_PROMPT_LINE or b'"type":"user"' not in line:
            continue
        item = _load(line)
        if item is None or not _prompt(item):
            continue
        parent = item.get("parentUuid")
        if parent is None:  # back to before the first message: is there one?
            if _messages_between(fh, 0, offset + start, own=False):
                since = 0.0
            continue  # (no earlier time than that)
        if not isinstance(parent, str):
            continue
        needle = f'"uuid":"{parent}"'.encode()
        found = data.rfind(needle, 0, start)
        where = offset + found if found >= 0 else _find_back(fh, needle, offset)
        when = _cut_after(fh, where + len(needle), offset + start) if where >= 0 else None
        if when is not None:
            since = when if since is None else min(since, when)
    return since


BLOCK = 1 << 16  # the transcript is read backwards from a prompt in blocks of this, growing


def _find_back(fh: BinaryIO, needle: bytes, end: int) -> int:
    """Where ``needle`` last occurs in the file before ``end``; -1 if nowhere."""
    size = BLOCK
    while end > 0:
        start = max(0, end - size)
        fh.seek(start)
        block = fh.read(end - start + len(needle) - 1)  # a needle across the boundary too
        found = block.rfind(needle)
        if found >= 0:
            return start + found
        end, size = start, size * 4
    return -1


def _cut_after(fh: BinaryIO, after: int, until: int) -> float | None:
    """The time of the message whose ``"uuid"`` ends at ``after`` where messages of the
    conversation follow its line before ``until`` (a prompt's position): those were cut
    from the conversation the prompt goes on; else None (it follows the latest message)."""
    fh.seek(after)
    head = fh.read(64)
    stamp = head[len(b',"timestamp":"') :].split(b'"', 1)[0]  # uuid, then timestamp: 2.1.332
    if not head.startswith(b',"timestamp":"') or not stamp:
        return None
    if not _messages_between(fh, after, until, own=True):
        return None
    return _epoch(stamp.decode("ascii", "replace"))


def _messages_between(fh: BinaryIO, after: int, until: int, *, own: bool) -> bool:
    """Whether a message of the conversation (a user's or the model's, not a subagent's)
    begins a line of the file between ``after`` and ``until``; ``own``: ``after`` is in
    a line that does not count (the message gone back to)."""
    at, rest = after, b""
    while at < until:
        fh.seek(at)
        block = fh.read(min(until - at, BLOCK * 4))
        if not block:
            break
        at += len(block)
        lines = (rest + block).split(b"\n")
        rest = lines.pop()  # a line that goes on in the next block
        if own:
            if not lines:
                rest = b""  # the message's own line, longer than a block: not needed
                continue
            lines, own = lines[1:], False
        for line in lines:
            message = b'"type":"user"' in line or b'"type":"assistant"' in line
            if message and line.startswith(b'{"parentUuid"') and b'"isSidechain":false' in line:
                return True
    return False


def _load(line: bytes) -> dict[str, Any] | None:
    try:
        item = leanjson.loads(line.decode("utf-8", "replace"))
    except ValueError:
        return None
    return item if isinstance(item, dict) else None


def _prompt(item: dict[str, Any]) -> bool:
    """A prompt of the user's in the main conversation (not a tool's result, a subagent's
    message, or one Claude Code adds itself)."""
    if item.get("type") != "user" or item.get("isSidechain") or item.get("isMeta"):
        return False
    message = item.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return True
    return isinstance(content, list) and not any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )


def _epoch(stamp: str) -> float | None:
    """Seconds since the epoch of an ISO 8601 UTC time as Claude Code writes it
    ("2026-11-27T23:48:36.355Z"), without importing datetime."""
    try:
        date, _, clock = stamp.rstrip("Z").partition("T")
        year, month, day = (int(p) for p in date.split("-"))
        hours, minutes, seconds = clock.split(":")
        secs = float(seconds)
    except ValueError:
        return None
    # days since 1970-01-01 (Howard Hinnant's days_from_civil)
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    days = era * 146097 + doe - 719468
    return days * 86400 + int(hours) * 3600 + int(minutes) * 60 + secs


def _gemini_went_back(fh: BinaryIO, data: bytes, offset: int) -> dict[str, Any] | None:
    """Gemini CLI's: the ``rewound`` line for the conversations set in ``data`` (the
    earliest cut), or for a ``$rewindTo`` no messages were set after."""
    if b'{"$rewindTo":' not in data and b'{"$set":{"messages":' not in data:
        return None  # (most looks: a turn's messages, read no further)
    cut: dict[str, Any] | None = None
    gone_to: bytes | None = None  # the id of a rewind's prompt, till its messages come
    at = 0
    while at < len(data):
        nl = data.find(b"\n", at)
        line, at = data[at:nl], nl + 1
        if line.startswith(b'{"$rewindTo":"'):
            if gone_to is not None:  # (no messages set after the last one)
                cut = _earlier(cut, _gemini_prompt_time(fh, gone_to, offset))
            gone_to = line[len(b'{"$rewindTo":"') :].split(b'"', 1)[0]
        elif line.startswith(b'{"$set":{"messages":['):
            gone_to = None
            cut = _earlier(cut, _gemini_set(line, data[at:]))
    if gone_to is not None:
        cut = _earlier(cut, _gemini_prompt_time(fh, gone_to, offset))
    return cut


def _gemini_set(line: bytes, after: bytes) -> dict[str, Any] | None:
    """The ``rewound`` line for a ``$set`` of Gemini CLI's messages: its conversation
    now, written at its ``lastUpdated`` (0.61.0 writes one at a rewind, at a cancelled
    turn's roll-back, at a resume, and as a session starts). What the hooks showed after
    the latest message it keeps and before it was written is gone; so is the digest (a
    message of its own that begins ``<hook_context>``) where neither it nor what was
    written after it holds one (Gemini CLI leaves it out when it rebuilds the
    conversation)."""
    key = b'"lastUpdated":"'
    at = line.rfind(key)
    if at < 0:
        return None
    written = _epoch(line[at + len(key) :].split(b'"', 1)[0].decode("ascii", "replace"))
    if written is None:
        return None
    kept = 0.0  # none kept: back to before the first prompt
    if not line.startswith(b'{"$set":{"messages":[]'):
        stamps = _message_times(line[:at])
        if not stamps:  # the session context alone: a new session's (its digest is
            return None  # written after, headless after the first prompt's hook: seen)
        latest = max(stamps)
        if len(stamps) == 1 and latest > written - RESTAMPED_S:
            # a conversation loaded and stamped anew as it was set (`/chat resume TAG`,
            # seen in 0.61.0: every message at the resume's time): its times say nothing,
            # its text says what the model has (the hooks' <hook_context>)
            return {"since": 0.0, "until": written, "kept": _shown_in(line[:at])}
        kept = latest
    digest = b'"content":[{"text":"<hook_context>'
    cut: dict[str, Any] = {"since": min(kept, written), "until": written}
    if digest not in line and digest not in after:
        cut["digest"] = False
    return cut


# A conversation set whose messages all bear one stamp, less than this before the set was
# written, was loaded from elsewhere, not kept (those a rewind or a roll-back keeps bear
# their own times, the latest older: the user typed the turn that was cut)
RESTAMPED_S = 1.0


def _shown_in(line: bytes) -> list[str]:
    """The decisions the hooks' answers in a conversation set name (Gemini CLI keeps
    each in a ``<hook_context>``: the digest and a prompt's in a message's text, a tool's
    in its result)."""
    found: set[str] = set()
    for part in line.split(b"<hook_context>")[1:]:
        found.update(_decisions_named(part.split(b"</hook_context>", 1)[0]))
    return sorted(found)


def _earlier(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """Two cuts as one: from the earlier point to the later end (none: no end), a
    digest cut by either, cut; kept, what both keep."""
    if a is None or b is None:
        return a or b
    both: dict[str, Any] = {"since": min(a["since"], b["since"])}
    if "kept" in a and "kept" in b:
        both["kept"] = sorted(set(a["kept"]) & set(b["kept"]))
    if "until" in a and "until" in b:
        both["until"] = max(a["until"], b["until"])
    if a.get("digest") is False or b.get("digest") is False:
        both["digest"] = False
    return both


def _gemini_prompt_time(fh: BinaryIO, prompt: bytes, end: int) -> dict[str, Any] | None:
    """Where no messages were set after a rewind (not so in 0.61.0): the time of the
    prompt gone back to (what its own hook showed, just before, is then taken for kept)."""
    needle = b'{"id":"' + prompt + b'","timestamp":"'
    where = _find_back(fh, needle, end)
    if where < 0:
        return None
    since = _time_after(fh, where)
    return None if since is None else {"since": since, "digest": False}


def _time_after(fh: BinaryIO, where: int) -> float | None:
    """The first ``"timestamp"`` in the 512 bytes of the file from ``where`` (a record's
    start: Gemini CLI's and Qwen Code's records give their time among their first keys)."""
    fh.seek(where)
    head = fh.read(512)
    key = head.find(b'"timestamp":"')
    if key < 0:
        return None
    return _epoch(head[key + len(b'"timestamp":"') :].split(b'"', 1)[0].decode("ascii", "replace"))


def _message_times(line: bytes) -> set[float]:
    """The times of the messages of the conversation a ``$set`` holds (a message begins
    ``{"id":…,"timestamp":…``), but for the session context (Gemini CLI stamps it anew
    as it sets the conversation, seen at a resume)."""
    stamps: set[float] = set()
    context = b',"type":"user","content":[{"text":"<session_context>'
    key = b'","timestamp":"'
    at = line.find(b'{"id":"')
    while at >= 0:
        end = line.find(b'"', at + 7)
        if end > 0 and line.startswith(key, end):
            stamp_end = line.find(b'"', end + len(key))
            if not line.startswith(context, stamp_end + 1):
                when = _epoch(line[end + len(key) : stamp_end].decode("ascii", "replace"))
                if when is not None:
                    stamps.add(when)
        at = line.find(b'{"id":"', at + 7)
    return stamps


def _qwen_went_back(fh: BinaryIO, data: bytes, offset: int) -> dict[str, Any] | None:
    """Qwen Code's: the time of the latest record kept by the earliest rewind in ``data``
    (a ``system`` record of subtype ``rewind``, whose ``parentUuid`` is that record)."""
    if b'"subtype":"rewind"' not in data:
        return None
    # its digest is in the system prompt, which a rewind keeps (seen in 0.24.4)
    since: float | None = None
    at = 0
    while at < len(data):
        nl = data.find(b"\n", at)
        line, start, at = data[at:nl], at, nl + 1
        if b'"subtype":"rewind"' not in line or b'"type":"system"' not in line:
            continue
        item = _load(line)
        if item is None or item.get("type") != "system" or item.get("subtype") != "rewind":
            continue
        parent = item.get("parentUuid")
        if parent is None:  # back to before the first prompt
            return {"since": 0.0, "digest": True}
        if not isinstance(parent, str):
            continue
        needle = f'"uuid":"{parent}"'.encode()
        found = data.rfind(needle, 0, start)
        where = offset + found if found >= 0 else _find_back(fh, needle, offset)
        if where >= 0:  # (uuid, parentUuid, sessionId, timestamp: 0.24.4)
            since = _earliest(since, _time_after(fh, where))
    return None if since is None else {"since": since, "digest": True}


def qwen_unanswered(shared_dir: str, payload: dict[str, Any]) -> bool:
    """At Qwen Code's prompt: note that its previous prompt was cancelled before anything
    ran; whether one was noted.

    Esc before the model's first answer (seen in 0.24.4): Qwen Code takes the prompt out
    of the conversation and gives it back to the input to edit (its auto-restore). Its
    record stays in the transcript, after its hook ran, with no answer after it, and the
    next prompt's record follows it as if nothing happened. Before session 47 the prompt,
    sent again, came without its decisions: gitmem took them for shown. So a prompt whose
    transcript ends with a prompt of the user's (system records aside: those follow every
    prompt) went back to the record before that one: what was shown from then on is gone
    (the digest, in the system prompt, stays). A prompt that failed is read the same way:
    its decisions shown again cost tokens only."""
    path = payload.get("transcript_path")
    sid = str(payload.get("session_id") or "")
    if not isinstance(path, str) or not path or not sid or payload.get("agent_id"):
        return False
    try:
        with open(path, "rb") as fh:
            last = _last_record(fh)
            if last is None or last.get("type") != "user" or not _said(last):
                return False
            parent = last.get("parentUuid")
            if parent is None:
                since: float | None = 0.0  # the session's first prompt
            elif isinstance(parent, str):
                where = _find_back(fh, f'"uuid":"{parent}"'.encode(), os.fstat(fh.fileno()).st_size)
                since = _time_after(fh, where) if where >= 0 else None
            else:
                since = None
    except OSError:
        return False
    if since is None:
        return False
    with state.open_session(shared_dir, sid) as session:
        _note(session, sid, {"since": since, "digest": True})
    return True


def _last_record(fh: BinaryIO) -> dict[str, Any] | None:
    """The last record of a Qwen Code transcript that is not a ``system`` one (those are
    small: up to 1 MiB from the end is read)."""
    for line in _lines_back(fh, fh.seek(0, os.SEEK_END), 1 << 20):
        if line.strip() and b'"type":"system"' not in line:
            return _load(line)
    return None


def _lines_back(fh: BinaryIO, end: int, most: int) -> Iterator[bytes]:
    """The whole lines of the file before ``end``, the last first, read back in blocks
    that grow (16 KiB, then four times as much each), at most ``most`` bytes of them."""
    size = 1 << 14
    while end > 0:
        start = max(0, end - size)
        fh.seek(start)
        lines = fh.read(end - start).split(b"\n")
        yield from reversed(lines if start == 0 else lines[1:])  # the first may be cut
        if start == 0 or size >= most:
            return
        end = start + len(lines[0])  # the cut line, whole, next time
        size *= 4


def _said(record: dict[str, Any]) -> bool:
    """Whether a ``user`` record is a prompt of the user's (text), not a tool's result."""
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return (
        isinstance(parts, list)
        and any(isinstance(p, dict) and isinstance(p.get("text"), str) for p in parts)
        and not any(isinstance(p, dict) and "functionResponse" in p for p in parts)
    )


def copilot_rewound(shared_dir: str, payload: dict[str, Any]) -> bool:
    """At Copilot CLI's prompt: note a `/rewind` (or `/undo`) made since the previous
    prompt; whether one was noted.

    Copilot CLI 1.0.102 keeps a session's events in
    ``$COPILOT_HOME/session-state/SESSION/events.jsonl`` (its stop hook names the file;
    the others do not). `/rewind` cuts the file back to before the turn gone back to and
    appends a ``session.info`` event of ``infoType`` ``rewind``; the next prompt's hook
    events follow it, then its ``user.message``. Before session 47 the model, asked about
    the API file after going back to before the turn that read it, got neither its
    decision nor the digest (run for real). So a prompt whose events file ends with such
    a marker and hook events went back to the latest event of the conversation kept
    before it (a message, a turn, a tool's): what the hooks showed after it is gone; with
    none kept, all of it, the digest too (part of the first turn)."""
    sid = str(payload.get("session_id") or "")
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        if not sid or "/" in sid or sid.startswith("."):
            return False
        home = user_folder("COPILOT_HOME:.copilot", os.path.expanduser("~"))
        path = os.path.join(home, "session-state", sid, "events.jsonl")
    if not sid or payload.get("parent_agent_id"):
        return False
    try:
        with open(path, "rb") as fh:
            end = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, end - (1 << 14)))
            tail = fh.read()
            marker = tail.rfind(b'"infoType":"rewind"')
            if marker < 0 or b'{"type":"user.message"' in tail[marker:]:
                return False  # no rewind since the previous prompt's message
            line = tail.rfind(b"\n", 0, marker) + 1
            since = _copilot_kept(fh, end - len(tail) + line)
    except OSError:
        return False
    with state.open_session(shared_dir, sid) as session:
        _note(session, sid, {"since": since})
    return True


def _copilot_kept(fh: BinaryIO, end: int) -> float:
    """The time of the latest event of the conversation before ``end`` in Copilot CLI's
    events file (not a hook's or the session's own); 0.0 where there is none."""
    for line in _lines_back(fh, end, end):
        if not line.startswith(b'{"type":"') or line.startswith(
            (b'{"type":"hook.', b'{"type":"session.')
        ):
            continue
        at = line.rfind(b'"timestamp":"')  # the event's own: after its data
        when = _epoch(line[at + 13 :].split(b'"', 1)[0].decode("ascii", "replace"))
        if at >= 0 and when is not None:
            return when
    return 0.0


def codex_session(shared_dir: str, payload: dict[str, Any]) -> bool:
    """At Codex's SessionStart: note a rewind (its backtrack, Esc Esc then Enter in the
    TUI; seen in 0.171.0) in the session's state; whether one was noted.

    Codex keeps a session's history in rollout files of numbered records (``ordinal``).
    A rewind starts a new file for the session (its name the session's id and a new
    thread's) whose first record, its ``session_meta``, takes the number of the first
    record cut; the records before it are kept from the files before. Codex then sends
    SessionStart again, source ``resume``, naming the new file (``transcript_path``),
    where a plain `codex resume` names the file it goes on writing. So a resume naming a
    file no hook of the session named before, whose first number another file of the
    session holds, went back to before that record: what the hooks showed from that
    record's time on is gone (the turn's first records come before its prompt's hook,
    seen). The session-start digest then brings back what of it was pinned."""
    path = payload.get("transcript_path")
    sid = str(payload.get("session_id") or "")
    if not isinstance(path, str) or not path or not sid:
        return False
    mark_file = _mark_file(shared_dir, sid, path)
    seen = _mark(mark_file) is not None
    try:
        size = os.stat(path).st_size
        with open(path, "rb") as fh:
            head = fh.read(160)
    except OSError:
        return False
    _save(mark_file, size)  # named now: a later resume naming it goes on from it
    first = _ordinal(head, b"session_meta")
    if seen or payload.get("source") != "resume" or first is None:
        return False
    since = _cut_at(path, sid, first)
    if since is None:
        return False
    with state.open_session(shared_dir, sid) as session:
        _note(session, sid, {"since": since})
    return True


# a longer transcript is not read at a resume: its decisions are shown again instead
MAX_TRANSCRIPT = 256 << 20


def _seed(session: state.Session, path: str) -> bool:
    """At the first look at a Claude Code session's transcript that already holds a
    conversation: note the decisions it names as the hooks name them as shown.

    `claude --resume ID --fork-session` (and the Agent SDK's ``forkSession``) goes on
    from another session's conversation under a new id, in a new transcript holding a copy
    of that conversation (seen in 2.1.332, where its first hook is the prompt's: no
    SessionStart); before session 51 every decision the hooks had shown in it was shown
    again at its first touch, though the model had it already (the API decision twice in
    one context, run for real). The same for a session resumed after gitmem tidied its idle
    state away, or one begun before gitmem was installed. The transcript is read once,
    from its latest message back along ``parentUuid`` (messages a rewind cut are off that
    chain) to its start or a compaction (whose boundary has no parent). False where the
    transcript holds no message of a conversation yet (see ``check``)."""
    ids = _claude_conversation_shown(path)
    if ids is None:
        return False
    _held(session, ids)
    return True


def _held(session: state.Session, ids: list[str]) -> None:
    """Note the decisions a conversation already holds as shown (those not noted yet)."""
    fresh = [i for i in ids if i not in session.view().shown]
    if fresh:
        session.append("shown", ids=fresh, event="conversation")


def _claude_conversation_shown(path: str) -> list[str] | None:
    """The decisions a Claude Code transcript's conversation as it now stands names as the
    hooks name them (see ``_seed``): in the messages from the latest back along
    ``parentUuid``, and in the attachments hanging off them (a hook's answer is an
    attachment whose parent is the message it came with, beside the next message: seen in
    2.1.332). None where it holds no message of a conversation yet (one that cannot be read
    is taken as read: [])."""
    nodes: dict[str, tuple[str | None, bool]] = {}  # uuid: (its parent, an attachment?)
    named: dict[str, list[str]] = {}
    leaf: str | None = None
    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size > MAX_TRANSCRIPT:
                return []
            for line in fh:
                node = _chain_node(line)
                if node is None:
                    continue
                uuid, parent, sidechain, attachment = node
                nodes[uuid] = (parent, attachment)
                if b"Project decision " in line:
                    named[uuid] = _decisions_named(line)
                if not sidechain and not attachment:
                    leaf = uuid
    except OSError:
        return []
    if leaf is None:
        return None  # no message yet (hooks' attachments, bookkeeping lines at most)
    chain: set[str] = set()
    while leaf is not None and leaf not in chain and leaf in nodes:
        chain.add(leaf)
        leaf = nodes[leaf][0]
    found: set[str] = set()
    for uuid, ids in named.items():
        at: str | None = uuid
        for _ in range(64):  # up through attachments to the message they came with
            if at is None or at in chain or at not in nodes or not nodes[at][1]:
                break
            at = nodes[at][0]
        if at in chain:
            found.update(ids)
    return sorted(found)


def _chain_node(line: bytes) -> tuple[str, str | None, bool, bool] | None:
    """(uuid, parentUuid, isSidechain, an attachment?) of a transcript line that is a node
    of the conversation tree; a tool's result of megabytes is read by its keys' places
    (Claude Code writes ``parentUuid`` first and ``uuid`` after the message), not parsed."""
    if not line.startswith(b'{"parentUuid":'):
        return None
    if len(line) <= MAX_PROMPT_LINE:
        item = _load(line)
        if item is None or not isinstance(item.get("uuid"), str):
            return None
        parent = item.get("parentUuid")
        return (
            item["uuid"],
            parent if isinstance(parent, str) else None,
            bool(item.get("isSidechain")),
            item.get("type") == "attachment",
        )
    head = line[len(b'{"parentUuid":') :]
    parent = head[1 : head.find(b'"', 1)].decode("ascii", "replace") if head[:1] == b'"' else None
    at = line.rfind(b'"uuid":"')
    if at < 0:
        return None
    start = at + len(b'"uuid":"')
    uuid = line[start : line.find(b'"', start)].decode("ascii", "replace")
    return uuid, parent, b'"isSidechain":true' in line[:400], b'"attachment":{' in line[:120]


def _decisions_named(text: bytes) -> list[str]:
    """The decisions ``text`` names as gitmem.budget and the rules' denials name one (ids:
    letters, digits, -_.:)."""
    import re  # (only here: a hook's usual path needs none)

    return sorted(
        {m.decode("ascii") for m in re.findall(rb"Project decision ([A-Za-z0-9_.:-]+) \(", text)}
    )


def plugin_revert(shared_dir: str, payload: dict[str, Any]) -> bool:
    """OpenCode's revert (`/undo`; "revert" on a message in its apps): the next prompt
    cuts the messages it took back, and gitmem's plugin then sends, with that prompt's
    first hook (its prompt hook, or the digest's where the plugin's process sees the
    session for the first time), when the first of them was created (``rewound_at``, ms
    since the epoch; 0: not known). pi's `/tree` (going back to an earlier entry of the
    session): its extension sends, with the next prompt, when the first entry left behind
    was written (0 when that was the session's first prompt: the digest, asked for before
    it, went with it).

    What the hooks showed from then on is gone, the session-start digest with it when
    the session's first message was cut (the digest is a part of it). Noted before the
    digest and the prompt's retrieval, so what was cut and the prompt's own decisions
    come at once. Seen in 1.18.33: before session 47 the prompt after an `/undo` of the
    first one came without the digest, and without the decisions of the file it named."""
    at = payload.get("rewound_at")
    sid = str(payload.get("session_id") or "")
    if isinstance(at, bool) or not isinstance(at, (int, float)) or at < 0 or not sid:
        return False
    if payload.get("parent_agent_id"):
        return False  # a subagent's task: its session is not the one the user reverts
    with state.open_session(shared_dir, sid) as session:
        # hooks run after the message they answer was created: shown at or after ``at``
        _note(session, sid, {"since": max(0.0, at / 1000 - 0.001)})
    return True


def plugin_seed(shared_dir: str, payload: dict[str, Any]) -> bool:
    """A pi session that starts holding a conversation (`pi -c`, `/resume`, and `/fork`,
    `/clone` and `pi --fork`, which copy one into a new session gitmem knows nothing of):
    gitmem's extension sends the decisions that conversation names as the hooks name them
    (``conversation_shown``), noted as shown before the digest. Seen in pi 1.6.0: before
    session 62 a fork's digest and its first read of a file repeated what the copy held."""
    ids = payload.get("conversation_shown")
    sid = str(payload.get("session_id") or "")
    if not isinstance(ids, list) or not sid:
        return False
    with state.open_session(shared_dir, sid) as session:
        _held(session, [i for i in ids if isinstance(i, str) and i])
    return True


def _ordinal(line: bytes, kind: bytes) -> int | None:
    """The number of a rollout record of ``kind`` from the head of its line
    (``{"timestamp":"…","ordinal":N,"type":"…"``, as 0.171.0 writes them)."""
    key = b',"ordinal":'
    at = line.find(key)
    end = line.find(b",", at + len(key)) if at >= 0 else -1
    if end < 0 or not line[end:].startswith(b',"type":"' + kind + b'"'):
        return None
    number = line[at + len(key) : end]
    return int(number) if number.isdigit() else None


def _cut_at(path: str, sid: str, ordinal: int) -> float | None:
    """The time of record ``ordinal`` in the session's other rollout file that last
    changed and holds one (the branch the rewind left), a moment before; None where none
    does. The session's files are looked for in every day's folder of Codex's sessions
    (``sessions/YYYY/MM/DD``: a session may go on past midnight); this runs at a resume."""
    folder = os.path.dirname(path)
    root = os.path.dirname(os.path.dirname(os.path.dirname(folder)))
    candidates: list[tuple[float, str]] = []
    for day in _day_folders(root) or [folder]:
        for name in _listdir(day):
            other = os.path.join(day, name)
            changed = _mtime(other) if sid in name and name.endswith(".jsonl") else None
            if other != path and changed is not None:
                candidates.append((changed, other))
    needle = f',"ordinal":{ordinal},"type":"'.encode()
    for _, other in sorted(candidates, reverse=True):
        try:
            with open(other, "rb") as fh:
                where = _find_back(fh, needle, os.fstat(fh.fileno()).st_size)
                if where < 0:
                    continue
                fh.seek(max(0, where - 64))
                head = fh.read(min(where, 64))
        except OSError:
            continue
        stamp = head.rsplit(b'{"timestamp":"', 1)[-1].split(b'"', 1)[0]
        when = _epoch(stamp.decode("ascii", "replace"))
        if when is not None:
            return when - 0.001
    return None


def _day_folders(root: str) -> list[str]:
    """The day folders under Codex's ``sessions`` folder ``root``."""
    return [
        os.path.join(root, year, month, day)
        for year in _listdir(root)
        for month in _listdir(os.path.join(root, year))
        for day in _listdir(os.path.join(root, year, month))
    ]


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def _listdir(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _earliest(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


# each agent whose rewinds are read, and how
READERS: dict[str, Reader] = {
    "claude": _claude_went_back,
    "gemini": _gemini_went_back,
    "qwen": _qwen_went_back,
}
# The agents whose transcript is read from its start at the first look, if no longer
# than FIRST_LOOK_MAX: Gemini CLI's resume begins a file with the conversation it goes on
# (a first look elsewhere only notes how long the file is: reading a long one from the
# start once took 8.5 s, session 45)
READ_FROM_START = frozenset(("gemini",))
FIRST_LOOK_MAX = 1 << 20
