"""A teammate without gitmem: the project's hooks, committed, on a machine where gitmem is
not installed, not on the agent's PATH, or cannot run.

Each hook command is guarded (gitmem.agent.install.GUARD): it runs gitmem where it is
found, and otherwise answers what changes nothing. Before, the shell's "not found" (exit
127) made Gemini CLI block every prompt and Copilot CLI deny every tool call
(tests/test_live_agents.py::test_gitmem_not_installed runs them). Here every installed
command of every agent is run through the shells the agents use, as they run it. With
gitmem on PATH the guarded command answers as gitmem does: test_hooks.py's
test_end_to_end_command_from_settings and each agent's own tests run it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SANDBOX_HOME, agent_project

from gitmem.agent import install
from gitmem.cli.main import cli

FILE_AGENTS = sorted(install.AGENTS)  # the agents with hooks files (Cline: test_cline.py)
PAYLOAD = {"session_id": "teammate", "hook_event_name": "x", "prompt": "hello"}


@pytest.fixture
def project(repo: Path) -> Path:
    return agent_project(repo)


def installed(project: Path, agent: str) -> dict[str, str]:
    """gitmem event -> the command `gitmem install AGENT` wrote for it."""
    result = CliRunner().invoke(cli, ["install", agent])
    assert result.exit_code == 0, result.output
    spec = install.AGENTS[agent]
    path = spec.path("project", project, Path(SANDBOX_HOME))
    hooks = spec.hooks_in(path, json.loads(path.read_text()))  # Droid's: the file itself
    out = {}
    for event, (_, ours) in spec.events.items():
        for hook in install._hooks_of(hooks[event], spec):
            command = str(hook[spec.command_key])
            assert install.inner_command(command, spec) == f"gitmem-hook {agent} {ours}"
            out[ours] = command
    assert set(out) == {ours for _, ours in spec.events.values()}
    return out


def run(
    command: str, project: Path, path: str, shell: str = "/bin/sh"
) -> subprocess.CompletedProcess[str]:
    """``command`` as the agent runs it: ``shell -c``, the payload on stdin, ``path`` for
    PATH."""
    return subprocess.run(
        [shell, "-c", command],
        input=json.dumps({**PAYLOAD, "cwd": str(project)}),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": path, "HOME": SANDBOX_HOME},
    )


def fake_hook(folder: Path, code: int) -> str:
    """A PATH whose `gitmem-hook` exits ``code`` (a broken install: 127 from a version
    manager's shim, 1 from an interpreter that fails before gitmem's own code runs)."""
    folder.mkdir(exist_ok=True)
    script = folder / "gitmem-hook"
    script.write_text(f"#!/bin/sh\ncat >/dev/null\necho 'gitmem-hook: broken' >&2\nexit {code}\n")
    script.chmod(0o755)
    return f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin"


def expected_quiet(agent: str, event: str) -> str:
    """What an event other than session-start prints where gitmem does not run: the
    agent's fail-open answer (Cursor wants a JSON object; the others, nothing)."""
    if agent != "cursor":
        return ""
    return json.dumps({"continue": True} if event == "prompt" else {})


def note_of(agent: str, out: str) -> str:
    """The context the session-start answer gives the agent, in that agent's shape."""
    answer = json.loads(out)
    if agent == "cursor":
        return str(answer["additional_context"])
    if agent == "copilot":
        return str(answer["additionalContext"])
    return str(answer["hookSpecificOutput"]["additionalContext"])


@pytest.mark.parametrize("agent", FILE_AGENTS)
@pytest.mark.parametrize("shell", ["/bin/sh", "/bin/bash"])
def test_without_gitmem_every_hook_lets_the_agent_go_on(
    agent: str, shell: str, project: Path, tmp_path: Path
) -> None:
    nothing = tmp_path / "empty"  # PATH: a folder with no gitmem (the guard needs no program)
    nothing.mkdir()
    for event, command in installed(project, agent).items():
        proc = run(command, project, str(nothing), shell)
        assert proc.returncode == 0 and proc.stderr == "", (event, proc.stderr)
        if event != "session-start":
            assert proc.stdout.strip() == expected_quiet(agent, event), event
            continue
        assert note_of(agent, proc.stdout) == install.MISSING_NOTE
        said = json.loads(proc.stdout).get("systemMessage")
        if agent in install.SYSTEM_MESSAGE:  # the agents that show it to the user
            assert said == install.MISSING_MESSAGE.format(program="gitmem-hook")


