"""A decision file that does not load is never silent: the commands a user runs (`list`,
`why`, `index`, `search`, `show`, `export`) say on stderr which record files are left out
and why, and the session-start hook tells the agent, not only `gitmem lint` and doctor.
Run as the installed `gitmem` and `gitmem-hook`, in a real repository."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import commit_all, decision, run_agent_hook, write
from conftest import run_gitmem as gitmem

GITMEM = shutil.which("gitmem")
GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = [
    pytest.mark.skipif(
        GITMEM is None or GITMEM_HOOK is None, reason="gitmem and gitmem-hook are not installed"
    ),
    pytest.mark.usefixtures("no_model"),
]

# A duplicate key: the YAML does not parse, so the record is left out.
BROKEN = """---
title: Refunds go through the ledger
status: accepted
title: Refunds use the ledger
globs: ["billing/refunds/**"]
---
## Decision

Every refund is a ledger entry.
"""
HEADLINE = "1 decision file has errors and is left out"
WHERE = ".continuity/decisions/0002-refunds.md:4: front-matter: invalid YAML"


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "billing/refunds/refund.py", "y = 1\n")
    decision(repo, "0001-money.md", "Money is integer cents", globs=["billing/**"])
    write(repo, ".continuity/decisions/0002-refunds.md", BROKEN)
    commit_all(repo, "decisions")
    return repo


def context(project: Path, event: str, payload: dict[str, object]) -> str:
    """Run `gitmem-hook claude EVENT` as Claude Code does: the context it adds."""
    answer = run_agent_hook(project, f"{GITMEM_HOOK} claude {event}", payload)
    if answer is None:
        return ""
    specific = answer["hookSpecificOutput"]
    assert isinstance(specific, dict)
    return str(specific["additionalContext"])


def session_start(project: Path, session: str, source: str = "startup") -> str:
    payload = {"session_id": session, "cwd": str(project), "source": source}
    return context(project, "session-start", payload)


def test_the_commands_say_which_record_files_are_left_out(project: Path) -> None:
    runs = {
        "index": gitmem(project, "index"),
        "list": gitmem(project, "list"),
        "list --json": gitmem(project, "list", "--json"),
        "why": gitmem(project, "why", "billing/refunds/refund.py", "--no-provenance"),
        "search": gitmem(project, "search", "refund ledger", "--no-daemon"),
        "export": gitmem(project, "export", "claude"),
    }
    for name, proc in runs.items():
        assert proc.returncode == 0, (name, proc.stderr)
        assert HEADLINE in proc.stderr, name
        assert HEADLINE not in proc.stdout, name  # data on stdout, diagnostics on stderr
    for name in ("index", "list", "why", "export"):  # these name the file, line and key
        assert WHERE in runs[name].stderr and "(left out)" in runs[name].stderr, name
    assert [r["id"] for r in json.loads(runs["list --json"].stdout)] == ["D-0001"]
    assert "D-0001" in runs["why"].stdout and "D-0002" not in runs["why"].stdout

    show = gitmem(project, "show", "D-0002")
    assert show.returncode == 1
    assert "no decision 'D-0002'" in show.stderr and WHERE in show.stderr

    # fixed: every command is quiet about it again
    fixed = BROKEN.replace("title: Refunds use the ledger\n", "")
    write(project, ".continuity/decisions/0002-refunds.md", fixed)
    for args in (("list",), ("why", "billing/refunds/refund.py"), ("index",), ("show", "D-0002")):
        proc = gitmem(project, *args)
        assert proc.returncode == 0 and "has errors" not in proc.stderr, (args, proc.stderr)
    assert "D-0002" in gitmem(project, "why", "billing/refunds/refund.py").stdout


def test_left_out_and_loaded_in_part(project: Path) -> None:
    """A record whose id another file already has is left out; one with a bad glob loads
    without that glob. Each file is named with its first error by line."""
    decision(project, "0003-other.md", "Refund retries", extra="id: D-0001\n")
    decision(project, "0004-glob.md", "Glob typo", globs=["api/[x"], extra="severity: huge\n")
    proc = gitmem(project, "list")
    assert "3 decision files have errors (2 left out, the other loaded in part)" in proc.stderr
    assert "0003-other.md:5: id: duplicate id D-0001" in proc.stderr
    # its first error by line: the glob (line 4), not the severity (line 5)
    assert ".continuity/decisions/0004-glob.md:4: globs:" in proc.stderr
    glob_line = next(line for line in proc.stderr.splitlines() if "0004-glob.md" in line)
    assert "(left out)" not in glob_line
    assert "Glob typo" in proc.stdout


def test_the_session_start_hook_tells_the_agent(project: Path) -> None:
    start = session_start(project, "s1")
    assert "Money is integer cents" in start  # the digest itself is unchanged
    assert f"Note: {HEADLINE}, so gitmem does not apply those decisions" in start
    assert WHERE in start and len(start) < 4000
    assert "has errors" not in session_start(project, "s1", source="resume")


def test_the_only_record_broken(repo: Path) -> None:
    """No record loads at all: the agent still hears why, where before it heard nothing."""
    write(repo, ".continuity/decisions/0001-refunds.md", BROKEN)
    commit_all(repo, "a broken decision")
    start = session_start(repo, "s2")
    assert f"Note: {HEADLINE}" in start and "0001-refunds.md:4" in start


TOOL_USE_IDS = itertools.count(1)


def post_tool(project: Path, rel: str, tool: str = "Write") -> str:
    """PostToolUse for ``tool`` on ``rel``, as Claude Code sends it (each call with its own
    ``tool_use_id``): the context it adds."""
    payload = {
        "session_id": "writer",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_use_id": f"toolu_{next(TOOL_USE_IDS)}",
        "tool_name": tool,
        "tool_input": {"file_path": str(project / rel), "content": "..."},
        "tool_response": {"success": True},
    }
    return context(project, "post-tool", payload)


def test_the_agent_hears_at_once_when_it_writes_a_broken_record(project: Path) -> None:
    """An agent asked to record a decision writes the file itself; a colon in an unquoted
    title is enough to leave it out. The hook after the write says so, with file, line and
    key, so the agent can fix it in the same turn."""
    gitmem(project, "index")
    rel = ".continuity/decisions/0003-queue.md"
    write(project, rel, "---\ntitle: Webhooks: always queued\nstatus: accepted\n---\nBody.\n")
    said = post_tool(project, rel)
    assert "The decision record just edited has errors" in said
    assert f"{rel}:2: front-matter: invalid YAML" in said and "(left out)" in said

    write(project, rel, '---\ntitle: "Webhooks: always queued"\nstatus: accepted\n---\nBody.\n')
    assert "has errors" not in post_tool(project, rel, tool="Edit")

    write(project, rel, '---\ntitle: "Q"\nstatus: accepted\nglobs: ["api/[x"]\n---\nBody.\n')
    said = post_tool(project, rel, tool="Edit")
    assert f"{rel}:4: globs:" in said and "(the rest of it loaded)" in said

    # an id another record already has
    write(project, rel, '---\nid: D-0001\ntitle: "Q"\nstatus: accepted\n---\nBody.\n')
    said = post_tool(project, rel, tool="Edit")
    assert "id: D-0001 is also .continuity/decisions/0001-money.md's id" in said

    # two records numbered alike in quick succession: the second is named although the
    # table the hook reads does not have the first yet (before: no note)
    write(project, ".continuity/decisions/0004-cache.md", "---\ntitle: Cache\n---\nBody.\n")
    rel = ".continuity/decisions/0004-queue.md"
    write(project, rel, '---\ntitle: "Queue"\nstatus: accepted\n---\nBody.\n')
    said = post_tool(project, rel)
    assert "id: D-0004 is also .continuity/decisions/0004-cache.md's id" in said

    # an ordinary file: no note (the money decision governing it is what comes)
    said = post_tool(project, "billing/charge.py", tool="Edit")
    assert "has errors" not in said and "D-0001" in said


NYGARD = "# {n}. {title}\n\nDate: 2026-11-0{n}\n\n## Status\n\nAccepted\n\n## Decision\n\n{title}.\n"


def test_the_agent_hears_at_once_when_it_writes_a_broken_adr_read_in_place(repo: Path) -> None:
    """An ADR folder read in place (`docs/adr`) gets the same check after an edit as
    gitmem's own records: a MADR record's front matter that does not parse leaves the ADR
    out just the same. And a new ADR given a number the log already uses is named, with
    the next free number: one of the two would lose its id and the links to it."""
    write(repo, "billing/charge.py", "x = 1\n")
    for n, title in ((1, "Record architecture decisions"), (2, "Webhooks run as jobs")):
        slug = title.lower().replace(" ", "-")
        write(repo, f"docs/adr/000{n}-{slug}.md", NYGARD.format(n=n, title=title))
    assert gitmem(repo, "init").returncode == 0
    commit_all(repo, "ADRs")
    gitmem(repo, "index")

    rel = "docs/adr/0003-use-redis.md"
    madr = "---\nstatus: accepted\ndate: 2026-11-20\ntitle: {t}\n---\n# Redis\n\nWe use it.\n"
    write(repo, rel, madr.format(t="Redis: the job queue"))
    said = post_tool(repo, rel)
    assert "The decision record just edited has errors" in said
    assert f"{rel}:4: front-matter: invalid YAML" in said and "(left out)" in said

    write(repo, rel, madr.format(t='"Redis: the job queue"'))
    assert post_tool(repo, rel, tool="Edit") == ""

    # a new ADR numbered like a committed one: renamed to the next free number (0003 is
    # taken by the new file above, not yet committed)
    write(repo, "docs/adr/0002-queue-retries.md", NYGARD.format(n=2, title="Retries"))
    said = post_tool(repo, "docs/adr/0002-queue-retries.md")
    assert (
        "docs/adr/0002-queue-retries.md: its number 2 is already "
        "docs/adr/0002-webhooks-run-as-jobs.md's, so one of the two loses the id ADR-0002"
    ) in said
    assert "rename it to docs/adr/0004-queue-retries.md, the next free number" in said
    # the committed one edited while the new one is there: the new one is named
    said = post_tool(repo, "docs/adr/0002-webhooks-run-as-jobs.md", tool="Edit")
    assert "docs/adr/0002-queue-retries.md: its number 2 is already" in said
    # two new ADRs numbered alike: the one just written is named
    write(repo, "docs/adr/0003-cache.md", NYGARD.format(n=3, title="Cache"))
    said = post_tool(repo, "docs/adr/0003-cache.md")
    assert (
        "docs/adr/0003-cache.md: its number 3 is already docs/adr/0003-use-redis.md's"
    ) in said and "rename it to docs/adr/0004-cache.md" in said
    (repo / "docs/adr/0003-cache.md").unlink()

    # once both are committed, the clash is the log's own (lint's to report), not news
    commit_all(repo, "two ADRs numbered 2")
    assert post_tool(repo, "docs/adr/0002-webhooks-run-as-jobs.md", tool="Edit") == ""
    lint = gitmem(repo, "lint")
    assert "ADR-0002 is also docs/adr/0002-queue-retries.md" in lint.stdout + lint.stderr

    # not records: the folder's README, and an ordinary file
    write(repo, "docs/adr/README.md", "---\ntitle: a: b\n---\n")
    assert post_tool(repo, "docs/adr/README.md") == ""
    assert "has errors" not in post_tool(repo, "billing/charge.py", tool="Edit")


def test_an_adr_folder_named_with_dot_slash(repo: Path) -> None:
    """`path: ./docs/adr/` in config.yaml, as a user may write it, is the folder
    `docs/adr`: the ADRs it holds were read, but the hook after an edit compared paths to
    `./docs/adr/` and checked none of them, and `init` would register the folder again."""
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "docs/adr/0001-money.md", NYGARD.format(n=1, title="Money in cents"))
    write(repo, ".continuity/config.yaml", "sources:\n  - path: ./docs/adr/\n")
    commit_all(repo, "ADRs")
    init = gitmem(repo, "init")
    assert init.returncode == 0 and "reading ADRs in place" not in init.stdout
    assert (repo / ".continuity/config.yaml").read_text().count("path:") == 1
    rel = "docs/adr/0002-queue.md"
    write(repo, rel, "---\ntitle: Queue: yes\n---\n# Queue\n")
    said = post_tool(repo, rel)
    assert f"{rel}:2: front-matter: invalid YAML" in said and "(left out)" in said


def test_the_agent_hears_at_once_when_it_breaks_a_settings_file(repo: Path) -> None:
    """An agent asked to read another ADR folder or to turn capture off edits
    `.continuity/config.yaml`; one asked to review inferred globs edits imported.yaml. A
    bracket left open there made gitmem read none of the file: no ADR folder at all, and
    the agent heard nothing. The hook after the edit says so now, as for a record."""
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "docs/adr/0001-money.md", NYGARD.format(n=1, title="Money in `billing` cents"))
    assert gitmem(repo, "init").returncode == 0
    commit_all(repo, "ADRs")
    config = repo / ".continuity/config.yaml"
    good = config.read_text()

    config.write_text(good + "sources: [\n")
    said = post_tool(repo, ".continuity/config.yaml", tool="Edit")
    assert said.startswith("The settings file just edited has errors")
    assert ".continuity/config.yaml:" in said and "invalid YAML" in said
    assert "(gitmem reads none of it: its defaults, and no ADR folder read in place)" in said

    config.write_text(good.replace("capture: true", "capture: maybe"))
    said = post_tool(repo, ".continuity/config.yaml", tool="Edit")
    assert "capture: expected true or false (gitmem uses its default there)" in said

    config.write_text(good)
    assert post_tool(repo, ".continuity/config.yaml", tool="Edit") == ""

    imported = repo / ".continuity/imported.yaml"
    text = imported.read_text()
    assert "globs:" in text
    imported.write_text(text.replace("globs:", 'globs: ["billing/[x"] #', 1))
    said = post_tool(repo, ".continuity/imported.yaml", tool="Edit")
    assert "docs/adr/0001-money.md.globs: unbalanced brackets" in said
    assert "(the globs it cannot read govern no path)" in said


def test_a_settings_file_with_errors(project: Path) -> None:
    """`.continuity/config.yaml` is not a decision: it is named as a settings file."""
    config = project / ".continuity/config.yaml"
    config.parent.mkdir(exist_ok=True)
    with config.open("a", encoding="utf-8") as f:
        f.write("chars_per_token: 4\nchars_per_token: 5\n")
    proc = gitmem(project, "list")
    assert f"{HEADLINE}; 1 settings file has errors;" in proc.stderr
    assert ".continuity/config.yaml:" in proc.stderr and "duplicate key" in proc.stderr
    start = session_start(project, "s3")
    assert "so gitmem does not apply those decisions or its settings as written" in start


def test_a_settings_files_bad_source_is_named_at_its_own_line(repo: Path) -> None:
    """Each item of `sources:` that is not `path: DIR` is named at its line; before session
    57 every one was named at the line of the `sources:` key."""
    write(repo, ".continuity/config.yaml", "sources:\n  - path: docs/adr\n  - 42\n  - {path: [x]}\n")
    lint = gitmem(repo, "lint")
    assert ".continuity/config.yaml:3: sources[1]: expected `path: DIR`" in lint.stdout
    assert ".continuity/config.yaml:4: sources[2]: expected `path: DIR`" in lint.stdout


def test_a_settings_file_nested_too_deeply(project: Path) -> None:
    """Brackets nested thousands deep in `.continuity/config.yaml`: before session 48 a
    traceback from every command (the YAML reader recurses), after ~5 s a read. Now it is
    named as a settings file with errors, at once, and the records load."""
    config = project / ".continuity/config.yaml"
    config.parent.mkdir(exist_ok=True)
    with config.open("a", encoding="utf-8") as f:
        f.write("capture_redact: " + "[" * 3000 + "]" * 3000 + "\n")
    line = len(config.read_text(encoding="utf-8").splitlines())
    proc = gitmem(project, "list")
    assert proc.returncode == 0 and "Money is integer cents" in proc.stdout, proc.stderr
    said = f".continuity/config.yaml:{line}: capture_redact: nested too deeply to read"
    assert said in proc.stderr


def test_a_file_saved_in_another_encoding(repo: Path) -> None:
    """A byte that is not UTF-8 (an editor that saved Windows-1252) is named by line and
    column. In `.continuity/config.yaml` it crashed every command with a traceback, and the
    session-start hook failed open with nothing for the agent: no decision at all."""
    write(repo, "billing/charge.py", "x = 1\n")
    decision(repo, "0001-money.md", "Money is integer cents", globs=["billing/**"])
    record = repo / ".continuity/decisions/0002-cafe.md"
    record.write_bytes(b"---\ntitle: Caf\xe9 names\nstatus: accepted\n---\n\nWe say caf\xe9.\n")
    config = repo / ".continuity/config.yaml"
    config.parent.mkdir(exist_ok=True)
    config.write_bytes(b"# settings\n# r\xe9sum\xe9 of what we use\nchars_per_token: 4\n")
    commit_all(repo, "decisions")

    listed = gitmem(repo, "list")
    assert listed.returncode == 0, listed.stderr
    assert "D-0001" in listed.stdout and "Traceback" not in listed.stderr
    assert ".continuity/config.yaml:2: config: cannot read: not UTF-8: byte 0xe9 at column 4" in (
        listed.stderr
    )
    assert ".continuity/decisions/0002-cafe.md:2: file: cannot read: not UTF-8: byte 0xe9" in (
        listed.stderr
    )
    lint = gitmem(repo, "lint")
    assert lint.returncode == 1 and "Traceback" not in lint.stderr
    assert ".continuity/config.yaml:2:" in lint.stdout + lint.stderr
    init = gitmem(repo, "init")
    assert "Traceback" not in init.stderr

    start = session_start(repo, "enc")
    assert (
        "Decided so far: Money is integer cents" in start
        and ".continuity/config.yaml:2: config: cannot read" in start
    )


def test_install_names_a_settings_file_in_another_encoding(repo: Path) -> None:
    settings = repo / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{\n  "model": "opus",\n  "note": "caf\xe9"\n}\n')
    done = gitmem(repo, "install", "claude")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert f"{settings}:3: not UTF-8: byte 0xe9 at column 15" in done.stderr
    assert "nothing was changed" in done.stderr
    assert settings.read_bytes().endswith(b'"caf\xe9"\n}\n')


def test_superseding_keeps_a_records_line_endings(repo: Path) -> None:
    old = repo / ".continuity/decisions/0001-old.md"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"---\r\ntitle: Old way\r\nstatus: accepted\r\n---\r\n\r\nWe do it so.\r\n")
    done = gitmem(repo, "new", "New way", "--status", "accepted", "--supersedes", "D-0001")
    assert done.returncode == 0, done.stderr
    assert old.read_bytes() == (
        b"---\r\ntitle: Old way\r\nstatus: superseded\r\n---\r\n\r\nWe do it so.\r\n"
    )


def test_a_record_left_in_merge_conflict(project: Path) -> None:
    """Two branches changed the money decision's status; the merge leaves git's conflict
    markers in its front matter. The record is named with the conflict's lines (its YAML
    error only follows from it), and `gitmem check` stops the commit that would record it
    so. Until then it is read as its side above `=======`: the agent resolving the merge,
    in the very files the decision governs, still gets it (before session 31 it was left
    out). A conflict in a record's body is named and read the same way."""
    from conftest import git

    record = project / ".continuity/decisions/0001-money.md"
    git(project, "checkout", "-q", "-b", "theirs")
    record.write_text(record.read_text().replace("status: accepted", "status: deprecated"))
    commit_all(project, "deprecate")
    git(project, "checkout", "-q", "-")
    record.write_text(record.read_text().replace("status: accepted", "status: proposed"))
    commit_all(project, "propose")
    merge = subprocess.run(["git", "merge", "-q", "theirs"], cwd=project, capture_output=True)
    assert merge.returncode == 1 and "<<<<<<<" in record.read_text()  # a real conflict
    where = ".continuity/decisions/0001-money.md:3: merge-conflict: unresolved merge conflict"
    lint = gitmem(project, "lint")
    assert lint.returncode == 1 and f"{where}, lines 3-7" in lint.stdout, lint.stdout
    assert "0001-money.md:4: front-matter" not in lint.stdout
    listed = gitmem(project, "list")
    assert "D-0001\tproposed\t" in listed.stdout and where in listed.stderr  # HEAD's side
    assert f"{where}, lines 3-7 (read as the side above `=======` until resolved)" in lint.stdout
    assert "loaded in part" in listed.stderr
    read = {"session_id": "m1", "cwd": str(project), "hook_event_name": "PreToolUse",
            "tool_name": "Read", "tool_use_id": "t1",
            "tool_input": {"file_path": str(project / "billing/charge.py")}}  # fmt: skip
    told = context(project, "pre-tool", read)
    assert "D-0001 (proposed" in told and "Money is integer cents" in told, told
    git(project, "add", "-A")
    check = gitmem(project, "check", "--staged")
    assert check.returncode == 1 and where in check.stdout + check.stderr
    git(project, "merge", "--abort")
    text = record.read_text().replace(
        "We do the thing.\n", "<<<<<<< HEAD\nWe do the thing.\n=======\nWe do it.\n>>>>>>> x\n"
    )
    record.write_text(text)
    listed = gitmem(project, "list")
    assert "Money is integer cents" in listed.stdout
    assert "merge-conflict: unresolved merge conflict, lines 10-14" in listed.stderr
    assert "loaded in part" in listed.stderr
    shown = gitmem(project, "show", "D-0001")
    assert "We do the thing." in shown.stdout and "We do it." not in shown.stdout
    assert "<<<<<<<" not in shown.stdout and ">>>>>>>" not in shown.stdout


