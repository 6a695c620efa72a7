"""Turn ranked decisions into injected text that fits a token budget.

Fill with L1 lines (title + summary), fall back to L0 (title only) when an L1 line does not
fit, and always end by saying how many more matched and how to see them. Text is phrased
as facts about the project, with the record's path so the agent can read the full text.
Pure standard library (used by agent hooks).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    class Shown(Protocol):
        @property
        def id(self) -> str: ...
        @property
        def title(self) -> str: ...
        @property
        def status(self) -> str: ...
        @property
        def severity(self) -> str: ...
        @property
        def file(self) -> str: ...
        @property
        def summary(self) -> str: ...
        @property
        def superseded_by(self) -> tuple[str, ...]: ...


def line(d: Shown, glob: str | None, level: int) -> str:
    state = d.status if not d.superseded_by else f"superseded by {', '.join(d.superseded_by)}"
    scope = f" governs {glob}" if glob else " applies"
    # (gitmem.agent.rewind._shown_in reads the id back from a transcript: keep the form)
    head = f"Project decision {d.id} ({state}, {d.severity}){scope}: {d.title.rstrip('.')}."
    if level >= 1 and d.summary:
        head += f" {d.summary}"
    return f"- {head} [{d.file}]"


def cost(text: str, chars_per_token: int = 4) -> int:
    """``text``'s size in the budget's characters: a character from U+3040 up (Chinese,
    Japanese, Korean; emoji) is about a token of its own, not a quarter of one."""
    if not text or max(text) < "\u3040":
        return len(text)
    return len(text) + (chars_per_token - 1) * sum(1 for c in text if c >= "\u3040")


def render(
    items: Sequence[tuple[Shown, str | None]],
    *,
    budget_tokens: int,
    chars_per_token: int = 4,
    header: str = "",
    more_hint: str = "",
    max_chars: int = 8000,
) -> tuple[str, list[str]]:
    """Return (text, ids shown). ``items`` are (decision, matched glob or None), best first.
    Sizes are in characters (``budget_tokens * chars_per_token`` at most, and never over
    ``max_chars``), a CJK character counted as a whole token (see ``cost``)."""
    limit = min(budget_tokens * chars_per_token, max_chars)
    lines: list[str] = []
    shown: list[str] = []
    used = cost(header, chars_per_token) + 1 if header else 0
    reserve = 120  # room for the "N more" line
    for n, (d, glob) in enumerate(items):
        remaining_after = len(items) - n - 1
        room = limit - used - (reserve if remaining_after else 0)
        for level in (1, 0):
            text = line(d, glob, level)
            size = cost(text, chars_per_token)
            if size + 1 <= room:
                lines.append(text)
                shown.append(d.id)
                used += size + 1
                break
        else:
            break
    more = len(items) - len(shown)
    if not shown and not more:
        return "", []
    parts = [header] if header else []
    parts.extend(lines)
    if more:
        hint = f" {more_hint}" if more_hint else ""
        parts.append(f"({more} more matching decision{'s' if more != 1 else ''} not shown.{hint})")
    text = "\n".join(parts)
    return text[:limit], shown
