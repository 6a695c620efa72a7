"""new / list / show / lint / demo, help text everywhere, and the built wheel."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import commit_all, decision, write

from gitmem import store
from gitmem.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
GITMEM = shutil.which("gitmem")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def all_commands() -> list[str]:
    return cli.list_commands(click.Context(cli))


@pytest.mark.parametrize("name", all_commands())
def test_every_command_has_help(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.name == name
    assert command.help and len(command.help.strip()) > 20, name
    code, out, _ = run(name, "--help")
    assert code == 0 and "Usage:" in out


@pytest.mark.parametrize("args", [["check", "--staged"], ["trailers", "MSG"], ["why", "a.py"],
                                  ["sessions"], ["list"],
                                  ["index", "--no-download", "--quiet-refresh"]])  # fmt: skip
def test_a_command_loads_only_its_own_modules(repo: Path, args: list[str]) -> None:
    """Every commit runs `check --staged` and `trailers` as fresh processes; before session
    33 every command imported every other's modules (numpy, the retriever, the daemon
    client and doctor: ~145 ms). Every checkout and merge runs `index --quiet-refresh`,
    which only starts the refresh in the background: before session 35 it imported the
    indexer, numpy included, to do so."""
    write(repo, "MSG", "subject\n")
    code = (
        "import sys\n"
        "from gitmem.cli.main import run\n"
        f"status = run({args!r})\n"
        "heavy = {'numpy', 'gitmem.doctor', 'gitmem.daemon', 'gitmem.retrieve', 'gitmem.index'}\n"
        "print(status, sorted(m for m in sys.modules if m in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "0 []"


@pytest.mark.parametrize("template", ["adr", "y", "madr"])
def test_new_writes_a_valid_record_from_each_template(repo: Path, template: str) -> None:
    assert run("init")[0] == 0
    write(repo, "billing/a.py", "")
    code, out, err = run(
        "new",
        "Use integer money",
        "-t",
        template,
        "-g",
        "billing/**",
        "--tag",
        "billing",
        "--severity",
        "critical",
    )
    assert code == 0, err
    assert out.strip() == ".continuity/decisions/0001-use-integer-money.md"
    code, out, _ = run("lint")
    assert code == 0, out  # a warning only: the template's text is still to be replaced
    assert "summary: warning: the decision is still the template's text" in out
    d = store.load(repo).by_id["D-0001"]
    assert (
        d.title == "Use integer money" and d.globs == ("billing/**",) and d.severity == "critical"
    )
    assert d.status == "proposed" and d.tags == ("billing",)
    assert d.summary == ""  # agents get the title, not the template's guidance


def test_new_numbers_and_supersedes(repo: Path) -> None:
    run("init")
    decision(repo, "0007-old.md", "Old")
    code, out, _ = run(
        "new", 'Replacement: quoted "title" #1', "--supersedes", "7", "--status", "accepted"
    )
    assert code == 0
    assert out.strip() == ".continuity/decisions/0008-replacement-quoted-title-1.md"
    by = store.load(repo).by_id
    assert by["D-0008"].title == 'Replacement: quoted "title" #1'
    assert by["D-0008"].supersedes == ("D-0007",)
    assert by["D-0007"].status == "superseded" and by["D-0007"].superseded_by == ("D-0008",)
    assert run("lint")[0] == 0


def test_a_title_and_a_query_may_be_given_unquoted(repo: Path, no_model: None) -> None:
    """As adr-tools takes a title (`adr new Use PostgreSQL`); before session 44 both were
    "Got unexpected extra argument"."""
    code, out, err = run("new", "Use", "integer", "money", "-g", "billing/**")
    assert code == 0, err
    assert out.strip() == ".continuity/decisions/0001-use-integer-money.md"
    assert store.load(repo).by_id["D-0001"].title == "Use integer money"
    code, out, err = run("search", "integer", "money", "--no-daemon", "--json")
    assert code == 0, err
    assert [h["id"] for h in json.loads(out)["hits"]] == ["D-0001"]
    assert run("search", "integer money", "--no-daemon", "--json")[1] == out
    code, _, err = run("new")
    assert code == 2 and "Missing argument 'TITLE...'" in err


def test_a_title_is_one_line(repo: Path) -> None:
    """A title pasted with its line break: before session 49 the heading's second line
    became body text, and the front matter's title held a `\\n`."""
    code, out, err = run("new", "Use integer\n  money ", "-t", "madr")
    assert code == 0, err
    path = repo / out.strip()
    assert path.name == "0001-use-integer-money.md"
    assert store.load(repo).by_id["D-0001"].title == "Use integer money"
    assert "# Use integer money\n" in path.read_text()
    write(repo, "docs/adr/0001-record.md", "# 1. Record\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n")
    assert run("init", "--adr-dir", "docs/adr")[0] == 0
    code, out, err = run("new", "--in", "docs/adr", "Split\tthe\r\nbilling  service")
    assert code == 0, err
    assert out.strip() == "docs/adr/0002-split-the-billing-service.md"
    assert "# 2. Split the billing service\n" in (repo / out.strip()).read_text()
    code, _, err = run("new", " \n\t")
    assert code == 1 and "the title is empty" in err


