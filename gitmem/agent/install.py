"""``gitmem install claude|codex|gemini|cursor|copilot|qwen|droid`` / ``gitmem uninstall
...``: merge gitmem's hooks into a Claude Code settings file, a Codex ``hooks.json``, a
Gemini CLI or Qwen Code ``settings.json``, a Cursor ``hooks.json``, Copilot CLI's
``gitmem.json`` or a Factory Droid ``hooks.json`` without touching anything else, and take
out exactly what was added. Also the plugin's ``hooks/hooks.json`` and the MCP registration."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gitmem import fsutil
from gitmem.agent.common import user_folder, without_comments
from gitmem.agent.droid import TOOL_MATCHER as DROID_TOOL_MATCHER
from gitmem.agent.droid import hooks_file
from gitmem.agent.gemini import TOOL_MATCHER as GEMINI_TOOL_MATCHER
from gitmem.agent.qwen import TOOL_MATCHER as QWEN_TOOL_MATCHER
from gitmem.agent.runner import SYSTEM_MESSAGE, TIMEOUT_S
from gitmem.errors import GitmemError
from gitmem.fsutil import atomic_write

# `gitmem-hook` is a plain script (no console-script wrapper importing `re` first; see
# gitmem.agent.runner.main). Where it cannot run (Windows has no shebangs) or is not on
# PATH (an installer that exposes only console scripts), the hooks call the console script,
# `gitmem hook AGENT EVENT` (Agent.fast_prefix and console_prefix below): the same code,
# a few milliseconds slower per event.
MCP_SERVER = {"type": "stdio", "command": "gitmem", "args": ["mcp"]}


@dataclass(frozen=True)
class Agent:
    """An agent whose hooks take Claude Code's payloads and answers: its name (the
    ``gitmem-hook NAME EVENT`` argument), its events (agent event -> (tool or source
    matcher or None, gitmem event)) and each scope's hooks file, relative to the
    repository root, the home folder, or the folder an environment variable names (else
    its default under home): scope -> (base, path)."""

    name: str
    events: dict[str, tuple[str | None, str]]
    files: dict[str, tuple[str, str]]
    timeout: int = TIMEOUT_S  # in the unit the agent reads: seconds, or Gemini's ms
    # Cursor's and Copilot's hooks files list the hooks themselves under each event
    # ({"command": ...}), not groups of {"matcher", "hooks": [...]}, and carry a "version"
    flat: bool = False
    # Copilot CLI: the command under "bash" (and "powershell"), the timeout in "timeoutSec"
    shell_keys: bool = False
    # Gemini CLI and Qwen Code read their settings with comments (strip-json-comments)
    comments: bool = False
    # Gemini CLI and Qwen Code name a hook by its `name`, else its command, where they list
    # a project's hooks for the user to review and in their logs: the guarded command
    # (GUARD) is long, so gitmem's hooks are named by the command they run
    named: bool = False
    # Factory Droid's layout: a hooks.json holding the events at its top level, not under
    # "hooks", beside a settings.json whose "hooks" it reads event by event and an older
    # hooks/hooks.json it reads only without a hooks.json (gitmem.agent.droid.hooks_file)
    top_level: bool = False

    @property
    def command_key(self) -> str:
        return "bash" if self.shell_keys else "command"

    @property
    def scopes(self) -> tuple[str, ...]:
        return tuple(self.files)

    @property
    def fast_prefix(self) -> str:
        return f"gitmem-hook {self.name} "

    @property
    def console_prefix(self) -> str:
        return f"gitmem hook {self.name} "

    def path(self, scope: str, root: Path, home: Path) -> Path:
        if scope not in self.files:
            raise GitmemError(
                f"unknown scope {scope!r} for {self.name}: use {' or '.join(self.scopes)}"
            )
        base, rel = self.files[scope]
        if base == "root":
            return root / rel
        if base == "home":
            return home / rel
        # "VARIABLE:default under home": where the agent reads its user folder from
        return Path(user_folder(base, str(home))) / rel

    def hooks_in(self, path: Path, data: dict[str, Any], make: bool = False) -> Any:
        """The hooks object of the file ``path`` holding ``data`` (made, if ``make``):
        its ``hooks``, or the file itself where the agent keeps them there."""
        if self.top_level and not path.name.startswith("settings"):
            return data
        return data.setdefault("hooks", {}) if make else data.get("hooks")

    def hook_files(self, scope: str, root: Path, home: Path) -> list[Path]:
        """Every file of ``scope`` that may hold this agent's hooks: the scope's own, and
        for Droid the others it reads too (gitmem.agent.droid.hooks_file)."""
        path = self.path(scope, root, home)
        if not self.top_level:
            return [path]
        return [path, path.parent / "hooks" / "hooks.json", path.parent / "settings.json"]

    def targets(self, scope: str, root: Path, home: Path) -> dict[Path, Agent]:
        """The file of ``scope`` to install each of the agent's events in: the scope's own,
        or for Droid the one it reads that event's hooks from (an event of settings.json
        that a new hooks.json would hide stays there); the agent with those events."""
        path = self.path(scope, root, home)
        if not self.top_level:
            return {path: self}
        split: dict[Path, dict[str, tuple[str | None, str]]] = {}
        for event, spec in self.events.items():
            split.setdefault(hooks_file(path.parent, event), {})[event] = spec
        return {file: replace(self, events=events) for file, events in split.items()}


TOOL_MATCHER = "Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|LS|Bash|mcp__.*"
CLAUDE_FILES = {
    "project": ("root", ".claude/settings.json"),
    "local": ("root", ".claude/settings.local.json"),
    "user": ("CLAUDE_CONFIG_DIR:.claude", "settings.json"),
}
CLAUDE = Agent(
    "claude",
    {
        "SessionStart": ("startup|resume|clear|compact", "session-start"),
        "UserPromptSubmit": (None, "prompt"),
        "PreToolUse": (TOOL_MATCHER, "pre-tool"),
        "PostToolUse": (TOOL_MATCHER, "post-tool"),
        "Stop": (None, "stop"),
        "SessionEnd": (None, "session-end"),
    },
    CLAUDE_FILES,
)
# Claude Code and Qwen Code run PostToolUseFailure, not PostToolUse, after a call that
# failed or was interrupted: a shell command that exits non-zero among them (a generator
# stopped by an error, a failing test run). It ends the command's span
# (gitmem.agent.shelleffects), so what the command wrote before it failed is the session's
# edit too. StopFailure ends a turn an API error ended (a rate limit, an overloaded
# server) instead of Stop: the turn is recorded and its capture committed then, not ten
# minutes later by the flusher (gitmem.unfinished). Its answer is not read, so it sends
# nothing back.
FAILURE_EVENTS: dict[str, tuple[str | None, str]] = {
    "PostToolUseFailure": ("Bash", "post-tool-failure"),
    "StopFailure": (None, "stop"),
}
# But a Claude Code that does not know an event name skips the whole settings file it is
# in ("Invalid key in record"; in `claude -p` without a word): every hook, permission and
# variable there. 2.1.77 does so for these two (run here: no hook of gitmem's ran), 2.1.78
# reads both. So they are installed only for a Claude Code that reads them (its
# `--version`), and never in the committed project file, which teammates' older Claude
# Code may read: `install claude` puts them in the machine's own file beside it
# (CLAUDE_FAILURES_SCOPE). Not in the plugin's hooks.json either (a static file).
CLAUDE_FAILURES = Agent("claude", FAILURE_EVENTS, CLAUDE_FILES)
FAILURE_EVENTS_SINCE = (2, 1, 78)
CLAUDE_FAILURES_SCOPE = {"project": "local", "local": "local", "user": "user"}
# Codex's hooks (`.codex/hooks.json`) send Claude Code's payloads and read its answers. Its
# tools are `Bash`, `apply_patch` (the patch in `tool_input.command`) and MCP tools; it has
# no SessionEnd, and PostCompact cannot add context: it lets the session's decisions be
# shown again (SessionStart's `compact` source does that for Claude Code).
CODEX_TOOL_MATCHER = "Bash|apply_patch|mcp__.*"
CODEX = Agent(
    "codex",
    {
        "SessionStart": (None, "session-start"),
        "UserPromptSubmit": (None, "prompt"),
        "PreToolUse": (CODEX_TOOL_MATCHER, "pre-tool"),
        "PostToolUse": (CODEX_TOOL_MATCHER, "post-tool"),
        "Stop": (None, "stop"),
        "PostCompact": (None, "post-compact"),
    },
    {"project": ("root", ".codex/hooks.json"), "user": ("CODEX_HOME:.codex", "hooks.json")},
)
# Gemini CLI (`.gemini/settings.json`): its payloads and answers are translated by
# gitmem.agent.gemini; timeouts are in milliseconds.
GEMINI = Agent(
    "gemini",
    {
        "SessionStart": (None, "session-start"),
        "BeforeAgent": (None, "prompt"),
        "BeforeTool": (GEMINI_TOOL_MATCHER, "pre-tool"),
        "AfterTool": (GEMINI_TOOL_MATCHER, "post-tool"),
        "AfterAgent": (None, "stop"),
        "SessionEnd": (None, "session-end"),
        "PreCompress": (None, "post-compact"),
    },
    {
        "project": ("root", ".gemini/settings.json"),
        "user": ("GEMINI_CLI_HOME:", ".gemini/settings.json"),
    },
    timeout=TIMEOUT_S * 1000,
    comments=True,
    named=True,
)
# Claude Code's event names, every tool matched: what Qwen Code and Copilot CLI (with
# PascalCase names) took, each with its own compaction event
CLAUDE_NAMED: dict[str, tuple[str | None, str]] = {
    "SessionStart": (None, "session-start"),
    "UserPromptSubmit": (None, "prompt"),
    "PreToolUse": (None, "pre-tool"),
    "PostToolUse": (None, "post-tool"),
    "Stop": (None, "stop"),
    "SessionEnd": (None, "session-end"),
}
# Qwen Code (`.qwen/settings.json`): Claude Code's events and answers over Gemini CLI's tool
# names (gitmem.agent.qwen, which says how it matches them); timeouts in milliseconds.
QWEN = Agent(
    "qwen",
    {
        **CLAUDE_NAMED,
        "PreToolUse": (QWEN_TOOL_MATCHER, "pre-tool"),
        "PostToolUse": (QWEN_TOOL_MATCHER, "post-tool"),
        **FAILURE_EVENTS,
        "PostToolUseFailure": ("run_shell_command", "post-tool-failure"),
        "PostCompact": (None, "post-compact"),
    },
    {"project": ("root", ".qwen/settings.json"), "user": ("QWEN_HOME:.qwen", "settings.json")},
    timeout=TIMEOUT_S * 1000,
    comments=True,
    named=True,
)
# Cursor (`.cursor/hooks.json`): payloads and answers translated by gitmem.agent.cursor. No
# tool matcher: Cursor's tool names and their arguments have changed between releases, and
# an edit missed by a matcher would go unchecked without a word.
CURSOR = Agent(
    "cursor",
    {
        "sessionStart": (None, "session-start"),
        "beforeSubmitPrompt": (None, "prompt"),
        "preToolUse": (None, "pre-tool"),
        "postToolUse": (None, "post-tool"),
        "stop": (None, "stop"),
        "sessionEnd": (None, "session-end"),
        "preCompact": (None, "post-compact"),
    },
    {"project": ("root", ".cursor/hooks.json"), "user": ("home", ".cursor/hooks.json")},
    flat=True,
)
# GitHub Copilot CLI (`.github/hooks/*.json`: gitmem's own file in that folder). PascalCase
# event names select its snake_case payloads (gitmem.agent.copilot); since 1.0.x it reads
# context from them too (seen running 1.0.102), so the same events as Claude Code's.
COPILOT = Agent(
    "copilot",
    {**CLAUDE_NAMED, "PreCompact": (None, "post-compact")},
    {
        "project": ("root", ".github/hooks/gitmem.json"),
        "user": ("COPILOT_HOME:.copilot", "hooks/gitmem.json"),
    },
    flat=True,
    shell_keys=True,
)
# Factory Droid (`.factory/hooks.json`, the events at its top level): Claude Code's events
# and answers over tool names of its own (gitmem.agent.droid). PreCompact lets the
# session's decisions be shown again after its history is summarised. It reads its JSON
# files with comments (jsonc-parser, in its bundle).
DROID = Agent(
    "droid",
    {
        **CLAUDE_NAMED,
        "PreToolUse": (DROID_TOOL_MATCHER, "pre-tool"),
        "PostToolUse": (DROID_TOOL_MATCHER, "post-tool"),
        "PreCompact": (None, "post-compact"),
    },
    {"project": ("root", ".factory/hooks.json"), "user": ("home", ".factory/hooks.json")},
    comments=True,
    top_level=True,
)
CURSOR_VERSION = 1  # the hooks file format version Cursor and Copilot CLI read
AGENTS = {a.name: a for a in (CLAUDE, CODEX, GEMINI, CURSOR, COPILOT, QWEN, DROID)}
EVENTS = CLAUDE.events  # the plugin's events
FAST_PREFIX = CLAUDE.fast_prefix  # the plugin's command form
CONSOLE_PREFIX = CLAUDE.console_prefix


def command_prefix(agent: Agent = CLAUDE) -> str:
    """The command form to install on this machine (see above)."""
    if os.name == "nt" or shutil.which("gitmem-hook") is None:
        return agent.console_prefix
    return agent.fast_prefix


# Each hook command is guarded, in POSIX sh: every agent here runs a hook's command
# through a shell (Claude Code `sh -c`, Gemini CLI and Qwen Code `bash -c`, Copilot CLI
# its `bash` key, Codex and Cursor a shell; each run in tests/test_live_agents.py but
# Cursor). A team commits the project's hooks, and a teammate may run the agent without
# gitmem installed, or where its PATH does not find it (a virtual environment not
# activated, a desktop launcher's PATH). Unguarded, the shell's "not found" (exit 127)
# made Gemini CLI block every prompt and Copilot CLI deny every tool call (seen running
# both), and Claude Code, Codex and Qwen Code report a failed hook on each event. Guarded,
# the hook answers what changes nothing (gitmem.agent.runner's fail-open answer), a
# deliberate block (exit 2) still goes through, and the session-start hook says once, to
# the agent and where the agent shows it to the user, that gitmem did not run. Not on
# Windows, where an agent may run the command in cmd or PowerShell: the command stays
# plain there.
GUARD = (
    "if command -v {program} >/dev/null 2>&1; then {command} && exit; [ $? -ne 2 ] || exit 2; fi"
)
_GUARDED = re.compile(
    r"if command -v (\S+) >/dev/null 2>&1; then (.+?) && exit; \[ \$\? -ne 2 \] \|\| exit 2; fi"
)
# Said at session start where gitmem could not run: to the agent, the records still
# apply; to the user (Claude Code's, Codex's, Gemini CLI's and Qwen Code's systemMessage),
# how to make gitmem run.
MISSING_NOTE = (
    "gitmem did not run (not installed, or not on the PATH of this agent), so the decisions "
    "recorded in this project are not brought to this session. If the repository has a "
    ".continuity/ folder, its records still apply: Markdown files in .continuity/decisions/ "
    "(and in the ADR folders under `sources` in .continuity/config.yaml), each naming in "
    "`globs:` the paths it governs. Read those governing a file before changing it."
)
MISSING_MESSAGE = (
    "gitmem did not run: `{program}` is not on the PATH of this agent, or failed. Install "
    "gitmem where the agent finds it; `gitmem doctor` checks the setup."
)


def guarded(command: str, fallback: dict[str, Any] | None = None) -> str:
    """``command`` (``gitmem-hook AGENT EVENT``) run only where its program is found,
    its failures other than a block (exit 2) turned into ``fallback`` (printed as JSON;
    None: no output), as GUARD says."""
    out = GUARD.format(program=command.split()[0], command=command)
    if fallback is not None:
        out += "; printf '%s\\n' " + shlex.quote(json.dumps(fallback))
    return out


def fallback_answer(agent: Agent, event: str, program: str) -> dict[str, Any] | None:
    """What the guarded hook of ``event`` prints when gitmem does not run: the agent's
    fail-open answer, and at session start MISSING_NOTE (and MISSING_MESSAGE)."""
    from gitmem.agent import runner
    from gitmem.agent.common import context

    if event != "session-start":
        return runner._nothing(agent.name, event)
    result = runner.translated(agent.name, event, context(event, MISSING_NOTE))
    if agent.name in SYSTEM_MESSAGE:
        result = {**(result or {}), "systemMessage": MISSING_MESSAGE.format(program=program)}
    return result


def hook_command(prefix: str, event: str, agent: Agent = CLAUDE) -> str:
    """The command installed for gitmem's ``event`` (GUARD; plain on Windows)."""
    command = prefix + event
    if os.name == "nt":
        return command
    return guarded(command, fallback_answer(agent, event, command.split()[0]))


