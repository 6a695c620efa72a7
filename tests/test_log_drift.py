"""ADR logs that drift from what `gitmem init` set up, and say so (since session 68).

`gitmem init` runs once. After it, a package may begin a log of its own, the files an ADR
names may appear or move, and a newer gitmem may infer globs another way (session 67
gave a package's ADRs their package's glob). Before session 68 nothing said any of it:
the new log's ADRs reached no agent, and the old inferred globs stayed as they were.
`gitmem lint` and `gitmem doctor` now name both, with `gitmem init` as the fix, and
`skip_adr_dirs:` in config.yaml leaves a log unread on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit_all, git, run_gitmem, write
from test_monorepo import CENTS, POSTGRES, edit

from gitmem import config

BILLING = "services/billing/docs/adr"
ELASTIC = (
    "# 1. Elasticsearch for search\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\n"
    "## Decision\n\nSearch runs on Elasticsearch.\n"
)
STRIPE = (
    "# 1. Stripe only\n\nDate: 2024-01-05\n\n## Status\n\nAccepted\n\n"
    "## Decision\n\nEvery card payment goes through `src/payments/stripe.py`.\n"
)


def billing(repo: Path) -> Path:
    write(repo, "services/billing/pyproject.toml", '[project]\nname = "billing"\n')
    write(repo, "services/billing/src/money.py", "CENTS = 100\n")
    write(repo, f"{BILLING}/0001-use-postgres.md", POSTGRES)
    write(repo, f"{BILLING}/0002-money-in-cents.md", CENTS)
    commit_all(repo, "billing")
    return repo


def lint(repo: Path) -> list[dict[str, object]]:
    result = run_gitmem(repo, "lint", "--json")
    assert result.returncode == 0, result.stdout + result.stderr  # warnings only
    problems: list[dict[str, object]] = json.loads(result.stdout)["problems"]
    return problems


def logs_check(repo: Path) -> dict[str, object] | None:
    result = run_gitmem(repo, "doctor", "--no-model", "--json")
    checks = json.loads(result.stdout)["checks"]
    return next((c for c in checks if c["name"] == "ADR logs"), None)


def line_of(repo: Path, rel: str, text: str) -> int:
    lines = (repo / rel).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.startswith(text))


def test_a_log_begun_after_init_is_named_until_init_reads_it(repo: Path) -> None:
    billing(repo)
    assert run_gitmem(repo, "init").returncode == 0
    assert lint(repo) == []
    assert logs_check(repo) is None
    # a month later, a second service begins its log
    write(repo, "services/search/package.json", '{"name": "search"}\n')
    write(repo, "services/search/docs/adr/0001-elasticsearch.md", ELASTIC)
    commit_all(repo, "search")

    [problem] = lint(repo)
    assert problem["file"] == ".continuity/config.yaml"
    assert problem["line"] == line_of(repo, ".continuity/config.yaml", f"  - path: {BILLING}")
    assert problem["key"] == "sources"
    assert problem["level"] == "warning"
    message = str(problem["message"])
    assert message.startswith("services/search/docs/adr holds 1 ADR that no source reads")
    assert "`gitmem init` adds it" in message and "skip_adr_dirs" in message
    check = logs_check(repo)
    assert check is not None and check["ok"] is False
    assert "not read: services/search/docs/adr" in str(check["detail"])

    result = run_gitmem(repo, "init")
    assert "from services/search/docs/adr/ (added to .continuity/config.yaml" in result.stdout
    assert lint(repo) == []
    assert logs_check(repo) is None


def test_skip_adr_dirs_leaves_a_log_unread_and_unmentioned(repo: Path) -> None:
    billing(repo)
    write(repo, "examples/engine/package.json", "{}\n")
    write(repo, "examples/engine/docs/adr/0001-elasticsearch.md", ELASTIC)
    commit_all(repo, "a copied project with its own log")
    cfg = repo / ".continuity" / config.CONFIG_NAME
    write(repo, ".continuity/config.yaml", "version: 1\nskip_adr_dirs: [examples/engine]\n")
    result = run_gitmem(repo, "init")
    assert result.returncode == 0, result.stderr
    assert BILLING in cfg.read_text(encoding="utf-8")
    assert "examples/engine/docs/adr" not in cfg.read_text(encoding="utf-8")
    assert lint(repo) == []
    assert logs_check(repo) is None
    # without the setting, both init and lint take the log for one to read
    text = cfg.read_text(encoding="utf-8")
    assert "skip_adr_dirs: [examples/engine]\n" in text
    cfg.write_text(text.replace("skip_adr_dirs: [examples/engine]\n", ""), encoding="utf-8")
    [problem] = lint(repo)
    assert str(problem["message"]).startswith("examples/engine/docs/adr holds 1 ADR")


def test_globs_an_older_gitmem_inferred_are_named_with_what_init_infers_now(
    repo: Path,
) -> None:
    """A repository set up before session 67: its package log's entries lack the
    package's glob. One warning for the log, on its first such entry."""
    billing(repo)
    assert run_gitmem(repo, "init").returncode == 0
    imported = repo / ".continuity" / config.IMPORTED_NAME
    text = imported.read_text(encoding="utf-8")
    assert text.count(", services/billing/**]") == 1 and "[services/billing/**]" in text
    old = text.replace(", services/billing/**]", "]").replace("[services/billing/**]", "[]")
    imported.write_text(old, encoding="utf-8")

    [problem] = lint(repo)
    first = f"{BILLING}/0001-use-postgres.md"
    assert problem["file"] == ".continuity/imported.yaml"
    assert problem["line"] == line_of(repo, ".continuity/imported.yaml", first)
    assert problem["key"] == f"{first}.globs"
    message = str(problem["message"])
    assert "`gitmem init` would now infer otherwise (add services/billing/**)" in message
    assert f"as for 1 other ADR of {BILLING}" in message
    check = logs_check(repo)
    assert check is not None and check["ok"] is True  # the ADRs still load; said, not failed
    assert str(check["detail"]).startswith("2 ADRs with globs inferred by an older gitmem")

    assert run_gitmem(repo, "init").returncode == 0
    assert imported.read_text(encoding="utf-8") == text
    assert lint(repo) == []


