"""gitmem's modules keep their compiled bytecode where PYTHONDONTWRITEBYTECODE is set.

Dev containers and Docker images often set it, and uv installs packages without bytecode
(pip compiles at install). Before session 48 every hook then compiled gitmem's modules
again and kept none: ~110-140 ms a tool call instead of ~30 (measured with a uv install).
Each test runs a copy of gitmem's package with no bytecode, as uv leaves it, ahead of the
installed one on PYTHONPATH, as a fresh process the way agents and users run it."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SANDBOX_HOME, agent_project

import gitmem
from gitmem import resources

HOOK_SCRIPT = Path(__file__).resolve().parents[1] / "hooks/bin/gitmem-hook"


@pytest.fixture
def bare_copy(tmp_path: Path) -> Path:
    """A folder holding gitmem's package as a wheel lays it out, without any bytecode, for
    PYTHONPATH."""
    site = tmp_path / "site"
    shutil.copytree(
        Path(gitmem.__file__).parent,
        site / "gitmem",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_data"),
    )
    for name in ("hooks", "templates"):
        shutil.copytree(resources.data_dir(name), site / "gitmem/_data" / name)
    return site


def env_for(site: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": SANDBOX_HOME, "PYTHONPATH": str(site)}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def compiled(site: Path, module: str) -> bool:
    """Whether ``module`` (a path in the copy) has bytecode cached beside it."""
    source = site / "gitmem" / module
    assert source.exists(), source
    return Path(importlib.util.cache_from_source(str(source))).exists()


def run_copy(
    site: Path, project: Path, args: list[str], stdin: str = "", prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in ``project`` with the copy in ``site`` ahead of the installed
    gitmem, PYTHONDONTWRITEBYTECODE set; ``prefix``: a command to run it under."""
    return subprocess.run(
        [*prefix, sys.executable, *args],
        input=stdin,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=env_for(site),
    )


def test_a_hook_keeps_its_bytecode(repo: Path, bare_copy: Path) -> None:
    project = agent_project(repo)
    payload = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(project / "billing/charge.py")},
        "cwd": str(project),
    }
    args = [str(HOOK_SCRIPT), "claude", "pre-tool"]
    proc = run_copy(bare_copy, project, args, json.dumps(payload))
    assert proc.returncode == 0 and "Money is integer cents" in proc.stdout, proc.stderr
    # the copy answered, and what it imported is compiled for the next hook
    assert compiled(bare_copy, "agent/runner.py")
    assert compiled(bare_copy, "agent/tooluse.py")


def test_a_command_keeps_its_bytecode(repo: Path, bare_copy: Path) -> None:
    """`python -m gitmem` as the background jobs run it; pip's `gitmem` wrapper calls the
    same gitmem.entry.main."""
    project = agent_project(repo)
    proc = run_copy(bare_copy, project, ["-m", "gitmem", "why", "billing/charge.py"])
    assert proc.returncode == 0 and "Money is integer cents" in proc.stdout, proc.stderr
    assert compiled(bare_copy, "why.py")
    assert compiled(bare_copy, "cli/main.py")


@pytest.fixture
def read_only(bare_copy: Path) -> Iterator[Path]:
    """The copy, in folders this user cannot write (restored for the clean-up)."""
    folders = [bare_copy, *(p for p in bare_copy.rglob("*") if p.is_dir())]
    for folder in folders:
        folder.chmod(0o555)
    yield bare_copy
    for folder in folders:
        folder.chmod(0o755)


def as_a_user_who_cannot_write() -> tuple[str, ...]:
    """A command prefix under which the read-only copy cannot be written. Root writes any
    folder (CAP_DAC_OVERRIDE): without that capability it is held to the folder's mode,
    and still reads its own 0700 virtual environment."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
    return (setpriv, "--bounding-set=-dac_override,-dac_read_search")


def doctor_bytecode(project: Path, site: Path, prefix: tuple[str, ...]) -> list[dict[str, object]]:
    proc = run_copy(
        site, project, ["-m", "gitmem", "doctor", "--no-model", "--json"], prefix=prefix
    )
    assert proc.stdout, proc.stderr
    checks: list[dict[str, object]] = json.loads(proc.stdout)["checks"]
    return [c for c in checks if c["name"] == "bytecode"]


def test_doctor_says_when_the_bytecode_cannot_be_written(repo: Path, read_only: Path) -> None:
    """uv installs without bytecode, and a root install leaves a folder an agent run as
    another user cannot write: every hook compiles gitmem again, and doctor says so."""
    project = agent_project(repo)
    prefix = as_a_user_who_cannot_write()
    (found,) = doctor_bytecode(project, read_only, prefix)
    assert found["ok"] is False
    detail = str(found["detail"])
    assert str(read_only / "gitmem") in detail and "-m compileall -q" in detail
    assert not compiled(read_only, "agent/runner.py")


def test_doctor_is_quiet_about_bytecode_it_can_write(repo: Path, bare_copy: Path) -> None:
    project = agent_project(repo)
    assert doctor_bytecode(project, bare_copy, as_a_user_who_cannot_write()) == []
    assert compiled(bare_copy, "agent/runner.py")  # doctor's own run wrote it
