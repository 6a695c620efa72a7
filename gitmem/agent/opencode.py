"""OpenCode's events, on the handlers written for Claude Code's payloads.

OpenCode has no command hooks: its plugins are JavaScript. gitmem's plugin
(``hooks/opencode/gitmem.js``, installed as ``.opencode/plugin/gitmem.js``) forwards each
event to ``gitmem-hook opencode EVENT`` with Claude Code's payload fields (``session_id``,
``cwd``, ``tool_name``, ``tool_input``, ``prompt``) and reads Claude Code's answers, which
it places where OpenCode reads them (see the plugin). What is left here are OpenCode's
tool names and arguments (1.18.33): ``read``, ``write``, ``edit`` (``filePath``,
``content``, ``oldString``/``newString``), ``bash`` (``command``, ``workdir``), ``glob``
and ``grep`` (``pattern``, ``path``, ``include``).

Built-in modules only: the tool-call hooks import this module.
"""

from __future__ import annotations

from gitmem.agent.toolpaths import translate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# OpenCode tool -> (Claude Code tool, {Claude argument: OpenCode arguments, first found wins})
_TOOLS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "read": ("Read", {"file_path": ("filePath", "file_path", "path")}),
    "write": ("Write", {"file_path": ("filePath", "file_path", "path")}),
    "edit": (
        "Edit",
        {
            "file_path": ("filePath", "file_path", "path"),
            "old_string": ("oldString", "old_string"),
            "new_string": ("newString", "new_string"),
        },
    ),
    "bash": ("Bash", {}),
    "glob": ("Glob", {}),
    "grep": ("Grep", {"glob": ("include",)}),
    "list": ("LS", {}),
}


def adapt(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with OpenCode's tool name and arguments as Claude Code names them (the
    original name kept as ``opencode_tool_name``); a shell command runs in ``workdir``."""
    return translate(payload, _TOOLS, "opencode", ("workdir",))
