from __future__ import annotations

import os

import click
from rich.markup import escape

from gitmem import capture as core
from gitmem import hidden, sessionlog
from gitmem.agent import state
from gitmem.cli.output import (
    current_repo,
    emit_json,
    expected_errors,
    json_option,
    stdout,
    when,
)
from gitmem.errors import GitmemError
from gitmem.paths import to_repo_relative
from gitmem.repo import Repo
from gitmem.tidy import tidy
from gitmem.vocab import clipped, counted


@click.group(invoke_without_command=True)
@click.option("--user", "users", multiple=True, help="Only this user's sessions (repeatable).")
@click.option(
    "--edited",
    "edited",
    multiple=True,
    metavar="PATH",
    help="Only sessions that edited PATH, or a file under the folder PATH, as their latest "
    "turn or closing record lists, or, for this clone's sessions, their turn in progress "
    "(repeatable).",
)
@click.option(
    "--branch",
    "branches",
    multiple=True,
    help="Only sessions on this branch, where they started or went on (repeatable): the "
    "sessions behind a PR.",
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    help="Only sessions run in this agent: claude, codex, gemini, cursor, copilot, qwen, "
    "droid, opencode, kilo, pi or cline (repeatable).",
)
@click.option(
    "-n", "--limit", type=click.IntRange(min=1), default=None, help="Only the N newest sessions."
)
@json_option
@click.pass_context
@expected_errors
def sessions(
    ctx: click.Context,
    users: tuple[str, ...],
    edited: tuple[str, ...],
    branches: tuple[str, ...],
    agents: tuple[str, ...],
    limit: int | None,
    json_: bool,
) -> None:
    """List captured agent sessions (who, when, in which agent, branch, prompts, files
    edited, and the line the session began with), newest first."""
    if ctx.invoked_subcommand is not None:
        return
    repo = current_repo()
    for sid in core.pending_sessions(repo):
        core.flush(repo, sid)
    wanted = [_repo_path(repo, p) for p in edited]
    ran_in = {a.strip().lower() for a in agents}
    rows = [
        r
        for r in sessionlog.with_unrecorded(repo, sessionlog.summaries(repo))
        if (not users or r.user in users)
        and (not branches or any(b in branches for b in r.branches))
        and (not ran_in or (r.agent or "") in ran_in)
        and (not wanted or any(r.edited_under(p) for p in wanted))
    ][:limit]
    if json_:
        emit_json([r.as_json() for r in rows])
        return
    out = stdout()
    if not rows:
        filtered = users or edited or branches or agents
        out.print("no captured sessions match" if filtered else "no captured sessions yet")
        return
    for r in rows:
        began = f'  "{escape(clipped(r.first_prompt, 60))}"' if r.first_prompt else ""
        files = counted(len(r.files_edited) + len(r.unrecorded), "file") + " edited"
        if r.unrecorded:  # this clone's session, in a turn now or killed in one
            files += f" ({len(r.unrecorded)} in a turn not ended yet)"
        out.print(
            f"{escape(r.id)}  {when(r.started)}  {escape(r.agent or '-')}  "
            f"branch {escape(_branches(r))}  "
            f"{counted(r.prompts, 'prompt')}  {files}{began}",
            soft_wrap=True,
        )


def _branches(r: sessionlog.SessionSummary) -> str:
    """The branch the session started on, then any it went on to ("main → feature/x")."""
    return " → ".join(dict.fromkeys([r.branch or "-", *r.branches]))


def _repo_path(repo: Repo, raw: str) -> str:
    rel = to_repo_relative(raw, repo, os.getcwd())
    if rel is None:
        raise click.BadParameter(f"{raw} is outside this repository", param_hint="--edited")
    return rel


def _one(repo: Repo, ident: str) -> tuple[str, str]:
    """The session ``ident`` names (its id, ``user/id``, or part of either), after a flush.
    A session whose records all wait to be committed by another machine (see
    ``capture.flush``) is one too, named by its first record's ref."""
    for sid in core.pending_sessions(repo):
        core.flush(repo, sid)
    known = dict(core.session_refs(repo))
    for sid in core.pending_sessions(repo):
        ref = core.waiting_ref(repo, sid)
        if ref is not None and ref not in known:
            known[ref] = ref[len(core.REF_ROOT) + 1 :]
    matches = [
        (ref, short)
        for ref, short in known.items()
        if short == ident or short.endswith("/" + ident) or ident in short
    ]
    if not matches:
        raise GitmemError(f"no session {ident!r}; `gitmem sessions` lists them")
    if len(matches) > 1:
        raise GitmemError(f"{ident!r} matches {len(matches)} sessions; give more of the id")
    return matches[0]


@sessions.command()
@click.argument("ident", metavar="ID")
@click.option("--remote", default=None, help="Delete it on this remote too (e.g. origin).")
@json_option
@expected_errors
def forget(ident: str, remote: str | None, json_: bool) -> None:
    """Delete a captured session (a prompt held what should not be kept): its ref, what of
    it waits to be committed, and its later prompts in this clone. A tombstone ref makes
    every clone that runs `gitmem sync` delete its copy too."""
    repo = current_repo()
    ref, short = _one(repo, ident)
    held, failed = core.forget(repo, ref, remote)
    if json_:
        found = {"id": short, "ref": ref, "records": held, "remote": remote}
        emit_json({**found, "remote_error": failed or None})
    else:
        click.echo(f"forgot {short} ({counted(held, 'record')})")
        where = f"; deleted on {remote}" if remote and not failed else ""
        click.echo(
            f"Its ref is deleted here{where}; clones that fetched it delete theirs at their "
            "next `gitmem sync`. Its objects stay in .git until git prunes them "
            "(`git gc --prune=now`); a secret it held should be rotated.",
            err=True,
        )
    if failed:
        raise GitmemError(f"could not delete {ref} on {remote}: {failed}")


