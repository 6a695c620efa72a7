"""Codex CLI hooks: `gitmem install codex` and `gitmem-hook codex EVENT`, run the way Codex
runs them (the command from `.codex/hooks.json`, its payloads on stdin: `apply_patch` with
the patch in `tool_input.command`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import (
    SANDBOX_HOME,
    age_deliveries,
    agent_project,
    run_agent_hook,
    run_gitmem,
    write,
)

from gitmem.agent import install, state, toolpaths
from gitmem.cli.main import cli
from gitmem.repo import discover

GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(GITMEM_HOOK is None, reason="gitmem-hook is not installed")


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def command_for(project: Path, event: str) -> str:
    """gitmem's command for ``event`` in `.codex/hooks.json`."""
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    return str(hooks[event][-1]["hooks"][0]["command"])


def codex(project: Path, event: str, payload: dict[str, object]) -> dict[str, object] | None:
    """Run the command `.codex/hooks.json` holds for ``event`` as Codex does (a shell
    command, the payload on stdin); the parsed answer, or None for an empty one."""
    command = command_for(project, event)
    base = {
        "session_id": "codex-1",
        "cwd": str(project),
        "hook_event_name": event,
        "model": "gpt-5.5-codex",
        "permission_mode": "default",
        "transcript_path": None,
        "turn_id": "turn-1",
    }
    return run_agent_hook(project, command, {**base, **payload})


def context(answer: dict[str, object] | None) -> str:
    return str(answer["hookSpecificOutput"]["additionalContext"]) if answer else ""  # type: ignore[index]


def patch(*sections: str) -> dict[str, object]:
    body = "\n".join(["*** Begin Patch", *sections, "*** End Patch"])
    return {"tool_name": "apply_patch", "tool_input": {"command": body}, "tool_use_id": "t"}


def test_install_merges_is_idempotent_and_uninstall_restores(project: Path) -> None:
    theirs = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}
            ]
        }
    }
    write(project, ".codex/hooks.json", json.dumps(theirs))
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "codex"])
    assert result.exit_code == 0 and "/hooks" in result.output  # says how Codex trusts them
    data = json.loads((project / ".codex" / "hooks.json").read_text())
    assert set(data["hooks"]) == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "PostCompact",
    }
    assert data["hooks"]["PreToolUse"][0] == theirs["hooks"]["PreToolUse"][0]
    ours = data["hooks"]["PreToolUse"][1]
    assert ours["matcher"] == "Bash|apply_patch|mcp__.*"
    assert install.inner_command(ours["hooks"][0]["command"], install.CODEX) == "gitmem-hook codex pre-tool"
    assert "already installed" in runner.invoke(cli, ["install", "codex"]).output
    refused = runner.invoke(cli, ["install", "codex", "--scope", "local"])
    assert refused.exit_code != 0 and "project or user" in refused.output
    # Claude Code's settings are not Codex's: neither install touches the other
    assert not (project / ".claude").exists()
    result = runner.invoke(cli, ["uninstall", "codex"])
    assert result.exit_code == 0 and "removed 6" in result.output
    assert json.loads((project / ".codex" / "hooks.json").read_text()) == theirs
    (project / ".codex" / "hooks.json").unlink()
    assert runner.invoke(cli, ["install", "codex"]).exit_code == 0
    assert runner.invoke(cli, ["uninstall", "codex"]).exit_code == 0
    assert not (project / ".codex").exists()  # nothing of ours is left behind


