"""One place that renders data to stdout and diagnostics to stderr."""

from __future__ import annotations

import errno
import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console

from gitmem.errors import GitmemError
from gitmem.repo import Repo, discover
from gitmem.table import Problems

F = TypeVar("F", bound=Callable[..., Any])


def stdout() -> Console:
    return Console(highlight=False, soft_wrap=True)


def stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def when(ts: object) -> str:
    """A record's time (seconds since the epoch) as ``YYYY-MM-DD HH:MM`` UTC, else "-"."""
    import datetime as dt

    try:
        moment = dt.datetime.fromtimestamp(float(ts), dt.timezone.utc)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError, OSError):
        return "-"
    return moment.strftime("%Y-%m-%d %H:%M")


def emit_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def json_option(func: F) -> F:
    return click.option("json_", "--json", is_flag=True, help="Print JSON to stdout.")(func)


def expected_errors(func: F) -> F:
    """Turn expected failures into a clean message on stderr and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GitmemError as exc:
            raise click.ClickException(str(exc)) from exc
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise  # click ends quietly when the reader of stdout has gone
            raise click.ClickException(os_error(exc)) from exc

    return wrapper  # type: ignore[return-value]


def os_error(exc: OSError) -> str:
    """An operating-system error as one line that names the file: a full disk, a
    read-only folder, a permission refused (before session 44 a traceback)."""
    where = f" {exc.filename}" if exc.filename else ""
    if exc.filename2:
        where += f" -> {exc.filename2}"
    return f"cannot use{where}: {exc.strerror or exc}"


def current_repo(*, sparse_warning: bool = True) -> Repo:
    """The repository of the current folder; a warning where a sparse checkout leaves its
    decisions out (gitmem.location.SPARSE_NOTE): every command then reads none."""
    repo = discover(os.getcwd())
    if sparse_warning:
        from gitmem.location import SPARSE_NOTE, location_of, sparse_excluded

        if sparse_excluded(location_of(repo), folder_too=True):
            warn(SPARSE_NOTE)
    return repo


def warn(message: str) -> None:
    stderr().print(f"[yellow]warning:[/] {message}", markup=True)


def warn_problems(problems: Problems | None) -> None:
    """Say on stderr that record files have errors, which ones, and that those left out
    reach no agent: what `gitmem lint` would tell, where a user is already looking."""
    if problems is None:
        return
    from rich.markup import escape

    err = stderr()
    err.print(
        f"[yellow]warning:[/] {escape(problems.headline())}; `gitmem lint` shows every problem:"
    )
    for line in problems.lines():
        err.print(f"  {escape(line)}")
    more = problems.more()
    if more > 0:
        err.print(f"  … and {more} more file{'s' if more > 1 else ''}")


def is_tty() -> bool:
    return sys.stdout.isatty()