def inner_command(command: str, agent: Agent = CLAUDE) -> str | None:
    """The ``gitmem-hook AGENT EVENT`` (or ``gitmem hook ...``) a hook command runs, guarded
    or plain; None when it is not gitmem's."""
    prefixes = (agent.fast_prefix, agent.console_prefix)
    if command.startswith(prefixes):
        return command
    found = _GUARDED.match(command)
    if found and found.group(2).startswith(prefixes):
        return found.group(2)
    return None


def hooks_config(
    prefix: str = FAST_PREFIX, agent: Agent = CLAUDE
) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for event, (matcher, ours) in agent.events.items():
        command = hook_command(prefix, ours, agent)
        hook = {"type": "command", "command": command, "timeout": agent.timeout}
        if agent.named:
            hook = {"name": prefix + ours, **hook}
        if agent.shell_keys:  # PowerShell has no shebangs: the console script there
            hook = {"type": "command", "bash": command, "timeoutSec": agent.timeout}
            hook["powershell"] = agent.console_prefix + ours
        if agent.flat:
            out[event] = [{**hook, **({"matcher": matcher} if matcher else {})}]
            continue
        group: dict[str, Any] = {}
        if matcher is not None:
            group["matcher"] = matcher
        group["hooks"] = [hook]
        out[event] = [group]
    return out


