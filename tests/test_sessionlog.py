"""Listing captured sessions: one summary per session, read in a fixed number of git
processes, and filtered by user, edited path and count (real hooks, real git, the installed
CLI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    COUNTS_FETCHES,
    FetchCounter,
    commit_all,
    decision,
    git,
    run_agent_hook,
    run_gitmem,
    write,
)

from gitmem import capture
from gitmem.repo import discover

pytestmark = pytest.mark.skipif(shutil.which("gitmem") is None, reason="gitmem not installed")


def _append(project: Path, user: str, sid: str, record: dict[str, Any]) -> None:
    os.environ["GITMEM_USER"] = user  # capture.append names the ref after the user
    try:
        capture.append(discover(project), sid, {"session_id": sid, "user": user, **record})
    finally:
        del os.environ["GITMEM_USER"]


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "docs/a.md", "# a\n")
    decision(repo, "0001-money.md", "Money is integer cents", globs=["billing/**"])
    commit_all(repo, "init")
    # alice/s1 through the real hooks: two prompts, an edit, and the session's end
    hook = "GITMEM_USER=alice gitmem hook claude "
    for n in range(2):
        run_agent_hook(repo, hook + "prompt", {"session_id": "s1", "cwd": str(repo),
                                               "prompt": f"refund fix {n}"})  # fmt: skip
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(repo / "billing/charge.py")}}
    run_agent_hook(repo, hook + "post-tool", {"session_id": "s1", "cwd": str(repo), **edit})
    run_agent_hook(repo, hook + "session-end", {"session_id": "s1", "cwd": str(repo),
                                                "reason": "exit"})  # fmt: skip
    # bob/s2: three prompts and no closing record (a session killed before its end)
    for n in range(3):
        _append(repo, "bob", "s2", {"kind": "prompt", "prompt": f"p{n}", "time": 2e9 + n,
                                     "branch": "feature/x"})  # fmt: skip
    # alice/s3: closed, resumed, closed again: the latest closing record counts
    _append(
        repo, "alice", "s3", {"kind": "prompt", "prompt": "docs", "time": 1.5e9, "branch": "main"}
    )
    _append(
        repo, "alice", "s3", {"kind": "close", "time": 1.5e9 + 1, "files_edited": ["docs/a.md"]}
    )
    _append(repo, "alice", "s3", {"kind": "prompt", "prompt": "more", "time": 1.5e9 + 2})
    _append(repo, "alice", "s3", {"kind": "close", "time": 1.5e9 + 3,
                                  "files_edited": ["billing/x.py", "docs/a.md"]})  # fmt: skip
    # carol/s4: a prompt whose first line is empty and whose text has a tab
    _append(repo, "carol", "s4", {"kind": "prompt", "prompt": "\n\tindented", "time": 1e9})
    first = run_gitmem(repo, "sessions")  # flushes what waits
    assert first.returncode == 0, first.stderr
    return repo


def _expected(project: Path) -> list[dict[str, Any]]:
    """What each session's own records say, read one session at a time."""
    r = discover(project)
    rows = []
    for ref, short in capture.session_refs(r):
        recs = capture.records(r, ref)
        if not recs:
            continue  # no commits of gitmem's
        close = next((x for x in reversed(recs) if x.get("kind") == "close"), {})
        edits = next((x for x in reversed(recs) if x.get("kind") in ("turn", "close")), {})
        read = sorted(recs, key=lambda x: x.get("time") or 0)
        rows.append({
            "id": short, "ref": ref, "user": short.split("/", 1)[0],
            "session_id": recs[0].get("session_id"), "started": recs[0].get("time"),
            "last": recs[-1].get("time"), "branch": recs[0].get("branch"),
            "prompts": sum(1 for x in recs if x.get("kind", "prompt") == "prompt"),
            "files_edited": edits.get("files_edited", []), "closed": bool(close),
            "first_prompt": str(recs[0].get("prompt", "")).strip().splitlines()[0].strip(),
            "branches": list(dict.fromkeys(x["branch"] for x in read if x.get("branch"))),
            "unrecorded": [],  # no state files here: nothing edited in this clone
            "agent": recs[0].get("agent"),
        })  # fmt: skip
    return sorted(rows, key=lambda x: float(x["started"] or 0), reverse=True)


