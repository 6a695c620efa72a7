from __future__ import annotations

import click
from rich.markup import escape

from gitmem.cli.output import (
    current_repo,
    emit_json,
    expected_errors,
    fails_open,
    json_option,
    stdout,
)


@click.command()
@click.option("--staged", is_flag=True, help="Check the staged changes (pre-commit).")
@click.option("--range", "rev_range", metavar="A..B", help="Check a revision range (CI).")
@click.argument("paths", nargs=-1)
@json_option
@fails_open("pre-commit", "the commit goes on unchecked", when=lambda args: bool(args["staged"]))
@expected_errors
def check(staged: bool, rev_range: str | None, paths: tuple[str, ...], json_: bool) -> None:
    """Show the decisions governing a change and enforce their rules.

    Without options: the unstaged changes; --staged: the index; --range A..B: commits
    (e.g. origin/main...HEAD in CI); PATH...: whole files, or with --staged or --range,
    that change to these files and folders only (`--staged {staged_files}`). A critical
    decision's rule violation exits 1; warning and info print only. Exceptions: a
    `Decision-Override: ID reason` commit trailer (ranges) or GITMEM_OVERRIDE="ID reason"
    (staged). A folder stands for its files (`gitmem check .`: every file); a PATH
    naming nothing exits 2.
    """
    from gitmem import check as core  # not at the top: `trailers` runs at every commit too

    if staged and rev_range:
        raise click.UsageError("--staged checks the index, --range commits: give one")

    repo = current_repo()
    report = core.check(repo, staged=staged, rev_range=rev_range, paths=list(paths) or None)
    if json_:
        emit_json(
            {
                "files": list(report.files),
                "decisions": [
                    {
                        "id": e.id,
                        "title": e.title,
                        "severity": e.severity,
                        "file": e.file,
                        "paths": list(files),
                    }
                    for e, files in report.governing
                ],
                "violations": [v.as_json() for v in report.violations],
                "overridden": [v.as_json() for v in report.overridden],
                "overrides": report.overrides,
                "problems": [p.to_json() for p in report.problems],
                "moved_out": [
                    {
                        "id": m.entry.id,
                        "file": m.entry.file,
                        "line": m.line,
                        "glob": m.glob,
                        "moves": [{"old": old, "new": new} for old, new in m.moves],
                        "suggestion": m.suggestion,
                    }
                    for m in report.moved_out
                ],
                "unchecked": [{"path": path, "reason": why} for path, why in report.unchecked],
                "merging": list(report.merging),
                "blocked": report.blocked,
            }
        )
    else:
        out = stdout()
        for entry, files in report.governing:
            out.print(
                f"[cyan]{escape(entry.id)}[/] ({entry.severity}) {escape(entry.title)}"
                f"  [dim]{escape(', '.join(files[:5]))}{' …' if len(files) > 5 else ''}[/]"
            )
        for v in report.violations:
            click.echo(v.format())
        for v in report.overridden:
            reason = report.overrides.get(v.decision, "")
            click.echo(f"{v.format()} (overridden: {reason})")
        for p in report.problems:
            click.echo(p.format())
        for m in report.moved_out:
            click.echo(m.format())
        quiet = not report.governing and not report.problems and not report.moved_out
        if quiet and (report.files or not report.unchecked):
            out.print("no decision governs these changes")
    for path, why in report.unchecked:
        click.echo(f"gitmem check: {path}: {why}: not checked", err=True)
    if report.merging and not json_:
        merged = ", ".join(c[:10] for c in report.merging)
        click.echo(
            f"gitmem check: a merge of {merged}: rules read the lines the merge adds to both"
            " sides, not those a side already had",
            err=True,
        )
    if report.blocked:
        raise SystemExit(1)
    if report.unchecked:
        raise SystemExit(2)  # as for a usage error: what was asked was not all checked


@click.command()
@click.argument("message_file", type=click.Path(dir_okay=False))
@click.argument("source", required=False, default="")
@click.argument("sha", required=False, default="")
@fails_open("prepare-commit-msg", "the commit goes on without a Decisions trailer")
@expected_errors
def trailers(message_file: str, source: str, sha: str) -> None:
    """prepare-commit-msg: add a `Decisions:` trailer naming the decisions that govern the
    staged files (off with `commit_trailers: false`)."""
    from pathlib import Path

    from gitmem import githooks

    githooks.add_trailer(current_repo(), Path(message_file), source, sha)
