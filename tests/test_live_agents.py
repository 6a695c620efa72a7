"""The real agent CLIs, run offline against a scripted local model (tests/fakemodel.py).

Each test installs gitmem's hooks the way a user does, runs the agent non-interactively
on a prompt, and lets the fake model make the same three calls: read an API file, read a
billing file, then edit the billing file to break the critical money rule. What the
agent then sent its model shows what gitmem really achieved in that agent:

- the session-start digest and the decision governing the file read reached the model,
  each once (no decision repeated in one session);
- the edit was denied, the model was told why, and the file is unchanged;
- the prompt was captured on refs/gitmem/, and no hook failed.

The agents come from the npm registry, pinned in tests/agents/package.json (CI installs
them with `npm install`; see .ci/run). A test skips when its agent is absent, unless
GITMEM_REQUIRE_AGENTS=1 (CI) makes that a failure. Each agent gets its own throwaway HOME.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import agent_binary, agent_project, decision, git, write
from fakemodel import FakeModel, Step, offline
from terminal import Terminal

from gitmem import capture
from gitmem.agent import install, prompt, startdir
from gitmem.repo import discover

PROMPT = "Tidy up the code"
API_TITLE = "Version the API with a header"
MONEY_TITLE = "Money is integer cents"
DENIED = "D-0001 (critical)"
CHARGE = "x = 1\n"
EDIT_CLAUDE = {"old_string": "x = 1", "new_string": "x = float(1)"}  # Gemini's names too
EDIT_COPILOT = {"old_str": "x = 1", "new_str": "x = float(1)"}
AGENT_TIMEOUT_S = 120


@pytest.fixture
def project(repo: Path) -> Path:
    agent_project(repo)
    write(repo, "api/routes.py", "def routes():\n    return []\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "routes")
    return repo


@pytest.fixture
def agent_home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "agent-home"
    home.mkdir()
    yield home


def agent_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITMEM_REQUIRE",))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), NO_COLOR="1", CI="1")
    env.update(extra)
    return env


def run_agent(
    argv: list[str], project: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        argv,
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=AGENT_TIMEOUT_S,
    )
    assert proc.returncode == 0, f"{argv[0]} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc


def gitmem(project: Path, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(["gitmem", *args], cwd=project, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def codex_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "codex" in line.lower()]


def assert_no_hook_errors(project: Path) -> None:
    errors = discover(project).shared_state_dir / "hook-errors.log"
    assert not errors.exists(), errors.read_text()


def assert_outcome(project: Path, model: FakeModel, *, prompts: bool = True) -> None:
    """What every agent must show (not ``prompts``: the prompt's capture, for an agent
    that runs no prompt hook: `droid exec`)."""
    assert model.steps_taken == len(model.steps), [r.path for r in model.requests]
    final = model.conversation[-1].text()
    assert final.count(MONEY_TITLE) == 1, final[-4000:]  # the digest, once
    assert final.count(API_TITLE) == 1, final[-4000:]  # after the read, once
    assert DENIED in final, final[-4000:]
    assert (project / "billing/charge.py").read_text() == CHARGE
    assert_no_hook_errors(project)
    if prompts:
        assert PROMPT in captured(project)


def captured(project: Path) -> str:
    """The messages of the session refs' commits, once PROMPT is among them (the capture
    is flushed by a background process) or after 20 s."""
    deadline = time.monotonic() + 20
    while True:
        refs = git(project, "for-each-ref", "--format=%(refname)", "refs/gitmem/").split()
        log = "".join(git(project, "log", "--format=%B", ref) for ref in refs)
        if PROMPT in log or time.monotonic() > deadline:
            return log
        time.sleep(0.2)


Launch = tuple[Callable[[str], list[str]], dict[str, str]]
# each agent, named as its executable is
AGENT_NAMES = ("claude", "codex", "gemini", "copilot", "qwen", "opencode", "pi", "cline", "droid")


def launch(
    agent: str,
    project: Path,
    home: Path,
    model: FakeModel,
    *install: str,
    tools: str = "Read Edit Bash",
    hooks: bool = True,
) -> Launch:
    """``agent`` pointed at the fake model (fakemodel.offline), with gitmem's hooks
    installed as a user installs them (``install``: more arguments; not ``hooks``: none).
    Codex's are trusted with `gitmem install codex --trust` after doctor has said they
    are not."""
    exe = agent_binary(agent)
    command, env = offline(agent, exe, home, project, model.url, agent_env(home),
                           claude_tools=tools)  # fmt: skip
    if agent == "codex":
        env["GITMEM_CODEX"] = exe
    if agent == "claude":  # the Claude Code `install` asks its version (CLAUDE_FAILURES)
        env["GITMEM_CLAUDE"] = exe
    if hooks:
        gitmem(project, env, "install", agent, *install)
    if hooks and agent == "codex":
        # what doctor said of Codex, whole, if it was not that (pytest elides the middle of
        # a long output: session 65's one failure here could not be read)
        doctor = gitmem(project, env, "doctor", "--no-model")
        assert "Codex skips 6 of gitmem's 6 hooks until they are trusted" in doctor, codex_lines(doctor)
        trusted = gitmem(project, env, "install", "codex", "--trust")
        assert "Codex trusts all 6" in trusted, trusted
        doctor = gitmem(project, env, "doctor", "--no-model")
        assert "Codex trusts all 6" in doctor, codex_lines(doctor)
    return command, env


def edit_session(agent: str, root: Path) -> list[Step]:
    """Read the API file, read the billing file, break the money rule in the billing file:
    each agent's own tools."""
    api, billing = str(root / "api/routes.py"), str(root / "billing/charge.py")
    if agent == "claude":  # the API file through Bash: path-scoped rules miss those reads
        return [Step("Bash", {"command": "cat api/routes.py", "description": "show"}),
                Step("Read", {"file_path": billing}),
                Step("Edit", {"file_path": billing, **EDIT_CLAUDE})]  # fmt: skip
    if agent == "codex":
        patch = "*** Begin Patch\n*** Update File: billing/charge.py\n@@\n-x = 1\n+x = float(1)\n"
        return [Step("exec_command", {"cmd": "cat api/routes.py"}),
                Step("exec_command", {"cmd": "cat billing/charge.py"}),
                Step("apply_patch", patch + "*** End Patch\n", custom=True)]  # fmt: skip
    if agent in ("opencode", "kilo"):  # Kilo CLI: OpenCode's fork, with its tools
        edit = {"filePath": billing, "oldString": "x = 1", "newString": "x = float(1)"}
        return [Step("read", {"filePath": api}), Step("read", {"filePath": billing}),
                Step("edit", edit)]  # fmt: skip
    if agent == "pi":
        edits = [{"oldText": "x = 1", "newText": "x = float(1)"}]
        return [Step("read", {"path": api}), Step("read", {"path": billing}),
                Step("edit", {"path": billing, "edits": edits})]  # fmt: skip
    if agent == "qwen":
        return [Step("read_file", {"file_path": api}), Step("read_file", {"file_path": billing}),
                Step("edit", {"file_path": billing, **EDIT_CLAUDE})]  # fmt: skip
    if agent == "droid":  # the API file through its shell, as for Claude Code
        run = {"summary": "Show the API routes", "riskLevel": "low", "riskLevelReason": "reads"}
        return [Step("Execute", {"command": "cat api/routes.py", **run}),
                Step("Read", {"file_path": billing}),
                Step("Edit", {"file_path": billing, **EDIT_COPILOT})]  # fmt: skip
    if agent == "gemini":
        return [Step("read_file", {"file_path": "api/routes.py"}),
                Step("read_file", {"file_path": "billing/charge.py"}),
                Step("replace", {"file_path": "billing/charge.py", **EDIT_CLAUDE,
                                 "instruction": "use a float"})]  # fmt: skip
    return [Step("view", {"path": api}), Step("view", {"path": billing}),
            Step("edit", {"path": billing, **EDIT_COPILOT})]  # fmt: skip


# the agents that meet the whole of assert_outcome (Cline stops the task to enforce a rule:
# test_a_cline_task; `droid exec` runs no prompt hook: test_a_droid_session)
AGENTS = [a for a in AGENT_NAMES if a not in ("cline", "droid")]


@pytest.mark.parametrize("scopes", [("project",), ("project", "user")])
def test_a_droid_session(scopes: tuple[str, ...], project: Path, agent_home: Path) -> None:
    """Factory Droid (`droid exec`, a custom model): the three calls of the module
    docstring, its hooks installed for the project, or for the user as well (Droid runs
    both: one digest, one capture). Its before-tool hook cannot add context
    (gitmem.agent.droid): the API decision comes with the shell command's result, once.
    `droid exec` runs no prompt hook: the prompt is read from its transcript by the first
    tool call's hook and captured, once."""
    with FakeModel(edit_session("droid", project)) as model:
        command, env = launch("droid", project, agent_home, model)
        if "user" in scopes:
            gitmem(project, env, "install", "droid", "--scope", "user")
        run_agent(command(PROMPT), project, env)
    assert_outcome(project, model)
    assert captured(project).count(PROMPT) == 1
    assert_recorded_once(project)
    results = [r.text() for r in model.conversation]
    assert API_TITLE in results[1] and API_TITLE not in results[0], results[1][-2000:]
    doctor = gitmem(project, env, "doctor", "--no-model")
    assert "droid hooks" in doctor and "!!  droid" not in doctor, doctor


def test_a_droid_prompt_brings_its_decisions(project: Path, agent_home: Path) -> None:
    """`droid exec` runs no prompt hook: a prompt that names a governed path brings its
    decision with the turn's first tool result (read from Droid's transcript), once; a
    turn that calls no tool is captured by its Stop hook."""
    billing = str(project / "billing/charge.py")
    with FakeModel([Step("Read", {"file_path": billing})]) as model:
        command, env = launch("droid", project, agent_home, model)
        run_agent(command("Add pagination to api/routes.py"), project, env)
        run_agent(command(PROMPT), project, env)  # no tool left to call
    first = [r for r in model.conversation if "Add pagination" in r.text()]
    final = first[-1].text()
    assert final.count(API_TITLE) == 1 and API_TITLE not in first[0].text(), final[-3000:]
    assert final.count(MONEY_TITLE) == 1, final[-3000:]
    log = captured(project)
    assert log.count("Add pagination to api/routes.py") == 1 and log.count(PROMPT) == 1, log
    assert_no_hook_errors(project)


@pytest.mark.parametrize("agent", [*AGENTS, "kilo"])
def test_an_edit_session(agent: str, project: Path, agent_home: Path) -> None:
    """The three calls of the module docstring. Gemini CLI sends PreCompress before every
    turn: the digest must not come back with the billing read (it did, before
    gemini.compressed)."""
    with FakeModel(edit_session(agent, project)) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command(PROMPT), project, env)
    assert_outcome(project, model)
    # each session under the name of the agent it ran in: Kilo CLI's were OpenCode's
    # before session 65
    r = discover(project)
    refs = git(project, "for-each-ref", "--format=%(refname)", "refs/gitmem/sessions/").split()
    assert {x.get("agent") for ref in refs for x in capture.records(r, ref)} == {agent}