def test_reviewed_entries_are_never_compared(repo: Path) -> None:
    billing(repo)
    assert run_gitmem(repo, "init").returncode == 0
    imported = repo / ".continuity" / config.IMPORTED_NAME
    text = imported.read_text(encoding="utf-8")
    mine = text.replace("[services/billing/**]", "[services/billing/src/**]")
    mine = mine.replace("inferred: true", "inferred: false", 1)
    imported.write_text(mine, encoding="utf-8")
    assert lint(repo) == []
    # the same edit left marked `inferred: true` is one init would overwrite: said
    imported.write_text(mine.replace("inferred: false", "inferred: true"), encoding="utf-8")
    [problem] = lint(repo)
    assert "(add services/billing/**; drop services/billing/src/**)" in str(problem["message"])


def test_a_file_an_adr_names_appearing_after_init_is_named(repo: Path) -> None:
    write(repo, "docs/adr/0001-stripe-only.md", STRIPE)
    write(repo, "src/app.py", "APP = 1\n")
    commit_all(repo, "before the payments module")
    assert run_gitmem(repo, "init").returncode == 0
    assert lint(repo) == []
    write(repo, "src/payments/stripe.py", "KEY = None\n")
    commit_all(repo, "the payments module")
    [problem] = lint(repo)
    assert problem["key"] == "docs/adr/0001-stripe-only.md.globs"
    assert "(add src/payments/stripe.py)" in str(problem["message"])
    assert "as for" not in str(problem["message"])


def test_a_log_inside_or_around_a_source_is_not_added_again(repo: Path) -> None:
    """A log named with --adr-dir whose subfolder is also a usual log's name: reading
    the subfolder as a second source gave its ADRs two ids each."""
    write(repo, "doc/architecture/overview.md", "# Overview\n")
    write(repo, "doc/architecture/decisions/0001-stripe-only.md", STRIPE)
    write(repo, "doc/architecture/decisions/0002-money-in-cents.md", CENTS)
    commit_all(repo, "a log kept below a folder of architecture notes")
    result = run_gitmem(repo, "init", "--adr-dir", "doc/architecture")
    assert result.returncode == 0, result.stderr
    cfg = config.load(repo)
    assert [s.path for s in cfg.sources] == ["doc/architecture"]
    assert lint(repo) == []
    assert run_gitmem(repo, "init").returncode == 0
    assert [s.path for s in config.load(repo).sources] == ["doc/architecture"]


