from __future__ import annotations

import os

import click
from rich.markup import escape

from gitmem import config
from gitmem.budget import render
from gitmem.cli.output import current_repo, emit_json, expected_errors, json_option, stdout, warn
from gitmem.search import search as run_search


@click.command()
@click.argument("words", metavar="[QUERY]...", nargs=-1)
@click.option("--path", "-p", "paths", multiple=True, help="A path being touched (repeat).")
@click.option(
    "-k", "k", type=click.IntRange(min=1), default=10, show_default=True, help="How many results."
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help="Print the text an agent would get within this many tokens.",
)
@click.option("--no-daemon", is_flag=True, help="Do not use a running `gitmem watch`.")
@json_option
@expected_errors
def search(
    words: tuple[str, ...],
    paths: tuple[str, ...],
    k: int,
    budget: int | None,
    no_daemon: bool,
    json_: bool,
) -> None:
    """Rank the decisions relevant to QUERY and the touched --path(s).

    Shows each result's fused score and its rank and score from every ranker (path, bm25,
    embed). Uses the warm daemon when one runs, else retrieves in-process. The query may
    be given unquoted: `gitmem search retry payments` (before session 44 an error).
    """
    query = " ".join(words)
    if not query and not paths:
        raise click.UsageError("give a QUERY, one or more --path, or both")
    repo = current_repo()
    result, via = run_search(repo, query, list(paths), k=k, cwd=os.getcwd(), daemon=not no_daemon)
    for w in result.warnings:
        warn(w)
    if json_:
        emit_json({**result.to_json(), "served_by": via})
        return
    if budget is not None:
        cfg = config.load(repo.root)
        text, _ = render(
            [(h, h.glob) for h in result.hits],
            budget_tokens=budget,
            chars_per_token=cfg.chars_per_token,
            more_hint="`gitmem search` with a larger -k shows them.",
        )
        click.echo(text)
        return
    out = stdout()
    if not result.hits:
        out.print("no matching decisions")
        return
    for n, h in enumerate(result.hits, start=1):
        flag = "" if h.is_current else f" [red](superseded by {', '.join(h.superseded_by)})[/]"
        out.print(
            f"{n:>2}. [cyan]{escape(h.id)}[/] {escape(h.title)}  "
            f"[dim]{h.status}, {h.severity}[/]{flag}"
        )
        detail = "  ".join(
            f"{name} #{rank} ({raw:.3f})" for name, (rank, raw) in sorted(h.ranks.items())
        )
        extra = f"  via successor of {h.via_successor_of}" if h.via_successor_of else ""
        out.print(f"    score {h.score:.4f}  {detail}{extra}")
        if h.glob:
            out.print(f"    governs {escape(h.glob)}")
        if h.duplicates:
            out.print(f"    near-duplicates: {', '.join(h.duplicates)}")
    more = result.total - len(result.hits)
    if more > 0:
        out.print(f"[dim]{more} more matched; raise -k to see them[/]")
    out.print(f"[dim]rankers: {', '.join(result.rankers)} · served by {via}[/]")
