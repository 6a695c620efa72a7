"""Start a gitmem command in the background, detached from the caller (hooks never wait).

The stop hook starts the capture flusher at the end of every agent turn, and the tool-call
hooks may start a background refresh. With ``subprocess`` (and ``signal``, ``threading``,
``selectors``, ``contextlib``) and ``pathlib`` to do it, the stop hook took 58 ms; with
``os.posix_spawn``, which needs nothing beyond ``os``, and without the modules it did not
need, 20 ms (`python -c pass`: 15 ms; 15 alternating runs of old and new code).

``posix_spawn`` cannot change the child's directory, so the child starts as a one-line
trampoline that changes directory and then runs ``python -m gitmem``. Where
``posix_spawn`` or its new-session flag is missing (Windows, some BSDs), ``subprocess``
does the job.
"""

from __future__ import annotations

import os
import sys

# In the child: change into the repository, then run `python -m gitmem ARGS`.
_TRAMPOLINE = (
    "import os, runpy, sys; os.chdir(sys.argv.pop(1)); "
    "runpy.run_module('gitmem', run_name='__main__', alter_sys=True)"
)


def detach(args: list[str], cwd: str | os.PathLike[str]) -> bool:
    """Run ``python -m gitmem ARGS`` in ``cwd``, in its own session with no stdio; False if
    it could not be started (the caller's work is never lost: it is retried by a later
    run)."""
    where = os.fspath(cwd)
    if not os.path.isdir(where):
        return False
    try:
        return start([sys.executable, "-c", _TRAMPOLINE, where, *args]) is not None
    except NotImplementedError:  # no posix_spawn, or no new-session flag for it here
        return _detach_with_subprocess(args, where)


def start(argv: list[str]) -> int | None:
    """Start ``argv`` detached: a new session, stdin/stdout/stderr on the null device, and
    none of the caller's other descriptors (as ``close_fds``). The process id, or None if
    it could not be started. NotImplementedError where ``posix_spawn`` cannot do this."""
    if not hasattr(os, "posix_spawn") or not hasattr(os, "POSIX_SPAWN_CLOSE"):
        raise NotImplementedError("no posix_spawn")
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return None
    try:
        actions: list[tuple[int, ...]] = [(os.POSIX_SPAWN_DUP2, null, fd) for fd in (0, 1, 2)]
        # descriptors the agent let this hook inherit would otherwise stay open in a
        # process that may outlive it (a pipe it reads to the end, say)
        actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
        return os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setsid=True)
    except OSError:
        return None
    finally:
        os.close(null)


def _inherited() -> list[int]:
    """Open descriptors above 2 that a child would inherit (Python opens its own
    non-inheritable; these came from the caller's parent)."""
    try:
        names = os.listdir("/dev/fd")  # Linux, macOS, the BSDs
    except OSError:
        return []
    fds = []
    for name in names:
        if name.isdigit() and int(name) > 2:
            try:
                if os.get_inheritable(int(name)):
                    fds.append(int(name))
            except OSError:  # the listing's own descriptor, closed by now
                pass
    return fds


def _detach_with_subprocess(args: list[str], cwd: str) -> bool:
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-m", "gitmem", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    return True
