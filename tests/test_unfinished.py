"""Turns that never ended (the agent killed, or interrupted and then quit): their edits are
noted by the capture flusher once the session has gone quiet (gitmem.unfinished), so that
`gitmem why` and `gitmem sessions --edited` still name the session. Run with Codex's hook
payloads (Codex has no session end) through the installed commands. And before any flush,
`why` and `sessions` read this clone's state for the edits of a turn in progress, or of
one the agent was killed in, that no record lists yet."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import agent_project, run_agent_hook, run_gitmem

from gitmem import capture, unfinished
from gitmem.agent import state
from gitmem.cli.main import cli
from gitmem.repo import discover

pytestmark = pytest.mark.skipif(
    shutil.which("gitmem-hook") is None, reason="gitmem-hook is not installed"
)


@pytest.fixture
def project(repo: Path) -> Path:
    project = agent_project(repo)
    assert CliRunner().invoke(cli, ["install", "codex"]).exit_code == 0
    return project


def codex(project: Path, event: str, payload: dict[str, object]) -> None:
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    command = str(hooks[event][-1]["hooks"][0]["command"])
    base = {"cwd": str(project), "hook_event_name": event, "permission_mode": "default"}
    run_agent_hook(project, command, {**base, **payload})


def prompt(project: Path, sid: str, text: str, *edits: str, stop: bool) -> None:
    """One turn of session ``sid``: the prompt, an apply_patch of each of ``edits``, and
    the turn's end only if ``stop`` (else the agent was killed before it)."""
    turn = {"session_id": sid, "turn_id": text}
    codex(project, "UserPromptSubmit", {**turn, "prompt": text})
    for path in edits:
        body = f"*** Begin Patch\n*** Update File: {project / path}\n@@\n+x = 2\n*** End Patch"
        edit = {"tool_name": "apply_patch", "tool_input": {"command": body}}
        codex(project, "PostToolUse", {**turn, **edit, "tool_response": "Success"})
    if stop:
        codex(project, "Stop", {**turn, "stop_hook_active": False})


def quiet(project: Path, sid: str, minutes: float = 11) -> None:
    """As if ``minutes`` had passed with no hook of the session run: its state file, and
    the flusher's last look (if any), that much earlier."""
    shared = discover(project).shared_state_dir
    for path in (state.session_file(shared, sid), os.path.join(shared, unfinished.STAMP)):
        if os.path.exists(path):
            then = os.stat(path).st_mtime - minutes * 60
            os.utime(path, (then, then))