def test_a_codex_session_gets_the_decisions(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "codex"]).exit_code == 0
    start = context(codex(project, "SessionStart", {"source": "startup"}))
    assert "D-0001" in start and "D-0002" not in start
    # an edit through apply_patch, with the absolute path Codex sends
    edit = patch(f"*** Update File: {project / 'api/routes.py'}", "@@", "+VERSION = 2")
    assert "D-0002" in context(codex(project, "PreToolUse", edit))
    assert codex(project, "PreToolUse", edit) is None  # shown once per session
    # after Codex compacts its context, what was shown may be shown again
    assert codex(project, "PostCompact", {"trigger": "auto"}) is None
    assert "D-0002" in context(codex(project, "PreToolUse", edit))
    # and the next prompt brings back the digest's pinned and critical decision, which
    # no session-start hook re-sends after Codex compacts (Claude Code's does)
    again = context(codex(project, "UserPromptSubmit", {"prompt": "Go on"}))
    assert "D-0001" in again and "your context lost them" in again
    assert codex(project, "UserPromptSubmit", {"prompt": "Go on, please"}) is None  # once
    answer = codex(project, "PostToolUse", {**edit, "tool_response": "Success"})
    assert answer is None  # already shown; the edit is recorded
    view = state.read_view(discover(project).shared_state_dir, "codex-1")
    assert "api/routes.py" in view.edited
    # a shell command that reads a governed file
    shell = {"tool_name": "Bash", "tool_input": {"command": "cat billing/charge.py"}}
    answer = codex(project, "PreToolUse", {**shell, "session_id": "codex-2"})
    assert "D-0001" in context(answer)
    # the prompt is answered and captured as Codex's
    prompt = {"prompt": "Should api clients still send the version header?"}
    assert "D-0002" in context(codex(project, "UserPromptSubmit", {**prompt, "session_id": "p"}))
    from gitmem import capture

    wal = Path(capture.wal_path(discover(project), "p")).read_text()
    records = [json.loads(line) for line in wal.splitlines() if line.strip()]
    assert [r["agent"] for r in records if r.get("prompt")] == ["codex"]
    assert codex(project, "Stop", {"stop_hook_active": False, "session_id": "p"}) is None
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"])
    assert "codex hooks" in doctor.output and "codex pre-tool" in doctor.output


def test_a_codex_session_which_never_ends_says_what_it_edited(project: Path) -> None:
    """Codex sends no session end, so no closing record lists what a session edited: each
    turn that edited files adds a record with every file edited so far, and `gitmem why`
    and `gitmem sessions --edited` name the session from it."""
    assert CliRunner().invoke(cli, ["install", "codex"]).exit_code == 0
    sid = {"session_id": "cx"}

    def turn(prompt: str, *paths: str) -> None:
        this = {**sid, "turn_id": prompt}  # Codex stamps each turn's events
        codex(project, "UserPromptSubmit", {**this, "prompt": prompt})
        for path in paths:
            edit = patch(f"*** Update File: {project / path}", "@@", "+x = 2")
            codex(project, "PostToolUse", {**this, **edit, "tool_response": "Success"})
        codex(project, "Stop", {**this, "stop_hook_active": False})

    def run(*args: str) -> str:
        done = run_gitmem(project, *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    turn("version the routes", "api/routes.py")
    turn("and charge in cents", "billing/charge.py", "api/routes.py")
    turn("explain what you did")  # no edit: no record
    listed = json.loads(run("sessions", "--edited", "billing", "--json"))
    assert [(s["id"].split("/")[1], s["files_edited"], s["closed"]) for s in listed] == [
        ("cx", ["api/routes.py", "billing/charge.py"], False)
    ]
    assert listed[0]["prompts"] == 3
    assert "edited in 1 captured agent session:" in run("why", "api/routes.py")
    shown = json.loads(run("sessions", "show", listed[0]["id"], "--json"))["records"]
    kinds = [(r["kind"], r.get("files_edited")) for r in shown]
    assert kinds == [
        ("prompt", None),
        ("turn", ["api/routes.py"]),
        ("prompt", None),
        ("turn", ["api/routes.py", "billing/charge.py"]),
        ("prompt", None),
    ]
    transcript = run("sessions", "show", listed[0]["id"])
    assert "  edited: api/routes.py\n" in transcript
    assert "  edited: billing/charge.py\n" in transcript  # what that turn added


def test_stops_at_once_record_the_turn_once(project: Path) -> None:
    """Codex runs the hooks of both scopes when gitmem is installed for the project and
    the user: two stop hooks at once, each of which would record the turn's edits. The
    session's lock lets one note them; the other finds nothing new."""
    assert CliRunner().invoke(cli, ["install", "codex"]).exit_code == 0
    base = {"session_id": "both", "turn_id": "t1"}
    codex(project, "UserPromptSubmit", {**base, "prompt": "version the routes"})
    edit = patch(f"*** Update File: {project / 'api/routes.py'}", "@@", "+x = 2")
    codex(project, "PostToolUse", {**base, **edit, "tool_response": "Success"})
    payload = json.dumps({**base, "cwd": str(project), "hook_event_name": "Stop"})
    env = {**os.environ, "HOME": SANDBOX_HOME}
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    argv = [str(GITMEM_HOOK), "codex", "stop"]
    stops = [subprocess.Popen(argv, cwd=project, env=env, text=True, **pipes) for _ in "ab"]
    # both given their payload before either is waited for; each says which copy it is,
    # so neither is taken for the other delivered again
    for n, proc in enumerate(stops):
        assert proc.stdin is not None
        proc.stdin.write(payload[:-1] + f', "copy": {n}}}')
        proc.stdin.close()
    for proc in stops:
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=60) == 0 and out == err == "", err
    listed = json.loads(run_gitmem(project, "sessions", "--json").stdout)
    (session,) = [s for s in listed if s["session_id"] == "both"]
    records = json.loads(run_gitmem(project, "sessions", "show", session["id"], "--json").stdout)
    kinds = [r["kind"] for r in records["records"]]
    assert kinds == ["prompt", "turn"], kinds


