"""pi (the pi coding agent): `gitmem install pi` writes gitmem's extension
(.pi/extensions/gitmem.ts), which forwards pi's extension events to `gitmem-hook pi EVENT`
with pi's tool names and arguments (1.6.0: seen in a real run's events), translated here;
pi loads a project's extensions only in a project the user trusts, which doctor reads from
pi's trust.json as pi does. The agent itself: tests/test_live_agents.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SANDBOX_HOME, agent_project, drive_plugin, run_agent_hook, write

from gitmem.agent import install, pi, plugins
from gitmem.cli.main import cli

EXTENSION = ".pi/extensions/gitmem.ts"
GITMEM_HOOK = shutil.which("gitmem-hook")


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def checks(runner: CliRunner) -> dict[str, dict[str, object]]:
    report = json.loads(runner.invoke(cli, ["doctor", "--no-model", "--json"]).output)
    return {c["name"]: c for c in report["checks"]}


def test_install_writes_the_extension_and_uninstall_removes_only_it(project: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "pi", "--mcp"])
    assert result.exit_code == 0 and "wrote gitmem's pi extension" in result.output
    assert "pi mcp add gitmem -- gitmem mcp" in result.output
    # a fresh HOME has told pi nothing: `pi -p` would skip the project's extensions
    assert "not yet running here: pi has not been told to trust this project" in result.output
    assert (project / EXTENSION).read_text() == plugins.shipped("pi")
    assert "Installed by `gitmem install pi` (.pi/extensions/gitmem.ts)" in plugins.shipped("pi")
    assert "up to date" in runner.invoke(cli, ["install", "pi"]).output
    found = checks(runner)
    assert found["pi extension"]["ok"] and found["pi extension"]["detail"] == "project: current"
    assert not found["pi trust"]["ok"]
    assert "pi" in found["claude hooks"]["detail"]  # named among the agents installed
    write(project, EXTENSION, plugins.shipped("pi").replace("TIMEOUT_MS = 10000", "TIMEOUT_MS = 1"))
    assert "older than this gitmem's" in str(checks(runner)["pi extension"]["detail"])
    write(project, ".pi/extensions/theirs.ts", "export default function () {}\n")
    assert "removed" in runner.invoke(cli, ["uninstall", "pi"]).output
    assert not (project / EXTENSION).exists() and (project / ".pi/extensions/theirs.ts").exists()
    write(project, EXTENSION, "export default function () {}\n")  # not gitmem's: kept
    result = runner.invoke(cli, ["install", "pi"])
    assert result.exit_code == 1 and "was not written by gitmem" in result.output
    assert "no gitmem extension" in runner.invoke(cli, ["uninstall", "pi"]).output
    assert (project / EXTENSION).exists()


def test_the_users_extension_goes_where_pi_reads_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """~/.pi/agent/extensions/, or under PI_CODING_AGENT_DIR where that moves pi's folder."""
    home = Path(SANDBOX_HOME)
    assert plugins.path("user", project, home, "pi") == home / ".pi/agent/extensions/gitmem.ts"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi"))
    runner = CliRunner()
    result = runner.invoke(cli, ["install", "pi", "--scope", "user"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "pi/extensions/gitmem.ts").read_text() == plugins.shipped("pi")
    assert "not yet running" not in result.output  # the user's extensions need no trust
    assert "pi trust" not in checks(runner)  # only a project's copy waits for it


def trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, decisions: object, **settings: str
) -> Path:
    folder = tmp_path / "pi-agent"
    folder.mkdir(exist_ok=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder))
    (folder / "trust.json").write_text(json.dumps(decisions))
    (folder / "settings.json").write_text(json.dumps(settings))
    return folder


