"""`gitmem why` through CliRunner and the installed console script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import GIT_VERSION, RECORD_LOADING, commit_all, decision, git, modules_of, write

from gitmem.cli.main import cli

GITMEM = shutil.which("gitmem")


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "billing/experimental/fx.py", "y = 1\n")
    write(repo, "api/routes.py", "z = 1\n")
    decision(
        repo,
        "0001-billing.md",
        "Billing rule",
        globs=["billing/**", "!billing/experimental/**"],
        extra="severity: critical\n",
    )
    decision(repo, "0002-charge.md", "Charge file rule", globs=["billing/charge.py"])
    decision(repo, "0003-old-api.md", "Old API", status="superseded", globs=["api/**"])
    decision(repo, "0004-new-api.md", "New API", globs=["api/**"], extra="supersedes: [D-0003]\n")
    decision(repo, "0005-python.md", "All Python", globs=["*.py"])
    commit_all(repo, "decisions")
    return repo


def why_json(args: list[str]) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["why", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_most_specific_first_and_negation(project: Path) -> None:
    (report,) = why_json(["billing/charge.py"])
    ids = [d["id"] for d in report["decisions"]]  # type: ignore[index]
    assert ids == ["D-0002", "D-0001", "D-0005"]
    first = report["decisions"][0]  # type: ignore[index]
    assert first["glob"] == "billing/charge.py"
    assert first["summary"] == "We do the thing."
    assert first["file"] == ".continuity/decisions/0002-charge.md"
    sha = git(project, "log", "-1", "--format=%H").strip()
    assert first["provenance"]["sha"] == sha and first["provenance"]["author"] == "Test Author"
    (exp,) = why_json(["billing/experimental/fx.py"])
    assert [d["id"] for d in exp["decisions"]] == ["D-0005"]  # type: ignore[index]


def test_a_path_nothing_governs_names_what_would_in_another_case(project: Path) -> None:
    """Globs match case as written, on every file system: `Billing/Charge.PY` (typed so,
    or a folder renamed by case only on macOS) meets no decision. Since session 65 `why`
    names the current decisions that would govern it in another case, as a glob's
    exclusions and supersession leave them."""
    (typed,) = why_json(["Billing/Charge.PY"])
    assert typed["decisions"] == []
    assert [(d["id"], d["glob"]) for d in typed["other_case"]] == [  # type: ignore[union-attr]
        ("D-0002", "billing/charge.py"), ("D-0001", "billing/**"), ("D-0005", "*.py")
    ]
    (excluded,) = why_json(["Billing/Experimental/notes.md"])  # !billing/experimental/**
    assert excluded["other_case"] == []
    (api,) = why_json(["API/v1.md"])  # D-0003 is superseded
    assert [d["id"] for d in api["other_case"]] == ["D-0004"]  # type: ignore[union-attr]
    (governed,) = why_json(["billing/charge.py"])
    assert governed["other_case"] == []  # only where nothing governs it as written
    text = CliRunner().invoke(cli, ["why", "Billing/Charge.PY"]).stdout
    assert "Billing/Charge.PY: no decision governs this path" in text
    assert "D-0002 Charge file rule would govern it in another case: billing/charge.py" in text


def test_a_path_through_a_symbolic_link(project: Path) -> None:
    """`packages/app/shared -> ../../billing`: `why` names what governs the target too."""
    (project / "packages/app").mkdir(parents=True)
    (project / "packages/app/shared").symlink_to("../../billing")
    (report,) = why_json(["packages/app/shared/charge.py"])
    assert report["path"] == "packages/app/shared/charge.py"
    assert [d["id"] for d in report["decisions"]] == ["D-0002", "D-0001", "D-0005"]  # type: ignore[index]


def test_why_reads_the_table_without_the_record_loader(project: Path) -> None:
    """With the table compiled, `gitmem why` reads it alone: before session 35 it imported
    the compiler, and with it the record loader, the YAML parser and pathspec (~60 ms)."""
    why_json(["billing/charge.py"])  # compiles the table
    assert modules_of(project, ["why", "billing/charge.py"], RECORD_LOADING) == (0, [])


def test_superseded_after_current_and_points_to_successor(project: Path) -> None:
    (report,) = why_json(["api/routes.py"])
    decisions = report["decisions"]
    assert [d["id"] for d in decisions] == ["D-0004", "D-0005", "D-0003"]  # type: ignore[index]
    old = decisions[2]  # type: ignore[index]
    assert old["status"] == "superseded"
    assert old["superseded_by"] == [
        {"id": "D-0004", "title": "New API", "file": ".continuity/decisions/0004-new-api.md"}
    ]


def test_paths_absolute_relative_subdir_and_outside(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(project / "billing")
    reports = why_json(["charge.py", str(project / "api" / "routes.py"), "../api", "/etc/passwd"])
    assert [r["path"] for r in reports] == ["billing/charge.py", "api/routes.py", "api", None]
    assert reports[2]["decisions"][0]["id"] == "D-0004"  # type: ignore[index]  # a folder


def test_a_worktree_inside_the_work_tree(project: Path) -> None:
    """Claude Code's `--worktree` (and its subagents' worktree isolation) puts worktrees
    in .claude/worktrees/ inside the work tree: a path there was read as the outer tree's
    `.claude/worktrees/NAME/billing/charge.py`, which no decision governs, so an edit from
    the main session met none of them. It is the worktree's `billing/charge.py`."""
    git(project, "worktree", "add", "-q", ".claude/worktrees/feat", "-b", "feat")
    (report,) = why_json([str(project / ".claude/worktrees/feat/billing/charge.py")])
    assert report["path"] == "billing/charge.py"
    assert [d["id"] for d in report["decisions"]] == ["D-0002", "D-0001", "D-0005"]  # type: ignore[index]


