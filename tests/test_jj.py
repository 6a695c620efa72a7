"""gitmem in a Jujutsu (jj) repository, with the real `jj` (README: Jujutsu (jj)).

jj needs glibc 2.43 (jj 0.46): CI runs these in its Debian unstable root, where .ci/run
installs it; elsewhere they are skipped. Tests of the same paths with a `.jj` folder and
no jj (tests/test_hooks.py, test_githooks.py, test_why.py) run everywhere."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import MONEY_RULE, commit_all, git, run_agent_hook, run_gitmem, write

JJ = shutil.which("jj")
pytestmark = pytest.mark.skipif(JJ is None, reason="no jj on this machine (it needs glibc 2.43)")
README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture
def jj_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """jj's user settings in a file of the test's (HOME is guarded: nothing goes there)."""
    config = tmp_path / "jj.toml"
    config.write_text('[user]\nname = "Test Author"\nemail = "test@example.com"\n', "utf-8")
    monkeypatch.setenv("JJ_CONFIG", str(config))


def run_jj(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert JJ is not None
    return subprocess.run([JJ, "--no-pager", "--color=never", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def jj(cwd: Path, *args: str) -> str:
    done = run_jj(cwd, *args)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


@pytest.fixture
def colocated(repo: Path, jj_env: None) -> Path:
    """A git repository with a critical money rule over billing/, colocated with jj."""
    write(repo, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    write(repo, "billing/charge.py", "x = 1\n")
    commit_all(repo, "a rule")
    jj(repo, "git", "init", "--colocate")
    assert run_gitmem(repo, "index").returncode == 0
    return repo


def before(project: Path, command: str) -> str | None:
    """The pre-tool hook's deny reason for a shell command, None when it lets it run."""
    payload = {"session_id": "jj", "cwd": str(project), "tool_name": "Bash",
               "hook_event_name": "PreToolUse", "tool_input": {"command": command}}  # fmt: skip
    said = run_agent_hook(project, "gitmem-hook claude pre-tool", payload) or {}
    specific = said.get("hookSpecificOutput", {})
    assert isinstance(specific, dict)
    if specific.get("permissionDecision") != "deny":
        return None
    return str(specific["permissionDecisionReason"])


def test_what_the_hook_reads_is_what_jj_commits(colocated: Path) -> None:
    """Each jj command that ends the working copy's change is denied before it runs when
    the change breaks a critical rule, and what it would have committed is what jj then
    puts in git's HEAD: the hook reads the right thing."""
    write(colocated, "billing/charge.py", "x = 1\ny = float(x)\n")
    write(colocated, "billing/new.py", "z = float(2)\n")  # new: git does not know it yet
    write(colocated, "docs/notes.md", "notes\n")
    for command in ("jj commit -m charge", "jj describe -m charge && jj new", "jj squash",
                    "jj split -m charge billing/new.py"):  # fmt: skip
        reason = before(colocated, command)
        assert reason is not None and "runs no git hooks" in reason, command
        assert "D-0001" in reason, reason
    assert before(colocated, "jj split -m docs docs/notes.md") is None
    assert before(colocated, "jj describe -m charge") is None
    assert before(colocated, "jj log") is None
    # the agent would have been stopped; a person runs them, and jj commits the violation
    jj(colocated, "split", "-m", "docs", "docs/notes.md")
    assert git(colocated, "show", "--name-only", "--format=", "HEAD").split() == ["docs/notes.md"]
    jj(colocated, "describe", "-m", "charge")
    jj(colocated, "new")
    assert "float(x)" in git(colocated, "show", "HEAD:billing/charge.py")
    assert "float(2)" in git(colocated, "show", "HEAD:billing/new.py")
    # the change is committed now: nothing is left in the working copy to read
    assert before(colocated, "jj new") is None
    write(colocated, "billing/more.py", "w = float(3)\n")
    assert before(colocated, "jj squash") is not None
    jj(colocated, "squash")
    assert "float(3)" in git(colocated, "show", "HEAD:billing/more.py")
    # a squash of a change already committed is not the working copy's: not read
    assert before(colocated, "jj squash -r @- -m x") is None


