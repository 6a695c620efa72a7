from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.markup import escape

from gitmem import doctor as doctor_core
from gitmem.agent import install as core
from gitmem.cli.output import current_repo, emit_json, expected_errors, json_option, stdout

if TYPE_CHECKING:
    from gitmem.githooks import Installed
    from gitmem.repo import Repo

SCOPES = click.Choice(["project", "local", "user"])


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def _owned_scope(scope: str) -> str:
    """The scope of an agent whose files gitmem owns outright (OpenCode's plugin, Cline's
    hook scripts): no local settings file there, so `local` is the project's."""
    return "user" if scope == "user" else "project"


AGENT = click.argument(
    "agent",
    type=click.Choice(
        [
            "claude",
            "codex",
            "gemini",
            "cursor",
            "copilot",
            "qwen",
            "droid",
            "opencode",
            "kilo",
            "pi",
            "cline",
            "git",
        ]
    ),
)
# Codex runs a project's hooks only once the project and each hook are trusted, and skips
# the others without a word; gitmem asks Codex about that trust (gitmem.agent.codextrust).
CODEX_TRUST = (
    "Codex runs these hooks once you trust them: `gitmem install codex --trust`, or start "
    "`codex` here and review them with `/hooks` (`gitmem doctor` asks Codex). File edits "
    "(apply_patch) reach hooks since Codex 0.123; releases before hooks were on by default "
    "also need `[features] codex_hooks = true` in config.toml."
)

# Gemini CLI reads a project's settings only in a folder the user trusts, and its hooks
# were experimental (off unless enabled) before they became a standard feature.
GEMINI_NOTE = (
    "Gemini CLI reads project settings only in a trusted folder; `/hooks` lists the hooks "
    "it loaded. Releases where hooks were experimental also need "
    '`"tools": {"enableHooks": true}` in settings.json.'
)

# Cursor loads hooks.json when it starts, and shows what ran in its Hooks settings tab
# and output channel. Its beforeSubmitPrompt cannot add context (see gitmem.agent.cursor).
CURSOR_NOTE = (
    "Restart Cursor to load them; Settings > Hooks lists them and what they returned. "
    "A prompt's decisions reach the agent with its first tool result of the turn (Cursor's "
    "prompt hook cannot add context). If Cursor also loads Claude Code's hooks "
    "(third-party hooks), install gitmem for one of the two."
)


# Copilot CLI's cloud agent runs a repository's hooks in its own environment, where gitmem
# must be installed by the setup steps; releases before 1.0.x read only a deny.
COPILOT_NOTE = (
    "Copilot CLI loads .github/hooks/*.json from the folder it runs in. The cloud agent runs "
    "these hooks only where its setup steps (copilot-setup-steps.yml) installed gitmem; "
    "elsewhere it logs and skips them. Releases that read no context from hooks still "
    "enforce critical rules and capture prompts; `gitmem export copilot` gives those the "
    "decisions as path-scoped instructions."
)


# Qwen Code's before-tool hook cannot add context (seen running 0.24.4).
QWEN_NOTE = (
    "Qwen Code loads them at start; `/hooks` lists them. Its before-tool hook cannot add "
    "context: a file's decisions come with the tool's result, before the next step."
)


# Droid's before-tool hook cannot add context, and `droid exec` runs no prompt hook (seen
# running 0.225.2: gitmem.agent.droid).
DROID_NOTE = (
    "Droid loads them when a session starts; `/hooks` lists them. Its before-tool hook "
    "cannot add context: a file's decisions come with the tool's result, before the next "
    "step. `droid exec` runs no prompt hook, so its prompts are not captured."
)


# agent -> (what to know after `install`, how to register the MCP server if not in a file)
AFTER_INSTALL: dict[str, tuple[str | None, str | None]] = {
    "codex": (
        CODEX_TRUST,
        "for Codex, register the MCP server with: codex mcp add gitmem -- gitmem mcp",
    ),
    "gemini": (
        GEMINI_NOTE,
        "for Gemini CLI, register the MCP server: gemini mcp add gitmem gitmem mcp",
    ),
    "copilot": (
        COPILOT_NOTE,
        "for Copilot CLI, add the MCP server with `/mcp add` (command: gitmem mcp)",
    ),
    "cursor": (CURSOR_NOTE, None),
    "qwen": (QWEN_NOTE, "for Qwen Code, register the MCP server: qwen mcp add gitmem gitmem mcp"),
    "droid": (DROID_NOTE, "for Droid, register the MCP server: droid mcp add gitmem gitmem mcp"),
}


