"""Factory Droid's hooks, on the handlers written for Claude Code's payloads.

Droid (``droid``, Factory's CLI agent) took Claude Code's hook protocol: the same event
names, payload fields (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
``tool_name``, ``tool_input``, ``tool_response``) and answers (``hookSpecificOutput``;
exit 2 with the reason on stderr). What differs, as Droid 0.225.2 ran against a local
model (`droid exec` with a custom model; tests/test_live_agents.py):

- Its hooks live in ``.factory/hooks.json`` (the project's) or ``~/.factory/hooks.json``
  (the user's), the events at the top level of the file, not under ``hooks``. It also
  reads ``hooks`` in the scope's ``settings.json``, but per event: an event that
  hooks.json names hides that event's hooks in settings.json (seen running it), and an
  older ``.factory/hooks/hooks.json`` is read only where there is no hooks.json. So
  gitmem installs into the file Droid reads for each event (``hooks_file``).
- Its tools have names of their own: ``Read`` (``file_path``), ``Create`` (a new file:
  ``file_path``, ``content``), ``Edit`` (``old_str``/``new_str``), ``Execute`` (the
  shell: ``command``), ``LS`` (``directory_path``), ``Grep`` (``path``,
  ``glob_pattern``), ``Glob`` (``patterns``, a string or a list, and ``folder``);
  ``adapt`` renames them to Claude Code's. ``ApplyPatch`` (the patch tool Droid gives
  some GPT models; not offered to a custom model here, so not seen) is read as Codex's
  ``apply_patch``.
- PreToolUse's ``additionalContext`` does not reach the model (its deny does); the
  context of SessionStart and PostToolUse does. So, as for Qwen Code, what the
  before-tool hook finds is held for the tool's result (gitmem.agent.runner.HELD) and the
  after-tool hook brings the decisions of whatever the call touched.
- `droid exec` (its non-interactive mode, also with ``--input-format stream-json``) runs
  no UserPromptSubmit hook. So the hook of a turn's first tool call, or its Stop hook if it
  made none, reads the turn's prompt from Droid's transcript (``transcript_path``) and
  does what the prompt hook does: captures it, brings its decisions (with the call's
  result), and notes the work tree as the turn begins (``turn_prompt``). Its interactive
  mode needs a Factory account, so whether it runs that hook was not seen here; where it
  does, the transcript is not read.

Built-in modules only: the tool-call hooks import this module.
"""

from __future__ import annotations

import os

from gitmem import leanjson
from gitmem.agent import state
from gitmem.agent.toolpaths import PATCH_TOOL, translate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# Droid tool -> (Claude Code tool, {Claude argument: Droid arguments, first found wins})
_TOOLS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "Read": ("Read", {}),
    "Create": ("Write", {}),
    "Edit": ("Edit", {"old_string": ("old_str",), "new_string": ("new_str",)}),
    "Execute": ("Bash", {}),
    "LS": ("LS", {"path": ("directory_path", "path")}),
    "Grep": ("Grep", {"glob": ("glob_pattern", "glob")}),
    "Glob": ("Glob", {"path": ("folder", "path"), "pattern": ("patterns", "pattern")}),
    "ApplyPatch": (PATCH_TOOL, {}),
}

TOOL_MATCHER = "|".join(sorted(_TOOLS)) + "|mcp__.*"


