"""Derive the L0 / L1 / L2 views of a record from its Markdown body.

L0 is the title. L1 is a few sentences: an explicit ``summary`` key, else the section that
states the decision (Nygard "Decision", MADR "Decision Outcome", "Summary", an RFC-style
"Proposal"), else a Y-statement, else the first paragraph outside the record's bookkeeping
sections (Status, Changelog, ...). L2 is the whole body. Later retrieval injects L1 and
falls back to L0 when the budget is tight.
"""

from __future__ import annotations

import re

from gitmem.adrwords import ADR_STATUS_WORDS, CJK_STATUS_WORDS, MONTHS, TRANSLATED_KEYS

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_PREFERRED = (
    "summary",
    "tl;dr",
    "decision",
    "decision outcome",
    "decision summary",
    "y-statement",
    "chosen option",
    "proposal",
    "proposed solution",
    "solution",
)
# Sections that keep a record's bookkeeping, not its content. Many real ADRs open with
# "## Status" (then "## Changelog"), so their first paragraph is "Accepted" or "Implemented
# in <PR link>": as a summary, that told the agent nothing about the decision.
_BOOKKEEPING = frozenset(
    {
        "status",
        "changelog",
        "change log",
        "changes",
        "history",
        "revision history",
        "document history",
        "metadata",
        "authors",
        "author",
        "date",
        "deciders",
        "table of contents",
        "contents",
        "toc",
        "terminology",
        "glossary",
        "references",
    }
)
# How a line that gives a record's metadata opens, before its key: "Status:", "* **Status**:",
# "> **Status:**", or a heading, "## Status:". Spaces only, never a line break, so that a
# match starts on the key's own line. (Shared with gitmem.adrimport's status, date and
# supersession lines.)
KEY_LINE = r"^[ \t>]*(?:#{1,6}[ \t]+)?[-*]?[ \t]*\**"
# "Status" and "Date" as Chinese and Japanese logs write them (before a ":" or "："), and
# Spanish, Portuguese, German, French and Italian ones ("Data" is read only before a date:
# as a heading or a bookkeeping line, English prose opens so too)
STATUS_KEY = r"(?:status|estado|statut|stato|статус|状态|狀態|状態|ステータス)"
DATE_KEY = r"(?:date|fecha|data|datum|дата|日期|日付)"
_META_LINE = re.compile(
    KEY_LINE + r"(date|status|deciders|decision-makers|consulted|informed|technical story"
    r"|tags|authors?|contributors|reviewers|editors?|owners?|supersedes|superseded[- _]by"
    r"|replaces|replaced[- _]by|状态|狀態|状態|ステータス|日期|日付|决策者|決定者|作者"
    r"|estado|statut|stato|fecha|datum|статус|дата|autor(?:es|en)?|auteurs?|autori)"
    r"(?:\s*\([^)\n]*\))?\**\s*[:：]",
    re.IGNORECASE,
)
# "Data:" (Portuguese, Italian) is a key line only before a date: English prose opens so too
_DATA_LINE = re.compile(KEY_LINE + r"data\**\s*[:：]\**\s*\d", re.IGNORECASE)
# A "Decision" section that holds only the outcome's status ("## Decision\n\nAccepted",
# "Approved by CTO", "Accepted on 2024-03-05") says nothing of what was decided: the
# summary looks further. A status word that opens a decision ("Decided: use PostgreSQL",
# "Final: Redis") does not make it status-only: after a colon only a date may follow
# (before session 75 those two were skipped, and the summary quoted the context).
_STATUS_HEAD = re.compile(r"^\W*([^\W\d_]+)([^\w]*)(.*)$", re.DOTALL)
_STATUS_WORDS = frozenset({*ADR_STATUS_WORDS, *CJK_STATUS_WORDS, "agreed", "tbd"})


def _status_only(text: str) -> bool:
    match = _STATUS_HEAD.match(text.strip())
    if match is None or match.group(1).lower() not in _STATUS_WORDS:
        return False
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", match.group(3))]
    if ":" in match.group(2) or "：" in match.group(2):
        return all(w in _STATUS_WORDS or w[:3] in MONTHS for w in words)
    return len([w for w in words if w[:3] not in MONTHS]) <= 2


_Y_STATEMENT = re.compile(r"\bin the context of\b", re.IGNORECASE)
L1_MAX_CHARS = 480


def headings(body: str) -> list[tuple[int, int, str]]:
    """(line index, level, text) of every Markdown heading outside code fences."""
    out = []
    fenced = False
    for idx, line in enumerate(body.splitlines()):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        match = _HEADING.match(line)
        if match:
            out.append((idx, len(match.group(1)), match.group(2).strip()))
    return out


def first_heading(body: str, level: int = 1) -> str | None:
    for _, lvl, text in headings(body):
        if lvl == level:
            return text
    return None


def section(body: str, name: str) -> str | None:
    """The text under the first heading called ``name`` (case-insensitive), up to the next
    heading of the same or a higher level."""
    wanted = name.lower()
    for idx, end, heading in _spans(body):
        if heading == wanted:
            return "\n".join(body.splitlines()[idx + 1 : end]).strip()
    return None