@pytest.mark.parametrize("agent", ["opencode", "copilot"])
def test_a_patch_of_a_gpt_model(agent: str, project: Path, agent_home: Path) -> None:
    """On GPT models, OpenCode and Copilot CLI give the model `apply_patch` in place of
    their edit and write tools (OpenCode's takes `patchText`; Copilot CLI's is a freeform
    tool, as Codex's). The patch is read as Codex's is, so the critical rule denies it
    and the model hears why. Before session 42 no patch of OpenCode's met a decision or a
    rule: the float went into billing/charge.py unchecked."""
    patch = "*** Begin Patch\n*** Update File: billing/charge.py\n@@\n-x = 1\n+x = float(1)\n"
    patch += "*** End Patch\n"
    step = (Step("apply_patch", {"patchText": patch}) if agent == "opencode"
            else Step("apply_patch", patch, custom=True))  # fmt: skip
    with FakeModel([step]) as model:
        command, env = launch(agent, project, agent_home, model)
        if agent == "opencode":
            config = Path(env["OPENCODE_CONFIG"])
            settings = json.loads(config.read_text())
            base = settings["provider"]["anthropic"]["options"]["baseURL"]
            settings.update(model="openai/gpt-5.5", provider={"openai": {"options": {
                "baseURL": base, "apiKey": "test"}}})  # fmt: skip
            config.write_text(json.dumps(settings))
        else:
            env.update(COPILOT_PROVIDER_TYPE="openai", COPILOT_PROVIDER_WIRE_API="responses",
                       COPILOT_PROVIDER_BASE_URL=f"{model.url}/v1", COPILOT_MODEL="gpt-5.5")  # fmt: skip
        run_agent(command(PROMPT), project, env)
    assert model.steps_taken == 1, [r.path for r in model.requests]
    assert all(r.path.endswith("/responses") for r in model.requests)
    assert_no_hook_errors(project)
    assert (project / "billing/charge.py").read_text() == CHARGE
    final = model.conversation[-1].text()
    assert DENIED in final and "forbids this change to billing/charge.py" in final, final[-3000:]


# A decision an agent records itself, with a colon in its unquoted title: invalid YAML.
NEW_RECORD = ".continuity/decisions/0009-queue.md"
NEW_RECORD_TEXT = "---\ntitle: Webhooks: always queued\nstatus: accepted\n---\nQueue them.\n"


def write_record(agent: str, root: Path) -> Step:
    """Write NEW_RECORD with each agent's own file-writing tool."""
    path, text = str(root / NEW_RECORD), NEW_RECORD_TEXT
    if agent == "claude":
        return Step("Write", {"file_path": path, "content": text})
    if agent == "codex":
        added = "".join(f"+{line}\n" for line in text.splitlines())
        patch = f"*** Begin Patch\n*** Add File: {NEW_RECORD}\n{added}*** End Patch\n"
        return Step("apply_patch", patch, custom=True)
    if agent in ("gemini", "qwen"):
        return Step("write_file", {"file_path": path, "content": text})
    if agent == "opencode":
        return Step("write", {"filePath": path, "content": text})
    if agent == "pi":
        return Step("write", {"path": path, "content": text})
    if agent == "cline":  # its editor creates a file given no old text
        return Step("editor", {"path": path, "new_text": text})
    if agent == "droid":
        return Step("Create", {"file_path": path, "content": text})
    return Step("create", {"path": path, "file_text": text})


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_record_the_agent_writes_with_an_error(
    agent: str, project: Path, agent_home: Path
) -> None:
    """Asked to record a decision, the agent writes the record file itself. Its YAML does
    not parse, so the record would be left out of every later session without a word: the
    hook after the write tells the model, with file, line and key, in the same turn."""
    steps = [write_record(agent, project)]
    if agent == "cline":  # a Cline task ends with this tool
        steps.append(
            Step("submit_and_exit", {"summary": "Recorded the decision", "verified": True})
        )
    with FakeModel(steps) as model:
        command, env = launch(agent, project, agent_home, model, tools="Read Edit Bash Write")
        run_agent(command("Record that webhooks are always queued"), project, env)
    assert model.steps_taken == len(steps)
    assert (project / NEW_RECORD).read_text() == NEW_RECORD_TEXT
    final = model.conversation[-1].text()
    assert "The decision record just edited has errors" in final, final[-3000:]
    assert f"{NEW_RECORD}:2: front-matter: invalid YAML" in final, final[-3000:]
    assert_no_hook_errors(project)
    # the session's ref says what it edited, whether the agent ends sessions (Codex does
    # not) or not: `gitmem why` and `gitmem sessions --edited` read it from there
    assert [s["files_edited"] for s in edited_sessions(project, env)] == [[NEW_RECORD]]


MONEY_RECORD = ".continuity/decisions/0001-money.md"


