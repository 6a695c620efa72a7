"""Which paths a tool call touches, from Claude Code's ``tool_input``.

Read/Write/Edit/MultiEdit: ``file_path``; NotebookEdit: ``notebook_path``; LS: ``path``;
Glob/Grep: ``path`` plus the literal folder prefix of ``pattern``/``glob``; Bash: the shell
words that look like paths (the caller keeps those that exist or match a decision glob);
MCP and unknown tools: string values under path-like keys. Pure standard library.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

EDIT_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
READ_TOOLS = ("Read", "Grep", "Glob", "LS")
_PATH_KEYS = re.compile(r"(^|_)(path|paths|file|files|file_path|filename|dir|directory)$", re.I)
_WILD = re.compile(r"[*?\[{]")
_LOOKS_LIKE_PATH = re.compile(r"/|\.[A-Za-z0-9]{1,8}$")
_SHELL_SKIP = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", "&>", "(", ")"}
MAX_PATHS = 64


def glob_prefix(pattern: str) -> str:
    """The literal leading folders of a glob: ``src/**/*.ts`` -> ``src``."""
    parts = []
    for part in pattern.replace("\\", "/").split("/"):
        if _WILD.search(part):
            break
        parts.append(part)
    return "/".join(parts)


def _join(base: str, rel: str) -> str:
    if not base:
        return rel
    if not rel:
        return base
    return base.rstrip("/\\") + "/" + rel


def bash_words(command: str) -> list[str]:
    """Shell words of a command that could be paths (flags, operators and URLs dropped)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to whitespace
        words = command.split()
    out = []
    for word in words:
        if word in _SHELL_SKIP or "://" in word:
            continue
        if "=" in word and not word.startswith(("./", "/")):
            word = word.split("=", 1)[1]  # VAR=path, --opt=path
        elif word.startswith("-"):
            continue
        word = word.strip("'\"")
        if word and _LOOKS_LIKE_PATH.search(word):
            out.append(word)
    return out[:MAX_PATHS]


def _scan(value: Any, key: str, out: list[str], depth: int = 0) -> None:
    if depth > 4 or len(out) >= MAX_PATHS:
        return
    if isinstance(value, str):
        if _PATH_KEYS.search(key) and value and len(value) < 1024:
            out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _scan(v, str(k), out, depth + 1)
    elif isinstance(value, list):
        for item in value[:MAX_PATHS]:
            _scan(item, key, out, depth + 1)


def new_text(tool_input: Any) -> str:
    """The text a Write/Edit/MultiEdit/NotebookEdit call is about to add."""
    if not isinstance(tool_input, dict):
        return ""
    parts: list[str] = []
    for key in ("content", "new_string", "new_source"):
        value = tool_input.get(key)
        if isinstance(value, str):
            parts.append(value)
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        for edit in edits:
            if isinstance(edit, dict) and isinstance(edit.get("new_string"), str):
                parts.append(edit["new_string"])
    return "\n".join(parts)


def touched(tool_name: str, tool_input: Any) -> tuple[list[str], bool]:
    """(candidate paths, whether they came from shell words and need checking)."""
    if not isinstance(tool_input, dict):
        return [], False
    name = tool_name or ""
    paths: list[str] = []
    if name in ("Read", "Write", "Edit", "MultiEdit"):
        _scan(tool_input.get("file_path"), "file_path", paths)
    elif name == "NotebookEdit":
        _scan(tool_input.get("notebook_path"), "notebook_path", paths)
    elif name == "LS":
        _scan(tool_input.get("path"), "path", paths)
    elif name in ("Glob", "Grep"):
        path_value = tool_input.get("path")
        base = path_value if isinstance(path_value, str) else ""
        for key in ("pattern", "glob") if name == "Glob" else ("glob",):
            pattern = tool_input.get(key)
            if isinstance(pattern, str) and pattern:
                paths.append(_join(base, glob_prefix(pattern)))
        if base and not paths:
            paths.append(base)
    elif name == "Bash":
        command = tool_input.get("command")
        if isinstance(command, str):
            return bash_words(command), True
    else:  # MCP tools (mcp__server__tool) and anything new
        _scan(tool_input, "", paths)
    return [p for p in paths if isinstance(p, str) and p.strip()][:MAX_PATHS], False
