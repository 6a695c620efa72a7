"""Native git hook shims and the Decisions: trailer, driven by real `git commit`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import MONEY_RULE as RULE
from conftest import (
    RECORD_LOADING,
    agent_binary,
    commit_all,
    git,
    git_home,
    modules_of,
    npm_package,
    write,
)

from gitmem.cli.main import cli

pytestmark = pytest.mark.skipif(shutil.which("gitmem") is None, reason="console script missing")


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, ".continuity/decisions/0001-money.md", RULE)
    commit_all(repo, "init")
    return repo


def commit(root: Path, message: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )


def test_shims_block_violations_add_trailers_and_keep_the_hook_they_replace(project: Path) -> None:
    hooks = project / ".git" / "hooks"
    legacy = b'#!/bin/sh\necho legacy-ran >> "$(git rev-parse --git-dir)/legacy.log"\n'
    (hooks / "pre-commit").write_bytes(legacy)
    (hooks / "pre-commit").chmod(0o755)
    result = CliRunner().invoke(cli, ["install", "git"])
    assert result.exit_code == 0, result.output
    assert (hooks / "pre-commit.before-gitmem").read_bytes() == legacy
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
    assert not (hooks / "pre-commit.before-gitmem").exists()
    assert not (hooks / "prepare-commit-msg").exists()


def _patch(project: Path, text: str, message: str, folder: Path) -> Path:
    """A patch (`git format-patch`) of a commit on a side branch that writes ``text`` to
    billing/charge.py, made without gitmem's hooks (as a contributor's would be)."""
    git(project, "checkout", "-q", "-b", "side")
    write(project, "billing/charge.py", text)
    git(project, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-am", message)
    made = git(project, "format-patch", "-1", "-o", str(folder)).strip()
    git(project, "checkout", "-q", "-")
    git(project, "branch", "-q", "-D", "side")
    return Path(made)


def test_a_patch_git_am_applies_is_checked_as_a_commit_is(project: Path, tmp_path: Path) -> None:
    """`git am` commits the patches it applies without the pre-commit hook: a patch that
    broke a critical decision's rule was committed unchecked. Its pre-applypatch hook
    (the patch staged) now runs the check; the patch's own `Decision-Override:` trailer
    lets it through, as the same trailer does in a `--range` check."""
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0
    head = git(project, "rev-parse", "HEAD").strip()
    bad = _patch(project, "x = float(1)\n", "Use floats", tmp_path / "a")
    applied = subprocess.run(
        ["git", "am", str(bad)], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert applied.returncode != 0
    assert "decision D-0001: amounts are integer cents" in applied.stdout + applied.stderr
    assert git(project, "rev-parse", "HEAD").strip() == head  # nothing committed
    git(project, "am", "--abort")
    waived = _patch(
        project, "x = float(1)\n", "Use floats\n\nDecision-Override: D-0001 a test", tmp_path / "b"
    )
    applied = subprocess.run(
        ["git", "am", str(waived)], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "(overridden: a test)" in applied.stdout + applied.stderr
    assert git(project, "log", "-1", "--format=%s").strip() == "Use floats"


def test_an_amended_commit_names_the_decisions_of_all_its_files(project: Path) -> None:
    """`git commit --amend` makes a commit of the commit it replaces and of what is staged:
    its trailer names the decisions of both. Before session 44 it named the staged files'
    alone: `--amend --no-edit` after a fix to one file dropped the other's decision, and
    `--amend -m` (or a first commit amended) wrote no trailer at all."""
    write(project, ".continuity/decisions/0002-api.md",
          "---\ntitle: API by header\nstatus: accepted\nglobs: [api/**]\n---\nx\n")  # fmt: skip
    commit_all(project, "api decision")
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0

    def message() -> str:
        return git(project, "log", "-1", "--format=%B")

    def run(*args: str) -> None:
        proc = subprocess.run(["git", "commit", "-q", *args], cwd=project, capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert proc.returncode == 0, proc.stderr

    write(project, "billing/charge.py", "x = 2\n")
    write(project, "api/routes.py", "r = 1\n")
    git(project, "add", "-A")
    run("-m", "both")
    assert "Decisions: D-0002, D-0001" in message()
    write(project, "api/routes.py", "r = 2\n")
    git(project, "add", "-A")
    run("--amend", "--no-edit")
    assert message().count("Decisions:") == 1 and "Decisions: D-0002, D-0001" in message()
    run("--amend", "-m", "both, reworded")
    assert message().startswith("both, reworded") and "Decisions: D-0002, D-0001" in message()
    run("--am", "-m", "abbreviated")
    assert "Decisions: D-0002, D-0001" in message()
    run("--allow-empty", "-m", "--amend")  # a new, empty commit whose message is `--amend`
    assert message().strip() == "--amend"
    git(project, "checkout", "-q", "--orphan", "fresh")
    run("-m", "first")
    run("--amend", "-m", "first, amended")  # a first commit: against the empty tree
    assert "Decisions: D-0002, D-0001" in message(), message()


def test_without_proc_commit_head_is_taken_for_an_amend(tmp_path: Path) -> None:
    from gitmem.githooks import amending

    gone = 2**22 + 12345  # above Linux's default pid_max: no such process
    assert amending("commit", "HEAD", pid=gone)
    assert not amending("message", "", pid=gone)
    assert not amending("commit", "abc1234", pid=gone)  # `-C abc1234`: a new commit


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


def test_a_commit_that_moves_files_out_of_a_decisions_globs(project: Path) -> None:
    """`git mv billing payments` left the money decision governing nothing, and the commit
    said only that its glob matched no file. Now it names the move and the glob that would
    follow it; the commit is not blocked (a glob to update is not a broken rule)."""
    write(project, "billing/refund.py", "y = 1\n")
    write(project, "docs/guide.md", "notes\n")
    commit_all(project, "more")
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0
    git(project, "mv", "billing", "payments")
    git(project, "mv", "docs/guide.md", "docs/manual.md")  # no decision: nothing said
    proc = commit(project, "rename billing to payments")
    assert proc.returncode == 0, proc.stderr
    said = proc.stdout + proc.stderr
    assert (
        ".continuity/decisions/0001-money.md:5: globs: warning: D-0001 (billing/**) governed "
        "billing/charge.py, which this change moves to payments/charge.py (and 1 more file), "
        "outside its globs; if it still applies there, change the glob to 'payments/**'"
    ) in said
    assert "guide.md" not in said
    # CI's range check says the same
    ranged = subprocess.run(
        ["gitmem", "check", "--range", "HEAD~1..HEAD", "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    (moved,) = json.loads(ranged.stdout)["moved_out"]
    assert moved["suggestion"] == "payments/**" and len(moved["moves"]) == 2
    # a move that stays inside the globs is not reported
    git(project, "mv", "payments", "billing")
    commit(project, "back")
    git(project, "mv", "billing/refund.py", "billing/refunds.py")
    proc = commit(project, "rename inside billing")
    assert "moves to" not in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("glob", "old", "new", "suggestion"),
    [
        ("billing/**", "billing/charge.py", "payments/charge.py", "payments/**"),
        ("**/billing/**", "src/billing/x.py", "src/payments/x.py", "**/payments/**"),
        ("src/billing/*.py", "src/billing/a.py", "src/payments/a.py", "src/payments/*.py"),
        ("billing/**", "billing/x.py", "core/billing/x.py", "core/billing/**"),
        ("core/billing/**", "core/billing/x.py", "billing/x.py", "billing/**"),
        ("billing/charge.py", "billing/charge.py", "billing/charges.py", "billing/charges.py"),
        ("billing/*.py", "billing/charge.py", "billing/charge.txt", None),  # renamed file
        ("billing/**", "billing/a/x.py", "payments/b/x.py", None),  # two folders: unclear
    ],
)
def test_the_glob_that_follows_a_move(
    glob: str, old: str, new: str, suggestion: str | None
) -> None:
    from gitmem.check import _moved_glob

    assert _moved_glob(glob, old, new) == suggestion


def test_a_shared_hooks_folder_leaves_other_repositories_alone(
    project: Path, tmp_path: Path
) -> None:
    """`core.hooksPath` in the user's configuration makes one hooks folder every
    repository's. Before, installing there made each commit in a repository that never
    adopted gitmem print "no decision governs these changes", and each checkout build
    an index in its .git."""
    shared = tmp_path / "global-hooks"
    home = git_home(tmp_path, f"[core]\n\thooksPath = {shared}\n")
    env = {**os.environ, "HOME": str(home)}
    proc = subprocess.run(
        ["gitmem", "install", "git"], cwd=project, capture_output=True, text=True, env=env
    )
    shared_config = {"HOME": str(home)}
    assert proc.returncode == 0 and (shared / "pre-commit").is_file()
    assert "other repositories may run these hooks too" in proc.stdout
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    write(other, "x.py", "y = float(1)\n")
    git(other, "add", "-A")
    done = commit(other, "unrelated", **shared_config)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    subprocess.run(["git", "checkout", "-q", "-b", "next"], cwd=other, check=True, env=env)
    assert not (other / ".git/gitmem").exists()
    # the repository that keeps decisions is still checked through the same folder
    write(project, "billing/charge.py", "x = float(2)\n")
    git(project, "add", "-A")
    blocked = commit(project, "floats", **shared_config)
    assert blocked.returncode == 1 and "D-0001" in blocked.stdout + blocked.stderr


def _hook(project: Path, event: str, payload: dict[str, object], **env: str) -> None:
    """`gitmem-hook claude EVENT` as Claude Code runs it, in the project."""
    proc = subprocess.run(
        [str(shutil.which("gitmem-hook")), "claude", event],
        input=json.dumps({"cwd": str(project), **payload}),
        cwd=project, capture_output=True, text=True, timeout=60,
        env={**os.environ, "GITMEM_USER": "alice", **env},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def _edit(project: Path, session: str, rel: str, **env: str) -> None:
    _hook(project, "prompt", {"session_id": session, "prompt": f"tidy {rel}"}, **env)
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(project / rel)}}
    _hook(project, "pre-tool", {"session_id": session, **edit}, **env)
    _hook(project, "post-tool", {"session_id": session, **edit}, **env)


def test_a_commit_names_the_agent_sessions_that_edited_its_files(project: Path) -> None:
    """`Gitmem-Session:` trailers (since session 33): from a commit in `git log` to the
    prompts behind it. Named: the captured sessions of this clone that edited a staged file
    in the last day, whether the agent commits mid-turn (its prompt not yet committed to
    its ref) or the user commits after the session ended."""
    write(project, "docs/notes.md", "notes\n")
    commit_all(project, "docs")
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0
    _edit(project, "s-billing", "billing/charge.py")  # mid-turn: its prompt waits to be flushed
    _edit(project, "s-docs", "docs/notes.md")
    _edit(project, "s-private", "billing/charge.py", GITMEM_CAPTURE="0")  # not captured
    # the same file, edited by another agent in a linked worktree of the repository
    worktree = project.parent / f"{project.name}-wt"
    git(project, "worktree", "add", "-q", "-b", "other", str(worktree))
    _edit(worktree, "s-worktree", "billing/charge.py")
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "-A")
    assert commit(project, "bump the charge").returncode == 0
    message = git(project, "log", "-1", "--format=%B")
    assert "Decisions: D-0001" in message
    assert [x for x in message.splitlines() if x.startswith("Gitmem-Session:")] == [
        "Gitmem-Session: alice/s-billing"
    ]
    shown = subprocess.run(["gitmem", "sessions", "show", "alice/s-billing"], cwd=project,
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "tidy billing/charge.py" in shown
    # after the session ends and is flushed, a later commit by hand still names it; a
    # session told to forget is not named
    _hook(project, "session-end", {"session_id": "s-billing", "reason": "exit"})
    assert subprocess.run(["gitmem", "capture", "flush"], cwd=project).returncode == 0
    _edit(project, "s-gone", "billing/charge.py")
    assert subprocess.run(["gitmem", "sessions", "forget", "s-gone"], cwd=project,
                          capture_output=True, env={**os.environ, "GITMEM_USER": "alice"}).returncode == 0  # fmt: skip
    write(project, "billing/charge.py", "x = 3\n")
    write(project, "docs/notes.md", "more notes\n")
    git(project, "add", "-A")
    assert commit(project, "more").returncode == 0
    trailers = git(project, "log", "-1", "--format=%(trailers:key=Gitmem-Session,valueonly)")
    assert trailers.split() == ["alice/s-billing", "alice/s-docs"]  # last active first
    # and back: a session's transcript names the commits it led to, newest first
    shown = json.loads(subprocess.run(["gitmem", "sessions", "show", "alice/s-billing", "--json"],
                       cwd=project, capture_output=True, text=True, check=True).stdout)  # fmt: skip
    assert [c["subject"] for c in shown["commits"]] == ["more", "bump the charge"]
    docs = subprocess.run(["gitmem", "sessions", "show", "alice/s-docs"], cwd=project,
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "1 commit naming this session:" in docs and docs.rstrip().endswith(" more")


def test_the_trailer_switch_is_read_when_it_changes(project: Path) -> None:
    """Since session 35 the prepare-commit-msg hook reads `commit_trailers` from the
    compiled table (no YAML at every commit): switched after the table was compiled, the
    table is compiled again and the switch holds, both ways."""
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0
    for n, (setting, expected) in enumerate([("true", True), ("false", False), ("true", True)]):
        write(project, ".continuity/config.yaml", f"commit_trailers: {setting}\n")
        write(project, "billing/charge.py", f"x = {n + 10}\n")
        git(project, "add", "-A")
        proc = commit(project, f"change {n}")
        assert proc.returncode == 0, proc.stderr
        body = git(project, "log", "-1", "--format=%B")
        assert ("Decisions: D-0001" in body) is expected, (setting, body)


def test_the_commit_hooks_load_neither_the_records_nor_yaml(project: Path) -> None:
    """`check --staged` and `trailers` run at every commit: with the table compiled and
    no record changed, they read it alone (before session 35 both loaded every record, the
    YAML parser and pathspec: ~100 ms each)."""
    write(project, ".continuity/config.yaml", "commit_trailers: true\n")
    commit_all(project, "settings")
    write(project, "billing/charge.py", "x = 5\n")
    git(project, "add", "-A")
    write(project, "MSG", "subject\n")
    assert CliRunner().invoke(cli, ["check", "--staged"]).exit_code == 0  # compiles
    for args in (["check", "--staged"], ["trailers", "MSG"]):
        assert modules_of(project, args, RECORD_LOADING) == (0, []), args
    assert "Decisions: D-0001" in (project / "MSG").read_text()


def _husky(root: Path) -> None:
    """`husky`, as the `prepare` script of `npm install` runs it: core.hooksPath=.husky/_
    and a dispatcher per hook there, each running `.husky/<its name>` with `sh -e`."""
    subprocess.run([agent_binary("husky")], cwd=root, check=True, capture_output=True)


def _husky_project(project: Path) -> bytes:
    _husky(project)
    own = b'echo husky-ran >> "$(git rev-parse --git-dir)/husky.log"\n'
    (project / ".husky" / "pre-commit").write_bytes(own)  # as `husky init` makes it: 0644
    return own


def test_husky_keeps_running_its_own_hooks(project: Path) -> None:
    """husky 9 points core.hooksPath at .husky/_, whose dispatchers run `.husky/<their own
    name>`. gitmem's shims had renamed them `pre-commit.legacy`, which then looked for
    `.husky/pre-commit.legacy`, found none, and exited 0: the project's own husky hooks
    (lint, tests) stopped running without a word. And husky's next run (each `npm
    install`) rewrote .husky/_, dropping the shims."""
    own = _husky_project(project)
    dispatcher = (project / ".husky/_/pre-commit").read_bytes()
    proc = subprocess.run(["gitmem", "install", "git"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "added gitmem's lines to pre-commit, prepare-commit-msg" in proc.stdout
    assert "husky runs them" in proc.stdout
    assert (project / ".husky/_/pre-commit").read_bytes() == dispatcher
    assert not list((project / ".husky/_").glob("*.legacy"))
    assert (project / ".husky/pre-commit").read_bytes().startswith(own)
    assert (project / ".husky/pre-commit").stat().st_mode & 0o111 == 0  # its mode is kept
    log = project / ".git" / "husky.log"
    # a violating commit: husky's own hook ran, and gitmem blocked it
    write(project, "billing/charge.py", "x = float(1)\n")
    git(project, "add", "billing")
    proc = commit(project, "use floats")
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    assert log.read_text() == "husky-ran\n"
    # husky runs again (`npm install`): gitmem's lines are in .husky/, not in what it rewrites
    _husky(project)
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "billing")
    proc = commit(project, "bump the charge")
    assert proc.returncode == 0, proc.stderr
    assert log.read_text() == "husky-ran\n" * 2
    assert "Decisions: D-0001" in git(project, "log", "-1", "--format=%B")
    doctor = subprocess.run(
        ["gitmem", "doctor", "--json"], cwd=project, capture_output=True, text=True
    )
    hooks = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "git hooks")
    assert hooks == {
        "name": "git hooks",
        "ok": True,
        "detail": ".husky/pre-commit checks the decisions at commit time",
    }
    again = subprocess.run(["gitmem", "install", "git"], cwd=project, capture_output=True, text=True)
    assert "already in the hook scripts of .husky/" in again.stdout
    # uninstall: husky's script byte for byte; the scripts gitmem created are gone
    proc = subprocess.run(["gitmem", "uninstall", "git"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (project / ".husky/pre-commit").read_bytes() == own
    assert sorted(p.name for p in (project / ".husky").iterdir()) == ["_", "pre-commit"]
    assert (project / ".husky/_/pre-commit").read_bytes() == dispatcher


def _old_shim(folder: Path, name: str) -> None:
    """What `install git` wrote before session 41: the hook it replaced kept as
    `<name>.legacy`, and a shim that runs that."""
    from gitmem import githooks

    hook = folder / name
    if hook.exists():
        os.replace(hook, folder / f"{name}.legacy")
    command, args = githooks.HOOKS[name], ' "$@"' if name == "prepare-commit-msg" else ""
    text = githooks.TEMPLATE.format(
        marker=githooks.MARKER, name=name, command=command, args=args, fallback="", pre_commit=""
    )
    hook.write_text(text.replace(f"{name}.before-gitmem", f"{name}.legacy"))
    hook.chmod(0o755)


def test_an_older_gitmems_shims_in_husky_are_found_and_replaced(project: Path) -> None:
    """What earlier versions of `gitmem install git` left in a husky project: doctor says
    so, and installing again brings husky's dispatchers back."""
    from gitmem import githooks

    _husky_project(project)
    folder = project / ".husky" / "_"
    for name in githooks.HOOKS:
        _old_shim(folder, name)
    doctor = subprocess.run(["gitmem", "doctor", "--json"], cwd=project, capture_output=True, text=True)
    hooks = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "git hooks")
    assert not hooks["ok"] and "keep husky's own hooks from running" in hooks["detail"]
    assert subprocess.run(["gitmem", "install", "git"], cwd=project).returncode == 0
    assert not list(folder.glob("*.legacy"))
    assert (folder / "pre-commit").read_text() == '#!/usr/bin/env sh\n. "$(dirname "$0")/h"'
    write(project, "billing/charge.py", "x = 3\n")
    git(project, "add", "billing")
    assert commit(project, "bump").returncode == 0
    assert (project / ".git" / "husky.log").read_text() == "husky-ran\n"


def test_a_tracked_hooks_folder_gets_lines_not_renames(project: Path) -> None:
    """core.hooksPath=.githooks, the team's hooks in the repository: its scripts were
    renamed `.legacy` and replaced by shims, changing tracked files for everyone. Now a
    block is appended to each (a missing one is created), and uninstall takes it out."""
    own = b"#!/bin/sh\necho team-hook-ran >&2\n"
    write(project, ".githooks/pre-commit", own.decode())
    (project / ".githooks/pre-commit").chmod(0o755)
    commit_all(project, "team hooks")
    git(project, "config", "core.hooksPath", ".githooks")
    proc = subprocess.run(["gitmem", "install", "git"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "added gitmem's lines to pre-commit" in proc.stdout and "git runs them" in proc.stdout
    assert not list((project / ".githooks").glob("*.legacy"))
    assert git(project, "status", "--porcelain", ".githooks/pre-commit") == " M .githooks/pre-commit\n"
    assert os.access(project / ".githooks/prepare-commit-msg", os.X_OK)
    write(project, "billing/charge.py", "x = float(1)\n")
    git(project, "add", "billing")
    proc = commit(project, "use floats")
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    assert "team-hook-ran" in proc.stderr
    assert subprocess.run(["gitmem", "uninstall", "git"], cwd=project).returncode == 0
    assert (project / ".githooks/pre-commit").read_bytes() == own
    assert git(project, "status", "--porcelain", ".githooks") == ""


LOCAL_PRE_COMMIT = """repos:
- repo: local
  hooks:
  - id: team-lint
    name: team-lint
    entry: sh -c 'echo ran >> "$(git rev-parse --git-dir)/framework.log"'
    language: system
    pass_filenames: false
"""


def _pre_commit_install(
    project: Path, tmp_path: Path, config: str = LOCAL_PRE_COMMIT, kinds: tuple[str, ...] = ()
) -> dict[str, str]:
    """`pre-commit install` (for the hook ``kinds``, else pre-commit) with ``config``, of
    local hooks (no download), its cache under tmp_path."""
    tool = shutil.which("pre-commit")
    if tool is None:
        pytest.skip("pre-commit not installed (a test dependency)")
    write(project, ".pre-commit-config.yaml", config)
    commit_all(project, "pre-commit config")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache")}
    types = [a for kind in kinds for a in ("-t", kind)]
    subprocess.run([tool, "install", *types], cwd=project, env=env, check=True, capture_output=True)
    return env


def test_the_pre_commit_framework_keeps_working(project: Path, tmp_path: Path) -> None:
    """gitmem kept a replaced hook as `pre-commit.legacy`, which is where the pre-commit
    framework's script looks for the hook *it* replaced: it found itself there and failed
    every commit ("bug: pre-commit's script is installed in migration mode"). And after
    `pre-commit install` ran again, the framework ran the shim as its legacy hook, the
    shim ran the framework's script it had kept, which failed the commit the same way."""
    from gitmem import githooks

    env = _pre_commit_install(project, tmp_path)
    framework = (project / ".git/hooks/pre-commit").read_bytes()
    assert subprocess.run(["gitmem", "install", "git"], cwd=project, env=env).returncode == 0
    log = project / ".git" / "framework.log"
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "billing")
    proc = commit(project, "bump", PRE_COMMIT_HOME=env["PRE_COMMIT_HOME"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert log.read_text() == "ran\n" and "Decisions: D-0001" in git(project, "log", "-1", "--format=%B")
    write(project, "billing/charge.py", "x = float(2)\n")
    git(project, "add", "billing")
    proc = commit(project, "floats", PRE_COMMIT_HOME=env["PRE_COMMIT_HOME"])
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    assert log.read_text() == "ran\n" * 2
    # `pre-commit install` again (a setup script): the framework keeps gitmem's shim as
    # its own legacy hook and runs it; the shim then leaves the framework's script alone
    tool = str(shutil.which("pre-commit"))
    subprocess.run([tool, "install"], cwd=project, env=env, check=True, capture_output=True)
    assert (project / ".git/hooks/pre-commit.legacy").read_text().count(githooks.MARKER) == 1
    check = _git_hooks_check(project)
    assert check["ok"] and "the pre-commit framework runs gitmem's shim" in str(check["detail"])
    proc = commit(project, "floats", PRE_COMMIT_HOME=env["PRE_COMMIT_HOME"])
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    assert "migration mode" not in proc.stderr and log.read_text() == "ran\n" * 3
    write(project, "billing/charge.py", "x = 3\n")
    git(project, "add", "billing")
    proc = commit(project, "bump again", PRE_COMMIT_HOME=env["PRE_COMMIT_HOME"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert log.read_text() == "ran\n" * 4
    subprocess.run([tool, "uninstall"], cwd=project, env=env, check=True, capture_output=True)
    assert subprocess.run(["gitmem", "uninstall", "git"], cwd=project).returncode == 0
    assert (project / ".git/hooks/pre-commit").read_bytes() == framework


def test_an_older_gitmems_shim_over_the_pre_commit_framework_is_mended(
    project: Path, tmp_path: Path
) -> None:
    """What earlier versions of `install git` left: a shim running `pre-commit.legacy`,
    the framework's script. doctor says so; installing again moves it aside under the new
    name, and uninstalling after that gives the framework its hook back."""
    env = _pre_commit_install(project, tmp_path)
    hooks = project / ".git" / "hooks"
    framework = (hooks / "pre-commit").read_bytes()
    _old_shim(hooks, "pre-commit")
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "billing")
    broken = commit(project, "bump", PRE_COMMIT_HOME=env["PRE_COMMIT_HOME"])
    assert broken.returncode != 0 and "migration mode" in broken.stderr  # as users met it
    doctor = subprocess.run(["gitmem", "doctor", "--json"], cwd=project, capture_output=True, text=True)
    check = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "git hooks")
    assert not check["ok"] and "fails every commit" in check["detail"]
    assert subprocess.run(["gitmem", "install", "git"], cwd=project).returncode == 0
    assert (hooks / "pre-commit.before-gitmem").read_bytes() == framework
    proc = commit(project, "bump", PRE_COMMIT_HOME=env["PRE_COMMIT_HOME"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert subprocess.run(["gitmem", "uninstall", "git"], cwd=project).returncode == 0
    assert (hooks / "pre-commit").read_bytes() == framework
    assert sorted(p.name for p in hooks.glob("pre-commit*")) == ["pre-commit", "pre-commit.sample"]


LEFTHOOK_TEAM = """pre-commit:
  commands:
    team-lint:
      run: echo ran >> "$(git rev-parse --git-dir)/lefthook.log"
"""
# README › Hook managers: gitmem's hooks written into lefthook's configuration
LEFTHOOK_GITMEM = """    gitmem:
      run: gitmem check --staged
prepare-commit-msg:
  commands:
    gitmem:
      run: gitmem trailers {1} {2} {3}
"""


def _git_hooks_check(project: Path) -> dict[str, object]:
    doctor = subprocess.run(["gitmem", "doctor", "--json"], cwd=project, capture_output=True, text=True)
    check: dict[str, object] = next(
        c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "git hooks"
    )
    return check


def test_lefthook_and_gitmem(project: Path) -> None:
    """lefthook chains through the shim like any hook; but its next `install` (its npm
    package runs one on every `npm install`) keeps gitmem's shim as `pre-commit.old` and
    never runs it. doctor says so, and the README's lines for lefthook.yml work."""
    lefthook = agent_binary("lefthook")
    env = {"LEFTHOOK_BIN": lefthook}
    write(project, "lefthook.yml", LEFTHOOK_TEAM)
    commit_all(project, "lefthook")
    subprocess.run([lefthook, "install"], cwd=project, check=True, capture_output=True)
    assert subprocess.run(["gitmem", "install", "git"], cwd=project).returncode == 0
    log = project / ".git" / "lefthook.log"
    write(project, "billing/charge.py", "x = float(1)\n")
    git(project, "add", "billing")
    proc = commit(project, "floats", **env)
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    assert log.read_text() == "ran\n"
    subprocess.run([lefthook, "install"], cwd=project, check=True, capture_output=True)
    check = _git_hooks_check(project)
    assert not check["ok"] and "pre-commit.old" in str(check["detail"])
    proc = commit(project, "floats", **env)
    assert proc.returncode == 0  # what doctor warns of: gitmem no longer runs
    write(project, "lefthook.yml", LEFTHOOK_TEAM + LEFTHOOK_GITMEM)
    subprocess.run([lefthook, "install"], cwd=project, check=True, capture_output=True)
    assert _git_hooks_check(project) == {
        "name": "git hooks",
        "ok": True,
        "detail": "lefthook runs gitmem's check (lefthook.yml)",
    }
    write(project, "billing/charge.py", "x = float(2)\n")
    git(project, "add", "billing")
    proc = commit(project, "floats again", **env)
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "billing")
    proc = commit(project, "integers", **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Decisions: D-0001" in git(project, "log", "-1", "--format=%B")


def test_a_commit_from_a_gui_without_the_shells_path_is_still_checked(project: Path) -> None:
    """Git GUIs and editors started from a desktop run hooks without the PATH of the
    user's shell, where a virtualenv's or pipx's gitmem is found. The shim said "gitmem:
    not on PATH; skipping" on stderr, which they show only when a hook fails, and the
    commit went through unchecked. It now falls back to the gitmem that installed it."""
    proc = subprocess.run(["gitmem", "install", "git"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    git_dir = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    bare = {"PATH": f"{git_dir}:/usr/bin:/bin"}
    if shutil.which("gitmem", path=bare["PATH"]) is not None:
        pytest.skip("gitmem is installed system-wide here")
    write(project, "billing/charge.py", "x = float(1)\n")
    git(project, "add", "billing")
    proc = commit(project, "use floats", **bare)
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr


def test_doctor_sees_a_shim_replaced_by_another_tool(project: Path) -> None:
    """simple-git-hooks and setup scripts write .git/hooks/pre-commit again on each
    install: gitmem's shim is gone while the hook it had replaced is still kept."""
    hooks = project / ".git" / "hooks"
    (hooks / "pre-commit").write_text("#!/bin/sh\nnpx lint-staged\n")
    (hooks / "pre-commit").chmod(0o755)
    assert subprocess.run(["gitmem", "install", "git"], cwd=project).returncode == 0
    assert _git_hooks_check(project) == {
        "name": "git hooks",
        "ok": True,
        "detail": ".git/hooks/pre-commit checks the decisions at commit time",
    }
    (hooks / "pre-commit").write_text("#!/bin/sh\nnpx lint-staged\n")
    check = _git_hooks_check(project)
    assert not check["ok"] and "something replaced gitmem's pre-commit hook" in str(check["detail"])


def test_a_jujutsu_colocated_repository_is_told_its_commits_run_no_hooks(project: Path) -> None:
    """A work tree that is also a Jujutsu repository (`.jj` beside `.git`, jj's default):
    jj writes its commits itself and runs no git hook (jj 0.46, tried by hand in session
    71: a `jj commit` of a critical rule's violation went in), so the shims gitmem installs
    never see them. `install git` and doctor say so, and where the check does run."""
    (project / ".jj" / "repo").mkdir(parents=True)
    (project / ".jj" / "working_copy").mkdir()
    done = subprocess.run(["gitmem", "install", "git"], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "installed pre-commit" in done.stdout
    assert "also a Jujutsu (jj) repository: the commits jj makes run no git hooks" in done.stderr
    check = _git_hooks_check(project)
    assert check["ok"] is True
    assert str(check["detail"]).startswith(".git/hooks/pre-commit checks the decisions at commit time; ")
    assert "`gitmem check --range`" in str(check["detail"])
    shutil.rmtree(project / ".jj")
    again = subprocess.run(["gitmem", "install", "git"], cwd=project, capture_output=True, text=True)
    assert "Jujutsu" not in again.stderr
    assert "Jujutsu" not in str(_git_hooks_check(project)["detail"])


# README › Hook managers: gitmem as a local hook of the pre-commit framework
LOCAL_GITMEM_HOOKS = """repos:
- repo: local
  hooks:
  - id: gitmem-check
    name: gitmem check
    entry: gitmem check --staged
    language: system
    pass_filenames: false
  - id: gitmem-trailers
    name: gitmem trailers
    entry: gitmem trailers
    language: system
    stages: [prepare-commit-msg]
"""


def test_the_pre_commit_framework_runs_the_installed_gitmem(project: Path, tmp_path: Path) -> None:
    """The README's `repo: local` hooks: the pre-commit framework runs the gitmem already
    installed (no environment of its own to build), checks and adds the trailer; doctor
    names it."""
    kinds = ("pre-commit", "prepare-commit-msg")
    env = _pre_commit_install(project, tmp_path, LOCAL_GITMEM_HOOKS, kinds)
    write(project, "billing/charge.py", "x = float(1)\n")
    git(project, "add", "billing")
    proc = commit(project, "floats", PRE_COMMIT_HOME=env["PRE_COMMIT_HOME"])
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "billing")
    proc = commit(project, "integers", PRE_COMMIT_HOME=env["PRE_COMMIT_HOME"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Decisions: D-0001" in git(project, "log", "-1", "--format=%B")
    assert _git_hooks_check(project)["detail"] == (
        "the pre-commit framework runs gitmem's check (.pre-commit-config.yaml)"
    )


def test_husky_4_keeps_running_its_hooks(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """husky 4 writes .git/hooks/pre-commit, which sources husky.sh and reads the hook's
    name from its own path: kept as `pre-commit.before-gitmem` and run by the shim, it
    looked for a `pre-commit.before-gitmem` hook in package.json, found none and exited
    0, so the project's hooks stopped running. The shim now runs it under its own name."""
    husky4 = npm_package("husky4")
    # its hook runs `npx husky-run`: npm's cache and logs outside $HOME
    monkeypatch.setenv("npm_config_cache", str(project.parent / "npm"))
    monkeypatch.setenv("npm_config_update_notifier", "false")
    # husky 4 installs nothing where ci-info sees a CI service (CI=true and the like)
    # unless the project says `skipCI: false`, and honours its own skip variables
    for name in ("HUSKY_SKIP_INSTALL", "HUSKY_SKIP_HOOKS", "HUSKY"):
        monkeypatch.delenv(name, raising=False)
    hooks = {"pre-commit": "echo husky4-ran >> .git/husky4.log"}
    conf = {"hooks": hooks, "skipCI": False}
    write(project, "package.json", json.dumps({"name": "p", "version": "1.0.0", "husky": conf}))
    write(project, ".gitignore", "node_modules\n")
    modules = project / "node_modules"
    (modules / ".bin").mkdir(parents=True)
    (modules / "husky").symlink_to(husky4)  # as `npm install husky@4` leaves it
    (modules / ".bin" / "husky-run").symlink_to("../husky/bin/run.js")
    env = {**os.environ, "INIT_CWD": str(project), "npm_config_user_agent": "npm/11.0.0 node/v20"}
    proc = subprocess.run(["node", str(husky4 / "husky.js"), "install"], cwd=project, env=env, capture_output=True, text=True)
    assert proc.returncode == 0 and (project / ".git/hooks/pre-commit").is_file(), proc.stdout + proc.stderr
    commit_all(project, "husky 4")
    log = project / ".git" / "husky4.log"
    assert log.read_text() == "husky4-ran\n"  # husky 4 works here
    log.unlink()
    husky_hook = (project / ".git/hooks/pre-commit").read_bytes()
    assert b"husky.sh" in husky_hook
    assert subprocess.run(["gitmem", "install", "git"], cwd=project).returncode == 0
    write(project, "billing/charge.py", "x = float(1)\n")
    git(project, "add", "billing")
    proc = commit(project, "floats")
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    assert log.read_text() == "husky4-ran\n"
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "billing")
    proc = commit(project, "integers")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert log.read_text() == "husky4-ran\n" * 2
    assert subprocess.run(["gitmem", "uninstall", "git"], cwd=project).returncode == 0
    assert (project / ".git/hooks/pre-commit").read_bytes() == husky_hook


@pytest.mark.skipif(shutil.which("git-lfs") is None, reason="git-lfs not installed (.ci/run installs it)")
def test_git_lfs_keeps_its_hooks(project: Path) -> None:
    """Git LFS installs post-checkout and post-merge too, and `git lfs install` fails
    (exit 2, "Hook already exists") on a hook it did not write, leaving its own out. In
    a repository that uses LFS, gitmem leaves those two to it (its own only refresh the
    index in the background) and a shim it had written there is taken out."""
    write(project, ".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n")
    commit_all(project, "lfs")
    hooks = project / ".git" / "hooks"
    proc = subprocess.run(["gitmem", "install", "git"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0 and "left post-checkout and post-merge to Git LFS" in proc.stdout
    assert not (hooks / "post-checkout").exists() and (hooks / "pre-commit").is_file()
    lfs = subprocess.run(["git", "lfs", "install", "--local"], cwd=project, capture_output=True, text=True)
    assert lfs.returncode == 0, lfs.stdout + lfs.stderr
    lfs_hook = (hooks / "post-checkout").read_bytes()
    assert b"git lfs post-checkout" in lfs_hook
    assert subprocess.run(["gitmem", "install", "git"], cwd=project).returncode == 0
    assert (hooks / "post-checkout").read_bytes() == lfs_hook  # still LFS's
    write(project, "billing/charge.py", "x = float(1)\n")
    git(project, "add", "billing")
    proc = commit(project, "floats")
    assert proc.returncode != 0 and "D-0001" in proc.stdout + proc.stderr
    # what an install before session 41 did: LFS's post-merge kept aside for a shim;
    # installing again gives it back
    from gitmem import githooks

    lfs_merge = (hooks / "post-merge").read_bytes()
    githooks._install_shims(hooks)
    assert (hooks / "post-merge.before-gitmem").read_bytes() == lfs_merge
    assert subprocess.run(["gitmem", "install", "git"], cwd=project).returncode == 0
    assert (hooks / "post-merge").read_bytes() == lfs_merge
    assert not (hooks / "post-merge.before-gitmem").exists()


def test_a_replayed_commit_keeps_its_own_message(project: Path) -> None:
    """A rebase's picks (clean, and continued after a conflict) and a cherry-pick replay a
    commit with its own message, which stays as it was written. Before session 56 a
    teammate's commit, rebased or cherry-picked, was signed with the `Gitmem-Session:` of
    an agent session that had edited its file that day, and gained a `Decisions:` line."""
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0
    _edit(project, "s-agent", "billing/charge.py")  # an agent edited the file today
    main = git(project, "branch", "--show-current").strip()
    git(project, "checkout", "-q", "-b", "teammate")
    write(project, "billing/charge.py", "x = 1  # the teammate's\n")
    git(project, "add", "-A")  # the teammate's commit, made without gitmem's hooks
    git(project, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "teammate: note")
    write(project, "billing/refund.py", "y = 1\n")
    git(project, "add", "-A")
    git(project, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "teammate: refund")
    git(project, "checkout", "-q", main)
    write(project, "docs/notes.md", "notes\n")
    git(project, "add", "-A")
    assert commit(project, "docs").returncode == 0
    git(project, "checkout", "-q", "teammate")
    git(project, "rebase", "-q", main)
    assert git(project, "log", "-2", "--format=%B") == "teammate: refund\n\nteammate: note\n\n"
    git(project, "checkout", "-q", main)
    git(project, "cherry-pick", "teammate~1")
    assert git(project, "log", "-1", "--format=%B") == "teammate: note\n\n"
    # a conflict the agent resolves: the commit continued keeps the message it had
    git(project, "checkout", "-q", "-b", "clash", "HEAD~1")
    write(project, "billing/charge.py", "x = 3\n")
    git(project, "add", "-A")
    git(project, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "clash: three")
    stopped = subprocess.run(["git", "rebase", main], cwd=project, capture_output=True)
    assert stopped.returncode != 0  # stopped at the conflict
    _edit(project, "s-agent", "billing/charge.py")
    write(project, "billing/charge.py", "x = 4\n")
    git(project, "add", "-A")
    env = {**os.environ, "GIT_EDITOR": "true"}
    subprocess.run(["git", "rebase", "--continue"], cwd=project, env=env, check=True,
                   capture_output=True)  # fmt: skip
    assert git(project, "log", "-1", "--format=%B") == "clash: three\n\n"
    # a new commit made while a rebase is stopped is the committer's own: trailers as usual
    script = "sed -i '1s/^pick/edit/'"
    subprocess.run(["git", "rebase", "-q", "-i", "HEAD~1"], cwd=project, check=True,
                   env={**env, "GIT_SEQUENCE_EDITOR": script}, capture_output=True)  # fmt: skip
    write(project, "billing/charge.py", "x = 5\n")
    git(project, "add", "-A")
    assert commit(project, "five, during the rebase").returncode == 0
    message = git(project, "log", "-1", "--format=%B")
    assert "Decisions: D-0001\nGitmem-Session: alice/s-agent" in message, message
    subprocess.run(["git", "rebase", "--continue"], cwd=project, env=env, check=True,
                   capture_output=True)  # fmt: skip


def test_a_fixup_folded_by_a_rebase_keeps_the_commits_decisions(project: Path) -> None:
    """`git rebase --autosquash` folds a fixup into its commit, an amend of it: the
    trailer names the decisions of all its files. Before session 56 it named the fixup's
    files' alone, and the money decision of the code the commit changed was dropped."""
    write(project, ".continuity/decisions/0002-docs.md",
          "---\ntitle: Docs are Markdown\nstatus: accepted\nglobs: [\"docs/**\"]\n---\n"
          "# Docs are Markdown\n\n## Decision\n\nMarkdown only.\n")  # fmt: skip
    write(project, "docs/notes.md", "notes\n")
    commit_all(project, "docs")
    assert CliRunner().invoke(cli, ["install", "git"]).exit_code == 0
    main = git(project, "branch", "--show-current").strip()
    git(project, "checkout", "-q", "-b", "work")
    write(project, "billing/charge.py", "x = 2\n")
    git(project, "add", "-A")
    assert commit(project, "charge two").returncode == 0
    assert "Decisions: D-0001\n" in git(project, "log", "-1", "--format=%B")
    write(project, "docs/notes.md", "notes, fixed\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "--fixup", "HEAD")
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "true", "GIT_EDITOR": "true"}
    subprocess.run(["git", "rebase", "-q", "-i", "--autosquash", main], cwd=project, env=env,
                   check=True, capture_output=True)  # fmt: skip
    message = git(project, "log", "-1", "--format=%B")
    assert message.startswith("charge two\n") and "Decisions: D-0001, D-0002\n" in message, message
    assert git(project, "rev-list", "--count", f"{main}..HEAD").strip() == "1"


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a file system needs root")
def test_a_clone_on_a_file_system_mounted_noexec_is_said_to_run_no_hooks(
    tmp_path: Path,
) -> None:
    """Git passes over every hook of a clone on a file system mounted `noexec` (a
    hardened /tmp or /home, removable media), with a hint the commit's output buries: a
    commit that broke a critical rule went in, and `gitmem doctor` said the decisions
    were checked at commit time. `install git` and doctor now say that git runs none of
    them, and how to have it run them."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "noexec", "tmpfs", str(mount)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"no tmpfs mount here: {mounted.stderr.decode().strip()}")
    try:
        root = mount / "repo"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        write(root, "billing/charge.py", "x = 1\n")
        write(root, ".continuity/decisions/0001-money.md", RULE)
        commit_all(root, "init")
        installed = subprocess.run(
            ["gitmem", "install", "git"], cwd=root, capture_output=True, text=True, timeout=60
        )
        assert installed.returncode == 0 and "mounted without execution" in installed.stderr
        write(root, "billing/charge.py", "x = float(1)\n")
        git(root, "add", "-A")
        assert commit(root, "use floats").returncode == 0  # git ran no hook: as said
        doctor = subprocess.run(
            ["gitmem", "doctor", "--json", "--no-model"],
            cwd=root, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        check = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "git hooks")
        assert not check["ok"] and "noexec" in check["detail"], check
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)
