"""The agent hooks when the git directory cannot be written: the disk full, or the session's
folder impossible to make. They deliver the decisions all the same (fail open), say why
the session was not recorded, and leave no torn line behind to cost the next record.

The disk is filled for real in a tmpfs of its own, in a private mount namespace
(``unshare``), where the machine allows it; elsewhere RLIMIT_FSIZE stands in: a file may
not grow, which a write meets as the disk full (EFBIG instead of ENOSPC, and a write
that crosses the limit is cut short, as on a disk filling up)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SANDBOX_HOME, commit_all, decision, git, write

from gitmem import capture
from gitmem.agent import state
from gitmem.repo import discover

GITMEM = shutil.which("gitmem")
GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(
    GITMEM is None or GITMEM_HOOK is None, reason="gitmem and gitmem-hook are not installed"
)
MONEY = "Money is integer cents"


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    decision(repo, "0001-money.md", MONEY, globs=["billing/**"],
             body="## Decision\n\nAmounts are integer cents; never floats.\n")  # fmt: skip
    commit_all(repo, "decisions")
    subprocess.run([str(GITMEM), "index"], cwd=repo, check=True, capture_output=True)
    return repo


def payloads(root: Path, session: str) -> dict[str, dict[str, object]]:
    """Claude Code's payloads for one turn that touches a governed file."""
    base = {"session_id": session, "cwd": str(root), "transcript_path": str(root / "t.jsonl")}
    return {
        "session-start": {**base, "hook_event_name": "SessionStart", "source": "startup"},
        "prompt": {**base, "hook_event_name": "UserPromptSubmit",
                   "prompt": "store the fee in billing/charge.py as a float"},
        "pre-tool": {**base, "hook_event_name": "PreToolUse", "tool_name": "Read",
                     "tool_use_id": "t1", "tool_input": {"file_path": str(root / "billing/charge.py")}},
    }  # fmt: skip


def hook(
    event: str, payload: object, cwd: Path, limit: int | None = None
) -> subprocess.CompletedProcess[str]:
    """`gitmem-hook claude EVENT`, with no file allowed to grow past ``limit`` bytes."""
    setlimit: Callable[[], None] | None = None
    if limit is not None:
        setlimit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # noqa: E731
    return subprocess.run(
        [str(GITMEM_HOOK), "claude", event],
        input=json.dumps(payload),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": SANDBOX_HOME},
        preexec_fn=setlimit,
    )


def context_of(stdout: str) -> str:
    return str(json.loads(stdout)["hookSpecificOutput"]["additionalContext"]) if stdout else ""


def session_file(project: Path, session: str) -> Path:
    return Path(state.session_file(discover(project).shared_state_dir, session))


@pytest.mark.parametrize("how", ["no space", "no folder"])
def test_the_decisions_come_when_the_session_cannot_be_recorded(project: Path, how: str) -> None:
    limit = None
    if how == "no space":
        limit = 0  # nothing may grow: every write fails
    else:  # a file where the sessions' folder goes: it cannot be made
        shared = Path(discover(project).shared_state_dir)
        shared.mkdir(parents=True, exist_ok=True)
        (shared / "sessions").write_text("")
    for event, payload in payloads(project, "full").items():
        proc = hook(event, payload, project, limit)
        assert proc.returncode == 0, proc.stderr
        assert MONEY in context_of(proc.stdout), (event, proc.stdout, proc.stderr)
        assert "gitmem: session state not recorded" in proc.stderr, proc.stderr
        assert "decisions may be repeated" in proc.stderr
    if how == "no space":  # with room again, the session is recorded from then on
        assert session_file(project, "full").read_text() == ""
        prompt = payloads(project, "full")["prompt"]
        proc = hook("prompt", prompt, project)
        assert MONEY in context_of(proc.stdout) and not proc.stderr
        again = {**prompt, "prompt": "and the refund in billing/charge.py"}
        assert hook("prompt", again, project).stdout == ""  # shown once, as usual
        view = state.read_view(discover(project).shared_state_dir, "full")
        assert view.shown == {"D-0001"}


def test_a_write_cut_short_is_undone(project: Path) -> None:
    """A record that half fits is taken back: a torn line would take the next one with it."""
    events = payloads(project, "cut")
    assert MONEY in context_of(hook("prompt", events["prompt"], project).stdout)
    path = session_file(project, "cut")
    before = path.read_bytes()
    proc = hook("session-start", events["session-start"], project, limit=len(before) + 8)
    assert proc.returncode == 0 and "session state not recorded" in proc.stderr
    assert path.read_bytes() == before
    view = state.read_view(discover(project).shared_state_dir, "cut")
    assert view.shown == {"D-0001"}  # what was recorded before still counts