def test_numbered_logs_are_found_among_the_files_not_in_ignored_output(repo: Path) -> None:
    """Before session 68 `gitmem init` walked the work tree, and took an ignored build's
    copy of the docs for a log of the project's: one a teammate's clone does not have."""
    billing(repo)
    # a build's copy of the docs, ignored: not a log of the project's
    write(repo, ".gitignore", "site/\n")
    write(repo, "site/design/rfcs/001-queues.md", "# RFC 1: Queues\n")
    write(repo, "site/design/rfcs/002-retries.md", "# RFC 2: Retries\n")
    commit_all(repo, "ignore the built site")
    assert run_gitmem(repo, "init").returncode == 0
    assert [s.path for s in config.load(repo).sources] == [BILLING]
    assert lint(repo) == []
    # the same log, tracked
    write(repo, "design/rfcs/001-queues.md", "# RFC 1: Queues\n")
    write(repo, "design/rfcs/002-retries.md", "# RFC 2: Retries\n")
    git(repo, "add", "design")
    [problem] = lint(repo)
    assert str(problem["message"]).startswith("design/rfcs holds 2 ADRs that no source reads")
    assert run_gitmem(repo, "init").returncode == 0
    assert [s.path for s in config.load(repo).sources] == [BILLING, "design/rfcs"]


def test_the_commit_that_adds_an_adr_to_an_unread_log_says_so(repo: Path) -> None:
    """The moment a package's first ADR is committed is when the log is begun: the
    commit-time check (`gitmem install git`, the pre-commit hook) names it then."""
    billing(repo)
    assert run_gitmem(repo, "init").returncode == 0
    commit_all(repo, "gitmem init")
    write(repo, "README.md", "# The project\n")
    git(repo, "add", "README.md")
    result = run_gitmem(repo, "check", "--staged")
    assert result.returncode == 0 and "no source reads" not in result.stdout + result.stderr
    write(repo, "services/search/package.json", '{"name": "search"}\n')
    write(repo, "services/search/docs/adr/0001-elasticsearch.md", ELASTIC)
    git(repo, "add", "-A")
    result = run_gitmem(repo, "check", "--staged")
    assert result.returncode == 0, result.stdout + result.stderr  # said, never blocked
    said = result.stdout + result.stderr
    assert ".continuity/config.yaml:" in said
    assert "sources: warning: services/search/docs/adr holds 1 ADR that no source reads" in said


# ---------------------------------------------------------------------------------------
# ADRs renamed, logs moved: imported.yaml's entries follow (gitmem.moved)

QUEUES = (
    "# 3. Queue the webhooks\n\nDate: 2024-04-01\n\n## Status\n\nAccepted\n\n"
    "## Decision\n\nWebhooks are queued before they are sent.\n"
)


def reviewed_log(repo: Path) -> Path:
    """docs/adr's first ADR with globs a person reviewed: not what init infers."""
    write(repo, "docs/adr/0001-stripe-only.md", STRIPE)
    write(repo, "docs/adr/0002-money-in-cents.md", CENTS)
    write(repo, "src/payments/stripe.py", "KEY = None\n")
    write(repo, "src/payments/refunds.py", "REFUNDS = 1\n")  # the reviewed glob's alone
    write(repo, "src/money.py", "CENTS = 100\n")
    commit_all(repo, "a log")
    assert run_gitmem(repo, "init").returncode == 0
    imported = repo / ".continuity" / config.IMPORTED_NAME
    text = imported.read_text(encoding="utf-8")
    old = "docs/adr/0001-stripe-only.md:\n  globs: [src/payments/stripe.py]\n  inferred: true\n"
    assert old in text
    mine = "docs/adr/0001-stripe-only.md:\n  globs: [src/payments/**]\n  inferred: false\n"
    imported.write_text(text.replace(old, mine), encoding="utf-8")
    commit_all(repo, "reviewed")
    return imported


