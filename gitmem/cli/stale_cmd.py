from __future__ import annotations

import os

import click
from rich.markup import escape

from gitmem import stale as core
from gitmem.cli.output import (
    current_repo,
    during_a_commit,
    emit_json,
    expected_errors,
    fails_open,
    json_option,
    os_error,
    stderr,
    warn,
)
from gitmem.errors import GitmemError
from gitmem.paths import to_repo_relative
from gitmem.vocab import shown_name


@click.command()
@click.argument("files", nargs=-1)
@json_option
@fails_open(
    "gitmem-stale pre-commit",
    "the commit goes on with the agent instruction files unchecked",
    when=during_a_commit,
)
@expected_errors
def stale(files: tuple[str, ...], json_: bool) -> None:
    """Flag lines of CLAUDE.md, AGENTS.md and other agent instruction files that no longer
    agree with the code; exit 1 if any does.

    Errors: a path, link or glob that matches nothing, a code symbol no code file mentions,
    a make target / package.json script / just recipe / project `python -m` module that is
    not defined, a decision id that is superseded. Warnings: a section naming paths that a
    decision dated after the section's last edit governs. FILES: check these Markdown files
    instead (the result is then not kept for the session-start hook). A line holding
    `gitmem:ignore` is skipped.
    """
    repo = current_repo()
    only = None
    if files:
        only = []
        for f in files:
            rel = to_repo_relative(f, repo, os.getcwd())
            if not rel or not (repo.root / rel).is_file():
                raise GitmemError(f"{f}: not a file of this repository")
            only.append(rel)
    report = core.check(repo, only)
    if only is None:
        try:
            core.write_cache(repo, report)
        except OSError as exc:  # the report stands: before session 56, a bare error
            warn(f"the result is not kept for the session-start hook: {os_error(exc)}")
    if json_:
        emit_json(report.to_json())
    else:
        for finding in report.findings:
            click.echo(finding.format())
        err = stderr()
        for note in report.notes:
            err.print(f"[yellow]note:[/] {note}")
        shown = ", ".join(escape(shown_name(f)) for f in report.files)
        names = shown if len(report.files) <= 4 else f"{len(report.files)} files"
        err.print(
            f"{names or 'no instruction files'}: {report.references} references checked, "
            f"{report.errors} stale, {report.warnings} to review"
        )
    if report.errors:
        raise SystemExit(1)
