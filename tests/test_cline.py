"""Cline hooks: `gitmem install cline` and the scripts it writes, run the way Cline runs
them (the CLI through the file's `#!` line, the extension as an executable) on the
payloads Cline CLI 3.0.65 sent in a real run (tests/test_live_agents.py runs the CLI
itself). Cline reads no answer from TaskStart and UserPromptSubmit, so what they find is
held for the next tool result; a critical rule cancels."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SANDBOX_HOME, agent_project, warning_rule, write

from gitmem.agent import cline, clinehooks, install, state
from gitmem.cli.main import cli
from gitmem.repo import discover

GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(GITMEM_HOOK is None, reason="gitmem-hook is not installed")
HOOKS = ".clinerules/hooks"


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def payload(project: Path, hook: str, **fields: object) -> dict[str, object]:
    """What Cline CLI 3.0.65 sends (the base fields of every event, then the event's)."""
    return {
        "clineVersion": "",
        "timestamp": "2026-11-24T13:47:38.502Z",
        "taskId": "conv_1795528058493_znv1pax",
        "sessionContext": {"rootSessionId": "1795528058288_82zrj"},
        "workspaceRoots": [str(project)],
        "workspaceInfo": {"rootPath": str(project), "hint": project.name},
        "userId": "unknown",
        "agent_id": "agent_1795528058424_6wsls0",
        "parent_agent_id": None,
        "hookName": hook,
        **fields,
    }


def tool(project: Path, name: str, args: dict[str, object], after: bool = False) -> dict[str, object]:
    """A tool event: the CLI's raw `tool_call`/`tool_result` and the string parameters."""
    strings = {k: v if isinstance(v, str) else json.dumps(v) for k, v in args.items()}
    if after:
        return payload(project, "tool_result", iteration=1,
                       tool_result={"id": "call_1", "name": name, "input": args, "output": "ok"},
                       postToolUse={"toolName": name, "parameters": strings, "result": "ok",
                                    "success": True, "executionTimeMs": 18})  # fmt: skip
    return payload(project, "tool_call", iteration=1,
                   tool_call={"id": "call_1", "name": name, "input": args},
                   preToolUse={"toolName": name, "parameters": strings})  # fmt: skip


def run(project: Path, hook: str, data: dict[str, object], *, direct: bool = False,
        path: str | None = None) -> dict[str, object]:  # fmt: skip
    """Run gitmem's hook file for ``hook``: `sh FILE` as the CLI does, or the file itself
    (``direct``) as the extension does. Cline wants one JSON object, exit 0."""
    file = project / HOOKS / hook
    env = {**os.environ, "HOME": SANDBOX_HOME}
    if path is not None:
        env["PATH"] = path
    proc = subprocess.run([str(file)] if direct else ["/bin/sh", str(file)], input=json.dumps(data),
                          cwd=project, capture_output=True, text=True, timeout=60, env=env)  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    answer = json.loads(proc.stdout)
    assert isinstance(answer, dict)
    return answer


def test_install_writes_a_script_per_event_and_uninstall_takes_them_out(project: Path) -> None:
    write(project, ".clinerules/style.md", "# House style\n")  # the user's rules stay
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "cline", "--mcp"])
    assert result.exit_code == 0, result.output
    assert "cline mcp install gitmem -- gitmem mcp" in result.output
    folder = project / HOOKS
    assert sorted(p.name for p in folder.iterdir()) == sorted(cline.EVENTS)
    script = (folder / "PreToolUse").read_text()
    assert script.startswith("#!/bin/sh\n") and "gitmem-hook cline pre-tool" in script
    assert os.access(folder / "PreToolUse", os.X_OK)
    assert "up to date" in runner.invoke(cli, ["install", "cline"]).output
    (folder / "PostToolUse").write_text(script.replace("pre-tool", "post-tool") + "# edited\n")
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "cline hooks" in doctor and "missing or outdated: PostToolUse" in doctor
    assert "wrote PostToolUse hooks" in runner.invoke(cli, ["install", "cline"]).output
    assert "project: current" in runner.invoke(cli, ["doctor", "--no-model"]).output
    result = runner.invoke(cli, ["uninstall", "cline"])
    assert result.exit_code == 0 and f"removed {len(cline.EVENTS)}" in result.output
    assert not folder.exists() and (project / ".clinerules/style.md").exists()


