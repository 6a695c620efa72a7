"""`gitmem init`: create .continuity/, read existing ADR folders in place, infer globs."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import pytest
from click.testing import CliRunner
from conftest import commit_all, run_agent_hook, write

from gitmem import store
from gitmem.cli.main import cli
from gitmem.errors import DecisionNotFoundError


def initialised(repo: Path, message: str) -> store.Catalog:
    """Commit what the test wrote, run `gitmem init`, and load the records it registered."""
    commit_all(repo, message)
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    return store.load(repo)


NYGARD_1 = """# 1. Use PostgreSQL for storage

Date: 2020-03-01

## Status

Superseded by [3. Use CockroachDB](0003-use-cockroachdb.md)

## Context

The `storage/postgres.py` adapter and the `migrations` folder need a database.

## Decision

We will use PostgreSQL through `storage/postgres.py`.
"""
NYGARD_2 = """# 2. Billing service owns invoices

Date: 2020-04-01

## Status

Accepted

## Decision

The billing module (`billing`) owns invoices; `InvoiceWriter` is the only writer.
"""
NYGARD_3 = """# 3. Use CockroachDB

Date: 2021-05-01

## Status

Accepted

Supersedes [1. Use PostgreSQL for storage](0001-use-postgresql-for-storage.md)

## Decision

We move storage to CockroachDB; see storage/cockroach.py.
"""


def governs(globs: tuple[str, ...], path: str) -> bool:
    from gitmem.globs import compile_glob, matches

    pats = [(c.regex, c.negated, c.glob, c.specificity) for c in map(compile_glob, globs)]
    return matches(pats, path) is not None


def make_adr_repo(root: Path, folder: str = "doc/adr") -> None:
    write(root, f"{folder}/0001-use-postgresql-for-storage.md", NYGARD_1)
    write(root, f"{folder}/0002-billing-service-owns-invoices.md", NYGARD_2)
    write(root, f"{folder}/0003-use-cockroachdb.md", NYGARD_3)
    write(root, f"{folder}/README.md", "# ADRs\n")
    write(root, "storage/postgres.py", "")
    write(root, "storage/cockroach.py", "")
    write(root, "migrations/0001.sql", "")
    write(root, "src/billing/invoice_writer.py", "")
    write(root, "src/billing/__init__.py", "")
    commit_all(root, "code and adrs")


def test_init_reads_adrs_in_place_and_is_idempotent(repo: Path) -> None:
    make_adr_repo(repo)
    runner = CliRunner()
    result = runner.invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    assert "reading ADRs in place from doc/adr/" in result.stdout
    cfg = (repo / ".continuity/config.yaml").read_text()
    imported = (repo / ".continuity/imported.yaml").read_text()
    assert "path: doc/adr" in cfg
    catalog = store.load(repo)
    by = catalog.by_id
    assert sorted(by) == ["ADR-0001", "ADR-0002", "ADR-0003"]
    assert not any(p.level == "error" for p in catalog.problems), catalog.problems
    one, two, three = by["ADR-0001"], by["ADR-0002"], by["ADR-0003"]
    assert one.title == "Use PostgreSQL for storage" and one.date == "2020-03-01"
    assert one.status == "superseded" and one.superseded_by == ("ADR-0003",)
    assert three.supersedes == ("ADR-0001",) and three.status == "accepted"
    assert one.file == "doc/adr/0001-use-postgresql-for-storage.md"  # no copy
    assert one.globs_inferred
    assert governs(one.globs, "storage/postgres.py") and governs(one.globs, "migrations/0001.sql")
    assert governs(two.globs, "src/billing/invoice_writer.py")
    assert governs(three.globs, "storage/cockroach.py")
    assert not governs(two.globs, "storage/postgres.py")
    assert two.summary.startswith("The billing module")
    # idempotent: a second run changes nothing
    again = runner.invoke(cli, ["init"])
    assert again.exit_code == 0 and "nothing to do" in again.stdout
    assert (repo / ".continuity/config.yaml").read_text() == cfg
    assert (repo / ".continuity/imported.yaml").read_text() == imported
    # nothing is written outside .continuity/
    tracked_before = sorted(
        p for p in repo.rglob("*") if ".git" not in p.parts and ".continuity" not in p.parts
    )
    assert all(".continuity" not in str(p) for p in tracked_before)


def test_reviewed_entries_are_never_touched(repo: Path) -> None:
    make_adr_repo(repo)
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    path = repo / ".continuity/imported.yaml"
    text = path.read_text().replace(
        "doc/adr/0002-billing-service-owns-invoices.md:\n  globs: [src/billing/**]\n  inferred: true",
        "doc/adr/0002-billing-service-owns-invoices.md:\n  globs: [src/billing/invoice_writer.py]\n  inferred: false",
    )
    assert "inferred: false" in text
    path.write_text(text)
    write(
        repo,
        "doc/adr/0004-new.md",
        "# 4. New thing\n\n## Status\n\nProposed\n\nTouches `storage/cockroach.py`.\n",
    )
    result = runner.invoke(cli, ["init"])
    assert result.exit_code == 0
    after = path.read_text()
    assert "globs: [src/billing/invoice_writer.py]\n  inferred: false" in after
    assert "doc/adr/0004-new.md" in after
    d = store.load(repo).by_id["ADR-0002"]
    assert d.globs == ("src/billing/invoice_writer.py",) and not d.globs_inferred


def test_adr_tools_dir_file_and_no_import(repo: Path) -> None:
    make_adr_repo(repo, "architecture/records")
    write(repo, ".adr-dir", "architecture/records\n")
    result = CliRunner().invoke(cli, ["init", "--no-import"])
    assert result.exit_code == 0
    # the first run says what to do next, on stderr; stdout is what it did
    assert "gitmem install claude" in result.stderr and "next" not in result.stdout
    assert not (repo / ".continuity/imported.yaml").exists()
    assert (repo / ".continuity/decisions").is_dir()
    result = CliRunner().invoke(cli, ["init"])
    assert "architecture/records" in result.stdout and "next:" not in result.stderr
    listing = CliRunner().invoke(cli, ["list", "--json"])
    assert listing.exit_code == 0
    data = json.loads(listing.stdout)
    assert {d["id"]: d["status"] for d in data} == {
        "ADR-0001": "superseded",
        "ADR-0002": "accepted",
        "ADR-0003": "accepted",
    }


def test_madr_with_front_matter_and_log4brains(repo: Path) -> None:
    write(repo, ".log4brains.yml", "project:\n  adrFolder: ./docs/decisions\n")
    write(
        repo,
        "docs/decisions/20200101-use-markdown.md",
        "---\nstatus: rejected\ndate: 2020-01-01\n---\n# Use Markdown\n\n## Decision Outcome\n\nChosen option: none.\n",
    )
    write(
        repo,
        "docs/decisions/20200202-use-json.md",
        "# Use JSON\n\n- Status: accepted\n- Date: 2020-02-02\n\n## Decision Outcome\n\nChosen option: JSON.\n",
    )
    write(repo, "docs/decisions/20200202-use-yaml.md", "# Use YAML\n\n- Status: proposed\n")
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    catalog = store.load(repo)
    by = catalog.by_id
    # a date is not a number in a series: two records of one day keep their own ids
    assert sorted(by) == ["20200101-use-markdown", "20200202-use-json", "20200202-use-yaml"]
    assert not catalog.problems, catalog.problems
    assert by["20200101-use-markdown"].status == "rejected"
    json_adr = by["20200202-use-json"]
    assert json_adr.status == "accepted" and json_adr.date == "2020-02-02"
    assert json_adr.summary == "Chosen option: JSON."
    assert by["20200202-use-yaml"].date == "2020-02-02"  # from the file name


MADR_3 = """---
status: {status}
date: 2023-06-02
deciders: Jane, Bob
consulted: the platform team
informed: everyone
---
# {title}

## Decision Outcome

