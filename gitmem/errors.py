"""Exception types. One class per expected failure; the CLI turns them into exit code 1."""

from __future__ import annotations


class GitmemError(Exception):
    """An expected failure with a message that tells the user how to fix it."""


class NotARepositoryError(GitmemError):
    def __init__(self, where: str, jj_root: str | None = None) -> None:
        if jj_root is not None:
            # jj keeps a repository's git store inside .jj unless it is colocated (jj's
            # default for new repositories since 0.3x): gitmem reads git's, in the work tree
            super().__init__(
                f"not inside a git repository: {where}\n"
                f"{jj_root} is a Jujutsu (jj) repository whose git repository is inside .jj: "
                "gitmem works in a colocated one, with .git in the work tree. "
                "`jj git colocation enable` makes it so (README: Jujutsu)."
            )
            return
        super().__init__(
            f"not inside a git repository: {where}\n"
            "Run gitmem from a git work tree (or `git init` first)."
        )


class GitCommandError(GitmemError):
    def __init__(self, args: list[str], returncode: int, stdout: str, stderr: str) -> None:
        self.args_ = args
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        super().__init__(f"command failed (exit {returncode}): {' '.join(args)}\n{stderr.strip()}")


class UnsafeRepositoryError(GitmemError):
    """git refuses the repository: it belongs to another user (git's ``safe.directory``
    check, since git 2.35.2). Common in dev containers, WSL's ``/mnt/c`` and CI jobs that
    run in a container as another user than the checkout's. No git command works there, so
    what a caller would make of a failed one ("not committed yet", "no sessions") is wrong;
    this says what is wrong instead."""

    def __init__(self, where: str, git_said: str) -> None:
        self.where = where
        said = [line.strip() for line in git_said.splitlines() if line.strip()]
        fix = next(
            (line for line in said if "safe.directory" in line and "config" in line),
            f"git config --global --add safe.directory {where}",
        )
        self.fix = fix
        super().__init__(
            f"git refuses to work in {where}: the repository belongs to another user than "
            "the one running gitmem (git's safe.directory check), so gitmem cannot read its "
            "files or history, check commits or capture sessions there.\n"
            f"If you trust this repository: {fix}"
        )


class DecisionNotFoundError(GitmemError):
    pass
