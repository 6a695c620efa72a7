"""Qwen Code's hooks, on the handlers written for Claude Code's payloads.

Qwen Code (``.qwen/settings.json``, ``hooks``) took Claude Code's hook protocol: the same
event names, payload fields (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, ``tool_name``, ``tool_input``) and answers
(``hookSpecificOutput``), with timeouts in milliseconds. What differs, as Qwen Code
0.24.4 ran against a local model (tests/test_live_agents.py):

- Its tools keep Gemini CLI's names: ``read_file``, ``write_file``, ``edit``,
  ``run_shell_command`` (``directory``), ``glob``, ``grep_search``, ``notebook_edit``;
  ``adapt`` renames them to Claude Code's.
- PreToolUse's ``additionalContext`` does not reach the model (its deny does); the
  context of SessionStart, UserPromptSubmit and PostToolUse does. So, as for Gemini CLI,
  what the before-tool hook finds is held for the tool's result (gitmem.agent.runner.HELD)
  and the after-tool hook brings the decisions of whatever the call touched.
- A hook group's ``matcher`` is tried against the tool's name and its aliases (display and
  legacy names): each ``|`` alternative exactly, then the whole as an unanchored regular
  expression (``matchesHookPattern`` in its bundle). ``TOOL_MATCHER`` names the tools
  ``adapt`` knows and MCP tools (``mcp__SERVER__TOOL``), so its to-do list, web, memory and
  subagent tools start no hook process. A subagent's own tool calls carry ``agent_id``, so
  they need no hook on the ``agent`` tool (Gemini CLI's ``invoke_agent`` does).

Built-in modules only: the tool-call hooks import this module.
"""

from __future__ import annotations

import os

from gitmem.agent import gemini
from gitmem.agent.toolpaths import translate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gitmem.agent.foldertrust import Policy

# Gemini CLI's tools (Qwen Code is its fork), with Qwen's `edit`, `notebook_edit` and the
# `glob` argument of its `grep_search`
_TOOLS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    **gemini.TOOLS,
    "edit": gemini.TOOLS["replace"],
    "notebook_edit": ("NotebookEdit", {"notebook_path": ("notebook_path", "file_path")}),
    "grep_search": ("Grep", {"path": ("path", "dir_path"), "glob": ("glob", "include")}),
}

TOOL_MATCHER = "|".join(sorted(_TOOLS)) + "|mcp__.*"


def adapt(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with Qwen Code's tool name and arguments as Claude Code names them (the
    original name kept as ``qwen_tool_name``); a shell command runs in ``directory``."""
    return translate(payload, _TOOLS, "qwen", ("directory", "dir_path"))


def trust_policy(root: Path, home: Path) -> Policy:
    """How Qwen Code decides whether it trusts a folder (gitmem.agent.foldertrust; read in
    its code, 0.24.4): ``security.folderTrust.enabled`` (system defaults < user < system
    settings; off by default), then the rules in ``~/.qwen/trustedFolders.json``."""
    from gitmem.agent import install
    from gitmem.agent.foldertrust import Policy

    return Policy(
        "Qwen Code",
        default_on=False,
        user=install.QWEN.path("user", root, home),
        system=os.environ.get("QWEN_CODE_SYSTEM_SETTINGS_PATH") or "/etc/qwen-code/settings.json",
        rules_variable="QWEN_CODE_TRUSTED_FOLDERS_PATH",
        defaults_variable="QWEN_CODE_SYSTEM_DEFAULTS_PATH",
        by_depth=True,
        how=": trust it in Qwen Code (`/trust`), or install gitmem's hooks for your user "
        "(`gitmem install qwen --scope user`)",
    )


def hooks_off(root: Path, home: Path) -> str | None:
    """Why Qwen Code runs none of gitmem's hooks in ``root``, if its settings say so (for
    `gitmem doctor`; read in its code, 0.24.4): ``disableAllHooks: true``, user < project <
    system settings, the strongest that sets it deciding (the project's only in a folder
    it trusts)."""
    from gitmem.agent import install
    from gitmem.agent.common import strongest
    from gitmem.agent.foldertrust import read

    found = read(trust_policy(root, home), root, install.QWEN.path("project", root, home))
    off = strongest(found, "disableAllHooks")
    if off is not None and off[1]:
        return f"`disableAllHooks: true` in Qwen Code's {off[0]} settings: no hook runs"
    return None