def heading_line(body: str, name: str) -> int | None:
    """The 0-based line of the first heading called ``name`` (as ``section`` finds it)."""
    wanted = name.lower()
    return next((idx for idx, _, heading in _spans(body) if heading == wanted), None)


def _spans(body: str) -> list[tuple[int, int, str]]:
    """(heading line, end line, normalised heading) of every heading: its section runs up to
    the next heading of the same or a higher level (exclusive)."""
    total = len(body.splitlines())
    hs = headings(body)
    return [
        (idx, next((i for i, lvl, _ in hs[pos + 1 :] if lvl <= level), total), _normal(text))
        for pos, (idx, level, text) in enumerate(hs)
    ]


def _normal(heading: str) -> str:
    """A heading as gitmem names sections: lower case, unnumbered, without its colon, and
    a name in another language as its English one (``## 决策``, ``## Decisão``:
    ``decision``; ``adrwords.TRANSLATED_KEYS``)."""
    text = re.sub(r"^[\d.]+\s*", "", heading.strip().lower())
    text = text.rstrip(":：").strip()
    return TRANSLATED_KEYS.get(text, text)


# stands in, when asked for, for a block a summary leaves out: code, or a table
OMITTED = "\x00"


def paragraphs(text: str, *, mark_omitted: bool = False) -> list[str]:
    """The prose paragraphs of ``text``, each as one line: code blocks, HTML comments and
    bookkeeping lines left out. With ``mark_omitted`` (a summary's reading), a code block or
    a table ends the paragraph before it and is an ``OMITTED`` paragraph of its own (tables
    otherwise stay in, as rows of text), and a list's items read as sentences (``_join``)."""
    out: list[str] = []
    current: list[str] = []
    fenced = False
    commented = False  # inside an HTML comment that spans lines (a template's guidance)
    meta = False  # after a bookkeeping line ("Date: ...", "Contributors: ...")

    def omitted() -> None:
        if current:
            out.append(_join(current, mark_omitted))
            current.clear()
        if not out or out[-1] != OMITTED:
            out.append(OMITTED)

    for line in text.splitlines():
        stripped = line.strip()
        if not commented and stripped.startswith(("```", "~~~")):
            fenced = not fenced
            if fenced and mark_omitted:
                omitted()
            continue
        if fenced:
            continue
        if commented or "<!--" in line:
            line, commented = _uncommented(line, commented)
            if not line.strip():
                continue  # a comment's lines neither are nor end a paragraph
            stripped = line.strip()
        if not stripped or _HEADING.match(line):
            if current:
                out.append(_join(current, mark_omitted))
                current = []
            meta = False
            continue
        if stripped.startswith("-->"):
            continue
        if _META_LINE.match(line) or _DATA_LINE.match(line):
            meta = True
            continue
        if meta and line[:1].isspace():
            continue  # the meta line goes on, indented ("Contributors: A,\n    B, C")
        meta = False
        if mark_omitted and stripped.startswith("|"):
            omitted()
            continue
        current.append(stripped)
    if current:
        out.append(_join(current, mark_omitted))
    return out


def _uncommented(line: str, commented: bool) -> tuple[str, bool]:
    """``line`` without its HTML comments, and whether a comment is still open after it."""
    kept = ""
    while line:
        if commented:
            end = line.find("-->")
            if end < 0:
                return kept, True
            line, commented = line[end + 3 :], False
        else:
            start = line.find("<!--")
            if start < 0:
                return kept + line, False
            kept, line, commented = kept + line[:start], line[start + 4 :], True
    return kept, commented


# a list item's marker: `- `, `* `, `+ `, `1. `, `2) `, with a task's box (`- [ ] `)
_ITEM = re.compile(r"(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(?=\S)")  # and a task's box


def _join(lines: list[str], items: bool = False) -> str:
    """A paragraph's lines as one. A line ending in Markdown's hard break (a backslash)
    ends a clause: Y-statements are often written a clause per line that way ("In the
    context of X\\", "facing Y\\", ...), which reads as "In the context of X, facing Y".
    With ``items``, a list's items read as sentences, without their markers: an item
    ending without a stop, and followed by another, ends in one (a semicolon before an item
    in lower case). "- We will use X\\n- For Y, ..." read as "- We will use X - For Y, ..."
    before session 74: dashes an agent reads as nothing."""
    out = ""
    listed = False  # the text so far ends in a list's item
    for line in lines:
        item = _ITEM.match(line) if items else None
        if item is not None:
            line = line[item.end() :]
        if out.endswith("\\"):
            out = out[:-1].rstrip()
            out += ", " if out[-1:].isalnum() or out[-1:] in ")]`*_" else " "
        elif out:
            if item is not None and listed and out[-1:] not in ".!?,;:。！？、":
                out += "." if line[:1].isupper() else ";"
            out += " "
        out += line
        listed = listed or item is not None
    return out[:-1].rstrip() if out.endswith("\\") else out


