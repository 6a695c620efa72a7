"""gitmem on file systems that lack what it asks of them, emulated at the system call
(tests/preload.py): a repository on an NFS mount whose lock daemon does not answer, or on
Lustre mounted without flock, as home and project folders of university and HPC
machines are."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import preload
import pytest
from conftest import SANDBOX_HOME, agent_project, run_gitmem

pytestmark = pytest.mark.skipif(not preload.POSSIBLE, reason="needs gcc, and Linux")


def _no_locks(tmp_path: Path, under: Path, code: int) -> dict[str, str]:
    """The environment of a process whose locks on files under ``under`` fail with
    ``code``."""
    shim = preload.build(tmp_path, preload.NO_LOCKS)
    return {"LD_PRELOAD": str(shim), "NOLOCK_UNDER": str(under), "NOLOCK_ERRNO": str(code)}


def _hook(project: Path, event: str, payload: dict[str, object], env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "gitmem", "hook", "claude", event],
        input=json.dumps({"session_id": "s1", "cwd": str(project), **payload}),
        cwd=project, capture_output=True, text=True, timeout=60,
        env={**os.environ, "HOME": SANDBOX_HOME, **env},
    )  # fmt: skip
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


@pytest.mark.parametrize("code", [errno.ENOLCK, errno.ENOSYS])
def test_a_git_directory_without_locks_keeps_sessions_and_its_index(
    repo: Path, tmp_path: Path, code: int
) -> None:
    """Every lock gitmem takes failed where the git directory's file system has none: no
    prompt was captured ("capture flush: No locks available"), each decision was shown
    again on every tool call ("session state not recorded"), the table was compiled in
    memory on every call ("database is locked"), and `gitmem index` stopped. Locks now
    fall back to stand-ins in the user's own temporary folder, and the files only this
    process writes until they are renamed into place are written without any."""
    project = agent_project(repo)
    env = _no_locks(tmp_path, project / ".git", code)
    read = {"tool_name": "Read", "tool_input": {"file_path": "billing/charge.py"}}
    _hook(project, "prompt", {"prompt": "Refund a charge"}, env)
    assert "integer cents" in _hook(project, "pre-tool", read, env)
    assert _hook(project, "pre-tool", read, env) == ""  # said once a session
    _hook(project, "stop", {"stop_hook_active": False}, env)
    flushed = run_gitmem(project, "capture", "flush", **env)
    assert flushed.returncode == 0, flushed.stderr
    refs = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname:lstrip=-1)", "refs/gitmem/sessions"],
        cwd=project, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert refs == ["s1"]
    built = run_gitmem(project, "index", **env)
    assert built.returncode == 0 and "indexed 2 decisions" in built.stdout, built.stderr
    doctor = run_gitmem(project, "doctor", "--json", "--no-model", **env)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["match table"]["ok"] and checks["index"]["ok"], checks
    assert os.strerror(code) in checks["locks"]["detail"]  # said, with what it means
    assert not (project / ".git/gitmem/hook-errors.log").exists()


HOLD = """
import os, sys, time
from gitmem import locked
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_CREAT, 0o666)
try:
    stand_in = locked.lock(fd, wait=sys.argv[2] == "wait")
except BlockingIOError:
    print("busy", flush=True)
    raise SystemExit(0)
print("held", "stand-in" if stand_in is not None else "flock", flush=True)
time.sleep(float(sys.argv[3]))
locked.unlock(fd, stand_in)
"""


def test_a_stand_in_lock_excludes_as_a_lock_does(tmp_path: Path) -> None:
    """Two processes that lock one file where the file system has no locks: the second
    finds it held, and gets it once the first lets it go."""
    folder = tmp_path / "nfs"
    folder.mkdir()
    env = {**os.environ, **_no_locks(tmp_path, folder, errno.ENOLCK)}
    target = str(folder / "state.lock")
    first = subprocess.Popen(
        [sys.executable, "-c", HOLD, target, "wait", "3"],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert first.stdout is not None and first.stdout.readline().split() == ["held", "stand-in"]
        began = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-c", HOLD, target, "now", "0"],
            capture_output=True, text=True, env=env, timeout=60,
        )  # fmt: skip
        assert second.stdout.split() == ["busy"], second.stderr
        waited = subprocess.run(
            [sys.executable, "-c", HOLD, target, "wait", "0"],
            capture_output=True, text=True, env=env, timeout=60,
        )  # fmt: skip
        assert waited.stdout.split() == ["held", "stand-in"], waited.stderr
        assert time.monotonic() - began > 1.0  # it waited for the first to let go
    finally:
        first.kill()
        first.wait()


def test_concurrent_sessions_lose_nothing_without_locks(repo: Path, tmp_path: Path) -> None:
    """Six processes appending to one session's state at once, where the file system has
    no locks: every line is kept (before session 59 each append failed, "No locks
    available"). That the stand-ins exclude each other is the test above's: these appends
    alone would not show it."""
    from gitmem.agent import state
    from gitmem.repo import discover

    project = agent_project(repo)
    shared = discover(project).shared_state_dir
    env = {**os.environ, **_no_locks(tmp_path, project / ".git", errno.ENOLCK)}
    code = (
        "import sys\nfrom pathlib import Path\nfrom gitmem.agent import state\n"
        "for i in range(100):\n"
        "    with state.open_session(Path(sys.argv[1]), 'same') as s:\n"
        "        s.append('read', paths=[f'{sys.argv[2]}-{i}'])\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(shared), f"p{n}"], env=env)
        for n in range(6)
    ]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    view = state.read_view(shared, "same")
    assert len(view.read) == 600 and len(set(view.read)) == 600


def test_a_git_directory_without_mmap_is_indexed(
    repo: Path, tmp_path: Path, model_dir: Path
) -> None:
    """Where the git directory's file system cannot map files (a FUSE mount with direct
    I/O, some network file systems: "No such device"), every `gitmem index` failed ("the
    index could not be written (No such device)"), Whoosh reading the index it was
    building through mmap, and the embedding matrix was taken for a broken one. The index
    is now read without mmap: it builds, is found up to date, and takes a record's change."""
    project = agent_project(repo)
    shim = preload.build(tmp_path, preload.NO_MMAP)
    env = {"LD_PRELOAD": str(shim), "NOMMAP_UNDER": str(project / ".git"),
           "GITMEM_EMBED_MODEL_DIR": str(model_dir)}  # fmt: skip
    built = run_gitmem(project, "index", "--full", **env)
    assert built.returncode == 0 and "indexed 2 decisions" in built.stdout, built.stderr
    again = run_gitmem(project, "index", **env)
    assert again.returncode == 0 and "index up to date" in again.stdout, again.stderr
    record = project / ".continuity/decisions/0002-api.md"
    record.write_text(record.read_text() + "\nClients also send a request id.\n")
    changed = run_gitmem(project, "index", **env)
    assert changed.returncode == 0 and "1 re-indexed" in changed.stdout, changed.stderr