def test_new_rejects_bad_input(repo: Path) -> None:
    code, _, err = run("new", "X", "--glob", "a/[b")
    assert code == 1 and "--glob" in err
    code, _, err = run("new", "X", "--supersedes", "D-0999")
    assert code == 1 and "no decision 'D-0999'" in err
    code, _, err = run("new", "X", "--severity", "huge")
    assert code == 2  # usage error from click


def test_list_and_show(repo: Path) -> None:
    decision(repo, "0001-a.md", "Alpha", globs=["src/**"], extra="severity: warning\ntags: [x]\n")
    decision(repo, "0002-b.md", "Beta", extra="supersedes: [D-0001]\n")
    code, out, _ = run("list", "--json")
    data = json.loads(out)
    assert [(d["id"], d["status"]) for d in data] == [
        ("D-0001", "superseded"),
        ("D-0002", "accepted"),
    ]
    code, out, _ = run("list", "--status", "accepted")
    assert "Beta" in out and "Alpha" not in out
    # piped: a record a line, tab-separated (a table would fold at 80 columns)
    code, out, _ = run("list")
    assert out.splitlines() == [
        "D-0001\tsuperseded\twarning\tAlpha\tsrc/**",
        "D-0002\taccepted\tinfo\tBeta\t-",
    ]
    code, out, _ = run("show", "d-0001", "--json")
    shown = json.loads(out)
    assert shown["id"] == "D-0001" and shown["superseded_by"] == ["D-0002"]
    assert shown["declared_status"] == "accepted" and shown["status"] == "superseded"
    assert "We do the thing." in shown["body"]
    code, out, _ = run("show", "1")
    assert code == 0 and "superseded by: D-0002" in out
    code, _, err = run("show", "nope")
    assert code == 1 and "gitmem list" in err


def test_lint_format_exit_codes_and_unmatched_globs(repo: Path) -> None:
    write(repo, "src/a.py", "")
    decision(repo, "0001-ok.md", "Ok", globs=["src/**", "gone/**"])
    commit_all(repo)
    code, out, err = run("lint")
    assert code == 0
    assert (
        out.strip()
        == ".continuity/decisions/0001-ok.md:4: globs: warning: 'gone/**' matches no file"
    )
    assert "1 record checked: 0 errors, 1 warning" in err
    write(repo, ".continuity/decisions/0002-bad.md", "---\ntitle: Bad\nstatus: wat\n---\nx\n")
    code, out, _ = run("lint")
    assert code == 1
    assert ".continuity/decisions/0002-bad.md:3: status: 'wat' is not one of" in out
    code, out, _ = run("lint", "--json")
    data = json.loads(out)
    assert code == 1 and data["errors"] == 1 and data["checked"] == 2
    assert {"file", "line", "key", "message", "level"} <= set(data["problems"][0])


def test_lint_warns_of_globs_that_only_exclude(repo: Path) -> None:
    """The last matching glob wins, so a decision whose globs are all `!x` governs no path
    at all: it reached no agent, and lint said nothing."""
    write(repo, "src/a.py", "")
    write(repo, "src/legacy/b.py", "")
    decision(repo, "0001-not-legacy.md", "Not legacy", globs=["!src/legacy/**"])
    decision(repo, "0002-ok.md", "Ok", globs=["src/**", "!src/legacy/**"])
    commit_all(repo)
    code, out, _ = run("lint")
    assert code == 0
    assert out.strip() == (
        ".continuity/decisions/0001-not-legacy.md:4: globs: warning: only exclusions "
        "(!src/legacy/**): the decision governs no path; name what it governs first "
        "(`src/**`, then `!src/legacy/**`)"
    )


