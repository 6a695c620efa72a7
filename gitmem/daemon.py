"""``gitmem watch``: keep the index fresh and serve retrieval with the model loaded.

One per work tree and user (an exclusive lock on ``<git-dir>/gitmem/watch.lock``; see
``gitmem.client.daemon_file`` for a clone several accounts share). Watches the
record folders with watchdog, re-indexes incrementally after changes settle (debounced),
and answers newline-delimited JSON requests on a Unix socket (see ``gitmem.client``).
Exits after ``watch_idle_seconds`` without requests or record changes, and as soon as
the gitmem code it runs changes on disk (an upgrade: see ``CodeStamp``). Optional:
everything falls back to in-process retrieval when it is not running.

Problems (a failed re-index, a model warning, an exit for an upgrade) go to
``<git-dir>/gitmem/watch.log`` as well as stderr: the daemon usually runs detached, with
no stderr anyone reads, and ``gitmem doctor`` shows that log.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem import compile as compiler
from gitmem import config, embed, fsutil, index, locked, markup, store
from gitmem.agent.runner import append_log
from gitmem.client import compat as client_compat
from gitmem.client import daemon_file, listening, pointer, socket_path
from gitmem.errors import GitmemError
from gitmem.location import machine_id
from gitmem.repo import Repo
from gitmem.retrieve import NOT_INDEXED, Retriever, quick_fresh
from gitmem.table import table_problems

DEBOUNCE_S = 0.5
# What watchdog (3 and later, on inotify) also reports that changes nothing: a file opened,
# and closed unwritten. Before session 59 each was taken for a change: a record read by an
# agent, a hook or `gitmem doctor` set off a re-index, which reads config.yaml, which set
# off the next, every 0.75 s for as long as the daemon lived, and it lived for good: each
# re-index counted as activity, so it never went idle (seen: `cat` of a record, and a
# daemon of `--idle 5` still running minutes later).
READ_ONLY_EVENTS = ("opened", "closed_no_write")
NO_ROOM_RETRY_S = 30.0  # a re-index that found no room is tried again after this
# A query waits for a re-index until it has run this long, and is then answered from the
# current index: a one-record update takes ~0.45 s (10,000 records), a branch switch's
# re-index tens of seconds (19 s at 1,500 records), and the prompt hook waits at most
# client.HOOK_REPLY_TIMEOUT_S for an answer.
BUILD_WAIT_S = 0.6
# files whose change can change the catalog: records in any markup, config.yaml, imported.yaml
RECORD_SUFFIXES = (*markup.SUFFIXES, ".yaml", ".yml")
LOG = "watch.log"
CODE_CHECK_S = 1.0


class CodeStamp:
    """The identity (inode, mtime, size) of each gitmem module file this process loaded.

    A daemon lives as long as its user keeps working. Without this, after ``pip install -U
    gitmem`` it went on answering the new hooks with the old code, and rebuilt the match
    table in the old schema after each new-code rebuild, one for one (seen: schema 16 and
    17 alternating on every search). pip writes every file anew (a new inode and mtime),
    and an edit to an editable install changes the file too: either way the daemon exits,
    and the next hook starts one running the new code. Modules imported after the stamp
    is taken are not checked; the ones that serve queries are loaded by then.
    """

    def __init__(self) -> None:
        self.files = {path: _identity(path) for path in _module_files()}

    def changed(self) -> str | None:
        """The first module file that changed or went away since the stamp, if any."""
        for path, ident in self.files.items():
            if _identity(path) != ident:
                return path
        return None


def _module_files() -> list[str]:
    files = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and (name == "gitmem" or name.startswith("gitmem.")):
            files.append(path)
    return sorted(files)


def _same_file(path: str, inode: int) -> bool:
    ident = _identity(path)
    return ident is not None and ident[0] == inode


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _identity(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


class Daemon:
    def __init__(
        self, repo: Repo, idle_seconds: int, log: Callable[[str], None], *, machine: bool = False
    ) -> None:
        self.repo = repo
        self.machine = machine  # under this machine's own names (see run)
        self.idle_seconds = idle_seconds
        self.log = log
        # `lock` guards the retriever (held for a query, or a swap: milliseconds); `building`
        # is held for a re-index or a table check (up to tens of seconds), so queries go on
        # while the index is rebuilt on a thread of its own
        self.lock = threading.Lock()
        self.building = threading.Lock()
        self.build_started = 0.0
        self.dirty_at: float | None = None
        self.last_activity = time.monotonic()
        self.stop = threading.Event()
        self.settle_due = False
        self.settles = 0
        self.updates = 0
        # the file whose going tells that the repository was moved or deleted (see serve)
        self.anchor: tuple[str, int] | None = None
        self.record_errors: tuple[str, ...] = ()  # what was last said of broken records
        # what the watchdog observer watches (see rewatch): folder -> inode, and the
        # config.yaml that named them
        self.handler: Any = None
        self.watching: dict[str, int | None] = {}
        self.config_stat: tuple[int, int, int] | None = None
        self.rewatch_error = ""
        self.watch_checked = time.monotonic()
        self.unwritten: str | None = None  # why the last re-index could not write
        resolution = index.resolve_embedder(repo, allow_download=False)
        self.embedder = resolution.embedder
        self.model_warning = resolution.warning
        self.model_failure: str | None = None  # said once while it lasts (see _reindex)
        if resolution.warning:
            self.problem(f"warning: {resolution.warning}")
        if self.embedder is not None:
            try:
                self.embedder.warm()  # queries should not pay for loading the model
            except embed.ModelError as exc:
                # fail open: serve keyword + path, and say why (the daemon exited with a
                # traceback, and hooks that start it started it again, until session 54)
                self.embedder = None
                self.model_warning = f"{exc}; answers are ranked by keyword and path only"
                self.problem(f"warning: {self.model_warning}")
        try:
            unchanged = self._reindex().unchanged
        except Exception as exc:
            if not self._no_room(exc):  # else: served from the records, compiled into memory
                raise
            unchanged = False
        primed = compiler.prime(repo) if unchanged else None
        # the first edit then updates rows, and costs what later edits do
        index.warm(primed.decisions if primed is not None else ())
        self.retriever = self._open()
        self.settle()
        self.code = CodeStamp()
        self.code_checked = time.monotonic()

    def problem(self, message: str) -> None:
        """Log a problem, and keep it in ``watch.log`` for ``gitmem doctor``."""
        self.log(message)
        # into the folder it made at start, never recreating it (a deleted repository)
        # on a clone several machines mount, which machine's (see run): one log for all
        where = f" on {socket.gethostname()}" if self.machine else ""
        line = f"watch (pid {os.getpid()}{where}): {message}"
        append_log(self.repo.state_dir, LOG, line, make_folder=False)

    def _no_room(self, exc: Exception) -> bool:
        """Whether ``exc`` is a re-index that could not write (the disk full): then said,
        and tried again in NO_ROOM_RETRY_S with no record changing meanwhile (before
        session 56 the daemon exited at start, and a failed re-index waited for the next
        record change). Meanwhile answers come from the records, compiled into memory (see
        ``gitmem.compile.build_or_in_memory``), ranked by keyword and path."""
        why = compiler.not_written(exc)
        if why is None:
            return False
        self.problem(
            f"re-index failed: {exc}; serving from the records, tried again in "
            f"{NO_ROOM_RETRY_S:.0f} s"
        )
        self.unwritten = why  # the index is older than the records
        self.dirty_at = time.monotonic() + NO_ROOM_RETRY_S - DEBOUNCE_S
        return True

    def code_changed(self) -> bool:
        """True, and the daemon stops, when its gitmem code changed on disk."""
        self.code_checked = time.monotonic()
        path = self.code.changed()
        if path is None:
            return False
        if not self.stop.is_set():
            self.problem(f"exiting: gitmem changed on disk since it started ({path})")
            self.stop.set()
        return True

    def _open(self) -> Retriever:
        light = self.unwritten is not None
        r = Retriever.open(self.repo, embedder=self.embedder, light=light)
        if light:
            r.warnings.append(NOT_INDEXED.format(self.unwritten))
        if self.model_warning:
            r.warnings.append(self.model_warning)
        return r

    def _reindex(self) -> index.BuildReport:
        """Bring the index up to date."""
        report = index.build(self.repo, embedder=self.embedder, model_warning=self.model_warning)
        if self.unwritten is not None:
            self.unwritten = None
            self.log("re-indexed: there is room again")
        if not report.unchanged:
            runtime = f", {report.runtime}" if report.runtime else ""
            self.log(
                f"indexed: {report.reindexed} changed, {report.removed} removed "
                f"({report.seconds:.2f} s{runtime})"
            )
        if report.runtime_note:
            self.problem(f"warning: {report.runtime_note}")
        if not report.unchanged and report.model_failure != self.model_failure:
            self.model_failure = report.model_failure
            if report.model_failure:
                self.problem(f"warning: {report.model_failure}")
        self._say_record_errors()
        return report

    def _say_record_errors(self) -> None:
        """Log the record files with errors (as `gitmem index` prints them) when they
        change, and that they are fixed: someone running `gitmem watch` in a terminal
        sees a broken record as they save it, and doctor shows it in ``watch.log``."""
        found = table_problems(self.repo)
        said = (found.headline(), *found.lines()) if found is not None else ()
        if said == self.record_errors:
            return
        if found is not None:
            self.problem(f"warning: {found.headline()}; `gitmem lint` shows every problem:")
            for line in found.lines():
                self.problem(f"  {line}")
        else:
            self.log("the decision files load without errors again")
        self.record_errors = said

    def settle(self) -> None:
        """Collect garbage once, then exempt what survives from later collections.

        The daemon holds the catalog, the compiled table's memory, the postings and the
        model: ~90,000 tracked objects at 10,000 records. Left in the collector's oldest
        generation, they were traversed by full collections in the middle of each
        re-index, 50-70 ms of a ~400 ms one-record update (measured). Frozen objects are
        still freed by reference counting; only cyclic garbage among them would wait for
        the next settle, which unfreezes and collects first. Runs at start and when the
        daemon is idle after a re-index (``serve``), not while anyone waits for it.
        """
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.settle_due = False
        self.settles += 1

    def update(self) -> index.BuildReport | None:
        """Re-index now, and serve from the new generation (None: the re-index failed)."""
        with self.building:
            self.build_started = time.monotonic()
            return self._update()

    def start_update(self, *, now: bool = False) -> None:
        """Once record changes have settled (``now``: at once, a query waits), re-index on
        a thread of its own unless one runs already: serving goes on meanwhile."""
        if self.dirty_at is None:
            return
        now = now and self.unwritten is None  # a query does not cut short the wait for room
        if not now and time.monotonic() - self.dirty_at < DEBOUNCE_S:
            return
        if self.building.acquire(blocking=False):
            self.build_started = time.monotonic()
            threading.Thread(target=self._update_then_release, daemon=True).start()

    def _update_then_release(self) -> None:
        try:
            self._update()
        finally:
            self.building.release()

    def _update(self) -> index.BuildReport | None:
        """The re-index itself; the caller holds ``building``."""
        self.dirty_at = None
        self.updates += 1
        report = None
        try:
            report = self._reindex()
        except Exception as exc:  # keep serving the last good index
            if not self._no_room(exc):
                self.problem(f"re-index failed: {exc}")
        with self.lock:
            self._reopen_if_moved()
        self.settle_due = True
        handback = sys.modules.get("gitmem.handback")  # root in another user's repository
        if handback is not None:  # what the re-index wrote is theirs now, not at its exit
            handback.sweep()
        return report

    def reopen_if_moved(self) -> None:
        """Serve from the current generation if another process re-indexed."""
        with self.lock:
            self._reopen_if_moved()

    def _reopen_if_moved(self) -> None:
        # a re-index that changed nothing keeps the generation, but may have replaced the
        # table (its folders' times, say): the old one would look stale to every request
        moved = index.current_generation(self.repo) != self.retriever.generation
        moved = moved or self.retriever.light != (self.unwritten is not None)
        if moved or not quick_fresh(self.retriever.table, self.repo):
            old = self.retriever
            self.retriever = self._open()
            old.close()
            if self.retriever.unembedded and self.embedder is not None:
                # another process indexed records without the model: embed them here
                self.mark_dirty()

    def mark_dirty(self) -> None:
        self.dirty_at = time.monotonic()
        self.last_activity = time.monotonic()

    def handle(self, payload: dict[str, Any]) -> dict[str, Any]:
        op = payload.get("op")
        if op == "stop":
            self.stop.set()
            return {"ok": True, "result": None}
        if self.anchor is not None and not _same_file(*self.anchor):
            # the repository was moved (its socket with it) or deleted: a client in its new
            # place reached it, and before session 59 got the answer of a re-index of the
            # old place, where there was nothing ("no matching decisions")
            self.stop.set()
            return {"ok": False, "error": "its repository was moved or deleted: exiting"}
        # answers come only from the code the client runs: the client then works in-process
        if self.code_changed():
            return {"ok": False, "error": "gitmem changed on disk: this daemon is exiting"}
        own = client_compat()
        if payload.get("compat") not in (None, own):
            return {"ok": False, "error": f"this daemon runs gitmem {own} (version/schema)"}
        if op == "ping":
            gen = self.retriever.generation
            return {
                "ok": True,
                "result": {
                    "pid": os.getpid(),
                    "root": str(self.repo.root),  # where it sees the work tree (doctor)
                    "generation": gen.name if gen else None,
                    "rankers": list(self.retriever.rankers),
                    "model": self.embedder.info.fingerprint if self.embedder else None,
                    "settles": self.settles,  # see settle()
                    "updates": self.updates,  # re-indexes begun since it started
                },
            }
        if op == "retrieve":
            if self.dirty_at is None and not self.building.locked():
                with self.lock:
                    unseen = not quick_fresh(self.retriever.table, self.repo)
                if unseen:
                    # records changed where watchdog did not look: the folder deleted and
                    # made again (a checkout of a branch without it, and back), moved
                    # whole, or made after the daemon started. Before, the table alone
                    # was rebuilt and this answer came from the old index.
                    self.mark_dirty()
            self.start_update(now=True)
            if self.building.locked():
                # a re-index that started less than BUILD_WAIT_S ago may be a few records:
                # wait for it; a longer one is answered from the current index
                wait = self.build_started + BUILD_WAIT_S - time.monotonic()
                if wait > 0 and self.building.acquire(timeout=wait):
                    self.building.release()
            with self.lock:
                self._reopen_if_moved()  # another process's `gitmem index`
                result = self.retriever.retrieve(
                    str(payload.get("prompt") or ""),
                    [str(p) for p in payload.get("paths") or []],
                    k=int(payload.get("k") or 10),
                    cwd=payload.get("cwd"),
                    client_root=payload.get("root"),
                )
            return {"ok": True, "result": result.to_json()}
        return {"ok": False, "error": f"unknown op {op!r}"}

    def serve(self) -> None:
        path = socket_path(self.repo, create=True, machine=self.machine)
        if path is None:
            raise GitmemError(
                "no folder of this user's own in /tmp, /var/tmp or /dev/shm for the socket "
                "(the git directory's path is too long for one): not serving"
            )
        server, path, marker = self._bind(path)
        server.listen(16)
        server.settimeout(0.25)
        # what tells it that nobody can reach it any more (see below): its socket, or the
        # file in the state folder that names it
        watched = marker or path
        inode = os.stat(watched).st_ino
        self.anchor = (watched, inode)
        observer = self._watch()
        self.log(f"serving on {path}")
        try:
            while not self.stop.is_set():
                if time.monotonic() - self.last_activity > self.idle_seconds:
                    self.log("idle: exiting")
                    break
                due = time.monotonic() - self.code_checked >= CODE_CHECK_S
                if due and self.code_changed():
                    break
                # its own clock: each request checks the code, so `due` may never come
                # while requests keep coming
                if observer is not None and time.monotonic() - self.watch_checked >= 1.0:
                    self.watch_checked = time.monotonic()
                    try:
                        self.rewatch(observer)
                    except Exception as exc:  # keep serving; the requests' check remains
                        if str(exc) != self.rewatch_error:
                            self.problem(f"watching the record folders anew failed: {exc}")
                        self.rewatch_error = str(exc)
                # each time before re-indexing, too: deleting a repository deletes records
                if (due or self.dirty_at is not None) and not _same_file(watched, inode):
                    # nobody can reach it any more: the repository (or its gitmem folder)
                    # was deleted. Not logged to a file: that would recreate the folder.
                    self.log("exiting: its socket was removed")
                    break
                self.start_update()
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    if (
                        self.settle_due
                        and self.dirty_at is None
                        and self.building.acquire(blocking=False)
                    ):
                        try:
                            with self.lock:
                                self.settle()
                        finally:
                            self.building.release()
                    continue
                self.last_activity = time.monotonic()
                threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()
        finally:
            server.close()
            gone = not _same_file(watched, inode)
            if not gone:  # not another daemon's, if it was replaced
                for made in (path, marker) if marker else (path,):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(made)
            if observer is not None:
                observer.stop()
            if not gone:  # a re-index in progress finishes (it would write into a deleted
                with self.building:  # repository; the interpreter's exit stops it there)
                    pass
            with self.lock:
                self.retriever.close()

    def _bind(self, path: str) -> tuple[socket.socket, str, str | None]:
        """A socket listening on ``path``, mode 0600; where the state folder's file system
        cannot hold one, on the one in this user's temporary folder, named in the state
        folder's ``client.pointer`` file (its path, third). Raises where neither can be."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind(path)
        except OSError as exc:
            far = socket_path(self.repo, create=True, far=True, machine=self.machine)
            if exc.errno in (errno.EADDRINUSE, errno.EACCES) or far is None or far == path:
                server.close()
                raise
            server.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(far)
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(far)
            os.chmod(far, 0o600)
            state = os.fspath(self.repo.state_dir)
            marker = pointer(state, machine=self.machine)
            fsutil.atomic_write(Path(marker), far + "\n")
            self.log(
                f"{state} cannot hold a socket ({exc.strerror}): listening in this user's "
                f"own temporary folder instead, named in {marker}"
            )
            return server, far, marker
        os.chmod(path, 0o600)
        return server, path, None

    def _serve_one(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5.0)
            try:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                payload = json.loads(data)
                reply = self.handle(payload if isinstance(payload, dict) else {})
            except Exception as exc:  # one bad request never kills the daemon
                reply = {"ok": False, "error": str(exc)}
            reply["compat"] = client_compat()  # which gitmem answers (gitmem.client)
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps(reply).encode() + b"\n")

    def _watch(self) -> Any:
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:  # pragma: no cover - watchdog is a dependency
            return None
        daemon = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.event_type in READ_ONLY_EVENTS:
                    return
                # an editor's or agent's atomic save writes a temporary file and renames
                # it over the record: only the move's destination names the record
                names = (event.src_path, getattr(event, "dest_path", ""))
                if any(str(n).endswith(RECORD_SUFFIXES) for n in names):
                    daemon.mark_dirty()

        observer = Observer()
        self.handler = Handler()
        self.config_stat = self._config_identity()
        self.watching = self._folders()
        self._schedule(observer)
        observer.daemon = True
        observer.start()
        return observer

    def _config_identity(self) -> tuple[int, int, int] | None:
        return _identity(str(self.repo.root / ".continuity" / config.CONFIG_NAME))

    def _folders(self) -> dict[str, int | None]:
        """The folders to watch (``.continuity/``, its records folder and the ADR folders
        config.yaml names), each with its inode (None: not there)."""
        out: dict[str, int | None] = {}
        for path in store.watched_paths(self.repo.root, config.load(self.repo.root)):
            folder = str(path.parent if path.suffix in (".yaml", ".yml") else path)
            try:
                out[folder] = os.stat(folder).st_ino
            except OSError:
                out[folder] = None
        return out

    def _schedule(self, observer: Any) -> None:
        for folder, inode in self.watching.items():
            if inode is not None:
                with contextlib.suppress(OSError):  # gone since: the next check sees it
                    observer.schedule(self.handler, folder, recursive=True)

    def rewatch(self, observer: Any) -> bool:
        """Watch again when a watched folder was deleted (its watch ended) and perhaps
        made again, moved, or made after the daemon started, or config.yaml names other
        ADR folders: an inotify watch ends with its folder, so after a checkout of a
        branch without `.continuity/` and back, nothing was watched any more and edits
        went unseen. A stat per folder, once a second; the YAML is read again only when
        config.yaml changed. True when it watches anew (the records are then
        re-indexed)."""
        cfg_stat = self._config_identity()
        folders = self.watching
        if cfg_stat != self.config_stat:
            self.config_stat = cfg_stat
            folders = self._folders()
        else:
            folders = {f: _inode(f) for f in folders}
        # a deleted folder's watch has ended; its inode may already be the new folder's
        ended = any(not emitter.is_alive() for emitter in observer.emitters)
        if folders == self.watching and not ended:
            return False
        self.watching = folders
        observer.unschedule_all()
        self._schedule(observer)
        self.mark_dirty()
        return True


