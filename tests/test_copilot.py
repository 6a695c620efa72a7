"""GitHub Copilot CLI hooks: `gitmem install copilot` and `gitmem-hook copilot EVENT`, run
the way Copilot CLI runs them (the `bash` command of `.github/hooks/gitmem.json`, its
VS Code compatible payloads on stdin: session_id, tool_name `view`/`edit`/`create`/`bash`
or `Read`/`Edit`/`Write`, tool_input). Copilot CLI 1.0.102 reads a deny and context
before a tool (`hookSpecificOutput`), and a top-level `additionalContext` at session
start, after the prompt and after a tool (tests/test_live_agents.py runs the real CLI)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import agent_project, run_agent_hook, write

from gitmem.agent import copilot, install, state
from gitmem.cli.main import cli
from gitmem.repo import discover

GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(GITMEM_HOOK is None, reason="gitmem-hook is not installed")
HOOKS = ".github/hooks/gitmem.json"


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def run_hook(project: Path, event: str, payload: dict[str, object]) -> dict[str, object] | None:
    """Run the `bash` command `.github/hooks/gitmem.json` holds for ``event``."""
    hooks = json.loads((project / HOOKS).read_text())["hooks"]
    command = hooks[event][-1]["bash"]
    base = {
        "hook_event_name": event,
        "session_id": "copilot-1",
        "timestamp": "2026-11-24T07:00:00.000Z",
        "cwd": str(project),
    }
    return run_agent_hook(project, command, {**base, **payload})


def test_install_writes_its_own_file_and_uninstall_removes_it(project: Path) -> None:
    theirs = write(project, ".github/hooks/security.json", '{"version": 1, "hooks": {}}\n')
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "copilot"])
    assert result.exit_code == 0 and "gitmem export copilot" in result.output
    data = json.loads((project / HOOKS).read_text())
    assert data["version"] == 1
    # PascalCase names: Copilot CLI then sends the snake_case (VS Code) payloads
    assert set(data["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreToolUse",
                                  "PostToolUse", "Stop", "SessionEnd", "PreCompact"}  # fmt: skip
    entry = data["hooks"]["PreToolUse"][0]
    assert entry["type"] == "command" and install.inner_command(entry["bash"], install.COPILOT) == "gitmem-hook copilot pre-tool"
    assert entry["powershell"] == "gitmem hook copilot pre-tool" and entry["timeoutSec"] == 10
    assert "already installed" in runner.invoke(cli, ["install", "copilot"]).output
    doctor = runner.invoke(cli, ["doctor", "--no-model"])
    assert "copilot hooks" in doctor.output and "project: 7 events" in doctor.output
    result = runner.invoke(cli, ["uninstall", "copilot"])
    assert result.exit_code == 0 and "removed 7" in result.output
    assert not (project / HOOKS).exists() and theirs.exists()


def test_a_copilot_session_is_informed_checked_and_captured(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "copilot"]).exit_code == 0
    start = run_hook(project, "SessionStart", {"source": "new", "initial_prompt": "hi"})
    assert start is not None and "D-0001" in str(start["additionalContext"])
    prompt = {"prompt": "Should api clients still send the version header?"}
    answered = run_hook(project, "UserPromptSubmit", prompt)
    assert answered is not None and "D-0002" in str(answered["additionalContext"])
    # a critical rule denies the edit, with the reason Copilot shows the agent
    edit = {"tool_name": "edit", "tool_input": {
        "path": str(project / "billing/charge.py"), "old_str": "x = 1", "new_str": "x = float(1)"}}  # fmt: skip
    denied = run_hook(project, "PreToolUse", edit)
    assert denied is not None and denied["permissionDecision"] == "deny"
    assert "D-0001 (critical)" in str(denied["permissionDecisionReason"])
    fine = {"tool_name": "create", "tool_input": {"path": "billing/new.py", "file_text": "y = 2\n"}}
    assert run_hook(project, "PreToolUse", fine) is None  # D-0001 was shown at the start
    # before a read: the decisions governing it, as Claude Code gets them
    view = {"tool_name": "view", "tool_input": {"path": "api/routes.py"}}
    assert run_hook(project, "PreToolUse", {**view, "session_id": "c2"}) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "additionalContext": "- Project decision D-0002 (accepted, info) governs api/**: "
            "Version the API with a header. Clients send a Paydash-Version header. "
            "[.continuity/decisions/0002-api.md]",
        }
    }
    # after a call: recorded for the session's closing record
    result = {"tool_result": {"result_type": "success", "text_result_for_llm": ""}}
    assert run_hook(project, "PostToolUse", {**view, **result}) is None
    assert run_hook(project, "PostToolUse", {**fine, "tool_result": {}}) is None
    shared = discover(project).shared_state_dir
    session = state.read_view(shared, "copilot-1")
    assert session.read == ["api/routes.py"] and session.edited == ["billing/new.py"]
    assert session.shown == {"D-0001", "D-0002"}
    assert run_hook(project, "Stop", {"transcript_path": "", "stop_reason": "end_turn"}) is None
    assert run_hook(project, "SessionEnd", {"reason": "complete"}) is None
    from gitmem import capture

    # the stop hook's flusher runs in the background: flush here too, then read the ref
    repo = discover(project)
    capture.flush(repo, "copilot-1")
    records = capture.records(repo, capture.ref_for("copilot-1"))
    assert [r["kind"] for r in records] == ["prompt", "turn", "close"]
    prompts = [r for r in records if r.get("prompt")]
    assert [(r["agent"], r["decisions_injected"]) for r in prompts] == [("copilot", ["D-0002"])]
    closing = [r for r in records if r.get("kind") == "close"]
    assert closing and closing[-1]["files_edited"] == ["billing/new.py"]
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"])
    assert "copilot pre-tool" in doctor.output


def test_the_tool_names_copilot_cli_sends_are_checked(project: Path) -> None:
    """Copilot CLI 1.0.102, run against a local model (tests/test_live_agents.py), sends
    Claude Code's tool names over its own arguments under PascalCase events: an `Edit`
    with `path`/`old_str`/`new_str`, a `Write` with `path`/`file_text`. They used to pass
    unread, so a critical rule's edit went through."""
    assert CliRunner().invoke(cli, ["install", "copilot"]).exit_code == 0
    target = str(project / "billing/charge.py")
    edit = {"tool_name": "Edit", "tool_input": {"path": target, "old_str": "x = 1",
                                                "new_str": "x = float(1)"}}  # fmt: skip
    write = {"tool_name": "Write", "tool_input": {"path": str(project / "billing/fx.py"),
                                                  "file_text": "RATE = float(1)\n"}}  # fmt: skip
    # on a GPT model its file tool is a freeform apply_patch, sent as an `Edit` whose
    # input is the patch itself (seen running it; before session 42 it passed unread)
    patch = {"tool_name": "Edit", "tool_input": "*** Begin Patch\n*** Update File: "
             "billing/charge.py\n@@\n-x = 1\n+x = float(1)\n*** End Patch\n"}  # fmt: skip
    for payload in (edit, write, patch):
        denied = run_hook(project, "PreToolUse", payload)
        assert denied is not None and denied["permissionDecision"] == "deny", payload
        assert "D-0001 (critical)" in str(denied["permissionDecisionReason"])
    read = {"tool_name": "Read", "tool_input": {"path": str(project / "api/routes.py")},
            "tool_result": {"result_type": "success", "text_result_for_llm": ""}}  # fmt: skip
    assert run_hook(project, "PostToolUse", read) is None
    assert state.read_view(discover(project).shared_state_dir, "copilot-1").read == [
        "api/routes.py"
    ]


