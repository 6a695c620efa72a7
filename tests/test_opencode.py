"""OpenCode: `gitmem install opencode` writes gitmem's plugin (.opencode/plugin/gitmem.js),
which forwards OpenCode's plugin events to `gitmem-hook opencode EVENT`. The plugin is run
here with Node.js, as OpenCode loads it (an ES module whose export is called with the
project), against the installed gitmem-hook; tests/test_live_agents.py runs OpenCode."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SANDBOX_HOME, agent_project, drive_plugin, write

from gitmem.agent import install, opencode, plugins
from gitmem.cli.main import cli

PLUGIN = ".opencode/plugin/gitmem.js"
NODE = shutil.which("node")


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def test_install_writes_the_plugin_and_uninstall_removes_only_it(project: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "opencode"])
    assert result.exit_code == 0 and "wrote gitmem's OpenCode plugin" in result.output
    assert (project / PLUGIN).read_text() == plugins.shipped()
    assert "up to date" in runner.invoke(cli, ["install", "opencode"]).output
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "opencode plugin" in doctor and "project: current" in doctor
    write(project, PLUGIN, plugins.shipped().replace("TIMEOUT_MS = 10000", "TIMEOUT_MS = 1"))
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "older than this gitmem's" in doctor  # an earlier gitmem's plugin
    assert "wrote" in runner.invoke(cli, ["install", "opencode"]).output
    write(project, ".opencode/plugin/theirs.js", "export const Theirs = async () => ({});\n")
    result = runner.invoke(cli, ["uninstall", "opencode"])
    assert result.exit_code == 0 and "removed" in result.output
    assert not (project / PLUGIN).exists() and (project / ".opencode/plugin/theirs.js").exists()
    # a gitmem.js gitmem did not write is never replaced or removed
    write(project, PLUGIN, "export const Mine = async () => ({});\n")
    result = runner.invoke(cli, ["install", "opencode"])
    assert result.exit_code == 1 and "was not written by gitmem" in result.output
    assert "no gitmem plugin" in runner.invoke(cli, ["uninstall", "opencode"]).output
    assert (project / PLUGIN).exists()


def test_kilo_cli_gets_the_same_plugin_in_its_own_folder(project: Path) -> None:
    """Kilo CLI (an OpenCode fork) loads plugins from .kilo/plugin/, not OpenCode's folder
    (seen running 7.7.9): `install kilo` writes the same plugin there, naming itself in
    its first lines; doctor checks each host's copy; uninstall takes out only its own."""
    runner = CliRunner()
    assert runner.invoke(cli, ["install", "opencode"]).exit_code == 0
    result = runner.invoke(cli, ["install", "kilo", "--mcp"])
    assert result.exit_code == 0 and "wrote gitmem's Kilo CLI plugin" in result.output
    assert "kilo mcp add gitmem" in result.output
    kilo = (project / ".kilo/plugin/gitmem.js").read_text()
    assert kilo == plugins.shipped("kilo") != plugins.shipped()
    assert "Installed by `gitmem install kilo` (.kilo/plugin/gitmem.js)" in kilo
    differ = [(a, b) for a, b in zip(kilo.splitlines()[3:], plugins.shipped().splitlines()[3:], strict=True)
              if a != b]  # fmt: skip
    assert differ == [('const HOST = "kilo";', 'const HOST = "opencode";')]  # the same code
    doctor = runner.invoke(cli, ["doctor", "--no-model"]).output
    assert "opencode plugin" in doctor and "kilo plugin" in doctor, doctor
    user = plugins.path("user", project, Path(SANDBOX_HOME), "kilo")
    assert user.parts[-3:] == ("kilo", "plugin", "gitmem.js")
    assert "removed" in runner.invoke(cli, ["uninstall", "kilo"]).output
    assert not (project / ".kilo").exists() and (project / PLUGIN).exists()