def test_doctor_says_when_both_scopes_have_them(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cline runs the scripts of both folders (tests/test_live_agents.py::test_a_cline_task
    shows the outcome is that of one install)."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    runner = CliRunner()
    for scope in ("project", "user"):
        assert runner.invoke(cli, ["install", "cline", "--scope", scope]).exit_code == 0
    assert (tmp_path / "user/Documents/Cline/Hooks/PreToolUse").is_file()
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "Cline runs the hooks of every scope (project, user)" in doctor


def test_a_hook_file_of_the_users_is_never_replaced(project: Path) -> None:
    write(project, f"{HOOKS}/PreToolUse", "#!/bin/sh\necho '{\"cancel\": false}'\n")
    result = CliRunner().invoke(cli, ["install", "cline"])
    assert result.exit_code != 0 and "PreToolUse: not written by gitmem" in result.output
    assert "nothing was changed" in result.output
    assert [p.name for p in (project / HOOKS).iterdir()] == ["PreToolUse"]
    assert CliRunner().invoke(cli, ["uninstall", "cline"]).exit_code == 0
    assert (project / HOOKS / "PreToolUse").exists()  # not ours: kept


def test_a_cline_task_gets_the_decisions_and_its_rules(project: Path) -> None:
    warning_rule(project)
    assert CliRunner().invoke(cli, ["install", "cline"]).exit_code == 0
    shared = discover(project).shared_state_dir
    session = "1795528058288_82zrj"
    # TaskStart's answer is not read: the digest is held for the first tool result
    start = payload(project, "agent_start", taskStart={"taskMetadata": {}})
    assert run(project, "TaskStart", start) == {"cancel": False}
    reminder = "[SYSTEM] This run is not complete until you call one of these terminal tools."
    nag = payload(project, "prompt_submit", userPromptSubmit={"prompt": reminder, "attachments": []})
    assert run(project, "UserPromptSubmit", nag) == {"cancel": False}  # neither searched
    read = tool(project, "read_files", {"files": [{"path": str(project / "api/routes.py")}]})
    assert run(project, "PreToolUse", read) == {"cancel": False}
    said = run(project, "PostToolUse", tool(project, "read_files", {"files": [
        {"path": str(project / "api/routes.py")}]}, after=True))  # fmt: skip
    text = str(said["contextModification"])
    assert said["cancel"] is False and "D-0001" in text and "D-0002" in text
    assert run(project, "PostToolUse", tool(project, "read_files", {"files": [
        str(project / "api/routes.py")]}, after=True)) == {"cancel": False}  # once a session
    # a critical rule cancels the edit, with its reason; the extension's tools too
    edit = {"path": str(project / "billing/charge.py"), "old_text": "x = 1", "new_text": "x = float(1)"}
    denied = run(project, "PreToolUse", tool(project, "editor", edit))
    assert denied["cancel"] is True and "D-0001 (critical)" in str(denied["errorMessage"])
    diff = "------- SEARCH\nx = 1\n=======\nx = float(1)\n+++++++ REPLACE\n"
    extension = payload(project, "PreToolUse", preToolUse={
        "toolName": "replace_in_file", "parameters": {"path": "billing/charge.py", "diff": diff}})  # fmt: skip
    assert run(project, "PreToolUse", extension, direct=True)["cancel"] is True
    # a warning rule's advisory is held before the edit and said with its result
    noisy = tool(project, "editor", {"path": str(project / "api/routes.py"), "new_text": "print(1)"})
    assert run(project, "PreToolUse", noisy) == {"cancel": False}
    after = tool(project, "editor", {"path": str(project / "api/routes.py"), "new_text": "print(1)"},
                 after=True)  # fmt: skip
    assert "use the logger" in str(run(project, "PostToolUse", after)["contextModification"])
    view = state.read_view(shared, session)
    assert set(view.read) == {"api/routes.py"} and view.edited == ["api/routes.py"]
    assert not view.held  # everything held was delivered


def test_a_prompt_is_captured_and_its_decisions_held(project: Path) -> None:
    """The extension passes the user's prompt (the CLI only its own reminders, above)."""
    assert CliRunner().invoke(cli, ["install", "cline"]).exit_code == 0
    ask = payload(project, "UserPromptSubmit", userPromptSubmit={
        "prompt": "Should charge.py in billing keep amounts as cents?", "attachments": []})  # fmt: skip
    del ask["sessionContext"]  # the extension's payload: the session is the task
    assert run(project, "UserPromptSubmit", ask, direct=True) == {"cancel": False}
    view = state.read_view(discover(project).shared_state_dir, "conv_1795528058493_znv1pax")
    assert any("D-0001" in held for held in view.held)
    wal = list((discover(project).shared_state_dir / "capture").rglob("*"))
    assert any("cents" in p.read_text() for p in wal if p.is_file())


def test_the_cli_tasks_first_prompt_comes_with_the_first_result(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No hook is given the prompt a Cline CLI task starts with: the first tool result's
    hook reads it from the CLI's session record, captures it (once) and brings its
    decisions with the digest."""
    assert CliRunner().invoke(cli, ["install", "cline"]).exit_code == 0
    sid = "1795528058288_82zrj"
    record = tmp_path / "cline-data" / "sessions" / sid / f"{sid}.json"
    record.parent.mkdir(parents=True)
    question = "Should api clients still send the version header?"
    record.write_text(json.dumps({"version": 1, "session_id": sid, "prompt": question}))
    monkeypatch.setenv("CLINE_DATA_DIR", str(tmp_path / "cline-data"))
    billing = {"files": [{"path": str(project / "billing/charge.py")}]}
    said = run(project, "PostToolUse", tool(project, "read_files", billing, after=True))
    text = str(said["contextModification"])
    assert "D-0001" in text and "D-0002" in text  # the digest's, and the prompt's
    run(project, "PostToolUse", tool(project, "read_files", billing, after=True))
    wal = [p for p in (discover(project).shared_state_dir / "capture").rglob("*") if p.is_file()]
    assert sum(p.read_text().count(question) for p in wal) == 1


def test_hooks_fail_open(project: Path, tmp_path: Path) -> None:
    """No gitmem on PATH, or gitmem's own trouble: `{"cancel": false}` and exit 0 (the
    extension blocks the action on anything else)."""
    assert CliRunner().invoke(cli, ["install", "cline"]).exit_code == 0
    read = tool(project, "read_files", {"files": [str(project / "billing/charge.py")]})
    assert run(project, "PreToolUse", read, direct=True, path="/usr/bin:/bin") == {"cancel": False}
    broken = tmp_path / "broken"  # a version manager's shim for a version without gitmem
    broken.mkdir()
    (broken / "gitmem-hook").write_text("#!/bin/sh\ncat >/dev/null\nexit 127\n")
    (broken / "gitmem-hook").chmod(0o755)
    answer = run(project, "PreToolUse", read, direct=True, path=f"{broken}:/usr/bin:/bin")
    assert answer == {"cancel": False}
    proc = subprocess.run([GITMEM_HOOK or "", "cline", "post-tool"], input="{not json", cwd=project,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0 and json.loads(proc.stdout) == {"cancel": False}
    log = discover(project).shared_state_dir / "hook-errors.log"
    assert "cline post-tool: ValueError: stdin is not valid JSON" in log.read_text()


def test_a_task_hears_once_that_gitmem_did_not_run(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where gitmem is not on PATH, the other agents' start hook says so; Cline does not
    read its start hook's answer, so a task's first tool result says it, as the digest
    comes, and only once per task (of two scopes' scripts at once, one says it)."""
    assert CliRunner().invoke(cli, ["install", "cline"]).exit_code == 0
    read = tool(project, "read_files", {"files": [str(project / "billing/charge.py")]}, after=True)
    marks = tmp_path / "tmp"
    marks.mkdir()
    monkeypatch.setenv("TMPDIR", str(marks))  # run() passes the environment on
    bare = "/usr/bin:/bin"

    def after(data: dict[str, object], path: str = bare) -> dict[str, object]:
        return run(project, "PostToolUse", data, direct=True, path=path)

    told = {"cancel": False, "contextModification": install.MISSING_NOTE}
    assert after(read) == told
    assert after(read) == {"cancel": False}  # the same task: said already
    assert run(project, "PreToolUse", read, path=bare) == {"cancel": False}  # never before
    other = {**read, "taskId": "conv_2"}
    assert after(other) == told  # (Cline CLI sends compact JSON: test_live_agents)
    assert after({**read, "taskId": "../x"}) == {"cancel": False}  # no such id names a file
    assert sorted(p.name.rsplit("-", 1)[1] for p in marks.iterdir()) == [
        "conv_1795528058493_znv1pax", "conv_2"]  # fmt: skip
    # a gitmem that ran and failed has read the payload: nothing to say for it
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "gitmem-hook").write_text("#!/bin/sh\ncat >/dev/null\nexit 1\n")
    (broken / "gitmem-hook").chmod(0o755)
    assert after({**read, "taskId": "conv_3"}, f"{broken}:{bare}") == {"cancel": False}
    # where gitmem runs, its own answer, and no mark
    assert after({**read, "taskId": "conv_4"}, os.environ["PATH"]) != told
    assert not (marks / f"gitmem-cline-{os.getuid()}-conv_4").exists()


