"""One clone, two machines: a checkout on a network file system that several machines
mount (an NFS home shared by login nodes, a lab's file share), with an agent on each.

The second machine is made for real, as far as one kernel allows: a long-lived process in
a mount, PID and UTS namespace of its own, with a host name and a boot id of its own
(``/proc/sys/kernel/random/boot_id`` bind-mounted over), its own ``/tmp/gitmem-<uid>``,
and the clone seen through a FUSE passthrough of the test's (tests/casefs.py, exact
mode). Through it, as through NFS, the first machine's Unix socket is a file whose
`connect` is refused. Its ``flock`` either locks the files underneath, as NFSv4's locks
span the machines that mount it, or stays with the mount, as NFS's ``local_lock`` does.
Commands run there with ``nsenter``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import casefs
import pytest
from conftest import SANDBOX_HOME, commit_all, decision, killed_at_the_end, write

from gitmem import capture, client, daemon, location
from gitmem.location import temp_folder
from gitmem.repo import discover

BOOT_ID = "/proc/sys/kernel/random/boot_id"  # Linux's: which running kernel this is
GITMEM = shutil.which("gitmem")
GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(
    GITMEM is None or GITMEM_HOOK is None or not os.path.exists(BOOT_ID),
    reason="gitmem and gitmem-hook are not installed, or there is no boot id (not Linux)",
)
MONEY = "Money is integer cents"
# the second machine: its own boot id, host name and temporary folder, until killed
BOOT = (
    f'mount --bind "$BOOT_ID" {BOOT_ID} && hostname machine-b && '
    'mount --bind "$OWN_TEMP" "$GITMEM_TEMP" && echo up && exec sleep 600'
)


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    decision(repo, "0001-money.md", MONEY, globs=["billing/**"],
             body="## Decision\n\nAmounts are integer cents; never floats.\n")  # fmt: skip
    write(repo, ".continuity/config.yaml", "watch_autostart: false\n")
    commit_all(repo, "decisions")
    return repo


class Machine:
    """The second machine (see the module's text): ``run`` runs a command there, in its
    view of the clone."""

    def __init__(self, pid: int, view: Path, env: dict[str, str]) -> None:
        self.pid, self.view, self.env = pid, view, env  # pid: its first process

    def command(self, args: list[str]) -> list[str]:
        # --root, --wd: the target's root and folder, not its mount namespace's root (entering
        # one moves a process there: the host's /, where the suite runs in a chroot)
        enter = ["nsenter", f"--target={self.pid}", "--mount", "--uts", "--pid", "--root", "--wd"]
        return [*enter, "--", "sh", "-c", 'cd "$VIEW" && exec "$@"', "sh", *args]

    def run(self, args: list[str], *, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command(args), input=stdin, capture_output=True, text=True, timeout=120,
            env=self.env,
        )  # fmt: skip

    def start(self, args: list[str]) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.command(args), env=self.env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip


def _possible() -> None:
    why = casefs.possible()
    if why is None and not all(shutil.which(x) for x in ("unshare", "nsenter")):
        why = "unshare and nsenter are needed (util-linux)"
    if why is not None:
        if os.environ.get("GITMEM_REQUIRE_FUSE") == "1":
            pytest.fail(f"GITMEM_REQUIRE_FUSE=1 but {why}")
        pytest.skip(why)


@contextlib.contextmanager
def second_machine(
    project: Path, tmp_path: Path, model_dir: Path, *, shared_locks: bool
) -> Iterator[Machine]:
    _possible()
    boot_id = tmp_path / "boot_id"
    boot_id.write_text(f"{uuid.uuid4()}\n")
    own_temp = tmp_path / "b-temp"
    own_temp.mkdir(mode=0o700)
    ours = temp_folder(create=True, fixed=True)
    assert ours is not None
    home = tmp_path / "b-home"  # onnxruntime writes a device id under ~/.cache
    home.mkdir()
    with casefs.mounted(project, tmp_path / "net", exact=True, shared_locks=shared_locks) as view:
        env = {**os.environ, "HOME": str(home), "VIEW": str(view),
               "GITMEM_EMBED_MODEL_DIR": str(model_dir), "BOOT_ID": str(boot_id),
               "OWN_TEMP": str(own_temp), "GITMEM_TEMP": ours}  # fmt: skip
        init = subprocess.Popen(
            ["unshare", "--mount", "--pid", "--uts", "--fork", "--mount-proc", "--kill-child",
             "sh", "-c", BOOT],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert init.stdout is not None
            if init.stdout.readline().strip() != "up":
                init.kill()
                pytest.skip(f"no namespaces to make a machine of: {init.communicate()[1]}")
            # nsenter's target: the namespace's first process, unshare's child
            children = Path(f"/proc/{init.pid}/task/{init.pid}/children").read_text().split()
            machine = Machine(int(children[0]), view, env)
            said = machine.run(["cat", BOOT_ID]).stdout.strip()
            assert said == boot_id.read_text().strip()
            yield machine
        finally:
            init.kill()
            init.wait()


def _search(out: subprocess.CompletedProcess[str]) -> tuple[str, dict[str, Any]]:
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    return data["served_by"], data["hits"][0]


SEARCH = ["search", "--json", "fees", "--path=billing/charge.py"]


def here(project: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GITMEM), *args], cwd=project, capture_output=True, text=True, timeout=120,
        env={**os.environ, "HOME": SANDBOX_HOME},
    )  # fmt: skip


def first_daemon(project: Path, model_dir: Path, tmp_path: Path) -> subprocess.Popen[str]:
    home = tmp_path / "a-home"
    home.mkdir()
    env = {**os.environ, "GITMEM_EMBED_MODEL_DIR": str(model_dir), "HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitmem", "watch", "--idle", "120"], cwd=project, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    _until(lambda: client.ping(discover(project)) is not None, proc, "the first machine's daemon")
    return proc


def _until(done: Any, proc: subprocess.Popen[str] | None, what: str, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not done():
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"{what} exited: {proc.stderr.read() if proc.stderr else ''}")
        assert time.monotonic() < deadline, f"{what}: not in time"
        time.sleep(0.2)


@pytest.mark.parametrize("shared_locks", [True, False], ids=["locks-span", "local-locks"])
def test_each_machine_runs_a_daemon_of_its_own(
    project: Path, model_dir: Path, tmp_path: Path, shared_locks: bool
) -> None:
    """The first machine's daemon serves it; the second machine's `gitmem watch` starts
    one of its own, under names of its own, and both serve their machine with the
    model. Before session 64, where the file system's locks span machines the second's
    stopped at once ("another `gitmem watch` of yours already serves this work tree"),
    and its hooks never ranked with embeddings; where they do not, it took the socket's
    name, and the first machine's daemon exited ("its socket was removed")."""
    state = project / ".git" / "gitmem"
    with (
        killed_at_the_end(first_daemon(project, model_dir, tmp_path)) as first,
        second_machine(project, tmp_path, model_dir, shared_locks=shared_locks) as b,
    ):
        assert _search(b.run([str(GITMEM), *SEARCH]))[0] == "in-process"
        doctor = b.run([str(GITMEM), "doctor"]).stdout
        line = next(x for x in doctor.splitlines() if " daemon " in f" {x} ")
        assert f"not running on this machine: {socket.gethostname()} (pid " in line, line
        second = b.start([sys.executable, "-m", "gitmem", "watch", "--idle", "120"])
        with killed_at_the_end(second):
            _until(lambda: _search(b.run([str(GITMEM), *SEARCH]))[0] == "daemon", second,
                   "the second machine's daemon")  # fmt: skip
            _, hit = _search(b.run([str(GITMEM), *SEARCH]))
            assert hit["title"] == MONEY and {"path", "embed"} <= set(hit["ranks"]), hit
            tagged = list(state.glob("watch.*.sock"))
            assert [p.name for p in tagged] == [f"watch.{_boot(b)}.sock"]
            doctor = b.run([str(GITMEM), "doctor"]).stdout
            assert "daemon           running (pid " in doctor, doctor
            # the first machine's still serves it
            served, hit = _search(here(project, SEARCH))
            assert served == "daemon" and "embed" in hit["ranks"], hit
            assert first.poll() is None
            # a record changed on the first machine reaches the second's daemon (whose
            # watchdog sees no change another machine makes)
            decision(project, "0001-money.md", "Money is integer cents, in every currency",
                     globs=["billing/**"])  # fmt: skip
            _until(lambda: _search(b.run([str(GITMEM), *SEARCH]))[1]["title"].endswith(
                "every currency"), second, "the second machine's daemon")  # fmt: skip
            assert _search(b.run([str(GITMEM), *SEARCH]))[0] == "daemon"
            pid = (state / f"watch.{_boot(b)}.lock").read_text().split()[0]  # b's pid
            assert b.run(["kill", "-TERM", pid]).returncode == 0
            assert second.wait(timeout=30) == 0
        assert not tagged[0].exists()  # removed at its exit
        assert _search(here(project, SEARCH))[0] == "daemon"
        assert first.poll() is None
    first.kill()
    assert "socket was removed" not in (first.communicate()[1] or "")


def _boot(machine: Machine) -> str:
    return machine.run(["cat", BOOT_ID]).stdout.strip()[:8]


def test_a_session_on_the_second_machine_starts_its_daemon(
    project: Path, model_dir: Path, tmp_path: Path
) -> None:
    """With `watch_autostart`, a session on the second machine starts that machine's
    daemon, though the first machine's socket is in place: the hook asked it, found
    nobody there, and before session 64 the daemon it started went no further than the
    lock (or took the first machine's socket)."""
    write(project, ".continuity/config.yaml", "watch_autostart: true\n")
    state = project / ".git" / "gitmem"
    with (
        killed_at_the_end(first_daemon(project, model_dir, tmp_path)) as first,
        second_machine(project, tmp_path, model_dir, shared_locks=True) as b,
    ):
        start = json.dumps({"session_id": "b1", "cwd": str(b.view), "hook_event_name":
                            "SessionStart", "source": "startup",
                            "transcript_path": str(b.view / "t.jsonl")})  # fmt: skip
        done = b.run([str(GITMEM_HOOK), "claude", "session-start"], stdin=start)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        _until(lambda: _search(b.run([str(GITMEM), *SEARCH]))[0] == "daemon", None,
               "the second machine's daemon")  # fmt: skip
        assert [p.name for p in state.glob("watch.*.sock")] == [f"watch.{_boot(b)}.sock"]
        assert _search(here(project, SEARCH))[0] == "daemon"
        assert first.poll() is None


def test_what_an_earlier_boot_left_is_taken_over_and_cleared(
    project: Path, model_dir: Path, tmp_path: Path
) -> None:
    """After a crash or a reboot, this machine's daemon takes the plain names over from
    its earlier boot's record, and removes the files it left under names of its own; a
    record of another machine's stays."""
    state = project / ".git" / "gitmem"
    state.mkdir(parents=True, exist_ok=True)
    me = location.machine_id()
    host = daemon._host()
    earlier = "0" * 8 if me != "0" * 8 else "1" * 8
    (state / "watch.lock").write_text(f"4242\nmachine {earlier}\nhost {host}\n")
    with socket.socket(socket.AF_UNIX) as dead:  # the socket a killed daemon left
        dead.bind(str(state / "watch.sock"))
    for tag, who in ((earlier, host), ("abcdef12", "machine-b")):
        (state / f"watch.{tag}.lock").write_text(f"77\nmachine {tag}\nhost {who}\n")
        (state / f"watch.{tag}.sock").write_text("")
    with killed_at_the_end(first_daemon(project, model_dir, tmp_path)) as first:
        assert client.listening(discover(project)) == str(state / "watch.sock")
        assert first.poll() is None
        record = (state / "watch.lock").read_text().splitlines()
        assert record == [str(first.pid), f"machine {me}", f"host {host}"]
    left = sorted(p.name for p in state.glob("watch.*.*"))
    assert left == ["watch.abcdef12.lock", "watch.abcdef12.sock"]


# what the second machine's prompt hooks do, as fast as they can: capture.append
APPEND = """
import sys, time
from gitmem import capture
from gitmem.location import locate
loc = locate(".")
for n in range(int(sys.argv[1])):
    capture.append(loc, "b1", {"kind": "prompt", "time": time.time(), "prompt": f"p{n}"})
    time.sleep(0.005)
"""


def test_a_flush_here_leaves_a_session_going_on_there_whole(
    project: Path, model_dir: Path, tmp_path: Path
) -> None:
    """Where each machine keeps its locks to itself (NFS's local_lock; gitmem's stand-in
    where there are none), a flush on one machine of a session another machine writes to
    cut away the prompts written while it committed: before session 64, 164 of 300 were
    lost. A session going on elsewhere is now that machine's to flush; once it has gone
    quiet there, any machine's flush commits what waits."""
    r = discover(project)
    ref = capture.ref_for("b1")
    with second_machine(project, tmp_path, model_dir, shared_locks=False) as b:
        appender = b.start([sys.executable, "-c", APPEND, "300"])
        with killed_at_the_end(appender):
            flushed = 0
            while appender.poll() is None:  # as `gitmem sessions` or `gitmem sync` here
                flushed += capture.flush(r, "b1")
            assert appender.wait() == 0, appender.stderr.read() if appender.stderr else ""
        assert flushed == 0
        assert here(project, ["capture", "flush"]).returncode == 0
        assert capture.records(r, ref) == []
        # shown here as waiting, as they will be committed
        shown = here(project, ["sessions", "show", ref.removeprefix(capture.REF_ROOT + "/"),
                               "--json"])  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        waiting = json.loads(shown.stdout)["records"]
        assert len(waiting) == 300 and all("machine" not in x for x in waiting)
        done = b.run([str(GITMEM), "capture", "flush"])
        assert (done.returncode, done.stdout.strip()) == (0, "committed 300 records")
        kept = capture.records(r, ref)
        assert sorted(int(x["prompt"][1:]) for x in kept) == list(range(300))
        assert all("machine" not in x for x in kept)  # the note stays in the write-ahead file
        # gone quiet there: flushed here
        b.run([sys.executable, "-c", APPEND, "2"])
        wal = capture.wal_path(r, "b1")
        quiet = time.time() - capture.OTHER_MACHINE_S - 60
        os.utime(wal, (quiet, quiet))
        assert here(project, ["capture", "flush"]).stdout.strip() == "committed 2 records"
        assert len(capture.records(r, ref)) == 302


def test_a_build_here_leaves_a_build_there_to_finish(
    project: Path, model_dir: Path, tmp_path: Path
) -> None:
    """Each machine builds the index under its own lock where the locks stay with each
    machine: a build that finished here removed the generation one there was still
    writing, and that one failed ("the index could not be written (…vectors.tmp.npy: No
    such file or directory)"), before session 64."""
    for n in range(2, 2000):  # enough that embedding them all takes seconds
        decision(project, f"{n:04d}-d.md", f"Decision {n} on topic {n % 37}",
                 globs=[f"mod{n}/**"], body=f"## Decision\n\nThing {n}, for {n * 7}.\n")  # fmt: skip
    commit_all(project, "many")
    assert here(project, ["index"]).returncode == 0
    folder = project / ".git" / "gitmem" / "index"
    current = (folder / "CURRENT").read_text().strip()
    with second_machine(project, tmp_path, model_dir, shared_locks=False) as b:
        there = b.start([str(GITMEM), "index", "--full"])
        with killed_at_the_end(there):
            begun = lambda: {p.name for p in folder.glob("gen-*")} - {current}  # noqa: E731
            _until(begun, there, "the second machine's build")
            decision(project, "0001-money.md", MONEY + ", always", globs=["billing/**"])
            done = here(project, ["index"])
            assert done.returncode == 0, done.stderr
            assert there.poll() is None, "the build there ended first: no overlap"
            assert there.wait(timeout=300) == 0, there.stderr.read() if there.stderr else ""
    assert not list(folder.glob("*.building"))
    # the build that finished last is current, though begun before the change: the next
    # build finds the index stale and takes the change in
    assert here(project, ["index"]).returncode == 0
    _, hit = _search(here(project, ["search", "--json", "--no-daemon", "integer cents"]))
    assert hit["title"] == MONEY + ", always", hit


def test_what_builds_left_is_removed_and_what_another_machine_builds_is_kept(
    project: Path,
) -> None:
    """A build killed here leaves its generation and its note; another machine's note
    keeps its generation and the one it builds from, for an hour."""
    assert here(project, ["index"]).returncode == 0
    folder = project / ".git" / "gitmem" / "index"
    current = (folder / "CURRENT").read_text().strip()
    me = location.machine_id()
    other = "0" * 8 if me != "0" * 8 else "1" * 8
    notes = {"gen-1-aaaaaaaa": me, "gen-2-bbbbbbbb": other, "gen-3-cccccccc": other}
    for name, machine in notes.items():
        (folder / name).mkdir()
        (folder / f"{name}.building").write_text(f"machine {machine}\nfrom {current}\n")
    old = time.time() - 2 * 3600  # another machine's build that never ended
    os.utime(folder / "gen-3-cccccccc.building", (old, old))
    decision(project, "0002-api.md", "Version the API with a header", globs=["api/**"])
    assert here(project, ["index"]).returncode == 0
    new = (folder / "CURRENT").read_text().strip()
    assert sorted(p.name for p in folder.glob("gen-*")) == sorted(
        [current, new, "gen-2-bbbbbbbb", "gen-2-bbbbbbbb.building"]
    )
    decision(project, "0003-db.md", "One database", globs=["db/**"])
    assert here(project, ["index"]).returncode == 0  # `current` is kept for the build there
    assert current in {p.name for p in folder.glob("gen-*")}


def test_a_daemon_of_a_machine_without_a_boot_id_is_another_machines(
    project: Path, model_dir: Path, tmp_path: Path
) -> None:
    """A Mac has no boot id: its daemon's record names its host alone. A Linux virtual
    machine's container on it (Docker Desktop) cannot reach that socket, and listens
    beside it under names of its own."""
    state = project / ".git" / "gitmem"
    state.mkdir(parents=True, exist_ok=True)
    (state / "watch.lock").write_text("4242\nmachine \nhost a-mac.local\n")
    with socket.socket(socket.AF_UNIX) as mac:  # as seen from here: nobody answers
        mac.bind(str(state / "watch.sock"))
    with killed_at_the_end(first_daemon(project, model_dir, tmp_path)) as ours:
        mine = state / f"watch.{location.machine_id()}.sock"
        assert client.listening(discover(project)) == str(mine)
        assert (state / "watch.sock").exists() and ours.poll() is None