def test_linked_worktree_and_windows_separators(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wt = tmp_path / "wt"
    git(project, "worktree", "add", "-q", str(wt), "-b", "feature")
    monkeypatch.chdir(wt)
    reports = why_json(["billing\\charge.py", str(project / "api" / "routes.py")])
    assert reports[0]["path"] == "billing/charge.py"
    assert reports[0]["decisions"][0]["id"] == "D-0002"  # type: ignore[index]
    # a path in the main worktree, asked from the linked one, maps to the same repo path
    assert reports[1]["path"] == "api/routes.py"
    # each worktree compiles its own table in its own git dir
    assert (project / ".git" / "worktrees" / "wt" / "gitmem" / "table.sqlite").is_file()


def test_uncommitted_record_has_no_provenance(project: Path) -> None:
    decision(project, "0006-fresh.md", "Fresh", globs=["api/routes.py"])
    (report,) = why_json(["api/routes.py"])
    fresh = report["decisions"][0]  # type: ignore[index]
    assert fresh["id"] == "D-0006" and fresh["provenance"] is None


def test_human_output(project: Path) -> None:
    result = CliRunner().invoke(cli, ["why", "api/routes.py", "nothing/here.txt"])
    assert result.exit_code == 0
    assert "D-0003 Old API" in result.stdout and "superseded by D-0004 New API" in result.stdout
    assert "nothing/here.txt: no decision governs this path" in result.stdout


def test_a_folder_names_the_decisions_governing_files_under_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`why src` where decisions govern src/billing/** and src/api/**: before session 48
    it said only "no decision governs this path". Now the current decisions governing
    files under the folder (not the folder itself), with how many files each."""
    write(project, "billing/new.py", "")  # untracked, not ignored: counted
    write(project, ".gitignore", "billing/build/\n")
    write(project, "billing/build/gen.py", "")  # ignored: not counted
    (report,) = why_json(["."])
    assert report["decisions"] == [] and report["files_under"] == 10
    under = {u["id"]: (u["files"], u["example"]) for u in report["under"]}  # type: ignore[union-attr]
    assert under == {
        "D-0001": (2, "billing/charge.py"),  # critical first; not experimental/, not build/
        "D-0005": (4, "api/routes.py"),
        "D-0002": (1, "billing/charge.py"),
        "D-0004": (1, "api/routes.py"),  # D-0003 is superseded: not named
    }
    assert [u["id"] for u in report["under"]][:2] == ["D-0001", "D-0005"]  # type: ignore[index]
    (billing,) = why_json(["billing"])  # D-0001 governs billing itself; D-0002 one file
    assert [d["id"] for d in billing["decisions"]] == ["D-0001"]  # type: ignore[index]
    assert [u["id"] for u in billing["under"]] == ["D-0005", "D-0002"]  # type: ignore[union-attr]
    (charge,) = why_json(["billing/charge.py"])
    assert charge["under"] == [] and charge["files_under"] is None
    monkeypatch.chdir(project / "billing")
    out = CliRunner().invoke(cli, ["why", "experimental"]).stdout
    assert "billing/experimental: no decision governs this folder itself" in out
    assert "governing files under it (1 file):" in out
    assert "D-0005 All Python  info, 1 file, e.g. billing/experimental/fx.py" in out
    assert "`gitmem why billing/experimental/PATH` explains one" in out
    monkeypatch.setattr("gitmem.why.UNDER_MAX_FILES", 3)
    out = CliRunner().invoke(cli, ["why", ".."]).stdout
    assert "10 files under it: name a narrower folder to see the others" in out


def test_not_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["why", "x"])
    assert result.exit_code == 1
    assert "not inside a git repository" in result.stderr
    assert "Jujutsu" not in result.stderr


def test_a_jujutsu_repository_whose_git_is_inside_jj_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`jj git init --no-colocate` keeps the git repository in .jj/repo/store/git, with no
    .git in the work tree (the layout jj 0.46 writes, tried by hand in session 71): gitmem
    said only "not inside a git repository", to a user who is in one. It now names the jj
    repository and how to colocate it; a hook there still answers nothing, exit 0."""
    store = tmp_path / "proj" / ".jj" / "repo" / "store" / "git"
    store.mkdir(parents=True)
    (tmp_path / "proj" / ".jj" / "working_copy").mkdir()
    sub = tmp_path / "proj" / "src"
    sub.mkdir()
    monkeypatch.chdir(sub)
    result = CliRunner().invoke(cli, ["why", "x"])
    assert result.exit_code == 1
    assert f"not inside a git repository: {sub}" in result.stderr
    assert f"{tmp_path / 'proj'} is a Jujutsu (jj) repository" in result.stderr
    assert "`jj git colocation enable`" in result.stderr
    if GITMEM is not None:
        start = {"session_id": "s", "cwd": str(sub), "hook_event_name": "SessionStart"}
        hook = subprocess.run(
            [str(Path(GITMEM).with_name("gitmem-hook")), "claude", "session-start"],
            input=json.dumps(start), cwd=sub, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")


@pytest.mark.skipif(GITMEM is None, reason="gitmem console script not installed")
def test_console_script_in_subdirectory(project: Path) -> None:
    env = {k: v for k, v in os.environ.items()}
    proc = subprocess.run(
        [str(GITMEM), "why", "--json", "charge.py"],
        cwd=project / "billing",
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data[0]["decisions"][0]["id"] == "D-0002"
    assert proc.stderr == ""


def test_brace_lists_and_cursor_style_globs_govern_what_they_name(repo: Path) -> None:
    """Globs written as agents write their own rules' (`*.{ts,tsx}`, Cursor's comma string)
    reach the agent: before, `web/**/*.{ts,tsx}` matched no file and the comma string was
    one glob naming a file called `api/**, billing/**`."""
    from conftest import run_agent_hook, run_gitmem

    write(repo, "web/app.ts", "")
    write(repo, "web/view.tsx", "")
    write(repo, "web/app.spec.ts", "")
    write(repo, "api/routes.py", "")
    decision(
        repo,
        "0001-ts.md",
        "TypeScript is strict",
        globs=["web/**/*.{ts,tsx,mts}", "!web/**/*.{spec,test}.ts"],
    )
    write(
        repo,
        ".continuity/decisions/0002-api.md",
        "---\ntitle: Version the API\nstatus: accepted\nglobs: api/**, billing/**\n---\n"
        "## Decision\n\nA header.\n",
    )
    commit_all(repo, "decisions")
    assert {r["path"]: [d["id"] for d in r["decisions"]] for r in why_json(  # type: ignore[index, union-attr]
        ["web/view.tsx", "web/app.ts", "web/app.spec.ts", "api/routes.py"]
    )} == {
        "web/view.tsx": ["D-0001"],
        "web/app.ts": ["D-0001"],
        "web/app.spec.ts": [],
        "api/routes.py": ["D-0002"],
    }  # fmt: skip
    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(repo / "web/new.tsx"), "content": ""},
    }
    answer = run_agent_hook(repo, "gitmem-hook claude pre-tool", payload)
    assert answer is not None and "D-0001" in json.dumps(answer)
    # lint judges a written glob as a whole: no `.mts` file is no warning; `billing/**` is
    lint = run_gitmem(repo, "lint", "--json")
    found = [p["message"] for p in json.loads(lint.stdout)["problems"]]
    assert found == ["'billing/**' matches no file"], found


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen to sign")
@pytest.mark.skipif(GIT_VERSION < (2, 34), reason="signing with an ssh key needs git 2.34")
def test_provenance_of_a_signed_commit_with_log_show_signature(repo: Path, tmp_path: Path) -> None:
    """`log.showSignature` (the user's) prints a signed commit's verification on stdout
    before `git log --format`'s output; before, `why` read that line as the sha."""
    from conftest import run_gitmem

    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    allowed = tmp_path / "allowed"
    allowed.write_text(f"test@example.com {(tmp_path / 'key.pub').read_text()}")
    decision(repo, "0001-a.md", "A rule", globs=["a/**"])
    git(repo, "add", "-A")
    signing = ["-c", "gpg.format=ssh", "-c", f"user.signingkey={key}.pub"]
    git(repo, *signing, "commit", "-q", "-S", "-m", "signed")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f'[log]\n\tshowSignature = true\n[gpg]\n\tformat = ssh\n[gpg "ssh"]\n'
        f"\tallowedSignersFile = {allowed}\n"
    )
    shown = subprocess.run(
        ["git", "log", "-1", "--format=%H"], cwd=repo, capture_output=True, text=True,
        env={**os.environ, "HOME": str(home)},
    ).stdout  # fmt: skip
    assert "signature" in shown  # what the user's setting does to git log
    (report,) = json.loads(run_gitmem(repo, "why", "--json", "a/x.py", HOME=str(home)).stdout)
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert report["decisions"][0]["provenance"]["sha"] == sha


