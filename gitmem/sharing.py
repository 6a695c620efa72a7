"""A repository several accounts share: gitmem's files in its git directory get the
permissions git gives its own there.

``git init --shared=group`` (``core.sharedRepository``) makes git create every file and
folder of the git directory writable by the group, whatever each user's umask, so that the
accounts of a team server can work in one clone. gitmem's files there followed the umask
alone. With the usual 022, ``.git/gitmem/`` was its first user's alone, and every other
user's hooks could record nothing: their sessions were never captured, each decision was
shown again on every tool call, and the turn's rule check had nothing to read (seen with
two accounts; until session 59 the README said so, and gitmem left it so).

Now every gitmem process of such a repository widens its umask as git widens modes there
(git's ``calc_shared_perm``: ``group`` adds read and write for the group, ``all`` read
for others too; an octal mode such as ``0640`` is what files get, exactly, folders with
the read bits copied to the execute bits). That covers whatever gitmem, whoosh or sqlite
writes. New folders inherit the group from the git directory's set-group-ID folders, as
git's do. What the user wrote in the work tree (``gitmem new``'s record) is group-writable
too in such a clone; git keeps no such bits, and in a clone a group works in that is what
its users want.

Folders an earlier gitmem made the user's alone are mended by that user's next gitmem
process (one ``stat`` per state folder finds them); another user's cannot be.

Only the repository's own config file is read (not an ``[include]``d one, nor the user's
or the system's, where the key is hardly ever set): ``gitmem.location.locate`` reads it
once per process and imports this module only where the key appears in it.
"""

from __future__ import annotations

import os
import stat

# git's PERM_GROUP and PERM_EVERYBODY (what is added); an exact mode is kept negated
GROUP = 0o660
EVERYBODY = 0o664


def permission(value: str | None) -> int:
    """git's ``git_config_perm`` for a ``core.sharedRepository`` value: 0 (the umask
    alone), GROUP or EVERYBODY (bits added), or an exact mode, negated. ``None`` is the
    key with no ``=`` (true). A value git refuses (an exact mode without the owner's
    read and write) gets 0: git stops on it, and gitmem leaves the umask as it was."""
    if value is None:
        return GROUP
    if value == "umask":
        return 0
    if value == "group":
        return GROUP
    if value in ("all", "world", "everybody"):
        return EVERYBODY
    try:
        number = int(value, 8) if value.strip() else 0
    except ValueError:
        truth = value.strip().lower()
        if truth in ("true", "yes", "on"):
            return GROUP
        try:
            return GROUP if int(truth, 0) else 0
        except ValueError:
            return 0
    if number in (0, 1, 2):  # git's old values: the umask, group, everybody
        return (0, GROUP, EVERYBODY)[number]
    if number & 0o600 != 0o600:
        return 0
    return -(number & 0o666)


def configured(text: str) -> tuple[bool, str | None]:
    """Whether a git config file's ``text`` sets ``core.sharedRepository``, and its last
    value there (None for the bare key, which is true)."""
    from gitmem.gitconfig import core

    found = core(text, (KEY,))
    return (KEY in found, found.get(KEY))


KEY = "sharedrepository"


def widened(umask: int, perm: int) -> int:
    """The umask under which files made with 0666 and folders with 0777 get the modes git
    would give them in a repository shared with ``perm``."""
    tweak = -perm if perm < 0 else perm
    needed = tweak | (tweak & 0o444) >> 2  # a folder's read bits copied to its execute bits
    if perm < 0:
        return 0o777 & ~needed
    return umask & ~needed


def shared_mode(mode: int, perm: int) -> int:
    """git's ``calc_shared_perm`` (and the set-group-ID bit it gives a folder)."""
    tweak = -perm if perm < 0 else perm
    if not mode & stat.S_IWUSR:
        tweak &= ~0o222
    if mode & stat.S_IXUSR:
        tweak |= (tweak & 0o444) >> 2
    mode = (mode & ~0o777) | tweak if perm < 0 else mode | tweak
    if stat.S_ISDIR(mode):
        mode |= stat.S_ISGID
    return mode


def of(config_text: str) -> int:
    """The sharing a git config file's text gives (``permission``), 0 for none."""
    present, value = configured(config_text)
    return permission(value) if present else 0


def adopt(config_text: str, state_dirs: tuple[str, ...] = ()) -> int:
    """Widen this process's umask as the repository whose config file holds
    ``config_text`` shares its files (see the module's text), and mend the user's own
    ``state_dirs`` (gitmem's folders in its git directory) that an earlier gitmem made
    theirs alone. Returns the sharing (``permission``), 0 for none."""
    perm = of(config_text)
    if perm:
        current = os.umask(0o077)  # (read by setting it: for that moment, the narrowest)
        os.umask(widened(current, perm))
        for folder in dict.fromkeys(state_dirs):  # (one folder, in the main work tree)
            mend(folder, perm)
    return perm


def mend(folder: str, perm: int) -> None:
    """Give what this user owns under ``folder`` the mode git would have given it in a
    repository shared with ``perm``, if ``folder`` itself lacks it (one ``stat`` where it
    does not). Errors are passed over."""
    try:
        top = os.stat(folder)
    except OSError:
        return
    # the permission bits alone: a set-group-ID bit the system would not set (the user
    # outside the folder's group) must not send every process through the whole tree
    wanted = shared_mode(top.st_mode, perm)
    if top.st_uid != os.geteuid() or wanted & 0o777 == top.st_mode & 0o777:
        return
    try:  # the folder first: a file system that keeps no modes (an SMB share) keeps
        os.chmod(folder, stat.S_IMODE(wanted))  # none, and is not walked by every process
        if os.stat(folder).st_mode & 0o777 != wanted & 0o777:
            return
    except OSError:
        return
    for path in _tree(folder)[1:]:
        try:
            st = os.lstat(path)
            own = st.st_uid == os.geteuid()
            if not own or not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                continue
            mode = shared_mode(st.st_mode, perm)
            if mode != st.st_mode:
                os.chmod(path, stat.S_IMODE(mode))
        except OSError:
            continue


def _tree(folder: str) -> list[str]:
    paths = [folder]
    for dirpath, dirnames, filenames in os.walk(folder):
        paths.extend(os.path.join(dirpath, name) for name in dirnames + filenames)
    return paths


def holdouts(config_text: str, folders: tuple[str, ...]) -> tuple[int, dict[int, int]]:
    """For `gitmem doctor`: the sharing the config gives (``permission``; 0: none), and,
    for each owner, how many files and folders under ``folders`` lack the bits git would
    have given them there (where the others of the group cannot write)."""
    perm = of(config_text)
    owners: dict[int, int] = {}
    if not perm:
        return 0, owners
    for folder in dict.fromkeys(folders):
        if not os.path.isdir(folder):
            continue
        for path in _tree(folder):
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                continue
            if shared_mode(st.st_mode, perm) & ~st.st_mode & 0o777:
                owners[st.st_uid] = owners.get(st.st_uid, 0) + 1
    return perm, owners