def test_the_listing_says_what_each_sessions_records_say(project: Path) -> None:
    listed = json.loads(run_gitmem(project, "sessions", "--json").stdout)
    assert listed == _expected(project)
    assert [x["id"] for x in listed] == ["bob/s2", "alice/s1", "alice/s3", "carol/s4"]
    # the agent each ran in (since session 65): alice/s1's hooks were Claude Code's
    assert [x["agent"] for x in listed] == [None, "claude", None, None]
    by_id = {x["id"]: x for x in listed}
    assert by_id["alice/s1"]["prompts"] == 2 and by_id["alice/s1"]["files_edited"] == [
        "billing/charge.py"
    ]
    assert by_id["alice/s3"]["prompts"] == 2
    assert by_id["alice/s3"]["files_edited"] == ["billing/x.py", "docs/a.md"]
    assert by_id["bob/s2"]["closed"] is False and by_id["bob/s2"]["prompts"] == 3
    assert by_id["carol/s4"]["prompts"] == 1


def test_listing_takes_the_same_git_processes_for_few_sessions_as_for_many(
    project: Path, tmp_path: Path
) -> None:
    """Before session 33 each session cost two git processes (9.3 s for 2,000 sessions).
    Now three read them all, and a listing after that reads only what is new."""
    cache = discover(project).shared_state_dir / "sessions.json"

    def git_calls(cold: bool) -> int:
        if cold:
            cache.unlink()
        trace = tmp_path / f"trace{len(list(tmp_path.iterdir()))}"
        proc = run_gitmem(project, "sessions", "--json", GIT_TRACE=str(trace))
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == _expected(project)
        return sum("trace: built-in: git" in line for line in trace.read_text().splitlines())

    few = git_calls(cold=True)
    for n in range(20):
        _append(project, "dan", f"many{n}", {"kind": "prompt", "prompt": "x", "time": 1e9 + n})
    assert run_gitmem(project, "capture", "flush").returncode == 0
    assert git_calls(cold=False) == 3  # the 20 new sessions read, the 4 others not
    assert git_calls(cold=False) == 1  # nothing new: the refs' tips only
    assert git_calls(cold=True) == few <= 4
    # a session that goes on is read again; a forgotten one leaves the list
    _append(project, "alice", "s1", {"kind": "prompt", "prompt": "and one more", "time": 3e9})
    assert run_gitmem(project, "capture", "flush").returncode == 0
    assert run_gitmem(project, "sessions", "forget", "carol/s4").returncode == 0
    assert git_calls(cold=False) == 3
    listed = {x["id"]: x for x in json.loads(run_gitmem(project, "sessions", "--json").stdout)}
    assert len(listed) == 23 and "carol/s4" not in listed
    assert listed["alice/s1"]["prompts"] == 3 and listed["alice/s1"]["last"] == 3e9
    cache.write_text('{"version": 1, "sessions": {"refs/gitmem/sessions/x/y": 7}}')  # torn
    assert git_calls(cold=False) == few
    # a ref under sessions/ that is no commit (another tool's, a mistake) is passed over
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], input="not a session\n",
                          cwd=project, capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    subprocess.run(["git", "update-ref", "refs/gitmem/sessions/zed/blob", blob], cwd=project, check=True)
    assert git_calls(cold=True) == few  # the listing still equals each session's records