def alias_bomb(levels: int = 9) -> str:
    """Front matter in which nine anchors of nine aliases each stand for 9**9 values: a
    dozen lines, read as plain values, that no machine finishes."""
    lines = ["---", "title: Aliases", "status: accepted", 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join([*lines, f"globs: *a{levels - 1}", "---", "## Decision", "", "Bomb.", ""])


def test_front_matter_that_yaml_aliases_make_endless(project: Path) -> None:
    """YAML aliases let a few lines stand for billions of values, or a list hold itself.
    Before session 48 the first took `gitmem lint`, `list` and the hooks' table refresh
    minutes of CPU (never finished here), and the second crashed them (RecursionError), as
    did brackets nested thousands deep, so that no record loaded. Now such a record is left out, or loads in part, with file,
    line and key, and the others load; an edit's hook answers at once."""
    write(project, ".continuity/decisions/0003-bomb.md", alias_bomb())
    write(
        project,
        ".continuity/decisions/0004-loop.md",
        "---\ntitle: Loop\nstatus: accepted\ntags: &t [money, *t]\n---\nBody.\n",
    )
    deep = "[" * 3000 + "]" * 3000  # the YAML reader recurses: it crashed the same way
    write(project, ".continuity/decisions/0005-deep.md", f"---\ntitle: Deep\nglobs: {deep}\n---\n")
    run = {"cwd": project, "capture_output": True, "text": True, "timeout": 30}
    lint = subprocess.run([str(GITMEM), "lint"], **run)  # type: ignore[call-overload]
    assert lint.returncode == 1
    said = "expands to more than 10,000 values through YAML aliases, or holds itself"
    assert f".continuity/decisions/0003-bomb.md:7: a3: {said}" in lint.stdout
    assert ".continuity/decisions/0004-loop.md:4: tags: item 2: expected a string" in lint.stdout
    assert ".continuity/decisions/0005-deep.md:3: globs: nested too deeply to read" in lint.stdout
    listed = subprocess.run([str(GITMEM), "list"], **run)  # type: ignore[call-overload]
    assert "Money is integer cents" in listed.stdout and "Loop" in listed.stdout
    assert "Aliases" not in listed.stdout and "0003-bomb.md:7" in listed.stderr
    edit = {"file_path": str(project / "billing/charge.py"), "old_string": "x", "new_string": "y"}
    payload = {"session_id": "bomb", "cwd": str(project), "tool_name": "Edit", "tool_input": edit}
    assert "Money is integer cents" in context(project, "pre-tool", payload)


def test_a_record_linked_out_of_the_repository_is_not_read(repo: Path, tmp_path: Path) -> None:
    """A symbolic link is a file git commits: a record linked to a secret outside the
    work tree (in a pull request, a cloned repository) had its text handed to the agent
    and from there to the model's provider; one linked to /dev/zero read until memory ran
    out. Links within the work tree are read (since session 52)."""
    secret = tmp_path / "credentials"
    secret.write_text("aws_access_key_id = AKIASECRETKEY\n")
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "docs/decided.md", "---\ntitle: Refunds post to the ledger\n---\nLedger.\n")
    decision(repo, "0001-money.md", "Money is integer cents", globs=["billing/**"])
    records = repo / ".continuity/decisions"
    (records / "0002-notes.md").symlink_to(secret)
    (records / "0003-relative.md").symlink_to(f"../../../{tmp_path.name}/credentials")
    (records / "0004-inside.md").symlink_to("../../docs/decided.md")
    links = ["0002-notes.md", "0003-relative.md"]
    if Path("/dev/zero").exists():
        (records / "0005-zero.md").symlink_to("/dev/zero")
        links.append("0005-zero.md")
    # an ADR folder named in config.yaml that climbs out of the work tree
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/0001-keys.md").write_text("# 1. Keys\n\nAKIASECRETKEY\n")
    write(repo, ".continuity/config.yaml", "sources:\n  - path: ../elsewhere\n")
    commit_all(repo, "decisions")

    lint = gitmem(repo, "lint")
    assert lint.returncode == 1
    for name in links:
        said = f".continuity/decisions/{name}:1: file: a symbolic link out of the repository"
        assert said in lint.stdout, lint.stdout
    assert "../elsewhere/0001-keys.md:1: file: outside the repository: not read" in lint.stdout
    listed = gitmem(repo, "list", "--json")
    assert [r["title"] for r in json.loads(listed.stdout)] == [
        "Money is integer cents",
        "Refunds post to the ledger",  # the link within the work tree
    ]
    told = session_start(repo, "s1") + context(
        repo,
        "prompt",
        {"session_id": "s1", "cwd": str(repo), "prompt": "where is the aws access key id?"},
    )
    assert "Money is integer cents" in told
    assert "AKIA" not in told
    assert "AKIA" not in gitmem(repo, "search", "aws access key id", "--no-daemon").stdout
