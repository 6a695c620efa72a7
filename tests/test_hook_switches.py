"""The agents' own switches for their hooks, as `gitmem doctor` reads them: each agent's
user, project (and local) and system (managed) settings, the strongest file that sets a
switch deciding, as read in the agents' code (Claude Code 2.1.328, Gemini CLI 0.61.0,
Qwen Code 0.24.4); and whether Gemini CLI and Qwen Code trust the folder, without which
they read neither the project's settings nor its hooks. The live runs:
tests/test_live_agents.py::test_told_to_run_no_hooks and
::test_a_folder_the_agent_does_not_trust."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from gitmem.agent import claudesettings, copilot, foldertrust, gemini, qwen
from gitmem.cli.main import cli

CASES = [
    ("claude", {"user": {"disableAllHooks": True}}, "Code's user settings: no hook runs"),
    ("claude", {"user": {"disableAllHooks": True}, "local": {"disableAllHooks": False}}, None),
    ("claude", {"project": {"disableAllHooks": False}, "system": {"disableAllHooks": True}},
     "Code's managed settings: no hook runs"),
    ("claude", {"system": {"allowManagedHooksOnly": True}}, "not gitmem's"),
    ("claude", {"project": {"allowManagedHooksOnly": True}}, None),  # managed settings only
    ("gemini", {"user": {"hooksConfig": {"enabled": False}}}, "CLI's user settings: no hook"),
    ("gemini", {"user": {"hooksConfig": {"enabled": False}},
                "project": {"hooksConfig": {"enabled": True}}}, None),
    ("gemini", {"project": {"hooksConfig": {"enabled": True}},
                "system": {"hooksConfig": {"enabled": False}}}, "system settings: no hook runs"),
    ("gemini", {"user": {"hooksConfig": {"disabled": ["gitmem-hook gemini pre-tool"]}},
                "project": {"hooksConfig": {"disabled": ["other-tool"]}}},
     "lists gitmem-hook gemini pre-tool: those do not run"),  # the lists add up
    ("gemini", {"project": {"hooksConfig": {"disabled": ["other-tool"]}}}, None),
    ("qwen", {"user": {"disableAllHooks": True}}, "Qwen Code's user settings: no hook runs"),
    ("qwen", {"user": {"disableAllHooks": True}, "project": {"disableAllHooks": False}}, None),
    ("qwen", {"project": {"disableAllHooks": False}, "system": {"disableAllHooks": True}},
     "Qwen Code's system settings: no hook runs"),
    ("copilot", {"project": {"disableAllHooks": True}}, "CLI's repository settings: no hook"),
    ("copilot", {"project": {"disableAllHooks": True}, "local": {"disableAllHooks": False}}, None),
    ("copilot", {"local": {"disableAllHooks": True}}, "Copilot CLI's local settings: no hook"),
    ("copilot", {"user": {"disableAllHooks": True}}, None),  # stopped none (1.0.102, run)
    *((agent, {"project": {"hooks": {}}}, None) for agent in ("claude", "gemini", "qwen")),
]  # fmt: skip
READERS: dict[str, Callable[[Path, Path], str | None]] = {
    "claude": claudesettings.hooks_off, "gemini": gemini.hooks_off, "qwen": qwen.hooks_off,
    "copilot": copilot.hooks_off}  # fmt: skip


@pytest.mark.parametrize(("agent", "files", "expected"), CASES)
def test_the_switches_doctor_reads(
    agent: str,
    files: dict[str, dict[str, object]],
    expected: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home, root, etc = tmp_path / "home", tmp_path / "repo", tmp_path / "etc"
    monkeypatch.setattr(claudesettings, "MANAGED", etc / "claude.json")
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(etc / "gemini.json"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", str(etc / "qwen.json"))
    folder = f".{agent}"
    trust = {str(root): "TRUST_FOLDER"}  # the project's settings count in a trusted folder
    (home / folder).mkdir(parents=True)
    (home / folder / "trustedFolders.json").write_text(json.dumps(trust))
    ours = root / (".github/copilot" if agent == "copilot" else folder)  # the project's folder
    paths = {"user": home / folder / "settings.json", "project": ours / "settings.json",
             "local": ours / "settings.local.json", "system": etc / f"{agent}.json"}  # fmt: skip
    for scope, data in files.items():
        paths[scope].parent.mkdir(parents=True, exist_ok=True)
        paths[scope].write_text(json.dumps(data))
    said = READERS[agent](root, home)
    assert (said is None) if expected is None else (said is not None and expected in said), said


TRUST = "TRUST_FOLDER"
PARENT = "TRUST_PARENT"
NOT = "DO_NOT_TRUST"
TRUST_OFF = {"security": {"folderTrust": {"enabled": False}}}
TRUST_ON = {"security": {"folderTrust": {"enabled": True}}}
# agent, {file: settings}, rules ("{root}" and "{up}" for the repository and its folder),
# environment, trusted (None: folder trust off), what doctor says
TRUST_CASES = [
    ("gemini", {}, {}, {}, False, "no rule in"),  # on by default: the agent asks
    ("gemini", {}, {"{root}": TRUST}, {}, True, "`TRUST_FOLDER` for"),
    ("gemini", {}, {"{root}/sub": PARENT}, {}, True, "`TRUST_PARENT`"),
    ("gemini", {}, {"{up}": TRUST}, {}, True, "trusts this folder"),  # and what is under it
    ("gemini", {}, {"{up}": TRUST, "{root}": NOT}, {}, False, "does not trust this folder"),
    ("gemini", {}, {"{up}": NOT, "{root}/sub": PARENT}, {}, True, ""),
    # the same folder named twice: Gemini CLI takes the longer rule, Qwen Code the distrust
    ("gemini", {}, {"{root}": NOT, "{root}/x": PARENT}, {}, True, "`TRUST_PARENT`"),
    ("qwen", {"user": TRUST_ON}, {"{root}": NOT, "{root}/x": PARENT}, {}, False, NOT),
    ("qwen", {"user": TRUST_ON}, {"{root}/x": PARENT, "{root}": NOT}, {}, False, NOT),
    ("gemini", {"user": TRUST_OFF}, {}, {}, None, ""),
    ("gemini", {"defaults": TRUST_OFF}, {}, {}, None, ""),
    ("gemini", {"user": TRUST_OFF, "system": TRUST_ON}, {}, {}, False, "no rule"),
    ("gemini", {"project": TRUST_OFF}, {}, {}, False, "no rule"),  # not the project's call
    ("gemini", {"user": "// comments are allowed\n" + json.dumps(TRUST_OFF)}, {}, {}, None, ""),
    ("gemini", {}, {}, {"GEMINI_CLI_TRUST_WORKSPACE": "true"}, True, "in this shell"),
    ("gemini", {}, {"{root}": TRUST}, {"GEMINI_RESTRICTED_MODE": "true"}, False, "no folder"),
    ("gemini", {}, {"{root}": "YES"}, {}, False, "invalid trust rule"),
    ("gemini", {}, "{not json", {}, False, "stops on start until it is fixed"),
    ("qwen", {}, {}, {}, None, ""),  # off by default
    ("qwen", {"user": TRUST_ON}, {}, {}, False, "Qwen Code's folder trust is on"),
    ("qwen", {"user": TRUST_ON}, {"{up}": TRUST}, {}, True, "Qwen Code trusts"),
    ("qwen", {"user": TRUST_ON}, {"{link}": TRUST}, {}, True, ""),  # a link to the folder
    ("gemini", {}, {"{link}": TRUST}, {}, True, ""),
]  # fmt: skip


@pytest.mark.parametrize(("agent", "files", "rules", "env", "trusted", "said"), TRUST_CASES)
def test_the_folder_trust_doctor_reads(
    agent: str,
    files: dict[str, object],
    rules: dict[str, str] | str,
    env: dict[str, str],
    trusted: bool | None,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home, root, etc = tmp_path / "home", tmp_path / "repo", tmp_path / "etc"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(root)
    variable = (
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH" if agent == "gemini" else "QWEN_CODE_SYSTEM_SETTINGS_PATH"
    )
    monkeypatch.setenv(variable, str(etc / "settings.json"))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    folder = home / f".{agent}"
    paths = {"user": folder / "settings.json", "project": root / f".{agent}" / "settings.json",
             "system": etc / "settings.json", "defaults": etc / "system-defaults.json"}  # fmt: skip
    for scope, data in files.items():
        paths[scope].parent.mkdir(parents=True, exist_ok=True)
        paths[scope].write_text(data if isinstance(data, str) else json.dumps(data))
    folder.mkdir(parents=True, exist_ok=True)
    names = {"{root}": str(root), "{up}": str(tmp_path), "{link}": str(tmp_path / "link")}
    if isinstance(rules, str):
        (folder / "trustedFolders.json").write_text(rules)
    else:
        written = {}
        for rule, level in rules.items():
            for name, path in names.items():
                rule = rule.replace(name, path)
            written[rule] = level
        (folder / "trustedFolders.json").write_text(json.dumps(written))
    policy = (gemini if agent == "gemini" else qwen).trust_policy(root, home)
    verdict = foldertrust.decide(policy, root)
    assert (
        (verdict is None)
        if trusted is None
        else (verdict is not None and verdict.trusted == trusted)
    ), verdict
    assert verdict is None or said in verdict.why, verdict


def test_an_untrusted_folders_settings_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI reads no switch from the project's settings in a folder it does not
    trust (nor its hooks): doctor's trust check says so, not the switch."""
    home, root = tmp_path / "home", tmp_path / "repo"
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(tmp_path / "none.json"))
    (root / ".gemini").mkdir(parents=True)
    (root / ".gemini" / "settings.json").write_text(json.dumps({"hooksConfig": {"enabled": False}}))
    assert gemini.hooks_off(root, home) is None
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(root): TRUST}))
    assert "project settings: no hook runs" in str(gemini.hooks_off(root, home))


def test_doctor_on_a_folder_gemini_does_not_trust(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hooks in the project's settings only: a failing check that says how to trust the
    folder. Hooks for the user as well: those run, so the check passes and says so."""
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "user"))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(tmp_path / "none.json"))
    runner = CliRunner()

    def check() -> str:
        output = runner.invoke(cli, ["doctor", "--no-model"]).output
        return next(line for line in output.splitlines() if " gemini trust " in line)

    installed = runner.invoke(cli, ["install", "gemini"])
    assert (
        installed.exit_code == 0 and "not yet running here: Gemini CLI's folder" in installed.output
    )
    line = check()
    assert line.startswith("!!") and "no rule in" in line and "`/permissions`" in line, line
    assert runner.invoke(cli, ["install", "gemini", "--scope", "user"]).exit_code == 0
    line = check()
    assert line.startswith("ok") and "for your user run all the same" in line, line
    rules = tmp_path / "user" / ".gemini" / "trustedFolders.json"
    rules.write_text(json.dumps({str(repo): "TRUST_FOLDER"}))
    assert check().startswith("ok") and "Gemini CLI trusts this folder" in check()
    assert "not yet running" not in runner.invoke(cli, ["install", "gemini"]).output
