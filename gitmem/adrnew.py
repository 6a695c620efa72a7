"""``gitmem new --in DIR``: the next ADR of a log read in place, written as the log writes
its records.

A team that keeps an ADR log (``docs/adr``) wants its next decision there, numbered after
the others, not a second series in ``.continuity/decisions/`` beside it. The log's newest
record is the model: its file name's prefix, padding and separator (``0012-x.md``,
``adr-029-x.md``, ``024adr-x.md``), the label its heading puts before the title (``# 12.
X``, ``# ADR 029: X``), and whether it keeps YAML front matter (MADR 3/4) or its status
in a ``## Status`` section (Nygard, adr-tools, MADR 2). Globs given go to
``.continuity/imported.yaml`` as reviewed (``inferred: false``); without them, loading
infers them as ``gitmem init`` would.
"""

from __future__ import annotations

import datetime as dt
import os
import posixpath
import re
from pathlib import Path, PurePosixPath

from gitmem import adrfields, adrimport, config, fsutil, logtemplate, resources, sections, store
from gitmem.adrwords import ADR_STATUS_WORDS, CJK_STATUS_WORDS, ENGLISH_STATUS_WORDS
from gitmem.errors import GitmemError
from gitmem.repo import Repo
from gitmem.validate import canonical_status, name_date

# a log's record name: prefix, number, the separator before the slug ("adr-", "-")
_NAME = re.compile(r"^((?:[A-Za-z]+[-_ ]?)?)(\d+)([A-Za-z]*[-_ ])")
# a section of a template, up to the next heading of the same or a higher level
_STATUS_SECTION = re.compile(r"^## Status\n.*?(?=^#{1,2} |\Z)", re.MULTILINE | re.DOTALL)


def log_folder(repo: Repo, folder: str) -> config.Source:
    """The registered ADR folder ``folder`` names (as written in config.yaml, or a path
    to it from the current directory)."""
    cfg = config.load(repo.root)
    wanted = folder.strip().rstrip("/").removeprefix("./")
    candidate = (Path.cwd() / folder).resolve()
    for src in cfg.sources:
        if src.path == wanted or (repo.root / src.path).resolve() == candidate:
            return src
    known = ", ".join(s.path for s in cfg.sources) or "none"
    raise GitmemError(
        f"--in {folder}: not an ADR folder gitmem reads (config.yaml's sources: {known});"
        f" `gitmem init --adr-dir {folder}` reads it"
    )


def new_in_log(
    repo: Repo,
    title: str,
    *,
    log: str,
    template: str | None = None,
    status: str = "proposed",
    globs: list[str] | None = None,
    tags: list[str] | None = None,
    severity: str = "info",
    supersedes: list[str] | None = None,
) -> Path:
    """Write the next record of the ADR log in the folder ``log`` and return its path:
    from the log's own template (`logtemplate`) unless ``template`` names one of
    gitmem's, which is the default where the log keeps none."""
    from gitmem.records import check_new, one_line, slugify

    title = one_line(title)
    check_new(title, template or "adr", status, severity, globs or [])
    src = log_folder(repo, log)
    folder = repo.root / src.path
    catalog = store.load(repo.root)
    refs = [catalog.get(ref) for ref in supersedes or []]
    replaced = [(d.id, _said(repo.root / d.file, d.id), d.file) for d in refs]
    slug = slugify(title)
    # the log read and its next record created by one writer at a time (fsutil.folder_lock)
    with fsutil.folder_lock(folder):
        files = adrimport.adr_files(folder)
        numbered = [(n, p) for p in files if (n := adrimport.number_of(p.name)) is not None]
        dated = sorted(p for p in files if name_date(p.name))
        if numbered:
            newest: Path | None = max(numbered, key=lambda item: item[0])[1]
        else:  # a log named by date (log4brains: 20210304-x.md), or an empty one
            newest = dated[-1] if dated else None
        model = _in_log(repo.root, newest) if newest is not None else ""
        if newest is not None and newest.suffix.lower() != ".md":
            raise GitmemError(
                f"--in {src.path}: its records are {newest.suffix} files and `gitmem new` writes"
                " Markdown; write this one as the log's others are written"
            )
        own = logtemplate.find(folder, repo.root) if template is None else None
        own_text = _in_log(repo.root, own) if own is not None else None
        if template is None and (chosen := os.environ.get("ADR_TEMPLATE")):
            own_text = _read(
                Path(chosen), f"ADR_TEMPLATE={chosen}"
            )  # adr-tools' own setting, first as there
        if own_text is None and template is None:  # a log in another language: its headings
            own_text = logtemplate.skeleton(model)
        if own_text is not None:
            front = logtemplate.has_front_matter(own_text)
        else:
            front = model.startswith("---\n") or model.startswith("---\r\n")
        said = _log_word(files, status)
        if not front and severity != "info":
            raise GitmemError(
                f"--in {src.path}: its records keep no front matter, so no severity;"
                " leave out --severity"
            )
        tag_line = logtemplate.tags_line(own_text if own_text is not None else model)
        if not front and tags and not tag_line:
            raise GitmemError(
                f"--in {src.path}: its records keep no front matter nor a `Tags:` line, so"
                " no tags; leave out --tag"
            )
        by_date = bool(dated) and not numbered
        for attempt in range(100):
            number = 1 + max((n for n, _ in numbered), default=0)
            if by_date:
                name = _dated_name(dated[-1].name, slug, attempt)
            else:
                name = _file_name(newest.name if newest is not None else None, number, slug)
            if own_text is not None:  # the log's own template
                heading = _heading(model or _numbered(own_text, number, title), number, title)
                text = logtemplate.fill(
                    own_text,
                    heading=heading,
                    number=number,
                    title=title,
                    status=status,
                    said=said,
                    today=dt.date.today().isoformat(),
                    meta=_meta(severity, tags or [], replaced),
                    links=_links(replaced, src.path),
                    tags=tags or [],
                )
            else:
                heading = _heading(model, number, title)
                text = _render(
                    heading,
                    template=template or "adr",
                    status=status,
                    front=front,
                    tags=tags or [],
                    severity=severity,
                    supersedes=replaced,
                    here=src.path,
                    said=said,
                )
            path = folder / name
            if fsutil.create_exclusive(path, text):
                break
            numbered.append((number, path))  # taken (another writer?): the next number, or -2
        else:  # pragma: no cover
            raise GitmemError(f"could not find a free record number in {src.path}")
    if status == "accepted":
        for d in refs:
            _mark_superseded(repo.root / d.file, path, heading)
    if globs:
        from gitmem import init

        init.write_imported(
            repo.root, {path.relative_to(repo.root).as_posix(): tuple(globs)}, inferred=False
        )
    return path


