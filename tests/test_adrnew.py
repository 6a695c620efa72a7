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


ADR_TOOLS_PT = (
    "# NUMBER. TITLE\n\nData: DATE\n\n## Status\n\nSTATUS\n\n## Contexto\n\n"
    "A questão que motiva esta decisão.\n\n## Decisão\n\nA mudança que faremos.\n"
)


def test_a_log_with_its_own_adr_tools_template_gets_its_language(repo: Path) -> None:
    """adr-tools' `templates/template.md` (here a Portuguese one, as adr-tools-pt-br ships
    it): filled in as `adr new` fills it, with the status as the log's records write it.
    Before session 75 gitmem's English Nygard template was written into such a log."""
    write(repo, "doc/adr/templates/template.md", ADR_TOOLS_PT)
    write(repo, "doc/adr/0001-registrar-decisoes.md",
          "# 1. Registrar decisões\n\nData: 2024-01-02\n\n## Status\n\nAceito\n\n"
          "## Decisão\n\nUsaremos ADRs.\n")  # fmt: skip
    initialised(repo)
    rel = new(repo, "Usar Redis", "--in", "doc/adr", "--status", "accepted",
              "--supersedes", "ADR-0001")  # fmt: skip
    assert (repo / rel).read_text() == (
        f"# 2. Usar Redis\n\nData: {TODAY}\n\n## Status\n\nAceito\n\n"
        "Supersedes [1. Registrar decisões](0001-registrar-decisoes.md)\n\n"
        "## Contexto\n\nA questão que motiva esta decisão.\n\n"
        "## Decisão\n\nA mudança que faremos.\n"
    )
    # no word of the log's for it: gitmem's
    rel = new(repo, "Usar Kafka", "--in", "doc/adr")
    assert "## Status\n\nProposed\n\n## Contexto" in (repo / rel).read_text()
    catalog = store.load(repo)
    assert [(d.id, d.status, d.date) for d in catalog.decisions] == [
        ("ADR-0001", "superseded", "2024-01-02"),
        ("ADR-0002", "accepted", TODAY),
        ("ADR-0003", "proposed", TODAY),
    ]
    assert catalog.by_id["ADR-0002"].supersedes == ("ADR-0001",)
    # gitmem's own template when asked for
    rel = new(repo, "Use S3", "--in", "doc/adr", "--template", "adr")
    assert "## Context\n" in (repo / rel).read_text()


def test_a_log_in_another_language_without_a_template_gets_its_headings(repo: Path) -> None:
    """No template, but records in Chinese (here as phodal/adr writes them, with the status
    choices listed): the next record has the newest one's headings and key lines, their
    text left out, and the status in the word the choices offer. Before session 75 it got
    gitmem's English headings. An English log keeps gitmem's template (its prompts)."""
    write(repo, "doc/adr/0001-redis.md", (
        "# 1. 使用 Redis\n\n日期: 2019-11-01\n\n## 状态\n\n列表：提议/通过/完成/已弃用/已取代\n\n"
        "2019-11-01 提议\n\n2019-11-03 通过\n\n## 背景\n\n需要缓存。\n\n## 决策\n\n缓存使用 Redis。\n"
    ))  # fmt: skip
    initialised(repo)
    rel = new(repo, "使用 Kafka", "--in", "doc/adr")
    assert (repo / rel).read_text() == (
        f"# 2. 使用 Kafka\n\n日期: {TODAY}\n\n## 状态\n\n提议\n\n## 背景\n\n## 决策\n"
    )
    record = store.load(repo).by_id["ADR-0002"]
    assert (record.status, record.date, record.summary) == ("proposed", TODAY, "")
    rel = new(repo, "使用 Valkey", "--in", "doc/adr", "--status", "accepted")
    assert "## 状态\n\n通过\n\n## 背景" in (repo / rel).read_text()


def test_a_template_that_is_not_utf8_is_named_with_its_line(repo: Path) -> None:
    write(repo, "doc/adr/0001-x.md", "# 1. X\n\n## Status\n\nAccepted\n")
    (repo / "doc/adr/templates").mkdir()
    (repo / "doc/adr/templates/template.md").write_bytes(b"# NUMBER. TITLE\n\n\xff bad\n")
    initialised(repo)
    done = gitmem(repo, "new", "--in", "doc/adr", "Y")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "doc/adr/templates/template.md:3: not UTF-8: byte 0xff" in done.stderr
    assert sorted(p.name for p in (repo / "doc/adr").glob("*.md")) == ["0001-x.md"]


