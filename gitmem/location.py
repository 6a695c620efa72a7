"""Where the repository is, and where a path lies in it, with strings and ``os`` only.

The agent's tool-call hooks use this directly (``pathlib`` alone costs a fresh interpreter
several milliseconds: it imports ``re``, ``fnmatch`` and ``urllib.parse``); everything else
uses the ``Path``-based wrappers in ``gitmem.repo`` and ``gitmem.paths``, which call into
this module, so there is one implementation of each rule.

Discovery understands plain repositories, linked worktrees (a ``.git`` file pointing at
``<common>/worktrees/<name>``), submodules, and ``GIT_DIR`` / ``GIT_WORK_TREE``.
"""

from __future__ import annotations

import os

from gitmem.errors import NotARepositoryError

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Callable

    from gitmem.repo import Repo

_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


class Location:
    """A work tree and its git directories, as absolute path strings."""

    __slots__ = ("common_dir", "git_dir", "root")

    def __init__(self, root: str, git_dir: str, common_dir: str) -> None:
        self.root = root
        self.git_dir = git_dir
        self.common_dir = common_dir

    @property
    def state_dir(self) -> str:
        """Derived state for this work tree (see ``Repo.state_dir``)."""
        return state_dir_of(self.git_dir)

    @property
    def shared_state_dir(self) -> str:
        """Derived state shared by every worktree (see ``Repo.shared_state_dir``)."""
        return os.path.join(self.common_dir, "gitmem")

    def repo(self) -> Repo:
        from pathlib import Path

        from gitmem.repo import Repo

        return Repo(Path(self.root), Path(self.git_dir), Path(self.common_dir))


# What gitmem says where `.continuity/` is in the repository but not in this work tree: a
# sparse checkout (monorepos) that leaves it out. Before session 39 gitmem took such a
# work tree for one without decisions: `why` said no decision governs a path, the hooks
# showed nothing, and `init` wrote a new config.yaml over the tracked one.
SPARSE_NOTE = (
    "this sparse checkout leaves out .continuity/, so gitmem reads none of the project's "
    "decisions here: `git sparse-checkout add .continuity` brings them in"
)


def sparse_excluded(
    loc: Location, folder: str = ".continuity", *, folder_too: bool = False
) -> bool:
    """Whether the repository tracks ``folder`` (repository-relative) but a sparse checkout
    leaves it out of this work tree (its files marked skip-worktree). One stat in the
    usual cases; a git process only in a sparse checkout without the folder
    (``folder_too``: with it too, where it holds only some of the files, such as a
    config.yaml `init` wrote)."""
    if not folder_too and os.path.isdir(os.path.join(loc.root, folder)):
        return False
    if not os.path.exists(os.path.join(loc.git_dir, "info", "sparse-checkout")):
        return False
    from gitmem import leangit

    out = leangit.output(["ls-files", "-t", "-z", "--", folder], loc.root)
    return any(entry.startswith("S ") for entry in (out or "").split("\0"))


# Derived state (the table, the path map, the search index) lives in <git-dir>/gitmem.
# Where that cannot be written, it is kept in this user's own folder in a temporary
# directory instead, one per git directory, so that the read commands still answer: a
# repository mounted read-only (a container's `-v repo:/src:ro`), or an agent's sandbox
# that keeps .git read-only while the agent runs gitmem (Codex's workspace-write and
# read-only modes; the latter leaves only /dev/shm writable). Before session 44 `search`,
# `why`, `list`, `check` and `stale` each stopped there with a traceback as soon as a
# record had changed since the table was last compiled (`gitmem new` in the sandbox, a
# pull outside it). What is kept aside is checked for freshness as the git directory's
# own state is; the logs and sessions (``shared_state_dir``) are not moved: they are read
# where the hooks, which run outside such sandboxes, write them.
_STATE: dict[str, str] = {}
_TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")  # after $TMPDIR and $XDG_RUNTIME_DIR
# the files of the state folder copied aside (table.TABLE_NAME, pathmap.MAP_NAME,
# stalenote.CACHE_NAME; tests/test_state.py holds them to those), and its index/
SEEDED = ("table.sqlite", "pathmap.bin", "stale.json")


