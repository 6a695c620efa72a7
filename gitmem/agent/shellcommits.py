"""Which commits a shell command makes without the repository's commit hooks, and so
without gitmem's commit-time check: a `git commit` that skips them (`--no-verify`,
`HUSKY=0`, ...), a `git am` that does, and the jj commands that end the working copy's
change (jj runs no git hook). The before-tool hook reads what each would commit
(``gitmem.agent.unhooked``). Imported only for a shell command that may make one
(``toolpaths.may_commit``); built-in modules only, as ``toolpaths``.
"""

from __future__ import annotations

from gitmem.agent.toolpaths import join, shell_words, walk

# git's own options that take a value (before its subcommand), and `git commit`'s
_GIT_VALUES = frozenset(("-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"))
_COMMIT_VALUES = frozenset(("--message", "--file", "--author", "--date", "--template",
                            "--reuse-message", "--reedit-message", "--fixup", "--squash",
                            "--cleanup", "--trailer", "--pathspec-from-file"))  # fmt: skip
# what turns the hook managers' hooks off for a command (husky, lefthook)
_HOOKS_OFF = ("HUSKY=0", "HUSKY_SKIP_HOOKS=1", "LEFTHOOK=0")


def _no_verify(option: str) -> bool:
    """Whether a long option of `git commit` or `git am` is `--no-verify`, or an
    abbreviation git takes for it (`--no-v` on: `--no-` alone is ambiguous)."""
    return len(option) >= 6 and "--no-verify".startswith(option)


def unhooked_commits(command: str) -> list[tuple[str, bool, bool, list[str]]]:
    """Each `git commit` of ``command`` that runs without the repository's commit hooks,
    so without gitmem's commit-time check: `--no-verify` (`-n`, an abbreviation),
    `git -c core.hooksPath=...`, or a hook manager turned off (`HUSKY=0`, pre-commit's
    `SKIP=gitmem-check`). Agents retry a commit so when a hook refuses it. As (the folder
    it runs in, `-a`, `--include`, its pathspecs). Since session 43: the before-tool
    check reads what it would commit."""
    if "commit" not in command:
        return []
    off = any(key in command for key in ("HUSKY", "LEFTHOOK", "SKIP=")) and any(
        word in _HOOKS_OFF or (word[:5] == "SKIP=" and "gitmem-check" in word[5:].split(","))
        for word in shell_words(command)  # the words a plain commit is not split into again
    )
    out: list[tuple[str, bool, bool, list[str]]] = []
    for folder, name, words, _, _ in walk(command)[2]:
        folder, skip, i = _git_options(folder, name, words)
        skip = skip or off
        if name != "git" or words[i : i + 1] != ["commit"]:
            continue
        every = include = False
        paths: list[str] = []
        args = words[i + 1 :]
        j = 0
        while j < len(args):
            arg, j = args[j], j + 1
            if arg == "--":
                paths += args[j:]
                break
            elif arg.startswith("--"):
                key = arg.split("=", 1)[0]
                skip = skip or _no_verify(key)
                every = every or key == "--all"
                include = include or key == "--include"
                j += key in _COMMIT_VALUES and "=" not in arg
            elif arg.startswith("-") and arg != "-":
                for at, c in enumerate(arg[1:], 1):
                    skip = skip or c == "n"
                    every = every or c == "a"
                    include = include or c == "i"
                    if c in "mFcCt":  # their value: the rest of the word, or the next
                        j += at == len(arg) - 1
                        break
                    if c in "uS":  # an optional value, in the same word
                        break
            else:
                paths.append(arg)
        if skip:
            out.append((folder, every, include, paths))
    return out


def _git_options(folder: str, name: str, words: list[str]) -> tuple[str, bool, int]:
    """For a `git` command's ``words``: the folder it runs in (``-C``), whether `-c
    core.hooksPath=...` turns its hooks off, and where its subcommand is."""
    skip = False
    i = 0
    while name == "git" and i < len(words) and words[i].startswith("-"):
        option, i = words[i], i + 1
        if option in _GIT_VALUES and i < len(words):
            value, i = words[i], i + 1
            if option == "-c" and value.lower().startswith("core.hookspath="):
                skip = True
            elif option == "-C":
                folder = value if value.startswith("/") else join(folder, value)
    return folder, skip, i


# `git am`'s options that take a value in the next word
_AM_VALUES = frozenset(("--directory", "--exclude", "--include", "--patch-format", "--resolvemsg",
                        "--whitespace", "--quoted-cr", "--empty", "-C", "-p"))  # fmt: skip


