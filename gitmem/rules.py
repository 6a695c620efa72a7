"""Decision rules (``- forbid: REGEX``) run with RE2, a linear-time engine: a pathological
pattern cannot hang a commit or a hook. Patterns RE2 cannot run (backreferences,
lookaround) are rejected by ``gitmem lint`` with the reason."""

from __future__ import annotations

# The pre-tool hook imports this module for every edit a rule may govern: built-in modules
# only (`typing` and `functools` pull in `re` and more, ~12 ms of a fresh hook, measured),
# hence the plain cache and the slotted Violation.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class RuleError(ValueError):
    pass


_COMPILED: dict[str, Any] = {}


def compile_rule(pattern: str) -> Any:
    """The RE2 program of ``pattern``, compiled once per process."""
    found = _COMPILED.get(pattern)
    if found is not None:
        return found
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        found = _COMPILED[pattern] = re2.compile(pattern, options=options)
    except Exception as exc:  # re2.error carries the parser's reason as bytes
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise RuleError(
            f"cannot be checked in linear time (RE2: {reason}); drop backreferences and lookaround"
        ) from exc
    return found


def first_match(pattern: str, text: str) -> bool:
    return compile_rule(pattern).search(text) is not None


class Violation:
    """An added line that breaks a decision's rule."""

    __slots__ = ("decision", "file", "line", "message", "severity", "text")
    _FIELDS = ("file", "line", "decision", "severity", "message", "text")

    def __init__(
        self, file: str, line: int, decision: str, severity: str, message: str, text: str
    ) -> None:
        self.file = file
        self.line = line
        self.decision = decision
        self.severity = severity
        self.message = message
        self.text = text

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Violation) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Violation{self._key()!r}"

    def as_json(self) -> dict[str, object]:
        return {f: getattr(self, f) for f in self._FIELDS}

    def format(self) -> str:
        from gitmem.vocab import shown_name

        return f"{shown_name(self.file)}:{self.line}: decision {self.decision}: {self.message}"


def compile_paths(paths: list[str] | tuple[str, ...]) -> list[list[object]]:
    """A rule's ``paths`` as pattern rows (regex, negated, glob, specificity), as the
    compiled table keeps a decision's globs; pathspec compiles them (GlobError if one
    does not)."""
    from gitmem.globs import compile_globs

    return [
        [c.regex, c.negated, c.glob, c.specificity] for g in paths for c in compile_globs(str(g))
    ]


def rule_applies(rule: dict[str, Any], path: str) -> bool:
    """Whether the rule's ``paths`` take in ``path`` (every path where it has none). The
    compiled table holds them compiled (``path_patterns``, since schema 24), so the hooks
    match them without pathspec; a rule from elsewhere is compiled here."""
    from gitmem.pathmap import governs, patterns_of

    compiled = rule.get("path_patterns")
    if not isinstance(compiled, list):
        if not rule.get("paths"):
            return True
        compiled = compile_paths(rule["paths"])
    return governs(patterns_of(compiled), path) is not None


# Added lines are read against a rule in blocks of this many: a block the rule matches
# nowhere in (one search of its text, in C) is done with; only the lines of a block it
# matches in are searched one by one. Line by line through the RE2 wrapper costs ~12 us a
# line: a 5 MB file written by an agent took the before-tool hook 2.2 s, past its timeout
# (10 s) at ~25 MB, and then no rule held.
BLOCK_LINES = 256


def _block_pattern(pattern: str) -> str | None:
    """``pattern`` for a block of lines joined by newlines, so that it matches in the
    block wherever it matches in one of its lines (it may match more: across lines, with
    `\\s` or `[^x]`, which the lines themselves then settle). `^` and `$` are taken at
    each line (multi-line mode). None where no such pattern is sure: `\\A` and `\\z`
    mean a line's ends to the line-by-line search and the block's to this one."""
    if any(anchor in pattern for anchor in ("\\A", "\\z", "\\Z", "(?-")):
        return None  # (a flag turned off, `(?-m)`, might be multi-line mode's)
    block = "(?m)" + pattern
    try:
        compile_rule(block)
    except RuleError:
        return None
    return block


def _matching_lines(pattern: str, lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The ``lines`` the rule ``pattern`` matches in, searched block by block; RuleError
    where RE2 cannot run ``pattern``."""
    compile_rule(pattern)
    block = _block_pattern(pattern) if len(lines) > 1 else None
    if block is None:
        return [(n, text) for n, text in lines if first_match(pattern, text)]
    found: list[tuple[int, str]] = []
    for at in range(0, len(lines), BLOCK_LINES):
        part = lines[at : at + BLOCK_LINES]
        if first_match(block, "\n".join(text for _, text in part)):
            found += [(n, text) for n, text in part if first_match(pattern, text)]
    return found


def violations_in(entry: Any, path: str, lines: list[tuple[int, str]]) -> list[Violation]:
    """Added ``lines`` of ``path`` that break one of the decision ``entry``'s rules."""
    out = []
    for rule in entry.rules:
        pattern = str(rule.get("forbid") or "")
        if not pattern or not rule_applies(rule, path):
            continue
        message = str(rule.get("message") or f"matches the forbidden pattern {pattern!r}")
        try:
            hits = _matching_lines(pattern, lines)
        except RuleError:
            continue  # reported by lint; never blocks on our inability to run it
        out += [Violation(path, n, entry.id, entry.severity, message, text) for n, text in hits]
    return out