def test_adapt_reads_both_payload_formats() -> None:
    snake = {"session_id": "s", "tool_name": "edit",
             "tool_input": {"path": "a.py", "old_str": "x", "new_str": "y"}}  # fmt: skip
    adapted = copilot.adapt(snake)
    assert adapted["tool_name"] == "Edit" and adapted["copilot_tool_name"] == "edit"
    assert adapted["tool_input"]["file_path"] == "a.py"
    assert adapted["tool_input"]["new_string"] == "y"
    camel = {"sessionId": "s", "toolName": "bash", "toolArgs": '{"command": "cat a.py"}'}
    adapted = copilot.adapt(camel)
    assert adapted["session_id"] == "s" and adapted["tool_name"] == "Bash"
    assert adapted["tool_input"] == {"command": "cat a.py"}
    assert copilot.answer("prompt", None) is None


def test_doctor_names_the_events_an_earlier_install_lacks(project: Path) -> None:
    """Session 18 installed five events for Copilot CLI; doctor says which are missing."""
    runner = CliRunner()
    assert runner.invoke(cli, ["install", "copilot"]).exit_code == 0
    path = project / HOOKS
    data = json.loads(path.read_text())
    del data["hooks"]["SessionStart"], data["hooks"]["PreCompact"]
    path.write_text(json.dumps(data))
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "project lacks SessionStart, PreCompact" in doctor.replace("\n", " ")
    assert "added SessionStart, PreCompact" in runner.invoke(cli, ["install", "copilot"]).output
    assert "lacks" not in runner.invoke(cli, ["doctor", "--no-model"]).output