def run(repo: Repo, *, idle_seconds: int | None, log: Callable[[str], None]) -> int:
    """Run the daemon in the foreground; 0 when it exits, 1 if another one of this user's
    on this machine serves the work tree. Where another machine's daemon holds the plain
    names (a clone on a network file system that several machines mount), this machine's
    takes names of its own (``client.daemon_file``): a Unix socket is reached only from the
    machine it was made on."""
    repo.state_dir.mkdir(parents=True, exist_ok=True)
    state = str(repo.state_dir)
    me = machine_id()
    claim = _claim(state, machine=False)
    record = _Record.read(os.path.join(state, daemon_file(state, "lock")))
    elsewhere = bool(me) and _other(record, me)  # names of its own need a machine id
    if claim is not None and elsewhere and not _in_use(repo):
        elsewhere = False  # the other machine's daemon left no socket: it is gone too
    if claim is not None and elsewhere:
        # the lock alone says nothing there: a network file system's locks may not span
        # machines (NFS mounted with local_lock, or without its lock daemon: a stand-in)
        _release(claim)
        claim = None
    if claim is None:
        if not elsewhere:
            log("another `gitmem watch` of yours already serves this work tree")
            return 1
        claim = _claim(state, machine=True)
        if claim is None:
            log("another `gitmem watch` of yours on this machine already serves this work tree")
            return 1
        log(
            f"{record.where()}'s daemon serves this work tree there (pid {record.pid}): "
            "this machine's listens beside it, under names of its own"
        )
    fd = claim[0]
    try:
        with contextlib.suppress(OSError):  # for people and the daemons of other machines
            os.ftruncate(fd, 0)
            os.write(fd, _Record(str(os.getpid()), me, _host()).text().encode())
        _sweep_earlier_boots(state, me)
        idle = idle_seconds or config.load(repo.root).watch_idle_seconds
        _stop_on_signals()
        try:
            Daemon(repo, idle, log, machine=elsewhere).serve()
        except _Stopped as exc:
            log(f"stopped by {exc}")
        return 0
    finally:
        _release(claim)