def test_the_nearest_decision_decides_as_pi_does(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pi's trust-manager: the nearest folder with true or false decides (null is no
    decision); the path compared is the real one."""
    home = Path(SANDBOX_HOME)
    real = os.path.realpath(project)
    trust(tmp_path, monkeypatch, {os.path.dirname(real): True})
    assert pi.untrusted(project, home) is None  # a parent trusted
    trust(tmp_path, monkeypatch, {os.path.dirname(real): True, real: False})
    assert "was told not to trust" in str(pi.untrusted(project, home))
    trust(tmp_path, monkeypatch, {os.path.dirname(real): False, real: None})
    assert "was told not to trust" in str(pi.untrusted(project, home))
    link = tmp_path / "link"
    link.symlink_to(project)
    trust(tmp_path, monkeypatch, {real: True})
    assert pi.untrusted(link, home) is None


@pytest.mark.parametrize(
    ("default", "trusted"), [("always", True), ("never", False), ("ask", False), (None, False)]
)
def test_without_a_decision_the_default_decides(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default: str | None,
    trusted: bool,
) -> None:  # fmt: skip
    settings = {"defaultProjectTrust": default} if default else {}
    trust(tmp_path, monkeypatch, {}, **settings)
    assert (pi.untrusted(project, Path(SANDBOX_HOME)) is None) == trusted


def test_an_unreadable_trust_file_is_said(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = trust(tmp_path, monkeypatch, {})
    (folder / "trust.json").write_text("{not json")
    assert "pi cannot read" in str(pi.untrusted(project, Path(SANDBOX_HOME)))


# (entries of the project's .pi/settings.json "extensions", whether they leave the
# project's copy of gitmem's extension unloaded), as pi 1.6.0 reads them: the live test
# test_pi_settings_that_leave_the_extension_unloaded runs pi on three of them
PI_ENTRIES = [
    (["-extensions/gitmem.ts"], True),  # what `pi config` writes when it is unticked
    (["-./extensions/gitmem.ts"], True),
    (["!extensions/*.ts"], True),
    (["!*.ts"], True),  # a glob matches the file's name too
    (["!**/gitmem.{ts,js}"], True),
    (["!extensions/*.ts", "+extensions/gitmem.ts"], False),  # put back by name
    (["+extensions/gitmem.ts", "-extensions/gitmem.ts"], True),  # `-` wins
    (["-extensions/other.ts", "!other/*.ts", "./more/ext.ts", 7], False),
    (["+extensions/gitmem.ts"], False),
]


@pytest.mark.parametrize(("entries", "off"), PI_ENTRIES)
def test_pi_settings_that_turn_the_extension_off(
    entries: list[object], off: bool, project: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    home = Path(SANDBOX_HOME)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    extension = plugins.path("project", project, home, "pi")
    write(project, ".pi/settings.json", json.dumps({"extensions": entries}))
    said = pi.unloaded(project, home, "project", extension)
    assert (said is not None) is off, said
    if said:
        assert f"`{next(e for e in entries if isinstance(e, str) and e[0] in '!-')}`" in said
    # the user's settings do not reach the project's copy
    user = plugins.path("user", project, home, "pi")
    assert pi.unloaded(project, home, "user", user) is None


def test_the_users_copy_is_turned_off_where_pi_reads_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's copy by the user's settings (paths from pi's folder), or by the
    project's naming it by its whole path, as `pi config`'s project view writes it."""
    home = Path(SANDBOX_HOME)
    folder = tmp_path / "pi-agent"
    folder.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder))
    user = plugins.path("user", project, home, "pi")
    (folder / "settings.json").write_text(json.dumps({"extensions": ["-extensions/gitmem.ts"]}))
    assert str(folder / "settings.json") in str(pi.unloaded(project, home, "user", user))
    (folder / "settings.json").write_text("{not json")  # pi reads no entries from it
    assert pi.unloaded(project, home, "user", user) is None
    write(project, ".pi/settings.json", json.dumps({"extensions": [str(user), f"-{user}"]}))
    assert ".pi/settings.json" in str(pi.unloaded(project, home, "user", user))