@pytest.mark.parametrize("code", [1, 127])
@pytest.mark.parametrize("agent", ["claude", "copilot", "cursor"])
def test_a_gitmem_hook_that_cannot_run_fails_open(
    agent: str, code: int, project: Path, tmp_path: Path
) -> None:
    path = fake_hook(tmp_path / "bin", code)
    for event, command in installed(project, agent).items():
        proc = run(command, project, path)
        assert proc.returncode == 0, (event, proc.returncode)
        assert proc.stderr == "gitmem-hook: broken\n"  # the reason, where agents log it
        if event == "session-start":
            assert note_of(agent, proc.stdout) == install.MISSING_NOTE
        else:
            assert proc.stdout.strip() == expected_quiet(agent, event)


def test_a_deliberate_block_still_blocks(project: Path, tmp_path: Path) -> None:
    """Exit 2 is the agents' "block" (Claude Code: the call is denied, stderr is the
    reason): the guard passes it through, with what the hook printed."""
    path = fake_hook(tmp_path / "bin", 2)
    proc = run(installed(project, "claude")["pre-tool"], project, path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", "gitmem-hook: broken\n")


def test_install_guards_hooks_an_earlier_gitmem_wrote(project: Path) -> None:
    """An earlier gitmem wrote plain `gitmem-hook claude EVENT` commands: doctor says they
    are unguarded, `gitmem install` guards them in place (nothing added twice), and
    uninstall still finds both forms."""
    settings_file = project / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    plain = {
        claude: [{"hooks": [{"type": "command", "command": f"gitmem-hook claude {ours}"}]}]
        for claude, (_, ours) in install.CLAUDE.events.items()
    }
    settings_file.write_text(json.dumps({"hooks": plain}))
    env = {"HOME": str(project / "home")}
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"], env=env)
    assert "unguarded, as an earlier gitmem wrote them, in project" in doctor.output
    assert install.install(settings_file) == [*install.EVENTS]
    hooks = json.loads(settings_file.read_text())["hooks"]
    assert all(len(hooks[e]) == 1 and len(hooks[e][0]["hooks"]) == 1 for e in hooks)
    assert all(hooks[e][0]["hooks"][0]["command"].startswith("if command -v") for e in hooks)
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"], env=env)
    assert "unguarded" not in doctor.output
    assert install.install(settings_file) == []
    assert install.uninstall(settings_file) == len(install.EVENTS)


def test_install_keeps_one_hook_per_event(project: Path) -> None:
    """A teammate's older gitmem, which does not know the guarded form, added its plain
    hooks beside it: the next `gitmem install` leaves one hook per event (the agents would
    run both)."""
    assert CliRunner().invoke(cli, ["install", "claude"]).exit_code == 0
    settings_file = project / ".claude" / "settings.json"
    data = json.loads(settings_file.read_text())
    for claude, (_, ours) in install.CLAUDE.events.items():
        data["hooks"][claude].append(
            {"hooks": [{"type": "command", "command": f"gitmem-hook claude {ours}"}]}
        )
    settings_file.write_text(json.dumps(data))
    assert install.install(settings_file) == [*install.EVENTS]
    hooks = json.loads(settings_file.read_text())["hooks"]
    assert {e: len(install._hooks_of(g, install.CLAUDE)) for e, g in hooks.items()} == {
        e: 1 for e in install.EVENTS
    }
    assert install.install(settings_file) == []


def test_a_form_of_the_users_is_kept(project: Path) -> None:
    """A hook a person pointed at a chosen environment's gitmem-hook runs gitmem all the
    same: install adds nothing beside it (every event would run twice) and leaves it as
    it is; doctor counts it."""
    settings_file = project / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    mine = {
        claude: [
            {"hooks": [{"type": "command", "command": f"/opt/venv/bin/gitmem-hook claude {o}"}]}
        ]
        for claude, (_, o) in install.CLAUDE.events.items()
    }
    settings_file.write_text(json.dumps({"hooks": mine}))
    assert install.install(settings_file) == []
    assert json.loads(settings_file.read_text()) == {"hooks": mine}
    scopes = install.installed_scopes(project, project / "home")
    assert scopes == {"project": [*install.EVENTS]}