def _hooks_of(groups: Any, agent: Agent) -> list[Any]:
    """The hook entries under one event: the entries themselves (Cursor), or those of
    each matcher group."""
    if not isinstance(groups, list):
        return []
    if agent.flat:
        return list(groups)
    return [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or []]


def plugin_hooks_json() -> str:
    data = {
        "description": "gitmem: bring the project's architectural decisions to the agent",
        "hooks": hooks_config(),
    }
    return json.dumps(data, indent=2) + "\n"


def _load(path: Path, agent: Agent | None = None) -> dict[str, Any]:
    """The JSON object in ``path`` ({} when there is no file), read with comments for an
    agent that allows them there (``Agent.comments``)."""
    if not path.exists():
        return {}
    text = _read(path)
    try:
        data = json.loads(text or "{}")
    except ValueError as exc:
        data = _commented(text) if agent is not None and agent.comments else None
        if data is None:
            raise GitmemError(
                f"{path}: not valid JSON ({exc}); fix it first, nothing was changed"
            ) from exc
    if not isinstance(data, dict):
        raise GitmemError(f"{path}: expected a JSON object; nothing was changed")
    return data


def _read(path: Path) -> str:
    try:
        return fsutil.read_text(path)
    except fsutil.NotUtf8 as exc:
        raise GitmemError(f"{path}:{exc.line}: {exc}; nothing was changed") from None


