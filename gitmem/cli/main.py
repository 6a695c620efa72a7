"""``gitmem``: parse and dispatch. Each command lives in its own module."""

from __future__ import annotations

import importlib

import click

from gitmem import __version__
from gitmem.agent.runner import AGENTS as HOOK_AGENTS
from gitmem.agent.runner import EVENTS as HOOK_EVENTS

# Each command's module is imported when that command runs, not at start-up: every git
# commit runs `gitmem check --staged` and `gitmem trailers` as fresh processes, and the
# modules behind doctor, index and search (numpy, the retriever, the daemon client) cost
# ~145 ms of imports that those commands never use (session 33: `import gitmem.cli.main`
# 241 ms with every command, `gitmem.cli.check_cmd` alone 97 ms).
COMMANDS = {
    "init": "init_cmd:init",
    "new": "records_cmd:new",
    "list": "records_cmd:list_",
    "show": "records_cmd:show",
    "renumber": "records_cmd:renumber",
    "lint": "lint_cmd:lint",
    "why": "why_cmd:why",
    "stale": "stale_cmd:stale",
    "export": "export_cmd:export",
    "demo": "demo_cmd:demo",
    "index": "index_cmd:index",
    "model": "index_cmd:model",
    "search": "search_cmd:search",
    "watch": "watch_cmd:watch",
    "install": "agent_cmd:install",
    "uninstall": "agent_cmd:uninstall",
    "doctor": "agent_cmd:doctor",
    "mcp": "agent_cmd:mcp",
    "sessions": "sessions_cmd:sessions",
    "sync": "sessions_cmd:sync",
    "check": "check_cmd:check",
    "trailers": "check_cmd:trailers",
    "capture": "sessions_cmd:capture",
}


class LazyGroup(click.Group):
    """A group whose commands in ``COMMANDS`` load on first use (click's documented
    pattern for lazily loaded subcommands)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, _, attr = COMMANDS[cmd_name].partition(":")
        command = getattr(importlib.import_module(f"gitmem.cli.{module}"), attr)
        if not isinstance(command, click.Command) or command.name != cmd_name:
            raise RuntimeError(f"gitmem.cli.{module}:{attr} is not the {cmd_name!r} command")
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gitmem")
def cli() -> None:
    """Git-native project memory for AI coding agents.

    Decisions live in .continuity/decisions/ as Markdown records with YAML front matter;
    gitmem matches them to the paths they govern and brings them to the agent.
    """


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("agent", type=click.Choice(HOOK_AGENTS))
@click.argument("event", type=click.Choice(sorted(HOOK_EVENTS)))
def hook(agent: str, event: str) -> None:
    """The agent hook entry point: AGENT (claude, codex, gemini, cursor, copilot, qwen,
    droid, opencode, pi, cline) EVENT
    reads the hook JSON on stdin and prints JSON on stdout.

    `gitmem hook AGENT EVENT` is dispatched before click loads (see gitmem.entry), so this
    command only documents it.
    """
    from gitmem.agent.runner import run

    raise SystemExit(run(agent, event))


def run(args: list[str]) -> int:
    from gitmem.cli.output import fit_streams

    fit_streams()
    try:
        cli.main(args=args, prog_name="gitmem", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