def gitmem(project: Path, *args: str) -> str:
    done = run_gitmem(project, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def turns(project: Path, sid: str) -> list[tuple[str, list[str] | None, bool]]:
    (session,) = [
        s for s in json.loads(gitmem(project, "sessions", "--json")) if s["session_id"] == sid
    ]
    records = json.loads(gitmem(project, "sessions", "show", session["id"], "--json"))["records"]
    return [(r["kind"], r.get("files_edited"), bool(r.get("unfinished"))) for r in records]


def test_a_killed_turn_is_noted_once_the_session_is_quiet(project: Path) -> None:
    prompt(project, "cx", "version the routes", "api/routes.py", stop=True)
    prompt(project, "cx", "and charge in cents", "billing/charge.py", stop=False)  # killed
    gitmem(project, "capture", "flush")
    # not yet quiet: a turn may still be running (a long build, a permission prompt)
    assert turns(project, "cx") == [
        ("prompt", None, False),
        ("turn", ["api/routes.py"], False),
        ("prompt", None, False),
    ]
    # listed from this clone's state alone: no record has the edit yet
    (listed,) = json.loads(gitmem(project, "sessions", "--edited", "billing", "--json"))
    assert (listed["files_edited"], listed["unrecorded"]) == (
        ["api/routes.py"],
        ["billing/charge.py"],
    )

    quiet(project, "cx")
    gitmem(project, "capture", "flush")
    assert turns(project, "cx")[3:] == [("turn", ["api/routes.py", "billing/charge.py"], True)]
    (listed,) = json.loads(gitmem(project, "sessions", "--edited", "billing", "--json"))
    assert (listed["session_id"], listed["unrecorded"]) == ("cx", [])
    shown = json.loads(gitmem(project, "sessions", "show", listed["id"], "--json"))["records"]
    # who, where and with which agent: as the session's own records say
    assert (shown[-1]["agent"], shown[-1]["branch"]) == ("codex", "main")
    why = json.loads(gitmem(project, "why", "billing/charge.py", "--json"))
    (session,) = why[0]["sessions"] if isinstance(why, list) else why["sessions"]
    assert session["prompt_behind_edit"] == "and charge in cents"
    assert "(its turn never ended)" in gitmem(project, "sessions", "show", listed["id"])

    # looked at once: flushing again notes nothing more
    gitmem(project, "capture", "flush")
    assert len(turns(project, "cx")) == 4


def test_what_a_killed_turns_commands_wrote_is_noted_too(project: Path) -> None:
    """The agent ran a script (its command names nothing it writes) and was killed before
    the turn ended: the flusher counts what the script wrote, as a turn's end would."""
    prompt(project, "cx", "regenerate the client", stop=False)
    call = {"session_id": "cx", "turn_id": "t", "tool_name": "Bash"}
    call["tool_input"] = {"command": "sh scripts/gen.sh"}
    codex(project, "PreToolUse", call)
    subprocess.run("mkdir -p api/gen && echo 'c = 1' > api/gen/client.py", shell=True,
                   cwd=project, check=True)  # fmt: skip
    codex(project, "PostToolUse", {**call, "tool_response": "ok"})
    codex(project, "PreToolUse", call)  # killed during this one: its writes are unknown
    quiet(project, "cx")
    gitmem(project, "capture", "flush")
    (session,) = why_sessions(project, "api/gen/client.py")
    assert (session["prompt_behind_edit"], session["edit_unrecorded"]) == (
        "regenerate the client",
        False,
    )
    (listed,) = json.loads(gitmem(project, "sessions", "--json"))
    shown = json.loads(gitmem(project, "sessions", "show", listed["id"], "--json"))["records"]
    assert shown[-1]["written_by_commands"] == ["api/gen/client.py"]
    assert shown[-1]["unfinished"] is True


def test_a_session_that_goes_on_is_not_noted_twice(project: Path) -> None:
    """Quiet for a while mid-turn, then going on: the early record lists the edits so
    far, and the turn's end lists the ones after it, as after any turn."""
    prompt(project, "cx", "charge in cents", "billing/charge.py", stop=False)
    quiet(project, "cx")
    gitmem(project, "capture", "flush")
    prompt(project, "cx", "now the routes", "api/routes.py", stop=True)
    gitmem(project, "capture", "flush")
    assert turns(project, "cx") == [
        ("prompt", None, False),
        ("turn", ["billing/charge.py"], True),
        ("prompt", None, False),
        ("turn", ["api/routes.py", "billing/charge.py"], False),
    ]
    quiet(project, "cx")  # quiet again, with nothing new
    gitmem(project, "capture", "flush")
    assert len(turns(project, "cx")) == 4


def test_nothing_is_noted_where_prompts_are_not_captured(project: Path) -> None:
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    off = f"export GITMEM_CAPTURE=off; {hooks['UserPromptSubmit'][-1]['hooks'][0]['command']}"
    run_agent_hook(project, off, {"session_id": "q", "cwd": str(project), "prompt": "hi"})
    body = f"*** Begin Patch\n*** Update File: {project / 'api/routes.py'}\n@@\n+x\n*** End Patch"
    edit = {"tool_name": "apply_patch", "tool_input": {"command": body}}
    codex(project, "PostToolUse", {"session_id": "q", **edit, "tool_response": "Success"})
    quiet(project, "q")
    gitmem(project, "capture", "flush")
    assert json.loads(gitmem(project, "sessions", "--json")) == []


def test_each_quiet_state_file_is_read_once(project: Path) -> None:
    """The flusher runs after every turn of every session: it reads a quiet session's
    state once, not at each run, and again only after the session wrote to it."""
    prompt(project, "a", "charge in cents", "billing/charge.py", stop=True)
    repo = discover(project)
    gitmem(project, "capture", "flush")
    quiet(project, "a")
    assert unfinished.quiet_sessions(repo, time.time() - 3600, time.time() - 600) == ["a"]
    assert unfinished.note(repo) == []  # its edits were noted at its stop
    stamp = os.stat(os.path.join(repo.shared_state_dir, unfinished.STAMP)).st_mtime
    assert unfinished.quiet_sessions(repo, stamp, time.time() - 600) == []
    prompt(project, "a", "and the routes", "api/routes.py", stop=False)
    quiet(project, "a")
    assert unfinished.note(repo) == ["a"]


def test_sync_notes_a_killed_turn_before_it_pushes(project: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=project, check=True)
    prompt(project, "cx", "charge in cents", "billing/charge.py", stop=False)
    quiet(project, "cx")
    gitmem(project, "sync")
    shown = subprocess.run(
        ["git", "log", "--format=%s", "--all"], cwd=remote, capture_output=True, text=True
    ).stdout.split("\n")
    assert "gitmem turn: turn" in shown, shown


def why_sessions(project: Path, path: str) -> list[dict[str, object]]:
    (report,) = json.loads(gitmem(project, "why", path, "--json"))
    return list(report["sessions"])


def test_why_and_sessions_show_a_turn_in_progress_at_once(project: Path) -> None:
    """Before any flush looks at it: this clone's state says what the turn in progress
    (or one the agent was killed in) edited, and which prompt it answers."""
    prompt(project, "cx", "version the routes", "api/routes.py", stop=True)
    prompt(project, "cx", "and charge in cents", "billing/charge.py", stop=False)
    (now,) = why_sessions(project, "billing/charge.py")
    assert (now["session_id"], now["prompt_behind_edit"]) == ("cx", "and charge in cents")
    assert (now["edit_unrecorded"], now["unrecorded"], now["prompts"]) == (
        True,
        ["billing/charge.py"],
        2,  # its second prompt still waits to be committed
    )
    (before,) = why_sessions(project, "api/routes.py")
    assert (before["prompt_behind_edit"], before["edit_unrecorded"]) == (
        "version the routes",
        False,
    )
    assert "(in a turn not ended yet)" in gitmem(project, "why", "billing")
    (listed,) = json.loads(gitmem(project, "sessions", "--edited", "billing", "--json"))
    assert listed["unrecorded"] == ["billing/charge.py"]
    assert "2 files edited (1 in a turn not ended yet)" in gitmem(project, "sessions")
    shown = json.loads(gitmem(project, "sessions", "show", listed["id"], "--json"))
    assert shown["unrecorded"] == ["billing/charge.py"]

    # the turn ends: its record lists the edit, and nothing is left unrecorded
    codex(project, "Stop", {"session_id": "cx", "turn_id": "x", "stop_hook_active": False})
    gitmem(project, "capture", "flush")
    (after,) = why_sessions(project, "billing/charge.py")
    assert (after["prompt_behind_edit"], after["edit_unrecorded"]) == ("and charge in cents", False)
    assert after["unrecorded"] == []
    assert "not ended" not in gitmem(project, "sessions")


def test_a_first_turn_in_progress_is_shown_before_anything_is_committed(project: Path) -> None:
    prompt(project, "c1", "add refunds", "billing/charge.py", stop=False)
    repo = discover(project)
    assert capture_refs(project) == []  # its prompt waits in the write-ahead file
    (now,) = why_sessions(project, "billing/charge.py")
    assert (now["session_id"], now["prompt_behind_edit"]) == ("c1", "add refunds")
    assert now["ref"].startswith("refs/gitmem/sessions/")
    # a session its user forgot, and one a day old, are not named
    marker = capture.forgotten_marker(repo, "c1")
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    open(marker, "w").close()
    assert why_sessions(project, "billing/charge.py") == []
    os.unlink(marker)
    assert len(why_sessions(project, "billing/charge.py")) == 1
    quiet(project, "c1", minutes=25 * 60)
    assert why_sessions(project, "billing/charge.py") == []


def capture_refs(project: Path) -> list[str]:
    out = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname)", "refs/gitmem"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()


def test_unrecorded_edits_are_those_since_the_last_note(repo: Path) -> None:
    shared, root = str(discover(repo).shared_state_dir), str(repo)
    with state.open_session(shared, "s") as session:
        session.append("edited", paths=["a.py"], root=root)
        session.append(state.NOTED, n=1)
        session.append("edited", paths=["a.py", "b.py"], root=root)  # a.py: listed already
        session.append("edited", paths=["c.py"], root="/elsewhere")  # another work tree
    assert state.unrecorded_edits(shared, "s", root) == ["b.py"]
    with state.open_session(shared, "s") as session:
        session.append("closed")  # its closing record lists every edit
    assert state.unrecorded_edits(shared, "s", root) == []
    with state.open_session(shared, "s") as session:
        session.append("edited", paths=["d.py"], root=root)  # resumed after its end
    assert state.unrecorded_edits(shared, "s", root) == ["d.py"]
    assert state.unrecorded_edits(shared, "none", root) == []