def test_filters_by_user_edited_path_and_count(project: Path) -> None:
    def ids(*args: str, cwd: Path = project) -> list[str]:
        proc = run_gitmem(cwd, "sessions", "--json", *args)
        assert proc.returncode == 0, proc.stderr
        return [x["id"] for x in json.loads(proc.stdout)]

    assert ids("--user", "alice") == ["alice/s1", "alice/s3"]
    assert ids("--user", "bob", "--user", "carol") == ["bob/s2", "carol/s4"]
    assert ids("--edited", "billing") == ["alice/s1", "alice/s3"]  # a folder: files under it
    assert ids("--edited", "billing/charge.py") == ["alice/s1"]
    assert ids("--edited", "charge.py", cwd=project / "billing") == ["alice/s1"]  # from cwd
    assert ids("--edited", str(project / "docs" / "a.md")) == ["alice/s3"]
    assert ids("--edited", "bill") == []  # a folder is a whole path segment
    assert ids("-n", "2") == ["bob/s2", "alice/s1"]
    assert ids("--edited", "billing", "--user", "alice", "-n", "1") == ["alice/s1"]
    text = run_gitmem(project, "sessions", "--user", "nobody")
    assert text.returncode == 0 and text.stdout.strip() == "no captured sessions match"
    outside = run_gitmem(project, "sessions", "--edited", "/etc/passwd")
    assert outside.returncode == 2 and "outside this repository" in outside.stderr
    assert ids("--branch", "feature/x") == ["bob/s2"]
    assert ids("--branch", "main", "--branch", "feature/x", "-n", "2") == ["bob/s2", "alice/s1"]
    listing = run_gitmem(project, "sessions").stdout.splitlines()
    assert listing[0].startswith("bob/s2") and listing[0].endswith(
        'branch feature/x  3 prompts  0 files edited  "p0"'
    )
    assert listing[3].startswith("carol/s4") and listing[3].endswith('  "indented"')
    assert "  claude  branch main  2 prompts  1 file edited" in listing[1], listing[1]
    assert "  -  branch feature/x" in listing[0]  # its records name no agent
    assert ids("--agent", "claude") == ["alice/s1"] == ids("--agent", "Claude", "--agent", "pi")
    assert run_gitmem(project, "sessions", "--agent", "codex").stdout.strip() == (
        "no captured sessions match"
    )


def test_why_names_the_sessions_that_edited_a_path(project: Path) -> None:
    """`gitmem why` gives the decisions governing a path and, since session 33, the agent
    sessions that edited it, with the prompt each began with: the why behind its changes."""
    for n in range(4):
        _append(project, "erin", f"e{n}", {"kind": "prompt", "time": 2.5e9 + n,
                                           "prompt": f"  \nrefunds round trip {n}\nmore"})  # fmt: skip
        _append(project, "erin", f"e{n}", {"kind": "close", "time": 2.5e9 + n + 0.5,
                                           "files_edited": ["billing/refund.py"]})  # fmt: skip
    assert run_gitmem(project, "capture", "flush").returncode == 0
    proc = run_gitmem(project, "why", "billing", "billing/charge.py", "docs", "README.md", "--json")
    assert proc.returncode == 0, proc.stderr
    reports = {r["query"]: r for r in json.loads(proc.stdout)}
    folder = reports["billing"]
    assert folder["sessions_total"] == 6  # four of erin's, alice's s1 and s3
    assert [s["id"] for s in folder["sessions"]] == ["erin/e3", "erin/e2", "erin/e1"]
    assert folder["sessions"][0]["first_prompt"] == "refunds round trip 3"
    assert [s["id"] for s in reports["billing/charge.py"]["sessions"]] == ["alice/s1"]
    assert reports["billing/charge.py"]["decisions"][0]["id"] == "D-0001"
    assert [s["id"] for s in reports["docs"]["sessions"]] == ["alice/s3"]
    assert reports["README.md"]["sessions"] == [] and reports["README.md"]["sessions_total"] == 0
    text = run_gitmem(project, "why", "billing/charge.py", "docs").stdout
    assert "  edited in 1 captured agent session:\n    alice/s1 " in text
    assert ', claude, 2 prompts; began "refund fix 0"' in text  # no turn record says which prompt
    assert "`gitmem sessions --edited docs` lists them all" in text  # no decision governs docs
    assert "the newest" not in text
    many = run_gitmem(project, "why", "billing").stdout
    assert "edited in 6 captured agent sessions, the newest 3:" in many
    quiet = json.loads(run_gitmem(project, "why", "billing", "--no-provenance", "--json").stdout)
    assert quiet[0]["sessions"] == [] and quiet[0]["sessions_total"] == 0


