"""Gemini CLI hooks: `gitmem install gemini` and `gitmem-hook gemini EVENT`, run the way
Gemini CLI runs them (the command from `.gemini/settings.json`, its payloads on stdin:
`read_file`, `replace`, `run_shell_command`, ...; BeforeTool can only deny, AfterTool
and the lifecycle events take `hookSpecificOutput.additionalContext`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import agent_project, run_agent_hook, warning_rule, write

from gitmem.agent import gemini, install, state
from gitmem.cli.main import cli
from gitmem.repo import discover

GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(GITMEM_HOOK is None, reason="gitmem-hook is not installed")


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def run_hook(project: Path, event: str, payload: dict[str, object]) -> dict[str, object] | None:
    """Run the command `.gemini/settings.json` holds for ``event`` as Gemini CLI does (a
    shell command, the payload on stdin); the parsed answer, or None for an empty one."""
    hooks = json.loads((project / ".gemini" / "settings.json").read_text())["hooks"]
    group = hooks[event][-1]
    if "tool_name" in payload:  # the matcher is a regular expression over the tool name
        import re

        assert re.fullmatch(group["matcher"], str(payload["tool_name"]))
    command = group["hooks"][0]["command"]
    base = {
        "session_id": "gemini-1",
        "transcript_path": str(project / ".." / "transcript.json"),
        "cwd": str(project),
        "hook_event_name": event,
        "timestamp": "2026-11-24T06:00:00.000Z",
    }
    return run_agent_hook(project, command, {**base, **payload})


def context(answer: dict[str, object] | None) -> str:
    return str(answer["hookSpecificOutput"]["additionalContext"]) if answer else ""  # type: ignore[index]


def test_install_merges_is_idempotent_and_uninstall_restores(project: Path) -> None:
    theirs = {"model": {"name": "gemini-2.5-pro"}, "hooks": {"BeforeTool": [
        {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}}  # fmt: skip
    write(project, ".gemini/settings.json", json.dumps(theirs))
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "gemini", "--mcp"])
    assert result.exit_code == 0 and "trusted folder" in result.output
    assert "gemini mcp add gitmem gitmem mcp" in result.output
    assert not (project / ".mcp.json").exists()  # Claude Code's MCP file is not Gemini's
    data = json.loads((project / ".gemini" / "settings.json").read_text())
    assert data["model"] == theirs["model"]
    assert set(data["hooks"]) == {
        "SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd",
        "PreCompress",
    }  # fmt: skip
    assert data["hooks"]["BeforeTool"][0] == theirs["hooks"]["BeforeTool"][0]
    ours = data["hooks"]["BeforeTool"][1]
    assert "read_file" in ours["matcher"] and "run_shell_command" in ours["matcher"]
    assert install.inner_command(ours["hooks"][0]["command"], install.GEMINI) == ours["hooks"][0]["name"] == "gitmem-hook gemini pre-tool"
    assert ours["hooks"][0]["timeout"] == 10000  # Gemini CLI's timeouts are milliseconds
    assert "already installed" in runner.invoke(cli, ["install", "gemini"]).output
    assert not (project / ".claude").exists() and not (project / ".codex").exists()
    result = runner.invoke(cli, ["uninstall", "gemini"])
    assert result.exit_code == 0 and "removed 7" in result.output
    assert json.loads((project / ".gemini" / "settings.json").read_text()) == theirs


def test_a_gemini_session_gets_the_decisions(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "gemini"]).exit_code == 0
    start = context(run_hook(project, "SessionStart", {"source": "startup"}))
    assert "D-0001" in start and "D-0002" not in start
    # BeforeTool cannot add context: nothing comes before a read...
    read = {
        "tool_name": "read_file",
        "tool_input": {"absolute_path": str(project / "api/routes.py")},
    }
    assert run_hook(project, "BeforeTool", read) is None
    # ...and AfterTool appends the decisions governing what was read to the tool's result
    after = {**read, "tool_response": {"llmContent": "", "returnDisplay": ""}}
    answer = run_hook(project, "AfterTool", after)
    assert answer["hookSpecificOutput"]["hookEventName"] == "AfterTool"  # type: ignore[index]
    assert "D-0002" in context(answer)
    assert run_hook(project, "AfterTool", after) is None  # shown once per session
    view = state.read_view(discover(project).shared_state_dir, "gemini-1")
    assert "api/routes.py" in view.read
    # Gemini CLI sends PreCompress before every turn, compressing or not (0.61.0): a short
    # transcript keeps what was shown; a manual /compress, or an automatic one once the
    # transcript has grown by RESHOW_BYTES, lets it be shown again
    transcript = project.parent / "session.jsonl"
    transcript.write_text("{}\n" * 100)
    auto = {"trigger": "auto", "transcript_path": str(transcript)}
    assert run_hook(project, "PreCompress", auto) is None
    assert run_hook(project, "AfterTool", after) is None
    assert run_hook(project, "PreCompress", {"trigger": "manual"}) is None
    assert "D-0002" in context(run_hook(project, "AfterTool", after))
    with transcript.open("a") as fh:
        fh.write("x" * gemini.RESHOW_BYTES)
    assert run_hook(project, "PreCompress", auto) is None
    assert "D-0002" in context(run_hook(project, "AfterTool", after))
    assert run_hook(project, "PreCompress", auto) is None  # not grown since: kept
    assert run_hook(project, "AfterTool", after) is None
    # a shell command in a subfolder, and an edit (the older `path` argument for reads)
    shell = {"tool_name": "run_shell_command",
             "tool_input": {"command": "cat charge.py", "dir_path": "billing"}}  # fmt: skip
    assert "D-0001" in context(run_hook(project, "AfterTool", {**shell, "session_id": "g2"}))
    # a command that writes one file and reads another: the decisions of both come
    both = {"tool_name": "run_shell_command",
            "tool_input": {"command": "echo x > docs/notes.md && cat billing/charge.py"}}  # fmt: skip
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs/notes.md").write_text("x\n")
    assert "D-0001" in context(run_hook(project, "AfterTool", {**both, "session_id": "g3"}))
    # the prompt is answered (BeforeAgent) and captured as Gemini's, without the context
    # Gemini CLI prepends to it (the session-start digest, as <hook_context>)
    words = "Should api clients still send the version header?"
    prompt = {"prompt": f"<hook_context>{start}</hook_context>\n\n{words}", "session_id": "p"}
    assert "D-0002" in context(run_hook(project, "BeforeAgent", prompt))
    from gitmem import capture

    wal = Path(capture.wal_path(discover(project), "p")).read_text()
    records = [json.loads(line) for line in wal.splitlines() if line.strip()]
    assert [(r["agent"], r["prompt"]) for r in records if r.get("prompt")] == [("gemini", words)]
    done = {"prompt": "x", "prompt_response": "y", "stop_hook_active": False, "session_id": "p"}
    assert run_hook(project, "AfterAgent", done) is None
    assert run_hook(project, "SessionEnd", {"reason": "exit", "session_id": "p"}) is None
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"])
    assert "gemini hooks" in doctor.output and "gemini post-tool" in doctor.output


def test_user_prompt_drops_what_hooks_added() -> None:
    added = "<hook_context>digest</hook_context>\n\nFix it <hook_context>more</hook_context>"
    assert gemini.user_prompt(added) == "Fix it"
    assert gemini.user_prompt("a <hook_context>unclosed") == "a <hook_context>unclosed"


def test_a_critical_rule_denies_the_edit_before_it_happens(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "gemini"]).exit_code == 0
    edit = {"tool_name": "replace", "tool_input": {
        "file_path": str(project / "billing/charge.py"), "old_string": "x = 1",
        "new_string": "x = float(1)"}}  # fmt: skip
    denied = run_hook(project, "BeforeTool", edit)
    assert denied is not None and denied["decision"] == "deny"
    assert "D-0001 (critical)" in str(denied["reason"])
    assert "hookSpecificOutput" not in denied
    write_ok = {"tool_name": "write_file",
                "tool_input": {"file_path": "billing/charge.py", "content": "x = 2\n"}}  # fmt: skip
    assert run_hook(project, "BeforeTool", write_ok) is None  # allowed, and no context here


def test_a_warning_rule_is_said_with_the_edit_result(project: Path) -> None:
    """BeforeTool cannot add context: a non-critical rule's advisory is held and comes
    with AfterTool, on the edit it was about."""
    warning_rule(project)
    assert CliRunner().invoke(cli, ["install", "gemini"]).exit_code == 0
    edit = {"tool_name": "write_file",
            "tool_input": {"file_path": "api/routes.py", "content": "print(1)\n"}}  # fmt: skip
    assert run_hook(project, "BeforeTool", edit) is None  # allowed
    after = context(run_hook(project, "AfterTool", {**edit, "tool_response": {}}))
    assert (
        "D-0003 (warning) has a rule this change to api/routes.py breaks: use the logger" in after
    )


def test_adapt_and_answer() -> None:
    payload = {"cwd": "/r", "tool_name": "search_file_content",
               "tool_input": {"pattern": "x", "dir_path": "/r/api", "include": "*.py"}}  # fmt: skip
    adapted = gemini.adapt(payload)
    assert adapted["tool_name"] == "Grep" and adapted["gemini_tool_name"] == "search_file_content"
    assert adapted["tool_input"]["path"] == "/r/api" and adapted["tool_input"]["glob"] == "*.py"
    mcp = {"tool_name": "mcp__fs__read", "tool_input": {"path": "a.py"}}
    assert gemini.adapt(mcp) is mcp  # MCP tools are named as Claude Code names them
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "no"}}  # fmt: skip
    assert gemini.answer("pre-tool", deny) == {"decision": "deny", "reason": "no"}
    assert gemini.answer("prompt", None) is None
    # a stop sending the agent back (a critical rule its commands broke): AfterAgent's deny
    back = {"decision": "block", "reason": "fix billing/gen.py"}
    assert gemini.answer("stop", back) == {"decision": "deny", "reason": "fix billing/gen.py"}


def test_a_subagents_calls_count_apart(project: Path) -> None:
    """Gemini CLI 0.61 runs a subagent's tool calls under the main session's id with
    nothing naming the subagent; `invoke_agent`'s before and after hooks bracket them. The
    subagent starts with none of the main context, so it is shown the decisions again."""
    assert CliRunner().invoke(cli, ["install", "gemini"]).exit_code == 0
    assert "D-0001" in context(run_hook(project, "SessionStart", {"source": "startup"}))
    spawn = {"tool_name": "invoke_agent",
             "tool_input": {"agent_name": "generalist", "prompt": "Check billing"}}  # fmt: skip
    read = {"tool_name": "read_file", "tool_input": {"file_path": "billing/charge.py"},
            "tool_response": {"llmContent": "", "returnDisplay": ""}}  # fmt: skip
    assert run_hook(project, "AfterTool", read) is None  # the main agent has it already
    assert run_hook(project, "BeforeTool", spawn) is None
    assert "D-0001" in context(run_hook(project, "AfterTool", read))  # the subagent's read
    assert run_hook(project, "AfterTool", read) is None  # once per subagent
    assert run_hook(project, "AfterTool", {**spawn, "tool_response": {}}) is None
    assert run_hook(project, "AfterTool", read) is None  # back in the main agent
    assert run_hook(project, "BeforeTool", spawn) is None  # a second subagent: fresh
    assert "D-0001" in context(run_hook(project, "AfterTool", read))


def test_install_updates_the_matcher_an_earlier_gitmem_wrote(project: Path) -> None:
    """Before session 19 the tool matcher left out `invoke_agent`."""
    runner = CliRunner()
    assert runner.invoke(cli, ["install", "gemini"]).exit_code == 0
    path = project / ".gemini" / "settings.json"
    data = json.loads(path.read_text())
    for event in ("BeforeTool", "AfterTool"):
        data["hooks"][event][0]["matcher"] = "read_file|replace"
    path.write_text(json.dumps(data))
    result = runner.invoke(cli, ["install", "gemini"])
    assert "BeforeTool, AfterTool" in result.output
    data = json.loads(path.read_text())
    assert data["hooks"]["BeforeTool"][0]["matcher"] == gemini.TOOL_MATCHER
    assert "already installed" in runner.invoke(cli, ["install", "gemini"]).output



def test_settings_with_comments(project: Path) -> None:
    """Gemini CLI reads its settings with comments. gitmem reads them so too (doctor sees
    its hooks there), but will not rewrite such a file: that would drop the comments."""
    runner = CliRunner()
    assert runner.invoke(cli, ["install", "gemini"]).exit_code == 0
    path = project / ".gemini" / "settings.json"
    text = "// team settings: ask Ana before changing\n" + path.read_text().replace(
        '"hooks": {', '"hooks": { /* gitmem */', 1)  # fmt: skip
    path.write_text(text)
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "project: 7 events" in doctor and "not valid JSON" not in doctor, doctor
    assert "already installed" in runner.invoke(cli, ["install", "gemini"]).output
    result = runner.invoke(cli, ["uninstall", "gemini"])
    assert result.exit_code != 0 and "has comments" in result.output, result.output
    assert path.read_text() == text  # nothing changed
    text = text.replace('"PreCompress"', '"PreCompressed"')  # one hook to add back
    path.write_text(text)
    result = runner.invoke(cli, ["install", "gemini"])
    assert result.exit_code != 0 and "has comments" in result.output, result.output
    assert path.read_text() == text
    path.write_text("{ // broken\n")
    assert "not valid JSON" in runner.invoke(cli, ["install", "gemini"]).output
