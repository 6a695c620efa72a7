"""The .pre-commit-hooks.yaml of this repository, installed by the real pre-commit tool
into a temporary repository: a violating commit is rejected, a clean one passes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import MONEY_RULE as RULE
from conftest import git, write

ROOT = Path(__file__).resolve().parent.parent
PRE_COMMIT = shutil.which("pre-commit")


@pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit not installed")
def test_pre_commit_rejects_violations_and_passes_clean_commits(repo: Path, tmp_path: Path) -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("this checkout has no commit for pre-commit to install from")
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, ".continuity/decisions/0001-money.md", RULE)
    write(
        repo,
        ".pre-commit-config.yaml",
        f"repos:\n- repo: {ROOT}\n  rev: {head.stdout.strip()}\n  hooks:\n  - id: gitmem-check\n"
        "  - id: gitmem-stale\n  - id: gitmem-export\n",
    )
    write(repo, "CLAUDE.md", "# Notes\n\nCharges are made in `billing/charge.py`.\n")
    from click.testing import CliRunner

    from gitmem.cli.main import cli

    assert CliRunner().invoke(cli, ["export", "cursor"]).exit_code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "init")
    # pre-commit, pip and virtualenv keep their caches here, not in $HOME
    cache = Path(os.environ.get("GITMEM_TEST_CACHE", tmp_path / "cache"))
    sandbox = tmp_path / "home"  # build tools invoked by pip write into $HOME (e.g. rustup)
    sandbox.mkdir()
    env = {
        **os.environ,
        "HOME": str(sandbox),
        "PRE_COMMIT_HOME": str(cache / "pre-commit"),
        "PIP_CACHE_DIR": str(cache / "pip"),
        "VIRTUALENV_OVERRIDE_APP_DATA": str(cache / "virtualenv"),
    }
    subprocess.run([str(PRE_COMMIT), "install"], cwd=repo, env=env, check=True, capture_output=True)
    write(repo, "billing/charge.py", "x = float(1)\n")
    git(repo, "add", "-A")
    bad = subprocess.run(
        ["git", "commit", "-q", "-m", "floats"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert bad.returncode != 0
    assert (
        "billing/charge.py:1: decision D-0001: amounts are integer cents" in bad.stdout + bad.stderr
    )
    write(repo, "billing/charge.py", "x = 2\n")
    git(repo, "add", "-A")
    good = subprocess.run(
        ["git", "commit", "-q", "-m", "integers"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    # a rename that leaves CLAUDE.md behind is stopped by gitmem-stale
    git(repo, "mv", "billing/charge.py", "billing/charges.py")
    moved = subprocess.run(
        ["git", "commit", "-q", "-m", "rename"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert moved.returncode != 0
    assert (
        "CLAUDE.md:3: [Notes] path: `billing/charge.py` does not exist (did you mean "
        "`billing/charges.py`?)" in moved.stdout + moved.stderr
    )
    # a decision whose exported Cursor rule was not refreshed is stopped by gitmem-export
    git(repo, "mv", "billing/charges.py", "billing/charge.py")
    record = repo / ".continuity/decisions/0001-money.md"
    record.write_text(record.read_text().replace("billing/**", "billing/**/*.py"))
    git(repo, "add", "-A")
    behind = subprocess.run(
        ["git", "commit", "-q", "-m", "py only"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert behind.returncode != 0
    assert "would write .cursor/rules/gitmem.mdc" in behind.stdout + behind.stderr
    assert CliRunner().invoke(cli, ["export"]).exit_code == 0
    git(repo, "add", "-A")
    synced = subprocess.run(
        ["git", "commit", "-q", "-m", "py only"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert synced.returncode == 0, synced.stdout + synced.stderr