def state_dir_of(git_dir: str) -> str:
    """Where the derived state of the work tree whose git directory is ``git_dir`` is
    read and written: ``<git_dir>/gitmem``, or, where that cannot be written, the folder
    ``state_aside`` gives. One ``access`` call per process and git directory."""
    found = _STATE.get(git_dir)
    if found is None:
        primary = git_state_dir(git_dir)
        probe = primary if os.path.isdir(primary) else git_dir
        writable = not os.path.isdir(probe) or os.access(probe, os.W_OK)
        found = primary if writable else (state_aside(git_dir) or primary)
        if found != primary:
            _seed(primary, found)
        _STATE[git_dir] = found
    return found


def git_state_dir(git_dir: str) -> str:
    """``<git_dir>/gitmem``: where derived state is kept when the git directory can be
    written, and where the hooks (which run outside agents' sandboxes) keep it."""
    return os.path.join(git_dir, "gitmem")


def _seed(primary: str, aside: str) -> None:
    """Copy into ``aside`` what the git directory's own state folder holds that is newer
    there (the table and the path map, the search index's current generation): what the
    hooks keep up to date outside the sandbox is used, not built again (embedding every
    record: seconds). Copies keep their times, so each is copied once. Best effort: what
    is not copied is built."""
    import shutil

    try:
        os.makedirs(aside, exist_ok=True)
    except OSError:
        return
    for name in SEEDED:
        source, target = os.path.join(primary, name), os.path.join(aside, name)
        try:
            if os.path.isfile(source) and _newer(source, target):
                _copy_atomically(source, target, shutil.copy2)
        except OSError:
            continue
    index, into = os.path.join(primary, "index"), os.path.join(aside, "index")
    current = os.path.join(index, "CURRENT")
    try:
        if not _newer(current, os.path.join(into, "CURRENT")):
            return
        with open(current, encoding="utf-8") as fh:
            gen = fh.read().strip()
        if not gen or os.sep in gen or not os.path.isdir(os.path.join(index, gen)):
            return
        os.makedirs(into, exist_ok=True)
        if not os.path.isdir(os.path.join(into, gen)):
            _copy_atomically(os.path.join(index, gen), os.path.join(into, gen), shutil.copytree)
        _copy_atomically(current, os.path.join(into, "CURRENT"), shutil.copy2)
    except (OSError, shutil.Error):
        return


def _newer(source: str, target: str) -> bool:
    try:
        made = os.stat(source).st_mtime_ns
    except OSError:
        return False
    try:
        return made > os.stat(target).st_mtime_ns
    except OSError:
        return True


def _copy_atomically(source: str, target: str, copy: Callable[[str, str], object]) -> None:
    """``copy`` to a name of this process's, then renamed over ``target``: another
    process reads the old file or the new one whole. A folder another process has put
    in place meanwhile is kept."""
    import shutil

    aside = f"{target}.{os.getpid()}.tmp"
    try:
        copy(source, aside)
        if os.path.isdir(aside):
            try:
                os.rename(aside, target)
            except OSError:  # there already: another process copied it first
                shutil.rmtree(aside, ignore_errors=True)
            return
        os.replace(aside, target)
    finally:
        if os.path.lexists(aside):
            if os.path.isdir(aside):
                shutil.rmtree(aside, ignore_errors=True)
            else:
                os.unlink(aside)


def state_aside(git_dir: str) -> str | None:
    """``<temp>/gitmem-<uid>/state-<hash of the git directory>``, in ``temp_folder``
    (the table holds the decisions' text, which is given to agents). None where this user
    has no such folder."""
    import hashlib

    key = hashlib.sha256(os.path.realpath(git_dir).encode()).hexdigest()[:16]
    folder = temp_folder()
    return None if folder is None else os.path.join(folder, f"state-{key}")


_MACHINE: list[str] = []


def machine_id() -> str:
    """Which running kernel this is: the first 8 hex digits of Linux's boot id, "" where
    there is none (macOS, Windows). Processes reach each other's Unix sockets only under
    one kernel: a dev container shares its host's (and its boot id), while another
    machine that mounts the same clone (an NFS home of several login nodes, a file share)
    sees the socket file and gets "connection refused" (see
    ``gitmem.client.daemon_file``), and may hold the clone's locks apart from this one's
    (see ``gitmem.capture.flush``). Read once per process, ~10 µs."""
    if not _MACHINE:
        try:
            with open("/proc/sys/kernel/random/boot_id", "rb") as fh:
                head = fh.read(8).decode("ascii")
        except (OSError, UnicodeDecodeError):
            head = ""
        ok = len(head) == 8 and all(c in "0123456789abcdef" for c in head)
        _MACHINE.append(head if ok else "")
    return _MACHINE[0]