def adapt(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with Droid's tool name and arguments as Claude Code names them (the
    original name kept as ``droid_tool_name``). A Glob of several patterns is read as
    each pattern's folder under the one its ``folder`` names: Claude Code's Glob takes one
    pattern, and a Glob only reads."""
    tool_input = payload.get("tool_input")
    if payload.get("tool_name") == "Glob" and isinstance(tool_input, dict):
        patterns = tool_input.get("patterns")
        if isinstance(patterns, list):
            given = [p for p in patterns if isinstance(p, str) and p]
            first = given[0] if given else ""
            tool_input = {**tool_input, "patterns": _common_pattern(given) or first}
            payload = {**payload, "tool_input": tool_input}
    return translate(payload, _TOOLS, "droid")


def _common_pattern(patterns: list[str]) -> str:
    """The folder the glob ``patterns`` share, as a pattern of everything under it ("" for
    none): ``src/**/*.ts`` and ``src/lib/*.tsx`` give ``src/**``."""
    if len(patterns) < 2:
        return ""
    literal = []
    for pattern in patterns:
        parts = pattern.split("/")
        head = parts[:-1]
        cut = next((i for i, p in enumerate(head) if any(c in p for c in "*?[{")), len(head))
        literal.append(head[:cut])
    shared: list[str] = []
    for names in zip(*literal, strict=False):
        if len(set(names)) != 1:
            break
        shared.append(names[0])
    return "/".join([*shared, "**"]) if shared else ""


def hooks_file(scope_folder: Path, event: str) -> Path:
    """The file of the scope folder ``scope_folder`` (the project's or the user's
    ``.factory``) whose hooks Droid runs for ``event``: hooks.json where it names the
    event or there is no settings.json hook for it; else settings.json (its ``hooks``).
    Without a hooks.json, the older ``hooks/hooks.json`` stands in for it where it
    exists (Droid reads that one then), else hooks.json is the file to make."""
    hooks = scope_folder / "hooks.json"
    if not hooks.exists() and (scope_folder / "hooks" / "hooks.json").exists():
        hooks = scope_folder / "hooks" / "hooks.json"
    if event in _events(hooks):
        return hooks
    settings = scope_folder / "settings.json"
    return settings if event in _events(settings) else hooks


def _events(path: Path) -> set[str]:
    """The events a Droid hooks or settings file names hooks for."""
    hooks = hooks_in_file(path)
    return {k for k, v in hooks.items() if isinstance(v, list)} if hooks else set()


def hooks_in_file(path: Path) -> dict[str, Any] | None:
    """The hooks object of a Droid file: a hooks.json itself, a settings file's ``hooks``
    (as gitmem.agent.install.Agent.hooks_in reads them), its JSON read with comments as
    Droid reads it; None where there is none or it cannot be read (install says what is
    wrong with it)."""
    import json

    from gitmem.agent.common import without_comments

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        try:
            data = json.loads(text)
        except ValueError:
            data = json.loads(without_comments(text))
    except (OSError, ValueError):
        return None
    hooks = (
        data.get("hooks") if path.name.startswith("settings") and isinstance(data, dict) else data
    )
    return hooks if isinstance(hooks, dict) else None


def hooks_off(root: Path, home: Path) -> str | None:
    """Why Droid runs none of gitmem's hooks in ``root``, if its files say so (for `gitmem
    doctor`): ``hooksDisabled: true`` in a hooks.json, or under ``hooks`` in a
    settings.json, of the project's or the user's ``.factory`` (Droid's /hooks switch
    writes it). The first scope that sets it decides, the project's before the user's
    (seen running 0.225.2 with the key in each scope's hooks.json, true or false)."""
    for folder in (root / ".factory", home / ".factory"):
        for name in ("hooks.json", "settings.local.json", "settings.json"):
            hooks = hooks_in_file(folder / name)
            off = hooks.get("hooksDisabled") if hooks else None
            if isinstance(off, bool):
                if not off:
                    return None
                where = os.path.join(str(folder), name)
                return f"`hooksDisabled: true` in {where}: Droid runs no hook"
    return None


# How much of the end of Droid's transcript is read for the turn's prompt: at a turn's
# first tool call the prompt is followed only by the model's first answer
TRANSCRIPT_TAIL = 1 << 20
_OPEN, _ASKED = "open", "asked"


def turn_prompt(shared: str, payload: dict[str, Any], event: str) -> str | None:
    """The prompt of the turn that ``event`` (``prompt``, ``pre-tool`` or ``stop``) is
    part of, read from the transcript, where no prompt hook brought it and no other hook
    of the turn has taken it; None otherwise. A file beside the session's state says
    whether the turn's prompt was had (``asked``), so that the turn's later tool calls read
    nothing; of parallel hooks (Droid runs the hooks of both scopes where gitmem is
    installed for each) one claims the prompt (state.claim). ``session-start`` opens the
    next turn too: a turn cut off before its Stop (Droid killed, then the session resumed)
    would leave it asked."""
    sid = str(payload.get("session_id") or "")
    marker = state.session_file(shared, sid)[: -len(".jsonl")] + ".droid-turn"
    try:
        with open(marker, encoding="utf-8") as fh:
            now = fh.read()
    except OSError:
        now = _OPEN
    if event != "pre-tool":  # a turn begins asked; the next one begins open
        _mark(marker, _ASKED if event == "prompt" else _OPEN)
    if event in ("prompt", "session-start") or now == _ASKED:
        return None
    found = last_prompt(payload.get("transcript_path"))
    if found is None:
        return None
    message_id, text = found
    if not state.claim(shared, sid, "droid-prompt-" + message_id[:80]):
        return None
    if event != "stop":
        _mark(marker, _ASKED)
    return text


def _mark(path: str, value: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(value)
    except OSError:
        pass  # no state folder yet, or none to write: the transcript is read again


def last_prompt(transcript: object) -> tuple[str, str] | None:
    """(id, text) of the last message the user typed in Droid's transcript (JSON lines:
    ``{"type": "message", "id", "message": {"role": "user", "content": [{"type":
    "text", "text"}]}}``), leaving out what Droid writes in the user's role: hook output
    (``hookEventName``), reminders (ids ``context-...``, ``<system-reminder>`` text) and
    tool results. None where there is none, or no file."""
    if not isinstance(transcript, str) or not os.path.isfile(transcript):
        return None  # nor a FIFO, whose open would wait
    try:
        with open(transcript, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TRANSCRIPT_TAIL))
            data = fh.read(TRANSCRIPT_TAIL)
    except OSError:
        return None
    lines = data.split(b"\n")
    if size > TRANSCRIPT_TAIL:
        lines = lines[1:]  # cut at the tail's start
    for line in reversed(lines):
        if b'"user"' not in line:  # the common case: not parsed (_typed reads the rest)
            continue
        try:
            record = leanjson.loads(line)
        except ValueError:
            continue
        found = _typed(record)
        if found is not None:
            return found
    return None


def _typed(record: object) -> tuple[str, str] | None:
    """(id, text) of a transcript record that is a message the user typed, else None."""
    if not isinstance(record, dict) or record.get("type") != "message":
        return None
    message = record.get("message")
    message_id = record.get("id")
    if not isinstance(message, dict) or not isinstance(message_id, str):
        return None
    if message.get("role") != "user" or "hookEventName" in message or "visibility" in message:
        return None
    if message_id.startswith("context-"):
        return None
    content = message.get("content")
    if isinstance(content, str):
        blocks: list[object] = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        return None
    texts = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            return None  # a tool's result, in the user's role
        if not isinstance(block, dict) or block.get("type") != "text":
            continue  # an image the user attached
        text = block.get("text")
        if isinstance(text, str) and text.strip() and not text.startswith("<system-reminder>"):
            texts.append(text)
    return (message_id, "\n".join(texts)) if texts else None
