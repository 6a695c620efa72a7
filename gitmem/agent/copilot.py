"""GitHub Copilot CLI's hooks, on the handlers written for Claude Code's payloads.

Copilot CLI loads every ``.github/hooks/*.json`` of the repository (and
``~/.copilot/hooks/*.json``): ``{"version": 1, "hooks": {event: [{"type": "command",
"bash": ..., "powershell": ..., "timeoutSec": ...}]}}``. Configured under PascalCase event
names (``PreToolUse``), its payloads use the snake_case fields of the VS Code Copilot
extension: ``session_id``, ``cwd``, ``tool_name``, ``tool_input`` (parsed), ``prompt``;
SessionStart's ``source`` is ``new`` or ``resume``.

What Copilot CLI 1.0.102 reads back (seen running it against a local model; GitHub's
hooks reference said no hook could add context when gitmem first supported it):

- ``PreToolUse``: a deny (``permissionDecision: deny`` with a reason shown to the agent),
  and ``hookSpecificOutput.additionalContext``, added after the tool's result;
- ``SessionStart``, ``UserPromptSubmit`` and ``PostToolUse``: a top-level
  ``additionalContext`` (the first message of the conversation; a reminder after the
  prompt; after the tool's result).

So Copilot CLI gets what Claude Code gets, answered in those shapes. A release that reads
less ignores the rest, and still enforces critical rules and captures the prompts.

Tools: ``view`` (``path``), ``create`` (``path``, ``file_text``), ``edit`` (``path``,
``old_str``, ``new_str``), ``bash`` / ``powershell`` (``command``), ``grep`` and ``glob``
(``pattern``, ``path``); ``adapt`` renames them to Claude Code's. With the VS Code format
the CLI already sends Claude Code's names (``Read``, ``Write``, ``Edit``, ``Bash``) over
its own arguments, which are renamed the same way.

Built-in modules only: the tool-call hooks import this module.
"""

from __future__ import annotations

from gitmem.agent.common import unpack
from gitmem.agent.toolpaths import translate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    Spec = tuple[str, dict[str, tuple[str, ...]]]

# Copilot tool -> (Claude Code tool, {Claude argument: Copilot arguments, first found wins})
_READ: Spec = ("Read", {"file_path": ("path", "file_path")})
_WRITE: Spec = ("Write", {"file_path": ("path", "file_path"), "content": ("file_text", "content")})
_EDIT: Spec = (
    "Edit",
    {
        "file_path": ("path", "file_path"),
        "old_string": ("old_str", "old_string"),
        "new_string": ("new_str", "new_string"),
    },
)
_TOOLS: dict[str, Spec] = {
    "view": _READ,
    "create": _WRITE,
    "edit": _EDIT,
    "bash": ("Bash", {}),
    "powershell": ("Bash", {}),
    "grep": ("Grep", {}),
    "glob": ("Glob", {}),
    # Under PascalCase events (the VS Code format) Copilot CLI 1.0.102 names the tools as
    # Claude Code does but keeps its own arguments: `Edit` with `path`, `old_str` and
    # `new_str`, `Write` with `path` and `file_text`, `Read` with `path` (seen in a run of
    # the real CLI, tests/test_live_agents.py).
    "Read": _READ,
    "Write": _WRITE,
    "Edit": _EDIT,
}


def adapt(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with Copilot's tool and arguments as Claude Code names them (the
    original name kept as ``copilot_tool_name``); camelCase payloads are read too."""
    out = dict(payload)
    for camel, snake in (("sessionId", "session_id"), ("toolName", "tool_name")):
        if snake not in out and camel in out:
            out[snake] = out[camel]
    if "tool_input" not in out and "toolArgs" in out:
        out["tool_input"] = out["toolArgs"]
    return translate(out, _TOOLS, "copilot")


def answer(event: str, result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A Claude Code answer as Copilot CLI reads it: before a tool, a deny (also as the
    top-level fields of its reference) or ``hookSpecificOutput.additionalContext`` as it
    is; for the other events, the context as a top-level ``additionalContext``."""
    denied, text = unpack(result)
    if result is None or (denied is None and not text):
        return None
    if denied is not None:
        return {"permissionDecision": "deny", "permissionDecisionReason": denied, **result}
    return result if event == "pre-tool" else {"additionalContext": text}


def hooks_off(root: Path, home: Path) -> str | None:
    """Why Copilot CLI runs none of gitmem's hooks in ``root``, if its settings say so (for
    `gitmem doctor`): ``disableAllHooks: true`` in the repository's
    ``.github/copilot/settings.json`` or ``settings.local.json``, the local file deciding
    when both set it (seen running Copilot CLI 1.0.102; its settings files take comments).
    The same key in the user's ``~/.copilot/settings.json`` (or ``config.json``) stopped no
    hook there, so it is not counted."""
    from gitmem.agent.common import read_settings, strongest

    folder = root / ".github" / "copilot"
    files = (("repository", folder / "settings.json"), ("local", folder / "settings.local.json"))
    off = strongest(read_settings(files, jsonc=True), "disableAllHooks")
    if off is not None and off[1]:
        return f"`disableAllHooks: true` in Copilot CLI's {off[0]} settings: no hook runs"
    return None