def _said_blocks(repo: Repo, done: Installed) -> None:
    """What `install git` did to the project's own hook scripts."""
    from gitmem import githooks

    out = stdout()
    folder = githooks.shown(repo, done.folder)
    runs = "husky runs" if done.husky else "git runs"
    if not done.changed:
        out.print(f"gitmem's lines are already in the hook scripts of {escape(folder)}/")
        return
    names = ", ".join(done.changed)
    out.print(f"added gitmem's lines to {names} in {escape(folder)}/ ({runs} them)")
    if done.created:
        out.print(f"created {', '.join(done.created)} there")
    out.print(
        "these are the project's files: commit them and every clone's commits are "
        "checked (the lines do nothing where gitmem is not installed)"
    )


@click.command()
@AGENT
@click.option(
    "--scope",
    type=SCOPES,
    default="project",
    show_default=True,
    help="claude: project: .claude/settings.json (committed); local: settings.local.json; "
    "user: $CLAUDE_CONFIG_DIR/settings.json (~/.claude). codex: project: .codex/hooks.json; user: "
    "$CODEX_HOME/hooks.json (~/.codex). gemini: project: .gemini/settings.json; user: "
    "$GEMINI_CLI_HOME/.gemini/settings.json (~). cursor: project: .cursor/hooks.json; user: "
    "~/.cursor/hooks.json. copilot: project: .github/hooks/gitmem.json; user: "
    "$COPILOT_HOME/hooks/gitmem.json (~/.copilot). qwen: project: .qwen/settings.json; user: "
    "$QWEN_HOME/settings.json (~/.qwen). droid: project: .factory/hooks.json; user: "
    "~/.factory/hooks.json (or the settings.json beside it, for an event whose hooks are "
    "there). opencode: project: .opencode/plugin/gitmem.js; user: "
    "~/.config/opencode/plugin/gitmem.js. kilo: project: .kilo/plugin/gitmem.js; user: "
    "~/.config/kilo/plugin/gitmem.js. pi: project: .pi/extensions/gitmem.ts; user: "
    "$PI_CODING_AGENT_DIR/extensions/gitmem.ts (~/.pi/agent). cline: project: "
    ".clinerules/hooks/; user: ~/Documents/Cline/Hooks/.",
)
@click.option(
    "--mcp",
    "with_mcp",
    is_flag=True,
    help="Also register `gitmem mcp` (.mcp.json; .cursor/mcp.json for cursor).",
)
@click.option(
    "--trust",
    is_flag=True,
    help="codex: have Codex trust gitmem's hooks (through `codex app-server`, as its "
    "`/hooks` screen does); Codex skips untrusted hooks without a word.",
)
@expected_errors
def install(agent: str, scope: str, with_mcp: bool, trust: bool) -> None:
    """Install gitmem's hooks: `claude` (agent hooks in a settings file; idempotent, other
    hooks kept), `codex` (the same hooks in Codex's hooks.json), `gemini` (in Gemini CLI's
    settings.json), `cursor` (in Cursor's hooks.json), `copilot` (Copilot CLI's
    .github/hooks/gitmem.json), `qwen` (Qwen Code's settings.json), `droid` (Factory
    Droid's hooks.json), `opencode` (a plugin file in .opencode/plugin/), `kilo` (the same
    plugin, for Kilo CLI, in .kilo/plugin/), `pi` (an extension file in .pi/extensions/),
    `cline` (a script per event in
    .clinerules/hooks/) or `git` (native pre-commit, prepare-commit-msg, post-checkout,
    post-merge and pre-applypatch shims; an existing hook is kept as <hook>.before-gitmem
    and run first; with husky, or a hooks folder in the work tree, a marked block is added
    to the project's own hook scripts instead)."""
    if trust and agent != "codex":
        raise click.UsageError("--trust is for codex (the other agents have no such review)")
    _install(agent, scope, with_mcp, trust)
    if scope != "user":
        _say_start_folder(agent)
    _say_unreachable(agent)