def _commented(text: str) -> Any:
    """JSON with comments, parsed; None when it is not that either."""
    try:
        return json.loads(without_comments(text) or "{}")
    except ValueError:
        return None


def _rewrite(path: Path, data: dict[str, Any] | None) -> None:
    """Write ``data`` over ``path`` (None: remove the file, and its folder if that is left
    empty; a symbolic link is kept, its file emptied), unless the file holds comments,
    which that would drop (an agent that allows them: Gemini CLI, Qwen Code)."""
    if path.exists():
        try:
            json.loads(_read(path) or "{}")
        except ValueError:
            raise GitmemError(
                f"{path}: has comments, which the agent allows but gitmem would drop when it "
                "rewrites the file; nothing was changed. Move them out of the file, or "
                "install in the other scope"
            ) from None
    if data is None and path.is_symlink():
        data = {}  # the user linked this file into place (dotfiles): keep the link
    if data is None:
        path.unlink()
        with contextlib.suppress(OSError):
            path.parent.rmdir()
        return
    atomic_write(path, json.dumps(data, indent=2) + "\n")


def _ours(hook: Any, agent: Agent = CLAUDE) -> bool:
    command = hook.get(agent.command_key, "") if isinstance(hook, dict) else ""
    return inner_command(str(command), agent) is not None  # either form, guarded or not


