"""A case-insensitive, case-preserving file system, as macOS (APFS, HFS+) and Windows (NTFS)
give by default, mounted with FUSE over a folder of the test's: a name is looked up
regardless of case and of Unicode normalization, and kept as it was first written. git
probes for it as on those machines (`git init` sets core.ignorecase), and every process
(git, gitmem's hooks, the agent's tools) sees the same file under any spelling.

Run as `python tests/casefs.py BACKING MOUNTPOINT` (in the foreground, until unmounted);
tests use `mounted()`. Needs /dev/fuse, libfuse 3 (Debian: fuse3) and mfusepy.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import subprocess
import sys
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# utimensat's "now" and "leave as it is", as the nanoseconds of a time
UTIME_NOW = (1 << 30) - 1
UTIME_OMIT = (1 << 30) - 2


def fold(name: str) -> str:
    """The key names are looked up by: case and normalization put aside (as APFS does)."""
    return unicodedata.normalize("NFD", name).casefold()


def possible() -> str | None:
    """Why a case-insensitive file system cannot be mounted here, or None."""
    if sys.platform != "linux":
        return "FUSE mounts are a Linux test fixture"
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        return "no /dev/fuse to mount with"
    try:
        import mfusepy  # noqa: F401
    except (ImportError, OSError) as exc:
        return f"mfusepy or libfuse 3 missing: {exc}"
    if os.geteuid() != 0 and shutil.which("fusermount3") is None:
        return "fusermount3 missing (Debian: fuse3)"
    return None


def _ops(root: str, *, exact: bool = False, shared_locks: bool = False) -> Any:
    import mfusepy

    class CaseInsensitive(mfusepy.Operations):  # type: ignore[misc]
        use_ns = True

        def real(self, path: str) -> str:
            """The backing path of `path`: each name as it is stored, whatever its case
            (with ``exact``, as given: a plain passthrough)."""
            if exact:
                return os.path.join(root, path.lstrip("/"))
            current = root
            for part in (p for p in path.split("/") if p):
                candidate = os.path.join(current, part)
                if not os.path.lexists(candidate):
                    key = fold(part)
                    with contextlib.suppress(OSError):
                        for name in os.listdir(current):
                            if fold(name) == key:
                                candidate = os.path.join(current, name)
                                break
                current = candidate
            return current

        def access(self, path: str, amode: int) -> int:
            if not os.access(self.real(path), amode):
                raise mfusepy.FuseOSError(errno.EACCES)
            return 0

        def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
            st = os.fstat(fh) if fh is not None else os.lstat(self.real(path))
            keys = ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_ino")
            out: dict[str, Any] = {k: getattr(st, k) for k in keys}
            out.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns, st_ctime=st.st_ctime_ns)
            return out

        def readdir(self, path: str, fh: int) -> list[tuple[str, dict[str, int], int]]:
            # with each entry's own inode: an entry of inode 0 is one some programs skip
            folder = self.real(path)
            entries = [(".", os.lstat(folder)), ("..", os.lstat(os.path.dirname(folder)))]
            with os.scandir(folder) as names:
                entries += [(e.name, e.stat(follow_symlinks=False)) for e in names]
            return [(n, {"st_mode": st.st_mode, "st_ino": st.st_ino}, 0) for n, st in entries]

        def readlink(self, path: str) -> str:
            return os.readlink(self.real(path))

        def mknod(self, path: str, mode: int, dev: int) -> None:
            os.mknod(self.real(path), mode, dev)  # a FIFO, a Unix socket

        def mkdir(self, path: str, mode: int) -> None:
            os.mkdir(self.real(path), mode)

        def rmdir(self, path: str) -> None:
            os.rmdir(self.real(path))

        def unlink(self, path: str) -> None:
            os.unlink(self.real(path))

        def symlink(self, target: str, source: str) -> None:
            os.symlink(source, self.real(target))

        def link(self, target: str, source: str) -> None:
            os.link(self.real(source), self.real(target))

        def rename(self, old: str, new: str) -> None:
            source = self.real(old)
            parent, name = os.path.split(new)
            existing = self.real(new)
            wanted = os.path.join(self.real(parent), name)
            # another spelling of a name there: it is replaced (or, being the file itself,
            # renamed to the new spelling), and the new spelling kept
            if (
                existing != wanted
                and os.path.lexists(existing)
                and not os.path.samefile(existing, source)
            ):
                os.replace(source, existing)
                source = existing
            os.replace(source, wanted)

        def chmod(self, path: str, mode: int) -> None:
            os.chmod(self.real(path), mode)

        def chown(self, path: str, uid: int, gid: int) -> None:
            os.lchown(self.real(path), uid, gid)

        def truncate(self, path: str, length: int, fh: int | None = None) -> None:
            if fh is not None:
                os.ftruncate(fh, length)
            else:
                os.truncate(self.real(path), length)

        def utimens(self, path: str, times: tuple[int, int] | None = None) -> None:
            real = self.real(path)
            if times is not None:  # libfuse hands on utimensat's UTIME_NOW and UTIME_OMIT
                now, kept = time.time_ns(), os.lstat(real)
                times = (
                    now
                    if times[0] == UTIME_NOW
                    else kept.st_atime_ns
                    if times[0] == UTIME_OMIT
                    else times[0],
                    now
                    if times[1] == UTIME_NOW
                    else kept.st_mtime_ns
                    if times[1] == UTIME_OMIT
                    else times[1],
                )
            os.utime(real, ns=times, follow_symlinks=False)

        def open(self, path: str, flags: int) -> int:
            return os.open(self.real(path), flags)

        def create(self, path: str, mode: int, fi: Any = None) -> int:
            # read and write: the caller may read what it writes (git's packs); the kernel
            # asks `create` for a name the lookup found nowhere, in any case
            return os.open(self.real(path), os.O_RDWR | os.O_CREAT, mode)

        def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
            return os.pread(fh, size, offset)

        def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
            return os.pwrite(fh, data, offset)

        def flush(self, path: str, fh: int) -> None:
            return None

        def fsync(self, path: str, datasync: int, fh: int) -> None:
            os.fsync(fh)

        def release(self, path: str, fh: int) -> None:
            os.close(fh)

        if shared_locks:

            def flock(self, path: str, fh: int, op: int) -> int:
                # on the backing file: a lock taken here excludes one taken there, as
                # NFSv4's locks span the machines that mount it (without this op, the
                # kernel keeps FUSE's locks to the mount, as NFS's local_lock does)
                try:
                    fcntl.flock(fh, op)
                except OSError as exc:
                    raise mfusepy.FuseOSError(exc.errno) from None
                return 0

        def statfs(self, path: str) -> dict[str, int]:
            st = os.statvfs(self.real(path))
            keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree")
            return {
                k: getattr(st, k) for k in (*keys, "f_files", "f_flag", "f_frsize", "f_namemax")
            }

    return CaseInsensitive()


def _mounted_at(mountpoint: Path) -> bool:
    target = str(mountpoint)
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        return any(line.split()[1] == target for line in mounts)


@contextlib.contextmanager
def mounted(
    backing: Path, mountpoint: Path, *, exact: bool = False, shared_locks: bool = False
) -> Iterator[Path]:
    """`backing` seen case-insensitively at `mountpoint`, until the block ends; with
    ``exact``, as it is (a passthrough: see tests/test_other_machine.py), its ``flock``
    locks those of the backing files with ``shared_locks``."""
    backing.mkdir(parents=True, exist_ok=True)
    mountpoint.mkdir(parents=True, exist_ok=True)
    log = mountpoint.parent / f"{mountpoint.name}.fuse.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                str(backing),
                str(mountpoint),
                *(["--exact"] * exact),
                *(["--shared-locks"] * shared_locks),
            ],
            stdout=out,
            stderr=out,
        )
    try:
        deadline = time.monotonic() + 20
        while not _mounted_at(mountpoint):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"casefs did not mount: {log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield mountpoint
    finally:
        if _mounted_at(mountpoint):
            # lazily where a process still works there (a hook's background refresh)
            root = os.geteuid() == 0
            for lazy in ([], ["-l" if root else "-z"]):
                command = ["umount", *lazy] if root else ["fusermount3", "-u", *lazy]
                done = subprocess.run([*command, str(mountpoint)], check=False, capture_output=True)
                if done.returncode == 0:
                    break
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    import mfusepy

    backing, mountpoint = sys.argv[1:3]
    exact = "--exact" in sys.argv[3:]
    shared_locks = "--shared-locks" in sys.argv[3:]
    # No caching of names: "Foo" and "foo" are one entry here, which the kernel's caches
    # would otherwise keep apart for a while after a rename or removal. A file removed
    # while open is removed (libfuse would otherwise keep it as `.fuse_hidden*`, and its
    # folder could not be removed).
    mfusepy.FUSE(
        _ops(os.path.realpath(backing), exact=exact, shared_locks=shared_locks),
        mountpoint,
        foreground=True,
        # a lock that waits must not stop every other request: the lock's holder may need
        # one to go on (only the passthrough's operations are safe on several threads)
        nothreads=not shared_locks,
        use_ino=True,
        entry_timeout=0,
        attr_timeout=0,
        negative_timeout=0,
        hard_remove=True,
    )


if __name__ == "__main__":
    main()
