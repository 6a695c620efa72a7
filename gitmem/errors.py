"""Exception types. One class per expected failure; the CLI turns them into exit code 1."""

from __future__ import annotations


class GitmemError(Exception):
    """An expected failure with a message that tells the user how to fix it."""


class NotARepositoryError(GitmemError):
    def __init__(self, where: str) -> None:
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


class DecisionNotFoundError(GitmemError):
    pass
