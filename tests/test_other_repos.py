"""Decisions of other repositories than the session's: a submodule's own, a sibling clone's,
and each clone's when the agent runs in a folder holding several. The tool-call hooks and
`gitmem why` bring them, each from its own repository, named; before, a submodule's
decisions never reached an agent working from the superproject, and an agent started in
a folder of clones got no decision at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import commit_all, decision, git, run_agent_hook, run_gitmem, write

HOOK = "gitmem-hook claude"
HEADER = "In the repository at {} (the globs and record files below are relative to it):"


def _clone_with_decision(root: Path, title: str) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    write(root, "billing/charge.py", "x = 1\n")
    decision(root, "0001-money.md", title, globs=["billing/**"])
    commit_all(root, "decisions")
    return root


def _edit(cwd: Path, target: Path, session: str = "s1") -> dict[str, object]:
    return {
        "session_id": session,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(target), "old_string": "x", "new_string": "y"},
    }


def _context(answer: dict[str, object] | None) -> str:
    assert answer is not None
    return str(answer["hookSpecificOutput"]["additionalContext"])  # type: ignore[index]


def _superproject_keeping_none(top: Path, upstream: Path, at: str) -> Path:
    """A new repository at ``top`` that keeps no decisions, with ``upstream`` (one that
    does) as its submodule at ``at``."""
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    write(top, "README.md", "x\n")
    commit_all(top, "top")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), at)
    return top


@pytest.fixture
def superproject(repo: Path, tmp_path: Path) -> Path:
    """`repo` with a decision over libs/**, and a submodule at libs/pay that keeps its own
    decision over billing/** (both D-0001)."""
    pay = _clone_with_decision(tmp_path / "upstream-pay", "Money is integer cents")
    write(repo, "api/routes.py", "")
    decision(repo, "0001-vendored.md", "Libraries are vendored", globs=["libs/**"])
    commit_all(repo, "top")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(pay), "libs/pay")
    commit_all(repo, "submodule")
    assert (repo / "libs/pay/.git").is_file()  # a gitfile into .git/modules
    return repo


def test_a_submodules_decisions_reach_the_superprojects_session(superproject: Path) -> None:
    target = superproject / "libs/pay/billing/charge.py"
    text = _context(run_agent_hook(superproject, f"{HOOK} pre-tool", _edit(superproject, target)))
    ours, theirs = text.split("\n\n")
    assert "Libraries are vendored" in ours and "libs/**" in ours  # the superproject's
    assert theirs.startswith(HEADER.format("libs/pay"))
    assert "Money is integer cents" in theirs and "governs billing/**" in theirs
    # each repository remembers what it showed: the same ids, no clash, nothing twice
    assert run_agent_hook(superproject, f"{HOOK} pre-tool", _edit(superproject, target)) is None
    # a path of the superproject's own gets no header and nothing of the submodule's
    api = _edit(superproject, superproject / "api/routes.py", "s2")
    assert run_agent_hook(superproject, f"{HOOK} pre-tool", api) is None

    reports = json.loads(run_gitmem(superproject, "why", "--json", str(target)).stdout)
    assert [(r["path"], r["repository"], [d["id"] for d in r["decisions"]]) for r in reports] == [
        ("libs/pay/billing/charge.py", None, ["D-0001"]),
        ("billing/charge.py", str(superproject / "libs/pay"), ["D-0001"]),
    ]
    human = run_gitmem(superproject, "why", "libs/pay/billing/charge.py").stdout
    assert "(in the repository at libs/pay: billing/charge.py)" in human
    assert "Money is integer cents" in human


def test_an_agent_in_a_folder_of_clones_gets_each_clones_decisions(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    _clone_with_decision(workspace / "pay", "Pay keeps integer cents")
    _clone_with_decision(workspace / "web", "Web shows prices from the API")
    (workspace / "notes").mkdir()  # not a repository: passed over
    start = {"session_id": "s1", "cwd": str(workspace), "source": "startup"}
    digest = _context(run_agent_hook(workspace, f"{HOOK} session-start", start))
    assert digest.startswith("Repositories in this folder record architectural decisions")
    # never compiled inline (a dozen clones would hold the start for seconds)
    assert "- pay: not indexed yet\n- web: not indexed yet\n" in digest
    for clone in ("pay", "web"):
        assert run_gitmem(workspace / clone, "why", "billing").returncode == 0  # compiles
    digest = _context(run_agent_hook(workspace, f"{HOOK} session-start", start))
    assert "- pay: 1 current: Pay keeps integer cents." in digest
    assert "- web: 1 current: Web shows prices from the API." in digest
    empty = tmp_path / "empty"
    empty.mkdir()
    start = {"session_id": "s0", "cwd": str(empty), "source": "startup"}
    assert run_agent_hook(empty, f"{HOOK} session-start", start) is None
    target = workspace / "pay/billing/charge.py"
    text = _context(run_agent_hook(workspace, f"{HOOK} pre-tool", _edit(workspace, target)))
    assert text.startswith(HEADER.format("pay")) and "Pay keeps integer cents" in text
    grep = {
        "session_id": "s1",
        "cwd": str(workspace),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "grep -rn cents pay/billing web/billing"},
    }
    text = _context(run_agent_hook(workspace, f"{HOOK} pre-tool", grep))
    assert text.startswith(HEADER.format("web")) and "Pay keeps" not in text  # shown already
    prompt = {"session_id": "s1", "cwd": str(workspace), "prompt": "fix pay/billing/charge.py"}
    assert run_agent_hook(workspace, f"{HOOK} prompt", prompt) is None  # not a repository
    # from inside one clone, a sibling's file by a relative path
    sibling = _edit(workspace / "web", Path("../pay/billing/charge.py"), "s3")
    text = _context(run_agent_hook(workspace / "web", f"{HOOK} pre-tool", sibling))
    assert text.startswith(HEADER.format("../pay")) and "Pay keeps integer cents" in text
    reports = json.loads(run_gitmem(workspace / "web", "why", "--json", "../pay/billing").stdout)
    assert [(r["path"], r["repository"]) for r in reports] == [
        (None, None),
        ("billing", str(workspace / "pay")),
    ]
    assert reports[1]["decisions"][0]["title"] == "Pay keeps integer cents"


def test_a_nested_repository_without_decisions_changes_nothing(repo: Path) -> None:
    write(repo, "billing/charge.py", "")
    decision(repo, "0001-money.md", "Money is integer cents", globs=["vendor/**", "billing/**"])
    commit_all(repo, "decisions")
    nested = repo / "vendor/lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    write(nested, "x.py", "")
    answer = run_agent_hook(repo, f"{HOOK} pre-tool", _edit(repo, nested / "x.py"))
    text = _context(answer)
    assert "Money is integer cents" in text and "In the repository at" not in text


def test_a_repository_without_decisions_still_reaches_its_submodules(
    repo: Path, tmp_path: Path
) -> None:
    """A superproject that keeps no decisions writes nothing of gitmem's (see
    test_hooks), but a tool call into its submodule that keeps them is answered."""
    pay = _clone_with_decision(tmp_path / "upstream-pay", "Money is integer cents")
    write(repo, "README.md", "x\n")
    commit_all(repo, "top")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(pay), "libs/pay")
    target = repo / "libs/pay/billing/charge.py"
    text = _context(run_agent_hook(repo, f"{HOOK} pre-tool", _edit(repo, target)))
    assert text.startswith(HEADER.format("libs/pay")) and "Money is integer cents" in text
    readme = _edit(repo, repo / "README.md", "s2")
    assert run_agent_hook(repo, f"{HOOK} pre-tool", readme) is None
    assert not (repo / ".git" / "gitmem").exists()


def test_the_same_repository_through_a_link_is_not_another(repo: Path, tmp_path: Path) -> None:
    from gitmem.location import locate, other_repository, worktree_roots

    decision(repo, "0001-a.md", "A rule", globs=["a/**"])
    link = tmp_path / "link"
    link.symlink_to(repo)
    loc = locate(str(link))
    roots = worktree_roots(loc.root, loc.common_dir)
    assert other_repository(str(repo / "a" / "x.py"), loc, roots) is None
    assert other_repository(str(link / "a" / "x.py"), loc, roots) is None


def test_a_prompt_naming_another_repositorys_file_gets_its_decisions(
    superproject: Path, tmp_path: Path
) -> None:
    """The prompt hook reads the session's repository with all its rankers, and the other
    repositories whose files the prompt names by their path maps; in a folder of clones
    (no repository of the session's own) only the latter, and nothing is captured."""
    prompt = {"session_id": "p1", "cwd": str(superproject),
              "prompt": "fix the rounding in libs/pay/billing/charge.py"}  # fmt: skip
    text = _context(run_agent_hook(superproject, f"{HOOK} prompt", prompt))
    assert "Libraries are vendored" in text  # the superproject's own, by path
    assert HEADER.format("libs/pay") + "\n" in text and "Money is integer cents" in text
    workspace = tmp_path / "work"
    _clone_with_decision(workspace / "pay", "Pay keeps integer cents")
    _clone_with_decision(workspace / "web", "Web shows prices from the API")
    prompt = {"session_id": "p2", "cwd": str(workspace),
              "prompt": "compare pay/billing/charge.py with web/billing/charge.py"}  # fmt: skip
    text = _context(run_agent_hook(workspace, f"{HOOK} prompt", prompt))
    assert text.startswith(HEADER.format("pay")) and "Pay keeps integer cents" in text
    assert HEADER.format("web") in text and "Web shows prices" in text
    for clone in ("pay", "web"):
        assert not (workspace / clone / ".git/gitmem/capture").exists()
    assert run_agent_hook(workspace, f"{HOOK} prompt", prompt) is None  # shown already


def test_records_shared_as_a_submodule_have_their_provenance(repo: Path, tmp_path: Path) -> None:
    """A folder of organisation-wide records added as a submodule under
    `.continuity/decisions/` is read like any other; `why` took its records for "not
    committed yet", looking for their history in the superproject."""
    org = tmp_path / "org-decisions"
    org.mkdir()
    git(org, "init", "-q", "-b", "main")
    write(org, "0100-json-logs.md", "---\ntitle: Services log JSON\nstatus: accepted\n"
          'globs: ["**/*.py"]\n---\n## Decision\n\nJSON logs.\n')  # fmt: skip
    commit_all(org, "org decisions")
    sha = git(org, "rev-parse", "HEAD").strip()
    write(repo, "app.py", "")
    commit_all(repo, "app")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(org),
        ".continuity/decisions/org")  # fmt: skip
    commit_all(repo, "adopt the organisation's decisions")
    (report,) = json.loads(run_gitmem(repo, "why", "--json", "app.py").stdout)
    (found,) = report["decisions"]
    assert found["id"] == "D-0100" and found["provenance"]["sha"] == sha