def _say_start_folder(agent: str) -> None:
    """Say, after installing for the project, that Claude Code, Gemini CLI, Qwen Code and
    pi started below the repository's root run none of these hooks, where the user may
    start them there: install run from a subfolder, or a repository with packages
    (gitmem.agent.startdir; since session 67: before, install said only "added")."""
    from gitmem.agent import startdir

    note = startdir.install_note(agent, current_repo().root, Path.cwd(), _home())
    if note:
        stdout().print(escape(note))


def _say_unreachable(agent: str) -> None:
    """Warn, after installing, where what was installed will not find gitmem later: run
    from a temporary environment (`uvx gitmem install claude`, `pipx run`), or from the
    project's environment through `uv run` (gitmem.toolenv; since session 66)."""
    from gitmem import toolenv

    if agent == "git":
        from gitmem import githooks

        if githooks.fallback_program() is not None:
            return  # the shims run it by its path where git's PATH does not find it
    program = "gitmem" if agent == "git" else core.command_prefix().split()[0]
    whose = "git's" if agent == "git" else "the agent's"
    why = toolenv.unreachable(program)
    if why is None:
        return
    if why:
        said = (
            f"found here only in {why}. {whose.capitalize()} PATH will not hold it: "
            f"{toolenv.advice(why)}"
        )
    else:  # run by its path from an environment not on PATH (not activated)
        said = (
            f"which is not on PATH here, so {whose} PATH may not hold it either: put "
            f"{Path(sys.executable).parent} on PATH where the agent starts "
            f"(activate that environment), or {toolenv.INSTALL_FOR_GOOD}"
        )
    click.echo(
        f"warning: what was just installed runs `{program}`, {said}; then run `gitmem doctor`.",
        err=True,
    )


def _install(agent: str, scope: str, with_mcp: bool, trust: bool) -> None:
    repo = current_repo()
    if agent == "git":
        from gitmem import githooks

        done = githooks.install(repo)
        where = done.folder
        note = githooks.jj_note(repo)
        if note is not None:
            click.echo(f"gitmem: note: {note}", err=True)
        if done.in_scripts:
            _said_blocks(repo, done)
            return
        stdout().print(
            f"installed {', '.join(done.changed)} in {escape(str(where))}"
            if done.changed
            else f"git hooks already installed in {escape(str(where))}"
        )
        if done.left:
            stdout().print(
                f"left {' and '.join(done.left)} to Git LFS, which this repository uses "
                "(`git lfs install` refuses hooks it did not write); gitmem's would only "
                "refresh the index, which it also does when it finds it stale"
            )
        stopped = githooks.unrunnable(where)
        if stopped is not None:
            click.echo(f"gitmem: {stopped}", err=True)
        if githooks.shared_folder(repo, where):
            stdout().print(
                f"note: core.hooksPath sends git to {escape(str(where))}, outside this "
                "repository, so other repositories may run these hooks too; they do "
                "nothing in one without .continuity/"
            )
        return
    if agent in ("opencode", "kilo", "pi"):
        _install_plugin(repo.root, scope, with_mcp, agent)
        return
    if agent == "cline":
        _install_cline(repo.root, scope, with_mcp)
        return
    which = core.AGENTS[agent]
    path = which.path(scope, repo.root, _home())
    added: list[str] = []
    out = stdout()
    for target, events in which.targets(scope, repo.root, _home()).items():
        added_here = core.install(target, events)
        added += added_here
        if added_here:
            out.print(f"added {', '.join(added_here)} hooks to {escape(str(target))}")
    if not added:
        out.print(f"gitmem hooks already installed in {escape(str(path))}")
    if which is core.CLAUDE:  # only for a Claude Code that reads them: see CLAUDE_FAILURES
        failures = core.install_failure_events(repo.root, _home(), scope)
        if failures.added:
            out.print(f"added {', '.join(failures.added)} hooks to {escape(str(failures.path))}")
        elif failures.not_added:
            out.print(escape(failures.not_added))
        local = core.CLAUDE.path("local", repo.root, _home())
        wrote = (bool(added) and path == local) or (bool(failures.added) and failures.path == local)
        if wrote and core.keep_out_of_git(repo.root, local):
            out.print(f"git ignores {escape(str(local))} in this clone (its info/exclude)")
    note, mcp_hint = AFTER_INSTALL.get(which.name, (None, None))
    if trust:
        _trust_codex(repo.root)
    elif note:
        out.print(escape(note))
    if scope == "project":
        _say_untrusted(repo.root, which.name)
    if not with_mcp:
        return
    if mcp_hint:  # the agent registers MCP servers with its own command
        out.print(escape(mcp_hint))
        return
    changed = core.install_mcp(repo.root, which)
    mcp_file = core.MCP_FILES[which.name]
    out.print(
        f"registered `gitmem mcp` in {mcp_file}"
        if changed
        else f"`gitmem mcp` already registered in {mcp_file}"
    )