def test_a_turn_is_not_recorded_where_prompts_are_not(project: Path) -> None:
    """A prompt not captured (capture switched off for it), its turn's edits are not
    recorded either."""
    assert CliRunner().invoke(cli, ["install", "codex"]).exit_code == 0
    off = f"export GITMEM_CAPTURE=off; {command_for(project, 'UserPromptSubmit')}"
    run_agent_hook(project, off, {"session_id": "q", "cwd": str(project), "prompt": "hi"})
    edit = patch(f"*** Update File: {project / 'api/routes.py'}", "@@", "+x = 2")
    codex(project, "PostToolUse", {"session_id": "q", **edit, "tool_response": "Success"})
    codex(project, "Stop", {"session_id": "q", "stop_hook_active": False})
    assert run_gitmem(project, "sessions", "--json").stdout.strip() == "[]"


def test_a_patch_is_checked_file_by_file(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "codex"]).exit_code == 0
    bad = "+total = float(amount)"
    denied = codex(
        project,
        "PreToolUse",
        patch("*** Update File: billing/charge.py", "@@", "-x = 1", bad),
    )
    output = denied["hookSpecificOutput"]  # type: ignore[index]
    assert (
        output["permissionDecision"] == "deny"
        and "D-0001 (critical)" in output["permissionDecisionReason"]
    )
    # the same line added to a file no rule governs, beside a harmless billing edit
    answer = codex(
        project,
        "PreToolUse",
        patch(
            "*** Add File: api/convert.py",
            bad,
            "*** Update File: billing/charge.py",
            "@@",
            "+y = 2",
        ),
    )
    assert answer is not None and "permissionDecision" not in answer["hookSpecificOutput"]  # type: ignore[operator]
    # a patch a shell command hands to apply_patch is read as one
    heredoc = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: billing/charge.py\n@@\n"
    shell = {"tool_name": "Bash", "tool_input": {"command": heredoc + bad + "\n*** End Patch\nEOF"}}
    denied = codex(project, "PreToolUse", {**shell, "session_id": "codex-3"})
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    # ... from the folder it runs in (since session 43: a `cd` before it was not followed)
    moved = heredoc.replace("billing/charge.py", "charge.py")
    shell = {"tool_name": "Bash", "tool_input": {"command": f"cd billing && {moved}{bad}\n*** End Patch\nEOF"}}
    denied = codex(project, "PreToolUse", {**shell, "session_id": "codex-4"})
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]


