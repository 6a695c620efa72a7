"""The agents' own switches for their hooks, as `gitmem doctor` reads them: each agent's
user, project (and local) and system (managed) settings, the strongest file that sets a
switch deciding, as read in the agents' code (Claude Code 2.1.328, Gemini CLI 0.61.0,
Qwen Code 0.24.4). The live runs: tests/test_live_agents.py::test_told_to_run_no_hooks."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gitmem.agent import claudesettings, gemini, qwen

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
    *((agent, {"project": {"hooks": {}}}, None) for agent in ("claude", "gemini", "qwen")),
]  # fmt: skip
READERS: dict[str, Callable[[Path, Path], str | None]] = {
    "claude": claudesettings.hooks_off, "gemini": gemini.hooks_off, "qwen": qwen.hooks_off}  # fmt: skip


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
    paths = {"user": home / folder / "settings.json", "project": root / folder / "settings.json",
             "local": root / folder / "settings.local.json", "system": etc / f"{agent}.json"}  # fmt: skip
    for scope, data in files.items():
        paths[scope].parent.mkdir(parents=True, exist_ok=True)
        paths[scope].write_text(json.dumps(data))
    said = READERS[agent](root, home)
    assert (said is None) if expected is None else (said is not None and expected in said), said