def test_a_torn_line_does_not_take_the_next_record(project: Path) -> None:
    """A writer killed midway (or an older gitmem on a full disk) left half a line in the
    session's file and in its capture file: the next records start on a line of their own."""
    events = payloads(project, "torn")
    path = session_file(project, "torn")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"k":"shown","t":1,"ids":["D-0009"]}\n{"k":"read","t":2,"pa')
    wal = Path(capture.wal_path(discover(project), "torn"))
    wal.parent.mkdir(parents=True, exist_ok=True)
    wal.write_text('{"uid":"0123","kind":"prompt","prom')
    proc = hook("prompt", events["prompt"], project)
    assert MONEY in context_of(proc.stdout) and not proc.stderr
    view = state.read_view(discover(project).shared_state_dir, "torn")
    assert view.shown == {"D-0009", "D-0001"}
    again = {**events["prompt"], "prompt": "and the refund in billing/charge.py"}
    assert hook("prompt", again, project).stdout == ""  # recorded: not shown again
    repo = discover(project)
    assert capture.flush(repo, "torn") == 2
    committed = capture.records(repo, capture.ref_for("torn"))
    assert [r["prompt"] for r in committed] == [events["prompt"]["prompt"], again["prompt"]]


FILL = """set -e
mount -t tmpfs -o size=6M tmpfs "$SMALL"
cp -a "$REPO" "$SMALL/repo"
cd "$SMALL/repo"
dd if=/dev/zero of="$SMALL/fill" bs=64K 2>/dev/null || true
for event in session-start prompt pre-tool; do
  gitmem-hook claude $event < "$OUT/$event.json" > "$OUT/$event.out" 2> "$OUT/$event.err"
done
rm "$SMALL/fill"
gitmem-hook claude prompt < "$OUT/again.json" > "$OUT/again.out" 2> "$OUT/again.err"
gitmem capture flush --session disk > /dev/null
git log --format=%B --glob=refs/gitmem > "$OUT/log"
"""


def private_mounts(tmp_path: Path) -> str:
    """`unshare`, where it may mount a tmpfs in a mount namespace of its own; else skip."""
    unshare = shutil.which("unshare")
    probe = [str(unshare), "--mount", "--propagation", "private", "sh", "-c",
             f"mount -t tmpfs -o size=1M tmpfs {tmp_path}"]  # fmt: skip
    if unshare is None or subprocess.run(probe, capture_output=True).returncode != 0:
        pytest.skip("no private mount namespace here (unshare --mount is not permitted)")
    return unshare


def test_on_a_disk_that_is_really_full(project: Path, tmp_path: Path) -> None:
    """The disk full for real: a 6 MB tmpfs filled up, in a mount namespace of the test's own
    (it goes when the process ends: nothing is left mounted)."""
    unshare = private_mounts(tmp_path)
    small, out = tmp_path / "small", tmp_path / "out"
    small.mkdir()
    out.mkdir()
    events = payloads(small / "repo", "disk")
    for event, payload in events.items():
        (out / f"{event}.json").write_text(json.dumps(payload))
    again = {**events["prompt"], "prompt": "keep the fee in billing/charge.py in cents"}
    (out / "again.json").write_text(json.dumps(again))
    memory = tmp_path / "run"  # the user's folder in memory ($XDG_RUNTIME_DIR), not full
    memory.mkdir(mode=0o700)
    env = {**os.environ, "HOME": SANDBOX_HOME, "SMALL": str(small), "REPO": str(project),
           "OUT": str(out), "XDG_RUNTIME_DIR": str(memory)}  # fmt: skip
    proc = subprocess.run([str(unshare), "--mount", "--propagation", "private", "sh", "-c", FILL],
                          env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for event in events:
        assert MONEY in context_of((out / f"{event}.out").read_text()), event
        assert "No space left on device" in (out / f"{event}.err").read_text(), event
    # with room again, recorded as usual; the prompt typed while the disk was full waited
    # in memory and is committed first (before session 33 it was lost)
    assert (out / "again.err").read_text() == ""
    log = (out / "log").read_text()
    assert log.index("keep the fee in billing/charge.py") < log.index("as a float")  # newest first
    assert list(memory.rglob("*.jsonl")) == []  # nothing left in memory


def test_a_prompt_typed_while_the_disk_is_full_waits_in_memory(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The capture file cannot grow (RLIMIT_FSIZE at its size stands in for the full disk;
    a new, smaller file may still be written): the prompt goes to the user's folder in
    memory, `gitmem doctor` says so, and the next flush commits it in its place. Before
    session 33 it was lost."""
    memory = tmp_path / "run"
    memory.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(memory))
    events = payloads(project, "spill")
    long = {**events["prompt"], "prompt": "store the fee in billing/charge.py " + "x" * 300}
    assert MONEY in context_of(hook("prompt", long, project).stdout)
    repo = discover(project)
    wal = Path(capture.wal_path(repo, "spill"))
    size = wal.stat().st_size
    short = {**events["prompt"], "prompt": "and the refund in cents"}
    proc = hook("prompt", short, project, limit=size)
    assert proc.returncode == 0
    assert wal.stat().st_size == size  # the capture file did not grow
    spilled = Path(str(capture.spill_path(repo, "spill")))
    assert spilled.parent.parent == memory / f"gitmem-{os.getuid()}"
    assert [r["prompt"] for r in capture.records_in(spilled.read_bytes())] == [short["prompt"]]
    assert (memory / f"gitmem-{os.getuid()}").stat().st_mode & 0o777 == 0o700
    doctor = subprocess.run([str(GITMEM), "doctor", "--no-model", "--json"], cwd=project,
                            capture_output=True, text=True, env={**os.environ, "HOME": SANDBOX_HOME})  # fmt: skip
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert not checks["capture"]["ok"]
    assert "1 record held in memory since the disk was full" in checks["capture"]["detail"]
    assert capture.pending_sessions(repo) == ["spill"]
    assert capture.flush(repo, "spill") == 2  # room again: both, in the order typed
    committed = capture.records(repo, capture.ref_for("spill"))
    assert [r["prompt"] for r in committed] == [long["prompt"], short["prompt"]]
    assert not spilled.exists() and capture.flush(repo, "spill") == 0
    # a folder in memory that is not the user's alone is never written to
    (memory / f"gitmem-{os.getuid()}").chmod(0o755)
    assert capture.spill_path(repo, "spill") is None


# ------------------------------------------------------------------ the table on a full disk

PRINTS = "The API never prints"


def add_print_rule(root: Path) -> None:
    """A critical decision with a rule, added after the table was written (a `git pull`,
    or the agent writing it): the table on disk does not know it."""
    decision(root, "0002-no-print.md", PRINTS, globs=["api/**"],
             extra="severity: critical\nrules:\n  - forbid: '\\bprint\\('\n"
                   "    message: use the logger, not print\n",
             body="## Decision\n\nThe API logs through the logger.\n")  # fmt: skip
    write(root, "api/routes.py", "x = 1\n")


def gitmem(cwd: Path, *args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """The installed `gitmem`, with no file allowed to grow past ``limit`` bytes."""
    setlimit: Callable[[], None] | None = None
    if limit is not None:
        setlimit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # noqa: E731
    return subprocess.run([str(GITMEM), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "HOME": SANDBOX_HOME},
                          preexec_fn=setlimit)  # fmt: skip


def edit(root: Path, session: str, new: str) -> dict[str, object]:
    return {"session_id": session, "cwd": str(root), "transcript_path": str(root / "t.jsonl"),
            "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "e1",
            "tool_input": {"file_path": str(root / "api/routes.py"), "old_string": "x = 1",
                           "new_string": new}}  # fmt: skip


UNSAVED = "gitmem: could not save the compiled decisions in "


def test_a_critical_rule_added_while_the_table_cannot_be_written_holds(project: Path) -> None:
    """The table and the path map cannot be written (nothing may grow): the hooks compile
    the decisions into memory and answer from them. Before session 56 they used the table
    compiled before, and the edit that broke the new critical rule went through."""
    add_print_rule(project)
    proc = hook("pre-tool", edit(project, "mem", "print(1)"), project, limit=0)
    assert proc.returncode == 0, proc.stderr
    specific = json.loads(proc.stdout)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny", proc.stdout
    assert "use the logger, not print" in specific["permissionDecisionReason"]
    assert proc.stderr.count(UNSAVED) == 1, proc.stderr  # said once, though read twice
    prompt = {**payloads(project, "mem")["prompt"], "prompt": "log the request in api/routes.py"}
    proc = hook("prompt", prompt, project, limit=0)
    assert PRINTS in context_of(proc.stdout), (proc.stdout, proc.stderr)
    start = hook("session-start", payloads(project, "mem")["session-start"], project, limit=0)
    assert start.returncode == 0 and "D-0002" in context_of(start.stdout), start.stdout
    state_dir = discover(project).state_dir
    assert not [p.name for p in state_dir.iterdir() if p.name.endswith(".tmp")]
    # with room again, written as usual, and said no more
    proc = hook("pre-tool", edit(project, "mem", "log(1)"), project)
    assert proc.returncode == 0 and UNSAVED not in proc.stderr, proc.stderr
    assert PRINTS in context_of(proc.stdout)


def test_commands_answer_from_the_records_when_the_table_cannot_be_written(
    project: Path,
) -> None:
    """Before session 56 each ended in a traceback (SQLite: "database or disk is full")."""
    add_print_rule(project)
    why = gitmem(project, "why", "api/routes.py", limit=0)
    assert why.returncode == 0 and PRINTS in why.stdout, why.stderr
    assert UNSAVED in why.stderr and "Traceback" not in why.stderr
    listed = gitmem(project, "list", "--json", limit=0)
    assert listed.returncode == 0, listed.stderr
    assert {d["id"] for d in json.loads(listed.stdout)} == {"D-0001", "D-0002"}
    write(project, "api/routes.py", "print(1)\n")
    git(project, "add", "api/routes.py")
    check = gitmem(project, "check", "--staged", limit=0)
    assert check.returncode == 1, check.stderr  # refused by the rule, not let through
    assert "use the logger, not print" in check.stdout + check.stderr
    found = gitmem(project, "search", "print logger", "--no-daemon", limit=0)
    assert found.returncode == 0 and "D-0002" in found.stdout, found.stderr
    assert "the search index could not be brought up to date" in found.stderr
    stale = gitmem(project, "stale", limit=0)
    assert "Traceback" not in stale.stderr, stale.stderr


def test_an_index_that_cannot_be_written_keeps_the_one_before(project: Path) -> None:
    repo = discover(project)
    current = (repo.state_dir / "index" / "CURRENT").read_text()
    before = sorted(p.name for p in (repo.state_dir / "index").iterdir())
    add_print_rule(project)
    proc = gitmem(project, "index", limit=0)
    assert proc.returncode == 1, proc.stderr
    assert "Error: the index could not be written (" in proc.stderr, proc.stderr
    assert "the one built before is kept" in proc.stderr and "Traceback" not in proc.stderr
    assert (repo.state_dir / "index" / "CURRENT").read_text() == current
    assert sorted(p.name for p in (repo.state_dir / "index").iterdir()) == before
    assert not [p.name for p in repo.state_dir.iterdir() if p.name.endswith(".tmp")]
    proc = gitmem(project, "index")  # room again
    assert proc.returncode == 0, proc.stderr
    assert "D-0002" in gitmem(project, "search", "print logger", "--no-daemon").stdout


def test_a_record_that_finds_no_room_names_its_file_and_leaves_none(project: Path) -> None:
    proc = gitmem(project, "new", "Queue retries back off", limit=0)
    assert proc.returncode == 1
    made = project / ".continuity" / "decisions" / "0002-queue-retries-back-off.md"
    assert f"cannot use {made}: File too large" in proc.stderr, proc.stderr
    assert not made.exists()


def test_init_and_install_that_find_no_room_leave_no_empty_folder(
    project: Path, tmp_path: Path
) -> None:
    """Before session 57 `gitmem init` left an empty .continuity/decisions/ behind its
    error, and `gitmem install claude` an empty .claude/ (harmless to run again, but
    folders a user did not ask for)."""
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q")
    init = gitmem(fresh, "init", limit=0)
    assert init.returncode == 1 and "config.yaml: File too large" in init.stderr, init.stderr
    assert not (fresh / ".continuity").exists()
    install = gitmem(project, "install", "claude", limit=0)
    assert install.returncode == 1 and "settings.json: File too large" in install.stderr
    assert not (project / ".claude").exists()
    assert gitmem(fresh, "init").returncode == 0 and (fresh / ".continuity/config.yaml").is_file()


FILL_AFTER_PULL = """set -e
mount -t tmpfs -o size=6M tmpfs "$SMALL"
cp -a "$REPO" "$SMALL/repo"
cd "$SMALL/repo"
dd if=/dev/zero of="$SMALL/fill" bs=64K 2>/dev/null || true
gitmem-hook claude pre-tool < "$OUT/edit.json" > "$OUT/edit.out" 2> "$OUT/edit.err"
gitmem why api/routes.py > "$OUT/why.out" 2> "$OUT/why.err"
gitmem index > /dev/null 2> "$OUT/index.err" || echo $? > "$OUT/index.rc"
gitmem doctor --no-model --json > "$OUT/doctor.json" 2> /dev/null || true
rm "$SMALL/fill"
gitmem doctor --no-model --json > "$OUT/doctor-room.json" 2> /dev/null || true
"""


def test_a_rule_added_before_the_disk_filled_holds_on_it(project: Path, tmp_path: Path) -> None:
    """The disk full for real (a 6 MB tmpfs filled up, as above): SQLite's "database or
    disk is full". The new rule holds, `why` names the new decision, `gitmem index` says
    why it stopped, and `gitmem doctor` says how much room there is and what it costs."""
    unshare = private_mounts(tmp_path)
    add_print_rule(project)
    small, out = tmp_path / "small", tmp_path / "out"
    small.mkdir()
    out.mkdir()
    (out / "edit.json").write_text(json.dumps(edit(small / "repo", "full", "print(1)")))
    env = {**os.environ, "HOME": SANDBOX_HOME, "SMALL": str(small), "REPO": str(project),
           "OUT": str(out), "XDG_RUNTIME_DIR": ""}  # fmt: skip
    proc = subprocess.run([unshare, "--mount", "--propagation", "private", "sh", "-c",
                           FILL_AFTER_PULL], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    denied = json.loads((out / "edit.out").read_text())["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny", denied
    assert "(database or disk is full)" in (out / "edit.err").read_text()
    assert PRINTS in (out / "why.out").read_text(), (out / "why.err").read_text()
    assert (out / "index.rc").read_text().strip() == "1"
    assert "the index could not be written (" in (out / "index.err").read_text()
    checks = {c["name"]: c for c in json.loads((out / "doctor.json").read_text())["checks"]}
    assert not checks["disk"]["ok"] and checks["disk"]["detail"].startswith("0 B free on the disk")
    assert "not rebuilt until there is room" in checks["match table"]["detail"]
    roomy = json.loads((out / "doctor-room.json").read_text())["checks"]
    assert "disk" not in {c["name"] for c in roomy}


def test_the_daemon_serves_when_its_index_cannot_be_written(project: Path, tmp_path: Path) -> None:
    """`gitmem watch` where nothing may grow: before session 56 it exited at start (its
    first re-index failed), so every search and hook went without it."""
    import time

    from gitmem import client

    add_print_rule(project)
    sandbox = tmp_path / "ort-home"  # onnxruntime writes a device id under ~/.cache
    sandbox.mkdir()
    proc = subprocess.Popen(
        [str(GITMEM), "watch", "--idle", "60"], cwd=project, text=True,
        env={**os.environ, "HOME": str(sandbox)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0)),
    )  # fmt: skip
    try:
        repo = discover(project)
        deadline = time.monotonic() + 60
        while client.ping(repo) is None:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else "watch exited"
            assert time.monotonic() < deadline, "watch did not serve"
            time.sleep(0.05)
        found = gitmem(project, "search", "--json", "print logger")
        data = json.loads(found.stdout)
        assert data["served_by"] == "daemon", found.stderr
        assert data["hits"][0]["id"] == "D-0002"
        assert "ranked by keyword and path only" in found.stderr
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "re-index failed: " in err and "serving from the records, tried again in 30 s" in err
    assert UNSAVED in err


def test_git_hooks_that_find_no_room_are_left_as_they_were(project: Path) -> None:
    """Before session 56 `gitmem install git` left an empty pre-commit that git does not
    run, the project's own hook moved aside, and a next install that refused to go on
    ("both exist; move one aside first")."""
    hooks = project / ".git" / "hooks"
    own = hooks / "pre-commit"
    own.write_text("#!/bin/sh\necho the project own check\n")
    own.chmod(0o755)
    before = {p.name: p.read_bytes() for p in hooks.iterdir()}
    proc = gitmem(project, "install", "git", limit=0)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == f"Error: cannot use {own}: File too large\n"
    assert {p.name: p.read_bytes() for p in hooks.iterdir()} == before
    assert own.stat().st_mode & 0o111
    proc = gitmem(project, "install", "git")  # room again
    assert proc.returncode == 0, proc.stderr
    assert (hooks / "pre-commit.before-gitmem").read_text().endswith("own check\n")
    committed = subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=project,
                               capture_output=True, text=True, env={**os.environ, "HOME": SANDBOX_HOME})  # fmt: skip
    assert committed.returncode == 0 and "the project own check" in committed.stderr
