"""gitmem runs in Python's UTF-8 mode whatever the locale (PEP 540).

Git keeps file names as bytes, and in practice as UTF-8; the agents send them as UTF-8
JSON. Under a locale whose encoding is not UTF-8 (a server set up for Latin-1, `LC_ALL=C`
with the locale coercion turned off), Python names files in that locale's encoding: a path
such as `billing/実験.py` could not be stat'ed, opened or given to git (UnicodeEncodeError),
and one in Latin-1 named another file. Before session 55 the pre-tool hook failed open
there, so a critical rule let an edit of such a file through, and `gitmem check billing/`
passed over it. So each entry point, before anything else, runs itself again with
``-X utf8`` where the file-system encoding is not UTF-8: one more interpreter start, paid
only under such a locale (pre-tool 24.7 ms against 14.1 with `PYTHONUTF8=1`, session 55).
The terminal's own encoding is kept for what is printed (``LOCALE_ENCODING``, used by
`gitmem.cli.output.fit_streams`): UTF-8 mode would write UTF-8 to a Latin-1 terminal. And
a command-line argument that is not UTF-8 and names no file is read in the locale's
encoding, as it was typed (`gitmem new Café policy` in a Latin-1 terminal); one that
names a file keeps its bytes, as git's names do. Windows and macOS name files in UTF-8
already.

Lean on purpose (``os`` and ``sys``): the agent hooks call it on every event.
"""

from __future__ import annotations

import os
import sys

# The stdout encoding and the file-system (locale) encoding the process had before it ran
# itself again in UTF-8 mode, as "STDOUT;LOCALE": passed to the new process in this
# variable, which it takes out of its environment at once (its own children start from
# their locale again).
ENV = "GITMEM_LOCALE_ENCODING"
LOCALE_ENCODING: str | None = None
# in a process run again: the locale's own file-name encoding (for `gitmem doctor`)
RUN_AGAIN_FROM: str | None = None


def ensure() -> None:
    """Run this process again in UTF-8 mode where its file names are not UTF-8; in the
    process that was run again, note the locale's stdout encoding and read the arguments
    as typed. Returns where nothing is to be done, or where the new process cannot be
    started (it carries on as it is)."""
    global LOCALE_ENCODING, RUN_AGAIN_FROM
    if sys.flags.utf8_mode:
        if ENV in os.environ:
            stdout, _, typed = os.environ.pop(ENV).partition(";")
            LOCALE_ENCODING = stdout or None
            RUN_AGAIN_FROM = typed or None
            if typed:
                _read_as_typed(sys.argv, typed)
        return
    if os.name != "posix" or sys.getfilesystemencoding() == "utf-8":
        return
    argv = getattr(sys, "orig_argv", None)  # Python 3.10+: the interpreter's own options too
    if not argv or not sys.executable:
        return
    env = dict(os.environ)
    env[ENV] = f"{getattr(sys.stdout, 'encoding', None) or ''};{sys.getfilesystemencoding()}"
    try:
        os.execve(sys.executable, [sys.executable, "-X", "utf8", *argv[1:]], env)
    except OSError:
        return


def _read_as_typed(argv: list[str], encoding: str) -> None:
    """Each argument UTF-8 mode could not decode (it holds surrogate escapes) and that
    names no file, decoded in the locale's ``encoding`` instead: a title or a query typed
    in a Latin-1 terminal. One naming a file keeps its bytes (git's names are bytes)."""
    from gitmem.fsutil import undecoded_byte  # (only in a process run again)

    for i, arg in enumerate(argv[1:], 1):
        if undecoded_byte(arg) is None:
            continue  # UTF-8 as typed
        raw = os.fsencode(arg)
        if os.path.lexists(raw):
            continue
        try:
            argv[i] = raw.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue  # not text in the locale either: left as it is
