"""`gitmem new --in DIR`: the next ADR of a log read in place, written as the log's newest
record is (name, heading label, front matter or Status section). Real repositories, the
installed `gitmem`."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from pathlib import Path

import preload
import pytest
from conftest import SANDBOX_HOME, commit_all, git, write
from conftest import run_gitmem as gitmem

from gitmem import store

pytestmark = [
    pytest.mark.skipif(shutil.which("gitmem") is None, reason="gitmem is not installed"),
    pytest.mark.usefixtures("no_model"),
]
TODAY = dt.date.today().isoformat()


def initialised(repo: Path) -> None:
    commit_all(repo, "log")
    done = gitmem(repo, "init")
    assert done.returncode == 0, done.stderr


def new(repo: Path, *args: str) -> str:
    done = gitmem(repo, "new", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_adr_tools_log_gets_its_next_record(repo: Path) -> None:
    write(repo, "src/billing/invoice.py", "")
    write(repo, "doc/adr/0001-record-architecture-decisions.md",
          "# 1. Record architecture decisions\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n")  # fmt: skip
    write(repo, "doc/adr/0002-use-postgres.md",
          "# 2. Use Postgres\n\nDate: 2020-02-01\n\n## Status\n\nAccepted\n\n"
          "## Decision\n\nStorage is PostgreSQL.\n")  # fmt: skip
    initialised(repo)
    # the first run's next steps point at the log, not at a second series beside it
    assert 'gitmem new "TITLE" --in doc/adr' in _first_run(repo)

    rel = new(repo, "Use CockroachDB", "--in", "doc/adr", "--glob", "src/billing/**",
              "--status", "accepted", "--supersedes", "ADR-0002")  # fmt: skip
    assert rel == "doc/adr/0003-use-cockroachdb.md"
    text = (repo / rel).read_text()
    assert text.startswith(
        f"# 3. Use CockroachDB\n\nDate: {TODAY}\n\n## Status\n\nAccepted\n\n"
        "Supersedes [2. Use Postgres](0002-use-postgres.md)\n\n## Context\n"
    )
    assert text.count("## Status") == 1  # the template's own Status section left out
    imported = (repo / ".continuity/imported.yaml").read_text()
    assert f"{rel}:\n  globs: [src/billing/**]\n  inferred: false" in imported

    catalog = store.load(repo)
    made = catalog.by_id["ADR-0003"]
    assert (made.title, made.status, made.globs, made.date) == (
        "Use CockroachDB",
        "accepted",
        ("src/billing/**",),
        TODAY,
    )
    assert made.supersedes == ("ADR-0002",)
    replaced = catalog.by_id["ADR-0002"]
    assert (replaced.superseded_by, replaced.status) == (("ADR-0003",), "superseded")
    # as `adr new -s 2` does, the replaced record's Status section says so
    assert (repo / "doc/adr/0002-use-postgres.md").read_text() == (
        "# 2. Use Postgres\n\nDate: 2020-02-01\n\n## Status\n\n"
        "Superseded by [3. Use CockroachDB](0003-use-cockroachdb.md)\n\n"
        "## Decision\n\nStorage is PostgreSQL.\n"
    )
    lint = gitmem(repo, "lint").stdout
    assert "status:" not in lint
    assert f"{rel}:" in lint and "still the template's text" in lint  # until filled in

    # a status written in a sentence is left as written: lint names the line to change
    write(repo, "doc/adr/0001-record-architecture-decisions.md",
          "# 1. Record architecture decisions\n\n## Status\n\nAccepted by the team.\n")  # fmt: skip
    new(repo, "Record decisions with gitmem", "--in", "doc/adr", "--status", "accepted",
        "--supersedes", "1")  # fmt: skip
    lint = gitmem(repo, "lint").stdout
    assert "doc/adr/0001-record-architecture-decisions.md:3: status: warning: says accepted" in lint
    # a status word as a log writes it ("Implemented", or Portuguese under `## Estado`) is
    # one word too (since session 74: before, lint named the line instead)
    write(repo, "doc/adr/0001-record-architecture-decisions.md",
          "# 1. Registrar decisões\n\n## Estado\n\nAceito\n")  # fmt: skip
    made = new(repo, "Outra", "--in", "doc/adr", "--status", "accepted", "--supersedes", "1")
    assert (repo / "doc/adr/0001-record-architecture-decisions.md").read_text() == (
        f"# 1. Registrar decisões\n\n## Estado\n\nSuperseded by [5. Outra]({made[8:]})\n"
    )
    assert store.load(repo).by_id["ADR-0001"].status == "superseded"


def _first_run(repo: Path) -> str:
    """`gitmem init`'s next steps, as a fresh repository's first run prints them."""
    fresh = repo.parent / "fresh"
    shutil.copytree(repo / "doc", fresh / "doc")
    git(fresh, "init", "-q")
    return gitmem(fresh, "init").stderr


def test_a_log_whose_headings_carry_a_label_and_padding(repo: Path) -> None:
    folder = "docs/architecture"
    write(repo, f"{folder}/adr-028-fees.md", "# ADR 028: Fees\n\n## Status\n\nAccepted\n")
    write(repo, f"{folder}/adr-029-limits.md", "# ADR 029: Limits\n\n## Status\n\nProposed\n")
    write(repo, f"{folder}/README.md", "# ADRs\n")
    initialised(repo)
    rel = new(repo, "Blob sizes", "--in", f"./{folder}/", "-t", "y")
    assert rel == f"{folder}/adr-030-blob-sizes.md"
    text = (repo / rel).read_text()
    assert text.startswith(f"# ADR 030: Blob sizes\n\nDate: {TODAY}\n\n## Status\n\nProposed\n")
    assert "In the context of" in text
    made = store.load(repo).by_id["adr-030-blob-sizes"]
    assert (made.title, made.status) == ("Blob sizes", "proposed")


def test_a_log_named_by_date_gets_todays_name(repo: Path) -> None:
    """log4brains names its records by date (`20210304-use-x.md`), not by number."""
    for name, title in [("20210304-use-postgres.md", "Use Postgres"),
                        ("20220506-use-kafka.md", "Use Kafka")]:  # fmt: skip
        write(repo, f"docs/adr/{name}", f"# {title}\n\n- Status: accepted\n\n## Decision\n\nx\n")
    initialised(repo)
    stamp = TODAY.replace("-", "")
    assert new(repo, "Use Pulsar", "--in", "docs/adr") == f"docs/adr/{stamp}-use-pulsar.md"
    assert new(repo, "Use Pulsar", "--in", "docs/adr") == f"docs/adr/{stamp}-use-pulsar-2.md"
    made = store.load(repo).by_id[f"{stamp}-use-pulsar"]
    assert (made.title, made.date, made.status) == ("Use Pulsar", TODAY, "proposed")


def test_a_log_with_front_matter_is_written_with_it(repo: Path) -> None:
    write(repo, "docs/decisions/0001-use-madr.md",
          "---\nstatus: accepted\ndate: 2022-01-01\n---\n# Use MADR\n\nWe use MADR.\n")  # fmt: skip
    write(repo, "docs/decisions/0002-use-kafka.md",
          "---\nstatus: accepted\ndate: 2022-02-01\n---\n# Use Kafka\n\nEvents go to Kafka.\n")  # fmt: skip
    initialised(repo)
    rel = new(repo, "Use Pulsar", "--in", "docs/decisions", "-t", "madr", "--tag", "events",
              "--severity", "warning", "--status", "accepted", "--supersedes", "2")  # fmt: skip
    assert rel == "docs/decisions/0003-use-pulsar.md"
    assert (
        (repo / rel)
        .read_text()
        .startswith(
            f'---\nstatus: accepted\ndate: {TODAY}\nseverity: warning\ntags: ["events"]\n'
            'supersedes: ["ADR-0002"]\n---\n\n# Use Pulsar\n\n## Context and Problem Statement\n'
        )
    )
    catalog = store.load(repo)
    made = catalog.by_id["ADR-0003"]
    assert (made.severity, made.tags, made.supersedes) == ("warning", ("events",), ("ADR-0002",))
    # the replaced record keeps its status in front matter: marked there
    assert "status: superseded\n" in (repo / "docs/decisions/0002-use-kafka.md").read_text()
    assert catalog.by_id["ADR-0002"].effective_status == "superseded"


def test_what_new_in_cannot_do_is_said_and_nothing_is_written(repo: Path) -> None:
    write(repo, "doc/adr/0001-x.md", "# 1. X\n\n## Status\n\nAccepted\n")
    write(repo, "doc/adr/0002-y.md", "# 2. Y\n\n## Status\n\nAccepted\n")
    write(repo, "docs/rst/0001-a.rst", "1. A\n====\n\n:Status: Accepted\n")
    write(repo, "docs/rst/0002-b.rst", "2. B\n====\n\n:Status: Accepted\n")
    write(repo, "notes/0001-z.md", "# 1. Z\n")
    commit_all(repo, "logs")
    assert gitmem(repo, "init", "--adr-dir", "docs/rst").returncode == 0
    before = sorted(
        p.relative_to(repo).as_posix() for p in repo.rglob("*") if ".git" not in p.parts
    )
    cases = {
        ("--in", "notes"): "--in notes: not an ADR folder gitmem reads (config.yaml's sources:"
        " docs/rst, doc/adr); `gitmem init --adr-dir notes` reads it",
        ("--in", "doc/adr", "--tag", "x"): "--in doc/adr: its records keep no front matter, so"
        " no tags or severity",
        ("--in", "docs/rst"): "--in docs/rst: its records are .rst files and `gitmem new` writes"
        " Markdown",
        ("--in", "doc/adr", "--glob", "src/[x"): "--glob: ",
        ("--in", "doc/adr", "--supersedes", "ADR-0009"): "ADR-0009",
    }
    for args, said in cases.items():
        done = gitmem(repo, "new", "Title", *args)
        assert done.returncode != 0 and said in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    after = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if ".git" not in p.parts)
    assert after == before


@pytest.mark.parametrize(
    ("where", "no_locks"),
    [(".continuity/decisions", False), ("doc/adr", False), (".continuity/decisions", True)],
)
def test_records_written_at_once_each_get_a_number_of_their_own(
    repo: Path, where: str, no_locks: bool, tmp_path: Path
) -> None:
    """Before session 50, `gitmem new` read the highest number and created the next file
    with `O_EXCL`, which guards one file name: two titles are two names, so writers at
    once (two agents' `propose_decision`, a script) could both take a number. Six run
    together gave two records `0010`. The folder is now locked while a writer reads and
    takes its number. Many records already in the folder make each read slower, so that
    the writers' reads overlap without the lock. Where the file system has no locks
    (``no_locks``, tests/preload.py: an NFS mount without its lock daemon) the writers ran
    unlocked until session 59; a stand-in lock guards them now."""
    env = {**os.environ, "HOME": SANDBOX_HOME}
    if no_locks:
        if not preload.POSSIBLE:
            pytest.skip("needs gcc, and Linux")
        shim = preload.build(tmp_path, preload.NO_LOCKS)
        env.update(LD_PRELOAD=str(shim), NOLOCK_UNDER=str(repo))
    for n in range(1, 301):
        write(
            repo,
            f"{where}/{n:04d}-earlier-{n}.md",
            f"# {n}. Earlier {n}\n\n## Status\n\nAccepted\n",
        )
    initialised(repo)
    found = shutil.which("gitmem")
    assert found
    args = ["--in", where] if where == "doc/adr" else []
    writers = [
        subprocess.Popen([found, "new", f"Written at once {i}", *args], cwd=repo, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(8)
    ]  # fmt: skip
    made = []
    for w in writers:
        out, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
        made.append(out.strip())
    numbers = sorted(int(Path(rel).name[:4]) for rel in made)
    assert numbers == list(range(301, 309)), made
    assert len({p.name[:4] for p in (repo / where).glob("*.md")}) == 308