def _claim(state: str, *, machine: bool) -> tuple[int, int | None] | None:
    """The daemon's lock file in ``state`` (``machine``: this machine's own, see
    ``client.daemon_file``), open and locked (with ``locked.lock``'s stand-in), or None
    where another process holds it."""
    lock_path = os.path.join(state, daemon_file(state, "lock", machine=machine))
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
    except PermissionError:  # another user's (a `sudo gitmem watch`): flock needs no more
        fd = os.open(lock_path, os.O_RDONLY)
    try:
        return fd, locked.lock(fd, wait=False)
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError as exc:
        os.close(fd)
        raise GitmemError(f"cannot lock {lock_path}: {exc.strerror}") from None


def _release(claim: tuple[int, int | None]) -> None:
    with contextlib.suppress(OSError):
        locked.unlock(*claim)
    os.close(claim[0])


@dataclass(frozen=True)
class _Record:
    """What a daemon writes in its lock file: its pid (the first line, as before session
    64, for people), which running kernel it is on (``location.machine_id``) and the
    machine's name (``_host``). Older daemons wrote the pid alone."""

    pid: str = "?"
    machine: str = ""
    host: str = ""

    def where(self) -> str:
        """The machine's name, for people."""
        return self.host.partition("/")[0] or "another machine"

    def text(self) -> str:
        return f"{self.pid}\nmachine {self.machine}\nhost {self.host}\n"

    @classmethod
    def read(cls, path: str) -> _Record:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read(4096).splitlines()
        except OSError:
            return cls()
        noted = fsutil.fields(lines[1:])
        pid = lines[0].strip() if lines and lines[0].strip() else "?"
        return cls(pid, noted.get("machine", ""), noted.get("host", ""))


