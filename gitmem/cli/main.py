"""``gitmem``: parse and dispatch. Each command lives in its own module."""

from __future__ import annotations

import click

from gitmem import __version__
from gitmem.agent.runner import EVENTS as HOOK_EVENTS
from gitmem.cli import (
    agent_cmd,
    check_cmd,
    demo_cmd,
    index_cmd,
    init_cmd,
    lint_cmd,
    records_cmd,
    search_cmd,
    sessions_cmd,
    watch_cmd,
    why_cmd,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gitmem")
def cli() -> None:
    """Git-native project memory for AI coding agents.

    Decisions live in .continuity/decisions/ as Markdown records with YAML front matter;
    gitmem matches them to the paths they govern and brings them to the agent.
    """


cli.add_command(init_cmd.init)
cli.add_command(records_cmd.new)
cli.add_command(records_cmd.list_)
cli.add_command(records_cmd.show)
cli.add_command(lint_cmd.lint)
cli.add_command(why_cmd.why)
cli.add_command(demo_cmd.demo)
cli.add_command(index_cmd.index)
cli.add_command(index_cmd.model)
cli.add_command(search_cmd.search)
cli.add_command(watch_cmd.watch)
cli.add_command(agent_cmd.install)
cli.add_command(agent_cmd.uninstall)
cli.add_command(agent_cmd.doctor)
cli.add_command(agent_cmd.mcp)
cli.add_command(sessions_cmd.sessions)
cli.add_command(sessions_cmd.sync)
cli.add_command(check_cmd.check)
cli.add_command(check_cmd.trailers)
cli.add_command(sessions_cmd.capture)


@cli.group()
def hook() -> None:
    """Agent hook entry points (read the hook JSON on stdin, print JSON on stdout).

    `gitmem hook claude|codex EVENT` is dispatched before click loads (see gitmem.entry), so this
    group only documents it.
    """


EVENT = click.argument("event", type=click.Choice(sorted(HOOK_EVENTS)))


@hook.command(name="claude", context_settings={"ignore_unknown_options": True})
@EVENT
def hook_claude(event: str) -> None:
    """Claude Code hook EVENT: session-start, prompt, pre-tool, post-tool, stop, session-end."""
    from gitmem.agent.runner import run

    raise SystemExit(run("claude", event))


@hook.command(name="codex", context_settings={"ignore_unknown_options": True})
@EVENT
def hook_codex(event: str) -> None:
    """Codex hook EVENT: session-start, prompt, pre-tool, post-tool, stop, post-compact."""
    from gitmem.agent.runner import run

    raise SystemExit(run("codex", event))


def run(args: list[str]) -> int:
    try:
        cli.main(args=args, prog_name="gitmem", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