def _numbered(template: str, number: int, title: str) -> str:
    """An adr-tools template's heading (``# NUMBER. TITLE``, the adrs tool's ``# {{ number
    }}. {{ title }}``) as its first record's, for the label of an empty log's first
    record."""
    text = template.replace("NUMBER", str(number)).replace("TITLE", title)
    return logtemplate.jinja(text, number=number, title=title, date="", status="")


def _log_word(files: list[Path], status: str) -> str:
    """How the log's records write ``status``: the word of the newest that says it in a
    word of its own (``Aceito`` in a Portuguese log, ``accepted`` in one that writes it in
    lower case), else gitmem's (``Accepted``)."""
    for path in sorted(files, reverse=True)[:50]:
        try:
            written = adrfields.written_status(fsutil.read_text(path)) or ""
        except (OSError, ValueError):
            continue
        words = [str(w) for w in re.findall(r"[^\W\d_]+", written)]
        word = words[0].lower() if words and len(words) <= 2 else ""
        # another language's word for it; not an English synonym ("Implemented")
        meaning = ADR_STATUS_WORDS.get(word) or CJK_STATUS_WORDS.get(word)
        if meaning == status and (word == status or word not in ENGLISH_STATUS_WORDS):
            return words[0]
    return status.capitalize()


def _meta(
    severity: str, tags: list[str], replaced: list[tuple[str, str, str]]
) -> list[tuple[str, str]]:
    from gitmem.records import yaml_list

    meta = [("severity", severity)] if severity != "info" else []
    if tags:
        meta.append(("tags", yaml_list(tags)))
    if replaced:
        meta.append(("supersedes", yaml_list([ident for ident, _, _ in replaced])))
    return meta


def _links(replaced: list[tuple[str, str, str]], here: str) -> list[str]:
    return [f"[{said}]({posixpath.relpath(file, here)})" for _, said, file in replaced]


def _dated_name(model: str, slug: str, attempt: int) -> str:
    """Today's record in a log named by date, written as its newest name writes the date
    (``20210304-x.md`` or ``2021-03-04-x.md``); a second one today with the same slug
    gets ``-2``."""
    today = dt.date.today()
    stamp = today.strftime("%Y%m%d") if model[:8].isdigit() else today.isoformat()
    return f"{stamp}-{slug}{f'-{attempt + 1}' if attempt else ''}.md"


def _read(path: Path, shown: str) -> str:
    """The text of ``path`` (the log's newest record or template, or the one adr-tools'
    ``ADR_TEMPLATE`` names), else a clear error naming it as ``shown``, and the line (not
    UTF-8, unreadable; before session 75, a traceback)."""
    try:
        return fsutil.read_text(path)
    except fsutil.NotUtf8 as exc:
        raise GitmemError(f"{shown}:{exc.line}: {exc}") from None
    except OSError as exc:
        raise GitmemError(f"{shown}: {fsutil.unread(exc)}") from None


