"""gitmem.leangit: git's output for the hooks, spawned without `subprocess`."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import commit_all, git, write

from gitmem import leangit


def test_output_is_what_git_prints_even_past_a_pipe_buffer(repo: Path) -> None:
    write(repo, "a.txt", "a\n")
    commit_all(repo)
    for n in range(1500):  # ~70 KB of status: more than one pipe buffer
        write(repo, f"untracked/some-longer-directory-name/file-{n:05d}.txt", "")
    args = ["status", "--porcelain", "-z", "--untracked-files=all"]
    expected = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, check=True
    ).stdout.decode()
    assert len(expected) > 65536
    assert leangit.output(args, str(repo)) == expected


def test_a_failing_command_or_a_missing_git_is_none(
    repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert leangit.output(["rev-parse", "--verify", "no-such-ref"], str(repo)) is None
    assert leangit.output(["status"], str(tmp_path / "not-there")) is None
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on PATH
    assert leangit.output(["status"], str(repo)) is None


def test_a_command_past_its_timeout_is_killed(repo: Path) -> None:
    # an alias that runs a shell command: git waits for it, so git itself hangs
    git(repo, "config", "alias.hang", "!sleep 23.25")
    started = time.monotonic()
    assert leangit.output(["hang"], str(repo), timeout=0.5) is None
    assert time.monotonic() - started < 10
    # what git started is killed with it (its own process group)
    time.sleep(0.2)
    left = []
    for pid in os.listdir("/proc"):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"23.25" in cmdline and b"sleep" in cmdline:
            left.append(cmdline)
    assert not left


def test_environment_drops_a_git_hooks_repository_and_turns_optional_locks_off(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside a git hook, GIT_DIR and GIT_INDEX_FILE point at the hook's repository and
    temporary index: they must not leak. Optional locks are off, so the hook's `git status`
    never holds index.lock while the user's own git command wants it."""
    write(repo, "a.txt", "a\n")
    commit_all(repo)
    write(repo, "a.txt", "changed\n")
    monkeypatch.setenv("GIT_DIR", str(repo / "no-such-git-dir"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / "no-such-index"))
    env = leangit.environment()
    assert env["GIT_OPTIONAL_LOCKS"] == "0"
    assert "GIT_DIR" not in env and "GIT_INDEX_FILE" not in env
    assert leangit.output(["status", "--porcelain"], str(repo)) == " M a.txt\n"
