from __future__ import annotations

import click
from rich.markup import escape

from gitmem import compile as compiler
from gitmem import init as core
from gitmem.cli.output import current_repo, expected_errors, stdout
from gitmem.vocab import shown_name


@click.command()
@click.option("--no-import", is_flag=True, help="Do not look for existing ADR folders.")
@click.option(
    "--adr-dir",
    "adr_dirs",
    multiple=True,
    metavar="DIR",
    help="Also read the ADRs in DIR (repeatable): for a folder gitmem does not find itself.",
)
@expected_errors
def init(no_import: bool, adr_dirs: tuple[str, ...]) -> None:
    """Create .continuity/ in this repository and read existing ADR folders in place.

    Idempotent: run it again after adding ADRs to refresh their inferred globs (entries
    you marked `inferred: false` in .continuity/imported.yaml are never touched).
    """
    repo = current_repo(sparse_warning=False)  # init refuses instead
    report = core.init(repo, import_adrs=not no_import, adr_dirs=adr_dirs)
    # compile the match table now (~0.1 s for a log of 50 ADRs): the first hook then
    # finds it current, and `gitmem doctor`, the next step named below, says so
    compiler.ensure(repo).close()
    out = stdout()
    for path in report.created:
        out.print(f"created {path}")
    for folder in report.sources_added:
        prefix = report.prefixes.get(folder, "ADR")
        # a second numbered log gets ids of its own (see init.id_prefix): say which
        ids = "" if prefix == "ADR" else f"; ids {prefix}-0001, ..."
        shown = escape(shown_name(folder))
        out.print(f"reading ADRs in place from {shown}/ (added to .continuity/config.yaml{ids})")
    for gone, went in report.followed.items():
        # a log added this run took the old one's prefix (init._replace_sources)
        kept = ", and the ADRs keep their ids" if went in report.sources_added else ""
        out.print(
            f"{escape(shown_name(gone))}/ moved to {escape(shown_name(went))}/: its entry in"
            f" .continuity/config.yaml goes{kept}"
        )
    for new, old in report.moved.items():
        out.print(
            f"{escape(shown_name(old))} is now {escape(shown_name(new))}: its entry in"
            " .continuity/imported.yaml moved with it"
        )
    for rel in report.imported:
        globs = ", ".join(report.inferred[rel]) or "(none found: add globs by hand)"
        out.print(f"inferred globs for {escape(shown_name(rel))}: {escape(globs)}")
    if report.imported:
        out.print("review the inferred globs in .continuity/imported.yaml")
    if not (report.created or report.sources_added or report.imported or report.moved):
        out.print("already initialised; nothing to do")
    elif report.created:  # the first run: what to do next, on stderr (not data)
        # where a log was found, the team's next decision belongs in it
        log = report.sources_added[0] if report.sources_added else None
        click.echo(next_steps(log), err=True)


def next_steps(log: str | None) -> str:
    """What to do after the first `gitmem init`, a command and what it does per line."""
    first = (
        (f'gitmem new "TITLE" --in {log}', f"the next ADR of {log}, as its others are written")
        if log is not None
        else (
            "gitmem new \"TITLE\" --glob 'src/billing/**'",
            "record a decision and the paths it governs",
        )
    )
    rows = [
        first,
        ("gitmem install claude", "bring decisions to your agent (or codex,"),
        ("", "gemini, cursor, copilot, qwen, droid, opencode, kilo, pi, cline)"),
        ("gitmem install git", "check them at commit time"),
        ("gitmem doctor", "see that it all works"),
    ]
    return "next:\n" + "\n".join(f"  {command:<44} {what}" for command, what in rows)
