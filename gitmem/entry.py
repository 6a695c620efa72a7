"""The ``gitmem`` console script.

Kept tiny on purpose: agent hooks (a later issue) dispatch from here without importing
click or rich; every other command loads the click application.
"""

from __future__ import annotations

import sys

# Where PYTHONDONTWRITEBYTECODE is set (dev containers and Docker images often set it) and
# gitmem was installed without bytecode (uv's default; pip compiles at install), Python
# compiled every module gitmem imports on every run and kept none: an agent hook took
# ~110-140 ms instead of ~30, `gitmem why` ~0.6 s instead of ~0.25 (session 48, measured).
# The variable is there to keep `__pycache__` out of source trees; gitmem's own modules and
# its dependencies' live in the environment it was installed in, where pip writes bytecode
# anyway. So gitmem's entry points (this one, and the `gitmem-hook` script) write it. Where
# that folder cannot be written, `gitmem doctor` says so (gitmem.doctor._bytecode_check).


def main(argv: list[str] | None = None) -> int:
    sys.dont_write_bytecode = False  # see above
    if argv is None:
        from gitmem import utf8mode

        utf8mode.ensure()  # file names as git and the agents give them (see gitmem.utf8mode)
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) >= 2 and args[0] == "hook":
        # The agent-hook hot path: no click, no rich, fail-open (see gitmem.agent.runner).
        from gitmem.agent import runner

        if args[1] in runner.AGENTS:
            runner.exit_now(runner.run(args[1], args[2] if len(args) > 2 else ""))
    if len(args) == 3 and args[0] == "_turn-start":  # gitmem.agent.prompt.TURN_JOB
        # The prompt hook's background job (gitmem.agent.claude.turn_start_job): it races
        # the agent's first command, so it loads neither click nor rich (~110 -> ~40 ms).
        from gitmem.agent.claude import turn_start_job

        return turn_start_job(args[1], args[2])
    from gitmem.cli.main import run

    return run(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
