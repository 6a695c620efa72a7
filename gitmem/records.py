"""Create decision records: ``gitmem new``."""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from pathlib import Path

from gitmem import hidden, resources, store
from gitmem.errors import GitmemError
from gitmem.fsutil import atomic_write, create_exclusive, folder_lock
from gitmem.globs import GlobError, compile_globs
from gitmem.model import SEVERITIES, STATUSES
from gitmem.repo import Repo
from gitmem.validate import derive_id


def slugify(title: str, limit: int = 60) -> str:
    """The file-name part of a title: ``Ålborg café, naïve`` -> ``alborg-cafe-naive``
    (accents dropped, ß as ss), letters of other scripts kept (``使用数据库``: a
    Chinese team's record should not be ``0005-decision.md``), the rest one ``-``."""
    text = unicodedata.normalize("NFKD", title.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    slug = re.sub(r"[\W_]+", "-", text).strip("-")
    return (slug[:limit].rstrip("-")) or "decision"


def _yaml_str(value: str) -> str:
    # JSON strings are valid YAML double-quoted scalars; plain style when it is safe.
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 _.,()/+-]*", value) and not value.endswith(" "):
        return value
    return json.dumps(value, ensure_ascii=False)


def yaml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in values) + "]"


def render(
    title: str,
    *,
    template: str = "adr",
    status: str = "proposed",
    globs: list[str] | None = None,
    tags: list[str] | None = None,
    severity: str = "info",
    supersedes: list[str] | None = None,
    date: str | None = None,
    body: str | None = None,
) -> str:
    lines = [
        "---",
        f"title: {_yaml_str(title)}",
        f"status: {status}",
        f"date: {date or dt.date.today().isoformat()}",
        f"severity: {severity}",
        f"globs: {yaml_list(globs or [])}",
        f"tags: {yaml_list(tags or [])}",
    ]
    if supersedes:
        lines.append(f"supersedes: {yaml_list(supersedes)}")
    lines.append("---")
    if body is None:
        body = resources.template(template).replace("{title}", title).replace("{status}", status)
    return "\n".join(lines) + "\n\n" + body


def next_number(folder: Path) -> int:
    highest = 0
    if folder.is_dir():
        for path in folder.rglob("*.md"):
            _, number = derive_id(path.name)
            if number is not None:
                highest = max(highest, number)
    return highest + 1


def one_line(title: str) -> str:
    """A title as one line, each run of white space one space: a title pasted with its
    line breaks (or an MCP client's text) became a heading whose second line was body
    text, and a front-matter title with `\n` in it."""
    return " ".join(title.split())


def check_new(title: str, template: str, status: str, severity: str, globs: list[str]) -> None:
    """What ``gitmem new`` is given, checked before anything is written."""
    if not title.strip():
        raise GitmemError("the title is empty")
    if template not in resources.TEMPLATES:
        raise GitmemError(f"unknown template {template!r}: use adr, y or madr")
    if status not in STATUSES:
        raise GitmemError(f"unknown status {status!r}: use one of {', '.join(STATUSES)}")
    if severity not in SEVERITIES:
        raise GitmemError(f"unknown severity {severity!r}: use one of {', '.join(SEVERITIES)}")
    for glob in globs:
        try:
            compile_globs(glob)
        except GlobError as exc:
            raise GitmemError(f"--glob: {exc}") from exc


def new(
    repo: Repo,
    title: str,
    *,
    template: str = "adr",
    status: str = "proposed",
    globs: list[str] | None = None,
    tags: list[str] | None = None,
    severity: str = "info",
    supersedes: list[str] | None = None,
    body: str | None = None,
) -> Path:
    """Write the next record and return its path. Safe against a concurrent ``new``."""
    title = one_line(title)
    check_new(title, template, status, severity, globs or [])
    written = [("title", title), ("text", body or ""), *(("tag", t) for t in tags or ())]
    for what, value in written:
        found = hidden.visible(value)[1]
        if found:  # an agent told by a page it read to plant text that reviewers miss
            raise GitmemError(f"the {what} holds {found[0].said}: write it without them")
    catalog = store.load(repo.root) if supersedes else None
    resolved = [catalog.get(ref).id for ref in supersedes or []] if catalog else []
    folder = store.decisions_dir(repo.root)
    slug = slugify(title)
    text = render(
        title,
        template=template,
        status=status,
        globs=globs,
        tags=tags,
        severity=severity,
        supersedes=resolved,
        body=body,
    )
    folder.mkdir(parents=True, exist_ok=True)
    with folder_lock(folder):  # the next number read and taken by one writer at a time
        for _ in range(100):
            path = folder / f"{next_number(folder):04d}-{slug}.md"
            if create_exclusive(path, text):
                break
        else:  # pragma: no cover
            raise GitmemError(f"could not find a free record number in {folder}")
    if catalog is not None and status == "accepted":
        for ident in resolved:
            mark_superseded(repo.root / catalog.get(ident).file)
    return path


_STATUS_LINE = re.compile(r"^status:[^\r\n]*", re.MULTILINE)


def mark_superseded(path: Path) -> bool:
    """Set ``status: superseded`` in a record's front matter (only the front matter; the
    file's line endings, CRLF too, are kept)."""
    text = path.read_bytes().decode("utf-8")  # it loaded, so it is UTF-8
    if not text.startswith("---"):
        return False
    end = text.find("\n---", 3)
    if end < 0:
        return False
    head, rest = text[:end], text[end:]
    if not _STATUS_LINE.search(head):
        return False
    atomic_write(path, _STATUS_LINE.sub("status: superseded", head, count=1) + rest)
    return True
