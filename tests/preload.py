"""Libraries loaded into a gitmem process with LD_PRELOAD, compiled when a test needs
one: a file system that lacks what gitmem asks of it, emulated at the system call. The
process asks the C library, which asks the kernel; these answer as such a file system's
kernel driver does, for paths under a folder the test names, and pass everything else on.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

POSSIBLE = sys.platform == "linux" and shutil.which("gcc") is not None

# bind() of a Unix socket under $NOSOCK_UNDER fails as on a file system that cannot hold
# one (an SMB share, a Windows drive under WSL, a virtual machine's shared folder)
NO_SOCKETS = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
int bind(int fd, const struct sockaddr *addr, socklen_t len) {
    static int (*real)(int, const struct sockaddr *, socklen_t);
    if (!real) real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
    const char *under = getenv("NOSOCK_UNDER");
    if (under && addr && addr->sa_family == AF_UNIX
        && strncmp(((const struct sockaddr_un *)addr)->sun_path, under, strlen(under)) == 0) {
        errno = EOPNOTSUPP;
        return -1;
    }
    return real(fd, addr, len);
}
"""

# flock() and fcntl() locks on files under $NOLOCK_UNDER fail with $NOLOCK_ERRNO (default
# ENOLCK, "No locks available": an NFS mount whose lock daemon does not answer; 38,
# ENOSYS: Lustre mounted without flock)
NO_LOCKS = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
static int refused(int fd) {
    const char *under = getenv("NOLOCK_UNDER");
    if (!under) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0) return 0;
    path[n] = 0;
    if (strncmp(path, under, strlen(under)) != 0) return 0;
    const char *no = getenv("NOLOCK_ERRNO");
    errno = no ? atoi(no) : ENOLCK;
    return 1;
}
static int is_lock(int cmd) {
    return cmd == F_SETLK || cmd == F_SETLKW || cmd == F_GETLK
        || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW || cmd == F_OFD_GETLK;
}
int flock(int fd, int op) {
    static int (*real)(int, int);
    if (!real) real = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
    return refused(fd) ? -1 : real(fd, op);
}
#define PASS_ON(name) \
int name(int fd, int cmd, ...) { \
    static int (*real)(int, int, ...); \
    if (!real) real = (int (*)(int, int, ...))dlsym(RTLD_NEXT, #name); \
    va_list ap; va_start(ap, cmd); void *arg = va_arg(ap, void *); va_end(ap); \
    if (is_lock(cmd) && refused(fd)) return -1; \
    return real(fd, cmd, arg); \
}
PASS_ON(fcntl)
PASS_ON(fcntl64)
"""


# mmap() of files under $NOMMAP_UNDER fails with ENODEV ("No such device"), as on a FUSE
# mount with direct I/O (before Linux 6.6) and some network file systems
NO_MMAP = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
static int refused(int fd) {
    const char *under = getenv("NOMMAP_UNDER");
    if (!under || fd < 0) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0) return 0;
    path[n] = 0;
    return strncmp(path, under, strlen(under)) == 0;
}
#define REFUSE(name) \
void *name(void *addr, size_t len, int prot, int flags, int fd, off_t off) { \
    static void *(*real)(void *, size_t, int, int, int, off_t); \
    if (!real) real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, #name); \
    if (refused(fd)) { errno = ENODEV; return MAP_FAILED; } \
    return real(addr, len, prot, flags, fd, off); \
}
REFUSE(mmap)
REFUSE(mmap64)
"""

NAMES = {id(NO_SOCKETS): "nosock", id(NO_LOCKS): "nolock", id(NO_MMAP): "nommap"}


def build(folder: Path, source: str) -> Path:
    """``source`` compiled into a shared library in ``folder``: its path. The test is
    skipped where the library cannot be loaded (``folder`` on a `noexec` mount): the
    loader would pass over it with a warning, and the process run as on any file system."""
    import pytest

    name = NAMES[id(source)]
    c, so = folder / f"{name}.c", folder / f"{name}.so"
    c.write_text(source)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(so), str(c), "-ldl"], check=True)
    loads = subprocess.run(
        [sys.executable, "-c", "pass"], env={"LD_PRELOAD": str(so)}, capture_output=True, text=True
    )
    if loads.returncode != 0 or loads.stderr:
        pytest.skip(f"{so} cannot be preloaded here: {loads.stderr.strip()}")
    return so
