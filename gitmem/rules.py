"""Decision rules (``- forbid: REGEX``) run with RE2, a linear-time engine: a pathological
pattern cannot hang a commit or a hook. Patterns RE2 cannot run (backreferences,
lookaround) are rejected by ``gitmem lint`` with the reason."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from gitmem.globs import compile_globs, matches


class RuleError(ValueError):
    pass


@lru_cache(maxsize=1024)
def compile_rule(pattern: str) -> Any:
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options=options)
    except Exception as exc:  # re2.error carries the parser's reason as bytes
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise RuleError(
            f"cannot be checked in linear time (RE2: {reason}); drop backreferences and lookaround"
        ) from exc


def first_match(pattern: str, text: str) -> bool:
    return compile_rule(pattern).search(text) is not None


class Violation(NamedTuple):
    file: str
    line: int
    decision: str
    severity: str
    message: str
    text: str

    def format(self) -> str:
        return f"{self.file}:{self.line}: decision {self.decision}: {self.message}"


def rule_applies(rule: dict[str, Any], path: str) -> bool:
    globs = [str(g) for g in rule.get("paths") or []]
    if not globs:
        return True
    pats = [(c.regex, c.negated, c.glob, c.specificity) for g in globs for c in compile_globs(g)]
    return matches(pats, path) is not None


def violations_in(entry: Any, path: str, lines: list[tuple[int, str]]) -> list[Violation]:
    """Added ``lines`` of ``path`` that break one of the decision ``entry``'s rules."""
    out = []
    for rule in entry.rules:
        pattern = str(rule.get("forbid") or "")
        if not pattern or not rule_applies(rule, path):
            continue
        message = str(rule.get("message") or f"matches the forbidden pattern {pattern!r}")
        for lineno, text in lines:
            try:
                hit = first_match(pattern, text)
            except RuleError:
                break  # reported by lint; never blocks on our inability to run it
            if hit:
                out.append(Violation(path, lineno, entry.id, entry.severity, message, text))
    return out