def test_adapt_renames_opencode_tools() -> None:
    edit = {"tool_name": "edit", "tool_input": {"filePath": "/r/a.py", "oldString": "x",
                                                "newString": "y"}}  # fmt: skip
    adapted = opencode.adapt(edit)
    assert adapted["tool_name"] == "Edit" and adapted["opencode_tool_name"] == "edit"
    assert adapted["tool_input"]["file_path"] == "/r/a.py"
    assert adapted["tool_input"]["new_string"] == "y"
    shell = opencode.adapt({"tool_name": "bash", "cwd": "/r",
                            "tool_input": {"command": "cat a.py", "workdir": "src"}})  # fmt: skip
    assert shell["tool_name"] == "Bash" and shell["cwd"] == "/r/src"


DRIVER = """
import { pathToFileURL } from "node:url";
const [plugin, directory, script] = process.argv.slice(2);
const { Gitmem } = await import(pathToFileURL(plugin).href);
// OpenCode's server, as the plugin's SDK client asks it for a message (1.18.33): what it
// holds is set by the script's "server" steps ({ messageID: { info, parts } })
const held = {};
const client = { session: { message: async ({ path }) =>
  held[path.messageID] ? { data: held[path.messageID] } : { error: {}, response: { status: 404 } } } };
const hooks = await Gitmem({ directory, worktree: directory, client });
const out = [];
for (const [name, input, output] of JSON.parse(script)) {
  try {
    if (name === "server") Object.assign(held, input);
    else if (name === "event") await hooks.event(input);
    else await hooks[name](input, output);
    out.push({ name, output });
  } catch (err) {
    out.push({ name, thrown: String(err.message) });
  }
}
console.log(JSON.stringify(out));
"""


def drive(project: Path, script: list[list[object]], path: str) -> list[dict[str, object]]:
    """Call the installed plugin's hooks in Node.js, as OpenCode does."""
    return drive_plugin(str(NODE), DRIVER, project / PLUGIN, project, script, path)