def temp_folder(*, create: bool = True, fixed: bool = False) -> str | None:
    """``<temp>/gitmem-<uid>``: this user's folder in the first of ``$TMPDIR``, /tmp,
    /var/tmp, ``$XDG_RUNTIME_DIR`` and /dev/shm where they have, or (with ``create``) can
    make, one of their own that they can write (``own_folder``). None where there is none.
    Never a file of gitmem's in a shared temporary folder itself: another user could put
    one there first. ``fixed``: only the folders every process of the user names alike,
    whatever its environment (/tmp, /var/tmp, /dev/shm), for what processes meet at."""
    *disks, memory = _TEMP_DIRS
    bases = [os.environ.get("TMPDIR", ""), *disks, os.environ.get("XDG_RUNTIME_DIR", ""), memory]
    if fixed:
        bases = list(_TEMP_DIRS)
    for base in filter(None, bases):
        folder = own_folder(base, create=create)
        if folder is not None and os.access(folder, os.W_OK):
            return folder
    return None


def own_folder(base: str, *, create: bool = True) -> str | None:
    """``<base>/gitmem-<uid>``, this user's folder there, made (mode 0700) with
    ``create``; None where it is missing, or not this user's alone (another user's, a
    link, open to others): what is kept there (prompts spilled from a full disk, the
    decisions' text) must be neither read nor planted by another user."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # pragma: no cover - Windows: no such folders are made
        return None
    import stat

    uid = getuid()
    folder = os.path.join(base, f"gitmem-{uid}")
    try:
        if create:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
        return None
    return folder


def location_of(repo: Repo) -> Location:
    return Location(str(repo.root), str(repo.git_dir), str(repo.common_dir))


def _read_gitfile(dotgit: str) -> str | None:
    try:
        with open(dotgit, encoding="utf-8") as fh:
            text = fh.read().strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:") :].strip()
    if not os.path.isabs(target):
        target = os.path.join(os.path.dirname(dotgit), target)
    return os.path.normpath(target)


def _common_dir(git_dir: str) -> str:
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            rel = fh.read().strip()
    except OSError:
        return git_dir
    if not os.path.isabs(rel):
        rel = os.path.join(git_dir, rel)
    return os.path.normpath(rel)


def locate(start: str | os.PathLike[str] | None = None) -> Location:
    """Find the repository containing ``start`` (default: the current directory): the one
    this process works in, whose ``core.sharedRepository`` it takes on as git does (see
    ``adopt_sharing``). On a case-insensitive file system (``core.ignorecase``) its paths
    are spelled as stored, whatever case the working folder was named in
    (``gitmem.spelling``)."""
    found = _find(start)
    adopt_sharing(found)
    geteuid = getattr(os, "geteuid", None)
    if geteuid is not None and geteuid() == 0:
        _adopt_owner(found)
    return found


def _adopt_owner(loc: Location) -> None:
    """This process is root: where the repository is another user's, what it makes in
    the git directory becomes theirs (see gitmem.handback, imported only then)."""
    try:
        st = os.stat(loc.common_dir)
    except OSError:
        return
    if st.st_uid != 0:
        from gitmem import handback

        handback.adopt(loc, st.st_uid, st.st_gid)


def as_stored(loc: Location) -> Location:
    """``loc`` with its folders spelled as the file system stores them where that takes
    names regardless of case (``gitmem.spelling``); ``loc`` itself elsewhere."""
    folds, precompose = spelling_of(loc.common_dir)
    if not folds:
        return loc
    from gitmem import spelling

    root = spelling.absolute(loc.root, precompose)

    def spelled(path: str) -> str:
        # the `.git` folder under the root is named as `repository_of` found it, git's
        # own spelling: only the root's part is looked up (each listing costs, /tmp's too)
        rest = _rel_under(path, loc.root)
        return spelling.absolute(path, precompose) if rest is None else _joined(root, rest)

    git_dir = spelled(loc.git_dir)
    common = git_dir if loc.common_dir == loc.git_dir else spelled(loc.common_dir)
    if common != loc.common_dir:
        _CONFIG[common] = _CONFIG.get(loc.common_dir)
    return Location(root, git_dir, common)


def _joined(root: str, rel: str) -> str:
    return root.rstrip("/") + "/" + rel if rel else root


def _find(start: str | os.PathLike[str] | None) -> Location:
    env_dir = os.environ.get("GIT_DIR")
    if env_dir:
        # As git does: with GIT_DIR and no GIT_WORK_TREE, the work tree is the current
        # directory (git hooks run at the top of the work tree, e.g. a linked worktree's,
        # with GIT_DIR=<common>/worktrees/<name>).
        git_dir = os.path.abspath(env_dir)
        work = os.environ.get("GIT_WORK_TREE")
        root = os.path.abspath(work if work else (start or os.getcwd()))
        return as_stored(Location(root, git_dir, _common_dir(git_dir)))

    here = os.path.abspath(start if start is not None else os.getcwd())
    found = repository_of(here)
    if found is None:
        raise NotARepositoryError(here, jj_root_of(here))
    return found


def jj_root_of(path: str) -> str | None:
    """The nearest folder at or above ``path`` that holds a Jujutsu repository (``.jj``),
    or None: asked only once no git repository was found, to say why."""
    while True:
        if os.path.isdir(os.path.join(path, ".jj")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def jj_colocated(root: str) -> bool:
    """Whether the work tree at ``root`` is also a Jujutsu repository (``.jj`` beside
    ``.git``): the commits jj makes run none of git's hooks."""
    return os.path.isdir(os.path.join(root, ".jj"))


