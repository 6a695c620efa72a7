"""Session capture: every prompt kept as a commit on an orphan ref, durable and redacted.

Layout: one ref per session, ``refs/gitmem/sessions/<user>/<session-id>``. Per-user and
per-session refs mean two clones never append to the same ref, so `gitmem sync` never
has to merge. Each commit's tree holds one file, ``record.json``: a prompt record, the
record of an agent turn that edited files (``turn``: every file edited so far), or the
session's closing record. Its message carries a ``Gitmem-Record: <uid>`` trailer.
Nothing outside ``.git`` changes: no work tree file, no index, no branch, no HEAD.

Durability: the prompt hook only appends the (redacted) record to a write-ahead file,
``<git-common-dir>/gitmem/capture/<session>.jsonl``, under ``flock`` (about a
millisecond), and returns. The ``stop`` hook (the end of each agent turn) and the
``session-end`` hook start a detached flusher (``gitmem capture flush``; `gitmem sync` and
`gitmem sessions` flush too), which commits the pending records with
one ``git fast-import`` process. fast-import only moves the ref forward from the tip it
was given, so a concurrent update makes it fail and the flush retries. Records whose uid
is already on the ref are skipped, so a flusher killed between committing and truncating
the write-ahead file never records a prompt twice. A killed hook, or git briefly locked,
loses nothing: the record waits in the write-ahead file for the next flush.
"""

from __future__ import annotations

import errno  # built into the interpreter: nothing to load
import os
import time

from gitmem import __version__, leanjson, location
from gitmem.agent.runner import AGENT_KEY  # the hook runner names the agent under it
from gitmem.locked import LockedFile, append_line

# The prompt hook calls `append` and `base_record` (with a gitmem.location.Location); json,
# git, subprocess, pathlib and typing load only elsewhere (the flusher is its own process).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gitmem.location import Location
    from gitmem.repo import Repo

REF_ROOT = "refs/gitmem/sessions"
# `gitmem sessions forget` leaves a tombstone here (refs/gitmem/forgotten/<user>/<id>, an
# empty commit naming the session), shared by `gitmem sync` like the sessions, so that
# every clone that syncs deletes its copy instead of pushing it back.
FORGOTTEN_ROOT = "refs/gitmem/forgotten"
TOMBSTONE_ENV = {
    f"GIT_{who}_{what}": value
    for who in ("AUTHOR", "COMMITTER")
    for what, value in (
        ("NAME", "gitmem"),
        ("EMAIL", "gitmem@localhost"),
        ("DATE", "2000-01-01T00:00:00Z"),
    )
}
TRAILER = "Gitmem-Record"
SUBJECT = "gitmem "  # a session commit's subject: "gitmem <kind>: <the prompt's first line>"
RETRIES = 8
# A write-ahead line's note of the machine that wrote it (gitmem.location.machine_id),
# which the commit leaves out; and how long after another machine's last line its
# session counts as going on there (see flush): an agent's turns come minutes apart.
MACHINE = "machine"
OTHER_MACHINE_S = 10 * 60


def safe(text: str, fallback: str = "unknown") -> str:
    """``text`` with every character outside ``A-Za-z0-9._-`` replaced by ``_`` (without
    ``re``: the stop hook needs this and nothing else that would import it)."""
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in text)
    return cleaned.strip("._")[:80] or fallback


def user_name() -> str:
    for var in ("GITMEM_USER", "GIT_AUTHOR_EMAIL", "USER", "LOGNAME", "USERNAME"):
        value = os.environ.get(var)
        if value:
            return safe(value.split("@", 1)[0])
    try:  # the account name, as getpass.getuser() finds it (without importing getpass)
        import pwd

        return safe(pwd.getpwuid(os.getuid()).pw_name)
    except Exception:
        return "unknown"


def ref_for(session_id: str, user: str | None = None) -> str:
    return f"{REF_ROOT}/{user or user_name()}/{safe(session_id)}"


def wal_dir(shared_dir: str | os.PathLike[str]) -> str:
    """The write-ahead files' folder under ``shared_state_dir``."""
    return os.path.join(os.fspath(shared_dir), "capture")


def wal_path(repo: Repo | Location, session_id: str) -> str:
    return os.path.join(wal_dir(repo.shared_state_dir), f"{safe(session_id)}.jsonl")