def test_adr_tools_adr_template_setting_is_honoured(repo: Path, tmp_path: Path) -> None:
    """adr-tools reads its user's `ADR_TEMPLATE` before the log's own template; so does
    `gitmem new --in`. One it cannot read is a clear error, and nothing is written."""
    write(repo, "doc/adr/templates/template.md", ADR_TOOLS_PT)
    write(repo, "doc/adr/0001-x.md", "# 1. X\n\n## Status\n\nAccepted\n")
    initialised(repo)
    mine = tmp_path / "mine.md"
    mine.write_text("# NUMBER. TITLE\n\nDate: DATE\n\n## Status\n\nSTATUS\n\n## Why\n\n...\n")
    done = gitmem(repo, "new", "--in", "doc/adr", "Use Y", ADR_TEMPLATE=str(mine))
    assert done.returncode == 0, done.stderr
    assert (repo / done.stdout.strip()).read_text() == (
        f"# 2. Use Y\n\nDate: {TODAY}\n\n## Status\n\nProposed\n\n## Why\n\n...\n"
    )
    done = gitmem(repo, "new", "--in", "doc/adr", "Use Z", ADR_TEMPLATE=str(tmp_path / "no.md"))
    assert done.returncode == 1 and f"ADR_TEMPLATE={tmp_path / 'no.md'}: cannot read" in done.stderr
    assert not list((repo / "doc/adr").glob("0003-*"))


def test_an_empty_log_with_a_template_gets_its_first_record(repo: Path) -> None:
    write(repo, "doc/adr/templates/template.md", ADR_TOOLS_PT)
    write(repo, "doc/adr/README.md", "Decisões.\n")
    commit_all(repo, "log")
    assert gitmem(repo, "init", "--adr-dir", "doc/adr").returncode == 0
    rel = new(repo, "Registrar decisões", "--in", "doc/adr")
    assert rel == "doc/adr/0001-registrar-decisoes.md"
    assert (repo / rel).read_text().startswith(f"# 1. Registrar decisões\n\nData: {TODAY}\n")


MADR_4_TEMPLATE = """---
# These are optional elements. Feel free to remove any of them.
status: {proposed | rejected | accepted | deprecated | … | superseded by [ADR-0005](0005-example.md)}
date: {YYYY-MM-DD when the decision was last updated}
decision-makers: {list everyone involved in the decision}
---
# {short title, representative of solved problem and found solution}

## Context and Problem Statement

{Describe the context and problem statement}

## Decision Outcome

Chosen option: "{title of option 1}", because {justification}.
"""


def test_a_madr_log_gets_a_madr_record_from_its_template(repo: Path) -> None:
    """MADR 3/4's `adr-template.md`: its front matter's placeholders filled (status, date)
    and gitmem's keys added; its other keys and its body left for the writer."""
    write(repo, "docs/decisions/adr-template.md", MADR_4_TEMPLATE)
    write(repo, "docs/decisions/0001-use-madr.md",
          "---\nstatus: accepted\ndate: 2024-01-01\n---\n# Use MADR\n\n"
          "## Decision Outcome\n\nChosen option: MADR.\n")  # fmt: skip
    initialised(repo)
    rel = new(repo, "Use Postgres", "--in", "docs/decisions", "--status", "accepted",
              "--tag", "db", "--severity", "warning", "--supersedes", "ADR-0001")  # fmt: skip
    text = (repo / rel).read_text()
    assert text.startswith(
        "---\n# These are optional elements. Feel free to remove any of them.\n"
        f"status: accepted\ndate: {TODAY}\n"
        "decision-makers: {list everyone involved in the decision}\n"
        'severity: warning\ntags: ["db"]\nsupersedes: ["ADR-0001"]\n---\n'
        "# Use Postgres\n\n## Context and Problem Statement\n"
    )
    catalog = store.load(repo)
    record = catalog.by_id["ADR-0002"]
    assert (record.status, record.severity, record.tags) == ("accepted", "warning", ("db",))
    assert catalog.by_id["ADR-0001"].status == "superseded"
    assert "status: superseded" in (repo / "docs/decisions/0001-use-madr.md").read_text()


LOG4BRAINS_TEMPLATE = """# [short title of solved problem and solution]

- Status: [draft | proposed | rejected | accepted | deprecated | … | superseded by [xxx](yyyymmdd-xxx.md)] <!-- optional -->
- Deciders: [list everyone involved in the decision] <!-- optional -->
- Date: [YYYY-MM-DD when the decision was last updated] <!-- optional -->
- Tags: [space and/or comma separated list of tags] <!-- optional -->

## Context and Problem Statement

[Describe the context and problem statement]
"""