# A Markdown link or image in a summary reads as its text: the target is what an agent
# would not follow, and a URL costs tokens (often more than the sentence around it).
_INLINE_LINK = re.compile(
    r"!?\[([^\]\n]+)\](?:\([^)\s]+(?:\s+\"[^\"]*\")?\)|\[[^\]\n]*\])"  # [t](url), [t][ref]
)


_COLONS = (":", "：")  # what ends a sentence announcing a list, a table or code


def _last_sentence_end(text: str) -> int:
    """Where the last sentence that another follows ends in ``text`` (-1: none). Chinese
    and Japanese end sentences with "。", "！" or "？" and no space after them."""
    ends = [text.rfind(". "), text.rfind("! "), text.rfind("? ")]
    ends += [text.rfind(mark, 0, len(text) - 1) for mark in "。！？"]
    return max(ends)


def clip(text: str, limit: int = L1_MAX_CHARS) -> str:
    """Shorten at a sentence (else word) boundary, with an ellipsis when cut."""
    text = _INLINE_LINK.sub(r"\1", text)
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = _last_sentence_end(cut)
    if end >= limit // 3:
        return cut[: end + 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > 0 else cut).rstrip(",;:") + " …"


def summarize(body: str, explicit: str | None = None) -> str:
    """The L1 overview of a record body."""
    if explicit and explicit.strip():
        return clip(explicit)
    return _settled(_derived(body))


# "## Decision\n\nOption D" names an option the record described under its own heading
_OPTION_CHOSEN = re.compile(r"^(?:chosen option:\s*)?[\"“']?(option\s+[\w.]+)\b", re.IGNORECASE)
_OPTION_HEADING = re.compile(
    r"^#{2,6}\s+(option\s+[\w.]+)\s*[:.)–—-]\s*(\S.*)$",
    re.IGNORECASE | re.MULTILINE,
)


def _named_option(decision: str, body: str) -> str:
    """A decision that only names an option by its letter, with that option's heading:
    "Option D" -> "Option D: Encode the sequence length with a fixed length"."""
    chosen = _OPTION_CHOSEN.match(decision)
    if chosen is None or len(decision) > 120:
        return decision
    label = chosen.group(1).lower()
    for heading in _OPTION_HEADING.finditer(body):
        if heading.group(1).lower() == label:
            said = heading.group(2).strip().rstrip("#").strip()
            if decision.strip(" .\"'“”").lower() == label:
                return f"{chosen.group(1)}: {said}"
            return f"{decision.rstrip('.')} ({heading.group(1)}: {said})"
    return decision


def _settled(summary: str) -> str:
    """Without a last sentence that announces what a summary leaves out ("the chart will
    look like:" before a table or a diagram), when a sentence comes before it."""
    if not summary.endswith(_COLONS):
        return summary
    end = _last_sentence_end(summary)
    return summary[: end + 1] if end > 0 else summary


def _derived(body: str) -> str:
    for name in _PREFERRED:
        text = section(body, name)
        if text:
            paras = _prose(text)
            if paras and not _status_only(" ".join(paras)):
                return clip(_named_option(" ".join(paras[:2]), body))
    paras = _prose(without_bookkeeping(body)) or _prose(body)
    # nor as the first paragraph ("## Decision\n\nAccepted" before "## Context")
    paras = [p for p in paras if not _status_only(p)]  # none: no summary (a record unwritten)
    for para in paras:
        if _Y_STATEMENT.search(para):
            return clip(para)
    return clip(paras[0]) if paras else ""


def _prose(text: str) -> list[str]:
    """The paragraphs of ``text`` a summary may quote: not tables (a row of cells is no
    sentence, and a summary that ended in "| Parameter | Size | Unit |" was common) nor
    code. The sentence that announces one of those ("Example:", "The sizes are:") would
    run into the next paragraph: it is left out when other prose comes before it, and
    else marked as cut ("We size blocks as follows: …"). So is a paragraph that goes on
    with a sentence a code block cut ("and its counterpart", between two blocks)."""
    paras = paragraphs(text, mark_omitted=True)
    out: list[str] = []
    for before, para, following in zip(["", *paras], paras, [*paras[1:], ""], strict=False):
        if para == OMITTED or (before == OMITTED and para[:1].islower()):
            continue
        if following == OMITTED and para.endswith(_COLONS):
            para = _settled(para)
            if para.endswith(_COLONS):
                if out or len(para.split()) <= 3:
                    continue  # nothing but the announcement, and not the first thing said
                para += " …"
        out.append(para)
    return out


def without_bookkeeping(body: str) -> str:
    """``body`` without its bookkeeping sections (Status, Changelog, Terminology, ...): each
    such heading's lines up to the next heading of the same or a higher level."""
    drop: set[int] = set()
    for idx, end, heading in _spans(body):
        if heading in _BOOKKEEPING:
            drop.update(range(idx, end))
    return "\n".join(line for n, line in enumerate(body.splitlines()) if n not in drop)