def _say_untrusted(root: Path, agent: str) -> None:
    """Gemini CLI and Qwen Code run a project's hooks only in a folder they trust: say so
    when this one is not (gitmem.agent.foldertrust)."""
    from gitmem.agent import foldertrust

    policy = foldertrust.policy_for(agent, root, _home())
    verdict = foldertrust.decide(policy, root) if policy else None
    if policy and verdict and not verdict.trusted:
        stdout().print(escape(f"not yet running here: {verdict.why}{policy.how}"))


# OpenCode reads MCP servers from opencode.json, which gitmem does not edit; Kilo CLI and
# pi register them with their own commands.
PLUGIN_MCP = {
    "opencode": 'for OpenCode, add the MCP server to opencode.json: "mcp": {"gitmem": '
    '{"type": "local", "command": ["gitmem", "mcp"]}}',
    "kilo": "for Kilo CLI, register the MCP server: kilo mcp add gitmem (command: gitmem mcp)",
    "pi": "for pi, register the MCP server: pi mcp add gitmem -- gitmem mcp",
}


def _install_plugin(root: Path, scope: str, with_mcp: bool, agent: str) -> None:
    """OpenCode's or Kilo CLI's plugin, or pi's extension: one file gitmem owns."""
    from gitmem.agent import plugins

    path = plugins.path(_owned_scope(scope), root, _home(), agent)
    out = stdout()
    host, kind = plugins.HOSTS[agent], plugins.KIND.get(agent, "plugin")
    if plugins.install(path, agent):
        out.print(f"wrote gitmem's {host} {kind} to {escape(str(path))}")
    else:
        out.print(f"gitmem's {host} {kind} is up to date in {escape(str(path))}")
    out.print(f"{host} loads it at start; it calls gitmem-hook, which must be on PATH.")
    if agent == "pi" and _owned_scope(scope) == "project":
        from gitmem.agent import pi

        why = pi.untrusted(root, _home())
        if why:  # pi loads a project's extensions only once the user trusts the project
            out.print(escape(f"not yet running here: {why}; trust it in pi (/trust)"))
    if with_mcp:
        out.print(escape(PLUGIN_MCP[agent]))


# What Cline does with each hook's answer (seen running Cline CLI 3.0.65): see
# gitmem.agent.cline.
CLINE_NOTE = (
    "Cline runs them from the next task on. Its start and prompt hooks cannot add context: "
    "the digest and a prompt's decisions come with the first tool result, and a file's "
    "decisions with the tool's. A critical rule stops the task (Cline's cancel), the file "
    "unchanged."
)
CLINE_MCP = "for Cline, register the MCP server: cline mcp install gitmem -- gitmem mcp"


def _install_cline(root: Path, scope: str, with_mcp: bool) -> None:
    from gitmem.agent import clinehooks

    where = clinehooks.folder(_owned_scope(scope), root, _home())
    written = clinehooks.install(where)
    out = stdout()
    if written:
        out.print(f"wrote {', '.join(written)} hooks to {escape(str(where))}")
    else:
        out.print(f"gitmem's Cline hooks are up to date in {escape(str(where))}")
    out.print(escape(CLINE_NOTE))
    if with_mcp:
        out.print(escape(CLINE_MCP))


def _trust_codex(root: Path) -> None:
    """Have Codex trust the hooks just installed, and say what Codex now reports."""
    from gitmem.agent import codextrust
    from gitmem.errors import GitmemError

    codex = codextrust.codex_command()
    if codex is None:
        raise GitmemError(
            "hooks installed, but `codex` is not on PATH to trust them: review them with "
            "`/hooks` in Codex"
        )
    ok, line = codextrust.summary(codextrust.trust(codex, root))
    if not ok:
        raise GitmemError(line)
    stdout().print(escape(line))


