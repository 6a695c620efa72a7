"""Turns that never ended (the agent killed, or interrupted and then quit): their edits are
noted by the capture flusher once the session has gone quiet (gitmem.unfinished), so that
`gitmem why` and `gitmem sessions --edited` still name the session. Run with Codex's hook
payloads (Codex has no session end) through the installed commands."""

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

from gitmem import unfinished
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
    assert json.loads(gitmem(project, "sessions", "--edited", "billing", "--json")) == []

    quiet(project, "cx")
    gitmem(project, "capture", "flush")
    assert turns(project, "cx")[3:] == [("turn", ["api/routes.py", "billing/charge.py"], True)]
    (listed,) = json.loads(gitmem(project, "sessions", "--edited", "billing", "--json"))
    assert listed["session_id"] == "cx"
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