def append(repo: Repo | Location, session_id: str, record: dict[str, Any]) -> str:
    """Write one record to the session's write-ahead file; returns its uid. Where that
    file cannot grow (the disk or the quota full), the record waits in the session's spill
    file in memory (``spill_path``) until a flush brings it back."""
    uid = os.urandom(16).hex()
    line = leanjson.dumps({"uid": uid, "ref": ref_for(session_id), **record, **_written_here()})
    try:
        with LockedFile(wal_path(repo, session_id)) as fh:
            append_line(fh, line)
    except OSError as exc:
        spill = spill_path(repo, session_id) if exc.errno in NO_SPACE else None
        if spill is None:
            raise
        with LockedFile(spill) as fh:
            append_line(fh, line)
    return uid


# ------------------------------------------------------------------ a full disk: spilling

# No room for the write-ahead file: the disk full, the user's quota, a file-size limit. A
# read-only or missing git directory is not transient, and spilling for it would only pile
# records up in memory: those errors are raised (and logged by the hook) as before.
NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _spill_root() -> str:
    """Where this user's folder in memory is made: ``$XDG_RUNTIME_DIR`` (the user's own
    tmpfs, where systemd provides one), else /dev/shm."""
    return os.environ.get("XDG_RUNTIME_DIR") or "/dev/shm"


def spill_dir(repo: Repo | Location, create: bool = True) -> str | None:
    """The repository's spill folder (one per repository, in this user's folder under
    ``_spill_root``: ``location.own_folder``). None where there is no such folder in
    memory, or it is not this user's alone (it holds prompts), or, without ``create``,
    nothing ever spilled for this user."""
    import hashlib

    root = location.own_folder(_spill_root(), create=create)
    if root is None:
        return None
    common = os.path.realpath(os.fspath(repo.shared_state_dir))
    return os.path.join(root, hashlib.sha256(common.encode()).hexdigest()[:16])


def spill_path(repo: Repo | Location, session_id: str, create: bool = True) -> str | None:
    folder = spill_dir(repo, create)
    return None if folder is None else os.path.join(folder, f"{safe(session_id)}.jsonl")


def _unspill(repo: Repo, session_id: str) -> None:
    """Move the session's spilled records into its write-ahead file, then remove the spill
    file. With no room yet the OSError is raised and the records stay spilled. A crash
    between the two leaves a record in both places: a flush commits each uid once."""
    spill = spill_path(repo, session_id, create=False)
    if spill is None or not os.path.exists(spill):
        return
    with LockedFile(spill) as held:
        held.seek(0)
        lines = [line for line in held.read().splitlines() if line.strip()]
        if lines:
            with LockedFile(wal_path(repo, session_id)) as fh:
                for line in lines:
                    append_line(fh, line)
        os.unlink(spill)  # under its lock: a writer waiting for it re-opens the path


def spawn_flush(repo: Repo | Location, session_id: str) -> None:
    """Commit in a detached process; the hook never waits for git. If it cannot start,
    the record stays in the write-ahead file for the next flush."""
    from gitmem.spawn import detach

    detach(["capture", "flush", "--session", session_id], repo.root)


def _git(repo: Repo, *args: str, input_: bytes | None = None) -> tuple[int, str]:
    code, out, _ = _git3(repo, *args, input_=input_)
    return code, out


