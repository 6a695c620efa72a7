"""Gemini CLI's hooks, on the handlers written for Claude Code's payloads.

Gemini CLI (``.gemini/settings.json``, ``hooks``) sends the same base fields (session_id,
transcript_path, cwd, hook_event_name) and reads ``hookSpecificOutput.additionalContext``
at SessionStart, BeforeAgent (the prompt) and AfterTool. Its differences, and what gitmem
does about them:

- Tool names and arguments: ``read_file`` (``absolute_path``, ``file_path`` or ``path``,
  by release), ``write_file``, ``replace`` (``old_string``/``new_string``),
  ``run_shell_command`` (``command``, ``dir_path``/``directory``), ``list_directory``,
  ``glob``, ``search_file_content``/``grep_search`` (``include``), ``read_many_files``
  (``paths``), ``mcp__server__tool``. ``adapt`` renames them to Claude Code's.
- BeforeTool cannot add context; it can deny (``{"decision": "deny", "reason": ...}``,
  the reason goes to the model). So BeforeTool only enforces critical rules, and
  AfterTool brings the decisions governing any path the call touched, read or edited, as
  context appended to the tool's result: the agent has them before its next step.
- A subagent (``invoke_agent``) runs its tool calls under the main session's id, with
  nothing naming it: the before and after hooks of ``invoke_agent`` bracket them, and what
  they are shown is counted in a context window of their own (gitmem.agent.tooluse).
- PreCompress (before history is summarised) lets the session's decisions be shown again,
  as Codex's PostCompact does, but not each time: Gemini CLI sends it (``trigger: auto``)
  before every turn, ahead of its own check of whether the history is big enough to
  compress (seen in 0.61.0). See ``compressed``.

Built-in modules only: the tool-call hooks import this module.
"""

from __future__ import annotations

import os

from gitmem.agent.common import unpack
from gitmem.agent.toolpaths import translate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gitmem.agent.foldertrust import Policy

# Gemini tool -> (Claude Code tool, {Claude argument: Gemini arguments, first found wins})
TOOLS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "read_file": ("Read", {"file_path": ("absolute_path", "file_path", "path")}),
    "write_file": ("Write", {"file_path": ("file_path", "absolute_path", "path")}),
    "replace": ("Edit", {"file_path": ("file_path", "absolute_path", "path")}),
    "run_shell_command": ("Bash", {}),
    "list_directory": ("LS", {"path": ("path", "dir_path", "absolute_path")}),
    "glob": ("Glob", {"path": ("path", "dir_path")}),
    "search_file_content": ("Grep", {"path": ("path", "dir_path"), "glob": ("include",)}),
    "grep_search": ("Grep", {"path": ("path", "dir_path"), "glob": ("include",)}),
}
TOOL_MATCHER = (
    "read_file|read_many_files|write_file|replace|run_shell_command|list_directory|glob|"
    "search_file_content|grep_search|invoke_agent|mcp__.*"
)
EVENT_NAMES = {
    "session-start": "SessionStart",
    "prompt": "BeforeAgent",
    "pre-tool": "BeforeTool",
    "post-tool": "AfterTool",
    "stop": "AfterAgent",
    "session-end": "SessionEnd",
    "post-compact": "PreCompress",
}


# Gemini CLI compresses automatically once a turn's prompt passes a share of the model's
# window (0.5 of 1M tokens by default, `model.compressionThreshold`), and sends PreCompress
# before every turn whether or not that happens. A decision shown again after each
# PreCompress would come back every turn, the token burn the once-per-session rule is
# there to stop. So an automatic PreCompress shows them again only once the transcript
# has grown by RESHOW_BYTES since the last time (~64k tokens: far below any plausible
# compression point, and a few hundred tokens per reshow); a manual one (/compress)
# always does. Critical rules are checked on every edit whatever was shown.
RESHOW_BYTES = 256 * 1024


def compressed(payload: dict[str, Any], last_at: int) -> int | None:
    """At a PreCompress, the size of the transcript if the decisions shown so far may have
    left the agent's window (``last_at``: its size at the previous reshow), else None."""
    path = payload.get("transcript_path")
    size = 0
    if isinstance(path, str) and path:
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0
    if payload.get("trigger") == "manual":
        return size
    return size if size >= last_at + RESHOW_BYTES else None


