"""Cursor hooks: `gitmem install cursor` and `gitmem-hook cursor EVENT`, run the way Cursor
runs them (the command from `.cursor/hooks.json`, its payloads on stdin: conversation_id,
workspace_roots, `Read`/`Write`/`Shell` tools). Context reaches the model only from
sessionStart and postToolUse (`additional_context`); preToolUse can only deny, and
beforeSubmitPrompt only let the prompt through, so a prompt's decisions are held for the
turn's first tool result."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import agent_project, run_agent_hook, warning_rule, write

from gitmem.agent import cursor, install, state
from gitmem.cli.main import cli
from gitmem.repo import discover

GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(GITMEM_HOOK is None, reason="gitmem-hook is not installed")


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def run_hook(
    project: Path, event: str, payload: dict[str, object], cwd: Path | None = None
) -> dict[str, object]:
    """Run the command `.cursor/hooks.json` holds for ``event`` as Cursor does; Cursor
    reads every answer as a JSON object, so an empty answer fails the test."""
    hooks = json.loads((project / ".cursor" / "hooks.json").read_text())["hooks"]
    command = hooks[event][-1]["command"]
    base = {
        "conversation_id": "cursor-1",
        "generation_id": "gen-1",
        "hook_event_name": event,
        "workspace_roots": [str(project)],
        "cursor_version": "2.1.0",
        "model": "default",
    }
    answer = run_agent_hook(cwd or project, command, {**base, **payload})
    assert isinstance(answer, dict), f"{event}: Cursor needs a JSON object, got {answer!r}"
    return answer


def test_install_merges_is_idempotent_and_uninstall_restores(project: Path) -> None:
    theirs = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}
    write(project, ".cursor/hooks.json", json.dumps(theirs))
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "cursor", "--mcp"])
    assert result.exit_code == 0 and "Restart Cursor" in result.output
    data = json.loads((project / ".cursor" / "hooks.json").read_text())
    assert data["version"] == 1
    assert data["hooks"]["afterFileEdit"] == theirs["hooks"]["afterFileEdit"]
    assert set(data["hooks"]) == {
        "afterFileEdit", "sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse",
        "stop", "sessionEnd", "preCompact",
    }  # fmt: skip
    entry = data["hooks"]["preToolUse"][0]  # flat entries, not Claude Code's groups
    assert install.inner_command(entry["command"], install.CURSOR) == "gitmem-hook cursor pre-tool"
    assert "hooks" not in entry
    mcp = json.loads((project / ".cursor" / "mcp.json").read_text())
    assert mcp["mcpServers"]["gitmem"]["args"] == ["mcp"]
    assert not (project / ".mcp.json").exists()  # Claude Code's file is not Cursor's
    assert "already installed" in runner.invoke(cli, ["install", "cursor"]).output
    doctor = runner.invoke(cli, ["doctor", "--no-model"])
    assert "cursor hooks" in doctor.output and "project: 7 events" in doctor.output
    assert "captures each prompt twice" not in doctor.output
    runner.invoke(cli, ["install", "claude"])  # Cursor may run these too
    doctor = runner.invoke(cli, ["doctor", "--no-model", "--json"])
    cursor_check = [c for c in json.loads(doctor.output)["checks"] if c["name"] == "cursor hooks"]
    assert "captures each prompt twice" in cursor_check[0]["detail"]
    runner.invoke(cli, ["uninstall", "claude"])
    result = runner.invoke(cli, ["uninstall", "cursor", "--mcp"])
    assert result.exit_code == 0 and "removed 7" in result.output
    assert json.loads((project / ".cursor" / "hooks.json").read_text()) == theirs
    assert not (project / ".cursor" / "mcp.json").exists()
    # a file holding only gitmem's hooks goes away with them
    (project / ".cursor" / "hooks.json").unlink()
    runner.invoke(cli, ["install", "cursor"])
    runner.invoke(cli, ["uninstall", "cursor"])
    assert not (project / ".cursor").exists()


def test_a_cursor_session_gets_the_decisions(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "cursor"]).exit_code == 0
    # the session is the conversation, whatever other id an event carries
    start = run_hook(project, "sessionStart", {"session_id": "s-9", "is_background_agent": False})
    assert "D-0001" in str(start["additional_context"])
    # the prompt's decisions: retrieved and captured now, delivered with the next tool result
    prompt = {"prompt": "Should api clients still send the version header?", "attachments": []}
    assert run_hook(project, "beforeSubmitPrompt", prompt) == {"continue": True}
    shared = discover(project).shared_state_dir
    assert state.read_view(shared, "cursor-1").held
    grep = {"tool_name": "Grep", "tool_input": {"pattern": "charge", "path": "docs"},
            "tool_output": "", "cwd": str(project)}  # fmt: skip
    first = run_hook(project, "postToolUse", grep)
    assert "D-0002" in str(first["additional_context"])
    assert not state.read_view(shared, "cursor-1").held  # delivered once
    # preToolUse cannot add context: an allowed read gets {}, and postToolUse brings them
    read = {"tool_name": "Read", "tool_input": {"file_path": str(project / "billing/charge.py")},
            "cwd": str(project)}  # fmt: skip
    assert run_hook(project, "preToolUse", read) == {}
    after = run_hook(project, "postToolUse", {**read, "tool_output": "x = 1\n"})
    assert "D-0001" not in str(after.get("additional_context", ""))  # shown at start already
    assert run_hook(project, "postToolUse", {**read, "tool_output": ""}) == {}
    assert "billing/charge.py" in state.read_view(shared, "cursor-1").read
    # after compaction the decisions may be shown again
    assert run_hook(project, "preCompact", {"trigger": "auto"}) == {}
    again = run_hook(project, "postToolUse", {**read, "tool_output": ""})
    assert "D-0001" in str(again["additional_context"])
    # a shell command in a working directory, in a new conversation; the hook runs from
    # Cursor's folder, not the project (a user-level hooks.json): workspace_roots finds it
    shell = {"conversation_id": "c2", "tool_name": "Shell", "cwd": "",
             "tool_input": {"command": "cat charge.py", "working_directory": "billing"}}  # fmt: skip
    answer = run_hook(project, "postToolUse", shell, cwd=project.parent)
    assert "D-0001" in str(answer["additional_context"])
    # the turn ends: the captured prompt is Cursor's
    from gitmem import capture

    wal = Path(capture.wal_path(discover(project), "cursor-1")).read_text()
    records = [json.loads(line) for line in wal.splitlines() if line.strip()]
    assert [r["agent"] for r in records if r.get("prompt")] == ["cursor"]
    assert run_hook(project, "stop", {"status": "completed", "loop_count": 0}) == {}
    assert run_hook(project, "sessionEnd", {"reason": "completed"}) == {}
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"])
    assert "cursor post-tool" in doctor.output


def test_a_critical_rule_denies_the_edit_before_it_happens(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "cursor"]).exit_code == 0
    edit = {"tool_name": "Write", "cwd": str(project), "tool_input": {
        "file_path": "billing/charge.py", "contents": "x = float(1)\n"}}  # fmt: skip
    denied = run_hook(project, "preToolUse", edit)
    assert denied["permission"] == "deny"
    assert "D-0001 (critical)" in str(denied["agent_message"])
    assert denied["user_message"] == denied["agent_message"]
    fine = {**edit, "tool_input": {"file_path": "billing/charge.py", "contents": "x = 2\n"}}
    assert run_hook(project, "preToolUse", fine) == {}


def test_a_warning_rule_is_said_with_the_edit_result(project: Path) -> None:
    """preToolUse cannot add context: a non-critical rule's advisory is held and comes
    with the result of the edit it was about."""
    warning_rule(project)
    assert CliRunner().invoke(cli, ["install", "cursor"]).exit_code == 0
    edit = {"tool_name": "Edit", "cwd": str(project), "tool_input": {
        "file_path": "api/routes.py", "old_string": "", "new_string": "print(1)\n"}}  # fmt: skip
    assert run_hook(project, "preToolUse", edit) == {}  # allowed
    after = str(run_hook(project, "postToolUse", {**edit, "tool_output": "ok"})["additional_context"])
    assert "D-0003 (warning) has a rule this change to api/routes.py breaks: use the logger" in after
    assert after.index("D-0003 (warning)") < after.index("D-0002")  # then the decisions
    assert "D-0003 (warning)" not in str(run_hook(project, "postToolUse", edit))  # said once


def test_outside_a_repository_and_on_bad_input_it_answers_and_logs(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    payload = {"conversation_id": "x", "workspace_roots": [str(outside)], "prompt": "hi"}
    for event, expected in (("prompt", {"continue": True}), ("post-tool", {})):
        proc = subprocess.run(
            [str(GITMEM_HOOK), "cursor", event], input=json.dumps(payload), cwd=outside,
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 0 and json.loads(proc.stdout) == expected
    proc = subprocess.run(
        [str(GITMEM_HOOK), "cursor", "prompt"], input="{not json", cwd=project,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0 and json.loads(proc.stdout) == {"continue": True}
    log = Path(discover(project).shared_state_dir) / "hook-errors.log"
    assert "cursor prompt: ValueError: stdin is not valid JSON" in log.read_text()


def test_adapt() -> None:
    payload = {"conversation_id": "c", "workspace_roots": ["/r"], "tool_name": "Edit",
               "tool_input": {"target_file": "/r/a.py", "new_string": "y"}}  # fmt: skip
    adapted = cursor.adapt(payload)
    assert adapted["session_id"] == "c" and adapted["cwd"] == "/r"
    assert adapted["tool_name"] == "Edit" and adapted["tool_input"]["file_path"] == "/r/a.py"
    mcp = {"tool_name": "MCP:fs_read", "tool_input": '{"path": "a.py"}', "cwd": "/w"}
    adapted = cursor.adapt(mcp)
    assert adapted["tool_input"] == {"path": "a.py"} and adapted["cwd"] == "/w"
    assert adapted["tool_name"] == "MCP:fs_read"  # read through its path-like arguments
