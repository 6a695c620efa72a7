"""The .pre-commit-hooks.yaml of this repository, installed by the real pre-commit tool
into a temporary repository: a violating commit is rejected, a clean one passes and shows
what governs it, and a gitmem bug in any of its hooks does not refuse the commit."""

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


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit, pip and virtualenv keep their caches here, not in $HOME: the module's
    tests share the environment pre-commit builds for gitmem (~15 s)."""
    return Path(os.environ.get("GITMEM_TEST_CACHE", tmp_path_factory.mktemp("cache")))


def this_commit() -> str:
    if PRE_COMMIT is None:
        pytest.skip("pre-commit not installed")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("this checkout has no commit for pre-commit to install from")
    return head.stdout.strip()


def pre_commit_env(tmp_path: Path, cache: Path) -> dict[str, str]:
    sandbox = tmp_path / "home"  # build tools invoked by pip write into $HOME (e.g. rustup)
    sandbox.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(sandbox),
        "PRE_COMMIT_HOME": str(cache / "pre-commit"),
        "PIP_CACHE_DIR": str(cache / "pip"),
        "VIRTUALENV_OVERRIDE_APP_DATA": str(cache / "virtualenv"),
    }


def installed(repo: Path, tmp_path: Path, cache: Path, hook: str) -> dict[str, str]:
    """The project: the money decision over billing/, a CLAUDE.md naming its file, its
    Cursor export, committed; gitmem's ``hook``, gitmem-stale and gitmem-export installed
    with the real pre-commit tool. The environment to commit with."""
    head = this_commit()
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, ".continuity/decisions/0001-money.md", RULE)
    write(
        repo,
        ".pre-commit-config.yaml",
        f"repos:\n- repo: {ROOT}\n  rev: {head}\n  hooks:\n  - id: {hook}\n"
        "  - id: gitmem-stale\n  - id: gitmem-export\n",
    )
    write(repo, "CLAUDE.md", "# Notes\n\nCharges are made in `billing/charge.py`.\n")
    from click.testing import CliRunner

    from gitmem.cli.main import cli

    assert CliRunner().invoke(cli, ["export", "cursor"]).exit_code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "init")
    env = pre_commit_env(tmp_path, cache)
    subprocess.run([str(PRE_COMMIT), "install"], cwd=repo, env=env, check=True, capture_output=True)
    return env


def test_pre_commit_rejects_violations_and_passes_clean_commits(
    repo: Path, tmp_path: Path, cache: Path
) -> None:
    env = installed(repo, tmp_path, cache, "gitmem-check")
    from click.testing import CliRunner

    from gitmem.cli.main import cli

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
    # the decisions governing a passing commit are shown (`verbose: true`; before session
    # 69 the framework kept a passing hook's output to itself)
    assert "D-0001 (critical) Money is integer cents  billing/charge.py" in good.stderr, good.stderr
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


FAULT = """\
import gitmem.export, gitmem.lint, gitmem.stale

def fault(*args, **kwargs):
    raise RuntimeError("injected fault")

gitmem.lint.lint = gitmem.stale.check = gitmem.export.plan = fault
"""


def test_a_gitmem_bug_in_a_pre_commit_hook_does_not_refuse_the_commit(
    repo: Path, tmp_path: Path, cache: Path
) -> None:
    """gitmem-lint, gitmem-stale and gitmem-export, with a fault injected into the
    environment pre-commit built for them (a sitecustomize module on PYTHONPATH): the
    commit goes through and `gitmem doctor` shows each. Before session 69 a gitmem bug in
    any of the three refused the commit (only the check and the trailer failed open).
    `pre-commit run` over all files, as CI runs it, still fails on the fault: a check that did
    not run is no pass. Lint's warnings show on a passing commit."""
    env = installed(repo, tmp_path, cache, "gitmem-lint")
    from click.testing import CliRunner

    from gitmem.cli.main import cli

    # a warning lint does not fail on is shown on the commit it passes
    write(repo, ".continuity/decisions/0002-api.md", RULE.replace("title:", "owner: ops\ntitle:"))
    assert CliRunner().invoke(cli, ["export"]).exit_code == 0
    git(repo, "add", "-A")
    warned = subprocess.run(
        ["git", "commit", "-q", "-m", "api"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert warned.returncode == 0, warned.stdout + warned.stderr
    assert (
        ".continuity/decisions/0002-api.md:2: owner: warning: unknown key, ignored" in warned.stderr
    ), warned.stderr

    faults = tmp_path / "faults"
    faults.mkdir()
    (faults / "sitecustomize.py").write_text(FAULT)
    faulty = {**env, "PYTHONPATH": str(faults)}
    record = repo / ".continuity/decisions/0001-money.md"
    record.write_text(record.read_text().replace("Integer cents.", "Integer cents, always."))
    git(repo, "add", "-A")
    proc = subprocess.run(
        ["git", "commit", "-q", "-m", "reword"],
        cwd=repo,
        env=faulty,
        capture_output=True,
        text=True,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Traceback" not in out
    # lint's hook is verbose, so its line is shown; the other two pass silently
    assert (
        "gitmem: internal error in the gitmem-lint pre-commit hook (RuntimeError: injected "
        "fault at " in out
    )
    assert git(repo, "log", "-1", "--format=%s").strip() == "reword"
    doctor = CliRunner().invoke(cli, ["doctor"]).output
    for hook in ("gitmem-lint", "gitmem-stale", "gitmem-export"):
        assert f"git {hook} pre-commit: RuntimeError: injected fault" in doctor

    # `--all-files` as CI runs it, spelt out: pre-commit 4 lists all files with
    # `git ls-files --deduplicate`, which git before 2.31 refuses (pre-commit exits 3), and the
    # oldest Python's suite runs with git 2.30. Outside a commit either way, which is the point.
    ci = subprocess.run(
        [str(PRE_COMMIT), "run", "--files", *filter(None, git(repo, "ls-files", "-z").split("\0"))],
        cwd=repo,
        env=faulty,
        capture_output=True,
        text=True,
    )
    assert ci.returncode == 1
    assert ci.stdout.count("Failed") == 3, ci.stdout
    assert ci.stdout.count("RuntimeError: injected fault") == 3, ci.stdout
