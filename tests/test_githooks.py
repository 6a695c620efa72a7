"""Native git hook shims and the Decisions: trailer, driven by real `git commit`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import MONEY_RULE as RULE
from conftest import commit_all, git, write

from gitmem.cli.main import cli

pytestmark = pytest.mark.skipif(shutil.which("gitmem") is None, reason="console script missing")


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, ".continuity/decisions/0001-money.md", RULE)
    commit_all(repo, "init")
    return repo


def commit(root: Path, message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=120,
    )


def test_shims_block_violations_add_trailers_and_keep_legacy(project: Path) -> None:
    hooks = project / ".git" / "hooks"
    legacy = b'#!/bin/sh\necho legacy-ran >> "$(git rev-parse --git-dir)/legacy.log"\n'
    (hooks / "pre-commit").write_bytes(legacy)
    (hooks / "pre-commit").chmod(0o755)
    result = CliRunner().invoke(cli, ["install", "git"])
    assert result.exit_code == 0, result.output
    assert (hooks / "pre-commit.legacy").read_bytes() == legacy
    again = CliRunner().invoke(cli, ["install", "git"])
    assert "already installed" in again.stdout
    # a violating commit is rejected (and the legacy hook ran first)
    write(project, "billing/charge.py", "x = float(1)\n")
    git(project, "add", "-A")
    proc = commit(project, "use floats")
    assert (
        proc.returncode != 0
        and "decision D-0001: amounts are integer cents" in proc.stdout + proc.stderr
    )
    assert "legacy-ran" in (project / ".git" / "legacy.log").read_text()
    # a clean one passes and gets the Decisions: trailer
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "-A")
    proc = commit(project, "bump the charge")
    assert proc.returncode == 0, proc.stderr
    assert "Decisions: D-0001" in git(project, "log", "-1", "--format=%B")
    # uninstall restores the original hook byte for byte
    result = CliRunner().invoke(cli, ["uninstall", "git"])
    assert result.exit_code == 0
    assert (hooks / "pre-commit").read_bytes() == legacy
    assert not (hooks / "pre-commit.legacy").exists()
    assert not (hooks / "prepare-commit-msg").exists()


def test_hooks_path_and_trailer_switch(project: Path) -> None:
    custom = project / "ci-hooks"
    git(project, "config", "core.hooksPath", "ci-hooks")
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0
    assert (custom / "pre-commit").is_file() and not (project / ".git/hooks/pre-commit").exists()
    write(project, ".continuity/config.yaml", "commit_trailers: false\n")
    write(project, "billing/charge.py", "x = 3\n")
    git(project, "add", "-A")
    proc = commit(project, "no trailer please")
    assert proc.returncode == 0, proc.stderr
    assert "Decisions:" not in git(project, "log", "-1", "--format=%B")


def test_linked_worktree_shares_the_hooks(project: Path, tmp_path: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0
    wt = tmp_path / "wt"
    git(project, "worktree", "add", "-q", str(wt), "-b", "feature")
    write(wt, "billing/charge.py", "x = float(9)\n")
    git(wt, "add", "-A")
    proc = commit(wt, "floats in a worktree")
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