@pytest.mark.skipif(GITMEM is None, reason="gitmem console script not installed")
def test_demo_via_console_script(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    # onnxruntime (not gitmem) writes a device id under ~/.cache/Microsoft when the demo
    # loads the embedding model: a separate HOME keeps the guard about gitmem's own writes.
    sandbox = tmp_path / "ort-home"
    sandbox.mkdir()
    # a user's git configuration the quick start must survive: a company's hooks folder
    # whose pre-commit fails here, and signing with a key that is not there (before
    # session 27 the demo failed on its first commit)
    hooks = tmp_path / "company-hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\necho 'lint failed' >&2\nexit 1\n")
    (hooks / "pre-commit").chmod(0o755)
    (sandbox / ".gitconfig").write_text(
        f"[core]\n\thooksPath = {hooks}\n[commit]\n\tgpgsign = true\n"
        "[user]\n\tsigningkey = NO-SUCH-KEY\n"
    )
    env = {**os.environ, "HOME": str(sandbox)}
    proc = subprocess.run(
        [str(GITMEM), "demo", str(target)], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "reading ADRs in place from docs/adr/" in out
    assert "D-0004 (superseded, info) via paydash/api/**" in out and "superseded by D-0005" in out
    assert "ADR-0002 (accepted, info) via paydash/worker/webhooks.py" in out
    assert "0 errors" in out
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=target, capture_output=True, text=True
    )
    assert status.stdout == ""  # the demo commits its records; derived state stays in .git
    head = subprocess.run(["git", "symbolic-ref", "HEAD"], cwd=target, capture_output=True, text=True)
    assert head.stdout == "refs/heads/main\n"  # whatever init.defaultBranch says, and without
    # `init -b` (git 2.28+), which failed the demo on older git (Ubuntu 20.04: 2.25)
    assert "gitmem search" in out and "D-0002 (accepted, critical)" in out
    assert "CLAUDE.md:5: [Layout] path: `paydash/billing/refunds.py` does not exist" in out
    assert "cites D-0004" in out and "`make migrate`: no Makefile" in out
    assert "CLAUDE.md: 7 references checked, 3 stale" in out
    # one agent session through the real hooks: context given, a critical rule's denial,
    # the session committed to its ref and named by `why` (since session 33)
    assert "session starts → the agent is given" in out and "D-0002 (accepted, critical)" in out
    assert "→ denied; the agent is told:" in out
    assert "Project decision D-0002 (critical) forbids this change to paydash/billing/refund.py" in out
    assert "  1 prompt  1 file edited" in out
    assert "  Decisions: D-0005\n  Gitmem-Session: " in out  # the agent's commit, linked
    assert 'edited in session ' in out and '"Add a partial-refund endpoint to paydash/api/routes.py"' in out
    refs = subprocess.run(["git", "for-each-ref", "refs/gitmem/sessions"], cwd=target,
                          capture_output=True, text=True).stdout  # fmt: skip
    assert refs.rstrip().endswith("/demo-session")
    assert (target / "paydash/api/routes.py").read_text().count("/refunds/partial") == 1
    assert "float(" not in (target / "paydash/billing/refund.py").read_text()
    again = subprocess.run(
        [str(GITMEM), "demo", str(target)], capture_output=True, text=True, env=env
    )
    assert again.returncode == 1 and "not empty" in again.stderr


@pytest.mark.skipif(importlib.util.find_spec("hatchling") is None, reason="hatchling not installed")
def test_wheel_ships_templates_and_hooks(tmp_path: Path) -> None:
    pip_home = tmp_path / "pip-home"  # pip and its build tools write caches under $HOME
    pip_home.mkdir()
    env = {**os.environ, "HOME": str(pip_home), "PIP_NO_CACHE_DIR": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    (wheel,) = tmp_path.glob("gitmem-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for template in ("adr.md", "y-statement.md", "madr.md"):
        assert f"gitmem/_data/templates/{template}" in names
    assert "gitmem/_data/hooks/README.md" in names