def test_doctor_names_the_entry_that_leaves_the_extension_unloaded(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both copies installed: one turned off is said, and passes while the other runs;
    both turned off fails."""
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    runner = CliRunner()
    for scope in ("project", "user"):
        assert runner.invoke(cli, ["install", "pi", "--scope", scope]).exit_code == 0
    assert "pi settings" not in checks(runner)
    write(project, ".pi/settings.json", json.dumps({"extensions": ["-extensions/gitmem.ts"]}))
    check = checks(runner)["pi settings"]
    assert check["ok"] and "the user's copy runs" in str(check["detail"]), check
    off = {"extensions": ["!extensions/*"]}
    (tmp_path / "pi-agent" / "settings.json").write_text(json.dumps(off))
    check = checks(runner)["pi settings"]
    assert not check["ok"] and "`!extensions/*`" in str(check["detail"]), check


def test_adapt_names_pi_tools_as_claude_code_does() -> None:
    edit = pi.adapt({"tool_name": "edit", "tool_input": {
        "path": "/r/a.py", "edits": [{"oldText": "x", "newText": "y"}, {"oldText": "p", "newText": "q"}]}})  # fmt: skip
    assert edit["tool_name"] == "MultiEdit" and edit["pi_tool_name"] == "edit"
    assert edit["tool_input"]["file_path"] == "/r/a.py"
    assert edit["tool_input"]["edits"] == [{"old_string": "x", "new_string": "y"},
                                           {"old_string": "p", "new_string": "q"}]  # fmt: skip
    single = pi.adapt(
        {"tool_name": "edit", "tool_input": {"path": "a", "oldText": "x", "newText": "y"}}
    )
    assert single["tool_input"]["new_string"] == "y"  # pi's older edit tool
    expected = {"read": "Read", "write": "Write", "bash": "Bash", "grep": "Grep", "find": "Glob",
                "ls": "LS"}  # fmt: skip
    for name, claude in expected.items():
        assert pi.adapt({"tool_name": name, "tool_input": {"path": "a"}})["tool_name"] == claude
    mcp = {"tool_name": "mcp__x__y", "tool_input": {"path": "a"}}
    assert pi.adapt(mcp) == mcp


@pytest.mark.skipif(GITMEM_HOOK is None, reason="gitmem-hook is not installed")
def test_an_edit_that_breaks_a_critical_rule_is_denied(project: Path) -> None:
    """The extension's payload for pi's edit tool (its `edits` list): a replacement that
    adds `float(` is denied; one that keeps a line already there is not."""
    base = {"session_id": "pi-1", "cwd": str(project), "hook_event_name": "PreToolUse",
            "tool_name": "edit"}  # fmt: skip
    path = str(project / "billing/charge.py")
    adds = {"path": path, "edits": [{"oldText": "x = 1", "newText": "x = float(1)"}]}
    answer = run_agent_hook(project, "gitmem-hook pi pre-tool", {**base, "tool_input": adds})
    assert answer is not None
    out = answer["hookSpecificOutput"]
    assert isinstance(out, dict) and out["permissionDecision"] == "deny"
    assert "D-0001 (critical)" in out["permissionDecisionReason"]
    keeps = {"path": path, "edits": [{"oldText": "x = 1", "newText": "x = 1\ny = 2"}]}
    answer = run_agent_hook(project, "gitmem-hook pi pre-tool", {**base, "tool_input": keeps})
    assert "deny" not in json.dumps(answer)
    # doctor shows when pi's hooks last ran (before session 62: only the agents with hook
    # files, so not OpenCode's plugin, pi's extension or Cline's scripts)
    report = json.loads(CliRunner().invoke(cli, ["doctor", "--no-model", "--json"]).output)
    assert report["last_events"]["pi pre-tool"]["ms"] > 0


def _node_for_typescript() -> str | None:
    """A Node.js that runs TypeScript as it is (type stripping, on by default since 22.18):
    tests/agents' Node.js 24 (pi's), else one on PATH."""
    folder = os.environ.get("GITMEM_AGENTS_BIN")
    for node in (str(Path(folder).parent / "node24/bin/node") if folder else None,
                 shutil.which("node")):  # fmt: skip
        if node and os.access(node, os.X_OK):
            version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
            major, minor = (int(n) for n in version.lstrip("v").split(".")[:2])
            if (major, minor) >= (22, 18):
                return node
    return None


NODE = _node_for_typescript()
DRIVER = """
import { pathToFileURL } from "node:url";
const [extension, cwd, script] = process.argv.slice(2);
const handlers = {};
const pi = { on: (name, handler) => ((handlers[name] ??= []).push(handler)) };
(await import(pathToFileURL(extension).href)).default(pi);
// pi's context as its extensions get it (1.6.0): the session, its branch, no screen
let branch = []; // set by the script's "branch" steps
let broken = false; // after a "break" step, pi's session manager throws
const ctx = { cwd, hasUI: false, sessionManager: {
  getSessionId: () => { if (broken) throw new Error("gone"); return "pi-ses"; },
  getBranch: () => branch, getSessionFile: () => undefined } };