def test_a_subagents_task_is_answered_not_captured(project: Path) -> None:
    """Copilot CLI 1.0.102 runs a subagent as a session of its own whose first prompt is
    the task the main agent wrote (`parent_agent_id` set): it gets its decisions, but the
    session history keeps the user's prompts only."""
    assert CliRunner().invoke(cli, ["install", "copilot"]).exit_code == 0
    task = {"session_id": "sub-1", "agent_id": "sub-1", "agent_type": "general-purpose",
            "parent_agent_id": "copilot-1", "prompt": "Check the version header in api/routes.py"}  # fmt: skip
    answered = run_hook(project, "UserPromptSubmit", task)
    assert answered is not None and "D-0002" in str(answered["additionalContext"])
    from gitmem import capture

    assert not Path(capture.wal_path(discover(project), "sub-1")).exists()


class CopilotEvents:
    """A session's events file as Copilot CLI 1.0.102 writes it
    (``$COPILOT_HOME/session-state/SESSION/events.jsonl``): one event a line, ``type``,
    ``data``, ``id``, ``timestamp``, ``parentId``."""

    def __init__(self, home: Path, sid: str) -> None:
        self.path = home / "session-state" / sid / "events.jsonl"
        self.path.parent.mkdir(parents=True)
        self.lines: list[str] = []
        self.turns: list[int] = []  # where each turn's user.message is
        self.event("session.start", {"sessionId": sid, "copilotVersion": "1.0.102"})

    def event(self, kind: str, data: dict[str, object]) -> None:
        time.sleep(0.02)  # events and hooks a moment apart, as in a real session
        now = time.time()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"
        parent = json.loads(self.lines[-1])["id"] if self.lines else None
        self.lines.append(json.dumps({"type": kind, "data": data, "id": f"e{len(self.lines)}",
                                      "timestamp": stamp, "parentId": parent},
                                     separators=(",", ":")))  # fmt: skip
        self.path.write_text("".join(f"{line}\n" for line in self.lines))

    def hook(self, project: Path, event: str, kind: str, **payload: object) -> str:
        """The hook for ``event`` run as Copilot CLI runs it, its events around it."""
        self.event("hook.start", {"hookType": kind, "input": {"sessionId": "copilot-1"}})
        stamp = json.loads(self.lines[-1])["timestamp"]  # (the same prompt twice is no redelivery)
        answer = run_hook(project, event, {"timestamp": stamp, **payload})
        self.event("hook.end", {"hookType": kind, "success": True})
        out = answer or {}
        return str(out.get("additionalContext") or out.get("hookSpecificOutput") or "")

    def turn(self, text: str) -> None:
        """The prompt's turn, after its hook: the user's message, an answer."""
        self.turns.append(len(self.lines))
        self.event("user.message", {"content": text})
        self.event("assistant.turn_start", {"turnId": "0"})
        self.event("assistant.message", {"content": "Done."})
        self.event("assistant.turn_end", {"turnId": "0"})

    def rewind(self, turn: int) -> None:
        """`/rewind` to before ``turn`` (0: the first): the file cut back to before its
        message, and the marker."""
        self.lines = self.lines[: self.turns[turn]]
        self.turns = self.turns[:turn]
        self.event("session.info", {"message": "Rewound the conversation.", "infoType": "rewind"})


def test_a_rewind_shows_again_what_it_cut(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copilot CLI's `/rewind`: the events file is cut back and marked; the next prompt
    gets again what the hooks showed after the point (before session 47: nothing, run
    for real in 1.0.102), and, back to before the first turn, the digest's pinned
    decision. A prompt with no rewind before it gets nothing twice."""
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "copilot"))
    assert CliRunner().invoke(cli, ["install", "copilot"]).exit_code == 0
    events = CopilotEvents(tmp_path / "copilot", "copilot-1")
    assert "D-0001" in events.hook(project, "SessionStart", "sessionStart", source="new")
    events.hook(project, "UserPromptSubmit", "userPromptSubmitted", prompt="Hello")
    events.turn("Hello")
    asked = "How are the routes in api/routes.py versioned?"
    assert "D-0002" in events.hook(project, "UserPromptSubmit", "userPromptSubmitted", prompt=asked)
    events.turn(asked)
    assert events.hook(project, "UserPromptSubmit", "userPromptSubmitted", prompt=asked) == ""
    events.turn(asked)
    events.rewind(1)  # back to before the second turn: the first, and the digest, kept
    said = events.hook(project, "UserPromptSubmit", "userPromptSubmitted", prompt=asked)
    assert "D-0002" in said and "D-0001" not in said, said
    events.turn(asked)
    events.rewind(0)  # back to before the first: all of it
    said = events.hook(project, "UserPromptSubmit", "userPromptSubmitted", prompt=asked)
    assert "D-0002" in said and "D-0001" in said and "your context lost them" in said, said
    events.turn(asked)
    assert events.hook(project, "UserPromptSubmit", "userPromptSubmitted", prompt=asked) == ""
    assert not (discover(project).shared_state_dir / "hook-errors.log").exists()

