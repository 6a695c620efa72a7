from __future__ import annotations

import click

from gitmem import lint as core
from gitmem.cli.output import (
    current_repo,
    during_a_commit,
    emit_json,
    expected_errors,
    fails_open,
    json_option,
    stderr,
)


@click.command()
@json_option
@fails_open("gitmem-lint pre-commit", "the commit goes on unlinted", when=during_a_commit)
@expected_errors
def lint(json_: bool) -> None:
    """Validate every decision record; exit 1 on errors.

    Each problem prints as FILE:LINE: key: message. Warnings (unknown keys, globs that
    match no file, status that disagrees with supersession, an ADR log no source reads,
    inferred globs `gitmem init` would now infer otherwise) do not fail the run.
    """
    report = core.lint(current_repo())
    if json_:
        emit_json(
            {
                "checked": report.checked,
                "errors": report.errors,
                "warnings": report.warnings,
                "problems": [p.to_json() for p in report.problems],
            }
        )
    else:
        for p in report.problems:
            click.echo(p.format())
        stderr().print(report.summary())
    if report.errors:
        raise SystemExit(1)