const out = [];
for (const [name, event] of JSON.parse(script)) {
  if (name === "branch" || name === "break") {
    branch = name === "branch" ? event : branch;
    broken = name === "break";
    continue;
  }
  try {
    let answer;
    const sent = { type: name, ...event }; // as pi sends it, one object to every handler
    for (const handler of handlers[name] ?? []) answer = (await handler(sent, ctx)) ?? answer;
    out.push({ name, answer: answer ?? null });
  } catch (err) {
    out.push({ name, thrown: String(err.message) });
  }
}
console.log(JSON.stringify(out));
"""


def drive(project: Path, script: list[list[object]], path: str) -> list[dict[str, object]]:
    """Send the installed extension pi's events in Node.js, as pi does."""
    return drive_plugin(str(NODE), DRIVER, project / EXTENSION, project, script, path)


def session_script(project: Path) -> list[list[object]]:
    read = {"toolName": "read", "toolCallId": "c1", "input": {"path": str(project / "api/routes.py")}}
    edits = [{"oldText": "x = 1", "newText": "x = float(1)"}]
    edit = {"toolName": "edit", "toolCallId": "c2",
            "input": {"path": str(project / "billing/charge.py"), "edits": edits}}  # fmt: skip
    return [
        ["session_start", {"type": "session_start", "reason": "startup"}],
        ["before_agent_start", {"messageType": "user", "prompt": "Tidy up"}],
        ["tool_call", read],
        ["tool_result", {**read, "content": [{"type": "text", "text": "ok"}], "isError": False}],
        ["tool_call", edit],
        ["agent_before_settle", {"entries": [], "continue": False}],
    ]


@pytest.mark.skipif(NODE is None, reason="no Node.js 22.18+ (pi's) to run the extension")
def test_the_extension_informs_and_denies(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "pi"]).exit_code == 0
    start, prompt, read, result, edit, settle = drive(
        project, session_script(project), os.environ["PATH"]
    )
    assert start["answer"] is None and read["answer"] is None
    message = prompt["answer"]["message"]  # type: ignore[index]
    assert message["customType"] == "gitmem" and not message["display"]
    assert "D-0001" in message["content"]  # the digest; the prompt names nothing
    content = result["answer"]["content"]  # type: ignore[index]
    assert content[0] == {"type": "text", "text": "ok"} and "D-0002" in content[1]["text"]
    assert edit["answer"]["block"] is True  # type: ignore[index]
    assert "D-0001 (critical)" in edit["answer"]["reason"]  # type: ignore[index]
    assert settle["answer"] is None  # nothing a script wrote: the turn ends


