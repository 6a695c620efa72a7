"""What every Claude Code hook event shares: the output shape, the limits, and the policy
for a missing or stale compiled state. Built-in modules only (tool-call hooks import it)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from typing import Any

# The documented default; reading `chars_per_token` from config.yaml would cost a YAML
# import on every hook.
CHARS_PER_TOKEN = 4
MAX_EVENT_CHARS = 8000
SMALL_REBUILD = 300  # records: missing compiled state is rebuilt inline below this size
# Stale state is brought up to date incrementally (only changed records are parsed again):
# one record changed took ~60 ms at 1,000 records and ~186 ms at 3,000, a full rebuild ~480
# ms at 1,000 (in-process, session 29), so a stale table is refreshed inline up to here.
STALE_REFRESH_MAX = 1000
HOOK_EVENT_NAMES = {
    "session-start": "SessionStart",
    "prompt": "UserPromptSubmit",
    "pre-tool": "PreToolUse",
    "post-tool": "PostToolUse",
    "post-tool-failure": "PostToolUseFailure",
    "stop": "Stop",
    "session-end": "SessionEnd",
}


def user_folder(spec: str, home: str) -> str:
    """An agent's user folder, from ``"VARIABLE:default"``: where the agent reads it from
    (seen in each agent's code: CLAUDE_CONFIG_DIR replaces ~/.claude, GEMINI_CLI_HOME the
    home of ~/.gemini, QWEN_HOME ~/.qwen, CODEX_HOME ~/.codex, COPILOT_HOME ~/.copilot)."""
    variable, _, default = spec.partition(":")
    folder = os.environ.get(variable, "").strip()
    return os.path.expanduser(folder) if folder else os.path.join(home, default)


def unpack(result: dict[str, Any] | None) -> tuple[str | None, str]:
    """What a hook answer says: the deny's reason (None when it does not deny) and the
    context it adds ("" for none). The other agents' answers are written from these."""
    specific = result.get("hookSpecificOutput") if result else None
    if not isinstance(specific, dict):
        return None, ""
    denied = specific.get("permissionDecision") == "deny"
    reason = str(specific.get("permissionDecisionReason") or "") if denied else None
    return reason, str(specific.get("additionalContext") or "")


def context(event: str, text: str) -> dict[str, Any] | None:
    """The hook answer that adds ``text`` to the agent's context (None for no text)."""
    if not text:
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": HOOK_EVENT_NAMES[event],
            "additionalContext": text[:MAX_EVENT_CHARS],
        }
    }


def build_inline(root: str, *, stale: bool = False) -> bool | None:
    """Whether missing (or, with ``stale``, out-of-date) compiled state should be built
    inline now (a small repository: True), in the background (False), or not at all (no
    ``.continuity``: None). A hook never waits for a big rebuild."""
    decisions = os.path.join(root, ".continuity")
    if not os.path.isdir(decisions):
        return None
    limit = STALE_REFRESH_MAX if stale else SMALL_REBUILD
    return sum(len(files) for _, _, files in os.walk(decisions)) <= limit


# What this process compiled into memory, by state folder (see ``refreshed_inline``): the
# table and the path map of one compile, so that a hook's look at the map and its check
# of the rules read the same current decisions.
IN_MEMORY: dict[str, Any] = {}


def refreshed_inline(loc: Any) -> Any:
    """Compile a small repository's missing or stale state now (see its callers). None
    when it was written, or when compiling failed: the caller then opens what is on disk,
    if anything (a stale answer beats none), a background refresh is started, and the
    reason is logged for `gitmem doctor`. Where it could not be written (the disk full, a
    quota), the table and the path map compiled into memory for this process
    (``gitmem.compile.build_or_in_memory``), kept in IN_MEMORY: the answer is the records'
    own all the same. Before session 56 the stale state was used there, and a critical
    decision a `git pull` or the agent had just added did not hold."""
    from gitmem import compile as compiler
    from gitmem.agent.runner import ERROR_LOG, append_log

    try:
        compiled = compiler.build_or_in_memory(loc.repo(), "this call")
    except Exception as exc:
        append_log(loc.shared_state_dir, ERROR_LOG, f"compiling the table: {exc!r}")
        refresh_in_background(loc.root)
        return None
    if compiled is not None:
        message = f"compiling the table: not written ({compiled.why}); compiled in memory"
        append_log(loc.shared_state_dir, ERROR_LOG, message)
        IN_MEMORY[loc.state_dir] = compiled
    return compiled


def refresh_in_background(root: str | os.PathLike[str]) -> None:
    """Start a detached ``gitmem index`` (table, path map and search index)."""
    from gitmem.spawn import detach

    detach(["index", "--no-download", "--json"], root)


def read_settings(files: Any, *, jsonc: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """(scope, settings) for each of ``files`` ((scope, path) pairs, weakest first) that
    holds a JSON object; the others (missing, unreadable, not JSON) are passed over. For
    `gitmem doctor`, which reads the agents' settings about their hooks. ``jsonc``: the
    agent allows comments there (Gemini CLI and Qwen Code read settings through
    strip-json-comments)."""
    import json

    found: list[tuple[str, dict[str, Any]]] = []
    for scope, path in files:
        try:
            with open(path, encoding="utf-8-sig" if jsonc else "utf-8") as fh:
                text = fh.read()
            data = json.loads(without_comments(text) if jsonc else text)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            found.append((scope, data))
    return found


def without_comments(text: str) -> str:
    """JSON with ``//`` and ``/* */`` comments as plain JSON: each comment becomes a space,
    strings are kept whole (what strip-json-comments does)."""
    import re

    return re.sub(
        r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/',
        lambda m: m.group(0) if m.group(0).startswith('"') else " ",
        text,
        flags=re.S,
    )


def strongest(found: list[tuple[str, dict[str, Any]]], *keys: str) -> tuple[str, bool] | None:
    """Where a boolean switch (``keys``: its path in the settings) is set last in ``found``
    (read_settings, weakest first), and to what: the agents let the strongest file decide."""
    last: tuple[str, bool] | None = None
    for scope, data in found:
        value: Any = data
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, bool):
            last = (scope, value)
    return last


class Shown:
    """Adapter: a table entry as ``budget.Shown`` (its status is the effective one)."""

    def __init__(self, e: Any) -> None:
        self.id = e.id
        self.title = e.title
        self.status = e.effective_status
        self.severity = e.severity
        self.file = e.file
        self.summary = e.summary
        self.superseded_by = tuple(e.superseded_by)
