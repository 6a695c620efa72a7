from __future__ import annotations

import os

import click
from rich.markup import escape

from gitmem import why as core
from gitmem.cli.output import (
    current_repo,
    emit_json,
    expected_errors,
    json_option,
    stdout,
    warn_problems,
    when,
)
from gitmem.table import table_problems
from gitmem.vocab import counted


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--no-provenance", is_flag=True, help="Skip the git log look-up per record.")
@json_option
@expected_errors
def why(paths: tuple[str, ...], no_provenance: bool, json_: bool) -> None:
    """Explain which decisions govern each PATH, most specific first.

    PATH may be absolute, relative to the current directory, or inside another worktree
    of this repository. Superseded decisions are listed after current ones and name their
    successor.
    """
    repo = current_repo()
    reports = core.why(repo, list(paths), cwd=os.getcwd(), provenance=not no_provenance)
    _print(reports, json_, no_provenance)
    warn_problems(table_problems(repo))


OTHER_CASE_SHOWN = 3  # the decisions a path would meet in another case, in the text


def _print(reports: list[core.PathReport], json_: bool, no_provenance: bool) -> None:
    if json_:
        emit_json([r.to_json() for r in reports])
        return
    out = stdout()
    for n, report in enumerate(reports):
        if report.repository is not None:
            where = os.path.relpath(report.repository)  # absolute when two levels up or more
            if where.startswith(os.path.join(os.pardir, os.pardir)):
                where = report.repository
            shown = f"{report.query} (in the repository at {where}: {report.path or '.'})"
        elif report.path is None:
            theirs = n + 1 < len(reports) and reports[n + 1].repository is not None
            if not theirs:
                out.print(f"[bold]{escape(report.query)}[/]: outside this repository")
            continue
        else:
            shown = report.path or "."
        if not report.decisions:
            itself = "this folder itself" if report.files_under is not None else "this path"
            out.print(f"[bold]{escape(shown)}[/]: no decision governs {itself}")
            for ident, title, glob, file in report.other_case[:OTHER_CASE_SHOWN]:
                out.print(
                    f"  [cyan]{escape(ident)}[/] {escape(title)} would govern it in another "
                    f"case: {escape(glob)} · {escape(file)} [dim](globs match case as "
                    "written, on every file system)[/]"
                )
            if len(report.other_case) > OTHER_CASE_SHOWN:
                out.print(f"  and {len(report.other_case) - OTHER_CASE_SHOWN} more in another case")
            _print_under(report)
            _print_sessions(report)
            continue
        out.print(f"[bold]{escape(shown)}[/]")
        for g in report.decisions:
            flag = "" if g.is_current else " [red](superseded)[/]"
            out.print(
                f"  [cyan]{escape(g.id)}[/] {escape(g.title)}  "
                f"[dim]{g.status}, {g.severity}[/]{flag}"
            )
            inferred = " (inferred)" if g.globs_inferred else ""
            out.print(f"    matched {escape(g.glob)}{inferred} · {escape(g.file)}")
            for s in g.superseded_by:
                out.print(f"    superseded by [cyan]{escape(s.id)}[/] {escape(s.title)}")
            if g.summary:
                out.print(f"    {escape(g.summary)}")
            if g.provenance is not None and g.provenance.shallow:
                p = g.provenance
                out.print(
                    f"    [dim]last changed in or before {p.sha[:10]} ({p.date[:10]}), where "
                    "this shallow clone's history starts (`git fetch --unshallow` for more)[/]"
                )
            elif g.provenance is not None:
                p = g.provenance
                out.print(
                    f"    [dim]last changed {p.sha[:10]} by {escape(p.author)} on {p.date[:10]}[/]"
                )
            elif not no_provenance:
                out.print("    [dim]not committed yet[/]")
        _print_under(report)
        _print_sessions(report)


def _print_under(report: core.PathReport) -> None:
    """For a folder: the decisions that govern files under it, not the folder itself."""
    total = report.files_under
    if total is None or (not report.under and total <= core.UNDER_MAX_FILES):
        return
    out = stdout()
    where = escape(report.path or "")
    if total > core.UNDER_MAX_FILES:
        out.print(f"  [dim]{total:,} files under it: name a narrower folder to see the others[/]")
        return
    out.print(f"  governing files under it ({counted(total, 'file')}):")
    for u in report.under:
        out.print(
            f"    [cyan]{escape(u.id)}[/] {escape(u.title)}  [dim]{u.severity}, "
            f"{counted(u.files, 'file')}, e.g. {escape(u.example)}[/]"
        )
    one = f"{where}/PATH" if report.path else "PATH"
    out.print(f"    [dim]`gitmem why {one}` explains one[/]")


def _print_sessions(report: core.PathReport) -> None:
    """The captured agent sessions that edited the path, newest first: the prompts behind
    its changes."""
    if not report.sessions_total:
        return
    out = stdout()
    total = report.sessions_total
    more = f", the newest {len(report.sessions)}" if total > len(report.sessions) else ""
    out.print(f"  edited in {counted(total, 'captured agent session')}{more}:")
    for edit in report.sessions:
        s = edit.session
        if edit.prompt:  # the request behind the change
            said = f'; edited it in answer to "{escape(edit.prompt)}"'
        else:  # its records do not say which prompt: what the session set out to do
            said = f'; began "{escape(s.first_prompt)}"' if s.first_prompt else ""
        size = counted(s.prompts, "prompt")
        # this clone's session, in that turn now or killed in it: no record lists it yet
        pending = " [dim](in a turn not ended yet)[/]" if edit.unrecorded else ""
        agent = f"{escape(s.agent)}, " if s.agent else ""
        out.print(f"    [cyan]{escape(s.id)}[/] {when(s.started)}, {agent}{size}{said}{pending}")
    out.print(
        f"    [dim]`gitmem sessions show ID` prints one; `gitmem sessions --edited "
        f"{escape(report.path or '.')}` lists them all[/]"
    )
