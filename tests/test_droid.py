"""Factory Droid hooks: `gitmem install droid` and `gitmem-hook droid EVENT`, run the way
Droid runs them (the command from `.factory/hooks.json`, the payloads and the transcript
Droid 0.225.2 wrote in a real `droid exec` run: Claude Code's fields over tool names of its
own). Its PreToolUse context does not reach the model, so it is held for the tool's
result; its deny does. `droid exec` runs no prompt hook: the turn's prompt is read from
the transcript. The agent itself: tests/test_live_agents.py."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import agent_project, git, run_agent_hook, write

from gitmem.agent import droid, install, state
from gitmem.cli.main import cli
from gitmem.repo import discover
from gitmem.tidy import tidy

GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(GITMEM_HOOK is None, reason="gitmem-hook is not installed")
HOOKS = ".factory/hooks.json"
SID = "9b71d361-7afd-4f37-88df-8eb250d5b6c9"


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def transcript_of(project: Path, *prompts: str) -> Path:
    """A Droid transcript as `droid exec` writes it: the session's line, the SessionStart
    hook's output and a reminder in the user's role, then each prompt with a tool call
    and its result after it."""
    lines: list[dict[str, object]] = [
        {"type": "session_start", "id": SID, "title": "t", "version": 2, "cwd": str(project)}
    ]
    hook = {"role": "user", "content": [], "visibility": "user_only",
            "hookEventName": "SessionStart", "hookMatcher": "startup"}  # fmt: skip
    lines.append({"type": "message", "id": "h1", "message": hook})
    for n, text in enumerate(prompts):
        reminder = [{"type": "text", "text": "<system-reminder>\nTools listed\n</system-reminder>"}]
        lines.append({"type": "message", "id": f"context-{n}", "message": {"role": "user",
                      "content": reminder}})  # fmt: skip
        typed = {"role": "user", "content": [{"type": "text", "text": text}],
                 "interactionMode": "auto"}  # fmt: skip
        lines.append({"type": "message", "id": f"m{n}", "message": typed})
        call = {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file_path": "x"}}
        lines.append({"type": "message", "id": f"a{n}", "message": {"role": "assistant",
                      "content": [call]}})  # fmt: skip
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x = 1\n"}
        lines.append({"type": "message", "id": f"r{n}", "message": {"role": "user",
                      "content": [result]}})  # fmt: skip
    path = project.parent / "droid-session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def run_hook(project: Path, event: str, payload: dict[str, object]) -> dict[str, object] | None:
    hooks = json.loads((project / HOOKS).read_text())
    command = hooks[event][-1]["hooks"][0]["command"]
    base = {
        "session_id": SID,
        "transcript_path": str(project.parent / "droid-session.jsonl"),
        "cwd": str(project),
        "permission_mode": "auto-high",
        "hook_event_name": event,
    }
    return run_agent_hook(project, command, {**base, **payload})


def stop(message_id: str) -> dict[str, object]:
    """A Stop payload's own fields (each turn's differ: Droid runs both scopes' hooks, and
    the same payload again is the same event)."""
    return {"message_id": message_id, "stop_hook_active": False, "tool_execution_count": 1}


def context(answer: dict[str, object] | None) -> str:
    return str(answer["hookSpecificOutput"]["additionalContext"]) if answer else ""  # type: ignore[index]


def captured(project: Path, *texts: str) -> str:
    """The messages of the session refs' commits, once each of ``texts`` is among them
    (a background process commits the capture) or after 20 s."""
    deadline = time.monotonic() + 20
    while True:
        refs = git(project, "for-each-ref", "--format=%(refname)", "refs/gitmem/").split()
        log = "".join(git(project, "log", "--format=%B", ref) for ref in refs)
        if all(t in log for t in texts) or time.monotonic() > deadline:
            return log
        time.sleep(0.1)


def test_install_writes_the_events_at_the_top_of_hooks_json(project: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "droid", "--mcp"])
    assert result.exit_code == 0, result.output
    assert "droid mcp add gitmem gitmem mcp" in result.output
    data = json.loads((project / HOOKS).read_text())
    assert "hooks" not in data  # Droid ignores a `hooks` key in hooks.json (seen running it)
    assert set(data) == {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                         "Stop", "SessionEnd", "PreCompact"}  # fmt: skip
    ours = data["PreToolUse"][0]
    assert ours["matcher"] == droid.TOOL_MATCHER
    assert install.inner_command(ours["hooks"][0]["command"], install.DROID) == (
        "gitmem-hook droid pre-tool"
    )
    assert "already installed" in runner.invoke(cli, ["install", "droid"]).output
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "droid hooks" in doctor and "project: 7 events" in doctor, doctor
    result = runner.invoke(cli, ["uninstall", "droid"])
    assert result.exit_code == 0 and "removed 7" in result.output
    assert not (project / HOOKS).exists() and not (project / ".factory").exists()


def test_install_keeps_the_hooks_droid_reads_elsewhere(project: Path) -> None:
    """Droid reads a scope's settings.json hooks event by event, hidden by any hooks.json
    that names the event, and reads the older hooks/hooks.json only where there is no
    hooks.json (each seen running 0.225.2). A hooks.json that gitmem made beside them
    would have stopped the user's own hooks without a word."""
    lint = {"matcher": "Edit|Create", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    settings = {"model": "custom:m", "hooks": {"PreToolUse": [lint]}}
    write(project, ".factory/settings.json", json.dumps(settings))
    older = {"Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]}
    write(project, ".factory/hooks/hooks.json", json.dumps(older))
    runner = CliRunner()
    assert runner.invoke(cli, ["install", "droid"]).exit_code == 0
    assert not (project / HOOKS).exists()  # it would hide hooks/hooks.json
    kept = json.loads((project / ".factory/hooks/hooks.json").read_text())
    assert kept["Stop"][0] == older["Stop"][0] and len(kept["Stop"]) == 2
    assert "PreToolUse" not in kept  # it would hide settings.json's
    mixed = json.loads((project / ".factory/settings.json").read_text())
    assert mixed["model"] == "custom:m" and mixed["hooks"]["PreToolUse"][0] == lint
    assert [g.get("matcher") for g in mixed["hooks"]["PreToolUse"]] == [
        "Edit|Create",
        droid.TOOL_MATCHER,
    ]
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "project: 7 events" in doctor, doctor
    result = runner.invoke(cli, ["uninstall", "droid"])
    assert "removed 6 gitmem hooks from" in result.output and "removed 1 gitmem" in result.output
    assert json.loads((project / ".factory/settings.json").read_text()) == settings
    assert json.loads((project / ".factory/hooks/hooks.json").read_text()) == older


def test_a_hooks_file_with_comments_is_left_as_it_is(project: Path) -> None:
    """Droid reads its JSON files with comments; gitmem reads them too, and says it would
    drop them rather than rewrite the file."""
    text = '{\n  // the team formatter\n  "PostToolUse": []\n}\n'
    write(project, HOOKS, text)
    result = CliRunner().invoke(cli, ["install", "droid"])
    assert result.exit_code == 1 and "has comments" in result.output, result.output
    assert (project / HOOKS).read_text() == text


def test_a_droid_session_gets_the_decisions_and_its_rules(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "droid"]).exit_code == 0
    start = context(run_hook(project, "SessionStart", {"source": "startup"}))
    assert "D-0001" in start and "D-0002" not in start
    transcript_of(project, "Tidy up the code")
    # its shell: nothing said before (it would not reach the model), the decisions after
    run = {"tool_name": "Execute", "tool_input": {"command": "cat api/routes.py",
           "summary": "Show the API routes", "riskLevel": "low", "riskLevelReason": "reads"}}  # fmt: skip
    assert run_hook(project, "PreToolUse", run) is None
    assert "D-0002" in context(run_hook(project, "PostToolUse", {**run, "tool_response": ""}))
    # an edit (old_str/new_str) and a new file (Create) that break the critical rule
    billing = str(project / "billing/charge.py")
    edits = [
        {"tool_name": "Edit", "tool_input": {"file_path": billing, "old_str": "x = 1",
                                             "new_str": "x = float(1)"}},
        {"tool_name": "Create", "tool_input": {"file_path": str(project / "billing/refund.py"),
                                               "content": "y = float(2)\n"}},
    ]  # fmt: skip
    for edit in edits:
        specific = run_hook(project, "PreToolUse", edit)["hookSpecificOutput"]  # type: ignore[index]
        assert specific["permissionDecision"] == "deny"  # type: ignore[index]
        assert "D-0001 (critical)" in specific["permissionDecisionReason"]  # type: ignore[index]
    assert run_hook(project, "Stop", stop("s1")) is None
    assert captured(project, "Tidy up the code").count("Tidy up the code") == 1
    view = state.read_view(discover(project).shared_state_dir, SID)
    assert set(view.read) == {"api/routes.py"}


def test_each_turns_prompt_is_read_once_from_the_transcript(project: Path) -> None:
    """`droid exec` sends no UserPromptSubmit: the first tool call's hook reads the turn's
    prompt from the transcript, captures it and holds its decisions for the call's result;
    the turn's later calls read nothing; a turn without a tool call is captured at Stop.
    Where a prompt hook did come (Droid's interactive mode), the transcript is not read."""
    assert CliRunner().invoke(cli, ["install", "droid"]).exit_code == 0
    read = {"tool_name": "Read", "tool_input": {"file_path": str(project / "README.md")}}
    transcript_of(project, "Add pagination to api/routes.py")
    assert run_hook(project, "PreToolUse", read) is None
    said = context(run_hook(project, "PostToolUse", {**read, "tool_response": ""}))
    assert "D-0002" in said, said
    transcript_of(project, "Add pagination to api/routes.py", "A second thought")
    assert run_hook(project, "PreToolUse", read) is None  # the same turn: read no more
    assert run_hook(project, "Stop", stop("s1")) is None
    assert run_hook(project, "Stop", stop("s2")) is None  # a turn with no tool call
    log = captured(project, "Add pagination", "A second thought")
    assert log.count("Add pagination") == 1 and log.count("A second thought") == 1, log
    # a prompt hook came: its prompt is captured, and the transcript's is not taken again
    transcript_of(project, "Add pagination", "A second thought", "Typed in the TUI")
    run_hook(project, "UserPromptSubmit", {"prompt": "Typed in the TUI"})
    assert run_hook(project, "PreToolUse", read) is None
    run_hook(project, "Stop", stop("s3"))
    assert captured(project, "Typed in the TUI").count("Typed in the TUI") == 1
    # a turn cut off before its Stop (Droid killed), then the session resumed
    run_hook(project, "UserPromptSubmit", {"prompt": "Cut off"})
    run_hook(project, "SessionStart", {"source": "resume"})
    transcript_of(project, "Add pagination", "Cut off", "After the resume")
    run_hook(project, "PreToolUse", read)
    run_hook(project, "Stop", stop("s4"))  # the turn's captures are committed at its end
    assert "After the resume" in captured(project, "Cut off", "After the resume")
    # the file that says so goes with the session's other files once idle
    shared = discover(project).shared_state_dir
    (marker,) = (shared / "sessions").glob("*.droid-turn")
    os.utime(marker, (1, 1))
    assert tidy(shared, force=True) >= 1 and not marker.exists()


def test_a_transcript_gitmem_cannot_read_leaves_the_rules_checked(project: Path) -> None:
    """The prompt read from the transcript is the hook's extra: where reading it fails (a
    line nested past what the JSON parser takes), the failure is logged for doctor and the
    call's critical rule is still enforced."""
    assert CliRunner().invoke(cli, ["install", "droid"]).exit_code == 0
    path = transcript_of(project, "Tidy up")
    deep = '{"type": "message", "message": {"role":"user", "x": ' + "[" * 100000 + "]" * 100000
    with path.open("a") as fh:
        fh.write(deep + "}}\n")
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(project / "billing/charge.py"),
            "old_str": "x = 1", "new_str": "x = float(1)"}}  # fmt: skip
    specific = run_hook(project, "PreToolUse", edit)["hookSpecificOutput"]  # type: ignore[index]
    assert specific["permissionDecision"] == "deny"  # type: ignore[index]
    log = (discover(project).shared_state_dir / "hook-errors.log").read_text()
    assert "droid pre-tool: the turn's prompt: RecursionError" in log, log


