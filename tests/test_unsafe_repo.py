"""A repository git refuses for its owner (``safe.directory``): a dev container's user, WSL's
``/mnt/c``, a CI job in a container. gitmem must say so and how to fix it, never report a
failed git command as a fact, and lose no captured prompt; once trusted, all is normal."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import SANDBOX_HOME, agent_project, git_home, run_gitmem

from gitmem.agent.runner import ERROR_LOG

OTHER_UID = 54321  # no such user: what a bind mount from the host often shows
FIX = "git config --global --add safe.directory"

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving the repository to another user needs root (CI runs as root)",
)


def _give_away(root: Path) -> None:
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(folder, name), OTHER_UID, OTHER_UID)
    os.lchown(root, OTHER_UID, OTHER_UID)


def _hook(project: Path, event: str, payload: dict[str, object], **env: str) -> str:
    proc = subprocess.run(
        ["gitmem-hook", "claude", event],
        input=json.dumps({"cwd": str(project), **payload}),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": SANDBOX_HOME, "GITMEM_USER": "alice", **env},
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture
def foreign(repo: Path) -> Path:
    """The agent-hook project, indexed by its owner, then owned by another user."""
    agent_project(repo)
    assert run_gitmem(repo, "index").returncode == 0
    _give_away(repo)
    return repo


@needs_root
def test_commands_say_git_refuses_and_how_to_trust(foreign: Path) -> None:
    for args in (("why", "billing/charge.py"), ("lint",), ("check",), ("sessions",)):
        proc = run_gitmem(foreign, *args)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        assert "git refuses to work in" in proc.stderr, (args, proc.stderr)
        assert f"{FIX} {foreign}" in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
        # before: `why` said the decision was "not committed yet", `check` printed the
        # usage of `git diff --no-index`, `sessions` had no sessions
        assert "not committed yet" not in proc.stdout and "usage:" not in proc.stderr
    # what needs no git still works
    listed = run_gitmem(foreign, "list")
    assert listed.returncode == 0 and "D-0001" in listed.stdout


@needs_root
def test_hooks_keep_serving_say_why_once_and_lose_no_prompt(foreign: Path, tmp_path: Path) -> None:
    start = json.loads(_hook(foreign, "session-start", {"session_id": "s1"}))
    context = start["hookSpecificOutput"]["additionalContext"]
    assert "Money is integer cents" in context  # the decisions still come, from the table
    assert "git refuses this repository" in context and f"{FIX} {foreign}" in context
    prompt = json.loads(
        _hook(foreign, "prompt", {"session_id": "s1", "prompt": "add a route to api/routes.py"})
    )
    assert "D-0002" in prompt["hookSpecificOutput"]["additionalContext"]
    assert _hook(foreign, "stop", {"session_id": "s1"}) == ""
    # the flusher the stop hook started in the background fails: it says so where
    # doctor shows it (before: a traceback on a closed stderr, and nothing in any log)
    log = foreign / ".git" / "gitmem" / ERROR_LOG
    deadline = time.time() + 30
    while time.time() < deadline and "capture flush" not in _read(log):
        time.sleep(0.1)
    assert "capture flush: git refuses to work in" in _read(log)

    doctor = run_gitmem(foreign, "doctor", "--json", "--no-model")
    assert doctor.returncode == 0, doctor.stderr  # before: it died on `git ls-files`
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert not checks["git"]["ok"] and f"{FIX} {foreign}" in checks["git"]["detail"]
    assert not checks["lint"]["ok"] and "refuses" in checks["lint"]["detail"]
    assert checks["capture"]["detail"].startswith("1 record of 1 session waits")

    trusted = git_home(tmp_path, f"[safe]\n\tdirectory = {foreign}\n")
    env = {"HOME": str(trusted)}
    sessions = run_gitmem(foreign, "sessions", "--json", **env)
    assert sessions.returncode == 0, sessions.stderr
    (row,) = json.loads(sessions.stdout)
    assert row["id"] == "alice/s1" and row["prompts"] == 1  # waited, and nothing lost
    doctor = run_gitmem(foreign, "doctor", "--json", "--no-model", **env)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["git"]["ok"] and checks["lint"]["ok"] and checks["capture"]["ok"]
    again = json.loads(_hook(foreign, "session-start", {"session_id": "s2"}, **env))
    assert "git refuses" not in again["hookSpecificOutput"]["additionalContext"]


def test_git_refusal_is_recognised_for_any_user(repo: Path) -> None:
    """git's own switch to act as if the repository were someone else's (its test suite's):
    the refusal is read from what git says, whoever runs the tests."""
    agent_project(repo)
    proc = run_gitmem(repo, "lint", GIT_TEST_ASSUME_DIFFERENT_OWNER="1")
    assert proc.returncode == 1 and "git refuses to work in" in proc.stderr, proc.stderr
    assert FIX in proc.stderr and "Traceback" not in proc.stderr
    assert run_gitmem(repo, "lint").returncode == 0


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""