def test_a_renamed_adr_keeps_its_reviewed_globs(repo: Path) -> None:
    imported = reviewed_log(repo)
    git(repo, "mv", "docs/adr/0001-stripe-only.md", "docs/adr/0001-cards-go-through-stripe.md")
    # before session 68: globs inferred afresh (src/payments/stripe.py), the review lost,
    # and a new file in src/payments/ brought no decision
    assert "ADR-0001" in edit(repo, "src/payments/refunds.py")
    [problem] = lint(repo)
    assert problem["file"] == "docs/adr/0001-cards-go-through-stripe.md"
    assert problem["key"] == "globs" and problem["level"] == "warning"
    assert str(problem["message"]) == (
        ".continuity/imported.yaml:5 lists it as docs/adr/0001-stripe-only.md, the name it"
        " had: its reviewed globs (src/payments/**) hold; `gitmem init` moves the entry to"
        " its name"
    )
    result = run_gitmem(repo, "init")
    assert (
        "docs/adr/0001-stripe-only.md is now docs/adr/0001-cards-go-through-stripe.md: its"
        " entry in .continuity/imported.yaml moved with it" in result.stdout
    )
    text = imported.read_text(encoding="utf-8")
    assert "docs/adr/0001-cards-go-through-stripe.md:\n  globs: [src/payments/**]\n" in text
    assert "  inferred: false\n" in text and "0001-stripe-only" not in text
    assert text.index("0001-cards") < text.index("0002-money")  # where it was
    assert lint(repo) == []


def test_a_number_changed_by_hand_keeps_the_entry(repo: Path) -> None:
    """Two branches each wrote an 0003; one is renumbered by hand (gitmem renumber only
    names the ADRs of a log read in place)."""
    imported = reviewed_log(repo)
    git(repo, "mv", "docs/adr/0001-stripe-only.md", "docs/adr/0004-stripe-only.md")
    assert "ADR-0004" in edit(repo, "src/payments/refunds.py")
    assert run_gitmem(repo, "init").returncode == 0
    text = imported.read_text(encoding="utf-8")
    assert "docs/adr/0004-stripe-only.md:\n  globs: [src/payments/**]\n" in text


def test_a_moved_log_keeps_its_source_prefix_and_entries(repo: Path) -> None:
    billing(repo)
    assert run_gitmem(repo, "init").returncode == 0
    commit_all(repo, "init")
    cfg = repo / ".continuity" / config.CONFIG_NAME
    imported = repo / ".continuity" / config.IMPORTED_NAME
    before = imported.read_text(encoding="utf-8")
    git(repo, "mv", BILLING, "services/billing/docs/decisions")
    result = run_gitmem(repo, "init")
    assert result.returncode == 0, result.stderr
    assert (
        f"{BILLING}/ moved to services/billing/docs/decisions/: its entry in"
        " .continuity/config.yaml goes, and the ADRs keep their ids" in result.stdout
    )
    sources = config.load(repo).sources
    assert [(s.path, s.id_prefix) for s in sources] == [
        ("services/billing/docs/decisions", "BILLING")
    ]
    assert imported.read_text(encoding="utf-8") == before.replace(
        BILLING, "services/billing/docs/decisions"
    )
    assert "skip_adr_dirs: []" in cfg.read_text(encoding="utf-8")  # the comments kept
    assert lint(repo) == []


def test_an_entry_no_adr_has_is_named_and_an_unclear_rename_is_not_guessed(
    repo: Path,
) -> None:
    imported = reviewed_log(repo)
    git(repo, "rm", "-q", "docs/adr/0001-stripe-only.md")
    # two candidates of one number: which one the entry was is not guessed
    write(repo, "docs/adr/0001-cards.md", STRIPE)
    write(repo, "docs/adr/0001-payments.md", QUEUES)
    problems = lint(repo)
    gone = [p for p in problems if p["file"] == ".continuity/imported.yaml"]
    assert len(gone) == 1
    assert gone[0]["line"] == line_of(
        repo, ".continuity/imported.yaml", "docs/adr/0001-stripe-only.md:"
    )
    assert gone[0]["key"] == "docs/adr/0001-stripe-only.md"
    assert str(gone[0]["message"]).startswith("no ADR read in place has this path")
    assert "the globs reviewed here govern nothing" in str(gone[0]["message"])
    assert run_gitmem(repo, "init").returncode == 0
    assert "docs/adr/0001-stripe-only.md:" in imported.read_text(encoding="utf-8")  # kept
