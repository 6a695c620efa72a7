from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from gitmem import compile as compiler
from gitmem import records, store
from gitmem.cli.output import (
    current_repo,
    emit_json,
    expected_errors,
    json_option,
    stdout,
    warn,
    warn_problems,
)
from gitmem.model import SEVERITIES, STATUSES
from gitmem.resources import TEMPLATES
from gitmem.table import Entry


def _text_argument(name: str, value: str) -> None:
    """Refuse an argument holding a byte that is not text in this terminal's encoding
    (Python keeps it as a lone surrogate): written into a record, it is no UTF-8 (before
    session 55, a traceback)."""
    from gitmem.fsutil import undecoded_byte

    byte = undecoded_byte(value)
    if byte is not None:
        raise click.BadParameter(
            f"{value.encode('utf-8', 'surrogateescape')!r} holds the byte 0x{byte:02x}, which"
            " is not text in this terminal's encoding (a file's name pasted? its encoding"
            " differs from the locale's)",
            param_hint=name,
        )


@click.command()
@click.argument("words", metavar="TITLE...", nargs=-1, required=True)
@click.option(
    "--template",
    "-t",
    type=click.Choice(sorted(TEMPLATES)),
    default=None,
    help="adr (Nygard, the default), y (Y-statement) or madr; with --in, the log's own"
    " template (templates/template.md, template.md, adr-template.md) where it keeps one.",
)
@click.option("--glob", "-g", "globs", multiple=True, help="Path pattern it governs (repeat).")
@click.option("--tag", "tags", multiple=True, help="Tag (repeat).")
@click.option("--severity", type=click.Choice(SEVERITIES), default="info", show_default=True)
@click.option("--status", type=click.Choice(STATUSES), default="proposed", show_default=True)
@click.option("--supersedes", multiple=True, help="Id of a decision this one replaces (repeat).")
@click.option(
    "--in",
    "log",
    metavar="DIR",
    help="Write the next ADR of this log read in place (e.g. docs/adr), as its others are.",
)
@expected_errors
def new(
    words: tuple[str, ...],
    template: str | None,
    globs: tuple[str, ...],
    tags: tuple[str, ...],
    severity: str,
    status: str,
    supersedes: tuple[str, ...],
    log: str | None,
) -> None:
    """Write the next decision record and print its path.

    With --status accepted, the records named by --supersedes are marked superseded.
    With --in DIR, the record is the next ADR of that log: numbered, named and headed as
    its newest one is, its globs kept in .continuity/imported.yaml.

    The title may be given unquoted, as adr-tools takes it: `gitmem new Use queues`.
    """
    title = " ".join(words)
    for name, values in (("TITLE", [title]), ("--glob", globs), ("--tag", tags)):
        for value in values:
            _text_argument(name, value)
    repo = current_repo()
    if log is None and not globs:
        package = _package_here(repo.root)
        if package is not None:
            globs = (f"{package}/**",)
            click.echo(
                f"gitmem: it governs {globs[0]}, the package it was written in; edit its "
                "globs to narrow or widen that",
                err=True,
            )
    write: Callable[..., Path] = functools.partial(records.new, template=template or "adr")
    if log is not None:
        from gitmem import adrnew

        write = functools.partial(adrnew.new_in_log, log=log, template=template)
    path = write(
        repo,
        title,
        status=status,
        globs=list(globs),
        tags=list(tags),
        severity=severity,
        supersedes=list(supersedes),
    )
    click.echo(path.relative_to(repo.root).as_posix())


def _package_here(root: Path) -> str | None:
    """The monorepo package the current folder is in (gitmem.adrglobs.package_of), which
    a record written there without globs governs (since session 67: before, none)."""
    from gitmem import adrglobs, git
    from gitmem.location import folder_below

    rel = folder_below(str(root), str(Path.cwd()))
    return adrglobs.package_of(rel, adrglobs.package_folders(git.ls_files(root))) if rel else None


@click.command(name="list")
@click.option("--status", type=click.Choice(STATUSES), help="Only records with this status.")
@json_option
@expected_errors
def list_(status: str | None, json_: bool) -> None:
    """List the decision records (effective status: superseded once replaced)."""
    repo = current_repo()
    table = compiler.ensure(repo)
    try:
        entries = [e for e in table.entries() if status is None or e.effective_status == status]
        problems = table.problems()
    finally:
        table.close()
    _list_out(entries, json_)
    warn_problems(problems)


