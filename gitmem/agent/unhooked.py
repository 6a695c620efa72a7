"""The before-tool check of a commit that runs without the repository's commit hooks
(``shellcommits``: a `git commit --no-verify`, a `git am --no-verify`, a jj command that
ends the working copy's change): what it would commit is read as the commit-time check
reads it, and a change that breaks a critical rule is denied before it runs. Imported by
``tooluse`` only for a shell command that may make such a commit
(``toolpaths.may_commit``).
"""

from __future__ import annotations

import os

from gitmem.agent import shellcommits, toolpaths
from gitmem.location import Location, jj_colocated, relative, repository_of, worktree_roots

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# A jj command that ends a change reads at most this many new files (a generated tree, a
# vendored package not yet ignored): the rest go as they would
MAX_NEW_FILES = 2000


def deny(loc: Location, command: str, cwd: str) -> dict[str, Any] | None:
    """A deny for a `git commit` in this repository that skips its commit hooks
    (shellcommits.unhooked_commits: `--no-verify`, `HUSKY=0`, ...) when what it would commit
    breaks a critical rule, read as the commit-time check reads it: the lines the staged
    changes add (with `-a` or pathspecs, those of the work tree against HEAD). An agent
    whose commit a hook refused retries it so, and before session 43 that commit went in
    unchecked. A commit that breaks no critical rule goes through: gitmem checks its own
    decisions, not the other hooks. `GITMEM_OVERRIDE` (in the command or the agent's
    environment) passes its decision over, as the commit-time check does. Likewise a
    `git am` past its hooks (the lines its patch files add: ``_patched``) and a jj
    command that ends the working copy's change (the work tree against HEAD, or the
    files its filesets name: ``_jj_files``)."""
    commits = shellcommits.unhooked_commits(command)
    patches = shellcommits.unhooked_patches(command)
    jj = shellcommits.jj_commits(command)
    if not commits and not patches and not jj:
        return None
    from gitmem import git
    from gitmem.check import added_lines, merging, new_to_every_parent, whole_files
    from gitmem.errors import GitmemError

    roots = worktree_roots(loc.root, loc.common_dir)
    changes: dict[str, list[tuple[int, str]]] = _patched(loc, cwd, patches)
    # (folder, -a, --include, pathspecs, the folder they are relative to, by jj): a `jj
    # commit` (`new`, `squash`, `split`) in a colocated jj repository commits the work
    # tree's change (git's HEAD is the working copy's parent there), as `git commit -a`
    # does, or given paths `git commit -- PATHS`, and the new files jj tracks
    runs = [(folder, every, include, paths, folder, False)
            for folder, every, include, paths in commits]  # fmt: skip
    if jj and jj_colocated(loc.root):
        runs += [(folder, not named, False, named, here, True) for folder, named, _, here in jj]
    try:
        for folder, every, include, pathspecs, base, by_jj in runs:
            where = os.path.normpath(os.path.join(cwd, folder))
            found = repository_of(where)
            if found is None or found.root != loc.root:
                continue  # another repository's commit: its own hooks see to it
            base = os.path.normpath(os.path.join(cwd, base))
            files = _jj_files(loc, base, pathspecs) if by_jj else None
            rels = [relative(os.path.join(base, p), loc.root, loc.common_dir, cwd, roots)
                    for p in (pathspecs if files is None else files)]  # fmt: skip
            spec = [r for r in rels if r is not None]
            if files is not None:  # jj's own answer: these files, by name
                spec = [":(literal)" + r for r in spec]
            if by_jj and pathspecs and not spec:
                continue  # no file of this repository's change
            repo = loc.repo()
            others = merging(repo)  # a merge in progress: what it adds to every side
            if every or spec:
                specs = [] if every else spec
                tree = added_lines(repo, ["HEAD", "--", *specs])
                new_to_every_parent(repo, tree, others, specs, cached=False)
                changes.update(tree)
            if by_jj:
                # new files git does not know yet: committed whole, unless git's ignore
                # rules leave them out, as they do jj's snapshot
                _, listed, _ = git.run(
                    ["ls-files", "-z", "--others", "--exclude-standard", "--", *spec],
                    cwd=repo.root,
                )
                new = [n for n in listed.split("\0") if n][:MAX_NEW_FILES]
                changes.update(whole_files(repo, new, cwd=str(repo.root)))
            elif include or not (every or spec):
                staged = added_lines(repo, ["--cached"])
                new_to_every_parent(repo, staged, others, [])
                changes.update(staged)
    except GitmemError:
        return None  # no commit yet, or git failed: the commit goes as it would
    given = [w[16:] for w in toolpaths.shell_words(command) if w.startswith("GITMEM_OVERRIDE=")]
    given.append(os.environ.get("GITMEM_OVERRIDE", ""))
    overridden = frozenset(value.split()[0] for value in given if value.strip())
    from gitmem.agent import claude
    from gitmem.agent.prompt import open_table

    table = open_table(loc)
    if table is None:
        return None
    try:
        pairs = [(p, "\n".join(text for _, text in lines)) for p, lines in changes.items()]
        denied, _ = claude.check_rules(pairs, table, loc.root, overridden)
    finally:
        table.close()
    if denied is None:
        return None
    specific = denied["hookSpecificOutput"]
    if commits or patches:
        what = f"{'commit' if commits else '`git am`'} skips the repository's hooks"
    else:
        what = f"`jj {jj[0][2]}` runs no git hooks (jj runs none)"
    specific["permissionDecisionReason"] = (
        f"This {what}, and with them gitmem's commit-time check, which it would not pass. "
        f"{specific['permissionDecisionReason']} Change the code to follow the decision (or, "
        "if the decision is wrong, tell the user) rather than skipping the check."
    )
    return denied