def _read(cwd: Path, target: Path, session: str, use: str) -> dict[str, object]:
    return {"session_id": session, "cwd": str(cwd), "hook_event_name": "PreToolUse",
            "tool_name": "Read", "tool_use_id": use, "tool_input": {"file_path": str(target)}}  # fmt: skip


def test_another_repositorys_decisions_come_again_after_compaction(
    superproject: Path, tmp_path: Path
) -> None:
    """Compaction takes what the hooks added out of the agent's window, so the decisions
    shown so far may be shown again: the session's repository forgets what it showed.
    Before session 31 the other repositories did not, and a submodule's decision, once
    compacted away, never came back in that session. Likewise after `/clear`, Codex's
    PostCompact, and in a folder of clones and a superproject that keeps no decisions."""
    target = superproject / "libs/pay/billing/charge.py"

    def shown(cwd: Path, session: str, use: str, path: Path = target) -> str:
        answer = run_agent_hook(cwd, f"{HOOK} pre-tool", _read(cwd, path, session, use))
        return "" if answer is None else _context(answer)

    def start(cwd: Path, session: str, source: str = "compact") -> None:
        payload = {"session_id": session, "cwd": str(cwd), "source": source,
                   "hook_event_name": "SessionStart"}  # fmt: skip
        run_agent_hook(cwd, f"{HOOK} session-start", payload)

    def comes_again(cwd: Path, session: str, path: Path, title: str) -> None:
        """Shown once, not twice; compaction; shown again."""
        assert title in shown(cwd, session, "t1", path)
        assert shown(cwd, session, "t2", path) == ""
        start(cwd, session)
        assert title in shown(cwd, session, "t3", path)

    assert "Money is integer cents" in shown(superproject, "c1", "t1")
    assert "Money is integer cents" not in shown(superproject, "c1", "t2")  # shown already
    for source in ("compact", "clear"):
        start(superproject, "c1", source)
        again = shown(superproject, "c1", f"t-{source}")
        assert HEADER.format("libs/pay") in again and "Money is integer cents" in again, source
        assert "Money is integer cents" not in shown(superproject, "c1", f"u-{source}")
    # Codex: PostCompact, with the same hook command
    compact = {"session_id": "c1", "cwd": str(superproject), "hook_event_name": "PostCompact",
               "trigger": "auto"}  # fmt: skip
    assert run_agent_hook(superproject, "gitmem-hook codex post-compact", compact) is None
    assert "Money is integer cents" in shown(superproject, "c1", "t-codex")
    # another session's memory is its own: untouched
    assert "Money is integer cents" in shown(superproject, "c2", "v1")
    assert "Money is integer cents" not in shown(superproject, "c2", "v2")
    # the session's end closes the submodule's state too (before: only the session's own)
    end = {"session_id": "c1", "cwd": str(superproject), "hook_event_name": "SessionEnd",
           "reason": "exit"}  # fmt: skip
    run_agent_hook(superproject, f"{HOOK} session-end", end)
    kept = superproject / ".git/modules/libs/pay/gitmem/sessions"
    assert '"k":"closed"' in (kept / "c1.jsonl").read_text()
    assert '"k":"closed"' not in (kept / "c2.jsonl").read_text()

    # a folder of clones: no repository of the session's own
    workspace = tmp_path / "work"
    pay = _clone_with_decision(workspace / "pay", "Pay keeps integer cents")
    comes_again(workspace, "f1", pay / "billing/charge.py", "Pay keeps integer cents")

    # a superproject that keeps no decisions, and its submodule that does
    top = _superproject_keeping_none(tmp_path / "top", tmp_path / "upstream-pay", "libs/pay")
    comes_again(top, "g1", top / "libs/pay/billing/charge.py", "Money is integer cents")
    assert not (top / ".git" / "gitmem").exists()  # still nothing of gitmem's there