def twice(project: Path, event: str, payload: dict[str, object]) -> list[dict[str, object] | None]:
    """The command for ``event`` run twice at once on one payload, as Codex runs gitmem
    installed for the project and for the user: the answers."""
    command = command_for(project, event)
    data = json.dumps({"session_id": "codex-9", "cwd": str(project), "hook_event_name": event,
                       "turn_id": "turn-1", **payload})  # fmt: skip
    env = {**os.environ, "HOME": SANDBOX_HOME}
    procs = [subprocess.Popen(command, shell=True, cwd=project, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(2)]  # fmt: skip
    outputs = [p.communicate(data, timeout=60)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    return [json.loads(out) if out else None for out in outputs]


def test_an_event_delivered_twice_is_handled_once(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex runs every scope's hooks, the same command twice when gitmem is installed for
    the project and for the user (doctor says so). One run answers and records; the other
    answers nothing (no second digest of titles, no second capture). A rule's deny comes
    from both. The same payload again later is a new event."""
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    for scope in ("project", "user"):
        assert CliRunner().invoke(cli, ["install", "codex", "--scope", scope]).exit_code == 0
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"]).output
    assert "Codex runs the hooks of every scope (project, user)" in doctor
    start = twice(project, "SessionStart", {"source": "startup"})
    assert sorted(map(context, start)) == ["", context(start[0]) or context(start[1])]
    assert "D-0001" in context(start[0]) + context(start[1])
    twice(project, "UserPromptSubmit", {"prompt": "Tidy up the code"})
    from gitmem import capture

    wal = Path(capture.wal_path(discover(project), "codex-9")).read_text()
    assert wal.count("Tidy up the code") == 1, wal
    edit = patch("*** Update File: billing/charge.py", "@@", "-x = 1", "+x = float(1)")
    for answer in twice(project, "PreToolUse", edit):
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    # a minute later, the same start (a resumed session's payload may repeat) is answered
    age_deliveries(project, "codex-9", state.REDELIVERY_S)
    again = twice(project, "SessionStart", {"source": "startup"})
    assert sorted(a is None for a in again) == [False, True]


def test_patch_paths() -> None:
    body = "\n".join(
        [
            "*** Begin Patch",
            "*** Update File: /r/a.py",
            "@@ def f():",
            "-    return 1",
            "+    return 2",
            "*** Add File: b/new.py",
            "+hello",
            "*** Delete File: c.py",
            "*** Update File: d.py",
            "*** Move to: e/d.py",
            "@@",
            "+moved",
            "*** End Patch",
        ]
    )
    tool_input = {"command": body}
    assert toolpaths.touched("apply_patch", tool_input) == (
        ["/r/a.py", "b/new.py", "c.py", "d.py", "e/d.py"],
        False,
    )
    assert toolpaths.changes("apply_patch", tool_input) == [
        ("/r/a.py", "    return 2"),
        ("b/new.py", "hello"),
        ("e/d.py", "moved"),
    ]
    assert toolpaths.is_edit("apply_patch", tool_input)
    # a shell command that only mentions a patch marker stays a shell command
    grep = {"command": 'grep -rn "*** Begin Patch" docs/notes.md'}
    assert toolpaths.touched("Bash", grep) == (["docs/notes.md"], True)
    assert not toolpaths.is_edit("Bash", grep)


def test_trust_needs_codex_and_is_for_codex_only(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--trust` asks Codex itself (tests/test_live_agents.py runs it with the real
    Codex); without Codex on PATH the hooks are installed and the user is told how to
    trust them, with a failing exit status, and doctor says it could not check."""
    import os
    import sys

    monkeypatch.delenv("GITMEM_CODEX", raising=False)
    git_dir = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    monkeypatch.setenv("PATH", os.pathsep.join((os.path.dirname(sys.executable), git_dir)))
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "codex", "--trust"])
    assert result.exit_code == 1 and "`codex` is not on PATH" in result.output
    assert "/hooks" in result.output
    assert (project / ".codex" / "hooks.json").exists()
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "codex trust" in doctor and "not checked: `codex` is not on PATH" in doctor
    result = runner.invoke(cli, ["install", "claude", "--trust"])
    assert result.exit_code == 2 and "--trust is for codex" in result.output
    assert not (project / ".claude").exists()


def test_a_codex_that_does_not_answer_is_named_with_the_time_it_had(
    project: Path, tmp_path: Path
) -> None:
    """A `codex app-server` that never answers (a hung Codex; a busy machine's slow one)
    is given up on after the time allowed, said with that time, and its process is gone."""
    from gitmem.agent import codextrust
    from gitmem.errors import GitmemError

    fake = tmp_path / "codex"
    fake.write_text("#!/bin/sh\necho $$ > \"$0.pid\"\nexec sleep 60\n", "utf-8")
    fake.chmod(0o755)
    with pytest.raises(GitmemError, match=r"did not answer in 0\.5 s \(a busy machine"):
        codextrust.gitmem_hooks(str(fake), project, timeout=0.5)
    pid = int((tmp_path / "codex.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped, not left running


def test_trust_summary() -> None:
    from gitmem.agent.codextrust import HookTrust, Seen, summary

    def hook(event: str, status: str) -> HookTrust:
        return HookTrust(f"/r/.codex/hooks.json:{event}:0:0", event, "project", status, "h")

    assert summary(Seen([hook("stop", "trusted"), hook("preToolUse", "managed")], True)) == (
        True,
        "Codex trusts all 2 of gitmem's hooks",
    )
    ok, line = summary(Seen([hook("stop", "trusted"), hook("preToolUse", "modified")]))
    assert not ok and "skips 1 of gitmem's 2 hooks" in line and "(preToolUse)" in line
    ok, line = summary(Seen([]))
    assert not ok and "project itself is trusted" in line
    ok, line = summary(Seen([], feature_on=False))  # the feature off: that, not the trust
    assert not ok and "its `hooks` feature is off" in line and "features enable hooks" in line