# A patch file larger than this is not read before its `git am` (a mailbox of a whole
# series): the commit goes as it would
MAX_PATCH_BYTES = 8 << 20


def _jj_files(loc: Location, base: str, filesets: list[str]) -> list[str] | None:
    """The files of the working copy's change that jj's ``filesets`` name, as paths
    relative to ``base`` (the folder the jj command runs in), when one of them is more
    than a plain path (`glob:src/*.py`, `'~Cargo.lock'`, `root:...`) or names nothing on
    disk (an alias of the user's jj settings, or a deleted file): jj's fileset language is
    jj's to read, so jj is asked (`jj diff --name-only`, which first snapshots the work
    tree as the command itself is about to). Before session 73 they were read as git
    pathspecs, which matched nothing, and such a command went in unchecked. None for paths
    that exist (git reads those as jj does) and when jj cannot answer (not on the hook's
    PATH, an error, 5 s passed): the paths are then read as written."""
    if not any(
        shellcommits.jj_expression(f) or not os.path.lexists(os.path.join(base, f))
        for f in filesets
    ):
        return None
    import shutil
    import subprocess

    jj = shutil.which("jj")
    if jj is None:
        return None
    try:
        done = subprocess.run(
            [jj, "--no-pager", "--color=never", "-R", loc.root, "diff", "--name-only",
             "--", *filesets],
            cwd=base, stdin=subprocess.DEVNULL, capture_output=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [line for line in os.fsdecode(done.stdout).splitlines() if line]


def _patched(
    loc: Location, cwd: str, patches: list[tuple[str, str, list[str]]]
) -> dict[str, list[tuple[int, str]]]:
    """{repository path: [(line, text)]} for the lines the patch files of each `git am`
    in ``patches`` (shellcommits.unhooked_patches) add in this repository, as its
    pre-applypatch check would read them once applied."""
    from gitmem.check import added_in

    out: dict[str, list[tuple[int, str]]] = {}
    for folder, under, files in patches:
        where = os.path.normpath(os.path.join(cwd, folder))
        found = repository_of(where)
        if found is None or found.root != loc.root:
            continue  # another repository's: its own hooks see to it
        for name in files:
            path = os.path.join(where, os.path.expanduser(name))
            try:
                if os.path.getsize(path) > MAX_PATCH_BYTES:
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue  # git says what is wrong with it
            for rel, lines in added_in(text).items():
                out.setdefault(f"{under}/{rel}" if under else rel, []).extend(lines)
    return out