def loosen_record(agent: str, root: Path) -> list[Step]:
    """Read the money record, then lower its severity, with each agent's own tools."""
    path = str(root / MONEY_RECORD)
    old, new = "severity: critical", "severity: info"
    if agent == "claude":
        return [Step("Read", {"file_path": path}),
                Step("Edit", {"file_path": path, "old_string": old, "new_string": new})]  # fmt: skip
    if agent == "codex":
        patch = f"*** Begin Patch\n*** Update File: {MONEY_RECORD}\n@@\n-{old}\n+{new}\n*** End Patch\n"
        return [Step("exec_command", {"cmd": f"cat {MONEY_RECORD}"}),
                Step("apply_patch", patch, custom=True)]  # fmt: skip
    if agent == "opencode":
        return [Step("read", {"filePath": path}),
                Step("edit", {"filePath": path, "oldString": old, "newString": new})]  # fmt: skip
    if agent == "qwen":
        return [Step("read_file", {"file_path": path}),
                Step("edit", {"file_path": path, "old_string": old, "new_string": new})]  # fmt: skip
    if agent == "pi":
        return [Step("read", {"path": path}),
                Step("edit", {"path": path, "edits": [{"oldText": old, "newText": new}]})]  # fmt: skip
    if agent == "droid":
        return [Step("Read", {"file_path": path}),
                Step("Edit", {"file_path": path, "old_str": old, "new_str": new})]  # fmt: skip
    if agent == "gemini":
        return [Step("read_file", {"file_path": MONEY_RECORD}),
                Step("replace", {"file_path": MONEY_RECORD, "old_string": old, "new_string": new,
                                 "instruction": "lower the severity"})]  # fmt: skip
    if agent == "cline":
        return [Step("read_file", {"path": path}),
                Step("editor", {"path": path, "old_text": old, "new_text": new}),
                Step("submit_and_exit", {"summary": "Lowered it", "verified": True})]  # fmt: skip
    return [Step("view", {"path": path}),
            Step("edit", {"path": path, "old_str": old, "new_str": new})]  # fmt: skip


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_an_edit_that_loosens_a_critical_decision(
    agent: str, project: Path, agent_home: Path
) -> None:
    """Since session 50: an agent that lowers a critical decision's severity (the way
    past its rule that no rule checks) is told, after its edit, that the decision is the
    team's; Claude Code, Codex, Gemini CLI and Qwen Code show the user a systemMessage,
    which each takes after a tool call without an error."""
    steps = loosen_record(agent, project)
    with FakeModel(steps) as model:
        command, env = launch(agent, project, agent_home, model, tools="Read Edit Bash Write")
        run_agent(command("Make the money rule less strict"), project, env)
    assert model.steps_taken == len(steps)
    assert "severity: info" in (project / MONEY_RECORD).read_text()
    final = model.conversation[-1].text()
    assert "This edit loosens a critical project decision as committed: D-0001" in final, final[-3000:]
    assert "severity critical → info" in final
    assert_no_hook_errors(project)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_command_that_deletes_a_critical_decision(
    agent: str, project: Path, agent_home: Path
) -> None:
    """Since session 51: a shell command that deletes a critical decision's record (the
    other way past its rule) is said after it runs, as an edit that loosens one is."""
    with FakeModel([shell_step(agent, f"rm {MONEY_RECORD}")]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Get the money rule out of the way"), project, env)
    assert model.steps_taken == 1
    assert not (project / MONEY_RECORD).exists()
    final = model.conversation[-1].text()
    assert "This edit loosens a critical project decision as committed: D-0001" in final, final[-3000:]
    assert "the record removed" in final
    assert_no_hook_errors(project)


def edited_sessions(
    project: Path, env: dict[str, str], path: str = ".continuity"
) -> list[dict[str, object]]:
    """`gitmem sessions --edited PATH --json`, once it lists a session (the capture is
    flushed by a background process) or after 20 s."""
    deadline = time.monotonic() + 20
    while True:
        found = json.loads(gitmem(project, env, "sessions", "--edited", path, "--json"))
        if found or time.monotonic() > deadline:
            return list(found)
        time.sleep(0.2)


SHELL_EDIT = "echo 'VERSION = 2' >> api/routes.py && cat billing/charge.py"


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_a_file_the_agent_changes_with_a_shell_command(
    agent: str, project: Path, agent_home: Path
) -> None:
    """The agent appends to a file through its shell tool: the session's ref lists it as
    edited (and the file it only read, not), so `gitmem why` names the session."""
    if agent == "claude":
        step = Step("Bash", {"command": SHELL_EDIT, "description": "bump"})
    else:
        step = Step("exec_command", {"cmd": SHELL_EDIT})
    with FakeModel([step]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Bump the API version"), project, env)
    assert model.steps_taken == 1
    assert (project / "api/routes.py").read_text().endswith("VERSION = 2\n")
    assert_no_hook_errors(project)
    (session,) = edited_sessions(project, env, "api/routes.py")
    assert session["files_edited"] == ["api/routes.py"]


def client_written_by_the_session(project: Path, env: dict[str, str]) -> list[str]:
    """The files the one session that edited api/client.py edited, once the script that
    writes it (``CLIENT = 1``) ran and no hook logged an error."""
    assert (project / "api/client.py").read_text() == "CLIENT = 1\n"
    assert_no_hook_errors(project)
    (session,) = edited_sessions(project, env, "api/client.py")
    return list(session["files_edited"])


def shell_step(agent: str, command: str) -> Step:
    """``command`` run through the agent's own shell tool."""
    if agent == "codex":
        return Step("exec_command", {"cmd": command})
    if agent == "droid":
        return Step("Execute", {"command": command, "summary": "Run the generator script",
                                "riskLevel": "low", "riskLevelReason": "writes files"})  # fmt: skip
    name = {"claude": "Bash", "gemini": "run_shell_command", "qwen": "run_shell_command"}
    return Step(name.get(agent, "bash"), {"command": command, "description": "generate"})


@pytest.mark.parametrize("exit_code", [0, 3])
@pytest.mark.parametrize("agent", AGENTS)
def test_a_file_a_script_the_agent_runs_writes(
    agent: str, exit_code: int, project: Path, agent_home: Path
) -> None:
    """The agent runs a script that writes a file its command does not name: the turn's
    end counts it (gitmem.agent.shelleffects), so `gitmem why` names the session. Each
    agent's shell tool, marked by its before- and after-tool hooks. Also when the script
    then fails (a generator stopped by an error, a test run that writes a report): Claude
    Code and Qwen Code run PostToolUseFailure, not PostToolUse, after a command that exits
    non-zero, and until session 37 its file went uncounted."""
    (project / "scripts").mkdir()
    script = f"echo 'CLIENT = 1' > api/client.py\nexit {exit_code}\n"
    (project / "scripts" / "gen.sh").write_text(script)
    with FakeModel([shell_step(agent, "sh scripts/gen.sh")]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Regenerate the API client"), project, env)
    assert model.steps_taken == 1
    assert client_written_by_the_session(project, env) == ["api/client.py"]


@pytest.mark.parametrize("agent", ["claude", "qwen", "gemini", "codex"])
def test_a_file_a_command_left_running_in_the_background_writes(
    agent: str, project: Path, agent_home: Path
) -> None:
    """Claude Code's Bash call returns at once with ``run_in_background`` (and for a
    command moved to the background at its timeout or by Ctrl+B), as Qwen Code's and
    Gemini CLI's do with ``is_background``, and the command writes later: before session
    38 its span ended with the call, and a file the script wrote a second on, while the
    agent still worked, was no edit of the session's. Codex's ``exec_command`` returns
    after its wait (``yield_time_ms``) with the command still running, and runs no
    after-tool hook for it: its span was left out. Each now runs to the turn's end. The
    model takes 3 s over its next step (a read; Codex's an edit of another file)."""
    (project / "scripts").mkdir()
    (project / "scripts" / "gen.sh").write_text("echo 'CLIENT = 1' > api/client.py\n")
    run = {"command": "sleep 1 && sh scripts/gen.sh", "description": "generate"}
    readme = {"file_path": str(project / "docs" / "readme.md")}
    steps = {
        "claude": [Step("Bash", {**run, "run_in_background": True}), Step("Read", readme)],
        "qwen": [Step("run_shell_command", {**run, "is_background": True}),
                 Step("read_file", readme)],
        "gemini": [Step("run_shell_command", {**run, "is_background": True}),
                   Step("read_file", {"file_path": "docs/readme.md"})],
        "codex": [Step("exec_command", {"cmd": run["command"], "yield_time_ms": 250}),
                  Step("apply_patch", "*** Begin Patch\n*** Add File: docs/notes.md\n+notes\n"
                       "*** End Patch\n", custom=True)],
    }[agent]  # fmt: skip
    with FakeModel(steps, think_s=3.0) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Regenerate the API client"), project, env)
    assert model.steps_taken == 2
    assert "api/client.py" in client_written_by_the_session(project, env)


@pytest.mark.parametrize("exit_code", [0, 3])
def test_an_older_claude_code_keeps_its_hooks(
    exit_code: int, project: Path, agent_home: Path
) -> None:
    """Claude Code 2.1.77 skips a whole settings file that names an event it does not know
    (PostToolUseFailure, StopFailure: tried, and no hook of gitmem's ran), so `install`
    leaves those out for it, says so, and every other hook runs. Without them, a command
    that fails ends with no hook (2.1.77 sends no PostToolUse then): since session 38 its
    span runs to the turn's end, so what it wrote still counts. Pinned in
    tests/agents/claude-2.1.77 (.ci/run installs it; GITMEM_OLD_CLAUDE names it)."""
    old = os.environ.get("GITMEM_OLD_CLAUDE", "")
    if not os.path.isfile(old):
        if os.environ.get("GITMEM_REQUIRE_AGENTS") == "1":
            pytest.fail("GITMEM_REQUIRE_AGENTS=1 but GITMEM_OLD_CLAUDE names no Claude Code")
        pytest.skip("GITMEM_OLD_CLAUDE is not set (README: Development)")
    (project / "scripts").mkdir()
    script = f"echo 'CLIENT = 1' > api/client.py\nexit {exit_code}\n"
    (project / "scripts" / "gen.sh").write_text(script)
    with FakeModel([shell_step("claude", "sh scripts/gen.sh")]) as model:
        command, env = offline("claude", old, agent_home, project, model.url, agent_env(agent_home),
                               claude_tools="Read Edit Bash")  # fmt: skip
        said = gitmem(project, {**env, "GITMEM_CLAUDE": old}, "install", "claude")
        assert "left out (Claude Code 2.1.77;" in said
        run_agent(command("Regenerate the API client"), project, env)
    assert model.steps_taken == 1
    assert_no_hook_errors(project)
    (session,) = edited_sessions(project, env, "api/client.py")
    assert session["files_edited"] == ["api/client.py"]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "qwen", "droid", "pi"])
def test_a_script_that_breaks_a_critical_rule_sends_the_agent_back(
    agent: str, project: Path, agent_home: Path
) -> None:
    """The script the agent runs writes `float(` into billing/, which the critical money
    decision's rule forbids: the turn's end sends the agent back to work with the reason
    (the agent's next request carries it), once."""
    (project / "scripts").mkdir()
    (project / "scripts" / "gen.sh").write_text("echo 'amount = float(total)' > billing/gen.py\n")
    with FakeModel([shell_step(agent, "sh scripts/gen.sh")]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Regenerate the billing code"), project, env)
    assert_no_hook_errors(project)
    told = [r for r in model.conversation if "breaks a critical project decision" in r.text()]
    assert told, [r.text()[-500:] for r in model.conversation]
    assert "billing/gen.py" in told[0].text() and "amounts are integer cents" in told[0].text()
    # sent back once: the stop after it (stop_hook_active) lets the turn end
    assert len(model.conversation) - model.conversation.index(told[0]) == 1


@pytest.mark.parametrize("agent", AGENTS)
def test_a_command_that_breaks_a_critical_rule_in_a_file_it_names(
    agent: str, project: Path, agent_home: Path
) -> None:
    """The agent appends `float(` to billing/charge.py with `tee -a` through its shell
    tool, naming the file, in a text the shell expands (which the before-tool hook cannot
    read): the after-tool hook tells the model at once (its next request carries the
    reason). Before session 41 no hook read what such a command wrote."""
    command_text = 'T=total; echo "amount = float($T)" | tee -a billing/charge.py > /dev/null'
    with FakeModel([shell_step(agent, command_text)]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Make the amount a float"), project, env)
    assert model.steps_taken == 1
    assert_no_hook_errors(project)
    assert "float(total)" in (project / "billing/charge.py").read_text()
    told = [r for r in model.conversation if "The command just run wrote a file" in r.text()]
    assert told, [r.text()[-500:] for r in model.conversation]
    assert "billing/charge.py" in told[0].text() and "amounts are integer cents" in told[0].text()


@pytest.mark.parametrize("agent", AGENTS)
def test_a_heredoc_that_breaks_a_critical_rule_is_denied(
    agent: str, project: Path, agent_home: Path
) -> None:
    """The agent writes billing/gen.py with a heredoc through its shell tool, `float(` in
    it: the before-tool hook reads the heredoc's body as a Write's content and denies the
    command, so the file is never written, and the model hears why."""
    heredoc = "cat > billing/gen.py <<'EOF'\namount = float(total)\nEOF"
    with FakeModel([shell_step(agent, heredoc)]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Write the billing generator"), project, env)
    assert_no_hook_errors(project)
    assert not (project / "billing/gen.py").exists()
    told = [r for r in model.conversation if "forbids this change to billing/gen.py" in r.text()]
    assert told, [r.text()[-500:] for r in model.conversation]


SHELL_EDITS = {
    "sed": "sed -i 's/^x = 1$/x = float(1)/' billing/charge.py",
    "git-apply": "git apply <<'EOF'\n--- a/billing/charge.py\n+++ b/billing/charge.py\n"
    "@@ -1 +1 @@\n-x = 1\n+x = float(1)\nEOF",
    # since session 43: a diff in a file, and a command after a here-document's apostrophe
    "patch-file": "patch -p1 < fix.patch",
    "copy": "cp charge.new billing/charge.py",
    "bash-c": "bash -c \"sed -i 's/^x = 1$/x = float(1)/' billing/charge.py\"",
    "after-a-note": "cat > NOTES.md <<'EOF'\nDon't use floats.\nEOF\n"
    "sed -i 's/^x = 1$/x = float(1)/' billing/charge.py",
    # since session 44: a sed given its files by another command
    "xargs": "grep -rl 'x = 1' billing | xargs sed -i 's/^x = 1$/x = float(1)/'",
    "find-exec": "find billing -name '*.py' -exec sed -i 's/^x = 1$/x = float(1)/' {} +",
    "perl": "perl -pi -e 's/^x = 1$/x = float(1)/' billing/charge.py",
    # since session 45: perl given its files, through a filter of the listing
    "xargs-filtered-perl": "grep -rl 'x = 1' . | grep -v docs/ | sort"
    " | xargs perl -pi -e 's/^x = 1$/x = float(1)/'",
    # since session 48: an echo after a cd
    "cd-echo": "cd billing && echo 'amount = float(total)' >> charge.py 2>&1",
}
FIX_PATCH = "--- a/billing/charge.py\n+++ b/billing/charge.py\n@@ -1 +1 @@\n-x = 1\n+x = float(1)\n"


@pytest.mark.parametrize("how", sorted(SHELL_EDITS))
@pytest.mark.parametrize("agent", AGENTS)
def test_a_shell_edit_that_breaks_a_critical_rule_is_denied(
    agent: str, how: str, project: Path, agent_home: Path
) -> None:
    """The agent edits billing/charge.py through its shell tool, making an amount a
    float, with `sed -i` (run on a copy by the before-tool hook, `sed --sandbox`) or a
    diff given to `git apply` in a heredoc (its added lines read): the command is denied,
    so the file is never changed, and the model hears why. Before session 42 only the
    after-tool hook read either, once the file was written; before session 43, a diff in
    a file (`patch -p1 < fix.patch`), a file copied over it, a `sed -i` in a string given
    to `bash -c`, or one after a here-document with an apostrophe in it; before session 44,
    a `sed -i` given its files by `grep -rl … | xargs` or `find … -exec`, or `perl -pi`;
    before session 45, a `perl -pi` given its files, or a listing through a filter; before
    session 48, an `echo` into a file after a `cd`."""
    charge = (project / "billing/charge.py").read_text()
    (project / "fix.patch").write_text(FIX_PATCH)
    (project / "charge.new").write_text("x = float(1)\n")
    edit = SHELL_EDITS[how]
    with FakeModel([shell_step(agent, edit)]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Make the amount a float"), project, env)
    assert_no_hook_errors(project)
    assert (project / "billing/charge.py").read_text() == charge
    told = [r for r in model.conversation if "forbids this change to billing/charge.py" in r.text()]
    assert told, [r.text()[-500:] for r in model.conversation]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_commit_that_skips_the_hooks_is_denied(
    agent: str, project: Path, agent_home: Path
) -> None:
    """A change that breaks the money rule is staged (the user's, or an agent's from
    before gitmem); the agent commits it with `--no-verify`, as agents do when a hook
    refuses a commit. Since session 43 the before-tool hook reads what that commit would
    commit: the command is denied, no commit is made, and the model hears why."""
    (project / "billing/charge.py").write_text("x = float(1)\n")
    git(project, "add", "billing/charge.py")
    head = git(project, "rev-parse", "HEAD")
    with FakeModel([shell_step(agent, "git commit --no-verify -m 'Make the amount a float'")]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Commit the staged change"), project, env)
    assert_no_hook_errors(project)
    assert git(project, "rev-parse", "HEAD") == head
    told = [r for r in model.conversation if "skips the repository's hooks" in r.text()]
    assert told, [r.text()[-500:] for r in model.conversation]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "qwen", "droid", "pi"])
def test_a_line_the_user_had_not_committed_is_not_the_scripts(
    agent: str, project: Path, agent_home: Path
) -> None:
    """billing/charge.py holds the user's `float(` line, not committed; the script the
    agent runs appends a compliant line to it: nobody is sent back. Before session 38 the
    turn's end read the file from the last commit and sent the agent to "fix" the user's
    line. The model takes a second to answer, as a real one does: meanwhile the prompt
    hook's background job keeps the file as the turn found it (Droid's, which runs no
    prompt hook: its first tool call's hook, before the call runs)."""
    charge = project / "billing" / "charge.py"
    charge.write_text(charge.read_text() + "debug = float(x)  # mine, not committed\n")
    (project / "scripts").mkdir()
    (project / "scripts" / "fmt.sh").write_text("echo 'cents = 5' >> billing/charge.py\n")
    with FakeModel([shell_step(agent, "sh scripts/fmt.sh")], think_s=2.0) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Tidy the billing code"), project, env)
    assert model.steps_taken == 1
    assert_no_hook_errors(project)
    assert charge.read_text().endswith("debug = float(x)  # mine, not committed\ncents = 5\n")
    told = [r for r in model.conversation if "breaks a critical project decision" in r.text()]
    assert not told, told[0].text()[-500:]


@pytest.mark.parametrize("agent", [*AGENTS, "kilo"])
def test_installed_for_the_project_and_the_user(
    agent: str, project: Path, agent_home: Path
) -> None:
    """gitmem's hooks in both scopes (a team's committed hooks, a user's own): Codex,
    Copilot CLI and OpenCode run both, and did the work twice (a second digest, the prompt
    captured twice, each read recorded twice). Now the outcome is that of one install."""
    with FakeModel(edit_session(agent, project)) as model:
        command, env = launch(agent, project, agent_home, model)
        gitmem(project, env, "install", agent, "--scope", "user")
        if agent == "codex":  # the user's hooks are trusted too
            gitmem(project, env, "install", "codex", "--trust")
        run_agent(command(PROMPT), project, env)
    assert_outcome(project, model)
    assert captured(project).count(PROMPT) == 1
    assert_recorded_once(project)


# The variables that move an agent's user folder (read in each agent's code:
# gitmem.agent.install.Agent.path): the folder under HOME, where in the moved folder it
# goes, and gitmem's file there
MOVED = {"claude": ("CLAUDE_CONFIG_DIR", ".claude", "", "settings.json"),
         "gemini": ("GEMINI_CLI_HOME", ".gemini", ".gemini", "settings.json"),
         "qwen": ("QWEN_HOME", ".qwen", "", "settings.json"),
         "copilot": ("COPILOT_HOME", ".copilot", "", "hooks/gitmem.json"),
         "pi": ("PI_CODING_AGENT_DIR", ".pi/agent", "", "extensions/gitmem.ts")}  # fmt: skip


@pytest.mark.parametrize("agent", sorted(MOVED))
def test_installed_for_a_user_whose_folder_moved(
    agent: str, project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """The agent's user folder moved by its variable (CLAUDE_CONFIG_DIR, ...): `install
    --scope user` writes where the agent reads. It wrote under HOME before, where the agent
    never looked, and the hooks never ran."""
    variable, folder, inside, file = MOVED[agent]
    moved = tmp_path / "moved"
    with FakeModel(edit_session(agent, project)) as model:
        command, env = launch(agent, project, agent_home, model, hooks=False)
        if (agent_home / folder).exists():  # the offline setup's settings move with it
            shutil.copytree(agent_home / folder, moved / inside)
        env[variable] = str(moved)
        gitmem(project, env, "install", agent, "--scope", "user")
        run_agent(command(PROMPT), project, env)
    assert_outcome(project, model)
    assert "gitmem-hook" in (moved / inside / file).read_text()
    under_home = agent_home / folder / file
    assert not under_home.exists() or "gitmem-hook" not in under_home.read_text()


def assert_recorded_once(project: Path) -> None:
    """Each tool result is recorded once in its session's state (the session reads
    different files)."""
    for session in (discover(project).shared_state_dir / "sessions").glob("*.jsonl"):
        records = [json.loads(line) for line in session.read_text().splitlines()]
        reads = [json.dumps(r["paths"]) for r in records if r["k"] == "read"]
        assert len(reads) == len(set(reads)), reads


@pytest.mark.parametrize("agent", AGENTS)
def test_the_prompt_brings_its_decisions(agent: str, project: Path, agent_home: Path) -> None:
    """A prompt that names a governed path: its decision reaches the model with the prompt,
    before any tool call, once."""
    with FakeModel([]) as model:
        command, env = launch(agent, project, agent_home, model)
        run_agent(command("Add pagination to api/routes.py"), project, env)
    final = model.conversation[-1].text()
    assert final.count(API_TITLE) == 1, final[-3000:]
    assert final.count(MONEY_TITLE) == 1, final[-3000:]


@pytest.mark.parametrize("agent", AGENTS)
def test_an_agent_started_in_a_subfolder(agent: str, project: Path, agent_home: Path) -> None:
    """`cd billing && claude`, as a monorepo's developers start an agent in their package,
    with gitmem installed for the project at the root. Codex, Copilot CLI and OpenCode read
    the root's hooks from there. Claude Code, Gemini CLI, Qwen Code and pi read a project's
    settings only in the folder they start in, so none of gitmem's hooks ran, and doctor
    run there said they were installed; now it says they do not run there
    (gitmem.agent.startdir), and hooks installed for the user bring the decisions."""
    sub = project / "billing"
    prompt_text = "Add pagination to api/routes.py"
    with FakeModel([]) as model:
        command, env = launch(agent, project, agent_home, model)
        here = {**env, "PWD": str(sub)}
        run_agent(command(prompt_text), sub, here)
        final = model.conversation[-1].text()
        doctor = gitmem(sub, here, "doctor", "--no-model")
        if agent not in startdir.CWD_ONLY:
            assert final.count(API_TITLE) == 1 and final.count(MONEY_TITLE) == 1, final[-3000:]
            assert f"{agent} started here" not in doctor, doctor
            return
        assert API_TITLE not in final and MONEY_TITLE not in final, final[-3000:]  # no hook ran
        assert f"{agent} started here" in doctor and "reads a project's settings there" in (
            doctor
        ), doctor
        gitmem(project, env, "install", agent, "--scope", "user")
        run_agent(command(prompt_text), sub, here)
        final = model.conversation[-1].text()
        assert final.count(API_TITLE) == 1 and final.count(MONEY_TITLE) == 1, final[-3000:]
        assert f"{agent} started here" not in gitmem(sub, here, "doctor", "--no-model")
    assert_no_hook_errors(project)


def test_exported_rules_reach_claude_code_started_in_a_subfolder(
    project: Path, agent_home: Path
) -> None:
    """Claude Code started below the root reads none of the root's settings, but it does
    read the root's `.claude/rules/`: `gitmem export claude` brings the decisions there
    too (without the hooks' rule checks and capture)."""
    read = edit_session("claude", project)[1]  # the billing read
    sub = project / "billing"
    with FakeModel([read]) as model:
        command, env = launch("claude", project, agent_home, model, hooks=False)
        gitmem(project, env, "export", "claude")
        run_agent(command(PROMPT), sub, {**env, "PWD": str(sub)})
    assert model.conversation[-1].text().count(MONEY_TITLE) == 1


def claude_read_the_routes(project: Path, agent_home: Path) -> tuple[str, str]:
    """A Claude Code session whose model read the API file and was shown its decision
    once: (the file, the session's id)."""
    api = str(project / "api/routes.py")
    sid = str(uuid.uuid4())
    with FakeModel([Step("Read", {"file_path": api})]) as model:
        command, env = launch("claude", project, agent_home, model)
        run_agent([*command("Look at the routes"), "--session-id", sid], project, env)
    assert model.conversation[-1].text().count(API_TITLE) == 1
    return api, sid


def test_a_rewound_claude_session_is_shown_the_decisions_again(
    project: Path, agent_home: Path
) -> None:
    """Claude Code takes a session back to an earlier message (`/rewind`, or `--resume
    ID --resume-session-at MESSAGE` as here): what the hooks showed after it is gone from
    the model's context, under the same session id. Before session 45 gitmem took the API
    decision, shown when the model first read the API file, for shown still, and the
    model read the file again after the rewind without it (gitmem.agent.rewind)."""
    api, sid = claude_read_the_routes(project, agent_home)
    transcript = next(agent_home.rglob(f"{sid}.jsonl"))
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    first = next(e["uuid"] for e in lines if e.get("type") == "user")  # the first prompt
    with FakeModel([Step("Read", {"file_path": api})]) as model:
        command, env = launch("claude", project, agent_home, model)
        again = [*command("Look at the routes once more"), "--resume", sid,
                 "--resume-session-at", first]  # fmt: skip
        run_agent(again, project, env)
    assert_no_hook_errors(project)
    final = model.conversation[-1].text()
    assert "Look at the routes once more" in final
    assert final.count(API_TITLE) == 1, final[-3000:]  # shown again, once
    # resumed as it is, the session has it in its context: not shown a third time
    with FakeModel([Step("Read", {"file_path": api})]) as model:
        command, env = launch("claude", project, agent_home, model)
        run_agent([*command("And the routes again"), "--resume", sid], project, env)
    final = model.conversation[-1].text()
    assert "And the routes again" in final and final.count(API_TITLE) == 1, final[-3000:]


def test_a_forked_claude_session_is_not_shown_its_decisions_again(
    project: Path, agent_home: Path
) -> None:
    """`claude --resume ID --fork-session` goes on from a session's conversation under a
    new id (its first hook is the prompt's: no SessionStart). Before session 51 the model
    read the API file and got the API decision a second time in one context; now what the
    conversation holds counts as shown (gitmem.agent.rewind._seed)."""
    api, sid = claude_read_the_routes(project, agent_home)
    # a model that takes a while to answer, as real ones do: Claude Code writes the fork's
    # copy of the conversation within about a second (here, an instant answer's tool call
    # came before it on a fast machine; see the next test)
    with FakeModel([Step("Read", {"file_path": api})], think_s=2.0) as model:
        command, env = launch("claude", project, agent_home, model)
        run_agent([*command("Look at them again"), "--resume", sid, "--fork-session"], project, env)
    assert_no_hook_errors(project)
    final = model.conversation[-1].text()
    assert "Look at them again" in final and "Look at the routes" in final  # a fork
    assert final.count(API_TITLE) == 1, final[-3000:]
    assert final.count(MONEY_TITLE) == 1, final[-3000:]


def test_a_fork_whose_copy_is_written_after_its_first_tool_call_is_seeded_then(
    project: Path, agent_home: Path
) -> None:
    """Claude Code 2.1.332 writes a fork's transcript lazily: bookkeeping lines (mode,
    tools-used) first, the copied conversation about a second later. A tool call before
    that (an instant answer here) finds no message in it. Before session 55 that first
    look was marked read and the copy was never seeded, so every decision the parent had
    shown came again at its first touch (the money decision at the billing read). Now the
    seed waits for a look that finds messages: only the first read, before the copy,
    cannot know what the conversation holds."""
    api, sid = claude_read_the_routes(project, agent_home)
    billing = str(project / "billing/charge.py")
    steps = [Step("Read", {"file_path": api}), Step("Read", {"file_path": billing})]
    with FakeModel(steps) as model:
        command, env = launch("claude", project, agent_home, model)
        run_agent([*command("Look at them again"), "--resume", sid, "--fork-session"], project, env)
    assert_no_hook_errors(project)
    final = model.conversation[-1].text()
    assert "Look at them again" in final and "Look at the routes" in final  # a fork
    assert final.count(MONEY_TITLE) == 1, final[-3000:]  # the parent's digest, not again
    assert final.count(API_TITLE) in (1, 2), final[-3000:]  # 2: read before the copy


@pytest.mark.parametrize("agent", ["gemini", "qwen", "codex", "pi"])
def test_an_interactive_rewind_shows_the_decisions_again(
    agent: str, project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """Gemini CLI's and Qwen Code's `/rewind`, Codex's backtrack (Esc Esc) and pi's
    `/tree`, in their terminal UIs: the user goes back to before the first prompt, whose
    turn read the API file, and asks again. Before session 46 the model read the file
    again without its decision (gitmem took it for shown); Gemini CLI and Codex also cut
    the session-start digest, so the pinned money decision was gone too
    (gitmem.agent.rewind); pi's, before session 62."""
    api = str(project / "api/routes.py")
    read = (shell_step("codex", f"cat {api}") if agent == "codex"
            else edit_session("pi", project)[0] if agent == "pi"
            else Step("read_file", {"file_path": api}))  # fmt: skip
    with FakeModel([read]) as model:
        command, env = launch(agent, project, agent_home, model)
        argv = [a for a in command(PROMPT) if a not in ("-p", "exec", PROMPT)]
        ready = {"codex": "Ask Codex to do anything", "pi": "Pi can explain"}.get(
            agent, "Type your message"
        )
        if agent == "codex":  # as answered once: Codex's TUI offers a newer model at the
            # first start (0.171.0), a dialog that may come after the composer is drawn
            with (agent_home / ".codex" / "config.toml").open("a") as fh:
                fh.write('[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n')
        with Terminal(argv, project, env, tmp_path) as term:
            term.wait_for(ready)
            term.type("Look at the routes")
            wait_until(lambda: model.steps_taken == 1 and "Done." in term.screen(), term)
            asked = len(model.requests)
            thanked = time.time()
            term.type("Thanks")
            wait_until(lambda: len(model.requests) > asked and term.screen().count("Done.") > 1,
                       term)  # fmt: skip
            if agent in ("qwen", "codex", "pi"):
                # pi is busy until its stop hook has answered (a command typed meanwhile
                # waits in its queue);
                # Qwen Code and Codex run the Stop hooks after they show the answer, and an
                # Esc until the turn is over cancels it instead (Qwen Code: "Request
                # cancelled", a CI run on a loaded machine and 1 of 3 runs here with the CPUs
                # busy; Codex: "Conversation interrupted", a CI run in session 54): wait for
                # gitmem's stop hook of this turn to have ended, and press again if not
                wait_until(lambda: _hook_ended(project, f"{agent}-stop", thanked), term)
            if agent == "pi":  # the session's tree; a user message gone back to is edited
                term.type("/tree")
                term.wait_for("Session Tree")
                term.select("user: Look at the routes", "›")
                term.keys("Enter")
                term.wait_for("Summarize branch?")  # Enter below: "No summary"
            else:
                term.keys("Escape", "Escape")
            if agent == "gemini":
                term.wait_for("Stay at current position")
                term.select("Look at the routes", "●")
                term.keys("Enter")
                term.wait_for("Rewind conversation")
            elif agent == "codex":
                try:
                    term.wait_for("Browsing transcript", timeout=10)
                except AssertionError:  # the Esc came while it still ended the turn
                    assert "Conversation interrupted" in term.screen(), term.screen()
                    term.keys("Escape", "Escape")
                    term.wait_for("Browsing transcript")
                term.select("Look at the routes", None, key="Left")
            elif agent != "pi":
                try:
                    term.wait_for("Rewind Conversation", timeout=10)
                except AssertionError:  # the Esc came while it still worked on the turn
                    assert "Request cancelled" in term.screen(), term.screen()
                    term.keys("Escape", "Escape")
                    term.wait_for("Rewind Conversation")
                term.select("Look at the routes", "›")
                term.keys("Enter")
                term.wait_for("Restore conversation only")
            term.keys("Enter")
            time.sleep(1)
            model.steps.append(read)
            term.keys("C-u")  # the prompt gone back to is given back to edit
            term.type("Look at the routes once more")
            # the request after the read: the prompt, and the file's text in its result
            wait_until(lambda: "once more" in (text := model.conversation[-1].text())
                       and "def routes" in text, term)  # fmt: skip
    assert_no_hook_errors(project)
    final = model.conversation[-1].text()
    assert "Look at the routes once more" in final and "Thanks" not in final, final[-3000:]
    assert final.count(API_TITLE) == 1, final[-3000:]  # shown again, once
    assert final.count(MONEY_TITLE) == 1, final[-3000:]  # the digest's, kept or given back


def test_a_cancelled_gemini_turn_shows_its_decisions_again(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """Esc while Gemini CLI works: 0.61.0 rolls the turn out of the conversation, and
    what the hooks showed in it with it. Before session 46 the model, asked about the API
    file after a cancelled turn had read it, got no decision (gitmem took it for shown)."""
    read = Step("read_file", {"file_path": str(project / "api/routes.py")})
    with FakeModel([read, read], think_s=4) as model:
        command, env = launch("gemini", project, agent_home, model)
        argv = [a for a in command(PROMPT) if a not in ("-p", PROMPT)]
        with Terminal(argv, project, env, tmp_path) as term:
            term.wait_for("Type your message")
            term.type("Look at the routes")
            wait_until(lambda: model.steps_taken == 2, term)  # the model "thinks" on
            term.keys("Escape")
            term.wait_for("Request cancelled")
            wait_until(lambda: "Done." in term.screen(), term)
            ask_about_the_routes(term, model)
    shown_once_each(project, model, gone="Look at the routes")  # rolled back; the digest kept


def test_a_copilot_rewind_shows_the_decisions_again(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """Copilot CLI's `/rewind` (1.0.102, in its terminal UI), back to before the first
    turn, which read the API file, then a question about that file. Before session 47
    the model got neither the API decision (gitmem took it for shown) nor the pinned
    money decision (the digest went with the first turn)."""
    read = Step("view", {"path": str(project / "api/routes.py")})
    with FakeModel([read]) as model:
        command, env = launch("copilot", project, agent_home, model)
        argv = [a for a in command(PROMPT) if a not in ("-p", PROMPT)]
        with Terminal(argv, project, env, tmp_path) as term:
            term.wait_for("/ commands")
            term.type("Look at the routes")
            wait_until(lambda: model.steps_taken == 1 and "Done." in term.screen(), term)
            term.type("/rewind")
            term.wait_for("Rewind to a previous point")
            term.keys("Enter")
            term.wait_for("Conversation only")
            term.keys("Enter")
            term.wait_for("Rewound the conversation")
            term.keys("C-u")  # the prompt gone back to is given back to edit
            ask_about_the_routes(term, model)
    shown_once_each(project, model, gone="Look at the routes")


def test_a_qwen_prompt_cancelled_at_once_shows_its_decisions_again(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """Esc before Qwen Code's model answers: 0.24.4 takes the prompt out of the
    conversation and gives it back to the input; the user sends it again. Before session
    47 the model then got the prompt without the API decision it names (gitmem took it
    for shown when the cancelled prompt's hook showed it)."""
    read = Step("read_file", {"file_path": str(project / "billing/charge.py")})
    with FakeModel([read], think_s=8) as model:
        command, env = launch("qwen", project, agent_home, model)
        argv = [a for a in command(PROMPT) if a not in ("-p", PROMPT)]
        with Terminal(argv, project, env, tmp_path) as term:
            term.wait_for("Type your message")
            term.type("How are the routes in api/routes.py versioned?")
            wait_until(lambda: len(model.requests) == 1, term)  # the model "thinks"
            term.keys("Escape")
            wait_until(lambda: "* How are the routes" in term.screen(), term)  # given back
            term.keys("Enter")
            wait_until(lambda: len(model.requests) > 1 and "Done." in term.screen(), term)
            time.sleep(1)
    assert_no_hook_errors(project)
    final = model.conversation[-1].text()
    assert final.count("How are the routes in api/routes.py") == 1, final[-3000:]  # taken out
    assert final.count(f"{API_TITLE}. Clients send") == 1, final[-3000:]


def test_a_resumed_gemini_chat_shows_what_its_checkpoint_lacks(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """Gemini CLI's `/chat save a`, a turn that reads the API file, `/chat resume a`: the
    conversation is the checkpoint's again. Before session 47 the model, asked about the
    API file, got the money decision twice (once in the checkpoint's first message) and
    the API decision not at all (gitmem took it for shown)."""
    read = Step("read_file", {"file_path": str(project / "api/routes.py")})
    with FakeModel([]) as model:
        command, env = launch("gemini", project, agent_home, model)
        argv = [a for a in command(PROMPT) if a not in ("-p", PROMPT)]
        with Terminal(argv, project, env, tmp_path) as term:
            term.wait_for("Type your message")
            term.type("Hello")
            wait_until(lambda: "Done." in term.screen(), term)
            term.type("/chat save a")
            term.wait_for("checkpoint saved with tag: a")
            model.steps.append(read)
            term.type("Look at the routes")
            wait_until(lambda: model.steps_taken == 1 and term.screen().count("Done.") > 1, term)
            term.type("/chat resume a")
            # the checkpoint's conversation replaces the screen's, the turn that read the
            # file with it. Gemini CLI completes the tag as it is typed, reading the saved
            # tags; on a busy machine that came late and took the Enter (CI rehearsal,
            # session 71: the question was then typed after the command), so Enter again
            for _ in range(3):
                deadline = time.monotonic() + 5
                while "Look at the routes" in term.screen() and time.monotonic() < deadline:
                    time.sleep(0.3)
                if "Look at the routes" not in term.screen():
                    break
                term.keys("Enter")
            assert "Look at the routes" not in term.screen(), term.screen()
            ask_about_the_routes(term, model)
    assert "Hello" in shown_once_each(project, model, gone="Look at the routes")


def test_an_opencode_undo_shows_the_decisions_again(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """OpenCode's `/undo`, in its terminal UI, of a session begun headless (`opencode run`)
    and continued (`opencode -c`): the user takes back the first prompt, whose turn read
    the API file, and asks about that file. Before session 47 the model got neither the
    file's decision (gitmem took it for shown) nor the pinned money decision (the digest
    was part of the message taken back). The plugin that sees the revert never saw the
    message it goes back to: it asks OpenCode's server when that message was created."""
    read = Step("read", {"filePath": str(project / "api/routes.py")})
    with FakeModel([read]) as model:
        command, env = launch("opencode", project, agent_home, model)
        run_agent(command("Look at the routes"), project, env)
        assert model.steps_taken == 1
        with Terminal([command(PROMPT)[0], "-c"], project, env, tmp_path) as term:
            term.wait_for("Look at the routes")
            term.type("/undo")
            term.wait_for("message reverted")
            term.keys("C-u")  # the prompt taken back is given back to edit
            ask_about_the_routes(term, model)
    shown_once_each(project, model, gone="Look at the routes")  # taken back


def ask_about_the_routes(term: Terminal, model: FakeModel) -> None:
    """Ask about the API file, as a user types it, and wait for the model's request."""
    term.type("How are the routes in api/routes.py versioned?")
    wait_until(lambda: "versioned" in model.conversation[-1].text(), term)
    time.sleep(1)  # the turn's last hooks


def shown_once_each(project: Path, model: FakeModel, gone: str) -> str:
    """The last request's text, once sure that no hook failed, that ``gone`` is not in
    it and that the API decision's line and the money decision's are, once each (their
    titles alone may also be in a digest's summary line)."""
    assert_no_hook_errors(project)
    final = model.conversation[-1].text()
    assert gone not in final, final[-3000:]
    assert final.count(f"{API_TITLE}. Clients send") == 1, final[-3000:]
    assert final.count(f"{MONEY_TITLE}. Amounts are") == 1, final[-3000:]
    return final


def _hook_ended(project: Path, name: str, since: float) -> bool:
    """Whether gitmem's ``name`` hook (``AGENT-EVENT``) last ended after ``since``, by its
    status file (gitmem.agent.runner writes it as a hook ends)."""
    try:
        status = json.loads((project / ".git/gitmem/hook-status" / f"{name}.json").read_text())
    except (OSError, ValueError):
        return False
    return float(status.get("time", 0)) > since


def wait_until(done: Callable[[], bool], term: Terminal, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"timed out; the terminal shows:\n{term.screen()}"
        time.sleep(0.3)


def test_qwen_code_runs_the_tool_hooks_for_file_tools_only(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """gitmem's tool matcher as Qwen Code applies it (gitmem.agent.qwen): its tool listing
    subagents starts no hook process, a file read does and is informed. A `gitmem-hook`
    first on the agent's PATH keeps each payload it is given. (Its to-do tool would do,
    but is off by default in 0.24.4.)"""
    real, seen = shutil.which("gitmem-hook"), tmp_path / "payloads"
    assert real is not None
    seen.mkdir()
    wrapper = tmp_path / "wrap" / "gitmem-hook"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\ntee "$(mktemp "{seen}/XXXXXX")" | "{real}" "$@"\n')
    wrapper.chmod(0o755)
    steps = [
        Step("list_agents", {}),
        Step("read_file", {"file_path": str(project / "api/routes.py")}),
    ]
    with FakeModel(steps) as model:
        command, env = launch("qwen", project, agent_home, model)
        env["PATH"] = f"{wrapper.parent}{os.pathsep}{env['PATH']}"
        run_agent(command(PROMPT), project, env)
    assert model.steps_taken == 2
    payloads = [json.loads(f.read_text()) for f in seen.iterdir()]
    tools = sorted(p.get("tool_name", "") for p in payloads if "tool_name" in p)
    assert tools == ["read_file", "read_file"], tools  # before and after the read
    assert any(p.get("hook_event_name") == "SessionStart" for p in payloads)
    assert model.conversation[-1].text().count(API_TITLE) == 1


@pytest.mark.parametrize("scopes", [("project",), ("project", "user")])
def test_a_cline_task(scopes: tuple[str, ...], project: Path, agent_home: Path) -> None:
    """Cline CLI (gitmem.agent.cline): its start hook's answer is not read, so the digest
    comes with the first tool result, as the API decision does; a tool's context reaches
    the model with the next request. A critical rule cancels, which stops the whole task:
    the model is not asked again, the file is unchanged, and Cline logs the reason. The
    task's prompt, which no hook is given, is captured all the same. With gitmem's
    scripts in both scopes, Cline runs both; the outcome is the same."""
    api, billing = str(project / "api/routes.py"), str(project / "billing/charge.py")
    edit = {"path": billing, "old_text": "x = 1", "new_text": "x = float(1)"}
    steps = [Step("read_files", {"files": [{"path": api}]}),
             Step("read_files", {"files": [{"path": billing}]}), Step("editor", edit),
             Step("submit_and_exit", {"summary": "Tidied the code up", "verified": True})]  # fmt: skip
    with FakeModel(steps) as model:
        command, env = launch("cline", project, agent_home, model)
        for scope in scopes[1:]:
            gitmem(project, env, "install", "cline", "--scope", scope)
        run_agent(command(PROMPT), project, env)
    assert model.steps_taken == 3, [r.path for r in model.requests]  # stopped at the edit
    first, final = model.conversation[1].text(), model.conversation[-1].text()
    assert MONEY_TITLE in first and API_TITLE in first  # with the first read's result
    assert final.count(MONEY_TITLE) == 1 and final.count(API_TITLE) == 1, final[-4000:]
    assert (project / "billing/charge.py").read_text() == CHARGE
    log = (agent_home / ".cline/data/logs/cline.log").read_text()
    assert DENIED in log and "ControlledStopError" in log
    assert_no_hook_errors(project)
    assert_recorded_once(project)
    assert captured(project).count(PROMPT) == 1


def without_gitmem(path: str) -> str:
    """``path`` without the folders that hold gitmem's programs."""
    return os.pathsep.join(
        folder
        for folder in path.split(os.pathsep)
        if not any(os.path.exists(os.path.join(folder, p)) for p in ("gitmem-hook", "gitmem"))
    )


# what each agent prints for a hook that failed, or a call a hook's failure stopped (seen
# before the hooks were guarded: gitmem.agent.install.GUARD)
HOOK_FAILED = (
    "gitmem-hook: not found",
    "command not found",
    "errored",
    "Failed",
    "blocked",
    "Hook(s) [",
)


@pytest.mark.parametrize("agent", [*AGENTS, "droid", "kilo"])
def test_gitmem_not_installed(agent: str, project: Path, agent_home: Path) -> None:
    """A teammate's machine: the project's hooks are committed, and gitmem is not on the
    agent's PATH. Before the hooks were guarded, Gemini CLI blocked the prompt (no call
    made), Copilot CLI denied every tool call, and the others reported a failed hook on
    every event. Now each agent does the whole task (nothing enforces the rule, so the
    edit lands), reports no failure, and the model hears once that gitmem did not run.
    (Cline: test_a_cline_task_without_gitmem.)"""
    with FakeModel(edit_session(agent, project)) as model:
        command, env = launch(agent, project, agent_home, model)
        env["PATH"] = without_gitmem(env["PATH"])
        proc = run_agent(command(PROMPT), project, env)
    assert model.steps_taken == len(model.steps), [r.path for r in model.requests]
    final = model.conversation[-1].text()
    assert final.count(install.MISSING_NOTE) == 1, final[-4000:]
    assert MONEY_TITLE not in final
    assert (project / "billing/charge.py").read_text() != CHARGE
    said = proc.stdout + proc.stderr
    assert not [f for f in HOOK_FAILED if f in said], said[-3000:]


def test_a_cline_task_without_gitmem(project: Path, agent_home: Path) -> None:
    """Cline's scripts always answered for a missing gitmem, but until session 31 the model
    never heard that gitmem did not run (its start hook's answer is not read): now the
    first tool result says so, once, and the task goes on to its end."""
    billing = str(project / "billing/charge.py")
    edit = {"path": billing, "old_text": "x = 1", "new_text": "x = float(1)"}
    steps = [Step("read_files", {"files": [{"path": str(project / "api/routes.py")}]}),
             Step("read_files", {"files": [{"path": billing}]}), Step("editor", edit),
             Step("submit_and_exit", {"summary": "Tidied the code up", "verified": True})]  # fmt: skip
    with FakeModel(steps) as model:
        command, env = launch("cline", project, agent_home, model)
        env["PATH"] = without_gitmem(env["PATH"])
        proc = run_agent(command(PROMPT), project, env)
    assert model.steps_taken == len(steps), [r.path for r in model.requests]
    assert install.MISSING_NOTE in model.conversation[1].text()  # with the first result
    final = model.conversation[-1].text()
    assert final.count(install.MISSING_NOTE) == 1 and MONEY_TITLE not in final, final[-4000:]
    assert (project / "billing/charge.py").read_text() != CHARGE
    said = proc.stdout + proc.stderr
    assert not [f for f in HOOK_FAILED if f in said], said[-3000:]


SPAWN = {  # each agent's tool that starts a subagent, and its arguments
    "claude": ("Agent", {"description": "Check billing", "subagent_type": "general-purpose"}),
    "qwen": ("agent", {"description": "Check billing", "subagent_type": "general-purpose"}),
    "copilot": ("task", {"description": "Check", "agent_type": "general-purpose", "name": "c"}),
    "gemini": ("invoke_agent", {"agent_name": "generalist"}),
}


@pytest.mark.parametrize("agent", list(SPAWN))
def test_a_subagent_gets_the_decisions(agent: str, project: Path, agent_home: Path) -> None:
    """A subagent starts with none of the main agent's context: the decision governing
    the file it reads must reach it although the main agent was shown it already (the
    digest). Claude Code and Qwen Code mark its tool calls with `agent_id`; Copilot CLI
    runs it as a session of its own; Gemini CLI's `invoke_agent` hooks bracket its calls. Neither its task nor its report (Claude Code hands
    the main agent a `<task-notification>` prompt) is captured as the user's prompt."""
    task = "Read billing/charge.py and report (subtask-7)"
    tool, args = SPAWN[agent]
    spawn = Step(tool, {**args, "prompt": task})
    billing = str(project / "billing/charge.py")
    read = {"claude": Step("Read", {"file_path": billing}),
            "qwen": Step("read_file", {"file_path": billing}),
            "copilot": Step("view", {"path": billing}),
            "gemini": Step("read_file", {"file_path": "billing/charge.py"})}[agent]  # fmt: skip
    with FakeModel([spawn], threads={"subtask-7": [read]}) as model:
        tools = "Read Agent"  # Claude Code's: its subagent tool allowed
        command, env = launch(agent, project, agent_home, model, tools=tools)
        run_agent(command(PROMPT), project, env)
    sub = model.thread("subtask-7")
    assert len(sub) >= 2, [r.path for r in model.requests]
    assert MONEY_TITLE in sub[1].text()  # after its read of billing/, at the latest
    assert model.conversation[0].text().count(MONEY_TITLE) == 1
    refs = git(project, "for-each-ref", "--format=%(refname)", "refs/gitmem/").split()
    log = "".join(git(project, "log", "--format=%B", ref) for ref in refs)
    assert "<task-notification>" not in log and "subtask-7" not in log


@pytest.mark.parametrize("agent", ["claude", "copilot"])
def test_the_exported_rules_reach_the_agent(agent: str, project: Path, agent_home: Path) -> None:
    """`gitmem export claude|copilot`, no hooks: the agent itself attaches the rule file
    once the work reaches a governed path, and not before. Copilot CLI also attaches
    Claude Code's rule file, so with both exports it reads the decision twice (export_cmd
    says so)."""
    read = edit_session(agent, project)[1]  # the billing read
    with FakeModel([read]) as model:
        command, env = launch(agent, project, agent_home, model, hooks=False)
        gitmem(project, env, "export", *(["claude", "copilot"] if agent == "copilot" else [agent]))
        run_agent(command(PROMPT), project, env)
    first, final = model.conversation[0].text(), model.conversation[-1].text()
    assert MONEY_TITLE not in first
    assert final.count(MONEY_TITLE) == (2 if agent == "copilot" else 1), final[-3000:]


ROUTE_TITLE = "Blog posts render statically"


@pytest.mark.parametrize("agent", ["claude", "copilot"])
def test_an_exported_rule_for_a_route_folder(agent: str, project: Path, agent_home: Path) -> None:
    """A decision for `app/blog/[slug]/**` (a Next.js route folder), exported: the agent
    reads the route's page and attaches the rule file. The agents read `[slug]` in a glob
    as a set of characters, as gitignore does, so the rule file must name the folder too."""
    decision(project, "0007-static.md", ROUTE_TITLE, globs=["app/blog/[slug]/**"])
    page = project / "app/blog/[slug]/page.tsx"
    write(project, "app/blog/[slug]/page.tsx", "export default function Page() {}\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "a route")
    read = (Step("Read", {"file_path": str(page)}) if agent == "claude"
            else Step("view", {"path": str(page)}))  # fmt: skip
    with FakeModel([read]) as model:
        command, env = launch(agent, project, agent_home, model, hooks=False)
        gitmem(project, env, "export", agent)
        run_agent(command("Tidy the blog page"), project, env)
    assert model.steps_taken == 1
    first, final = model.conversation[0].text(), model.conversation[-1].text()
    assert ROUTE_TITLE not in first
    assert ROUTE_TITLE in final, final[-3000:]


@pytest.mark.parametrize("installed", [False, True])
def test_the_claude_code_plugin(installed: bool, project: Path, agent_home: Path) -> None:
    """This repository is a Claude Code plugin (.claude-plugin/, hooks/hooks.json): loaded
    with --plugin-dir and nothing installed in the project, its hooks do the same work.
    Claude Code runs a plugin's hooks beside the settings' (`gitmem install claude` too):
    each event reaches gitmem twice, and is handled once."""
    with FakeModel(edit_session("claude", project)) as model:
        command, env = launch("claude", project, agent_home, model, hooks=installed)
        plugin = str(Path(__file__).resolve().parent.parent)
        run_agent([*command(PROMPT), "--plugin-dir", plugin], project, env)
    assert (project / ".claude").exists() == installed
    assert_outcome(project, model)
    assert captured(project).count(PROMPT) == 1
    assert_recorded_once(project)


@pytest.mark.parametrize("installed", [False, True])
def test_the_claude_code_plugin_from_its_marketplace(
    installed: bool, project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """This repository is also a marketplace (.claude-plugin/marketplace.json): installed
    as users install plugins, `claude plugin marketplace add` then `claude plugin install
    gitmem@gitmem`, the plugin does the work, once beside `gitmem install claude` too, and
    `gitmem doctor` sees it (it said "not installed: run `gitmem install claude`")."""
    market = tmp_path / "gitmem-checkout"  # what the marketplace copies: the plugin's files
    root = Path(__file__).resolve().parent.parent
    for name in (".claude-plugin", "hooks"):
        shutil.copytree(root / name, market / name)
    shutil.copy(root / ".mcp.json", market)
    with FakeModel(edit_session("claude", project)) as model:
        command, env = launch("claude", project, agent_home, model, hooks=installed)
        claude = agent_binary("claude")
        run_agent([claude, "plugin", "marketplace", "add", str(market)], project, env)
        run_agent([claude, "plugin", "install", "gitmem@gitmem"], project, env)
        run_agent(command(PROMPT), project, env)
    assert_outcome(project, model)
    assert captured(project).count(PROMPT) == 1
    assert_recorded_once(project)
    doctor = gitmem(project, env, "doctor", "--no-model")
    assert "plugin gitmem@gitmem (enabled in user settings)" in doctor, doctor
    assert ("starts gitmem twice" in doctor) == installed, doctor
    assert "not installed" not in doctor


# Each agent's switch for its hooks, set in a project's settings, and what doctor says
SWITCHED_OFF = {
    "claude": (".claude/settings.local.json", {"disableAllHooks": True},
               "`disableAllHooks: true` in Claude Code's local settings: no hook runs"),
    "gemini": (".gemini/settings.json", {"hooksConfig": {"enabled": False}},
               "`hooksConfig.enabled: false` in Gemini CLI's project settings: no hook runs"),
    "qwen": (".qwen/settings.json", {"disableAllHooks": True},
             "`disableAllHooks: true` in Qwen Code's project settings: no hook runs"),
    "copilot": (".github/copilot/settings.json", {"disableAllHooks": True},
                "`disableAllHooks: true` in Copilot CLI's repository settings: no hook runs"),
    "droid": (".factory/hooks.json", {"hooksDisabled": True},
              "`hooksDisabled: true` in {root}/.factory/hooks.json: Droid runs no hook"),
}  # fmt: skip


@pytest.mark.parametrize("agent", sorted(SWITCHED_OFF))
def test_told_to_run_no_hooks(agent: str, project: Path, agent_home: Path) -> None:
    """The agent's settings switch hooks off: it runs none of gitmem's (the model gets no
    decision; nothing is recorded), and `gitmem doctor` says so rather than "ok"."""
    file, switch, said = SWITCHED_OFF[agent]
    with FakeModel(edit_session(agent, project)) as model:
        command, env = launch(agent, project, agent_home, model)
        settings = project / file
        settings.parent.mkdir(parents=True, exist_ok=True)
        data = json.loads(settings.read_text()) if settings.exists() else {}
        settings.write_text(json.dumps({**data, **switch}))
        run_agent(command(PROMPT), project, env)
    assert model.steps_taken == len(model.steps)
    assert MONEY_TITLE not in model.conversation[-1].text()
    assert not (discover(project).shared_state_dir / "sessions").exists()
    doctor = subprocess.run(["gitmem", "doctor", "--no-model"], cwd=project, env=env,
                            capture_output=True, text=True)  # fmt: skip
    assert f"!!  {agent} hooks" in doctor.stdout, doctor.stdout
    assert said.format(root=project) in doctor.stdout, doctor.stdout


@pytest.mark.parametrize("agent", ["gemini", "qwen"])
def test_a_folder_the_agent_does_not_trust(agent: str, project: Path, agent_home: Path) -> None:
    """Folder trust on, and the folder distrusted: Gemini CLI's `-p` stops with an error,
    Qwen Code runs without a word and without the project's hooks (its interactive "safe
    mode", as Gemini CLI's). Doctor fails the trust check, whose verdict is each agent's:
    a rule for a sub-folder's parent then outranks the distrust of the folder above, and
    both agents run gitmem's hooks."""
    folder = agent_home / f".{agent}"

    def launch_with(rules: dict[str, str], model: FakeModel) -> Launch:
        command, env = launch(agent, project, agent_home, model)
        if agent == "qwen":  # off by default in Qwen Code
            settings = json.loads((folder / "settings.json").read_text())
            trust_on = {"security": {"folderTrust": {"enabled": True}}}
            (folder / "settings.json").write_text(json.dumps({**settings, **trust_on}))
        (folder / "trustedFolders.json").write_text(json.dumps(rules))
        return command, env

    steps = edit_session(agent, project)
    with FakeModel(steps[:2]) as model:  # the reads: Qwen Code edits only in a trusted folder
        command, env = launch_with({str(project): "DO_NOT_TRUST"}, model)
        proc = subprocess.run(command(PROMPT), cwd=project, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=AGENT_TIMEOUT_S)  # fmt: skip
    if agent == "gemini":
        assert proc.returncode != 0 and "not running in a trusted directory" in proc.stderr
        assert not model.conversation
    else:
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert model.steps_taken == 2 and MONEY_TITLE not in model.conversation[-1].text()
    assert not (discover(project).shared_state_dir / "sessions").exists()  # no hook ran
    doctor = gitmem(project, env, "doctor", "--no-model")
    assert f"!!  {agent} trust" in doctor and "does not trust this folder" in doctor, doctor
    rules = {str(project.parent): "DO_NOT_TRUST", str(project / "billing"): "TRUST_PARENT"}
    with FakeModel(steps) as model:
        command, env = launch_with(rules, model)
        run_agent(command(PROMPT), project, env)
    assert_outcome(project, model)
    doctor = gitmem(project, env, "doctor", "--no-model")
    assert f"ok  {agent} trust" in doctor and "`TRUST_PARENT`" in doctor, doctor


def test_a_project_pi_does_not_trust(project: Path, agent_home: Path) -> None:
    """pi loads a project's extensions only once the user trusts the project, and `pi -p`
    skips them without a word: installed for the project alone, gitmem brought nothing
    and no rule was checked. `gitmem install pi` and doctor say so; installed for the user
    as well, the user's copy runs meanwhile, and the trusted project runs one copy."""
    trust = agent_home / ".pi" / "agent" / "trust.json"
    reads = edit_session("pi", project)[:2]
    with FakeModel(reads) as model:
        command, env = launch("pi", project, agent_home, model, hooks=False)
        trust.write_text("{}")  # as a user who has not answered pi's question
        said = gitmem(project, env, "install", "pi")
        assert "not yet running here: pi has not been told to trust this project" in said
        run_agent(command(PROMPT), project, env)
    assert model.steps_taken == 2 and MONEY_TITLE not in model.conversation[-1].text()
    assert not (discover(project).shared_state_dir / "sessions").exists()  # no hook ran
    checks = json.loads(gitmem(project, env, "doctor", "--no-model", "--json"))["checks"]
    (check,) = [c for c in checks if c["name"] == "pi trust"]
    assert not check["ok"] and "skips the project's extensions" in check["detail"], check
    gitmem(project, env, "install", "pi", "--scope", "user")
    checks = json.loads(gitmem(project, env, "doctor", "--no-model", "--json"))["checks"]
    (check,) = [c for c in checks if c["name"] == "pi trust"]
    assert check["ok"] and "the user's copy runs meanwhile" in check["detail"], check
    with FakeModel(edit_session("pi", project)) as model:
        command, env = launch("pi", project, agent_home, model, hooks=False)
        trust.write_text("{}")
        run_agent(command(PROMPT), project, env)
    assert_outcome(project, model)


@pytest.mark.parametrize(
    "scope, entries",
    [("project", ["-extensions/gitmem.ts"]), ("project", ["!extensions/*.ts"]),
     ("user", ["-extensions/gitmem.ts"])],
)  # fmt: skip
def test_pi_settings_that_leave_the_extension_unloaded(
    scope: str, entries: list[str], project: Path, agent_home: Path
) -> None:
    """An `extensions` entry in pi's settings (`pi config` writes `-extensions/gitmem.ts`
    when gitmem's extension is unticked; a team's .pi/settings.json may carry a glob) and
    pi skips the extension without a word: no hook runs. Before session 66 doctor said the
    extension was current. Now it names the entry; a `+` entry naming the extension puts it
    back, for pi as for doctor."""
    base = project / ".pi" if scope == "project" else agent_home / ".pi" / "agent"
    settings = base / "settings.json"

    def settings_check(env: dict[str, str]) -> dict[str, Any] | None:
        checks = json.loads(gitmem(project, env, "doctor", "--no-model", "--json"))["checks"]
        return next((c for c in checks if c["name"] == "pi settings"), None)

    with FakeModel(edit_session("pi", project)[:2]) as model:
        command, env = launch("pi", project, agent_home, model, "--scope", scope)
        kept = json.loads(settings.read_text()) if settings.exists() else {}
        settings.write_text(json.dumps({**kept, "extensions": entries}))
        run_agent(command(PROMPT), project, env)
    assert model.steps_taken == 2 and MONEY_TITLE not in model.conversation[-1].text()
    assert not (discover(project).shared_state_dir / "sessions").exists()  # no hook ran
    check = settings_check(env)
    assert check is not None and not check["ok"], check
    assert f"`{entries[0]}`" in check["detail"] and str(settings) in check["detail"], check
    if entries[0].startswith("!"):  # put back by name, as pi reads it
        settings.write_text(json.dumps({**kept, "extensions": [*entries, "+extensions/gitmem.ts"]}))
        with FakeModel(edit_session("pi", project)) as model:
            command, env = launch("pi", project, agent_home, model, hooks=False)
            run_agent(command(PROMPT), project, env)
        assert_outcome(project, model)
        assert settings_check(env) is None


def test_a_continued_pi_session_is_not_told_again(project: Path, agent_home: Path) -> None:
    """`pi -c` continues the last session in a new process, its conversation (with what
    gitmem added to it) sent again; pi calls that start "startup". The extension tells
    gitmem it is a resumed session: before, the second process's digest repeated the
    decisions (each title twice in the model's context)."""
    api, billing = edit_session("pi", project)[:2]
    with FakeModel([api]) as model:
        command, env = launch("pi", project, agent_home, model)
        run_agent(command(PROMPT), project, env)
    with FakeModel([billing]) as model:
        command, env = launch("pi", project, agent_home, model, hooks=False)
        run_agent([*command("Now the billing code"), "-c"], project, env)
    final = model.conversation[-1].text()
    assert final.count(PROMPT) == 1 and "Now the billing code" in final  # one session
    assert final.count(MONEY_TITLE) == 1 and final.count(API_TITLE) == 1, final[-4000:]
    assert "Now the billing code" in captured(project)
    assert_no_hook_errors(project)


def test_a_pi_session_in_rpc_mode(project: Path, agent_home: Path) -> None:
    """pi's RPC mode (what IDEs and other front ends drive, JSON commands on stdin): two
    prompts in one process. One digest, each file's decisions once, both prompts
    captured, the critical edit blocked."""
    api, billing, edit = edit_session("pi", project)
    with FakeModel([api]) as model:
        command, env = launch("pi", project, agent_home, model)
        argv = [*[a for a in command(PROMPT) if a not in ("-p", PROMPT)], "--mode", "rpc"]
        proc = subprocess.Popen(argv, cwd=project, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        try:
            for message, steps in ((PROMPT, []), ("Now make billing use floats", [billing, edit])):
                model.steps.extend(steps)
                proc.stdin.write(json.dumps({"type": "prompt", "message": message}) + "\n")
                proc.stdin.flush()
                deadline = time.monotonic() + AGENT_TIMEOUT_S
                while json.loads(proc.stdout.readline() or '{"type": "eof"}')["type"] not in (
                    "agent_settled", "eof"
                ):
                    assert time.monotonic() < deadline
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
    assert_outcome(project, model)
    assert "Now make billing use floats" in captured(project)


def test_a_forked_pi_session_is_not_told_again(project: Path, agent_home: Path) -> None:
    """`pi --fork ID` goes on from a copy of a session's conversation under a new id, of
    which gitmem knows nothing: the extension tells gitmem which decisions the copy holds
    (as its hooks name them). Before, the fork's digest and its first read of the API file
    repeated what the copy held (each title twice in the model's context)."""
    api = edit_session("pi", project)[0]
    with FakeModel([api]) as model:
        command, env = launch("pi", project, agent_home, model)
        run_agent(command(PROMPT), project, env)
    (first,) = (agent_home / ".pi" / "agent" / "sessions").glob("*/*.jsonl")
    with FakeModel([api]) as model:
        command, env = launch("pi", project, agent_home, model, hooks=False)
        fork = ["--fork", first.stem.split("_")[-1]]
        run_agent([*command("Look at the routes once more"), *fork], project, env)
    final = model.conversation[-1].text()
    assert final.count(PROMPT) == 1 and "once more" in final  # the copy, then the fork's
    assert final.count(MONEY_TITLE) == 1 and final.count(API_TITLE) == 1, final[-4000:]
    assert_no_hook_errors(project)


def test_a_compacted_pi_session_gets_its_pinned_decisions_back(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """pi's `/compact` (in its terminal UI; set to keep no recent turn) summarises the turn
    that held the digest and the API decision: the next prompt brings the pinned money
    decision back, once, as gitmem does after another agent's compaction."""
    read = edit_session("pi", project)[0]
    with FakeModel([read]) as model:
        command, env = launch("pi", project, agent_home, model)
        settings = {"compaction": {"keepRecentTokens": 1}}
        (agent_home / ".pi" / "agent" / "settings.json").write_text(json.dumps(settings))
        argv = [a for a in command(PROMPT) if a not in ("-p", PROMPT)]
        with Terminal(argv, project, env, tmp_path) as term:
            term.wait_for("Pi can explain")
            term.type("Look at the routes")
            wait_until(lambda: model.steps_taken == 1 and "Done." in term.screen(), term)
            thanked = time.time()
            term.type("Thanks")
            wait_until(lambda: _hook_ended(project, "pi-stop", thanked), term)
            term.type("/compact")
            term.wait_for("Compacted from")
            asked = len(model.requests)
            term.type("What about the money?")
            wait_until(lambda: len(model.requests) > asked and "What about the money?"
                       in model.conversation[-1].text(), term)  # fmt: skip
    assert_no_hook_errors(project)
    final = model.conversation[-1].text()
    assert final.count(API_TITLE) == 0, final[-3000:]  # summarised away with its turn
    assert final.count(MONEY_TITLE) == 1 and prompt.LOST_HEADER in final, final[-3000:]


def test_claude_code_mcp(project: Path, agent_home: Path) -> None:
    """`gitmem install claude --mcp`: Claude Code starts `gitmem mcp` from .mcp.json and
    the model's call reaches it; the answer arrives as plain JSON text."""
    with FakeModel([Step("mcp__gitmem__why", {"path": "billing/charge.py"})]) as model:
        command, env = launch("claude", project, agent_home, model, "--mcp", tools="mcp__gitmem")
        run_agent(command("Why is billing like this?"), project, env)
    assert model.steps_taken == 1
    final = model.conversation[-1].text()
    # not {"result": "[\\n {\\n  \\"query\\": ...": one JSON text, not JSON in a string
    assert f'"title": "{MONEY_TITLE}"' in final, final[-3000:]


def test_capture_off_in_claude_codes_personal_settings(project: Path, agent_home: Path) -> None:
    """The README's way for one developer to keep their prompts out of the project's
    history: `GITMEM_CAPTURE=0` in Claude Code's untracked settings.local.json reaches the
    hooks. The prompt still brings its decision; no ref and no write-ahead file appear."""
    with FakeModel([]) as model:
        command, env = launch("claude", project, agent_home, model)
        local = project / ".claude" / "settings.local.json"
        local.write_text(json.dumps({"env": {"GITMEM_CAPTURE": "0"}}))
        run_agent(command("Add pagination to api/routes.py"), project, env)
    assert model.conversation[-1].text().count(API_TITLE) == 1
    assert_no_hook_errors(project)
    time.sleep(1.0)  # a flusher, had one been started, commits within this
    assert git(project, "for-each-ref", "refs/gitmem/") == ""
    assert not (discover(project).shared_state_dir / "capture").exists()
    # doctor, run from a shell without the variable, reads it where Claude Code does
    checks = json.loads(gitmem(project, env, "doctor", "--no-model", "--json"))["checks"]
    capture = next(c["detail"] for c in checks if c["name"] == "capture")
    assert capture.startswith("off for you (GITMEM_CAPTURE=0 in Claude Code's local settings)")


def test_codex_with_its_hooks_feature_off(project: Path, agent_home: Path) -> None:
    """`[features] hooks = false` in Codex's config: Codex runs none of gitmem's hooks, the
    critical edit goes through, and nothing says why but doctor (which asks Codex). Codex's
    own `codex features enable hooks` brings them back."""
    with FakeModel(edit_session("codex", project)) as model:
        command, env = launch("codex", project, agent_home, model)
        config = agent_home / ".codex" / "config.toml"
        config.write_text(config.read_text() + "\n[features]\nhooks = false\n")
        run_agent(command(PROMPT), project, env)
    assert model.steps_taken == len(model.steps)
    assert MONEY_TITLE not in model.conversation[-1].text()
    assert (project / "billing/charge.py").read_text() != CHARGE  # nothing stopped the edit
    assert not (discover(project).shared_state_dir / "sessions").exists()  # no hook ran
    doctor = gitmem(project, env, "doctor", "--no-model")
    assert "!!  codex trust" in doctor and "its `hooks` feature is off" in doctor, doctor
    write(project, "billing/charge.py", CHARGE)
    codex = agent_binary("codex")
    run_agent([codex, "features", "enable", "hooks"], project, env)
    with FakeModel(edit_session("codex", project)) as model:  # the same settings, hooks trusted
        command, env = offline("codex", codex, agent_home, project, model.url, env)
        run_agent(command(PROMPT), project, env)
    assert_outcome(project, model)
    assert "ok  codex trust" in gitmem(project, env, "doctor", "--no-model")


def test_gitmem_run_by_codex_in_its_sandbox(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    """Codex's sandbox for a trusted project (`-s workspace-write`, what its Auto mode
    runs) keeps `.git` read-only for the commands the model runs. The model records a
    decision with `gitmem new` (an unquoted title, as adr-tools takes one), then searches
    for it and asks `why`: before session 44 the search stopped with a traceback, since
    the index could not be refreshed in `.git` (gitmem.location.state_dir_of), and the
    traceback was all the model got."""
    exe = shutil.which("gitmem")
    assert exe
    steps = [shell_step("codex", f"{exe} new Webhooks are always queued -g 'api/**'"),
             shell_step("codex", f"{exe} search webhooks queued -k 1"),
             shell_step("codex", f"{exe} why api/routes.py")]  # fmt: skip
    (tmp_path / "temp").mkdir()
    with FakeModel(steps) as model:
        command, env = launch("codex", project, agent_home, model)
        env["TMPDIR"] = str(tmp_path / "temp")
        argv = command("Record that webhooks are queued")
        argv[argv.index("--dangerously-bypass-approvals-and-sandbox")] = "-s=workspace-write"
        run_agent(argv, project, env)
    assert model.steps_taken == len(steps)
    final = model.conversation[-1].text()
    assert "Traceback" not in final, final[-3000:]
    assert "1. D-0003 Webhooks are always queued" in final, final[-3000:]  # the search
    assert "matched api/** · .continuity/decisions/0003-webhooks-are-always-queued.md" in final
    assert '"sandbox_mode":"workspace-write"' in final  # Codex's own account of the turn
    assert_no_hook_errors(project)
