from __future__ import annotations

import tempfile
from pathlib import Path

import click
from rich.markup import escape
from rich.rule import Rule

from gitmem import demo as core
from gitmem import git, index, init, lint, sessionlog, stale, why
from gitmem.cli.output import expected_errors, stdout
from gitmem.repo import discover
from gitmem.retrieve import retrieve
from gitmem.vocab import clipped, counted

SHOWCASE = [
    "paydash/billing/charge.py",
    "paydash/billing/experimental/fx.py",
    "paydash/api/routes.py",
    "paydash/worker/webhooks.py",
]


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@expected_errors
def demo(directory: str | None) -> None:
    """Create a demo repository (in DIRECTORY, else a new temp folder) and run gitmem on it.

    Shows init reading an existing ADR folder in place, the decision list, `why` for a few
    files (a superseded decision, a negated glob, an inferred glob), search, one agent
    session through the real Claude Code hooks (what the agent is given, an edit a
    critical rule denies, the session kept on a git ref), lint, and the stale lines of the
    demo's CLAUDE.md.
    """
    target = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="gitmem-demo-"))
    try:
        core.create(target.resolve())
    except FileExistsError as exc:
        raise click.ClickException(str(exc)) from exc
    repo = discover(target.resolve())
    out = stdout()
    out.print(Rule(f"gitmem demo: {target}"))
    out.print("$ gitmem init")
    report = init.init(repo)
    for folder in report.sources_added:
        out.print(f"  reading ADRs in place from {folder}/")
    for rel in report.imported:
        out.print(f"  inferred globs for {rel}: {', '.join(report.inferred[rel]) or '-'}")
    core.commit_all(target.resolve(), "Adopt gitmem: decision records")

    out.print("\n$ gitmem list")
    from gitmem import compile as compiler

    table = compiler.ensure(repo)
    for e in table.entries():
        out.print(f"  {e.id:9} {e.effective_status:11} {e.severity:8} {escape(e.title)}")
    table.close()

    out.print(f"\n$ gitmem why {' '.join(SHOWCASE)}")
    for rep in why.why(repo, SHOWCASE, cwd=str(repo.root)):
        out.print(f"  [bold]{escape(rep.path or rep.query)}[/]")
        if not rep.decisions:
            out.print("    no decision governs this path")
        for g in rep.decisions:
            tail = ""
            if g.superseded_by:
                tail = f" -> superseded by {', '.join(s.id for s in g.superseded_by)}"
            out.print(
                f"    {g.id} ({g.status}, {g.severity}) via {escape(g.glob)}: "
                f"{escape(g.title)}{tail}"
            )
    out.print("\n$ gitmem index")
    resolution = index.resolve_embedder(repo, allow_download=False)
    if resolution.warning:
        out.print(f"  [yellow]warning:[/] {escape(resolution.warning)}")
    built = index.build(repo, embedder=resolution.embedder)
    if built.model_failure:
        out.print(f"  [yellow]warning:[/] {escape(built.model_failure)}")
    embedded = counted(built.embedded, "chunk")
    out.print(f"  indexed {counted(built.total, 'decision')} ({embedded} embedded)")
    query, touched = "can a refund amount be a float?", "paydash/billing/refund.py"
    out.print(f'\n$ gitmem search "{query}" --path {touched}')
    result = retrieve(repo, query, [touched], k=3, embedder=resolution.embedder)
    for n, h in enumerate(result.hits, start=1):
        ranks = ", ".join(f"{name} #{rank}" for name, (rank, _) in sorted(h.ranks.items()))
        out.print(
            f"  {n}. {h.id} ({h.status}, {h.severity}) {escape(h.title)}  {escape(f'[{ranks}]')}"
        )
    out.print(f"  rankers: {', '.join(result.rankers)}")

    _agent_session(target.resolve())

    out.print("\n$ gitmem lint")
    lr = lint.lint(repo)
    for p in lr.problems:
        out.print(f"  {escape(p.format())}")
    out.print(f"  {lr.summary()}")

    out.print("\n$ gitmem stale")
    sr = stale.check(repo)
    stale.write_cache(repo, sr)
    for f in sr.findings:
        out.print(f"  {escape(f.format())}")
    out.print(f"  {', '.join(sr.files)}: {sr.references} references checked, {sr.errors} stale")
    out.print(f"\nTry it yourself:  cd {target} && gitmem why paydash/billing/refund.py")


def _shown(text: str, lines: int = 6, width: int = 110) -> list[str]:
    """The first lines of what the agent was given, each cut to the terminal's width."""
    kept = [line for line in text.splitlines() if line.strip()]
    out = [clipped(line, width) for line in kept[:lines]]
    if len(kept) > lines:
        out.append(f"… ({len(text):,} characters in all)")
    return out


def _agent_session(target: Path) -> None:
    """One Claude Code session through gitmem's real hooks, then what it left on git."""
    out = stdout()
    out.print("\n$ # an agent session: gitmem's Claude Code hooks, run as Claude Code runs them")
    for step in core.agent_session(target):
        out.print(f"  [bold]{escape(step.did)}[/] → ", end="")
        if step.denied:
            out.print("[red]denied[/]; the agent is told:")
            out.print(f"      {escape(step.denied)}", soft_wrap=True)
        elif step.context:
            out.print(f"the agent is given ({len(step.context):,} characters):")
            for line in _shown(step.context):
                out.print(f"      {escape(line)}", soft_wrap=True)
        elif step.event == "stop":
            out.print("the files the turn edited are recorded with its prompt")
        elif step.event == "session-end":
            out.print("its prompt and the files it edited are committed to its ref")
        elif step.event == "post-tool":
            out.print("nothing to add")
        else:
            out.print("allowed; nothing new to tell (shown once a session)")
    repo = discover(target)
    rows = sessionlog.summaries(repo)
    out.print("\n$ gitmem sessions")
    if not rows:
        out.print("  no captured sessions (capture is off: GITMEM_CAPTURE or the config)")
    for r in rows:
        edited = counted(len(r.files_edited), "file")
        out.print(f"  {escape(r.id)}  {counted(r.prompts, 'prompt')}  {edited} edited")
    out.print("\n$ git log -1   # the agent's change, committed with gitmem's trailers")
    _, message, _ = git.run(["log", "-1", "--format=%B"], cwd=target)
    for line in message.strip().splitlines():
        out.print(f"  {escape(line)}" if line else "")
    path = "paydash/api/routes.py"
    out.print(f"\n$ gitmem why {path}")
    for rep in why.why(repo, [path], cwd=str(target)):
        for g in rep.decisions:
            via = f"via {escape(g.glob)}: {escape(g.title)}"
            out.print(f"  {g.id} ({g.status}, {g.severity}) {via}")
        for edit in rep.sessions:
            sid = escape(edit.session.id)
            said = escape(edit.prompt or edit.session.first_prompt)
            out.print(f'  edited in session {sid}: "{said}" (`gitmem sessions show {sid}`)')