def test_the_transcripts_prompt_leaves_out_what_droid_writes_as_the_user(tmp_path: Path) -> None:
    path = transcript_of(tmp_path, "first", "second")
    assert droid.last_prompt(str(path)) == ("m1", "second")
    assert droid.last_prompt(str(tmp_path / "none.jsonl")) is None
    assert droid.last_prompt(None) is None
    image = {"type": "image", "source": {"type": "base64", "data": "AAAA"}}
    line = {"type": "message", "id": "m9", "message": {"role": "user",
            "content": [image, {"type": "text", "text": "what is this?"}]}}  # fmt: skip
    with path.open("a") as fh:
        fh.write(json.dumps(line) + "\n" + '{"type": "message", "id": "cut')
    assert droid.last_prompt(str(path)) == ("m9", "what is this?")


def test_adapt_renames_droid_tools() -> None:
    edit = droid.adapt({"tool_name": "Edit", "tool_input": {"file_path": "/w/a.py",
                        "old_str": "a", "new_str": "b", "change_all": False}})  # fmt: skip
    assert edit["tool_name"] == "Edit" and edit["droid_tool_name"] == "Edit"
    assert edit["tool_input"]["old_string"] == "a" and edit["tool_input"]["new_string"] == "b"
    create = droid.adapt({"tool_name": "Create", "tool_input": {"file_path": "/w/b.py",
                          "content": "x"}})  # fmt: skip
    assert create["tool_name"] == "Write" and create["tool_input"]["content"] == "x"
    shell = droid.adapt({"tool_name": "Execute", "tool_input": {"command": "ls"}})
    assert shell["tool_name"] == "Bash"
    listing = droid.adapt({"tool_name": "LS", "tool_input": {"directory_path": "/w/src"}})
    assert listing["tool_input"]["path"] == "/w/src"
    grep = droid.adapt({"tool_name": "Grep", "tool_input": {"pattern": "x", "path": "/w",
                        "glob_pattern": "src/*.py"}})  # fmt: skip
    assert grep["tool_name"] == "Grep" and grep["tool_input"]["glob"] == "src/*.py"
    one = droid.adapt({"tool_name": "Glob", "tool_input": {"patterns": "api/**/*.py",
                       "folder": "/w"}})  # fmt: skip
    assert one["tool_input"]["pattern"] == "api/**/*.py" and one["tool_input"]["path"] == "/w"
    several = droid.adapt({"tool_name": "Glob", "tool_input": {
        "patterns": ["src/app/**/*.ts", "src/app/lib/*.tsx"]}})  # fmt: skip
    assert several["tool_input"]["pattern"] == "src/app/**"
    apart = droid.adapt({"tool_name": "Glob", "tool_input": {"patterns": ["a/*.ts", "b/*.ts"]}})
    assert apart["tool_input"]["pattern"] == "a/*.ts"
    mcp = {"tool_name": "mcp__fs__read", "tool_input": {"path": "a.py"}}
    assert droid.adapt(mcp) is mcp


def test_doctor_says_where_droids_hooks_are_off(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "droid"]).exit_code == 0
    home = Path.home()
    assert droid.hooks_off(project, home) is None
    data = json.loads((project / HOOKS).read_text())
    write(project, HOOKS, json.dumps({**data, "hooksDisabled": True}))
    said = droid.hooks_off(project, home)
    assert said == f"`hooksDisabled: true` in {project / HOOKS}: Droid runs no hook"
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"]).output
    assert "!!  droid hooks" in doctor and "Droid runs no hook" in doctor, doctor
    assert CliRunner().invoke(cli, ["uninstall", "droid"]).exit_code == 0
    assert json.loads((project / HOOKS).read_text()) == {"hooksDisabled": True}