def _list_out(entries: list[Entry], json_: bool) -> None:
    if json_:
        emit_json(
            [
                {
                    "id": e.id,
                    "title": e.title,
                    "status": e.effective_status,
                    "severity": e.severity,
                    "date": e.date,
                    "globs": list(e.globs),
                    "tags": list(e.tags),
                    "file": e.file,
                    "superseded_by": list(e.superseded_by),
                    "pin": e.pin,
                }
                for e in entries
            ]
        )
        return
    if not sys.stdout.isatty():
        # piped (`gitmem list | grep billing`): a record a line, tab-separated, never
        # folded at 80 columns as a table would be
        for e in entries:
            fields = (e.id, e.effective_status, e.severity, e.title, ", ".join(e.globs) or "-")
            click.echo("\t".join(f.replace("\t", " ") for f in fields))
        return
    grid = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    for col in ("id", "status", "severity", "title", "globs"):
        grid.add_column(col, overflow="fold")
    for e in entries:
        grid.add_row(
            escape(e.id),
            e.effective_status,
            e.severity,
            escape(e.title),
            escape(", ".join(e.globs)) or "-",
        )
    stdout().print(grid)


@click.command()
@click.argument("ident", metavar="ID")
@json_option
@expected_errors
def show(ident: str, json_: bool) -> None:
    """Show one decision: its metadata, summary and full text."""
    repo = current_repo()
    d = store.load(repo.root).get(ident)
    if json_:
        emit_json(
            {
                "id": d.id,
                "title": d.title,
                "status": d.effective_status,
                "declared_status": d.status,
                "severity": d.severity,
                "date": d.date,
                "globs": list(d.globs),
                "globs_inferred": d.globs_inferred,
                "tags": list(d.tags),
                "supersedes": list(d.supersedes),
                "superseded_by": list(d.superseded_by),
                "pin": d.pin,
                "file": d.file,
                "summary": d.summary,
                "body": d.body,
                "rules": [r.__dict__ for r in d.rules],
            }
        )
        return
    out = stdout()
    out.print(f"[bold cyan]{escape(d.id)}[/] [bold]{escape(d.title)}[/]")
    out.print(f"status: {d.effective_status}   severity: {d.severity}   date: {d.date or '-'}")
    out.print(f"file: {escape(d.file)}")
    if d.globs:
        note = " (inferred: review in .continuity/imported.yaml)" if d.globs_inferred else ""
        out.print(f"globs: {escape(', '.join(d.globs))}{note}")
    if d.supersedes:
        out.print(f"supersedes: {', '.join(d.supersedes)}")
    if d.superseded_by:
        out.print(f"[red]superseded by: {', '.join(d.superseded_by)}[/]")
    if d.summary:
        out.print(f"\n[bold]Summary[/]\n{escape(d.summary)}")
    out.print("")
    click.echo(d.body)


@click.command()
@click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
@json_option
@expected_errors
def renumber(dry_run: bool, json_: bool) -> None:
    """Give a free number to each record whose id another record has (two branches that
    each ran `gitmem new`).

    The record that reached this branch first keeps the id (first-parent history: what a
    merge brought in moves; an uncommitted record is the newest). The other is renamed
    (`git mv` when tracked) to the next free number; the references of the records that
    came with it are rewritten. Mentions in prose are listed, not changed.
    """
    from gitmem import renumber as core
    from gitmem.fsutil import folder_lock

    repo = current_repo()
    with folder_lock(store.decisions_dir(repo.root)):  # no `gitmem new` takes a number meanwhile
        todo = core.plan(repo)
        if not dry_run:
            core.apply(repo, todo)
    if json_:
        emit_json(
            {
                "applied": not dry_run,
                "moves": [dataclasses.asdict(m) for m in todo.moves],
                "unfixable": list(todo.unfixable),
            }
        )
    else:
        verb = "would move" if dry_run else "moved"
        for m in todo.moves:
            click.echo(f"{m.old_id} -> {m.new_id}: {verb} {m.old_file} to {m.new_file}")
            click.echo(f"  {m.old_id} stays with {m.kept_by}")
            for rel in m.rewritten:
                click.echo(f"  {rel}: its reference to {m.old_id} now names {m.new_id}")
            for rel in m.mentions:
                click.echo(f"  {rel}: mentions {m.old_id} in its text; check which it means")
        if not todo.moves and not todo.unfixable:
            click.echo("no two records share an id")
    for message in todo.unfixable:
        warn(escape(message))
    if todo.moves and not dry_run:
        compiler.ensure(repo)