def _expected(command: str, prefix: str, agent: Agent) -> str | None:
    """The command this gitmem installs in place of gitmem's ``command`` (None: not ours)."""
    inner = inner_command(command, agent)
    return None if inner is None else hook_command(prefix, inner.split()[-1], agent)


def _upgrade(hook: dict[str, Any], current: str, agent: Agent) -> bool:
    """Point a hook installed in another command form (or unguarded: an earlier gitmem's)
    at the one this gitmem installs with ``current``."""
    command = str(hook.get(agent.command_key, ""))
    expected = _expected(command, current, agent)
    name = inner_command(expected or "", agent)
    if expected is None or (expected == command and (not agent.named or hook.get("name") == name)):
        return False
    hook[agent.command_key] = expected
    if agent.named:
        hook["name"] = name
    return True


def install(path: Path, agent: Agent = CLAUDE) -> list[str]:
    """Add the missing gitmem hooks and update ones an older gitmem installed in another
    command form; returns the events added or updated (idempotent)."""
    data = _load(path, agent)
    hooks = agent.hooks_in(path, data, make=True)
    if not isinstance(hooks, dict):
        raise GitmemError(f"{path}: `hooks` is not an object; nothing was changed")
    added = []
    prefix = command_prefix(agent)
    for event, groups in hooks_config(prefix, agent).items():
        existing = hooks.setdefault(event, [])
        if not isinstance(existing, list):
            raise GitmemError(f"{path}: `hooks.{event}` is not a list; nothing was changed")
        ours = [h for h in _hooks_of(existing, agent) if _ours(h, agent)]
        if not ours and any(_runs_gitmem(h, agent) for h in _hooks_of(existing, agent)):
            continue  # gitmem's hook in a form of the user's (see _runs_gitmem): kept
        if not ours:
            existing.extend(groups)
            added.append(event)
        elif (
            any([_upgrade(h, prefix, agent) for h in ours])
            | _rematch(existing, agent, event)
            | _dedupe(existing, agent)
        ):
            added.append(event)
    if added:
        if agent.flat:
            data.setdefault("version", CURSOR_VERSION)
        _rewrite(path, data)
    return added


