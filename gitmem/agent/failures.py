"""The hook errors the user has not been told of, said once as a session starts.

Every hook fails open: on an error of gitmem's own it lets the agent (or the commit) go on
and writes the reason to ``hook-errors.log``, where `gitmem doctor` shows it. Before
session 69 that was all: a user who never ran doctor never learnt that, say, the pre-tool
hook had failed on every call for a week, and with it every critical rule (the pain users
of other memory tools report first: hooks that fail without a word). Now the next session
start tells the user, through the agent's ``systemMessage``, how many errors were logged
since they were last told, when the first was, and the last one's reason. It does not tell
the agent: the agent cannot mend gitmem, and the words would cost tokens. The users of the
other agents are told by the next gitmem command they run at a terminal (a `git commit`
whose hook runs `gitmem check` included; `gitmem.cli.output.current_repo`), and `gitmem
doctor`, which shows the errors, counts them as told.

What was told is the log's size, kept beside it in ``hook-errors.told``: a session start
stats the log (~10 µs) and reads on only where it grew. The log is rotated at
``runner.MAX_LOG_BYTES``; a log smaller than the size told was rotated, and is read from
its start.
"""

from __future__ import annotations

import os

from gitmem.agent.runner import ERROR_LOG

TOLD = "hook-errors.told"
READ_AT_MOST = 64 * 1024  # bytes of the log read for one message (it holds 256 KiB at most)
SAID_AT_MOST = 240  # characters of the last error's reason


def untold(shared: str) -> str:
    """A one-line message for the user on the errors logged in ``shared`` since the last
    one, noted as told; "" when there are none (or the log cannot be read)."""
    log = os.path.join(shared, ERROR_LOG)
    try:
        size = os.stat(log).st_size
    except OSError:
        return ""
    mark = os.path.join(shared, TOLD)
    try:
        with open(mark, encoding="ascii") as fh:
            told = int(fh.read().strip() or 0)
    except (OSError, ValueError):
        told = 0
    if size == told:
        return ""
    start = told if told < size else 0  # smaller than told: rotated since
    try:
        with open(log, "rb") as fh:
            skipped = max(0, size - start - READ_AT_MOST)
            fh.seek(start + skipped)
            data = fh.read(size - start - skipped)
    except OSError:
        return ""
    lines = data.decode("utf-8", "replace").splitlines()
    if skipped and lines:
        lines = lines[1:]  # cut inside a line
    lines = [line for line in lines if line.strip()]
    _note_told(mark, size)
    if not lines:
        return ""
    first_stamp = lines[0].split(" ", 1)[0]
    stamp, _, reason = lines[-1].partition(" ")
    reason = " ".join(reason.split())
    if len(reason) > SAID_AT_MOST:
        reason = reason[: SAID_AT_MOST - 1] + "…"
    more = "more than " if skipped else ""
    if len(lines) == 1 and not skipped:
        head = f"gitmem: a hook of gitmem's failed at {stamp} (it let your work go on): {reason}"
    else:
        head = (
            f"gitmem: {more}{len(lines)} errors in gitmem's hooks since {first_stamp} (each let "
            f"your work go on); the last, at {stamp}: {reason}"
        )
    return f"{head}. `gitmem doctor` shows the latest."


def mark_told(shared: str) -> None:
    """Note every error logged in ``shared`` as told (`gitmem doctor` has shown them)."""
    try:
        size = os.stat(os.path.join(shared, ERROR_LOG)).st_size
    except OSError:
        return
    _note_told(os.path.join(shared, TOLD), size)


def _note_told(mark: str, size: int) -> None:
    """Write the size told, replacing the mark in one step (two sessions starting at once
    may both tell: no worse than that)."""
    aside = f"{mark}.{os.getpid()}"
    try:
        with open(aside, "w", encoding="ascii") as fh:
            fh.write(str(size))
        os.replace(aside, mark)
    except OSError:
        try:  # noqa: SIM105 (contextlib costs a fresh interpreter ~1 ms)
            os.unlink(aside)
        except OSError:
            pass