def test_another_repositorys_decisions_come_again_after_a_rewind(
    superproject: Path, tmp_path: Path
) -> None:
    """A Claude Code session taken back to before the message after which a submodule's
    decision was shown (gitmem.agent.rewind): the submodule forgets it too."""
    from test_rewind import Transcript

    target = superproject / "libs/pay/billing/charge.py"
    transcript = Transcript(tmp_path / "r1.jsonl")

    def shown(use: str) -> str:
        payload = {
            **_read(superproject, target, "r1", use),
            "transcript_path": str(transcript.path),
        }
        answer = run_agent_hook(superproject, f"{HOOK} pre-tool", payload)
        return "" if answer is None else _context(answer)

    first = transcript.prompt("Look at the payments library")
    assert "Money is integer cents" in shown("t1")
    transcript.tool_round(1)
    transcript.prompt("And again")
    assert shown("t2") == ""  # shown already
    transcript.tool_round(2)
    transcript.prompt("The payments library, another way", parent=first)  # cut back to it
    assert "Money is integer cents" in shown("t3")


def test_the_session_start_names_the_submodules_that_keep_decisions(
    superproject: Path, tmp_path: Path
) -> None:
    """A submodule's decisions come as the agent touches its files; before session 31 the
    digest did not say they exist. Its line is built from the submodule's table when
    there is one (never compiled at the session's start), and comes also where the
    superproject keeps no decisions of its own."""
    start = {"session_id": "d1", "cwd": str(superproject), "source": "startup",
             "hook_event_name": "SessionStart"}  # fmt: skip
    note = ("Submodules of this repository record architectural decisions of their own, "
            "shown to you when you touch their files:\n")  # fmt: skip
    digest = _context(run_agent_hook(superproject, f"{HOOK} session-start", start))
    assert "Libraries are vendored" in digest and note + "- libs/pay: not indexed yet" in digest
    assert run_gitmem(superproject / "libs/pay", "why", "billing").returncode == 0  # compiles
    start["session_id"] = "d2"
    digest = _context(run_agent_hook(superproject, f"{HOOK} session-start", start))
    assert note + "- libs/pay: 1 current: Money is integer cents." in digest

    top = _superproject_keeping_none(tmp_path / "top", tmp_path / "upstream-pay", "vendor/pay")
    assert run_gitmem(top / "vendor/pay", "why", "billing").returncode == 0
    start = {"session_id": "d3", "cwd": str(top), "source": "startup",
             "hook_event_name": "SessionStart"}  # fmt: skip
    digest = _context(run_agent_hook(top, f"{HOOK} session-start", start))
    assert digest == note + "- vendor/pay: 1 current: Money is integer cents."
    assert not (top / ".git" / "gitmem").exists()
    # a repository without submodules: no such line
    plain = _clone_with_decision(tmp_path / "plain", "Plain rule")
    start = {"session_id": "d4", "cwd": str(plain), "source": "startup",
             "hook_event_name": "SessionStart"}  # fmt: skip
    assert "Submodules" not in _context(run_agent_hook(plain, f"{HOOK} session-start", start))