def test_a_log4brains_log_gets_its_status_date_and_tags_lines(repo: Path) -> None:
    """log4brains' `template.md`: the status its placeholder offers, the date, and the
    tags on its `Tags:` line; left unfilled, that placeholder is no tag."""
    write(repo, "docs/adr/template.md", LOG4BRAINS_TEMPLATE)
    write(repo, "docs/adr/20240101-use-log4brains.md",
          "# Use log4brains\n\n- Status: accepted\n- Date: 2024-01-01\n\n## Decision\n\nYes.\n")  # fmt: skip
    initialised(repo)
    rel = new(repo, "Use Docusaurus", "--in", "docs/adr", "--tag", "site", "--tag", "docs",
              "--supersedes", "20240101-use-log4brains")  # fmt: skip
    assert rel == f"docs/adr/{TODAY.replace('-', '')}-use-docusaurus.md"
    text = (repo / rel).read_text()
    assert text.startswith(
        "# Use Docusaurus\n\n- Status: proposed\n"
        "- Supersedes: [Use log4brains](20240101-use-log4brains.md)\n"
        "- Deciders: [list everyone involved in the decision] <!-- optional -->\n"
        f"- Date: {TODAY}\n- Tags: site, docs\n\n## Context and Problem Statement\n"
    )
    record = store.load(repo).by_id[rel.split("/")[-1].removesuffix(".md")]
    assert (record.status, record.tags) == ("proposed", ("site", "docs"))
    assert record.supersedes == ("20240101-use-log4brains",)
    rel = new(repo, "Use Hugo", "--in", "docs/adr")
    assert store.load(repo).by_id[rel.split("/")[-1].removesuffix(".md")].tags == ()


def test_the_adrs_tool_s_custom_template(repo: Path) -> None:
    """The `adrs` tool's (Rust) custom template, named in `adrs.toml`, with its Jinja
    values (`{{ number | pad(4) }}`, `{{ status | lower }}`); its `{% if links %}` block is
    left out (gitmem writes the links)."""
    write(repo, "adrs.toml", 'adr_dir = "decisions"\n\n[templates]\ncustom = "tpl/adr.md"\n')
    write(repo, "tpl/adr.md", (
        "# {{ number }}. {{ title }}\n\n**Date**: {{ date }}\n\n## Status\n\n{{ status }}\n\n"
        "{% if links %}\n## Related\n{% for link in links %}\n* {{ link.kind }}\n{% endfor %}\n"
        "{% endif %}\n## Problem\n\nADR {{ number | pad(4) }} is {{ status | lower }}.\n"
    ))  # fmt: skip
    write(repo, "decisions/README.md", "Our decisions.\n")
    commit_all(repo, "log")
    done = gitmem(repo, "init")
    assert done.returncode == 0 and "decisions" in (repo / ".continuity/config.yaml").read_text()
    rel = new(repo, "Use Rust", "--in", "decisions")
    assert rel == "decisions/0001-use-rust.md"
    assert (repo / rel).read_text() == (
        f"# 1. Use Rust\n\n**Date**: {TODAY}\n\n## Status\n\nProposed\n\n"
        "## Problem\n\nADR 0001 is proposed.\n"
    )


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
        ("--in", "doc/adr", "--tag", "x"): "--in doc/adr: its records keep no front matter nor"
        " a `Tags:` line, so no tags",
        ("--in", "doc/adr", "--severity", "critical"): "--in doc/adr: its records keep no front"
        " matter, so no severity",
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


def test_a_template_s_front_matter_title_gets_the_title() -> None:
    """A template kept for a site (`title: {title}` in its front matter, as Docusaurus and
    Jekyll read it) gets the title there too, quoted for YAML; else gitmem would read the
    placeholder as the record's title."""
    from gitmem import logtemplate

    text = logtemplate.fill(
        "---\ntitle: {title}\nstatus: draft\n---\n# {title}\n\nBody\n",
        heading='Use "X"', number=3, title='Use "X"', status="proposed", said="Proposed",
        today="2026-12-02", meta=[], links=[], tags=[],
    )  # fmt: skip
    assert text == (
        '---\ntitle: "Use \\"X\\""\nstatus: proposed\ndate: 2026-12-02\n---\n# Use "X"\n\nBody\n'
    )
