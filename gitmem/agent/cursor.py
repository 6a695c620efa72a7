"""Cursor's agent hooks, on the handlers written for Claude Code's payloads.

Cursor (``.cursor/hooks.json``: ``{"version": 1, "hooks": {event: [{"command": ...}]}}``)
sends ``conversation_id`` (the session), ``generation_id``, ``workspace_roots`` and, on tool
events, ``cwd``, ``tool_name`` and ``tool_input``. Its differences, and what gitmem does
about them:

- Context reaches the model only from ``sessionStart`` and ``postToolUse``
  (``{"additional_context": ...}``). ``preToolUse`` can only allow or deny
  (``{"permission": "deny", "user_message", "agent_message"}``) and ``beforeSubmitPrompt``
  can only let the prompt through or stop it (``{"continue": ...}``). So:

  * preToolUse only enforces critical rules (as Gemini CLI's BeforeTool does);
  * postToolUse brings the decisions governing any path the call read or edited;
  * a prompt's decisions are retrieved (and the prompt captured) at beforeSubmitPrompt,
    *held* in the session's state, and delivered with the result of the turn's first tool
    call: the agent has them before it edits anything. A turn with no tool call keeps
    them for the next one.

- Tools are ``Read``, ``Write``, ``Edit``/``StrReplace``, ``Delete``, ``Grep``, ``Glob``,
  ``LS``, ``Shell`` (``command``, ``working_directory``), ``Task`` and ``MCP:<tool>``;
  argument names vary by release (``file_path``, ``target_file``, ``path``), so ``adapt``
  takes the first it finds and renames the tool to Claude Code's. An unknown tool falls
  through to gitmem's generic reading of path-like arguments.
- Cursor takes an empty answer for a failed hook, so every answer here is a JSON object,
  ``{}`` when there is nothing to say (and on gitmem's own errors: fail open).
- ``preCompact`` lets the session's decisions be shown again, as Codex's PostCompact does.

Built-in modules only: the tool-call hooks import this module.
"""

from __future__ import annotations

from gitmem.agent.common import unpack
from gitmem.agent.toolpaths import translate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


_FILE_KEYS = ("file_path", "target_file", "path", "filePath", "absolute_path")
_TEXT_KEYS = ("content", "contents", "code_edit", "streamingContent")
_FILE: dict[str, tuple[str, ...]] = {"file_path": _FILE_KEYS}
# Cursor tool -> (Claude Code tool, {Claude argument: Cursor arguments, first found wins})
_TOOLS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "Read": ("Read", _FILE),
    "Write": ("Write", {**_FILE, "content": _TEXT_KEYS}),
    "Edit": ("Edit", _FILE),
    "StrReplace": ("Edit", _FILE),
    "MultiEdit": ("MultiEdit", _FILE),
    "Delete": ("Write", _FILE),
    "Shell": ("Bash", {}),
    "Grep": ("Grep", {}),
    "Glob": ("Glob", {}),
    "LS": ("LS", {}),
}


def adapt(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as Claude Code would send it: ``session_id`` is ``conversation_id``,
    ``cwd`` from the first workspace root when the event has none, the tool renamed (the
    original name kept as ``cursor_tool_name``) and its arguments under Claude's names."""
    out = dict(payload)
    if out.get("conversation_id"):  # on every event; some also carry a `session_id` of
        out["session_id"] = str(out["conversation_id"])  # their own: one session, one key
    roots = out.get("workspace_roots")
    cwd = out.get("cwd")
    if not (isinstance(cwd, str) and cwd) and isinstance(roots, list) and roots:
        out["cwd"] = roots[0] if isinstance(roots[0], str) else None
    return translate(out, _TOOLS, "cursor", ("working_directory", "cwd"))


def empty(event: str) -> dict[str, Any]:
    """The answer that changes nothing (also the fail-open answer)."""
    return {"continue": True} if event == "prompt" else {}


def answer(event: str, result: dict[str, Any] | None) -> dict[str, Any]:
    """A Claude Code answer as Cursor reads it (a prompt's context was held by the runner
    for the next tool result: see gitmem.agent.runner.HELD)."""
    denied, text = unpack(result)
    if event == "pre-tool":
        if denied is not None:
            return {"permission": "deny", "user_message": denied, "agent_message": denied}
        return {}
    if event == "prompt":
        return empty(event)
    if event in ("session-start", "post-tool") and text:
        return {"additional_context": text}  # at most common.MAX_EVENT_CHARS
    return {}
