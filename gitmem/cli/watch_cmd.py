from __future__ import annotations

import sys

import click

from gitmem import daemon
from gitmem.cli.output import current_repo, expected_errors


@click.command()
@click.option(
    "--idle",
    type=click.IntRange(min=1),
    default=None,
    help="Exit after this many idle seconds (default: watch_idle_seconds).",
)
@click.option("--quiet", is_flag=True, help="No log lines on stderr.")
@expected_errors
def watch(idle: int | None, quiet: bool) -> None:
    """Keep the index fresh and serve fast retrieval (optional warm daemon).

    Watches the decision records, re-indexes incrementally when they change, and answers
    `gitmem search` and the agent hooks over a local socket with the model loaded. One per
    work tree; exits after the idle time. Everything works without it, only slower.
    """

    def log(message: str) -> None:
        if not quiet:
            click.echo(f"gitmem watch: {message}", err=True)
            sys.stderr.flush()

    raise SystemExit(daemon.run(current_repo(), idle_seconds=idle, log=log))