@sessions.command()
@click.argument("ident", metavar="ID")
@json_option
@expected_errors
def show(ident: str, json_: bool) -> None:
    """Print one session as a transcript: each prompt and the decisions shown for it, then
    the commits that name it in a `Gitmem-Session:` trailer."""
    repo = current_repo()
    ref, short = _one(repo, ident)
    records = core.records(repo, ref)
    # and those waiting to be committed by the machine the session goes on on
    records += sessionlog.waiting_records(
        repo, ref.rsplit("/", 1)[-1], {str(r.get("uid")) for r in records}
    )
    commits = sessionlog.commits_naming(repo, short)
    # this clone's session: what it edited that no record lists yet (a turn not ended)
    sid = str(records[0].get("session_id") or "") if records else ""
    pending = state.unrecorded_edits(repo.shared_state_dir, sid, str(repo.root)) if sid else []
    if json_:
        made = [{"sha": sha, "subject": subject} for sha, subject in commits]
        found = {"id": short, "ref": ref, "records": records, "unrecorded": pending}
        emit_json({**found, "commits": made})
        return
    out = stdout()
    agent = str(records[0].get("agent") or "") if records else ""
    header = f"{escape(agent)}, " if agent else ""
    out.print(f"[bold]{escape(short)}[/] ({header}{counted(len(records), 'record')})")
    edited: set[str] = set()  # by the turns shown so far: each turn says what it added
    for r in records:
        if r.get("kind") == "turn":
            added = [f for f in r.get("files_edited") or [] if f not in edited]
            edited.update(added)
            note = " (its turn never ended)" if r.get("unfinished") else ""
            ran = [f for f in r.get("written_by_commands") or [] if f in added]
            if ran:  # what a script or a build it ran wrote (gitmem.agent.shelleffects)
                note += f" ({', '.join(ran)} written by commands it ran)"
            out.print(f"[dim]  edited: {escape(', '.join(added) or '-')}{escape(note)}[/]")
        elif r.get("kind", "prompt") == "prompt":
            shown = ", ".join(r.get("decisions_injected") or []) or "none"
            out.print(
                f"\n[cyan]{when(r.get('time'))}[/] on {r.get('branch') or '-'} "
                f"@ {str(r.get('head') or '')[:10]}  decisions shown: {shown}"
            )
            # as it reads: a prompt captured before session 52 may hold what its typist
            # never saw (pasted tag characters) or a terminal's escapes
            click.echo(hidden.visible(str(r.get("prompt", "")))[0])
        else:
            out.print(f"\n[dim]{when(r.get('time'))} session closed ({r.get('reason') or '-'})[/]")
            for key in ("files_edited", "decisions_shown", "retrieval_corrections"):
                out.print(f"  {key.replace('_', ' ')}: {', '.join(r.get(key) or []) or '-'}")
    if pending:
        shown = escape(", ".join(pending))
        out.print(f"[dim]  edited: {shown} (in a turn not ended yet: no record lists it)[/]")
    if commits:
        out.print(f"\n{counted(len(commits), 'commit')} naming this session:")
        for sha, subject in commits:
            out.print(f"  [yellow]{sha[:10]}[/] {escape(subject)}")


@click.command()
@click.argument("remote", default="origin")
@expected_errors
def sync(remote: str) -> None:
    """Fetch and push the captured sessions (refs/gitmem/*) with explicit refspecs.

    Never configures the remote's push refspec, so a plain `git push` is unchanged.
    """
    repo = current_repo()
    _note_unfinished(repo)
    for sid in core.pending_sessions(repo):
        core.flush(repo, sid)
    code, out = core.sync(repo, remote)
    if code != 0:
        raise GitmemError(out.strip() or f"git push/fetch to {remote} failed")
    if out == core.NOTHING_TO_SYNC.format(remote=remote):
        click.echo(out)
    else:
        click.echo(f"synced refs/gitmem/* with {remote}")


def _note_unfinished(repo: Repo) -> list[str]:
    """The turns that never ended, noted (gitmem.unfinished); a failure there is logged
    for `gitmem doctor` and never stops the flush."""
    from gitmem import unfinished

    try:
        return unfinished.note(repo)
    except Exception as exc:
        from gitmem.agent.runner import ERROR_LOG, append_log

        append_log(
            repo.shared_state_dir, ERROR_LOG, f"unfinished turns: {type(exc).__name__}: {exc}"
        )
        return []


@click.group(hidden=True)
def capture() -> None:
    """Session capture internals."""


@capture.command()
@click.option("--session", "session_id", default=None, help="One session (default: all pending).")
@expected_errors
def flush(session_id: str | None) -> None:
    """Commit pending captured records to their session refs."""
    repo = current_repo()
    noted = _note_unfinished(repo)
    ids = list(dict.fromkeys([session_id, *noted])) if session_id else core.pending_sessions(repo)
    try:
        total = sum(core.flush(repo, sid) for sid in ids)
    except Exception as exc:
        # The stop hook runs this detached, with no stderr anyone reads: the reason goes
        # where `gitmem doctor` shows it (its capture line counts what waits).
        from gitmem.agent.runner import ERROR_LOG, append_log

        append_log(repo.shared_state_dir, ERROR_LOG, f"capture flush: {str(exc).splitlines()[0]}")
        raise
    click.echo(f"committed {counted(total, 'record')}")
    tidy(repo.shared_state_dir)  # the files of sessions long over (see gitmem.tidy)