def other_machine(repo: Repo) -> _Record | None:
    """The record of another machine's daemon under the plain names, where one may serve
    the work tree there (its socket or pointer is in place), for `gitmem doctor`."""
    me = machine_id()
    state = str(repo.state_dir)
    record = _Record.read(os.path.join(state, daemon_file(state, "lock")))
    if not me or not _other(record, me) or not _in_use(repo):
        return None
    return record


def _other(record: _Record, me: str) -> bool:
    """Whether ``record`` is of another machine's daemon. Not where it names this host (an
    earlier boot of this machine: that daemon is gone), nor the kernel ``me`` (a
    container and its host), nor neither (a gitmem before session 64). Where it names a
    host and no kernel, it is of a machine without a boot id: a Mac that runs a Linux
    virtual machine's containers (Docker Desktop) is another machine to them."""
    if record.host == _host() or (record.machine and record.machine == me):
        return False
    return bool(record.machine or record.host)


def _host() -> str:
    """This machine's name, and the start of its /etc/machine-id where it has one (two
    machines cloned from one image may share that, or a name): what tells a daemon's
    record left by an earlier boot of this machine from another machine's."""
    name = socket.gethostname()
    try:
        with open("/etc/machine-id", encoding="ascii", errors="replace") as fh:
            ident = fh.read(8).strip()
    except OSError:
        ident = ""
    return f"{name}/{ident}" if ident else name


