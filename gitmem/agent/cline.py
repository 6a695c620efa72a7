"""Cline's hooks, on the handlers written for Claude Code's payloads.

Cline runs one executable file per event, named after it (``PreToolUse``, ``TaskStart``,
...), from ``.clinerules/hooks/`` in the workspace and from ``~/Documents/Cline/Hooks/``
(gitmem.agent.clinehooks writes them). Each gets a JSON object on stdin and answers one on
stdout: ``{"cancel": bool, "contextModification": str, "errorMessage": str}``.

The payload (Cline CLI 3.0.65, seen running it against a local model, and Cline's hook
reference for the VS Code extension): ``taskId``, ``workspaceRoots``, in the CLI also
``sessionContext.rootSessionId``, ``agent_id`` and ``parent_agent_id`` (null for the main
agent), and per event ``userPromptSubmit.prompt``, ``preToolUse``/``postToolUse``
(``toolName``, ``parameters`` with every value as a string, ``result``); the CLI adds
``tool_call``/``tool_result`` with the arguments as the model sent them, read first here.

What Cline CLI 3.0.65 does with the answers, and what gitmem does about it:

- Only PreToolUse and PostToolUse are waited for. Their ``contextModification`` reaches the
  model with the next request, after the tool ran: so, as for Gemini CLI, the before-tool
  hook enforces critical rules and the after-tool hook brings the decisions of whatever
  the call touched.
- TaskStart and UserPromptSubmit run detached, their answers unread. So the session's
  digest is made by the hook of its first tool result and comes with it
  (gitmem.agent.runner.DIGEST_AT_FIRST_RESULT), and a prompt's decisions are *held*
  (gitmem.agent.runner.HELD) for the next tool result: the agent has both before it edits
  anything.
- The first prompt of a task does not reach UserPromptSubmit; the CLI's own reminder
  ("[SYSTEM] This run is not complete ...") does, and is neither captured nor searched.
  The CLI keeps the task's prompt in its session record (``first_prompt``), so the first
  tool result's hook captures it and brings its decisions, with the digest.
- ``cancel`` stops the whole task, not just the call (the CLI prints "aborted by another
  client" and drops the reason). A critical rule is still enforced that way, its reason in
  ``errorMessage`` for the surfaces that show it: the file is left unchanged.

Tools: the CLI's ``read_files`` (``files``: paths or ``{"path": ...}``), ``editor``
(``path``, ``old_text``, ``new_text``, ``insert_line``), ``apply_patch`` (``input``),
``run_commands`` (``commands``); the extension's ``read_file``, ``write_to_file``,
``replace_in_file`` (a SEARCH/REPLACE ``diff``), ``execute_command``, ``list_files``,
``search_files`` and ``list_code_definition_names``. ``adapt`` renames them to Claude
Code's; another tool is read through its path-like arguments.

Built-in modules only: the tool-call hooks import this module.
"""

from __future__ import annotations

import os