def unhooked_patches(command: str) -> list[tuple[str, str, list[str]]]:
    """Each `git am` of ``command`` that commits patches without the repository's hooks,
    so without gitmem's check of each patch (its pre-applypatch hook): `--no-verify`
    (`-n`) or `git -c core.hooksPath=...`. As (the folder it runs in, the folder
    `--directory` puts the patches' paths in, the patch files named). One that reads its
    patches from its input names none. Since session 59, when gitmem began to check what
    `git am` commits: an agent whose patch that check refused retries it so."""
    if "am" not in command.split():
        return []
    out: list[tuple[str, str, list[str]]] = []
    for folder, name, words, _, _ in walk(command)[2]:
        folder, skip, i = _git_options(folder, name, words)
        if name != "git" or words[i : i + 1] != ["am"]:
            continue
        under = ""
        files: list[str] = []
        args = words[i + 1 :]
        j = 0
        while j < len(args):
            arg, j = args[j], j + 1
            if arg == "--":
                files += args[j:]
                break
            if arg.startswith("--"):
                key, eq, value = arg.partition("=")
                skip = skip or _no_verify(key)
                if key in _AM_VALUES and not eq and j < len(args):
                    value, j = args[j], j + 1
                if key == "--directory":
                    under = value.strip("/")
            elif arg.startswith("-") and arg != "-":
                for c in arg[1:]:
                    if c in "CpS":  # their value: the rest of the word (-C, -p: or the next)
                        break
                    skip = skip or c == "n"
                j += arg in _AM_VALUES
            else:
                files.append(arg)
        if skip:
            out.append((folder, under, files))
    return out


# jj's options that take a value in the next word: its own (before the subcommand) and
# those of `jj commit`, `new`, `squash` and `split` (jj 0.46)
_JJ_VALUES = frozenset(("-R", "--repository", "--at-operation", "--at-op", "--color", "--config",
                        "--config-file", "-m", "--message", "--tool", "--author", "-r",
                        "--revision", "-f", "--from", "-t", "--into", "--to", "-o", "--onto",
                        "-d", "--destination", "-A", "--insert-after", "--after", "-B",
                        "--insert-before", "--before"))  # fmt: skip
# The jj commands that end the working copy's change, making it a commit of its own or
# part of its parent's (jj 0.46, tried in session 72: git's HEAD then holds it):
# `commit` (`ci`) and `split` the files named (none: all of it), `squash` those into the
# parent, and `new` all of it, whatever it names (revisions, not files)
JJ_ENDS_CHANGE = frozenset(("commit", "ci", "new", "split", "squash"))
# their options whose value names the change they work on: another one than the working
# copy's (`jj squash -r X`, `jj split -r X`, `jj squash --from X`) is already a commit
_JJ_SOURCE = frozenset(("-r", "--revision", "-f", "--from"))


def jj_commits(command: str) -> list[tuple[str, list[str], str, str]]:
    """Each jj command of ``command`` that ends the working copy's change
    (``JJ_ENDS_CHANGE``): jj writes its commits itself and runs no git hook, so none of
    them meets gitmem's commit-time check (README: Jujutsu). As (the repository's folder,
    `-R`'s or the one it runs in; the filesets named, which limit it to those files, none:
    the whole working copy; the subcommand; the folder it runs in, which the filesets'
    paths are relative to, `-R` or not: tried with jj 0.46). Since session 71 (`jj
    commit`), session 72 (`new`, `squash`, `split`: a `jj describe` then `jj new` is the
    other way jj's users commit)."""
    if "jj" not in command:
        return []
    out: list[tuple[str, list[str], str, str]] = []
    for here, name, words, _, _ in walk(command)[2]:
        if name != "jj":
            continue
        folder = here
        sub: str | None = None
        paths: list[str] = []
        other = False  # a change other than the working copy's
        j = 0
        while j < len(words):
            arg, j = words[j], j + 1
            if sub is None and arg in ("--", "help"):
                break
            if arg == "--":
                paths += words[j:]
                break
            if arg.startswith("-") and arg != "-":
                key, eq, value = arg.partition("=")
                if key[1] != "-" and len(key) > 2 and key[:2] in _JJ_VALUES:
                    key, value = key[:2], arg[2:]  # -Rpath, -mmessage
                elif key in _JJ_VALUES and not eq and j < len(words):  # -R path, --message x
                    value, j = words[j], j + 1
                if key in ("-R", "--repository") and value:
                    folder = value if value.startswith("/") else join(folder, value)
                elif key in _JJ_SOURCE and sub is not None and value.strip() != "@":
                    other = True
            elif sub is None:
                sub = arg
                if sub not in JJ_ENDS_CHANGE:
                    break
            else:
                paths.append(arg)
        if sub in JJ_ENDS_CHANGE and not other:
            named = [] if sub == "new" else paths
            out.append((folder, named, "commit" if sub == "ci" else sub, here))
    return out


# What makes a jj fileset more than a path (jj 0.46, `jj help -k filesets`): a pattern's
# kind (`glob:`, `root:`, `file:`, ...), an operator (`~`, `&`, `|`), a function or
# parentheses, quotes; and glob characters, since a bare path is a `prefix-glob:` there
# (`src/*.py` is not `src/sub/x.py`, which git's pathspec `*` would take)
_JJ_EXPRESSION = frozenset(":~&|()\"'*?[]{}\\")


def jj_expression(fileset: str) -> bool:
    """Whether a fileset a jj command names is more than a plain path (``_JJ_EXPRESSION``):
    only jj can say which files it means."""
    return any(c in _JJ_EXPRESSION for c in fileset)