Chosen option: "{title}", for `src/api/server.py`.
"""


def test_madr_3_front_matter_status_with_a_link(repo: Path) -> None:
    folder = "docs/decisions"
    status = '"superseded by [ADR-0002](0002-use-litestar.md)"'
    write(repo, f"{folder}/0001-use-fastapi.md", MADR_3.format(status=status, title="FastAPI"))
    write(repo, f"{folder}/0002-use-litestar.md", MADR_3.format(status="accepted", title="Lite"))
    write(repo, f"{folder}/0003-typo.md", "---\nstatus: accepted\nglob: [src/**]\n---\n# T\n")
    write(repo, "src/api/server.py", "")
    catalog = initialised(repo, "madr 3")
    old, new = catalog.by_id["ADR-0001"], catalog.by_id["ADR-0002"]
    assert old.status == "superseded" and old.superseded_by == ("ADR-0002",)
    assert new.supersedes == ("ADR-0001",) and new.is_current
    # MADR's own keys are part of its format; a typo of one of ours is still reported
    assert [(p.file.rsplit("/", 1)[-1], p.key) for p in catalog.problems] == [
        ("0003-typo.md", "glob")
    ]


def test_a_log_named_adr_nnn_slug_links_by_file_and_by_number(repo: Path) -> None:
    folder = "docs/architecture"
    write(
        repo,
        f"{folder}/adr-001-defaults.md",
        "# ADR 001: Defaults\n\n## Status\n\nImplemented. Parts of it were superseded by "
        "[ADR-002](./adr-002-square.md).\n",
    )
    write(repo, f"{folder}/adr-002-square.md", "# ADR 002: Square\n\n## Status\n\nAccepted\n")
    write(
        repo,
        f"{folder}/adr-003-padding.md",
        "# ADR 003: Padding\n\n## Status\n\nSuperseded by ADR 4.\n",
    )
    write(repo, f"{folder}/adr-004-zero.md", "# ADR 004: Zero padding\n\n## Status\n\nAccepted\n")
    write(
        repo,
        f"{folder}/adr-005-reduced.md",
        "# ADR 005: Reduced padding\n\n## Status\n\n"
        "Implemented. Superseded by [ADR-006](./adr-006-less.md)\n",
    )
    write(
        repo,
        f"{folder}/adr-006-less.md",
        "# ADR 006: Less padding\n\n## Status\n\nAccepted. Supersedes [ADR 4](adr-004-zero.md)\n",
    )
    catalog = initialised(repo, "named adrs")
    by = catalog.by_id
    assert by["adr-001-defaults"].superseded_by == ("adr-002-square",)
    assert by["adr-003-padding"].superseded_by == ("adr-004-zero",)
    assert by["adr-003-padding"].effective_status == "superseded"
    assert by["adr-004-zero"].supersedes == ("adr-003-padding",)
    assert not [p for p in catalog.problems if "does not exist" in p.message], catalog.problems
    # "Implemented. Superseded by ..." says superseded; "Parts of it were superseded" does not
    assert by["adr-005-reduced"].status == "superseded"
    assert by["adr-001-defaults"].status == "accepted"
    # ADR 4 was not updated when ADR 6 replaced it: the warning points at its Status heading
    # and says what to write there. ADR 1 names its successor itself: no warning.
    assert [(p.file, p.line, p.message) for p in catalog.problems if p.key == "status"] == [
        (
            f"{folder}/adr-004-zero.md",
            3,
            "says accepted but adr-006-less supersedes it; mark it "
            "`Superseded by adr-006-less` where its status is written",
        )
    ]


def test_an_adr_added_after_init_governs_its_paths_before_init_runs_again(repo: Path) -> None:
    """A team keeps writing ADRs into its log (by hand, with adr-tools, or an agent does).
    Before session 32 one written after `gitmem init` governed no path until someone ran
    `init` again, and nothing said so: the tool-call hooks never brought it. Now loading
    infers its globs as `init` would, says so in a lint warning, and `init` writes them."""
    make_adr_repo(repo)
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    commit_all(repo, "init")
    write(
        repo,
        "doc/adr/0004-invoices-are-immutable.md",
        "# 4. Invoices are immutable\n\nDate: 2021-01-01\n\n## Status\n\nAccepted\n\n"
        "## Decision\n\nThe invoice writer in `src/billing/` never updates a written invoice.\n",
    )
    catalog = store.load(repo)
    new = catalog.by_id["ADR-0004"]
    assert new.globs == ("src/billing/**",) and new.globs_inferred
    (warning,) = [p for p in catalog.problems if p.file.endswith("0004-invoices-are-immutable.md")]
    assert (warning.line, warning.key, warning.level) == (1, "globs", "warning")
    assert "not in .continuity/imported.yaml yet" in warning.message
    assert "(src/billing/**): `gitmem init` writes them there" in warning.message
    # read once: a second load with the first one's cache parses nothing again
    assert store.load(repo, cache=catalog.cache).reparsed == 0

    # the pre-tool hook, as Claude Code runs it, brings it before an edit of a file it governs
    target = str(repo / "src/billing/invoice_writer.py")
    payload = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "PreToolUse",
               "tool_name": "Edit", "tool_use_id": "t1",
               "tool_input": {"file_path": target, "old_string": "", "new_string": "x = 1\n"}}  # fmt: skip
    answer = run_agent_hook(repo, "gitmem-hook claude pre-tool", payload)
    assert answer is not None and "Invoices are immutable" in json.dumps(answer)

    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    imported = (repo / ".continuity/imported.yaml").read_text()
    assert "doc/adr/0004-invoices-are-immutable.md:\n  globs: [src/billing/**]" in imported
    catalog = store.load(repo)
    assert catalog.by_id["ADR-0004"].globs == ("src/billing/**",)
    assert not [p for p in catalog.problems if p.key == "globs"], catalog.problems

    # imported.yaml that does not parse: its error is the message (not one warning per
    # ADR), and the ADRs govern the paths inferred afresh rather than none
    (repo / ".continuity/imported.yaml").write_text(imported + "  - [\n")
    catalog = store.load(repo)
    assert catalog.by_id["ADR-0004"].globs == ("src/billing/**",)
    assert [(p.file, p.key) for p in catalog.problems] == [(".continuity/imported.yaml", "yaml")]


def test_a_heading_that_restates_the_number_gives_the_title_without_it(repo: Path) -> None:
    folder = "docs/architecture"
    headings = {
        "adr-001-abci.md": ("# ADR 001: ABCI++ Adoption", "ABCI++ Adoption"),
        "adr-016-retla.md": ("# ADR-16: ReTLA - Relational TLA", "ReTLA - Relational TLA"),
        "006rfc-testing.md": ("# RFC-006: Unit testing", "Unit testing"),
        "adr-028-fees.md": ("# ADR: Secondary Fee Token Support", "Secondary Fee Token Support"),
        "0002-webhooks.md": ("# 2. Run webhooks as jobs", "Run webhooks as jobs"),
        "0003-x.md": ("# 7. Says another number", "7. Says another number"),
        "0004-y.md": ("# Decision: keep the label", "Decision: keep the label"),
        "0005-z.md": ("# ADR 5", "ADR 5"),
        "0008-v.md": ("# 3.5 is the version", "3.5 is the version"),
    }
    for name, (heading, _) in headings.items():
        write(repo, f"{folder}/{name}", f"{heading}\n\n## Status\n\nAccepted\n")
    write(
        repo,
        f"{folder}/0009-titled.md",
        "---\ntitle: 'ADR 9: written in front matter'\n---\n# ADR 9: the heading\n",
    )
    catalog = initialised(repo, "labelled headings")
    titles = {PurePosixPath(d.file).name: d.title for d in catalog.decisions}
    assert titles == {
        **{name: title for name, (_, title) in headings.items()},
        "0009-titled.md": "ADR 9: written in front matter",  # as its author wrote it
    }
    # the record's text is left as written
    assert (repo / folder / "adr-001-abci.md").read_text().startswith("# ADR 001: ABCI++")


def test_a_log_published_as_a_site_keeps_its_front_matter_and_numbers(repo: Path) -> None:
    """JabRef's MADR log carries Jekyll keys, backstage's Docusaurus keys and its own ids:
    neither is a problem of the record, and a record is still found by its number."""
    jekyll = "---\nnav_order: 44\nparent: Decision Records\n---\n# Use Picocli\n"
    write(repo, "docs/decisions/0044-use-picocli.md", jekyll)
    write(repo, "docs/decisions/0045-typos.md", "---\nglob: [src/**]\ntag: [x]\n---\n# T\n")
    docusaurus = (
        "---\nid: adrs-adr013\ntitle: 'ADR013: Use node-fetch'\nsidebar_label: Fetch\n"
        "description: ADR log on fetching\n---\n\n## Decision\n\nUse `node-fetch`.\n"
    )
    write(repo, "docs/architecture-decisions/adr013-use-node-fetch.md", docusaurus)
    write(repo, "docs/architecture-decisions/adr044-other.md", "# ADR044: Other\n")
    commit_all(repo, "two published logs")
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    catalog = store.load(repo)
    assert [(p.file.rsplit("/", 1)[-1], p.line, p.key, p.message) for p in catalog.problems] == [
        ("0045-typos.md", 2, "glob", "unknown key, ignored (did you mean `globs`?)"),
        ("0045-typos.md", 3, "tag", "unknown key, ignored (did you mean `tags`?)"),
    ]
    assert catalog.get("13").id == "adrs-adr013"
    assert catalog.get("ADR013").id == catalog.get("adr-13").id == "adrs-adr013"
    assert catalog.get("ADR-0045").file.endswith("0045-typos.md")
    with pytest.raises(DecisionNotFoundError, match="ambiguous: ADR-0044, adr044-other"):
        catalog.get("44")
    shown = runner.invoke(cli, ["show", "adr-0044", "--json"])
    assert json.loads(shown.stdout)["title"] == "Use Picocli"


def test_status_and_date_as_headings_struck_through_or_misspelt(repo: Path) -> None:
    """Forms seen in real logs: "## Status: Accepted" and "## Date: ..." headings, the old
    status struck through ("~~Proposed~~ **Accepted**"), a template's menu of statuses with
    all but one struck, and "Superceded"/"Depreciated" as people spell them."""
    folder = "docs/adr"
    write(
        repo,
        f"{folder}/ADR-013-pydantic.md",
        "# ADR-013: Pydantic schemas\n\n## Status: Superceded by [ADR-016](ADR-016-drop.md)\n"
        "## Date: 2026-06-01\n\n## Context\n\nInputs.\n",
    )
    write(
        repo,
        f"{folder}/ADR-016-drop.md",
        "# ADR-016: Drop schemas\n\n## Status: ~~Proposed~~ **Accepted**\n## Date: 2026-07-02\n"
        "\n## Decision\n\nDrop them.\n",
    )
    write(
        repo,
        f"{folder}/ADR-017-menu.md",
        "# ADR-017: Menu\n\n## Status\n\n~~Proposed~~ | ~~Accepted~~ | **Depreciated** | "
        "~~Superceded~~\n",
    )
    catalog = initialised(repo, "heading statuses")
    old, new, menu = (catalog.get(n) for n in ("13", "16", "17"))
    assert (old.status, old.superseded_by, old.date) == ("superseded", (new.id,), "2026-06-01")
    assert (new.status, new.supersedes, new.date) == ("accepted", (old.id,), "2026-07-02")
    assert new.summary == "Drop them."
    assert menu.status == "deprecated"
    assert not catalog.problems, catalog.problems


def test_statuses_as_teams_write_them_and_one_not_understood(repo: Path) -> None:
    """Statuses read in public logs that gitmem did not know ("In review", "Under
    discussion", "Not accepted", "On hold", "Retired", "Cancelled"): before session 74 each
    read as accepted, silently, so a proposal under discussion reached agents as the
    project's decision. A Status section left empty (a template copied, not filled in) is
    an unfinished record: proposed. A status still not understood reads as accepted, as
    before, but lint now says so with file, line and key; a log that writes no status at
    all (apalache's) reads as accepted, unwarned."""
    folder = "docs/adr"
    statuses = {
        "0001-a.md": ("In review", "proposed"),
        "0002-b.md": ("Under discussion", "proposed"),
        "0003-c.md": ("Not accepted", "proposed"),
        "0004-d.md": ("Not yet decided", "proposed"),
        "0005-e.md": ("Retired", "deprecated"),
        "0006-f.md": ("Cancelled", "rejected"),
        "0007-g.md": ("Not rejected, accepted", "accepted"),
        "0008-h.md": ("Living document", "accepted"),
        "0009-i.md": ("", "proposed"),
        # a shields.io badge: its message, not its URL's words (since session 75)
        "0011-k.md": (
            "![Status](https://img.shields.io/badge/status-deprecated-red)",
            "deprecated",
        ),
        # the template's choices, the one made in bold (since session 75: the first)
        "0012-l.md": ("`Proposed` | **`Accepted`** | `Deprecated` | `Superseded`", "accepted"),
    }
    for name, (said, _) in statuses.items():
        write(
            repo, f"{folder}/{name}", f"# {name[:4]}. T\n\n## Status\n\n{said}\n\n## Context\n\nx\n"
        )
    write(repo, f"{folder}/0010-j.md", "# 10. No status kept\n\n## Context\n\nx\n")
    catalog = initialised(repo, "statuses")
    for name, (_, status) in statuses.items():
        assert catalog.get(name[:4].lstrip("0")).status == status, name
    assert catalog.get("10").status == "accepted"
    assert [p.format() for p in catalog.problems] == [
        f'{folder}/0008-h.md:3: status: warning: "Living document" is no status gitmem '
        "knows: read as accepted (write Proposed, Accepted, Deprecated, Superseded, Rejected, "
        "or as ADR logs say it: Implemented, Draft, Superseded by ADR-N, ...)",
        f"{folder}/0009-i.md:3: status: warning: the section is empty: read as proposed "
        "(write Proposed, Accepted, Deprecated, Superseded, Rejected, or as ADR logs say "
        "it: Implemented, Draft, Superseded by ADR-N, ...)",
    ]
    lint = CliRunner().invoke(cli, ["lint"])
    assert "0008-h.md:3: status: warning:" in lint.output, lint.output


def test_a_date_section_a_status_s_date_and_a_full_width_colon(repo: Path) -> None:
    """Forms read in public logs in session 74: the date under a heading of its own
    ("## Date\\n\\n2026-08-08"), the date a status was given on ("Accepted 2026-09-18."),
    and a title's label ended by a full-width colon with no space ("ADR-0004：保留 …"). Before,
    neither date was read and the label stayed in the title."""
    folder = "docs/adr"
    write(repo, f"{folder}/0002-a.md", "# ADR 0002 — Tabs\n\n## Status\n\nAccepted\n\n"
          "## Date\n\n2026-08-08\n\n## Decision\n\nOne group.\n")  # fmt: skip
    write(repo, f"{folder}/0003-b.md", "# 0003. Remove\n\n## Status\n\nAccepted 2026-09-18.\n"
          "\n## Decision\n\nRemove them; a 2020-01-01 backup stays.\n")  # fmt: skip
    write(repo, f"{folder}/0004-c.md", "# ADR-0004：保留 WLK `/asr`\n\n## 状态\n\n已接受\n\n"
          "## 日期\n\n2024年3月5日\n")  # fmt: skip
    write(repo, f"{folder}/0005-d.md", "# 5. No date\n\n## Status\n\nAccepted\n\n"
          "## Context\n\nSince 2020-01-01 we log.\n")  # fmt: skip
    # dates as people write them (opentelemetry-rust's "## Date\n17 Feb 2025"); not one
    # that could be either day or month first
    for n, said in enumerate(("## Date\n17 Feb 2025 ", "Datum: 05.03.2024", "- Date: March 5, "
                              "2024", "Date: 2024/3/5", "Date: 03/05/2024"), start=6):  # fmt: skip
        write(repo, f"{folder}/000{n}-x{n}.md", f"# {n}. X\n\n{said}\n\n## Decision\n\nX.\n")
    catalog = initialised(repo, "dates")
    got = [(d.title, d.date) for d in (catalog.get(n) for n in ("2", "3", "4", "5"))]
    assert got == [
        ("Tabs", "2026-08-08"), ("Remove", "2026-09-18"), ("保留 WLK `/asr`", "2024-03-05"),
        ("No date", None),
    ]  # fmt: skip
    assert [catalog.get(str(n)).date for n in range(6, 11)] == [
        "2025-02-17", "2024-03-05", "2024-03-05", "2024-03-05", None
    ]  # fmt: skip


def test_spanish_portuguese_german_french_and_italian_logs(repo: Path) -> None:
    """Logs written in Portuguese, German, Spanish, French or Italian: their status words,
    section names, date keys and supersession ("Substituído por [ADR-0003](...)", "Ersetzt
    durch ..."). Before session 74 each record read as accepted ("Proposto", "Abgelehnt"
    too), with no date and no link, and its summary was its first paragraph, not its
    decision."""
    folder = "docs/adr"
    write(repo, f"{folder}/0001-fila.md", (
        "# 1. Usar uma fila\n\nData: 2024-03-05\n\n## Status\n\nSubstituído por "
        "[ADR-0003](0003-kafka.md)\n\n## Contexto\n\nOs pagamentos chegam em picos.\n\n"
        "## Decisão\n\nUma fila desacopla a API do processamento.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0002-cache.md", (
        "# 2. Cache\n\n- **Status:** Proposto\n\n## Contexto\n\nLento.\n\n"
        "## Decisão\n\nUm cache local.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0003-kafka.md", (
        "---\nstatus: akzeptiert\n---\n\n# 3. Kafka verwenden\n\n## Kontext und Problemstellung"
        "\n\nSpitzen.\n\n## Entscheidung\n\nZahlungen laufen über Kafka.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0004-grpc.md", (
        "# 4. gRPC\n\n## Estado\n\nRechazado\n\n## Fecha\n\n2024-06-01\n\n"
        "## Decisión\n\nSeguimos con REST.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0005-ids.md", (
        "# 5. Identifiants\n\nStatut : Accepté\n\n## Contexte\n\nDes collisions.\n\n"
        "## Décision\n\nDes UUIDv7 partout.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0006-log.md", (
        "# 6. Log\n\n## Stato\n\nNon accettato\n\n## Decisione\n\nLog strutturati.\n"
    ))  # fmt: skip
    catalog = initialised(repo, "european logs")
    got = {n: catalog.get(n) for n in "123456"}
    assert [got[n].status for n in "123456"] == [
        "superseded", "proposed", "accepted", "rejected", "accepted", "proposed"
    ]  # fmt: skip
    assert got["1"].superseded_by == (got["3"].id,)
    assert (got["1"].date, got["4"].date) == ("2024-03-05", "2024-06-01")
    assert [got[n].summary for n in "12345"] == [
        "Uma fila desacopla a API do processamento.", "Um cache local.",
        "Zahlungen laufen über Kafka.", "Seguimos con REST.", "Des UUIDv7 partout.",
    ]  # fmt: skip
    assert not catalog.problems, catalog.problems


def test_tags_as_log4brains_and_madr_logs_write_them(repo: Path) -> None:
    """`- Tags: build, deps` beside Status and Date (log4brains, MADR 2), and front matter's
    `tags: frontend, build` written as one string: before session 74 the first was not
    read and the second was one tag, "frontend, build"."""
    folder = "docs/adr"
    write(repo, f"{folder}/20240105-use-vite.md", (
        "---\ntags: frontend, build\nstatus: accepted\n---\n\n# Use Vite\n\n"
        "## Decision Outcome\n\nVite.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/20240201-use-pnpm.md", (
        "# Use pnpm\n\n- Status: accepted\n- Tags: `build`, #deps, build\n- Date: 2024-02-01\n\n"
        "## Decision Outcome\n\npnpm.\n"
    ))  # fmt: skip
    catalog = initialised(repo, "tags")
    vite, pnpm = catalog.by_id["20240105-use-vite"], catalog.by_id["20240201-use-pnpm"]
    assert (vite.tags, pnpm.tags) == (("frontend", "build"), ("build", "deps"))
    assert (pnpm.date, pnpm.summary) == ("2024-02-01", "pnpm.")
    assert not catalog.problems, catalog.problems


def test_dates_as_adr_front_matter_writes_them(repo: Path) -> None:
    """A date under another key (`decided-on`, `created`) or in another form (`17 Feb
    2025`, a timestamp): before session 75 the first was not read and the others were
    warned of as no ISO date. A date no one can read is still warned of."""
    folder = "docs/adr"
    for n, date in enumerate(
        ("decided-on: 2024-03-05", "created: 2024-04-06", "date: 17 Feb 2025",
         "date: 2024-05-07 10:30", "date: sometime\ncreated: 2024-01-01"), start=1,
    ):  # fmt: skip
        write(repo, f"{folder}/000{n}-x{n}.md", f"---\n{date}\n---\n\n# {n}. X{n}\n\nWe do X{n}.\n")
    catalog = initialised(repo, "dates")
    dates = [catalog.by_id[f"ADR-000{n}"].date for n in range(1, 6)]
    assert dates == ["2024-03-05", "2024-04-06", "2025-02-17", "2024-05-07", "sometime"]
    assert [(p.file, p.key) for p in catalog.problems] == [(f"{folder}/0005-x5.md", "date")]


def test_an_adrs_nextgen_log_found_by_its_config(repo: Path) -> None:
    """The `adrs` tool (Rust): its log's folder in `adrs.toml` (`adr_dir`), and its
    "nextgen" front matter's `links` of kind `supersedes` / `supersededby` (amends and
    relates-to say nothing of succession). Before session 75 neither was read."""
    write(repo, "adrs.toml", 'adr_dir = "architecture/records"\nmode = "nextgen"\n')
    folder = "architecture/records"
    write(repo, f"{folder}/0001-use-sqlite.md", (
        "---\nnumber: 1\ntitle: Use SQLite\ndate: 2024-01-02\nstatus: superseded\nlinks:\n"
        "- target: 2\n  kind: supersededby\n---\n\n# 1. Use SQLite\n\n## Decision\n\nSQLite.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0002-use-postgres.md", (
        "---\nnumber: 2\ntitle: Use Postgres\ndate: 2024-03-04\nstatus: accepted\nlinks:\n"
        "- target: 1\n  kind: supersedes\n- target: 3\n  kind: relatesto\n---\n\n"
        "# 2. Use Postgres\n\n## Decision\n\nPostgres.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0003-pool.md", (
        "---\nnumber: 3\ndate: 2024-03-05\nstatus: accepted\nlinks:\n- target: 2\n  kind: amends\n"
        "---\n\n# 3. Pool connections\n\n## Decision\n\nPgBouncer.\n"
    ))  # fmt: skip
    catalog = initialised(repo, "adrs")
    assert [(d.id, d.status, d.supersedes) for d in catalog.decisions] == [
        ("ADR-0001", "superseded", ()),
        ("ADR-0002", "accepted", ("ADR-0001",)),
        ("ADR-0003", "accepted", ()),
    ]
    assert catalog.by_id["ADR-0001"].superseded_by == ("ADR-0002",)
    assert not catalog.problems, catalog.problems


def test_a_status_history_and_a_list_of_choices_as_phodal_adr_writes_them(repo: Path) -> None:
    """phodal/adr's records list the status choices and keep a dated history, the latest
    last ("2019-10-26 proposed" ... "2019-10-28 accepted"), in English, Chinese (通过)
    and Russian (since session 75: before, each read as its first status word, proposed,
    and the Russian one as accepted whatever it said)."""
    folder = "doc/adr"
    write(repo, f"{folder}/0001-use-node.md", (
        "# 1. Use Node\n\nDate: 2019-10-26\n\n## Status\n\n"
        "STATUS：proposed/accepted/done/deprecated/superseded\n\n2019-10-26 proposed \n\n"
        "2019-10-28 accepted\n\n## Context\n\nWe need a runtime.\n\n## Decision\n\nNode 20.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0002-redis.md", (
        "# 2. 使用 Redis\n\n日期: 2019-11-01\n\n## 状态\n\n列表：提议/通过/完成/已弃用/已取代\n\n"
        "2019-11-01 提议\n\n2019-11-03 通过\n\n## 决策\n\n缓存使用 Redis。\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0003-kafka.md", (
        "# 3. Kafka\n\nДата: 2019-12-01\n\n## Статус\n\nПредложено: 2019-12-01\n\n"
        "## Решение\n\nСобытия идут через Kafka.\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0004-grpc.md", (
        "# 4. gRPC\n\nДата: 2020-01-10\n\n## Статус\n\n"
        "предложено/принято/реализовано/устарело/изменено\n\n2020-01-10 предложено\n\n"
        "2020-02-01 принято\n\n## Решение\n\nСервисы говорят по gRPC.\n"
    ))  # fmt: skip
    catalog = initialised(repo, "phodal")
    assert [(d.id, d.status, d.date, d.summary) for d in catalog.decisions] == [
        ("ADR-0001", "accepted", "2019-10-26", "Node 20."),
        ("ADR-0002", "accepted", "2019-11-01", "缓存使用 Redis。"),
        ("ADR-0003", "proposed", "2019-12-01", "События идут через Kafka."),
        ("ADR-0004", "accepted", "2020-01-10", "Сервисы говорят по gRPC."),
    ]
    assert not catalog.problems, catalog.problems


def test_chinese_and_japanese_logs(repo: Path) -> None:
    """ADR logs written in Chinese or Japanese: their status words and section names
    (状态 / ステータス, 决策 / 決定, 日期 / 日付 with a full-width colon and 2024年3月5日),
    a table row, and supersession as they write it ("ADR-0003 により置き換え", "被 ... 取代",
    "[ADR-0002](...) を置き換える"). Before, each record read as accepted with no date and
    its date line for a summary."""
    folder = "docs/adr"
    write(repo, "services/payment/ledger.py", "")
    write(repo, f"{folder}/0001-postgres.md", (
        "# 1. 使用 PostgreSQL\n\n日期：2024年3月5日\n\n## 状态\n\n已接受，后被 ADR-0004 取代\n\n"
        "## 背景\n\n`services/payment/ledger.py` 直接写入账本表。\n\n"
        "## 决策\n\n所有服务使用 PostgreSQL 15 作为唯一的记录系统。\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0002-queue.md", (
        "# 2. 支払いイベントはキューで処理する\n\n日付: 2024-04-01\n\n## ステータス\n\n"
        "承認済み。ADR-0003 により置き換え\n\n## 決定\n\nワーカーが非同期に処理する。\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0003-kafka.md", (
        "# 3. Kafka を使う\n\n| ステータス | 日付 |\n|---|---|\n| 採用 | 2024-06-01 |\n\n"
        "[ADR-0002](0002-queue.md) を置き換える。\n\n## 決定\n\nKafka に書き込む。\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0004-cockroach.md", (
        "# 4. 使用 CockroachDB\n\n## 状态\n\n已采纳\n\n## 决策\n\n迁移到 CockroachDB。\n"
    ))  # fmt: skip
    write(repo, f"{folder}/0005-cache.md", "# 5. 缓存\n\n状态：提议\n\n## 决策\n\n加一层缓存。\n")
    catalog = initialised(repo, "cjk logs")
    pg, queue, kafka, cockroach, cache = (catalog.get(n) for n in ("1", "2", "3", "4", "5"))
    assert (pg.status, pg.date, pg.superseded_by) == ("superseded", "2024-03-05", (cockroach.id,))
    assert pg.summary == "所有服务使用 PostgreSQL 15 作为唯一的记录系统。"
    assert (queue.status, queue.date, queue.superseded_by) == ("superseded", "2024-04-01",
                                                             (kafka.id,))  # fmt: skip
    assert queue.summary == "ワーカーが非同期に処理する。"
    assert (kafka.status, kafka.date, kafka.supersedes) == ("accepted", "2024-06-01", (queue.id,))
    assert (cockroach.status, cockroach.supersedes) == ("accepted", (pg.id,))
    assert cache.status == "proposed"
    assert not catalog.problems, catalog.problems


def test_supersession_on_lines_of_its_own(repo: Path) -> None:
    """Many logs keep "- **Supersedes:** ADR-010 (title)" beside Status and Date, or quote
    them in a block: those lines link the pair, only by the references that open them."""
    folder = "docs/adr"
    write(repo, f"{folder}/0010-plane.md", "# Plane\n\n- **Status:** Accepted\n\nUse Plane.\n")
    write(
        repo,
        f"{folder}/0011-drop-plane.md",
        "# Drop Plane\n\n- **Status:** Accepted\n- **Date:** 2026-06-21\n"
        "- **Supersedes:** ADR-010 (Adopt Plane)\n\nWe drop Plane.\n",
    )
    write(
        repo,
        f"{folder}/0012-partly.md",
        "# Partly\n\n> **Status:** Accepted  \n> **Supersedes:** the S2 refusal only; "
        "ADR-0011 stands.\n\nNarrow.\n",
    )
    write(
        repo,
        f"{folder}/0013-old.md",
        "# Old\n\nStatus: Accepted\nSuperseded-by: [ADR 14](0014-new.md)\n\nOld way.\n",
    )
    write(repo, f"{folder}/0014-new.md", "# New\n\nStatus: Accepted\n\nNew way.\n")
    # ... or in the title, when the parentheses name records and nothing else
    write(repo, f"{folder}/0020-talos.md", "# Talos\n\n## Status\n\nAccepted\n")
    write(
        repo,
        f"{folder}/0021-patching.md",
        "# ADR-0021: Talos native patching (Supersedes ADR-0020)\n\n## Status\n\nAccepted\n",
    )
    write(
        repo,
        f"{folder}/0022-verbs.md",
        "# ADR-0022: Flat verbs (supersedes ADR-0021's alias groups)\n\nStatus: Accepted\n",
    )
    catalog = initialised(repo, "succession lines")
    by = catalog.by_id
    assert by["ADR-0011"].supersedes == ("ADR-0010",)
    assert by["ADR-0010"].effective_status == "superseded"
    assert by["ADR-0011"].summary == "We drop Plane."
    assert by["ADR-0012"].supersedes == () and by["ADR-0011"].is_current
    assert by["ADR-0012"].status == "accepted" and by["ADR-0012"].summary == "Narrow."
    assert by["ADR-0013"].superseded_by == ("ADR-0014",)
    assert by["ADR-0013"].status == "superseded"
    assert by["ADR-0021"].supersedes == ("ADR-0020",) and by["ADR-0022"].supersedes == ()
    assert by["ADR-0021"].title == "Talos native patching (Supersedes ADR-0020)"
    # ADR-010 and ADR-0020 still say accepted: the usual warning, at their status lines
    assert [(p.file, p.line, p.key) for p in catalog.problems] == [
        (f"{folder}/0010-plane.md", 3, "status"),
        (f"{folder}/0020-talos.md", 3, "status"),
    ]


@pytest.mark.parametrize(
    "folder", ["doc/architecture/decisions", "doc/decisions", "architecture/adr", "decisions"]
)
def test_a_log_of_one_record_in_a_usual_folder_is_read(repo: Path, folder: str) -> None:
    """A log begun with one record in a folder the ADR tools and guides use (adr-tools'
    README: `adr init doc/architecture/decisions`) was not found before session 50: only
    a name's words found a folder, and only from two records on."""
    write(repo, f"{folder}/0001-use-postgres.md",
          "# 1. Use Postgres\n\n## Status\n\nAccepted\n\n## Decision\n\nPostgres.\n")  # fmt: skip
    commit_all(repo, "a log")
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0 and f"reading ADRs in place from {folder}/" in result.stdout
    assert sorted(store.load(repo).by_id) == ["ADR-0001"]


def test_adr_dir_names_a_folder_detection_does_not_find(repo: Path) -> None:
    write(repo, "design/records/queue-for-webhooks.md", "# Webhooks go through a queue\n")
    write(repo, "design/records/money.md", "# Money is cents\n\n## Status\n\nAccepted\n")
    commit_all(repo, "unrecognised log")
    runner = CliRunner()
    assert "reading ADRs" not in runner.invoke(cli, ["init"]).stdout  # not found by itself
    bad = runner.invoke(cli, ["init", "--adr-dir", "design/nothing"])
    assert bad.exit_code == 1 and "--adr-dir design/nothing: no such folder" in bad.stderr
    outside = runner.invoke(cli, ["init", "--adr-dir", str(repo.parent)])
    assert outside.exit_code == 1 and "not inside this repository" in outside.stderr
    both = runner.invoke(cli, ["init", "--no-import", "--adr-dir", "design/records"])
    assert both.exit_code == 1 and "cannot go with --no-import" in both.stderr
    result = runner.invoke(cli, ["init", "--adr-dir", "design/records"])
    assert result.exit_code == 0, result.output
    assert "reading ADRs in place from design/records/" in result.stdout
    assert sorted(store.load(repo).by_id) == ["money", "queue-for-webhooks"]
    again = runner.invoke(cli, ["init", "--adr-dir", "./design/records/"])
    assert again.exit_code == 0 and "nothing to do" in again.stdout


# Open edX style: reStructuredText records in a Sphinx tree, statuses in sections, links as
# :doc: roles, inline links and named references, dates in field lists.
RST_1 = """1. Store events in Postgres
===========================

Status
------

Superseded by :doc:`0003-store-events-in-kafka`

Context
-------

:Date: 2021-02-03

The ``events/store.py`` module needs a store.

Decision
--------

We will write events to Postgres.

.. code-block:: python

    # not a heading
    store = Postgres()
"""
RST_2 = """##########################
2. Events carry UTC times
##########################

Status
******

Accepted (see `the event schema`_)

.. Statuses, as a template's guidance in a comment (not the record's own status):
    - **Superseded**, as in "Superseded by 0003", once a later ADR replaces it

.. _the event schema: https://example.invalid/schema

Decision
********

Every event carries a UTC timestamp.
"""
RST_3 = """3. Store events in Kafka
========================

Status
------

Accepted

Supersedes `ADR 1 <0001-store-events-in-postgres.rst>`_.

Decision
--------

Events go to Kafka through ``events/kafka.py``.
"""


def test_a_restructuredtext_log_is_read_in_place(repo: Path) -> None:
    folder = "docs/source/decisions"  # found as a log of numbered records, not by its name
    write(repo, f"{folder}/0001-store-events-in-postgres.rst", RST_1)
    write(repo, f"{folder}/0002-events-carry-utc-times.rst", RST_2)
    write(repo, f"{folder}/0003-store-events-in-kafka.rst", RST_3)
    write(repo, f"{folder}/index.rst", "Decisions\n=========\n\n.. toctree::\n")
    write(repo, f"{folder}/conf.py", "")
    write(repo, "events/store.py", "")
    write(repo, "events/kafka.py", "")
    commit_all(repo, "rst adrs")
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    assert f"reading ADRs in place from {folder}/" in result.stdout
    catalog = store.load(repo)
    assert not catalog.problems, catalog.problems
    by = catalog.by_id
    assert sorted(by) == ["ADR-0001", "ADR-0002", "ADR-0003"]
    first, second, third = by["ADR-0001"], by["ADR-0002"], by["ADR-0003"]
    assert first.title == "Store events in Postgres"
    assert second.title == "Events carry UTC times"  # overlined title
    assert first.superseded_by == ("ADR-0003",) and first.effective_status == "superseded"
    assert third.supersedes == ("ADR-0001",) and third.is_current
    assert second.status == "accepted" and not second.supersedes
    assert first.date == "2021-02-03"
    assert first.summary == "We will write events to Postgres."  # not the code block
    assert third.summary == "Events go to Kafka through `events/kafka.py`."
    imported = (repo / ".continuity" / "imported.yaml").read_text()
    assert "events/kafka.py" in imported  # globs inferred from the text, as for Markdown


ADOC_1 = """= 1. Use RabbitMQ for jobs
:status: superseded
:date: 2019-05-06

== Status

Superseded by xref:0002-use-kafka-for-jobs.adoc[ADR 2]

== Decision

Jobs go through RabbitMQ.
"""
ADOC_2 = """= 2. Use Kafka for jobs

== Status

Accepted. Replaces <<0001-use-rabbitmq-for-jobs.adoc#,ADR 1>>; see <<decision,below>>.

[[decision]]
== Decision

Jobs go through Kafka.

----
== a line in a listing, not a heading
----
"""


def test_an_asciidoc_log_is_read_in_place(repo: Path) -> None:
    write(repo, "doc/adr/0001-use-rabbitmq-for-jobs.adoc", ADOC_1)
    write(repo, "doc/adr/0002-use-kafka-for-jobs.adoc", ADOC_2)
    catalog = initialised(repo, "adoc adrs")
    assert not catalog.problems, catalog.problems
    old, new = catalog.by_id["ADR-0001"], catalog.by_id["ADR-0002"]
    assert old.title == "Use RabbitMQ for jobs" and old.date == "2019-05-06"
    assert old.superseded_by == ("ADR-0002",) and new.supersedes == ("ADR-0001",)
    assert new.summary == "Jobs go through Kafka."  # the listing's "==" line is no heading


def test_a_status_and_date_kept_in_a_table(repo: Path) -> None:
    folder = "docs/adr"
    write(
        repo,
        f"{folder}/0001-use-rest.md",
        "# Use REST\n\n| Status | Date |\n|---|---|\n"
        "| Superseded by [ADR 2](0002-use-grpc.md) | 2022-01-02 |\n",
    )
    write(
        repo,
        f"{folder}/0002-use-grpc.md",
        "# Use gRPC\n\n| | |\n|--|--|\n| **Status** | Accepted |\n| Date | 2022-03-04 |\n",
    )
    commit_all(repo, "table adrs")
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    by = store.load(repo).by_id
    assert by["ADR-0001"].effective_status == "superseded"
    assert by["ADR-0001"].superseded_by == ("ADR-0002",) and by["ADR-0001"].date == "2022-01-02"
    assert by["ADR-0002"].status == "accepted" and by["ADR-0002"].date == "2022-03-04"


def test_markup_keeps_every_line_where_it_was() -> None:
    from gitmem import markup

    for text, kind in ((RST_1, "rst"), (RST_2, "rst"), (ADOC_1, "adoc"), (ADOC_2, "adoc")):
        converted = markup.to_markdown(text, kind)
        assert len(converted.splitlines()) == len(text.splitlines())
    lines = markup.to_markdown(RST_2, "rst").splitlines()
    assert lines[:3] == ["", "# 2. Events carry UTC times", ""]


def test_links_reach_records_whose_front_matter_gives_another_id(repo: Path) -> None:
    folder = "docs/decisions"
    write(
        repo,
        f"{folder}/use-postgres.md",
        '---\nid: DB-1\nstatus: "superseded by [Cockroach](use-cockroach.md)"\n---\n'
        "# Use Postgres\n",
    )
    write(
        repo,
        f"{folder}/use-cockroach.md",
        "---\nid: DB-2\n---\n# Use Cockroach\n\n## Status\n\nAccepted. Supersedes "
        "[Postgres](./use-postgres.md).\n",
    )
    write(repo, f"{folder}/0003-use-redis.md", "---\nid: CACHE-1\n---\n# Use Redis\n")
    write(repo, f"{folder}/0004-use-valkey.md", "# Use Valkey\n\n## Status\n\nReplaces ADR 3\n")
    catalog = initialised(repo, "adrs with their own ids")
    by = catalog.by_id
    assert by["DB-1"].superseded_by == ("DB-2",) and by["DB-2"].supersedes == ("DB-1",)
    assert by["ADR-0004"].supersedes == ("CACHE-1",)  # the record numbered 3, by its id
    assert by["CACHE-1"].effective_status == "superseded"
    assert not [p for p in catalog.problems if "exist" in p.message], catalog.problems


def test_two_numbered_logs_in_one_repository_keep_all_their_records(repo: Path) -> None:
    write(repo, "docs/adr/0001-use-go.md", "# 1. Use Go\n\n## Status\n\nAccepted\n")
    write(repo, "services/billing/docs/adr/0001-use-cents.md", "# 1. Cents\n\n## Status\n\n"
          "Superseded by ADR 2\n")  # fmt: skip
    write(repo, "services/billing/docs/adr/0002-use-micros.md", "# 2. Micros\n")
    commit_all(repo, "two logs")
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    assert "services/billing/docs/adr/ (added to .continuity/config.yaml; ids BILLING-" in (
        result.stdout
    )
    catalog = store.load(repo)
    assert not catalog.problems, catalog.problems
    by = catalog.by_id
    assert sorted(by) == ["ADR-0001", "BILLING-0001", "BILLING-0002"]
    assert by["BILLING-0001"].superseded_by == ("BILLING-0002",)  # "ADR 2" of its own log
    assert by["ADR-0001"].is_current
    # a third log added later gets a prefix of its own; the others keep theirs
    write(repo, "services/ledger/docs/adr/0001-double-entry.md", "# 1. Double entry\n")
    write(repo, "services/ledger/docs/adr/0002-no-deletes.md", "# 2. No deletes\n")
    commit_all(repo, "third log")
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    assert sorted(store.load(repo).by_id) == [
        "ADR-0001",
        "BILLING-0001",
        "BILLING-0002",
        "LEDGER-0001",
        "LEDGER-0002",
    ]
    # the entry is added inside the list, above the next setting's comment
    text = (repo / ".continuity" / "config.yaml").read_text()
    assert text.index("path: services/ledger/docs/adr") < text.index("# Characters per token")


def test_numbers_restarting_in_sub_folders_of_one_log_lose_no_record(repo: Path) -> None:
    write(repo, "docs/adr/api/0001-use-go.md", "# 1. Use Go\n\n## Status\n\nSuperseded by "
          "[Rust](0002-use-rust.md)\n")  # fmt: skip
    write(repo, "docs/adr/api/0002-use-rust.md", "# 2. Use Rust\n\n## Status\n\nAccepted\n")
    write(repo, "docs/adr/web/0001-use-react.md", "# 1. Use React\n\n## Status\n\nAccepted\n")
    write(repo, "docs/adr/web/0002-use-vite.md", "# 2. Use Vite\n\n## Status\n\nAccepted\n")
    write(repo, "docs/adr/web/0003-use-webpack.md", "# 3. Use webpack\n\n## Status\n\n"
          "Superseded by [Vite](./0002-use-vite.md)\n")  # fmt: skip
    write(repo, "docs/adr/web/0004-use-esbuild.rst", "4. Use esbuild\n==============\n\n"
          "Status\n------\n\nSuperseded by :doc:`0002-use-vite`\n")  # fmt: skip
    catalog = initialised(repo, "one log, numbered per folder")
    by = catalog.by_id
    assert len(by) == len(catalog.decisions) == 6  # every record kept, each with its own id
    # the api records come first (sorted paths) and keep the numbered ids
    assert by["ADR-0001"].title == "Use Go" and by["ADR-0002"].title == "Use Rust"
    assert by["0001-use-react"].title == "Use React"
    assert by["ADR-0001"].superseded_by == ("ADR-0002",)
    # a link names a file: it reaches the record in it, not the other folder's number 2
    assert by["ADR-0003"].superseded_by == ("0002-use-vite",)
    assert by["ADR-0004"].superseded_by == ("0002-use-vite",)  # `:doc:` names no suffix
    assert by["0002-use-vite"].supersedes == ("ADR-0003", "ADR-0004")
    assert by["ADR-0002"].supersedes == ("ADR-0001",)
    assert [p.level for p in catalog.problems] == ["warning", "warning"], catalog.problems
    assert "this record's id is 0001-use-react" in catalog.problems[0].message


def test_two_logs_configured_with_one_prefix_are_told_how_to_part(repo: Path) -> None:
    # a config.yaml written before sources got prefixes of their own
    for log in ("docs/adr", "services/billing/docs/adr"):
        write(repo, f"{log}/0001-first.md", "# 1. First\n")
    write(
        repo,
        ".continuity/config.yaml",
        "sources:\n  - path: docs/adr\n    id_prefix: ADR\n"
        "  - path: services/billing/docs/adr\n    id_prefix: ADR\n",
    )
    catalog = store.load(repo)
    # (imported.yaml lists neither ADR: `gitmem init` has not run; lint warns of that too)
    assert [p.message for p in catalog.problems if p.key != "globs"] == [
        "duplicate id ADR-0001 (also docs/adr/0001-first.md); give the source "
        "services/billing/docs/adr an id_prefix of its own in config.yaml"
    ]
    assert len(catalog.decisions) == 2  # both still reach the agent


def test_a_moved_adr_folder_is_reported_not_silently_unread(repo: Path) -> None:
    make_adr_repo(repo)
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    (repo / "doc" / "adr").rename(repo / "doc" / "decisions")
    catalog = store.load(repo)
    assert catalog.decisions == ()
    assert [(p.file, p.line, p.key, p.level) for p in catalog.problems] == [
        (".continuity/config.yaml", 7, "sources", "warning")
    ]
    assert "doc/adr: no such folder, so its ADRs are not read" in catalog.problems[0].message
    lint = CliRunner().invoke(cli, ["lint"])
    assert ".continuity/config.yaml:7: sources: warning: doc/adr: no such folder" in lint.output
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0  # finds the folder where it went
    assert sorted(store.load(repo).by_id) == ["ADR-0001", "ADR-0002", "ADR-0003"]


def test_an_acronym_in_capitals_names_no_file() -> None:
    """An ADR saying "a CLI flag" is not about `cli.go` (nor "SUBSET" about subset.py);
    a snake_case or CamelCase name equal to a file stem still is."""
    from gitmem.adrglobs import RepoLayout, infer_globs

    layout = RepoLayout(
        ["cmd/txsim/cli.go", "x/zk/client/cli.go", "docs/lang/subset.py", "app/fee_handler.go"]
    )
    text = "Disabled via a CLI flag; SUBSET is a TLA+ operator. The fee_handler checks the fee."
    assert infer_globs(text, layout) == ["app/fee_handler.go"]


def test_a_member_named_by_its_type_names_the_type_s_file() -> None:
    """C#, Java and TypeScript ADRs name the code they govern as `Type.Member`
    (Altinn's "`AuthenticationController.AuthenticateUser` historically contained several
    sign-in branches"): that is the type's file. Before session 74 only the whole token
    was looked up, as a file name, and the ADR's subject got no glob. A lower-case head is
    a word or a package (`store.load`, Go's `square.Build`); a file named with a dot
    (`appsettings.json`) is still that file; an acronym names no file."""
    from gitmem.adrglobs import RepoLayout, infer_globs

    layout = RepoLayout(
        ["src/Controllers/AuthenticationController.cs", "src/Services/IUserProfileService.cs",
         "src/appsettings.json", "pkg/store.go", "pkg/square/build.go", "src/Api.cs",
         "src/fee_handler.py", "web/orderService.ts"]
    )  # fmt: skip
    text = (
        "`AuthenticationController.AuthenticateUser` calls IUserProfileService.GetUser(); "
        "see `appsettings.json`. Not: store.load, square.Build, API.Call. "
        "`fee_handler.compute` and `orderService.placeOrder()` are."
    )
    assert infer_globs(text, layout) == [
        "src/Controllers/AuthenticationController.cs", "src/appsettings.json",
        "src/fee_handler.py", "web/orderService.ts", "src/Services/IUserProfileService.cs",
    ]  # fmt: skip


def test_a_hidden_folder_s_path_keeps_its_dot() -> None:
    """`.github/workflows/release.yml` in an ADR about releases, a link to
    `../../.claude/rules/formats.md`, `.eslintrc.json`: before session 74 the leading dot
    was dropped (`github/workflows/release.yml`), and such a path named nothing. A file
    extension said alone (`.json`: JSON files) names nothing hidden, and is read as the word
    it was read as before (a `json/` package)."""
    from gitmem.adrglobs import RepoLayout, infer_globs

    layout = RepoLayout(
        [".github/workflows/release.yml", ".claude/rules/formats.md", ".eslintrc.json",
         "src/io/json/reader.ts", "src/app.ts"]
    )  # fmt: skip
    text = (
        "Releases run in `.github/workflows/release.yml`; see "
        "[the rules](../../.claude/rules/formats.md). Lint with .eslintrc.json... "
        "Traces are `.json` files."
    )
    assert infer_globs(text, layout, "docs/adr/0007-release.md") == [
        ".claude/rules/formats.md", ".github/workflows/release.yml", "src/io/json/**",
        ".eslintrc.json",
    ]  # fmt: skip


def test_qualified_names_of_rust_cpp_and_php_name_their_module_s_file() -> None:
    """`crate::storage::engine::Compactor` (Rust), `billing::Ledger` (C++),
    `App\\Http\\Controllers\\UserController` (PHP): the longest start of the name that is a
    path (the module that holds the type). Before session 75 each part was read alone, as a
    word; `std::vector` and `tokio::sync` name nothing here, a Windows path is a path, and
    Markdown's escapes (`my\\_module`) are no PHP name."""
    from gitmem.adrglobs import RepoLayout, infer_globs

    layout = RepoLayout(
        ["src/storage/engine.rs", "src/net/peer/mod.rs", "lib/billing/ledger.cc",
         "app/Http/Controllers/UserController.php", "app/Models/User.php",
         "src/billing/invoice.py", "src/my_module.py", "src/std/x.rs"]
    )  # fmt: skip
    text = (
        "Compaction runs in `crate::storage::engine::Compactor`; peers in crate::net::peer::Peer."
        " `App\\Http\\Controllers\\UserController` calls \\App\\Models\\User::find. Amounts are "
        "`billing::Ledger` values (see src\\billing\\invoice.py). Not `std::vector`, nor "
        "tokio::sync::mpsc. The my\\_module module stays."
    )
    assert sorted(infer_globs(text, layout)) == [
        "app/Http/Controllers/UserController.php", "app/Models/User.php",
        "lib/billing/ledger.cc", "src/billing/invoice.py", "src/my_module.py",
        "src/net/peer/**", "src/storage/engine.rs",
    ]  # fmt: skip
    # a partial path without its extension names the file (`storage/engine`)
    assert infer_globs("Compaction lives in storage/engine.", layout) == ["src/storage/engine.rs"]


def test_a_command_line_option_names_no_folder() -> None:
    """`--features=no-rows` is a flag, not the `features/` folder (apalache's ADR-002 got
    its changelog-fragment folder `.unreleased/features/**`); an option's value still
    names a path, and so does a hyphenated word in the prose."""
    from gitmem.adrglobs import RepoLayout, infer_globs

    layout = RepoLayout([".unreleased/features/.gitkeep", "conf/app.yaml", "non-blocking/io.go"])
    text = "Pass `--features=no-rows` or `--config=conf/app.yaml`; see `non-blocking`."
    assert infer_globs(text, layout) == ["conf/app.yaml", "non-blocking/**"]


def test_a_route_path_in_an_adr_is_read_whole() -> None:
    """`app/blog/[slug]/page.tsx` in an ADR (Next.js names route folders so): the words
    were split at its brackets, so the decision was given `app/blog/**`, the whole blog,
    and `app/(site)/about/page.tsx` was found only by its tail. Read whole, each names its
    own file; parentheses in prose (`function(arg)`) are no path."""
    from gitmem.adrglobs import RepoLayout, infer_globs

    layout = RepoLayout(
        ["app/blog/[slug]/page.tsx", "app/blog/index.tsx", "app/(site)/about/page.tsx",
         "app/(site)/layout.tsx", "src/parse.go"]
    )  # fmt: skip
    text = ("Posts render statically: `app/blog/[slug]/page.tsx` calls `generateStaticParams`;"
            " so does app/(site)/about/page.tsx. Call parse(arg) from src/parse.go.")  # fmt: skip
    assert infer_globs(text, layout) == [
        "app/blog/[slug]/page.tsx", "app/(site)/about/page.tsx", "src/parse.go"
    ]  # fmt: skip
    layout = RepoLayout(["app/blog/[slug]/page.tsx", "app/blog/[slug]/opengraph-image.tsx"])
    assert infer_globs("The `app/blog/[slug]` route is static.", layout) == ["app/blog/[slug]/**"]


def test_a_project_name_that_is_its_root_package_names_no_folder() -> None:
    """JabRef's ADRs say "JabRef" throughout, and its code lives under `org/jabref` in
    main and test trees: that is the whole project, not a part of it. A package that
    parallel trees share but that holds a part of the code still counts."""
    from gitmem.adrglobs import RepoLayout, infer_globs

    main, test = "src/main/java/org/moneybox", "src/test/java/org/moneybox"
    layout = RepoLayout(
        [
            f"{main}/billing/Invoice.java",
            f"{main}/web/Controller.java",
            f"{main}/web/Routes.java",
            f"{test}/billing/InvoiceTest.java",
            "build.gradle",
            "README.md",
        ]
    )
    text = "In MoneyBox, invoices are written by the `billing` package only."
    assert infer_globs(text, layout) == [f"{main}/billing/**", f"{test}/billing/**"]
    # a large part in two trees (other parents) is still a part
    layout = RepoLayout(["pkg/server/a.go", "pkg/server/b.go", "tests/server/a_test.go", "ui/x"])
    assert infer_globs("The `server` owns sessions.", layout) == [
        "pkg/server/**",
        "tests/server/**",
    ]


def test_doctor_right_after_init_has_nothing_to_flag(repo: Path) -> None:
    """The step `gitmem init` names last is `gitmem doctor`, "see that it all works". Right
    after init it flagged the match table as missing (init did not compile it) and, with
    no record yet, the index as missing: two `!!` lines on a project set up correctly."""
    write(repo, "billing/charge.py", "x = 1\n")
    commit_all(repo, "a project")
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model", "--json"])
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["match table"]["ok"], checks["match table"]
    assert checks["index"] == {
        "name": "index",
        "ok": True,
        "detail": "no records yet: nothing to index",
    }

    # with a record, an index is wanted: that is worth flagging
    CliRunner().invoke(cli, ["new", "Money is integer cents", "--glob", "billing/**"])
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model", "--json"])
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert not checks["index"]["ok"] and "run `gitmem index`" in checks["index"]["detail"]


def test_a_sparse_checkout_that_leaves_out_the_decisions(repo: Path, tmp_path: Path) -> None:
    """A monorepo's sparse checkout of one folder leaves `.continuity/` out. Before session
    39 gitmem took that for a project without decisions: `why` said no decision governs a
    path, the hooks were silent, and `init` wrote a config.yaml over the tracked one. Now
    every command says how to bring them in, `init` refuses, and so does doctor; the
    session start tells the user."""
    import subprocess

    from conftest import decision, git, run_gitmem

    write(repo, "billing/charge.py", "x = 1\n")
    decision(repo, "0001-money.md", "Money is integer cents", globs=["billing/**"])
    write(repo, "docs/adr/0001-use-postgres.md", NYGARD_1)  # an ADR log read in place
    assert run_gitmem(repo, "init").returncode == 0
    commit_all(repo, "a project")
    clone = tmp_path / "sparse"
    git(tmp_path, "clone", "-q", "--no-checkout", str(repo), str(clone))
    git(clone, "sparse-checkout", "set", "--cone", "billing")
    git(clone, "checkout", "-q", "HEAD")
    assert (clone / "billing" / "charge.py").exists() and not (clone / ".continuity").exists()
    note = "this sparse checkout leaves out .continuity/, so gitmem reads none of the project's"

    why = run_gitmem(clone, "why", "billing/charge.py")
    assert why.returncode == 0 and note in why.stderr
    init = run_gitmem(clone, "init")
    assert init.returncode == 1 and note in init.stderr
    assert not (clone / ".continuity").exists() and git(clone, "status", "--porcelain") == ""
    doctor = json.loads(run_gitmem(clone, "doctor", "--no-model", "--json").stdout)
    records = next(c for c in doctor["checks"] if c["name"] == "records")
    assert not records["ok"] and records["detail"].startswith(note)
    start = {"session_id": "s1", "cwd": str(clone), "source": "startup",
             "hook_event_name": "SessionStart"}  # fmt: skip
    for agent in ("claude", "codex", "gemini", "qwen"):  # the agents that show it to the user
        proc = subprocess.run(["gitmem", "hook", agent, "session-start"], cwd=clone,
                              input=json.dumps(start), capture_output=True, text=True)  # fmt: skip
        assert proc.returncode == 0 and note in json.loads(proc.stdout)["systemMessage"], agent

    git(clone, "sparse-checkout", "add", ".continuity")
    why = run_gitmem(clone, "why", "billing/charge.py")
    assert "D-0001" in why.stdout and note not in why.stderr
    # the ADR log is still out: lint says so, not that the folder moved
    lint = run_gitmem(clone, "lint").stdout
    assert ("docs/adr: outside this sparse checkout, so its ADRs are not read here: "
            "`git sparse-checkout add docs/adr` brings them in") in lint  # fmt: skip
    assert "moved?" not in lint
    # and, since session 40, so does everything else that reads the decisions (before, only
    # lint did: `list`, `why` and the hooks gave D-0001 alone, as if the log had no ADR)
    out = "docs/adr: outside this sparse checkout"
    for args in (("list",), ("why", "billing/charge.py"), ("search", "postgres")):
        proc = run_gitmem(clone, *args)
        assert "an ADR folder named in .continuity/config.yaml is not read" in proc.stderr, args
    assert out in run_gitmem(clone, "list").stderr
    doctor = json.loads(run_gitmem(clone, "doctor", "--no-model", "--json").stdout)
    records = next(c for c in doctor["checks"] if c["name"] == "records")
    assert not records["ok"] and out in records["detail"]
    for agent in ("claude", "codex", "gemini", "qwen", "copilot"):
        answer = run_agent_hook(clone, f"gitmem hook {agent} session-start",
                                {**start, "session_id": f"a-{agent}"})  # fmt: skip
        assert answer is not None
        told = json.dumps(answer)
        assert "Note: an ADR folder named in .continuity/config.yaml is not read" in told, agent
        if agent != "copilot":  # Copilot CLI shows the user no message from a hook
            assert str(answer["systemMessage"]).startswith(f"gitmem: {out}"), agent

    git(clone, "sparse-checkout", "add", "docs/adr")
    listed = run_gitmem(clone, "list")
    assert "Use PostgreSQL for storage" in listed.stdout and listed.stderr == ""
    answer = run_agent_hook(clone, "gitmem hook claude session-start",
                            {**start, "session_id": "s9"})  # fmt: skip
    assert answer is not None and "systemMessage" not in answer
    assert "not read" not in json.dumps(answer)
    doctor = json.loads(run_gitmem(clone, "doctor", "--no-model", "--json").stdout)
    assert next(c for c in doctor["checks"] if c["name"] == "records")["ok"]