@pytest.mark.skipif(NODE is None, reason="no Node.js 22.18+ (pi's) to run the extension")
@pytest.mark.parametrize("broken", [False, True])
def test_the_extension_fails_open_without_gitmem_hook(
    broken: bool, project: Path, tmp_path: Path
) -> None:
    """No gitmem-hook on PATH, or one that cannot run (a version manager's shim: exit
    127): every handler returns and changes nothing, and the session's first prompt says
    once that gitmem did not run, as gitmem's other agents hear it."""
    assert CliRunner().invoke(cli, ["install", "pi"]).exit_code == 0
    folder = tmp_path / "bin"
    folder.mkdir()
    if broken:
        (folder / "gitmem-hook").write_text("#!/bin/sh\nexit 127\n")
        (folder / "gitmem-hook").chmod(0o755)
    script = session_script(project)
    results = drive(project, [*script, script[1]], f"{folder}{os.pathsep}/usr/bin:/bin")
    assert all("thrown" not in r for r in results), results
    assert results[1]["answer"] == {"message": {"customType": "gitmem", "content": install.MISSING_NOTE,
                                                "display": False}}  # fmt: skip
    assert [r["answer"] for r in results[2:]] == [None] * 5  # the next prompt: no note again


@pytest.mark.skipif(NODE is None, reason="no Node.js 22.18+ (pi's) to run the extension")
def test_a_session_holding_a_conversation_tells_gitmem_what_it_holds(project: Path) -> None:
    """A session that starts with a conversation (`pi -c`, a fork): the decisions its
    messages name as gitmem's hooks name them, from the latest compaction's first kept
    entry on, are noted as shown, and the session starts as resumed (no digest repeated)."""
    assert CliRunner().invoke(cli, ["install", "pi"]).exit_code == 0

    def said(eid: str, text: str) -> dict[str, object]:
        return {"type": "custom_message", "id": eid, "customType": "gitmem", "content": text}

    user = {"type": "message", "id": "u1", "message": {"role": "user", "content": "Tidy up"}}
    branch = [
        said("a", "- Project decision D-0001 (accepted, critical) applies: Money"),
        {"type": "compaction", "id": "c", "firstKeptEntryId": "u1", "summary": "..."},
        user,
        said("b", "- Project decision D-0002 (accepted, info) governs api/**"),
    ]
    start, prompt = drive(project, [
        ["branch", branch],
        ["session_start", {"type": "session_start", "reason": "startup"}],
        ["before_agent_start", {"messageType": "user", "prompt": "Go on"}],
    ], os.environ["PATH"])  # fmt: skip
    assert "thrown" not in start
    from gitmem.agent import state
    from gitmem.repo import discover

    records = Path(state.session_file(discover(project).shared_state_dir, "pi-ses"))
    shown = [json.loads(line) for line in records.read_text().splitlines()]
    assert {"ids": ["D-0002"], "event": "conversation"}.items() <= shown[0].items(), shown
    # D-0001 was summarised away: shown again (the resumed digest brings pinned ones back)
    assert "D-0001" in str(prompt["answer"]) and "D-0002" not in str(prompt["answer"])


@pytest.mark.skipif(NODE is None, reason="no Node.js 22.18+ (pi's) to run the extension")
def test_a_handler_that_fails_blocks_nothing(project: Path) -> None:
    """pi blocks a tool call whose tool_call handler throws (its fail-safe, 1.6.0): a
    failure inside gitmem's extension (here pi's session manager throwing) answers
    nothing instead, for every event, and the tool runs."""
    assert CliRunner().invoke(cli, ["install", "pi"]).exit_code == 0
    script = session_script(project)
    results = drive(project, [["break", None], *script], os.environ["PATH"])
    assert [r.get("thrown") for r in results] == [None] * len(script), results
    assert [r["answer"] for r in results] == [None] * len(script)
    # each failure logged where doctor shows it
    report = json.loads(CliRunner().invoke(cli, ["doctor", "--no-model", "--json"]).output)
    failed = [e for e in report["errors"] if "pi plugin-error: tool_call: Error: gone" in e]
    assert len(failed) == 2, report["errors"]  # the two tool calls