def _in_use(repo: Repo) -> bool:
    """Whether a daemon's socket, or the pointer to one, is in the state folder under the
    plain names (whoever's: from here, another machine's cannot be asked)."""
    state = str(repo.state_dir)
    path = socket_path(repo)
    return (path is not None and os.path.lexists(path)) or os.path.lexists(pointer(state))


def _sweep_earlier_boots(state: str, me: str) -> None:
    """Remove the files this machine's daemons left under their own names in earlier boots
    (a crash, a reboot: their names hold the boot's id, so no later daemon takes them
    over), and only this machine's: another's may be serving."""
    if not me:
        return
    host = _host()
    prefix = daemon_file(state, "lock").removesuffix("lock")
    try:
        names = os.listdir(state)
    except OSError:
        return
    for name in names:
        tag = name.removeprefix(prefix).removesuffix(".lock")
        if not (name.startswith(prefix) and name.endswith(".lock")) or len(tag) != 8:
            continue
        if tag == me or _Record.read(os.path.join(state, name)).host != host:
            continue
        for kind in ("sock", "where", "lock"):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(state, f"{prefix}{tag}.{kind}"))


class _Stopped(Exception):
    """A signal asked the daemon to stop (its name): `serve` unwinds and removes its socket."""


def _stop_on_signals() -> None:
    """SIGTERM (`kill`, the machine shutting down) and SIGHUP (its terminal closed) stop the
    daemon as Ctrl-C does, through `serve`'s cleanup. Before session 57 they killed it
    outright and left its socket behind, which `spawn` took for a daemon serving: with
    `watch_autostart`, no session started one again (after every reboot) until someone ran
    `gitmem watch` by hand. Only the main thread may set handlers (a test's thread may not)."""
    import signal

    def stop(signum: int, _frame: object) -> None:
        raise _Stopped(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, stop)


def serving(path: str) -> bool:
    """Whether a daemon listens on the socket ``path``. Its file alone says nothing: one
    killed (SIGKILL, the OOM killer, a crash) cannot remove it."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(path)
        except OSError:  # no such file, or nobody listening (ECONNREFUSED)
            return False
    return True


def spawn(repo: Repo) -> bool:
    """Start ``gitmem watch`` in the background without waiting for it, unless one serves
    (a socket left behind by a daemon that was killed is not one)."""
    from gitmem.spawn import detach

    path = listening(repo)
    if path is not None and serving(path):
        return False
    return detach(["watch", "--quiet"], repo.root)