def turn(project: Path, sid: str, n: int, prompt: str, *paths: str) -> None:
    """One turn of dana's Codex session ``sid``: a prompt, an edit of each of ``paths``
    (apply_patch), the turn's end. Codex stamps each turn's events (``turn_id``)."""
    hook = "GITMEM_USER=dana gitmem hook codex "
    base = {"session_id": sid, "cwd": str(project), "turn_id": f"t{n}"}
    run_agent_hook(project, hook + "prompt", {**base, "prompt": prompt})
    for path in paths:
        patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n+y = 2\n*** End Patch\n"
        call = {"tool_name": "apply_patch", "tool_input": {"command": patch}}
        run_agent_hook(project, hook + "post-tool", {**base, **call, "tool_response": "ok"})
    run_agent_hook(project, hook + "stop", {**base, "stop_hook_active": False})


def test_a_session_is_found_by_the_branch_it_went_on_to(project: Path) -> None:
    """An agent starts on main and makes a branch for its work: the session is found by
    either branch (since session 34; before, only by the one it started on)."""
    turn(project, "b1", 1, "plan the refund work")
    git(project, "checkout", "-q", "-b", "feature/refunds")
    turn(project, "b1", 2, "now write it", "billing/charge.py")

    def ids(*args: str) -> list[str]:
        found = json.loads(run_gitmem(project, "sessions", "--json", *args).stdout)
        return [s["id"] for s in found]

    assert ids("--branch", "feature/refunds") == ["dana/b1"]
    assert "dana/b1" in ids("--branch", "main")
    listing = run_gitmem(project, "sessions", "--user", "dana").stdout
    assert "  branch main → feature/refunds  2 prompts  1 file edited" in listing


def test_a_session_is_found_by_a_branch_it_passed_through(project: Path) -> None:
    """The agent makes a branch for a fix, commits, and goes back to main for its last
    turns: the session is found by the branch it passed through (since session 39; before,
    only by the branches of its first, latest edit-listing and last record)."""
    turn(project, "b2", 1, "plan the refund work")
    git(project, "checkout", "-q", "-b", "fix/rounding")
    turn(project, "b2", 2, "fix the rounding", "billing/charge.py")
    git(project, "checkout", "-q", "main")
    turn(project, "b2", 3, "and the docs", "docs/a.md")
    turn(project, "b2", 4, "sum it up")

    def ids(*args: str) -> list[str]:
        found = json.loads(run_gitmem(project, "sessions", "--json", *args).stdout)
        return [s["id"] for s in found]

    assert ids("--branch", "fix/rounding") == ["dana/b2"]
    listing = run_gitmem(project, "sessions", "--user", "dana").stdout
    assert "  branch main → fix/rounding  4 prompts  2 files edited" in listing


def test_why_names_the_prompt_whose_turn_edited_the_path(project: Path) -> None:
    """A session's first prompt says what it set out to do; the edit answered a later one.
    Each turn that edits files leaves a record (since session 34), so `gitmem why` names
    the prompt of the turn that first edited the path. Codex's hooks, which stamp turns."""
    turn(project, "d1", 1, "fix the flaky tests")
    turn(project, "d1", 2, "switch the charge amounts to cents\nand say why", "billing/charge.py")
    turn(project, "d1", 3, "now the docs", "docs/a.md", "billing/charge.py")
    assert run_gitmem(project, "capture", "flush").returncode == 0
    proc = run_gitmem(project, "why", "billing/charge.py", "docs", "billing", "--json")
    assert proc.returncode == 0, proc.stderr
    found = {r["query"]: r["sessions"][0] for r in json.loads(proc.stdout)}
    assert found["billing/charge.py"]["id"] == "dana/d1"
    assert found["billing/charge.py"]["first_prompt"] == "fix the flaky tests"
    assert found["billing/charge.py"]["prompt_behind_edit"] == "switch the charge amounts to cents"
    assert found["docs"]["prompt_behind_edit"] == "now the docs"
    assert found["billing"]["prompt_behind_edit"] == "switch the charge amounts to cents"
    text = run_gitmem(project, "why", "billing/charge.py").stdout
    assert '3 prompts; edited it in answer to "switch the charge amounts to cents"' in text