def _git3(
    repo: Repo, *args: str, input_: bytes | None = None, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    from gitmem import git

    full = {**git.plumbing_env(), **(env or {})}
    return git.run(args, repo.root, env=full, check=False, input_=input_, timeout=60)


def _tip(repo: Repo, ref: str) -> str | None:
    code, out = _git(repo, "rev-parse", "--verify", "-q", ref + "^{commit}")
    return out.strip() if code == 0 and out.strip() else None


def _uids_on(repo: Repo, ref: str) -> set[str]:
    code, out = _git(repo, "log", "--format=%B", ref)
    if code != 0:
        return set()
    import re  # the flusher's, not the hooks'

    return set(re.findall(rf"^{TRAILER}: ([0-9a-f]+)$", out, re.MULTILINE))


def _utf8(text: str) -> bytes:
    """``text`` as UTF-8, a lone surrogate (`leanjson.well_formed`) as U+FFFD: the encoder
    refused one, and every flush of that session failed from then on, so none of its
    prompts was committed."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return leanjson.well_formed(text).encode()


def _stream(ref: str, tip: str | None, records: list[dict[str, Any]]) -> bytes:
    import json

    out: list[bytes] = []
    for n, rec in enumerate(records):
        body = _utf8(json.dumps(as_committed(rec), ensure_ascii=False, indent=1))
        kind = rec.get("kind", "prompt")
        summary = str(rec.get("prompt") or kind).splitlines()[0][:60] if kind == "prompt" else kind
        message = _utf8(f"{SUBJECT}{kind}: {summary}\n\n{TRAILER}: {rec['uid']}\n")
        ts = int(float(rec.get("time", time.time())))
        who = safe(str(rec.get("user") or "unknown"))
        out.append(f"commit {ref}\n".encode())
        out.append(f"author {who} <{who}@gitmem> {ts} +0000\n".encode())
        out.append(f"committer gitmem <gitmem@localhost> {ts} +0000\n".encode())
        out.append(f"data {len(message)}\n".encode() + message)
        if n == 0 and tip is not None:
            out.append(f"from {tip}\n".encode())
        out.append(b"deleteall\n")
        out.append(f"M 100644 inline record.json\ndata {len(body)}\n".encode() + body + b"\n")
    return b"".join(out)


def kind_of(subject: str) -> str:
    """The kind of record a session commit holds, from its subject as ``_stream`` writes
    it (``gitmem prompt: …``, ``gitmem close: close``); "prompt" unless it says otherwise,
    as a record's ``kind`` is."""
    if not subject.startswith(SUBJECT):
        return "prompt"
    kind, colon, _ = subject[len(SUBJECT) :].partition(":")
    return kind if colon and kind else "prompt"


def forgotten_marker(repo: Repo | Location, session_id: str) -> str:
    """The file that tells this clone's hooks and flusher to keep nothing more of a session
    its user told `gitmem sessions forget` to drop (a stat per prompt, no git)."""
    return os.path.join(os.fspath(repo.shared_state_dir), "forgotten", safe(session_id))


def _written_here() -> dict[str, str]:
    """Which machine wrote a write-ahead line (see ``flush``), where that can be told."""
    here = location.machine_id()
    return {MACHINE: here} if here else {}


def flush(repo: Repo, session_id: str) -> int:
    """Commit the session's pending records (those spilled while the disk was full
    brought back first); returns how many were committed. A session another machine
    appends to is left to that machine's flusher while it goes on (``OTHER_MACHINE_S``):
    a clone on a network file system may keep each machine's locks to itself (NFS's
    ``local_lock``; gitmem's stand-in where it has none), and then a prompt that machine
    wrote while this one committed was cut away with the rest. Before session 64 `gitmem
    sessions` or `gitmem sync` on one machine, flushing every session, lost 164 of 300
    prompts a session on the other wrote meanwhile (tests/test_other_machine.py)."""
    import contextlib  # the flusher's, not the hooks'

    with contextlib.suppress(OSError):  # no room yet: they stay spilled; the rest goes on
        _unspill(repo, session_id)
    path = wal_path(repo, session_id)
    if not os.path.exists(path):
        return 0
    with LockedFile(path) as fh:
        fh.seek(0)
        # each uid once (a record both spilled and brought back), in the order typed
        written = records_in(fh.read())
        if not written:
            # Nothing whole to commit, and nothing cut: on a mount whose locks stay with
            # each machine the bytes here may be another machine's first line, half
            # written, which a truncate would take away (1 in 300 prompts of
            # tests/test_other_machine.py in CI, session 65). A torn line a killed writer
            # left goes with the next flush that commits anything.
            return 0
        if _elsewhere(written[-1], os.fstat(fh.fileno()).st_mtime):
            return 0
        unique = {item["uid"]: item for item in written}
        pending = sorted(unique.values(), key=_time_of)
        if pending and os.path.exists(forgotten_marker(repo, session_id)):
            pending = []  # forgotten while these waited: dropped, never committed
        if not pending:
            fh.truncate(0)
            return 0
        by_ref: dict[str, list[dict[str, Any]]] = {}
        for item in pending:
            by_ref.setdefault(str(item.get("ref") or ref_for(session_id)), []).append(item)
        committed = 0
        for ref, items in by_ref.items():
            committed += _commit(repo, ref, items)
        fh.seek(0)
        fh.truncate(0)
        return committed


def _elsewhere(last: dict[str, Any], written: float) -> bool:
    """Whether the write-ahead file whose last line is ``last``, written at ``written``,
    belongs to a session going on on another machine (see ``flush``). A line of a gitmem
    before session 64 names no machine: as before, it is flushed."""
    there, here = last.get(MACHINE), location.machine_id()
    return bool(there and here and there != here and time.time() - written < OTHER_MACHINE_S)


def _time_of(record: dict[str, Any]) -> float:
    value = record.get("time")
    return float(value) if isinstance(value, (int, float)) else 0.0


def records_in(text: str | bytes) -> list[dict[str, Any]]:
    """The records of a write-ahead file's text; a torn line from a killed writer is
    passed over (nothing to commit)."""
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        try:
            item = leanjson.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and item.get("uid"):
            out.append(item)
    return out


def _commit(repo: Repo, ref: str, items: list[dict[str, Any]]) -> int:
    for attempt in range(RETRIES):
        tip = _tip(repo, ref)
        done = _uids_on(repo, ref) if tip else set()
        todo = [i for i in items if i["uid"] not in done]
        if not todo:
            return 0
        code, _, err = _git3(repo, "fast-import", "--quiet", input_=_stream(ref, tip, todo))
        if code == 0:
            return len(todo)
        time.sleep(0.05 * (attempt + 1))  # the ref moved or git is locked: try again
    from gitmem.errors import GitmemError

    said = next((line for line in err.splitlines() if line.strip()), "no message")
    raise GitmemError(
        f"could not update {ref} after {RETRIES} attempts (git fast-import: {said}); "
        f"the records wait in {wal_dir(repo.shared_state_dir)} for the next flush"
    )


def waiting_files(repo: Repo) -> list[tuple[Path, bool]]:
    """The files records wait in to be committed, each with whether it is a spill file in
    memory (the disk was full) rather than a write-ahead file; a file per session."""
    from pathlib import Path

    out: list[tuple[Path, bool]] = []
    folders = ((wal_dir(repo.shared_state_dir), False), (spill_dir(repo, create=False), True))
    for folder, spilled in folders:
        if folder is not None and Path(folder).is_dir():
            out += [(p, spilled) for p in sorted(Path(folder).glob("*.jsonl"))]
    return out


def waiting_ref(repo: Repo, session_id: str) -> str | None:
    """The session ref that the session's first record waiting to be committed names, if
    any: a session no commit holds yet (its first turn, or one another machine's flusher
    is to commit: see ``flush``). One line read."""
    try:
        with open(wal_path(repo, session_id), encoding="utf-8") as fh:
            first = leanjson.loads(fh.readline() or "{}")
    except (OSError, ValueError):
        return None
    ref = str(first.get("ref") or "") if isinstance(first, dict) else ""
    return ref if ref.startswith(REF_ROOT + "/") else None


def as_committed(record: dict[str, Any]) -> dict[str, Any]:
    """A write-ahead line's record as a commit holds it: without the note of the machine
    that wrote it (``MACHINE``)."""
    return {key: value for key, value in record.items() if key != MACHINE}


def pending_sessions(repo: Repo) -> list[str]:
    """The sessions with records waiting: in their write-ahead files, or spilled."""
    found = [p.stem for p, _ in waiting_files(repo) if p.stat().st_size > 0]
    return list(dict.fromkeys(found))


# ------------------------------------------------------------------------------- reading


def session_refs(repo: Repo) -> list[tuple[str, str]]:
    code, out = _git(repo, "for-each-ref", "--format=%(refname)", REF_ROOT)
    refs = [r for r in out.splitlines() if r] if code == 0 else []
    return [(r, r[len(REF_ROOT) + 1 :]) for r in refs]


def records(repo: Repo, ref: str) -> list[dict[str, Any]]:
    """All records on a session ref, oldest first."""
    code, out = _git(repo, "rev-list", "--reverse", ref)
    if code != 0:
        return []
    shas = [s for s in out.split() if s]
    from gitmem.errors import GitmemError

    try:
        found = records_at(repo, shas)
    except GitmemError:
        return []
    return [found[s] for s in shas if s in found]


def records_at(repo: Repo, shas: list[str]) -> dict[str, dict[str, Any]]:
    """The record each commit in ``shas`` holds (its ``record.json``), by commit, read in
    one ``git cat-file --batch``; a commit without one (not gitmem's) is left out."""
    from gitmem import git

    unique = list(dict.fromkeys(shas))
    promisor = git.promisor_remote(repo.root) if unique else None
    if promisor:  # a partial clone: git would fetch each missing record alone
        git.fetch_missing(repo.root, promisor, [], commits=unique)
    names = [f"{s}:record.json" for s in unique]
    blobs = git.read_blobs(repo.root, names, env=git.plumbing_env())
    found: dict[str, dict[str, Any]] = {}
    for sha in unique:
        blob = blobs.get(f"{sha}:record.json")
        if blob is None:
            continue  # not gitmem's
        try:
            item = leanjson.loads(blob)
        except ValueError:
            continue
        if isinstance(item, dict):
            found[sha] = item
    return found


def forget(repo: Repo, ref: str, remote: str | None = None) -> tuple[int, str]:
    """Delete a captured session: its ref, what of it waits to be committed here, and any
    later prompt of it in this clone (when it is the user's own), leaving a tombstone ref
    that `gitmem sync` shares. With ``remote``, delete it there too, in the same push.
    Returns how many records the ref held, and the remote's error ("" when none)."""
    from gitmem.errors import GitmemError

    short = ref[len(REF_ROOT) + 1 :]
    user, _, session_id = short.partition("/")
    held = len(records(repo, ref))
    if user == user_name():
        marker = forgotten_marker(repo, session_id)
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(marker, "w", encoding="utf-8") as fh:
            fh.write(ref + "\n")
        if os.path.exists(wal_path(repo, session_id)):
            with LockedFile(wal_path(repo, session_id)) as fh:
                fh.seek(0)
                fh.truncate(0)
        spill = spill_path(repo, session_id, create=False)
        if spill is not None and os.path.exists(spill):  # spilled while the disk was full
            with LockedFile(spill):
                os.unlink(spill)
    code, tree = _git(repo, "hash-object", "-t", "tree", "-w", "--stdin", input_=b"")
    if code == 0:
        # the same commit in every clone that forgets this session: two tombstones that
        # differed would make `gitmem sync`'s fetch fail on a non-fast-forward update
        message = f"gitmem forgotten: {ref}\n".encode()
        code, tomb, _ = _git3(
            repo, "commit-tree", "--no-gpg-sign", tree.strip(), input_=message, env=TOMBSTONE_ENV
        )  # unsigned whatever the user's settings: a signature would differ per clone
    if code == 0:
        code, _ = _git(repo, "update-ref", f"{FORGOTTEN_ROOT}/{short}", tomb.strip())
    if code != 0:
        raise GitmemError(f"could not write the tombstone for {ref}")
    code, _, err = _git3(repo, "update-ref", "-d", ref)
    if code != 0:
        raise GitmemError(f"could not delete {ref}: {err.strip()}")
    if remote is None:
        return held, ""
    spec = f"{FORGOTTEN_ROOT}/{short}:{FORGOTTEN_ROOT}/{short}"
    code, out, err = _git3(repo, "push", remote, spec, f":{ref}")
    return held, "" if code == 0 else (err or out).strip() or f"git push to {remote} failed"


def _bury(repo: Repo) -> tuple[list[str], list[str]]:
    """Delete the sessions that have a tombstone (from this clone or, fetched, another);
    returns the refs under refs/gitmem/ there were, and those deleted. Two git processes,
    however many refs."""
    code, out = _git(repo, "for-each-ref", "--format=%(refname)", "refs/gitmem/")
    refs = out.split() if code == 0 else []
    tombs = {r[len(FORGOTTEN_ROOT) + 1 :] for r in refs if r.startswith(FORGOTTEN_ROOT + "/")}
    buried = [r for r in refs if r.startswith(REF_ROOT + "/") and r[len(REF_ROOT) + 1 :] in tombs]
    if buried:
        _git(
            repo, "update-ref", "--stdin", input_="".join(f"delete {r}\n" for r in buried).encode()
        )
    return refs, buried


# What `sync` says where neither this clone nor the remote has captured a session: git
# refuses to push a refspec that matches no ref ("No refs in common and none specified"),
# which `gitmem sync` reported as a failure (exit 1) in every new project.
NOTHING_TO_SYNC = "no captured sessions here or on {remote} yet: nothing to push"


# Where `sync` fetches the remote's sessions to, before taking them into refs/gitmem/:
# outside it, so that no listing or push of refs/gitmem/* sees them.
STAGED_ROOT = "refs/gitmem-sync"


def _refs_under(repo: Repo, root: str) -> dict[str, str]:
    code, out = _git(repo, "for-each-ref", "--format=%(refname) %(objectname)", root)
    pairs = (line.split(" ", 1) for line in out.splitlines() if " " in line)
    return dict(pairs) if code == 0 else {}


def _drop_staged(repo: Repo) -> None:
    staged = _refs_under(repo, STAGED_ROOT)
    if staged:
        _git(repo, "update-ref", "--stdin",
             input_="".join(f"delete {ref}\n" for ref in staged).encode())  # fmt: skip


def _take_fetched(repo: Repo) -> None:
    """Take the remote's sessions, fetched to STAGED_ROOT, into refs/gitmem/: a session
    only the remote has, or one the remote has gone on with (its tip has this clone's in
    its history). A session this clone has gone on with since it last pushed it is kept:
    before session 50 the fetch wrote the remote's older tip over it, git refused (a
    non-fast-forward), and the whole sync failed, so a session synced once while it ran,
    or resumed after, was never pushed again. Each update is conditional on the ref still
    being what was read (a capture committing meanwhile wins)."""
    staged = _refs_under(repo, STAGED_ROOT)
    ours = _refs_under(repo, "refs/gitmem")
    updates: list[str] = []
    for staged_ref, theirs in staged.items():
        ref = "refs/gitmem" + staged_ref[len(STAGED_ROOT) :]
        mine = ours.get(ref)
        if mine is None:
            updates.append(f"create {ref} {theirs}\n")
        elif mine != theirs and _git(repo, "merge-base", "--is-ancestor", mine, theirs)[0] == 0:
            updates.append(f"update {ref} {theirs} {mine}\n")
        # else the same, ours ahead (pushed next), or the two apart (the push says so)
    if updates and _git(repo, "update-ref", "--stdin", input_="".join(updates).encode())[0]:
        for line in updates:  # one of them moved meanwhile: the others alone
            _git(repo, "update-ref", "--stdin", input_=line.encode())
    _drop_staged(repo)


def sync(repo: Repo, remote: str) -> tuple[int, str]:
    """Fetch then push ``refs/gitmem/*`` with explicit refspecs (never configured as the
    remote's push refspec, which would change what a plain `git push` sends). The fetch
    goes to STAGED_ROOT, and ``_take_fetched`` takes what this clone lacks or is behind
    on (see there: a session this clone went on with is kept, to be pushed). Never
    pruning: with the user's ``fetch.prune`` (a common setting) the fetch deleted every
    session not yet on the remote, before the push that was to send it.

    In a partial clone (``git clone --filter=blob:none``, common for large repositories)
    the fetch would leave out the records themselves (each a blob), and reading them
    later fetches them from the remote one at a time: `gitmem sessions` took 42 s for 200
    sessions over a local file:// remote (session 39), and one round trip per record
    over the network. So the sessions are fetched without the clone's filter, and the
    records an earlier fetch left out are fetched in one request."""
    from gitmem import git

    promisor = git.promisor_remote(repo.root)
    whole = ("-c", f"remote.{remote}.partialclonefilter=") if promisor else ()
    _drop_staged(repo)  # a sync killed midway left them
    code, out, err = _git3(
        repo, *whole, "fetch", "--no-prune", remote, f"+refs/gitmem/*:{STAGED_ROOT}/*"
    )
    if code != 0:
        return code, f"fetch failed: {(err or out).strip()}"  # git says why on stderr
    _take_fetched(repo)
    if promisor:  # the records a plain fetch of the refs, or gitmem before 39, left out
        git.fetch_missing(repo.root, promisor, [f"--glob={REF_ROOT}"])
    # a forgotten session the fetch brought (the remote still had it) is deleted here and
    # there; deleting a ref the remote lacks only draws a warning from git
    refs, buried = _bury(repo)
    if not refs:
        return 0, NOTHING_TO_SYNC.format(remote=remote)
    there = [f":{ref}" for ref in buried]
    code, out2, err2 = _git3(repo, "push", remote, "refs/gitmem/*:refs/gitmem/*", *there)
    return code, out + out2 if code == 0 else f"push failed: {(err2 or out2).strip()}"


def base_record(repo: Repo | Location, payload: dict[str, Any]) -> dict[str, Any]:
    """Who, where and when: repository, branch and HEAD read from files (no git process)."""
    branch, head = location.head(repo.git_dir, repo.common_dir)
    return {
        "time": round(time.time(), 3),
        "session_id": str(payload.get("session_id") or ""),
        "agent": str(payload.get(AGENT_KEY) or "claude"),
        "user": user_name(),
        "repository": os.path.basename(os.fspath(repo.root)),
        "branch": branch,
        "head": head,
        "permission_mode": payload.get("permission_mode"),
        "gitmem_version": __version__,
    }