_CONFIG: dict[str, str | None] = {}


def config_text(common_dir: str) -> str | None:
    """The text of the repository's own config file (None where it cannot be read: git
    will say what is wrong), read once per process."""
    if common_dir in _CONFIG:
        return _CONFIG[common_dir]
    try:
        with open(os.path.join(common_dir, "config"), encoding="utf-8", errors="replace") as fh:
            text: str | None = fh.read()
    except OSError:
        text = None
    _CONFIG[common_dir] = text
    return text


_SHARING_READ: set[str] = set()


def adopt_sharing(loc: Location) -> None:
    """Files and folders this process makes in ``loc``'s git directory get the modes git
    gives its own there where the repository is shared (``git init --shared=group``):
    see ``gitmem.sharing``. One read of the config file per process and repository;
    gitmem.sharing is imported only where it names the key."""
    if loc.common_dir in _SHARING_READ:
        return
    _SHARING_READ.add(loc.common_dir)
    text = config_text(loc.common_dir)
    if text is not None and "sharedrepository" in text.lower():
        from gitmem import sharing

        sharing.adopt(text, (loc.shared_state_dir, git_state_dir(loc.git_dir)))


_SPELLING: dict[str, tuple[bool, bool]] = {}


def spelling_of(common_dir: str) -> tuple[bool, bool]:
    """(``core.ignorecase``, ``core.precomposeunicode``) of the repository: whether its
    file system takes names regardless of case, and whether git gives names in NFC (see
    ``gitmem.spelling``, imported only where the config names either)."""
    found = _SPELLING.get(common_dir)
    if found is None:
        text = config_text(common_dir) or ""
        lowered = text.lower()
        found = (False, False)
        if "ignorecase" in lowered or "precomposeunicode" in lowered:
            from gitmem import spelling

            found = spelling.flags(text)
        _SPELLING[common_dir] = found
    return found


def repository_of(path: str, stop: str | None = None) -> Location | None:
    """The repository whose work tree holds the absolute ``path`` (which need not exist:
    a file about to be written), found from the folder it is in, upwards; None if there
    is none, or none below the folder ``stop``. Nothing but ``stat`` calls, one or two per
    folder, and a read of a ``.git`` file (a submodule's, a linked worktree's)."""
    candidate = path
    while True:
        if candidate == stop:
            return None
        dotgit = os.path.join(candidate, ".git")
        if os.path.isdir(dotgit):
            return as_stored(Location(candidate, dotgit, _common_dir(dotgit)))
        if os.path.isfile(dotgit):
            linked = _read_gitfile(dotgit)
            if linked is not None and os.path.isdir(linked):
                return as_stored(Location(candidate, linked, _common_dir(linked)))
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return None
        candidate = parent


def other_repository(path: str, loc: Location | None, roots: list[str]) -> Location | None:
    """The repository besides ``loc`` whose work tree holds the absolute, normalised
    ``path`` and that keeps decisions (a ``.continuity`` folder): a submodule or nested
    clone inside one of ``roots`` (``loc``'s worktrees), or one outside them. None for a
    path of ``loc``'s own."""
    inside = next((r for r in roots if path == r or path.startswith(r + os.sep)), None)
    if path == inside:
        return None
    repo = repository_of(path, stop=inside)
    if repo is None or (loc is not None and same_dir(repo.common_dir, loc.common_dir)):
        return None  # the same repository, reached through a symbolic link or not
    return repo if os.path.isdir(os.path.join(repo.root, ".continuity")) else None


