"""Atomic file writes: a temp file in the same folder, fsync, then ``os.replace``.

The replacement keeps the permissions of the file it replaces, and a new file gets
the mode ``open()`` would give it (0666 less the umask). ``tempfile.mkstemp`` alone
creates 0600: ``gitmem install`` then turned a team's 0664 ``.claude/settings.json``
into one only its owner could read, and an agent running as another user (a dev
container's user, a shared host) would read no hooks at all, silently.

A symbolic link is written through, not replaced: a ``~/.claude/settings.json`` kept in
a dotfiles repository and linked into place stays linked, and the repository gets the
change.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path


def atomic_write(path: Path, text: str) -> None:
    """``path`` holding ``text`` whole, or as it was: written aside, then renamed over it.
    Where the write fails, the folders it made for ``path`` go too (before session 57, a
    full disk left `gitmem install claude` an empty .claude/ behind its error)."""
    made: list[Path] = []
    if path.is_symlink():
        path = Path(os.path.realpath(path))  # a dangling link's target's folder must exist
    else:
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            made.append(folder)
            folder = folder.parent
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        keep: int | None = os.stat(path).st_mode & 0o7777
    except OSError:
        keep = None
    try:
        # exactly the old bits: the umask applied at creation
        tmp = write_aside(path, text, mode=keep)
        with removed_on_failure(tmp, path):
            os.replace(tmp, path)
    except BaseException:
        for folder in made:  # the deepest first; rmdir removes only an empty folder
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def write_aside(path: Path, text: str, *, mode: int | None = None, executable: bool = False) -> str:
    """``text`` written whole, and flushed to disk, to a new temporary file beside ``path``
    (its name returned), for the caller to rename over ``path``: where the write fails
    (the disk full), the temporary file is removed and the error names ``path``, so
    nothing is left half-written. ``mode``: its permission bits (else 0666 less the
    umask); ``executable``: with the execute bits added, as git needs a hook to be."""
    fd, tmp = create_aside(path)
    with removed_on_failure(tmp, path):
        if mode is not None:
            os.fchmod(fd, mode)
        if executable:
            os.fchmod(fd, os.fstat(fd).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    return tmp


@contextlib.contextmanager
def removed_on_failure(made: Path | str, path: Path | str) -> Iterator[None]:
    """Remove the file ``made`` where the block fails, so that nothing is left
    half-written, and name ``path`` in an OSError that names no file: a write or a close
    that fails for want of room raises ENOSPC with no file name (before session 56 the
    commands said "cannot use: No space left on device")."""
    try:
        yield
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(made)
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror, str(path)).with_traceback(
                exc.__traceback__
            ) from None
        raise


def create_aside(path: Path) -> tuple[int, str]:
    """A new, exclusive temp file beside ``path``, mode 0666 less the umask (not
    ``tempfile.mkstemp``'s 0600: see the module's text)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the folder itself while the block runs: the writers
    of the next numbered record (``gitmem new``, ``new --in``, the MCP server's
    ``propose_decision``) each read the highest number and create the next file under it.
    ``create_exclusive`` alone guards one file name, and two titles make two names: six
    ``gitmem new`` run at once gave two records ``0010``. The lock is the folder's own,
    so no lock file is left in the work tree or needed in a git directory that may be
    read-only. Where the file system has no ``flock`` (some network file systems) the
    lock is a stand-in in the user's temporary folder (``locked.lock``, since session 59);
    where the folder is not there, or cannot be locked at all, the block runs unlocked."""
    from gitmem import locked

    fd: int | None = None
    stand_in: int | None = None
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if fd is not None:
            with contextlib.suppress(OSError):
                stand_in = locked.lock(fd)
        yield
    finally:
        if stand_in is not None:
            os.close(stand_in)
        if fd is not None:
            os.close(fd)  # closing the descriptor releases the lock


def undecoded_byte(text: str) -> int | None:
    """The first byte ``text`` holds as Python holds a byte it could not decode (a lone
    surrogate escape, U+DC80-U+DCFF: a file name or an argument that is not UTF-8); None
    where there is none."""
    if text.isascii():
        return None
    bad = next((c for c in text if "\udc80" <= c <= "\udcff"), None)
    return None if bad is None else ord(bad) - 0xDC00


def create_exclusive(path: Path, text: str) -> bool:
    """Create ``path`` only if it does not exist yet; False if another writer won. The
    text is encoded before the file is made, and a write that fails removes it: before
    session 55 a title holding an undecodable byte (a lone surrogate) left a record cut
    after its front matter's first line, which then failed to load."""
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return False
    with removed_on_failure(path, path), os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return True


class NotUtf8(ValueError):
    """A text file that is not UTF-8, located: ``line`` (1-based) and a message that
    names the byte and its column."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


class NotInRepository(OSError):
    """A file the repository names that gitmem will not read: a symbolic link out of its
    work tree, or not a regular file. The message says which."""


def leaves(root: Path, rel: str) -> bool:
    """Whether ``root / rel`` (a file, or one to be written) resolves outside ``root``:
    through a symbolic link, of its own or of a folder on its way, or through `..`."""
    real = os.path.realpath(os.path.join(root, rel))
    top = os.path.realpath(root)
    return os.path.commonpath([real, top]) != top


def inside(root: Path, rel: str) -> Path:
    """``root / rel``, where it is a file the work tree holds; else `NotInRepository`.

    A record (or an ADR, or gitmem's settings) is a symbolic link git commits as it would
    any file. gitmem reads it and hands its text to agents unasked, so a link to
    ``/proc/self/environ``, ``~/.aws/credentials`` or another project's file, in a pull
    request or a cloned repository, sent what it names to the model's provider; one to
    ``/dev/zero`` was read until memory ran out. Links within the work tree are read; so
    is a work tree reached through a link of its own."""
    path = root / rel
    real = os.path.realpath(path)  # through a linked folder and `..` too
    if leaves(root, real):
        linked = os.path.islink(path)
        said = "a symbolic link out of the repository" if linked else "outside the repository"
        raise NotInRepository(errno.EACCES, f"{said}: not read", str(path))
    if not stat.S_ISREG(os.stat(real).st_mode):
        raise NotInRepository(errno.EACCES, "not a regular file: not read", str(path))
    return path


def unread(exc: OSError | NotUtf8) -> str:
    """What a problem says of a file that could not be read: `NotInRepository`'s reason
    as it is, any other error after "cannot read"."""
    if isinstance(exc, NotInRepository):
        return str(exc.strerror)
    return f"cannot read: {exc}"


def read_text(path: Path) -> str:
    """``path`` as ``Path.read_text(encoding="utf-8")`` reads it (newlines translated, a
    byte-order mark kept). `NotUtf8` names the line and column of the first byte that is
    not UTF-8, where a bare UnicodeDecodeError gave only its offset ("position 1364")."""
    data = path.read_bytes()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        # PowerShell 5 writes UTF-16 with `>` and `Out-File`; the guess below named Latin-1
        raise NotUtf8(1, "not UTF-8: saved as UTF-16 (its byte-order mark); save the file as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        raise NotUtf8(
            line,
            f"not UTF-8: byte 0x{data[exc.start]:02x} at column {exc.start - start + 1} "
            "(saved as Latin-1 or Windows-1252?); save the file as UTF-8",
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # newlines as text mode reads them


def fields(lines: Iterable[str]) -> dict[str, str]:
    """``key value`` lines as a mapping, each side stripped: the notes a daemon leaves in
    its lock file and a build beside its generation (which machine, which generation)."""
    return {key.strip(): value.strip() for key, _, value in (x.partition(" ") for x in lines)}
