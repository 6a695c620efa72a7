"""One place that renders data to stdout and diagnostics to stderr."""

from __future__ import annotations

import contextlib
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
    """A record's time (seconds since the epoch) as ``YYYY-MM-DD HH:MM`` in the viewer's
    time zone (``TZ``, else the system's), as `ls -l` and `git log --date=local` show
    times, else "-". Before session 56 it was UTC, unlabelled: hours off for most users,
    and beside `git log`'s times."""
    import datetime as dt

    try:
        moment = dt.datetime.fromtimestamp(float(ts))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError, OSError):
        return "-"
    return moment.strftime("%Y-%m-%d %H:%M")


def emit_json(data: object) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        # \u escapes where stdout cannot write every character (or a file name holds a
        # byte that is not UTF-8): the same JSON, whole
        text = json.dumps(data, indent=2)
    click.echo(text)


# The characters gitmem's own text uses, and a title's typography, as ASCII where the
# output cannot write them. Everything else the output cannot write goes as a \uXXXX
# escape, which loses nothing.
PLAIN = {
    "→": "->",
    "←": "<-",
    "…": "...",
    "—": "--",
    "–": "-",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "·": "-",
    "≥": ">=",
    "≤": "<=",
    "≠": "!=",
    "×": "x",
    "•": "*",
}
ESCAPED_NOTE = (
    "gitmem: this output's encoding ({encoding}) cannot write some characters; they are"
    " shown as \\uXXXX escapes (PYTHONUTF8=1, or a UTF-8 locale, writes them as they are)"
)


def _writes_utf(encoding: str | None) -> bool:
    import codecs

    try:
        return codecs.lookup(encoding or "utf-8").name.startswith("utf")
    except LookupError:
        return False


def _plain(exc: UnicodeError, *, note: bool = False) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for char in exc.object[exc.start : exc.end]:
        plain = PLAIN.get(char)
        if plain is None:
            plain = char.encode("ascii", "backslashreplace").decode("ascii")
            if note:
                _note_escapes(exc.encoding)
        out.append(plain)
    return "".join(out), exc.end


_noted = False


def _note_escapes(encoding: str) -> None:
    """Say once, on stderr, that stdout holds escapes (said there, not in stdout's data)."""
    global _noted
    if _noted:
        return
    _noted = True
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(ESCAPED_NOTE.format(encoding=encoding) + "\n")


def fit_streams() -> None:
    """Let stdout and stderr write whatever gitmem prints, in any locale.

    Python writes stdout in the locale's encoding: Latin-1 on a server set up that way,
    Windows-1252 in a pipe on Windows (an agent's shell, a git hook). A decision titled
    with a `→`, an em dash or a Japanese word made every command that printed it end in a
    UnicodeEncodeError traceback, and `gitmem check --staged` with it blocked the commit
    (before session 55). Now what the encoding cannot write is written as ASCII (see PLAIN
    and `_plain`), said once on stderr; `--json` output escapes it as JSON does.

    A UTF-8 stream writes a file name's bytes that are not UTF-8 as they are (see below).
    An ASCII one writes UTF-8, as click's own output does there: ASCII is what the C
    locale says when it says nothing of the terminal, which is UTF-8 in practice (Python
    turns that locale into UTF-8 for the same reason, PEP 538).
    """
    import codecs

    from gitmem import utf8mode

    codecs.register_error("gitmem.plain", _plain)
    codecs.register_error("gitmem.plain-noted", functools.partial(_plain, note=True))
    for stream, handler in ((sys.stdout, "gitmem.plain-noted"), (sys.stderr, "gitmem.plain")):
        # run again in UTF-8 mode (gitmem.utf8mode): print in the terminal's encoding again
        encoding = utf8mode.LOCALE_ENCODING or getattr(stream, "encoding", None) or "utf-8"
        with contextlib.suppress(LookupError):
            if codecs.lookup(encoding).name == "ascii":
                encoding = "utf-8"
        # not a text stream of its own (a test's capture): left as it is
        with contextlib.suppress(AttributeError, ValueError, OSError, LookupError):
            if _writes_utf(encoding):
                # a name that is not UTF-8 (git's names are bytes) as its bytes, as git
                # and ls print it, and as UTF-8 mode does: before session 55, a traceback
                stream.reconfigure(encoding=encoding, errors="surrogateescape")  # type: ignore[union-attr]
            else:
                stream.reconfigure(encoding=encoding, errors=handler)  # type: ignore[union-attr]


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