def other_repositories(
    raw: list[str], cwd: str, loc: Location | None, *, on_disk: bool, limit: int
) -> list[Location]:
    """``other_repository`` of each of ``raw`` (paths as a tool call or a prompt gives them,
    absolute or relative to ``cwd``), each repository once, at most ``limit``. ``on_disk``:
    only paths that exist count (a shell command's words, a prompt's)."""
    roots = worktree_roots(loc.root, loc.common_dir) if loc is not None else []
    found: dict[str, Location] = {}
    for item in raw:
        text = item.strip().strip('"').strip("'")
        if not text or "\\" in text or text[1:2] == ":":
            continue  # Windows paths reach only the session's own repository (relative)
        path = os.path.normpath(os.path.join(cwd, os.path.expanduser(text)))
        if on_disk and not os.path.exists(path):
            continue
        repo = other_repository(path, loc, roots)
        if repo is not None and repo.root not in found:
            found[repo.root] = repo
            if len(found) == limit:
                break
    return list(found.values())


def same_dir(a: str, b: str) -> bool:
    """Whether two folders are one: by name, or by the file they are (on a case-insensitive
    file system ``/x/Repo/.git`` and ``/x/repo/.git`` are one folder)."""
    if a == b or os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def tree_of(root: str) -> str | None:
    """The work tree at ``root`` as a folder (device and inode), wherever it is seen from:
    a bind mount (a dev container's view of the host's checkout) shows the host's folder
    at another path. None where it cannot be read."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return f"{st.st_dev}:{st.st_ino}"


def worktree_roots(root: str, common_dir: str) -> list[str]:
    """Work-tree roots of every worktree of the repository, this one first."""
    roots = [root]
    if os.path.basename(common_dir) == ".git":
        main_root = os.path.dirname(common_dir)
        if main_root != root:
            roots.append(main_root)
    wt_dir = os.path.join(common_dir, "worktrees")
    try:
        entries = sorted(os.listdir(wt_dir))
    except OSError:
        entries = []
    for entry in entries:
        try:
            with open(os.path.join(wt_dir, entry, "gitdir"), encoding="utf-8") as fh:
                dotgit = fh.read().strip()
        except OSError:
            continue
        wt_root = os.path.dirname(os.path.normpath(dotgit))
        if wt_root not in roots:
            roots.append(wt_root)
    return roots


def relative(
    raw: str,
    root: str,
    common_dir: str,
    cwd: str | None = None,
    roots: list[str] | None = None,
) -> str | None:
    """Return ``raw`` relative to the repository root, or None if it lies outside it.

    Handles absolute paths, paths relative to a cwd in a subdirectory, Windows separators
    and drive letters, symlinked temp dirs, and paths inside another linked worktree of
    the same repository. The result uses ``/`` separators, has no ``./`` or ``..`` parts
    and no trailing slash; the repository root itself is ``""``. ``roots``:
    ``worktree_roots(root, common_dir)``, for callers that resolve many paths (it lists
    the worktrees folder).
    """
    text = raw.strip().strip('"').strip("'")
    if not text:
        return None
    text = text.replace("\\", "/")
    base = os.path.abspath(cwd) if cwd is not None else os.getcwd()
    if roots is None:
        roots = worktree_roots(root, common_dir)
    if len(text) >= 3 and text[0] in _ASCII_LETTERS and text[1:3] == ":/":
        # A Windows absolute path on a POSIX machine: match it against the roots by suffix.
        lowered = text.lower()
        for r in roots:
            idx = lowered.find("/" + r.lower().rstrip("/").rsplit("/", 1)[-1] + "/")
            if idx >= 0:
                tail = text[idx + 1 :].split("/", 1)
                found = _clean(tail[1] if len(tail) > 1 else "")
                folds, precompose = spelling_of(common_dir)
                if folds:  # a Windows drive (WSL's /mnt/c): git finds it case-insensitive
                    from gitmem.spelling import spelled

                    found = spelled(r, found, precompose)
                return found
        return None
    joined = text if text.startswith("/") else base.rstrip("/") + "/" + text
    normal = os.path.normpath(joined).replace("\\", "/")
    # the deepest root first: a worktree inside another's work tree (Claude Code's
    # `--worktree` puts them in .claude/worktrees/) holds its own files; before session 41
    # they were read as the outer tree's `.claude/worktrees/NAME/...`, which no decision governs
    nested = sorted(roots, key=len, reverse=True)
    folds, precompose = spelling_of(common_dir)
    for candidate in _variants(normal):
        for r in nested:
            for root_variant in _variants(r):
                rel = _rel_under(candidate, root_variant)
                if rel is None and folds:
                    from gitmem.spelling import under

                    rel = under(candidate, root_variant)
                if rel is not None:
                    if folds:
                        from gitmem.spelling import spelled

                        rel = spelled(root_variant, _clean(rel), precompose)
                    return _clean(rel)
    return None


def link_target(real_root: str, rel: str) -> str | None:
    """Where ``rel`` leads in the repository when it, or a folder on its way, is a
    symbolic link to another place in it (``packages/app/shared -> ../../shared``): an
    edit there writes the target, so the target's decisions and rules apply too (before
    session 41 an edit through the link met none of them). None otherwise."""
    if not rel:
        return None
    real = os.path.realpath(os.path.join(real_root, rel))
    if real == os.path.join(real_root, rel):
        return None
    prefix = real_root.rstrip("/") + "/"
    return real[len(prefix) :] if real.startswith(prefix) else None


def folder_below(root: str, folder: object) -> str:
    """``folder`` (an agent's or a user's working folder) relative to the work tree
    ``root``, symbolic links resolved: "" for the root itself or a folder outside it. A
    monorepo's package, where a session started or a prompt was written (since session 67,
    gitmem.agent.startdir)."""
    if not isinstance(folder, str) or not folder:
        return ""
    rel = os.path.relpath(os.path.realpath(folder), os.path.realpath(root))
    return "" if rel == "." or rel.startswith("..") else rel.replace(os.sep, "/")


def _rel_under(path: str, root: str) -> str | None:
    if path == root:
        return ""
    prefix = root.rstrip("/") + "/"
    if path.startswith(prefix):
        return path[len(prefix) :]
    return None


def _variants(path: str) -> list[str]:
    """The path as given and with symlinks resolved (e.g. /tmp vs /private/tmp)."""
    out = [path]
    try:
        real = os.path.realpath(path)
    except OSError:
        return out
    if real != path:
        out.append(real)
    return out


def _clean(rel: str) -> str:
    rel = os.path.normpath(rel).replace("\\", "/") if rel else ""
    if rel == ".":
        return ""
    return rel.strip("/")


# ------------------------------------------------------------------------------ refs
# Read from files, without spawning git: the hooks use these on every session start and
# prompt. A ref that only a git process could resolve (an unusual refs backend) reads as
# missing, and callers fall back as they would for a missing ref.


def _read(*parts: str | os.PathLike[str]) -> str:
    with open(os.path.join(*parts), encoding="utf-8") as fh:
        return fh.read()


def resolve_ref(
    git_dir: str | os.PathLike[str], common_dir: str | os.PathLike[str], ref: str
) -> str | None:
    """The object id ``ref`` (``refs/...``) points at, loose or packed; None if missing."""
    for base in (git_dir, common_dir):
        try:
            text = _read(base, ref).strip()
        except OSError:
            continue
        if text.startswith("ref: "):
            return resolve_ref(git_dir, common_dir, text[5:])
        return text or None
    try:
        packed = _read(common_dir, "packed-refs")
    except OSError:
        return None
    for line in packed.splitlines():
        if line.endswith(" " + ref):
            return line.split(" ", 1)[0]
    return None


def head(
    git_dir: str | os.PathLike[str], common_dir: str | os.PathLike[str]
) -> tuple[str | None, str | None]:
    """(branch name or None when detached, commit id or None when unborn)."""
    try:
        text = _read(git_dir, "HEAD").strip()
    except OSError:
        return None, None
    if not text.startswith("ref: "):
        return None, text
    ref = text[5:]
    return ref.removeprefix("refs/heads/"), resolve_ref(git_dir, common_dir, ref)


def has_upstream(common_dir: str | os.PathLike[str], branch: str) -> bool:
    """Whether ``.git/config`` gives ``branch`` an upstream (a ``merge`` key in its
    ``[branch "..."]`` section)."""
    try:
        lines = _read(common_dir, "config").splitlines()
    except OSError:
        return False
    inside = False
    for line in lines:
        text = line.strip()
        if text.startswith("["):
            inside = text.replace(" ", "") == f'[branch"{branch}"]'.replace(" ", "")
        elif inside and text.replace(" ", "").startswith("merge="):
            return True
    return False