def test_why_reads_the_sessions_it_names_in_the_same_git_processes_for_one_as_for_three(
    project: Path, tmp_path: Path
) -> None:
    """The prompts behind the edits of the sessions `why` names are read together: one
    `cat-file` for one session named as for three (before, two git processes each)."""
    turn(project, "c1", 1, "cents everywhere", "billing/charge.py")
    # committed now, so that the stop hook's background flusher moves no ref meanwhile
    # (a session that went on is read again by the listing: one more cat-file)
    assert run_gitmem(project, "capture", "flush").returncode == 0
    assert run_gitmem(project, "why", "docs").returncode == 0  # the listing's summaries kept

    def cat_files(path: str, named: int) -> int:
        trace = tmp_path / f"{path.replace('/', '_')}.trace"
        proc = run_gitmem(project, "why", path, "--json", GIT_TRACE=str(trace))
        assert proc.returncode == 0, proc.stderr
        assert len(json.loads(proc.stdout)[0]["sessions"]) == named
        lines = trace.read_text().splitlines()
        return sum("trace: built-in: git cat-file" in line for line in lines)

    assert cat_files("docs", 1) == cat_files("billing", 3) == 1


def test_a_partial_clone_fetches_the_records_whole(project: Path, tmp_path: Path) -> None:
    """`git clone --filter=blob:none` (large repositories): a fetch of the session refs
    leaves out every record (a blob), and each read of one then fetched it alone, a round
    trip per record (200 sessions: 42 s over a local file:// remote). `gitmem sync` now
    fetches them whole, and fetches in one request those an earlier fetch left out."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(remote, "config", "uploadpack.allowFilter", "true")
    git(project, "push", "-q", str(remote), "HEAD:refs/heads/main", "refs/gitmem/*:refs/gitmem/*")
    expected = json.loads(run_gitmem(project, "sessions", "--json").stdout)

    def missing(clone: Path) -> int:
        out = git(clone, "rev-list", "--objects", "--missing=print", "--glob=refs/gitmem")
        return sum(line.startswith("?") for line in out.splitlines())

    def listed(clone: Path) -> list[dict[str, Any]]:
        proc = run_gitmem(clone, "sessions", "--json", GIT_NO_LAZY_FETCH="1")
        assert proc.returncode == 0, proc.stderr
        return [{**row, "unrecorded": []} for row in json.loads(proc.stdout)]

    cases = [(f, first) for f in ("blob:none", "tree:0") for first in (False, True)]
    for n, (kind, fetched_first) in enumerate(cases):  # tree:0: CI's treeless clones
        clone = tmp_path / f"clone{n}"
        git(tmp_path, "clone", "-q", f"--filter={kind}", remote.as_uri(), str(clone))
        if fetched_first:  # a plain fetch of the refs, as a user or an older gitmem ran it
            git(clone, "fetch", "-q", "origin", "refs/gitmem/*:refs/gitmem/*")
            assert missing(clone) > 0
        sync = run_gitmem(clone, "sync", GITMEM_USER="erin")
        assert sync.returncode == 0, sync.stderr
        assert missing(clone) == 0
        assert listed(clone) == [{**row, "unrecorded": []} for row in expected]


@COUNTS_FETCHES
def test_a_partial_clone_reads_the_records_in_one_request(project: Path, tmp_path: Path) -> None:
    """Sessions a plain `git fetch` brought into a partial clone, listed before any `gitmem
    sync`: their records come in one request, not one each (counted on the remote side,
    where each fetch runs `git pack-objects` once)."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(remote, "config", "uploadpack.allowFilter", "true")
    git(project, "push", "-q", str(remote), "HEAD:refs/heads/main", "refs/gitmem/*:refs/gitmem/*")
    expected = json.loads(run_gitmem(project, "sessions", "--json").stdout)
    fetches = FetchCounter(tmp_path)
    clone = tmp_path / "clone"
    for args in (["clone", "-q", "--filter=blob:none", remote.as_uri(), str(clone)],
                 ["-C", str(clone), "fetch", "-q", "origin", "refs/gitmem/*:refs/gitmem/*"]):
        subprocess.run(["git", *args], check=True, env=fetches.env)  # fmt: skip
    before = fetches.count()
    proc = run_gitmem(clone, "sessions", "--json", HOME=str(fetches.home))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [{**row, "unrecorded": []} for row in expected]
    assert fetches.count() - before == 1  # one per record before