def test_a_sha256_repository_works_end_to_end(tmp_path: Path) -> None:
    """A repository made with `git init --object-format=sha256` (64-hex object names; git
    has written them since 2.29): an agent session captured on its ref and synced to a
    SHA-256 remote, a commit's trailers (the first commit amended too: its files are read
    against SHA-256's empty tree) and a critical rule at commit time, `why`'s provenance.
    Checked in session 57; nothing had tried one before."""
    import subprocess

    from conftest import agent_project

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "--object-format=sha256")
    git(root, "symbolic-ref", "HEAD", "refs/heads/main")
    agent_project(root)  # billing/** (critical, no `float(`) as D-0001; api/** as D-0002
    assert run_gitmem(root, "install", "git").returncode == 0
    amended = subprocess.run(["git", "commit", "-q", "--amend", "--no-edit"], cwd=root,
                             capture_output=True, text=True)  # fmt: skip
    assert amended.returncode == 0, amended.stderr
    assert "Decisions: D-0002, D-0001" in git(root, "log", "-1", "--format=%B")  # by path

    start = {"session_id": "s1", "cwd": str(root)}
    run_agent_hook(root, f"{HOOK} prompt", {**start, "hook_event_name": "UserPromptSubmit",
                                            "prompt": "add a route to api/routes.py"})  # fmt: skip
    edit = _edit(root, root / "api/routes.py")
    run_agent_hook(root, f"{HOOK} pre-tool", edit)
    write(root, "api/routes.py", "ROUTES = ['/refunds']\n")
    run_agent_hook(root, f"{HOOK} post-tool", {**edit, "hook_event_name": "PostToolUse"})
    run_agent_hook(root, f"{HOOK} stop", {**start, "hook_event_name": "Stop"})
    sessions = run_gitmem(root, "sessions", "--json")
    assert sessions.returncode == 0, sessions.stderr
    (row,) = json.loads(sessions.stdout)
    assert row["prompts"] == 1 and row["files_edited"] == ["api/routes.py"]
    ref = git(root, "for-each-ref", "--format=%(objectname) %(refname)", "refs/gitmem/")
    sha, name = ref.split()
    assert len(sha) == 64 and name.endswith("/s1")

    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "refunds route")
    message = git(root, "log", "-1", "--format=%B")
    assert "Decisions: D-0002" in message and f"Gitmem-Session: {row['id']}" in message
    write(root, "billing/charge.py", "x = float(1)\n")
    git(root, "add", "-A")
    blocked = subprocess.run(["git", "commit", "-q", "-m", "floats"], cwd=root,
                             capture_output=True, text=True)  # fmt: skip
    assert blocked.returncode == 1 and "decision D-0001" in blocked.stdout + blocked.stderr
    git(root, "reset", "-q", "--hard")

    why = json.loads(run_gitmem(root, "why", "--json", "api/routes.py").stdout)
    last = why[0]["decisions"][0]["provenance"]
    assert len(last["sha"]) == 64 and last["sha"] == git(root, "log", "-1", "--format=%H",
                                                          "--", ".continuity/decisions/0002-api.md").strip()  # fmt: skip

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "--object-format=sha256", str(remote))
    git(root, "remote", "add", "origin", str(remote))
    synced = run_gitmem(root, "sync")
    assert synced.returncode == 0, synced.stderr
    assert git(remote, "for-each-ref", "--format=%(objectname)", "refs/gitmem/").strip() == sha