def session_script(project: Path) -> list[list[object]]:
    message = {"message": {"id": "msg_1", "sessionID": "ses_1"},
               "parts": [{"type": "text", "text": "Tidy up"}]}  # fmt: skip
    read = {"tool": "read", "sessionID": "ses_1", "callID": "c1"}
    args = {"filePath": str(project / "api/routes.py")}
    edit = {"filePath": str(project / "billing/charge.py"), "oldString": "x = 1",
            "newString": "x = float(1)"}  # fmt: skip
    return [
        ["chat.message", {"sessionID": "ses_1"}, message],
        ["tool.execute.before", read, {"args": args}],
        ["tool.execute.after", {**read, "args": args}, {"title": "", "output": "ok", "metadata": {}}],
        ["tool.execute.before", {**read, "tool": "edit", "callID": "c2"}, {"args": edit}],
        ["event", {"event": {"type": "session.idle", "properties": {"sessionID": "ses_1"}}}, None],
    ]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_plugin_informs_and_denies(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "opencode"]).exit_code == 0
    chat, before, after, edit, idle = drive(project, session_script(project), os.environ["PATH"])
    parts = chat["output"]["parts"]  # type: ignore[index]
    said = [p["text"] for p in parts if p.get("synthetic")]
    assert len(said) == 1 and "D-0001" in said[0]  # the digest; the prompt names nothing
    assert "thrown" not in before
    # what the before-tool hook found comes with the tool's output
    output = after["output"]["output"]  # type: ignore[index]
    assert output.startswith("ok\n\n") and "D-0002" in output
    assert "thrown" not in idle
    assert "D-0001 (critical)" in str(edit["thrown"])
    # doctor shows that the plugin's hooks ran (before session 62 it said "no hook has
    # run yet": only the agents with hook files were read)
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"]).output
    assert "opencode pre-tool" in doctor and "no hook has run yet" not in doctor, doctor


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_plugin_denies_a_patch_of_a_gpt_model(project: Path) -> None:
    """For GPT models OpenCode's file tool is `apply_patch`, its patch in `patchText`
    (1.18.33): read as Codex's patches are (before session 42 it met no decision)."""
    assert CliRunner().invoke(cli, ["install", "opencode"]).exit_code == 0
    patch = ("*** Begin Patch\n*** Update File: billing/charge.py\n@@\n-x = 1\n"
             "+x = float(1)\n*** End Patch")  # fmt: skip
    call = {"tool": "apply_patch", "sessionID": "ses_p", "callID": "p1"}
    compliant = patch.replace("float(1)", "2")
    denied, allowed = drive(project, [
        ["tool.execute.before", call, {"args": {"patchText": patch}}],
        ["tool.execute.before", {**call, "callID": "p2"}, {"args": {"patchText": compliant}}],
    ], os.environ["PATH"])  # fmt: skip
    assert "D-0001 (critical)" in str(denied.get("thrown")), denied
    assert "billing/charge.py" in str(denied["thrown"]) and "thrown" not in allowed


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
@pytest.mark.parametrize("broken", [False, True])
def test_the_plugin_fails_open_without_gitmem_hook(
    broken: bool, project: Path, tmp_path: Path
) -> None:
    """No gitmem-hook on PATH, or one that cannot run (a version manager's shim: exit
    127): every hook returns and changes nothing, and the session's first message says
    once that gitmem did not run, as gitmem's other agents hear it."""
    assert CliRunner().invoke(cli, ["install", "opencode"]).exit_code == 0
    folder = tmp_path / "bin"
    folder.mkdir()
    if broken:
        (folder / "gitmem-hook").write_text("#!/bin/sh\nexit 127\n")
        (folder / "gitmem-hook").chmod(0o755)
    results = drive(project, session_script(project), str(folder))
    assert all("thrown" not in r for r in results), results
    said = [p["text"] for p in results[0]["output"]["parts"] if p.get("synthetic")]  # type: ignore[index]
    assert said == [install.MISSING_NOTE]
    assert results[2]["output"]["output"] == "ok"  # type: ignore[index]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_failing_handler_blocks_nothing_and_is_logged(project: Path) -> None:
    """OpenCode fails the tool call, or the user's message, whose plugin handler throws.
    An OpenCode whose objects change shape (here: a message without its parts, a tool's
    result without its output) made gitmem's handlers throw, and blocked the agent. Each
    now fails open and says why in the hook error log; a critical rule's deny still
    blocks."""
    assert CliRunner().invoke(cli, ["install", "opencode"]).exit_code == 0
    call = {"tool": "read", "sessionID": "ses_x", "callID": "x1"}
    edit = {"filePath": str(project / "billing/charge.py"), "oldString": "x = 1",
            "newString": "x = float(1)"}  # fmt: skip
    chat, after, denied = drive(project, [
        ["chat.message", {"sessionID": "ses_x"}, {"message": {"id": "m", "sessionID": "ses_x"}}],
        ["tool.execute.after", {**call, "args": {}}, None],
        ["tool.execute.before", {**call, "tool": "edit", "callID": "x2"}, {"args": edit}],
    ], os.environ["PATH"])  # fmt: skip
    assert "thrown" not in chat and "thrown" not in after, (chat, after)
    assert "D-0001 (critical)" in str(denied.get("thrown")), denied
    log = (project / ".git/gitmem/hook-errors.log").read_text()
    lines = [x for x in log.splitlines() if "opencode plugin-error" in x]
    assert len(lines) == 2, log
    assert "chat.message: TypeError" in lines[0] and "tool.execute.after: TypeError" in lines[1]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_kilo_cli_sessions_are_captured_as_kilo_clis(project: Path) -> None:
    """Each copy of the plugin names its agent: before session 65 a Kilo CLI session was
    captured (and listed by `gitmem sessions`) as OpenCode's. A payload naming an agent
    that is no fork of OpenCode changes nothing."""
    from gitmem import capture
    from gitmem.repo import discover

    runner = CliRunner()
    assert runner.invoke(cli, ["install", "opencode"]).exit_code == 0
    assert runner.invoke(cli, ["install", "kilo"]).exit_code == 0
    for host, plugin in (("oc", project / PLUGIN), ("kilo", project / ".kilo/plugin/gitmem.js")):
        message = {"message": {"id": "msg_1", "sessionID": f"ses_{host}"},
                   "parts": [{"type": "text", "text": f"Tidy up, {host}"}]}  # fmt: skip
        drive_plugin(str(NODE), DRIVER, plugin, project,
                     [["chat.message", {"sessionID": f"ses_{host}"}, message]],
                     os.environ["PATH"])  # fmt: skip
    forged = '{"session_id": "ses_x", "prompt": "Tidy", "cwd": ".", "gitmem_host": "claude"}'
    hook = subprocess.run([str(shutil.which("gitmem-hook")), "opencode", "prompt"], input=forged,
                          cwd=project, capture_output=True, text=True)  # fmt: skip
    assert hook.returncode == 0, hook.stderr
    repo = discover(project)
    agents = {}
    for sid in ("ses_oc", "ses_kilo", "ses_x"):
        capture.flush(repo, sid)
        agents[sid] = {r["agent"] for r in capture.records(repo, capture.ref_for(sid))}
    assert agents == {"ses_oc": {"opencode"}, "ses_kilo": {"kilo"}, "ses_x": {"opencode"}}
    listed = runner.invoke(cli, ["sessions", "--json"])
    assert listed.exit_code == 0, listed.output
    assert sorted(s["agent"] for s in json.loads(listed.output)) == ["kilo", "opencode", "opencode"]
    # and doctor names the hooks that ran by their agent
    doctor = json.loads(runner.invoke(cli, ["doctor", "--no-model", "--json"]).output)
    assert {"kilo prompt", "opencode prompt"} <= set(doctor["last_events"]), doctor["last_events"]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_subagent_session_gets_no_digest_and_its_task_is_not_captured(project: Path) -> None:
    """OpenCode runs a subagent (the task tool) in a child session: `session.created` names
    its parent. Its first message is the task the main agent wrote: answered, not captured,
    and without the session-start digest (Claude Code gives its subagents none either)."""
    assert CliRunner().invoke(cli, ["install", "opencode"]).exit_code == 0
    created = {"event": {"type": "session.created", "properties": {
        "sessionID": "ses_child", "info": {"id": "ses_child", "parentID": "ses_1"}}}}  # fmt: skip
    task = {"message": {"id": "msg_2", "sessionID": "ses_child"},
            "parts": [{"type": "text", "text": "Check the version header in api/routes.py"}]}  # fmt: skip
    results = drive(project, [["event", created, None],
                              ["chat.message", {"sessionID": "ses_child"}, task]],
                    os.environ["PATH"])  # fmt: skip
    said = [p["text"] for p in results[1]["output"]["parts"] if p.get("synthetic")]  # type: ignore[index]
    assert len(said) == 1 and "D-0002" in said[0] and "D-0001" not in said[0]
    from gitmem import capture
    from gitmem.repo import discover

    assert not Path(capture.wal_path(discover(project), "ses_child")).exists()


