"""Qwen Code hooks: `gitmem install qwen` and `gitmem-hook qwen EVENT`, run the way Qwen
Code runs them (the command from `.qwen/settings.json`, the payloads Qwen Code 0.24.4 sent
in a real run: Claude Code's fields over Gemini CLI's tool names). Its PreToolUse context
does not reach the model, so it is held for the tool's result; its deny does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import agent_project, run_agent_hook, warning_rule, write

from gitmem.agent import install, qwen, state
from gitmem.cli.main import cli
from gitmem.repo import discover

GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(GITMEM_HOOK is None, reason="gitmem-hook is not installed")
SETTINGS = ".qwen/settings.json"


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def run_hook(project: Path, event: str, payload: dict[str, object]) -> dict[str, object] | None:
    hooks = json.loads((project / SETTINGS).read_text())["hooks"]
    command = hooks[event][-1]["hooks"][0]["command"]
    base = {
        "session_id": "qwen-1",
        "transcript_path": str(project.parent / "chat.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
        "timestamp": "2026-11-24T09:06:09.249Z",
        "permission_mode": "yolo",
    }
    return run_agent_hook(project, command, {**base, **payload})


def context(answer: dict[str, object] | None) -> str:
    return str(answer["hookSpecificOutput"]["additionalContext"]) if answer else ""  # type: ignore[index]


def test_install_merges_is_idempotent_and_uninstall_restores(project: Path) -> None:
    theirs = {"model": {"name": "qwen3-coder-plus"}, "hooks": {"PreToolUse": [
        {"matcher": "WriteFile", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}}  # fmt: skip
    write(project, SETTINGS, json.dumps(theirs))
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "qwen", "--mcp"])
    assert result.exit_code == 0 and "qwen mcp add gitmem gitmem mcp" in result.output
    data = json.loads((project / SETTINGS).read_text())
    assert data["model"] == theirs["model"]
    assert set(data["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreToolUse",
                                  "PostToolUse", "PostToolUseFailure", "Stop", "StopFailure",
                                  "SessionEnd", "PostCompact"}  # fmt: skip
    assert data["hooks"]["PostToolUseFailure"][0]["matcher"] == "run_shell_command"
    assert data["hooks"]["PreToolUse"][0] == theirs["hooks"]["PreToolUse"][0]
    ours = data["hooks"]["PreToolUse"][1]
    assert ours["matcher"] == qwen.TOOL_MATCHER  # file and MCP tools (test_live_agents)
    assert install.inner_command(ours["hooks"][0]["command"], install.QWEN) == ours["hooks"][0]["name"] == "gitmem-hook qwen pre-tool"
    assert ours["hooks"][0]["timeout"] == 10000  # milliseconds
    assert "already installed" in runner.invoke(cli, ["install", "qwen"]).output
    del ours["matcher"]  # as session 19 installed it: every tool; install again matches
    write(project, SETTINGS, json.dumps(data))
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "an earlier gitmem's tool matcher in project" in doctor
    assert runner.invoke(cli, ["install", "qwen"]).exit_code == 0
    data = json.loads((project / SETTINGS).read_text())
    assert [g.get("matcher") for g in data["hooks"]["PostToolUse"]] == [qwen.TOOL_MATCHER]
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "qwen hooks" in doctor and "project: 9 events" in doctor
    assert "earlier gitmem's tool matcher" not in doctor
    result = runner.invoke(cli, ["uninstall", "qwen"])
    assert result.exit_code == 0 and "removed 9" in result.output
    assert json.loads((project / SETTINGS).read_text()) == theirs


def test_a_qwen_session_gets_the_decisions_and_its_rules(project: Path) -> None:
    warning_rule(project)
    assert CliRunner().invoke(cli, ["install", "qwen"]).exit_code == 0
    start = context(run_hook(project, "SessionStart", {"source": "startup", "model": "m"}))
    assert "D-0001" in start and "D-0002" not in start
    prompt = {"prompt": "Tidy up", "prompt_id": "p1", "submitted_prompt": "Tidy up"}
    assert run_hook(project, "UserPromptSubmit", prompt) is None  # nothing it names
    # before a read: nothing said (it would not reach the model); after it, the decisions
    read = {"tool_name": "read_file", "tool_input": {"file_path": str(project / "api/routes.py")},
            "tool_use_id": "t1", "tool_call_id": "c1"}  # fmt: skip
    assert run_hook(project, "PreToolUse", read) is None
    after = {**read, "tool_response": {"llmContent": "", "returnDisplay": ""}}
    assert "D-0002" in context(run_hook(project, "PostToolUse", after))
    assert run_hook(project, "PostToolUse", after) is None  # once per session
    # a critical rule denies the edit before it happens, as Claude Code's answer says
    edit = {"tool_name": "edit", "tool_input": {"file_path": str(project / "billing/charge.py"),
            "old_string": "x = 1", "new_string": "x = float(1)"}}  # fmt: skip
    denied = run_hook(project, "PreToolUse", edit)
    specific = denied["hookSpecificOutput"]  # type: ignore[index]
    assert specific["permissionDecision"] == "deny"  # type: ignore[index]
    assert "D-0001 (critical)" in specific["permissionDecisionReason"]  # type: ignore[index]
    # a warning rule's advisory is held at PreToolUse and said with the edit's result
    noisy = {"tool_name": "edit", "tool_input": {"file_path": str(project / "api/routes.py"),
             "old_string": "", "new_string": "print(1)"}}  # fmt: skip
    assert run_hook(project, "PreToolUse", noisy) is None
    said = context(run_hook(project, "PostToolUse", {**noisy, "tool_response": {}}))
    assert "use the logger" in said
    view = state.read_view(discover(project).shared_state_dir, "qwen-1")
    assert set(view.read) == {"api/routes.py"} and view.edited == ["api/routes.py"]


def test_adapt_renames_qwen_tools() -> None:
    shell = {"tool_name": "run_shell_command", "cwd": "/w",
             "tool_input": {"command": "cat charge.py", "directory": "billing"}}  # fmt: skip
    adapted = qwen.adapt(shell)
    assert adapted["tool_name"] == "Bash" and adapted["qwen_tool_name"] == "run_shell_command"
    assert adapted["cwd"] == "/w/billing"
    grep = qwen.adapt({"tool_name": "grep_search", "tool_input": {"pattern": "x", "glob": "*.py"}})
    assert grep["tool_name"] == "Grep" and grep["tool_input"]["glob"] == "*.py"
    mcp = {"tool_name": "mcp__fs__read", "tool_input": {"path": "a.py"}}
    assert qwen.adapt(mcp) is mcp