@click.command()
@AGENT
@click.option(
    "--scope",
    type=SCOPES,
    default="project",
    show_default=True,
    help="Which settings file to clean.",
)
@click.option("--mcp", "with_mcp", is_flag=True, help="Also remove `gitmem mcp` from .mcp.json.")
@expected_errors
def uninstall(agent: str, scope: str, with_mcp: bool) -> None:
    """Remove exactly the hooks `gitmem install` added; everything else stays (for `git`,
    a hook kept as <hook>.before-gitmem is restored byte for byte)."""
    repo = current_repo()
    if agent == "git":
        from gitmem import githooks

        gone = githooks.uninstall(repo)
        stdout().print(f"removed {', '.join(gone)}" if gone else "no gitmem git hooks installed")
        return
    if agent in ("opencode", "kilo", "pi"):
        from gitmem.agent import plugins

        path = plugins.path(_owned_scope(scope), repo.root, _home(), agent)
        was_ours = plugins.uninstall(path)
        kind = plugins.KIND.get(agent, "plugin")
        stdout().print(
            f"removed {escape(str(path))}"
            if was_ours
            else f"no gitmem {kind} at {escape(str(path))}"
        )
        return
    if agent == "cline":
        from gitmem.agent import clinehooks

        where = clinehooks.folder(_owned_scope(scope), repo.root, _home())
        count = clinehooks.uninstall(where)
        stdout().print(
            f"removed {count} gitmem hooks from {escape(str(where))}"
            if count
            else f"no gitmem hooks in {escape(str(where))}"
        )
        return
    which = core.AGENTS[agent]
    path = which.path(scope, repo.root, _home())
    out = stdout()
    removed = 0
    for target in which.hook_files(scope, repo.root, _home()):
        removed_here = core.uninstall(target, which)
        removed += removed_here
        if removed_here:
            out.print(f"removed {removed_here} gitmem hooks from {escape(str(target))}")
    if not removed:
        out.print(f"no gitmem hooks in {escape(str(path))}")
    if which is core.CLAUDE:  # PostToolUseFailure and StopFailure, kept beside the project's
        local, beside = core.uninstall_failure_events(repo.root, _home(), scope)
        if beside:
            out.print(f"removed {beside} gitmem hooks from {escape(str(local))}")
    if with_mcp and which.name in core.MCP_FILES and core.uninstall_mcp(repo.root, which):
        out.print(f"removed `gitmem mcp` from {core.MCP_FILES[which.name]}")


@click.command()
@click.option("--no-model", is_flag=True, help="Skip loading the embedding model (faster).")
@json_option
@expected_errors
def doctor(no_model: bool, json_: bool) -> None:
    """One screen: hooks installed and firing, index freshness, model, daemon, last errors."""
    repo = current_repo(sparse_warning=False, hook_errors=False)
    report = doctor_core.diagnose(repo, load_model=not no_model)
    from gitmem.agent.failures import mark_told

    mark_told(str(repo.shared_state_dir))  # shown below: not told again at the session start
    if json_:
        emit_json(report.to_json())
        return
    out = stdout()
    for c in report.checks:
        mark = "[green]ok[/]  " if c.ok else "[red]!![/]  "
        out.print(f"{mark}{c.name:16} {escape(c.detail)}")
    if report.last_events:
        out.print("\nlast successful hook events:")
        for event, data in report.last_events.items():
            ago = doctor_core._ago(float(data.get("time", 0)))
            out.print(f"    {event:14} {ago} ({data.get('ms', 0):.0f} ms)")
    else:
        out.print("\nno hook has run yet in this repository")
    if report.errors:
        out.print(
            "\nlast hook errors (hooks failed open: neither the agent nor the commit was blocked):"
        )
        for line in report.errors:
            out.print(f"    {escape(line)}")
    if report.daemon_log:
        out.print("\ndaemon log (warnings, failures, exits; everything works without it):")
        for line in report.daemon_log:
            out.print(f"    {escape(line)}")


@click.command()
@expected_errors
def mcp() -> None:
    """Serve the decisions over MCP on stdio (search_decisions, why, get_decision,
    propose_decision). Register it with `gitmem install claude --mcp`."""
    from gitmem.mcpserver import serve

    serve(current_repo())