def fails_open(
    hook: str, outcome: str, when: Callable[[dict[str, Any]], bool] = lambda _: True
) -> Callable[[F], F]:
    """For a command a git hook runs (``hook``: pre-commit, prepare-commit-msg), where
    ``when`` holds for its arguments: an error of gitmem's own (anything but an expected
    one, a usage error or an exit) lets the commit go on. It is said in one line on stderr
    and logged where `gitmem doctor` shows it, and the command exits 0. Before session 55
    it ended in a traceback and exit 1, and git refused the commit: a gitmem bug blocked
    an agent's or a person's work. A critical rule's block (exit 1) and a path that names
    nothing (exit 2) are deliberate, and stay. `gitmem check --range` in CI keeps failing
    on an error: there, a check that did not run must not read as a pass."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
                raise
            except Exception as exc:
                if not when(kwargs):
                    raise
                _hook_failed(hook, outcome, exc)
                return None

        return wrapper  # type: ignore[return-value]

    return decorate


def during_a_commit(_args: dict[str, Any]) -> bool:
    """Run by git for a commit: git sets GIT_INDEX_FILE for the hooks of `git commit` and
    `git merge`, which the pre-commit framework, husky and lefthook pass on to what they
    run. For `fails_open`: `gitmem lint`, `stale` and `export --check` as the pre-commit
    framework's hooks (before session 69 a gitmem bug there refused the commit).
    `pre-commit run --all-files` in CI sets no GIT_INDEX_FILE, and there, as for `check
    --range`, a check that did not run fails."""
    return "GIT_INDEX_FILE" in os.environ


def _hook_failed(hook: str, outcome: str, exc: Exception) -> None:
    from gitmem.agent.runner import ERROR_LOG, append_log, describe

    reason = describe(exc)
    logged = ""
    try:
        from gitmem.location import locate

        shared = locate(os.getcwd()).shared_state_dir
        if append_log(shared, ERROR_LOG, f"git {hook}: {reason}"):
            logged = "; `gitmem doctor` shows it"
    except Exception:  # no repository to log in: the line below is all there is
        pass
    click.echo(
        f"gitmem: internal error in the {hook} hook ({reason}); {outcome}{logged}",
        err=True,
    )


def os_error(exc: OSError) -> str:
    """An operating-system error as one line that names the file: a full disk, a
    read-only folder, a permission refused (before session 44 a traceback)."""
    where = f" {exc.filename}" if exc.filename else ""
    if exc.filename2:
        where += f" -> {exc.filename2}"
    return f"cannot use{where}: {exc.strerror or exc}"


def current_repo(*, sparse_warning: bool = True, hook_errors: bool = True) -> Repo:
    """The repository of the current folder; a warning where a sparse checkout leaves its
    decisions out (gitmem.location.SPARSE_NOTE): every command then reads none. And, to a
    person at a terminal (stderr a TTY), the hook errors logged since they were last told
    (gitmem.agent.failures): the session start tells only the users of agents that show a
    systemMessage, and a `git commit` in a terminal, or any command, tells the others. Not
    where no one would read it (an agent's command, a detached refresh, an IDE's commit):
    that would count the errors as told."""
    repo = discover(os.getcwd())
    if sparse_warning:
        from gitmem.location import SPARSE_NOTE, location_of, sparse_excluded

        if sparse_excluded(location_of(repo), folder_too=True):
            warn(SPARSE_NOTE)
    if hook_errors and _stderr_is_a_terminal():
        from gitmem.agent.failures import untold

        said = untold(str(repo.shared_state_dir))
        if said:
            from rich.markup import escape

            stderr().print(f"[yellow]warning:[/] {escape(said.removeprefix('gitmem: '))}")
    return repo


def _stderr_is_a_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed, or replaced by an object without it
        return False


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
