"""ADRs written in reStructuredText or AsciiDoc, read as Markdown.

Most ADR logs are Markdown, but Sphinx projects keep theirs in reStructuredText (Open edX's
repositories: ``docs/decisions/0001-purpose-of-this-repo.rst``) and some Java projects in
AsciiDoc. Rather than a parser per format behind every reader of a record (title, Status
section, supersession links, summary), such a file is rewritten line for line into the
Markdown the rest of gitmem reads:

* headings become ``#`` headings (reStructuredText: a level per adornment style, in order of
  first use, as docutils assigns them; AsciiDoc: ``=`` per level);
* links to files become ``[text](target)`` (``\\`text <0002-x.rst>\\`_``, ``:doc:``,
  named references with their ``.. _name: target``; ``xref:``, ``link:``, ``<<x.adoc#,text>>``);
* field lists and attribute entries (``:Status: Accepted``) become ``Status: Accepted``,
  and reStructuredText's inline literals (double backquotes) Markdown's single ones;
* code blocks become fences, so that nothing in them is read as a heading or as prose;
  reStructuredText comments (where templates keep their guidance) are dropped.

Everything else stays as written: it is text for the keyword and embedding rankers. The
line count does not change, so a problem found in the record names the right line.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

# file suffix -> markup ("md" needs no rewriting)
SUFFIXES = {".md": "md", ".markdown": "md", ".rst": "rst", ".adoc": "adoc", ".asciidoc": "adoc"}


def kind(name: str) -> str | None:
    """The markup a record file is written in, from its name; None for other files."""
    return SUFFIXES.get(PurePosixPath(name).suffix.lower())


def to_markdown(text: str, markup: str | None) -> str:
    if markup == "rst":
        return _rst(text)
    if markup == "adoc":
        return _adoc(text)
    return text


_FIELD = re.compile(r"^:([A-Za-z][\w .-]*):(?:\s+(.*))?$")


def _field(line: str) -> str:
    """A field (reStructuredText) or attribute entry (AsciiDoc), ``:Status: Accepted``, as
    the ``Status: Accepted`` line the Markdown readers look for."""
    match = _FIELD.match(line)
    return f"{match.group(1)}: {match.group(2) or ''}".rstrip() if match else line


# ------------------------------------------------------------------------ reStructuredText

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")  # a line of one punctuation char
_RST_LINK = re.compile(r"`([^`<]*?)\s*<([^<>`]+)>`__?")
_RST_DOC = re.compile(r":doc:`([^`<]*?)\s*(?:<([^<>`]+)>)?`")
_RST_TARGET = re.compile(r"^\.\. _([^:]+):\s+(\S+)\s*$")
_RST_DIRECTIVE = re.compile(r"^\.\. [\w:+-]+::\s*(.*)$")
_RST_LITERAL = re.compile(r"``([^`]+)``")
_RST_NAMED = re.compile(r"`([^`<]+)`_(?!_)|\b([\w.-]+)_\b(?!_)")


def _rst(text: str) -> str:
    lines = text.splitlines()
    out = list(lines)
    styles: list[tuple[str, bool]] = []

    def level(style: tuple[str, bool]) -> int:
        if style not in styles:
            styles.append(style)
        return min(styles.index(style) + 1, 6)

    def is_text(i: int) -> bool:
        return 0 <= i < len(lines) and bool(lines[i].strip()) and not _ADORNMENT.match(lines[i])

    i = 0
    while i < len(lines):
        adorn = _ADORNMENT.match(lines[i])
        if (
            adorn
            and is_text(i + 1)
            and i + 2 < len(lines)
            and lines[i + 2].strip() == lines[i].strip()
        ):  # overline, title, underline
            out[i], out[i + 2] = "", ""
            out[i + 1] = "#" * level((adorn.group(1), True)) + " " + lines[i + 1].strip()
            i += 3
            continue
        under = _ADORNMENT.match(lines[i + 1]) if i + 1 < len(lines) else None
        if (
            under
            and is_text(i)
            and not lines[i][0].isspace()
            and (i == 0 or not lines[i - 1].strip())
            and len(lines[i + 1].strip()) >= min(len(lines[i].strip()), 4)
        ):  # title, underline
            out[i] = "#" * level((under.group(1), False)) + " " + lines[i].strip()
            out[i + 1] = ""
            i += 2
            continue
        i += 1
    targets = {}
    for line in lines:
        match = _RST_TARGET.match(line)
        if match:
            targets[match.group(1).strip().lower()] = match.group(2)
    _fence_literal_blocks(out)
    _drop_comments(out)
    for n, line in enumerate(out):
        if line.startswith(("#", "```")):
            continue
        if line.startswith(".. "):  # a directive (its argument is text) or a link target
            directive = _RST_DIRECTIVE.match(line)
            out[n] = directive.group(1) if directive else ""
            continue
        line = _field(line)
        line = _RST_LITERAL.sub(r"`\1`", line)  # ``code`` as Markdown writes it
        line = _RST_LINK.sub(lambda m: f"[{m.group(1) or m.group(2)}]({m.group(2)})", line)
        line = _RST_DOC.sub(
            lambda m: f"[{m.group(1) or m.group(2)}]({m.group(2) or m.group(1)})", line
        )
        if targets:
            line = _RST_NAMED.sub(lambda m: _named(m, targets), line)
        out[n] = line
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


_RST_COMMENT = re.compile(r"^\.\.(?:\s*$|\s+(?!_|\[|\|)(?![\w:+-]+::))")


def _drop_comments(out: list[str]) -> None:
    """Blank comments (``.. TODO: ...`` and the indented lines under them): templates such
    as Open edX's keep their guidance there, and it is not the record's text."""
    n = 0
    while n < len(out):
        if not _RST_COMMENT.match(out[n]):
            n += 1
            continue
        out[n] = ""
        n += 1
        while n < len(out) and (not out[n].strip() or out[n][0].isspace()):
            out[n] = ""
            n += 1


_RST_CODE = re.compile(r"^\.\. (?:code-block|code|sourcecode|literalinclude)::")


def _fence_literal_blocks(out: list[str]) -> None:
    """Fence code blocks (``.. code-block::`` and paragraphs ending in ``::``) with the
    blank lines around them, so that their lines are not read as headings or prose."""
    n = 0
    while n < len(out):
        line = out[n]
        opens = _RST_CODE.match(line) or (
            line.rstrip().endswith("::") and not line.startswith((" ", "\t", ".."))
        )
        if not opens:
            n += 1
            continue
        start = n + 1
        while start < len(out) and out[start].strip() and out[start][0].isspace():
            start += 1  # the directive's options (`:linenos:`)
        if start >= len(out) or out[start].strip():
            n += 1
            continue
        end = start + 1
        last_blank = start
        while end < len(out) and (not out[end].strip() or out[end][0].isspace()):
            if not out[end].strip():
                last_blank = end
            end += 1
        if end == len(out):  # the block runs to the end: an unclosed fence is enough
            last_blank = end
        elif last_blank == start:  # no blank line closes it before what follows
            n = end
            continue
        if _RST_CODE.match(line):
            out[n:start] = [""] * (start - n)  # the directive and its options
        out[start] = "```"
        if last_blank < len(out):
            out[last_blank] = "```"
        n = last_blank + 1


def _named(match: re.Match[str], targets: dict[str, str]) -> str:
    name = match.group(1) or match.group(2)
    target = targets.get(" ".join(name.split()).lower())
    return f"[{name}]({target})" if target else match.group(0)


# -------------------------------------------------------------------------------- AsciiDoc

_ADOC_HEADING = re.compile(r"^(={1,6})\s+(\S.*?)\s*=*\s*$")
_ADOC_BLOCK = re.compile(r"^(-{4,}|\.{4,}|/{4,}|\+{4,})\s*$")
_ADOC_MACRO = re.compile(r"\b(?:xref|link):([^\[\s]+)\[([^\]]*)\]")
_ADOC_XREF = re.compile(r"<<([^,>]+)(?:,\s*([^>]*))?>>")


def _adoc(text: str) -> str:
    out: list[str] = []
    block: str | None = None  # the delimiter of the block we are in
    for line in text.splitlines():
        delim = _ADOC_BLOCK.match(line)
        if delim and (block is None or line.strip() == block):
            block = line.strip() if block is None else None
            out.append("```")
            continue
        if block is not None:
            out.append(line)
            continue
        heading = _ADOC_HEADING.match(line)
        if heading:
            out.append("#" * len(heading.group(1)) + " " + heading.group(2))
            continue
        line = _field(line)
        line = _ADOC_MACRO.sub(lambda m: f"[{m.group(2) or m.group(1)}]({m.group(1)})", line)
        line = _ADOC_XREF.sub(_xref, line)
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _xref(match: re.Match[str]) -> str:
    target, text = match.group(1).strip(), (match.group(2) or "").strip()
    if kind(target.split("#", 1)[0]) is None:
        return text or target  # an anchor in this document: its text
    return f"[{text or target}]({target})"
