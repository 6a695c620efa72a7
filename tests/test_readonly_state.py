"""gitmem where its git directory cannot be written: derived state is kept in this user's
own folder in a temporary directory (gitmem.location.state_dir_of), seeded from what the
git directory holds.

The read-only git directory is real: Codex's own sandbox (`codex sandbox`, bubblewrap),
which keeps `.git` read-only in its workspace-write mode, and everything but /dev/shm
read-only in its read-only mode. Tests run as root on the CI machines, where `chmod`
stops no write, so a permission bit could not stand in for it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import agent_binary, agent_project, decision, run_gitmem, write

from gitmem import location, pathmap
from gitmem.agent import stalenote
from gitmem.table import TABLE_NAME


def _files(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


@pytest.mark.parametrize("mode", ["workspace-write", "read-only"])
def test_read_commands_in_a_sandbox_that_keeps_git_read_only(
    mode: str, repo: Path, no_model: None, tmp_path: Path
) -> None:
    """Before session 44, once a record had changed since the table was compiled (a
    pull outside the sandbox, `gitmem new` inside it), `why`, `search`, `list`, `check`
    and `stale` each stopped with a traceback (`OSError: [Errno 30] Read-only file
    system: '.git/gitmem/.table-….tmp'`), and `index` too. Now they answer from state
    kept aside, which starts from the git directory's own (nothing is re-indexed until a
    record changes), and the git directory is left as it was."""
    codex = agent_binary("codex")
    gitmem = shutil.which("gitmem")
    assert gitmem
    agent_project(repo)
    assert run_gitmem(repo, "index").returncode == 0  # outside the sandbox
    primary = repo / ".git" / "gitmem"
    before = _files(primary)
    home, temp = tmp_path / "codex-home", tmp_path / "temp"
    home.mkdir()
    temp.mkdir()
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home), "TMPDIR": str(temp)}

    def sandboxed(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [codex, "sandbox", "-c", f'sandbox_mode="{mode}"', "--", gitmem, *args]
        proc = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    probe = subprocess.run([codex, "sandbox", "-c", f'sandbox_mode="{mode}"', "--", "sh", "-c",
                            "touch .git/probe"], cwd=repo, env=env, capture_output=True)  # fmt: skip
    assert probe.returncode != 0 and not (repo / ".git" / "probe").exists()  # really read-only

    indexed = sandboxed("index", "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["reindexed"] == 0  # seeded, not built again
    decision(repo, "0003-queue.md", "Webhooks are always queued", globs=["api/webhooks/**"],
             body="## Decision\n\nWebhook deliveries go through the queue.\n")  # fmt: skip
    write(repo, "api/webhooks/send.py", "")

    why = sandboxed("why", "api/webhooks/send.py")
    assert why.returncode == 0 and "D-0003 Webhooks are always queued" in why.stdout, why.stderr
    found = sandboxed("search", "webhook", "deliveries", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["hits"][0]["id"] == "D-0003"
    listed = sandboxed("list")
    assert listed.returncode == 0 and "Webhooks are always queued" in listed.stdout
    checked = sandboxed("check", "billing/charge.py", "--json")
    assert checked.returncode == 0, checked.stderr
    assert "D-0001" in checked.stdout
    assert sandboxed("stale").returncode == 0
    doctor = sandboxed("doctor", "--no-model")
    assert "cannot be written here" in doctor.stdout, doctor.stdout
    assert _files(primary) == before  # nothing written in the git directory
    if mode == "workspace-write":  # the folder kept aside, in $TMPDIR (the sandbox's own)
        assert (temp / f"gitmem-{os.getuid()}").is_dir()


def test_state_is_kept_aside_only_in_a_folder_of_this_users_own(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table holds the decisions' text, which is given to agents: a folder someone
    else made (a link, another mode) is passed over for the next place."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.setenv("TMPDIR", str(first))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(location, "_TEMP_DIRS", (str(second), str(second), str(second)))
    git_dir = str(repo / ".git")
    mine = f"gitmem-{os.getuid()}"
    (tmp_path / "elsewhere").mkdir()
    (first / mine).symlink_to(tmp_path / "elsewhere")
    aside = location.state_aside(git_dir)
    assert aside is not None and Path(aside).parent == second / mine
    assert (second / mine).stat().st_mode & 0o777 == 0o700
    (first / mine).unlink()
    (first / mine).mkdir(mode=0o755)
    (first / mine).chmod(0o755)
    assert Path(location.state_aside(git_dir) or "").parent == second / mine
    (first / mine).chmod(0o700)
    assert Path(location.state_aside(git_dir) or "").parent == first / mine


def test_the_seeded_names_are_the_state_files() -> None:
    assert set(location.SEEDED) == {TABLE_NAME, pathmap.MAP_NAME, stalenote.CACHE_NAME}


def test_an_operating_system_error_is_one_line_naming_the_file(repo: Path) -> None:
    """Before session 44 a traceback; since session 56 the command answers from the
    records all the same (compiled into memory), and says in one line why nothing was
    kept."""
    decision(repo, "0001-a.md", "Alpha")
    state = repo / ".git" / "gitmem"
    state.write_text("not a folder")
    proc = run_gitmem(repo, "list")
    assert proc.returncode == 0 and proc.stdout.startswith("D-0001\taccepted"), proc.stderr
    assert proc.stderr == (
        f"gitmem: could not save the compiled decisions in {state} ({state}: File exists); "
        "read them from the records for this command instead\n"
    )
    proc = run_gitmem(repo, "index")  # no answer without writing: one line naming the file
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"Error: the index could not be written ({state}" in proc.stderr, proc.stderr