from gitmem import leanjson
from gitmem.agent.common import unpack
from gitmem.agent.toolpaths import PATCH_TOOL

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Cline's hook file -> gitmem's event. TaskCancel only commits what was captured (a
# cancelled task can be resumed); SessionShutdown closes the session.
EVENTS = {
    "TaskStart": "session-start",
    "TaskResume": "session-start",
    "UserPromptSubmit": "prompt",
    "PreToolUse": "pre-tool",
    "PostToolUse": "post-tool",
    "TaskComplete": "stop",
    "TaskCancel": "stop",
    "SessionShutdown": "session-end",
    "PreCompact": "post-compact",
}
SYSTEM_PROMPT = "[SYSTEM] "  # the CLI's reminders to its model, sent as user messages
NOTHING: dict[str, Any] = {"cancel": False}
_MARKERS = ("-------", "<<<<<<<", "+++++++", ">>>>>>>")  # replace_in_file's block lines


def adapt(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as Claude Code would send it: the session, ``cwd`` (the workspace),
    ``prompt``, and the tool renamed (the original name kept as ``cline_tool_name``)."""
    out = dict(payload)
    session = out.get("sessionContext")
    root_session = session.get("rootSessionId") if isinstance(session, dict) else None
    out["session_id"] = str(root_session or out.get("taskId") or "")
    if not out.get("parent_agent_id"):  # the main agent has an agent_id too
        out.pop("agent_id", None)
    roots = out.get("workspaceRoots")
    if not out.get("cwd") and isinstance(roots, list) and roots and isinstance(roots[0], str):
        out["cwd"] = roots[0]
    submitted = out.get("userPromptSubmit")
    if isinstance(submitted, dict):
        text = submitted.get("prompt")
        if isinstance(text, str) and not text.startswith(SYSTEM_PROMPT):
            out["prompt"] = text
    name, args = _call(out)
    if name:
        claude, tool_input = _claude(name, args)
        out.update(tool_name=claude, tool_input=tool_input, cline_tool_name=name)
    after = out.get("postToolUse")
    if isinstance(after, dict) and "result" in after:
        out["tool_response"] = after["result"]
    return out


def sessions_dir() -> str:
    """Where Cline CLI keeps its session records (its own order: CLINE_SESSION_DATA_DIR,
    CLINE_DATA_DIR/sessions, CLINE_DIR/data/sessions, ~/.cline/data/sessions; read in
    its 3.0.65 bundle). The hook inherits the CLI's environment."""
    folder = os.environ.get("CLINE_SESSION_DATA_DIR", "").strip()
    if folder:
        return folder
    data = os.environ.get("CLINE_DATA_DIR", "").strip()
    if not data:
        top = os.environ.get("CLINE_DIR", "").strip() or os.path.expanduser("~/.cline")
        data = os.path.join(top, "data")
    return os.path.join(data, "sessions")


def first_prompt(payload: dict[str, Any]) -> str:
    """The prompt a Cline CLI task started with, which no hook is given: the ``prompt``
    of the session record ``<sessions>/<id>/<id>.json`` (its layout in 3.0.65, seen
    running it). "" where there is none: the VS Code extension, which has no such record
    and gives UserPromptSubmit its prompts; another layout; a record not readable."""
    context = payload.get("sessionContext")
    sid = context.get("rootSessionId") if isinstance(context, dict) else None
    if not isinstance(sid, str) or not sid or sid != os.path.basename(sid) or sid[0] == ".":
        return ""
    try:
        with open(os.path.join(sessions_dir(), sid, sid + ".json"), encoding="utf-8") as fh:
            record = leanjson.loads(fh.read())
    except (OSError, ValueError):
        return ""
    text = record.get("prompt") if isinstance(record, dict) else None
    return text if isinstance(text, str) and not text.startswith(SYSTEM_PROMPT) else ""


def answer(event: str, result: dict[str, Any] | None) -> dict[str, Any]:
    """A Claude Code answer as Cline reads it (what Cline cannot take was held by the
    runner for the next tool result)."""
    denied, text = unpack(result)
    if event == "pre-tool" and denied is not None:
        return {"cancel": True, "errorMessage": denied}
    if text:
        return {"cancel": False, "contextModification": text}
    return dict(NOTHING)


def _call(payload: dict[str, Any]) -> tuple[str, Any]:
    """The tool's name and arguments: the CLI's as sent, else the string parameters."""
    for key in ("tool_call", "tool_result"):
        call = payload.get(key)
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            return call["name"], call.get("input")
    for key in ("preToolUse", "postToolUse"):
        data = payload.get(key)
        if isinstance(data, dict) and isinstance(data.get("toolName"), str):
            return data["toolName"], data.get("parameters")
    return "", None


def _text(args: Any, *keys: str) -> str:
    """The first of ``keys`` holding a non-empty string in ``args`` (when a dict)."""
    if not isinstance(args, dict):
        return ""
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _claude(name: str, args: Any) -> tuple[str, Any]:
    """Claude Code's tool and arguments for one of Cline's; another tool as it is."""
    if name == "read_files":
        return name, {"paths": _read_paths(args)}
    if name == PATCH_TOOL:
        patch = args if isinstance(args, str) else _text(args, "input", "patch")
        return name, {"input": patch}
    if name == "run_commands":
        return "Bash", {"command": "\n".join(_commands(args))}
    if not isinstance(args, dict):
        return name, args
    path = _text(args, "path", "file_path", "absolute_path")
    if name == "editor":
        new = _text(args, "new_text")
        if _text(args, "old_text") or args.get("insert_line") is not None:
            return "Edit", {"file_path": path, "old_string": _text(args, "old_text"),
                            "new_string": new}  # fmt: skip
        return "Write", {"file_path": path, "content": new}
    if name == "read_file":
        return "Read", {"file_path": path}
    if name == "write_to_file":
        return "Write", {"file_path": path, "content": _text(args, "content")}
    if name == "replace_in_file":
        return "Edit", {"file_path": path, "new_string": replaced(_text(args, "diff"))}
    if name == "execute_command":
        return "Bash", {"command": _text(args, "command")}
    if name in ("list_files", "list_code_definition_names"):
        return "LS", {"path": path}
    if name == "search_files":
        return "Grep", {"path": path, "glob": _text(args, "file_pattern")}
    return name, args


def _read_paths(args: Any) -> list[str]:
    """The files of a ``read_files`` call, in the shapes its schema accepts."""
    if isinstance(args, dict):
        for key in ("files", "file_paths", "paths", "path", "file_path", "filePath"):
            if key in args:
                args = args[key]
                break
    items = args if isinstance(args, list) else [args]
    out = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("path") or item.get("file_path") or item.get("filePath")
        if isinstance(item, str) and item:
            out.append(item)
    return out


def _commands(args: Any) -> list[str]:
    """The shell commands of a ``run_commands`` call (strings, or ``{command, args}``)."""
    if isinstance(args, dict):
        args = args.get("commands", args.get("command", args.get("cmd")))
    out = []
    for item in args if isinstance(args, list) else [args]:
        if isinstance(item, dict) and isinstance(item.get("command"), str):
            rest = item.get("args")
            words = [str(a) for a in rest] if isinstance(rest, list) else []
            item = " ".join([item["command"], *words])
        if isinstance(item, str) and item:
            out.append(item)
    return out


def replaced(diff: str) -> str:
    """What a ``replace_in_file`` diff writes: the REPLACE half of each SEARCH/REPLACE
    block (``------- SEARCH`` / ``=======`` / ``+++++++ REPLACE``, or the older
    ``<<<<<<<`` / ``>>>>>>>`` markers)."""
    out: list[str] = []
    inside = False
    for line in diff.splitlines():
        marker = line.strip()
        if marker == "=======":
            inside = True
        elif marker[:7] in _MARKERS and marker.endswith(("SEARCH", "REPLACE")):
            inside = False
        elif inside:
            out.append(line)
    return "\n".join(out)