def test_provenance_in_a_shallow_clone_says_where_history_starts(
    repo: Path, tmp_path: Path
) -> None:
    """A shallow clone (`git clone --depth 1`, as CI checkouts and cloud agents make them)
    has one commit that git reports as adding every file. Before session 29, `why` named
    it, with its author, as the last change of every record: now it says the change was
    made there or before, where the clone's history starts."""
    from conftest import run_gitmem

    decision(repo, "0001-a.md", "A rule", globs=["a/**"])
    commit_all(repo, "the decision")
    write(repo, "a/x.py", "x = 2\n")
    commit_all(repo, "later code")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    (report,) = json.loads(run_gitmem(clone, "why", "--json", "a/x.py").stdout)
    tip = git(clone, "rev-parse", "HEAD").strip()
    assert report["decisions"][0]["provenance"]["sha"] == tip
    assert report["decisions"][0]["provenance"]["shallow"] is True
    text = run_gitmem(clone, "why", "a/x.py").stdout
    assert f"last changed in or before {tip[:10]}" in text and "shallow clone" in text
    # the full clone names the real commit, not marked
    (full,) = json.loads(run_gitmem(repo, "why", "--json", "a/x.py").stdout)
    assert full["decisions"][0]["provenance"]["subject"] == "the decision"
    assert full["decisions"][0]["provenance"]["shallow"] is False