def _in_log(root: Path, path: Path) -> str:
    return _read(_inside(root, path), path.relative_to(root).as_posix())


def _inside(root: Path, path: Path) -> Path:
    """``path`` where the work tree holds it (`fsutil.inside`), else a clear error."""
    try:
        return fsutil.inside(root, path.relative_to(root).as_posix())
    except fsutil.NotInRepository as exc:
        raise GitmemError(f"{path.relative_to(root)}: {exc.strerror}") from None


def _said(path: Path, ident: str) -> str:
    """How a link names a record, as adr-tools writes it: its heading (``2. Use X``)."""
    try:
        return sections.first_heading(fsutil.read_text(path)) or ident
    except (OSError, ValueError):
        return ident


def _file_name(model: str | None, number: int, slug: str) -> str:
    """``0012-old.md``, 13 -> ``0013-slug.md``; ``adr-029-x.md`` -> ``adr-030-slug.md``;
    no model (an empty log): ``0001-slug.md``, as adr-tools names it."""
    match = _NAME.match(model) if model is not None else None
    if match is None:
        return f"{number:04d}-{slug}.md"
    prefix, digits, sep = match.groups()
    return f"{prefix}{number:0{len(digits)}d}{sep}{slug}.md"


def _heading(model: str, number: int, title: str) -> str:
    """The title with the label the log's newest record puts before its own, renumbered:
    ``# ADR 029: X`` -> ``ADR 030: TITLE``; ``# 12. X`` -> ``13. TITLE``."""
    heading = sections.first_heading(model) or ""
    match = adrimport.TITLE_LABEL.match(heading)
    if match is None or match.group(2) is None:
        return title
    label = match.group(0)
    digits = re.search(r"\d+", label)
    assert digits is not None  # group 2 matched
    width = len(digits.group(0))
    label = f"{label[: digits.start()]}{number:0{width}d}{label[digits.end() :]}"
    return label + title


def _render(
    heading: str,
    *,
    template: str,
    status: str,
    front: bool,
    tags: list[str],
    severity: str,
    supersedes: list[tuple[str, str, str]],
    here: str,
    said: str,
) -> str:
    today = dt.date.today().isoformat()
    body = resources.template(template).replace("{status}", status.capitalize())
    body = body.split("\n", 1)[1].lstrip("\n")  # the template's "# {title}" line
    body = _STATUS_SECTION.sub("", body).rstrip("\n") + "\n"
    links = _links(supersedes, here)
    head = f"# {heading}\n\n"
    if front:
        meta = [("status", status), ("date", today), *_meta(severity, tags, supersedes)]
        return "---\n" + "".join(f"{k}: {v}\n" for k, v in meta) + "---\n\n" + head + body
    if links:
        said += "\n\nSupersedes " + ", ".join(links)
    tagged = f"Tags: {', '.join(tags)}\n\n" if tags else ""  # a log that keeps a Tags: line
    return f"{head}Date: {today}\n\n{tagged}## Status\n\n{said}\n\n{body}"


def mark_superseded_in_status(text: str, link: str) -> str | None:
    """``text`` with the status under its ``## Status`` heading (``## Estado``, ``## 状态``),
    when that is one status word on its own line (``Accepted``, ``Implemented``,
    ``Aceito``), replaced by ``Superseded by LINK``, as adr-tools does (``adr new -s``);
    None where the status is written some other way (lint then names the line to change)."""
    lines = text.splitlines(keepends=True)
    at = sections.heading_line(text, "status")
    if at is None:
        return None
    for n in range(at + 1, len(lines)):
        word = lines[n].strip()
        if not word:
            continue
        if canonical_status(word) is None and word.strip("*_").lower() not in ADR_STATUS_WORDS:
            return None  # not one status word ("Aceito", "Implemented": since session 74)
        ending = lines[n][len(lines[n].rstrip("\r\n")) :]
        lines[n] = f"Superseded by {link}{ending}"
        return "".join(lines)
    return None


def _mark_superseded(old: Path, new: Path, heading: str) -> None:
    """The replaced record says so: in its front matter (``status: superseded``) or, as
    adr-tools writes it, in its Status section (``Superseded by [13. Title](0013-x.md)``)."""
    from gitmem.records import mark_superseded

    if mark_superseded(old):
        return
    try:
        text = fsutil.read_text(old)
    except (OSError, ValueError):
        return
    link = PurePosixPath(os.path.relpath(new, old.parent)).as_posix()
    changed = mark_superseded_in_status(text, f"[{heading}]({link})")
    if changed is not None:
        fsutil.atomic_write(old, changed)