def test_filesets_are_read_as_jj_reads_them(colocated: Path) -> None:
    """A jj command that names files takes filesets (`jj help -k filesets`): patterns,
    operators, and bare paths that are globs. The hook asks jj which files of the change
    they name; before session 73 they were read as git pathspecs, and `'~docs'` or
    `glob:...` matched nothing, so the commit went in unchecked."""
    write(colocated, "billing/charge.py", "x = 1\ny = float(x)\n")
    write(colocated, "billing/sub/ok.py", "z = 2\n")
    write(colocated, "docs/notes.md", "notes\n")
    denied = ["jj commit -m c 'glob:billing/*.py'", "jj commit -m c '~docs'",
              "jj split -m c 'docs | billing/charge.py'", "jj commit -m c 'billing/*.py'",
              "cd docs && jj commit -m c 'root:billing'", "jj squash 'all()'"]  # fmt: skip
    for command in denied:
        reason = before(colocated, command)
        assert reason is not None and "D-0001" in reason, command
    # a bare path is a prefix glob: `*` stays in its folder, as git's pathspec `*` does not
    allowed = ["jj commit -m c '~billing'", "jj commit -m c 'billing/sub/*.py'",
               "jj commit -m c 'billing ~ glob:billing/*.py'", "jj split -m c 'none()'",
               "jj commit -m c 'glob:*/sub/*'", "cd docs && jj commit -m c 'glob:*'"]  # fmt: skip
    for command in allowed:
        assert before(colocated, command) is None, command
    # an alias of the user's jj settings (`jj help -k filesets`): jj's to read too
    config = Path(os.environ["JJ_CONFIG"])
    config.write_text(config.read_text("utf-8") + '[fileset-aliases]\nMONEY = "billing"\n',
                      "utf-8")  # fmt: skip
    assert before(colocated, "jj commit -m c MONEY") is not None
    assert before(colocated, "jj commit -m c '~MONEY'") is None
    # what the hook let through is what jj commits
    jj(colocated, "commit", "-m", "docs and ok", "~billing/charge.py")
    committed = git(colocated, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(committed) == ["billing/sub/ok.py", "docs/notes.md"]
    assert before(colocated, "jj commit -m c '~docs'") is not None  # charge.py is left


def test_the_readme_alias_checks_what_a_push_sends(colocated: Path, tmp_path: Path) -> None:
    """The README's `checked-push` alias, as written there: a violation in the commits a
    push would send stops it; fixed, the push goes."""
    block = re.search(r"```toml\n(\[aliases\].*?checked-push.*?)```", README.read_text("utf-8"),
                      re.S)  # fmt: skip
    assert block, "the README's jj alias"
    config = Path(os.environ["JJ_CONFIG"])
    config.write_text(config.read_text("utf-8") + block.group(1), "utf-8")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(colocated, "remote", "add", "origin", str(remote))
    git(colocated, "push", "-q", "origin", "main")
    jj(colocated, "git", "fetch")
    jj(colocated, "bookmark", "track", "main@origin")  # as `jj git clone` leaves it
    write(colocated, "billing/charge.py", "x = 1\ny = float(x)\n")
    jj(colocated, "commit", "-m", "charge")
    jj(colocated, "bookmark", "set", "main", "-r", "@-")
    pushed = run_jj(colocated, "checked-push", "--bookmark", "main")
    assert pushed.returncode != 0, pushed.stdout + pushed.stderr
    assert "D-0001" in pushed.stdout + pushed.stderr
    assert "float" not in git(remote, "show", "main:billing/charge.py")
    write(colocated, "billing/charge.py", "x = 1\ny = x * 100\n")
    jj(colocated, "squash")  # the fix into the commit the push sends
    pushed = run_jj(colocated, "checked-push", "--bookmark", "main")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert "x * 100" in git(remote, "show", "main:billing/charge.py")


def test_a_repository_not_colocated_is_named(tmp_path: Path, jj_env: None) -> None:
    """`jj git init --no-colocate` keeps git inside .jj: gitmem names the jj repository and
    the command that makes it colocated, then works."""
    project = tmp_path / "p"
    project.mkdir()
    jj(project, "git", "init", "--no-colocate")
    done = run_gitmem(project, "why", "README.md")
    assert done.returncode != 0
    assert "jj git colocation enable" in done.stderr, done.stderr
    jj(project, "git", "colocation", "enable")
    assert (project / ".git").exists()
    assert run_gitmem(project, "why", "README.md").returncode == 0
