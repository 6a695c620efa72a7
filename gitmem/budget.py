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


# The least of a title a clipped line keeps (less names nothing), and the most any line
# does: a title is a line, and a pasted paragraph as one is cut, not shown whole.
MIN_TITLE = 40
MAX_TITLE = 240


def clip(title: str, keep: int = MAX_TITLE) -> str:
    """``title`` within ``keep`` characters (MAX_TITLE at most), cut with "…"."""
    keep = min(keep, MAX_TITLE)
    return title if len(title) <= keep else title[: max(keep - 1, 1)].rstrip() + "…"


def line(d: Shown, glob: str | None, level: int, title_chars: int | None = None) -> str:
    """The line that shows ``d``: L1 (``level`` 1: title and summary) or L0 (the title),
    the title cut to MAX_TITLE characters, or to ``title_chars`` where given."""
    state = d.status if not d.superseded_by else f"superseded by {', '.join(d.superseded_by)}"
    scope = f" governs {glob}" if glob else " applies"
    title = clip(d.title.rstrip("."), MAX_TITLE if title_chars is None else title_chars)
    # (gitmem.agent.rewind._shown_in reads the id back from a transcript: keep the form)
    stop = "" if title.endswith("…") else "."
    head = f"Project decision {d.id} ({state}, {d.severity}){scope}: {title}{stop}"
    if level >= 1 and d.summary:
        head += f" {d.summary}"
    return f"- {head} [{d.file}]"


def _clipped(d: Shown, glob: str | None, room: int, chars_per_token: int) -> str | None:
    """``d``'s L0 line with its title cut to fit ``room``, or None where even MIN_TITLE
    characters of it do not. A title is one line, not a length: a pasted paragraph (or
    Y-statement) as a record's title made its L0 line larger than a hook's whole budget,
    and the decision, critical or not, was never shown."""
    bare = cost(line(d, glob, 0, 0), chars_per_token)
    wide = cost(d.title, chars_per_token) / max(len(d.title), 1)  # per character, CJK too
    keep = min(int((room - 1 - bare) / wide) if wide else 0, MAX_TITLE)
    while keep >= MIN_TITLE:
        text = line(d, glob, 0, keep)
        if cost(text, chars_per_token) + 1 <= room:
            return text
        keep -= max(keep // 10, 1)  # the title's head is wider than its average
    return None


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
        text: str | None = None
        for level in (1, 0):
            text = line(d, glob, level)
            if cost(text, chars_per_token) + 1 <= room:
                break
        else:
            text = _clipped(d, glob, room, chars_per_token)
        if text is None:
            break
        lines.append(text)
        shown.append(d.id)
        used += cost(text, chars_per_token) + 1
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