def _runs_gitmem(hook: Any, agent: Agent) -> bool:
    """Whether a hook runs gitmem's hook for ``agent`` in any form: gitmem's own
    (``_ours``), or one a person wrote or a later gitmem will (an absolute path to a chosen
    environment's `gitmem-hook`, a wrapper, another guard). `install` adds nothing beside
    such a hook, which would run every event twice, and never rewrites it."""
    command = str(hook.get(agent.command_key, "")) if isinstance(hook, dict) else ""
    if _ours(hook, agent):
        return True
    return re.search(rf"(^|[\s/;&|(])(gitmem-hook|gitmem hook) {agent.name} ", command) is not None


def _dedupe(groups: list[Any], agent: Agent) -> bool:
    """Drop second copies of one gitmem hook under an event: an older gitmem that did not
    know this one's command form added its own beside it, and once upgraded they are the
    same command (which the agents run twice)."""
    seen: set[str] = set()
    changed = False

    def first(hook: Any) -> bool:
        nonlocal changed
        if not _ours(hook, agent):
            return True
        command = str(hook.get(agent.command_key))
        if command in seen:
            changed = True
            return False
        seen.add(command)
        return True

    kept: list[Any] = []
    for group in groups:
        if agent.flat or not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            if first(group):
                kept.append(group)
            continue
        hooks = [h for h in group["hooks"] if first(h)]
        if hooks:
            kept.append({**group, "hooks": hooks})
    groups[:] = kept
    return changed


def _rematch(groups: list[Any], agent: Agent, event: str) -> bool:
    """Give gitmem's own matcher groups the matcher this gitmem installs (an earlier one
    may have matched fewer tools: Gemini CLI's `invoke_agent` since session 19)."""
    matcher = agent.events[event][0]
    changed = False
    for group in groups if not agent.flat else []:
        hooks = group.get("hooks") if isinstance(group, dict) else None
        if not hooks or not all(_ours(h, agent) for h in hooks):
            continue  # not gitmem's group alone: leave it as it is
        if matcher is not None and group.get("matcher") != matcher:
            group["matcher"] = matcher
            changed = True
    return changed


def uninstall(path: Path, agent: Agent = CLAUDE, *, only: Agent | None = None) -> int:
    """Remove exactly the gitmem hooks (``only``: those under its events); returns how many
    were removed."""
    if not path.exists():
        return 0
    data = _load(path, agent)
    hooks = agent.hooks_in(path, data)
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event in list(hooks):
        if only is not None and event not in only.events:
            continue
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            if agent.flat:
                if _ours(group, agent):
                    removed += 1
                else:
                    kept_groups.append(group)
                continue
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept_groups.append(group)
                continue
            kept = [h for h in group["hooks"] if not _ours(h, agent)]
            removed += len(group["hooks"]) - len(kept)
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks and hooks is not data:
        del data["hooks"]
        if agent.flat and data.get("version") == CURSOR_VERSION:
            del data["version"]  # written with the hooks
    if removed:  # nothing but our hooks in it: we created it (and its folder, if empty)
        _rewrite(path, data or None)
    return removed