def test_adapt_reads_clines_tools() -> None:
    def adapted(name: str, args: object) -> tuple[str, object]:
        out = cline.adapt({"workspaceRoots": ["/w"], "tool_call": {"name": name, "input": args}})
        assert out["cwd"] == "/w" and out["cline_tool_name"] == name
        return out["tool_name"], out["tool_input"]

    assert adapted("run_commands", {"commands": ["cat a.py", {"command": "ls", "args": ["b"]}]}) == (
        "Bash", {"command": "cat a.py\nls b"})  # fmt: skip
    assert adapted("read_files", {"file_paths": ["a.py", "b.py"]}) == ("read_files", {"paths": ["a.py", "b.py"]})
    assert adapted("read_files", "a.py") == ("read_files", {"paths": ["a.py"]})
    patch = "*** Begin Patch\n*** Update File: a.py\n+x\n*** End Patch"
    assert adapted("apply_patch", {"input": patch}) == ("apply_patch", {"input": patch})
    assert adapted("editor", {"path": "a.py", "new_text": "x"}) == (
        "Write", {"file_path": "a.py", "content": "x"})  # fmt: skip
    assert adapted("search_codebase", {"queries": ["x"]}) == ("search_codebase", {"queries": ["x"]})
    extension = cline.adapt({"preToolUse": {"toolName": "search_files",
                             "parameters": {"path": "src", "regex": "x", "file_pattern": "*.py"}}})  # fmt: skip
    assert extension["tool_name"] == "Grep" and extension["tool_input"]["glob"] == "*.py"
    old = "<<<<<<< SEARCH\na = 1\n=======\na = 2\nb = 3\n>>>>>>> REPLACE\n"
    assert cline.replaced(old) == "a = 2\nb = 3"
    sub = cline.adapt({"agent_id": "a2", "parent_agent_id": "a1", "taskId": "t"})
    assert sub["agent_id"] == "a2" and sub["session_id"] == "t"  # a subagent, counted apart
    assert "agent_id" not in cline.adapt({"agent_id": "a1", "parent_agent_id": None})


def test_the_scripts_are_what_clinehooks_writes() -> None:
    """A script answers by itself only when gitmem is not on PATH, or fails."""
    text = clinehooks.script("TaskComplete")
    assert install.guarded("gitmem-hook cline stop") in text
    assert install.guarded("gitmem hook cline stop") in text
    assert text.rstrip().splitlines()[-1].startswith("echo '{\"cancel\": false}'")