def user_prompt(prompt: str) -> str:
    """The prompt as the user wrote it. Gemini CLI hands BeforeAgent (and AfterAgent) the
    prompt with the context hooks added to it, SessionStart's digest among them, each as
    ``<hook_context>...</hook_context>`` (seen in 0.61.0): captured and searched as is, the
    digest would be recorded as the user's words and retrieval would match it."""
    opening, closing = "<hook_context>", "</hook_context>"
    while opening in prompt:
        start = prompt.index(opening)
        end = prompt.find(closing, start)
        if end < 0:
            break
        prompt = prompt[:start] + prompt[end + len(closing) :]
    return prompt.strip()


def adapt(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with Gemini's tool name and arguments as Claude Code names them (the
    original name is kept as ``gemini_tool_name``); a shell command runs in ``dir_path``;
    the prompt without the context hooks added to it."""
    prompt = payload.get("prompt")
    if isinstance(prompt, str) and "<hook_context>" in prompt:
        payload = {**payload, "prompt": user_prompt(prompt)}
    return translate(payload, TOOLS, "gemini", ("dir_path", "directory"))


def answer(event: str, result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A Claude Code answer as Gemini CLI reads it: a deny becomes ``decision: deny``
    with its reason, and so does a stop's ``decision: block`` (AfterAgent then sends the
    agent back to work with the reason); context keeps
    ``hookSpecificOutput.additionalContext`` under Gemini's event name."""
    if result is not None and result.get("decision") == "block":  # a stop sending it back
        return {"decision": "deny", "reason": str(result.get("reason") or "")}
    denied, text = unpack(result)
    if denied is not None:
        return {"decision": "deny", "reason": denied}
    # a word for the user (a sparse checkout that leaves the decisions out): Gemini CLI
    # shows a systemMessage as Claude Code does
    told = (
        {"systemMessage": result["systemMessage"]} if result and "systemMessage" in result else {}
    )
    if not text:
        return told or None
    context = {"hookEventName": EVENT_NAMES[event], "additionalContext": text}
    return {"hookSpecificOutput": context, **told}


def trust_policy(root: Path, home: Path) -> Policy:
    """How Gemini CLI decides whether it trusts a folder (gitmem.agent.foldertrust; read in
    its code, 0.61.0): ``GEMINI_RESTRICTED_MODE`` and ``GEMINI_CLI_TRUST_WORKSPACE`` first,
    then ``security.folderTrust.enabled`` (system defaults < user < system settings; on by
    default), then the rules in ``~/.gemini/trustedFolders.json``."""
    from gitmem.agent import install
    from gitmem.agent.foldertrust import Policy

    return Policy(
        "Gemini CLI",
        default_on=True,
        user=install.GEMINI.path("user", root, home),
        system=os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json",
        rules_variable="GEMINI_CLI_TRUSTED_FOLDERS_PATH",
        defaults_variable="GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
        by_depth=False,
        trusted_env=(
            ("GEMINI_RESTRICTED_MODE", "true", False),
            ("GEMINI_CLI_TRUST_WORKSPACE", "false", False),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true", True),
        ),
        how=": trust it in Gemini CLI (`/permissions`), or install gitmem's hooks for your "
        "user (`gitmem install gemini --scope user`)",
    )


def hooks_off(root: Path, home: Path) -> str | None:
    """Why Gemini CLI runs none, or not all, of gitmem's hooks in ``root``, if its settings
    say so (for `gitmem doctor`; read in its code, 0.61.0): ``hooksConfig.enabled: false``
    (user < project < system settings, the strongest that sets it deciding; the project's
    only in a folder it trusts), or gitmem's commands in ``hooksConfig.disabled`` (a hook's
    name is its command; the lists add up)."""
    from gitmem.agent import install
    from gitmem.agent.common import strongest
    from gitmem.agent.foldertrust import read

    found = read(trust_policy(root, home), root, install.GEMINI.path("project", root, home))
    enabled = strongest(found, "hooksConfig", "enabled")
    disabled: set[str] = set()
    for _, data in found:
        config = data.get("hooksConfig")
        if isinstance(config, dict) and isinstance(config.get("disabled"), list):
            disabled.update(str(name) for name in config["disabled"])
    if enabled is not None and not enabled[1]:
        return f"`hooksConfig.enabled: false` in Gemini CLI's {enabled[0]} settings: no hook runs"
    ours = sorted(n for n in disabled if install.GEMINI.fast_prefix in n
                  or install.GEMINI.console_prefix in n)  # fmt: skip
    if ours:
        return f"Gemini CLI's `hooksConfig.disabled` lists {', '.join(ours)}: those do not run"
    return None