def claude_code_version() -> tuple[int, ...] | None:
    """The version of the Claude Code here: ``GITMEM_CLAUDE`` (its executable), else
    `claude` on PATH, asked with ``--version`` ("2.1.331 (Claude Code)"); None where there
    is none, or it does not say."""
    exe = os.environ.get("GITMEM_CLAUDE") or shutil.which("claude")
    if not exe:
        return None
    try:
        out = subprocess.run(
            [exe, "--version"],
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    found = re.match(r"\s*(\d+)\.(\d+)\.(\d+)", out or "")
    return tuple(int(n) for n in found.groups()) if found else None


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


@dataclass(frozen=True)
class FailureEvents:
    """What ``install_failure_events`` did: the file, the events it added or updated, and
    why it added none where it could not (None: added, or there already)."""

    path: Path
    added: list[str]
    not_added: str | None = None


def install_failure_events(root: Path, home: Path, scope: str) -> FailureEvents:
    """Claude Code's PostToolUseFailure and StopFailure hooks (CLAUDE_FAILURES), beside an
    install of ``scope``, in the machine's own file for it (CLAUDE_FAILURES_SCOPE), where
    the Claude Code here reads them."""
    path = CLAUDE_FAILURES.path(CLAUDE_FAILURES_SCOPE[scope], root, home)
    version = claude_code_version()
    since = _dotted(FAILURE_EVENTS_SINCE)
    if version is None or version < FAILURE_EVENTS_SINCE:
        found = f"Claude Code {_dotted(version)}" if version else "no `claude` on PATH"
        return FailureEvents(
            path,
            [],
            f"PostToolUseFailure and StopFailure left out ({found}; Claude Code {since} or "
            "later reads them, and an older one skips the whole settings file that names "
            "them): the files a failing shell command wrote are counted only to the end of its "
            "turn, not of the command. With a newer Claude Code, install again.",
        )
    return FailureEvents(path, install(path, CLAUDE_FAILURES))


def keep_out_of_git(root: Path, path: Path) -> bool:
    """Have git ignore ``path``, a file of this machine's own that gitmem wrote in the work
    tree (Claude Code's ``.claude/settings.local.json``), where nothing ignores it yet: a
    line in the repository's ``info/exclude``, which is never committed, so that `git add
    -A` does not share it with teammates (whose Claude Code may not read what is in it).
    Returns whether it added the line; a file git tracks is left as it is."""
    from gitmem import git

    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return False  # outside the work tree (the user's own folder)
    if git.run(["check-ignore", "-q", "--", rel], root, check=False)[0] == 0:
        return False
    if git.run(["ls-files", "--error-unmatch", "--", rel], root, check=False)[0] == 0:
        return False
    code, out, _ = git.run(["rev-parse", "--git-path", "info/exclude"], root, check=False)
    if code != 0 or not out.strip():
        return False
    exclude = Path(root, out.strip())
    text = exclude.read_text(encoding="utf-8", errors="replace") if exclude.exists() else ""
    line = f"/{rel}"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    fsutil.atomic_write(
        exclude,
        text
        + ("" if not text or text.endswith("\n") else "\n")
        + f"# gitmem: this machine's own Claude Code settings (gitmem install claude)\n{line}\n",
    )
    return True


def uninstall_failure_events(root: Path, home: Path, scope: str) -> tuple[Path, int]:
    """Take out what ``install_failure_events`` added beside an install of ``scope``: for
    the project's, from the local file, unless gitmem's hooks are installed there too.
    Returns that file and how many hooks were removed from it."""
    mine = CLAUDE_FAILURES_SCOPE[scope]
    path = CLAUDE_FAILURES.path(mine, root, home)
    if mine == scope:
        return path, 0  # the scope's own file: `uninstall` took them out with the rest
    if set(installed_scopes(root, home).get(mine, [])) - set(FAILURE_EVENTS):
        return path, 0
    return path, uninstall(path, CLAUDE, only=CLAUDE_FAILURES)


def failure_events_unread(root: Path, home: Path, installed: dict[str, list[str]]) -> str | None:
    """Where gitmem's PostToolUseFailure or StopFailure hooks are installed (``installed``:
    installed_scopes) but the Claude Code here is older than the release that reads them
    (it skips the whole file): what to do. None where that is not so, or no Claude Code
    says its version."""
    where = [
        str(CLAUDE.path(scope, root, home))
        for scope, events in installed.items()
        if set(events) & set(FAILURE_EVENTS)
    ]
    if not where:
        return None
    version = claude_code_version()
    if version is None or version >= FAILURE_EVENTS_SINCE:
        return None
    return (
        f"Claude Code {_dotted(version)} skips {', '.join(where)} entirely (no hook, "
        f"permission or variable there applies): it does not know PostToolUseFailure or "
        f"StopFailure, which gitmem installed for a Claude Code {_dotted(FAILURE_EVENTS_SINCE)}"
        " or later. Update Claude Code, or `gitmem uninstall claude` and install again"
    )


MCP_FILES = {"claude": ".mcp.json", "cursor": ".cursor/mcp.json"}  # the project's MCP file


def install_mcp(root: Path, agent: Agent = CLAUDE) -> bool:
    path = root / MCP_FILES[agent.name]
    data = _load(path)
    servers = data.setdefault("mcpServers", {})
    if servers.get("gitmem") == MCP_SERVER:
        return False
    servers["gitmem"] = MCP_SERVER
    _rewrite(path, data)
    return True


def uninstall_mcp(root: Path, agent: Agent = CLAUDE) -> bool:
    path = root / MCP_FILES[agent.name]
    if not path.exists():
        return False
    data = _load(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or servers.get("gitmem") != MCP_SERVER:
        return False
    del servers["gitmem"]
    if not servers:
        del data["mcpServers"]
    _rewrite(path, data or None)
    return True


def installed_scopes(root: Path, home: Path, agent: Agent = CLAUDE) -> dict[str, list[str]]:
    """For doctor: which settings files carry which gitmem hooks."""
    out: dict[str, list[str]] = {}
    for scope in agent.scopes:
        events: list[str] = []
        for path in agent.hook_files(scope, root, home):
            try:
                data = _load(path, agent)
            except GitmemError:
                events.append("(settings file is not valid JSON)")
                continue
            hooks = agent.hooks_in(path, data)
            events += [
                event
                for event, groups in (hooks if isinstance(hooks, dict) else {}).items()
                if any(_runs_gitmem(h, agent) for h in _hooks_of(groups, agent))
            ]
        if events:
            out[scope] = events
    return out


def _commands(root: Path, home: Path, agent: Agent) -> dict[str, list[str]]:
    """Scope -> the commands of gitmem's hooks installed there (readable files only)."""
    out: dict[str, list[str]] = {}
    for scope in agent.scopes:
        commands: list[str] = []
        for path in agent.hook_files(scope, root, home):
            try:
                data = _load(path, agent)
            except GitmemError:
                continue
            hooks = agent.hooks_in(path, data)
            commands += [
                str(h.get(agent.command_key, ""))
                for groups in (hooks if isinstance(hooks, dict) else {}).values()
                for h in _hooks_of(groups, agent)
                if _ours(h, agent)
            ]
        if commands:
            out[scope] = commands
    return out


def outdated_scopes(root: Path, home: Path, agent: Agent = CLAUDE) -> list[str]:
    """For doctor: settings files whose gitmem hooks use another command form than the one
    `install` writes on this machine (`gitmem install AGENT` updates them)."""
    current = command_prefix(agent)
    return [
        scope
        for scope, commands in _commands(root, home, agent).items()
        if any(not (inner_command(c, agent) or "").startswith(current) for c in commands)
    ]


def unguarded_scopes(root: Path, home: Path, agent: Agent = CLAUDE) -> list[str]:
    """For doctor: settings files whose gitmem hooks an earlier gitmem wrote without the
    guard (GUARD; `gitmem install AGENT` updates them)."""
    if os.name == "nt":
        return []
    return [
        scope
        for scope, commands in _commands(root, home, agent).items()
        if any(c == inner_command(c, agent) for c in commands)
    ]


def rematch_scopes(root: Path, home: Path, agent: Agent = CLAUDE) -> list[str]:
    """For doctor: settings files where gitmem's hooks match other tools than `install`
    writes now (an earlier gitmem's matcher; `gitmem install AGENT` updates it)."""
    out = []
    for scope in agent.scopes:
        for path in agent.hook_files(scope, root, home):
            try:
                data = _load(path, agent)  # a copy
            except GitmemError:
                continue
            hooks = agent.hooks_in(path, data)
            if any(
                _rematch(groups, agent, event)
                for event, groups in (hooks if isinstance(hooks, dict) else {}).items()
                if event in agent.events and isinstance(groups, list)
            ):
                out.append(scope)
                break
    return out


def installed_executables(root: Path, home: Path) -> list[str]:
    """For doctor: the programs the installed gitmem hooks run (`gitmem-hook`, `gitmem`)."""
    return sorted(
        {
            (inner_command(c, a) or c).split()[0]
            for a in AGENTS.values()
            for cs in _commands(root, home, a).values()
            for c in cs
        }
    )