def _message(mid: str, text: str, created: int) -> dict[str, object]:
    return {"message": {"id": mid, "sessionID": "ses_1", "time": {"created": created}},
            "parts": [{"type": "text", "text": text}]}  # fmt: skip


def _revert(mid: str) -> list[object]:
    info = {"id": "ses_1", "revert": {"messageID": mid, "snapshot": "abc"}}
    return ["event", {"event": {"type": "session.updated",
                                "properties": {"sessionID": "ses_1", "info": info}}}, None]  # fmt: skip


def _said(result: dict[str, object]) -> str:
    return "\n".join(p["text"] for p in result["output"]["parts"] if p.get("synthetic"))  # type: ignore[index]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
@pytest.mark.parametrize("undone", [False, True])
def test_a_revert_shows_what_it_cut_again(undone: bool, project: Path) -> None:
    """OpenCode's `/undo` of the first prompt, whose turn read the API file: the next
    prompt, once OpenCode has cut the messages (the first is gone from its server), gets
    the pinned decision of the digest and the API decision again (before session 47:
    neither, gitmem took both for shown). A revert undone (`/redo`: the message is still
    there) cuts nothing: nothing is shown twice."""
    assert CliRunner().invoke(cli, ["install", "opencode"]).exit_code == 0
    now = int(time.time() * 1000)
    read = {"tool": "read", "sessionID": "ses_1", "callID": "c1"}
    args = {"filePath": str(project / "api/routes.py")}
    first = _message("msg_1", "Look at the routes", now)
    ask = "How are the routes in api/routes.py versioned?"
    held = {"msg_1": {"info": first["message"], "parts": first["parts"]}}
    script = [
        ["server", held, None],
        ["chat.message", {"sessionID": "ses_1"}, first],
        ["tool.execute.before", read, {"args": args}],
        ["tool.execute.after", {**read, "args": args}, {"title": "", "output": "ok", "metadata": {}}],
        _revert("msg_1"),
        ["server", {} if undone else {"msg_1": None}, None],  # the next prompt cut it, or not
        ["chat.message", {"sessionID": "ses_1"}, _message("msg_3", ask, now + 5000)],
    ]  # fmt: skip
    results = drive(project, script, os.environ["PATH"])
    assert "D-0001" in _said(results[1]) and "D-0002" in results[3]["output"]["output"]  # type: ignore[index]
    again = _said(results[6])
    if undone:
        assert again == "", again
    else:
        assert "Money is integer cents" in again and "Version the API with a header" in again
        assert "again: your context lost them" in again, again


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_a_revert_seen_by_another_process_asks_when_the_message_was_created(
    project: Path,
) -> None:
    """A session continued in a new OpenCode process (`opencode -c`) and reverted there:
    the plugin never saw the message gone back to, so it asks OpenCode's server when it
    was created. Only what was shown from then on is cut: here the second prompt's, not
    the first's (the digest)."""
    assert CliRunner().invoke(cli, ["install", "opencode"]).exit_code == 0
    read = {"tool": "read", "sessionID": "ses_1", "callID": "c1"}
    args = {"filePath": str(project / "api/routes.py")}
    first = _message("msg_1", "Tidy up", int(time.time() * 1000))
    said = drive(project, [["chat.message", {"sessionID": "ses_1"}, first]], os.environ["PATH"])
    assert "D-0001" in _said(said[0])
    second = _message("msg_2", "Look at the routes", int(time.time() * 1000))
    drive(project, [
        ["chat.message", {"sessionID": "ses_1"}, second],
        ["tool.execute.before", read, {"args": args}],
        ["tool.execute.after", {**read, "args": args}, {"title": "", "output": "ok", "metadata": {}}],
    ], os.environ["PATH"])  # fmt: skip
    ask = _message("msg_3", "How are the routes in api/routes.py versioned?",
                   int(time.time() * 1000))  # fmt: skip
    results = drive(project, [
        ["server", {"msg_2": {"info": second["message"], "parts": second["parts"]}}, None],
        _revert("msg_2"),
        ["server", {"msg_2": None}, None],
        ["chat.message", {"sessionID": "ses_1"}, ask],
    ], os.environ["PATH"])  # fmt: skip
    again = _said(results[3])
    assert "Version the API with a header. Clients send" in again, again
    assert "Money is integer cents. Amounts are" not in again, again  # the digest was kept
