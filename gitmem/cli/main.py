"""``gitmem``: parse and dispatch. Each command lives in its own module."""

from __future__ import annotations

import click

from gitmem import __version__
from gitmem.agent.runner import AGENTS as HOOK_AGENTS
from gitmem.agent.runner import EVENTS as HOOK_EVENTS
from gitmem.cli import (
    agent_cmd,
    check_cmd,
    demo_cmd,
    export_cmd,
    index_cmd,
    init_cmd,
    lint_cmd,
    records_cmd,
    search_cmd,
    sessions_cmd,
    stale_cmd,
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
cli.add_command(records_cmd.renumber)
cli.add_command(lint_cmd.lint)
cli.add_command(why_cmd.why)
cli.add_command(stale_cmd.stale)
cli.add_command(export_cmd.export)
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


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("agent", type=click.Choice(HOOK_AGENTS))
@click.argument("event", type=click.Choice(sorted(HOOK_EVENTS)))
def hook(agent: str, event: str) -> None:
    """The agent hook entry point: AGENT (claude, codex, gemini, cursor, copilot, qwen,
    opencode, cline) EVENT
    reads the hook JSON on stdin and prints JSON on stdout.

    `gitmem hook AGENT EVENT` is dispatched before click loads (see gitmem.entry), so this
    command only documents it.
    """
    from gitmem.agent.runner import run

    raise SystemExit(run(agent, event))


def run(args: list[str]) -> int:
    try:
        cli.main(args=args, prog_name="gitmem", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
