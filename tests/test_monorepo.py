"""gitmem in a monorepo: the ADR logs its packages keep of their own
(`services/billing/docs/adr`), and agents started in a package's folder.

Before session 67 such a log was read only from its second record, and its ADRs governed
only the paths their text named, looked up across the whole repository: an ADR of the
billing service that named no path reached no tool call in billing, and one naming
`src/money.py` governed every package's `src/money.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import commit_all, run_agent_hook, run_gitmem, write

from gitmem import store

POSTGRES = (
    "# 1. Use PostgreSQL for ledgers\n\nDate: 2024-01-02\n\n## Status\n\nAccepted\n\n"
    "## Decision\n\nLedgers are stored in PostgreSQL.\n"
)
CENTS = (
    "# 2. Money in cents\n\nDate: 2024-02-01\n\n## Status\n\nAccepted\n\n"
    "## Decision\n\nEvery amount in `src/money.py` is an integer number of cents.\n"
)
REACT = (
    "# 1. Use React\n\nDate: 2024-01-03\n\n## Status\n\nAccepted\n\n"
    "## Decision\n\nThe web UI is built from React components.\n"
)
GO = "# 1. Use Go\n\nDate: 2023-05-01\n\n## Status\n\nAccepted\n\n## Decision\n\nGo.\n"


def monorepo(repo: Path) -> Path:
    """A root log for the whole repository, and two services with logs of their own:
    billing's of two ADRs, web's of one."""
    write(repo, "docs/adr/0001-use-go.md", GO)
    write(repo, "services/billing/pyproject.toml", '[project]\nname = "billing"\n')
    write(repo, "services/billing/src/ledger.py", "LEDGER = 1\n")
    write(repo, "services/billing/src/money.py", "CENTS = 100\n")
    write(repo, "services/billing/docs/adr/0001-use-postgres.md", POSTGRES)
    write(repo, "services/billing/docs/adr/0002-money-in-cents.md", CENTS)
    write(repo, "services/web/package.json", '{"name": "web"}\n')
    write(repo, "services/web/src/App.tsx", "export {}\n")
    write(repo, "services/web/src/money.py", "CENTS = 1\n")  # the same name, elsewhere
    write(repo, "services/web/docs/adr/0001-use-react.md", REACT)
    commit_all(repo, "a monorepo")
    return repo


def edit(repo: Path, rel: str) -> str:
    """What Claude Code's pre-tool hook tells the agent before it edits ``rel``."""
    payload = {
        "session_id": f"s-{rel}",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_use_id": "t1",
        "tool_input": {"file_path": str(repo / rel), "old_string": "1", "new_string": "2"},
    }
    answer = run_agent_hook(repo, "gitmem-hook claude pre-tool", payload)
    return json.dumps(answer) if answer else ""


def test_each_package_log_governs_its_package(repo: Path) -> None:
    monorepo(repo)
    result = run_gitmem(repo, "init")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "reading ADRs in place from docs/adr/ (added to .continuity/config.yaml)\n" in out
    # the log of one record is found, and each package's log is named after its package
    assert "from services/billing/docs/adr/ (added to .continuity/config.yaml; ids BILLING-" in out
    assert "from services/web/docs/adr/ (added to .continuity/config.yaml; ids WEB-" in out
    by = store.load(repo).by_id
    assert sorted(by) == ["ADR-0001", "BILLING-0001", "BILLING-0002", "WEB-0001"]
    assert by["BILLING-0001"].globs == ("services/billing/**",)
    # a path an ADR names is read in its own package first, and stays as the more specific
    assert by["BILLING-0002"].globs == ("services/billing/src/money.py", "services/billing/**")
    assert by["WEB-0001"].globs == ("services/web/**",)
    assert by["ADR-0001"].globs == ()  # the whole repository's log: no package to govern
    assert all(d.globs_inferred for d in by.values() if d.globs)

    billing = edit(repo, "services/billing/src/ledger.py")
    assert "Use PostgreSQL for ledgers" in billing and "Money in cents" in billing
    assert "Use React" not in billing
    web = edit(repo, "services/web/src/money.py")
    assert "Use React" in web and "Money in cents" not in web

    why = run_gitmem(repo, "why", "--json", "services/billing/src/money.py")
    assert why.returncode == 0, why.stderr
    text = why.stdout
    # the ADR that names the file ranks first, by its more specific glob
    assert text.index("BILLING-0002") < text.index("BILLING-0001")


def test_an_adr_added_to_a_package_log_after_init_governs_its_package(repo: Path) -> None:
    monorepo(repo)
    assert run_gitmem(repo, "init").returncode == 0
    commit_all(repo, "init")
    new = run_gitmem(repo, "new", "Append-only ledger", "--in", "services/billing/docs/adr")
    assert new.returncode == 0, new.stderr
    rel = new.stdout.strip()
    assert rel.startswith("services/billing/docs/adr/0003-"), new.stdout
    decision = store.load(repo).by_id["BILLING-0003"]
    assert decision.globs == ("services/billing/**",) and decision.globs_inferred
    assert "Append-only ledger" in edit(repo, "services/billing/src/ledger.py")


def test_logs_that_are_not_a_package_s_own(repo: Path) -> None:
    """What the new rules leave alone: a log of one record in a vendored package or under
    a bare `decisions/` folder of the code is not a log of this project, and a log a docs
    site publishes is the whole repository's."""
    write(repo, "node_modules/left-pad/package.json", "{}\n")
    write(repo, "node_modules/left-pad/docs/adr/0001-pad-left.md", "# 1. Pad left\n")
    write(repo, "src/game/decisions/0001-branching.md", "# 1. Branching dialogue\n")
    write(repo, "website/package.json", '{"name": "site"}\n')
    write(repo, "website/docs/adr/0001-use-go.md", GO)
    write(repo, "website/src/pages/index.tsx", "export {}\n")
    commit_all(repo, "vendored, a code folder, a docs site")
    result = run_gitmem(repo, "init")
    assert result.returncode == 0, result.stderr
    config = (repo / ".continuity" / "config.yaml").read_text()
    assert "path: website/docs/adr\n    id_prefix: ADR\n" in config
    assert "node_modules" not in config and "src/game" not in config
    assert store.load(repo).by_id["ADR-0001"].globs == ()


@pytest.mark.parametrize(
    ("folder", "packages", "expected"),
    [
        ("services/billing/docs/adr", {"services/billing"}, "services/billing"),
        ("packages/core/adr", {"packages/core"}, "packages/core"),
        # a docs package inside a service is the service's documentation
        (
            "services/billing/docs/adr",
            {"services/billing", "services/billing/docs"},
            "services/billing",
        ),
        ("docs/adr", {"docs"}, None),  # a docs site at the root publishes the repository's
        ("website/docs/adr", {"website"}, None),
        ("docs/services/billing/adr", {"services/billing"}, None),  # kept in a docs tree
        ("docs/adr", set(), None),
        ("services/billing/docs/adr", set(), None),  # no manifest: not known as a package
    ],
)
def test_the_package_a_log_belongs_to(folder: str, packages: set[str], expected: str) -> None:
    from gitmem.adrglobs import package_of

    assert package_of(folder, packages) == expected


def test_package_manifests_of_the_usual_ecosystems() -> None:
    from gitmem.adrglobs import package_folders

    files = [
        "package.json",  # the root's: the whole repository, not a package of it
        "apps/api/go.mod",
        "libs/money/Cargo.toml",
        "tools/gen/BUILD.bazel",
        "src/Billing/Billing.csproj",
        "services/billing/docs/notes.md",
    ]
    assert package_folders(files) == {"apps/api", "libs/money", "tools/gen", "src/Billing"}


def test_install_and_doctor_say_where_an_agent_must_start(repo: Path, tmp_path: Path) -> None:
    """Claude Code, Gemini CLI, Qwen Code and pi started below the root run none of the
    project's hooks (run for real: tests/test_live_agents.py, `..._started_in_a_subfolder`).
    Before session 67 install said only "added", and doctor run in the package said the
    hooks were installed."""
    monorepo(repo)
    home = tmp_path / "home"
    home.mkdir()

    def gitmem(where: Path, *args: str) -> str:
        result = run_gitmem(where, *args, HOME=str(home))
        assert result.returncode == 0, result.stderr
        return result.stdout

    web = repo / "services" / "web"
    note = "only in the folder it starts in: started in a package of this repository"
    assert f"note: Claude Code reads a project's .claude/ {note} (services/billing/, ...)" in (
        gitmem(repo, "install", "claude")
    )
    gemini = gitmem(web, "install", "gemini")
    assert "note: Gemini CLI reads a project's .gemini/ only in the folder it starts in: " in gemini
    assert "started here (services/web/), it runs none of these hooks." in gemini
    assert "note:" not in gitmem(repo, "install", "codex")  # Codex finds the root's

    doctor = gitmem(web, "doctor", "--no-model")
    assert "!!  claude started here Claude Code started in services/web/ reads a" in doctor
    assert "!!  gemini started here Gemini CLI started in services/web/" in doctor
    assert "codex started here" not in doctor
    assert " started here " not in gitmem(repo, "doctor", "--no-model")  # at the root

    # a package with settings of its own that hold gitmem's hooks: started there, it runs them
    (web / ".claude").mkdir()
    (web / ".claude" / "settings.json").write_text((repo / ".claude/settings.json").read_text())
    assert "claude started here" not in gitmem(web, "doctor", "--no-model")
    # hooks installed for the user run wherever the agent starts; install says nothing then
    assert "note:" not in gitmem(repo, "install", "gemini", "--scope", "user")
    assert "note:" not in gitmem(repo, "install", "gemini")
    assert " started here " not in gitmem(web, "doctor", "--no-model")


def test_install_in_a_repository_without_packages_says_nothing_of_them(repo: Path) -> None:
    write(repo, "billing/charge.py", "x = 1\n")
    commit_all(repo, "one project")
    result = run_gitmem(repo, "install", "claude")
    assert result.returncode == 0 and "note:" not in result.stdout, result.stdout


def test_package_logs_named_after_their_packages() -> None:
    from gitmem.init import id_prefix

    assert id_prefix("docs/adr", set()) == "ADR"  # the whole repository's log
    assert id_prefix("services/billing/docs/adr", set(), "services/billing") == "BILLING"
    # a second package of one name: its parent's; a package named as a folder of the code
    # is not a name (`src`): the first free of the usual ones
    assert id_prefix("services/api/docs/adr", {"API"}, "services/api") == "SERVICES"
    assert id_prefix("src/docs/adr", set(), "src") == "ADR"
    assert id_prefix("src/docs/adr", {"ADR"}, "src") == "ADR2"


@pytest.mark.parametrize("packages", [2, 4])
def test_a_file_named_alone_in_a_package_s_session_is_that_package_s(
    repo: Path, packages: int
) -> None:
    """ "fix the rounding in money.py", written in services/billing: billing's money.py.
    Before session 67 it named every package's (two: web's decision came too), or, in
    more than three packages, none (no decision by path)."""
    monorepo(repo)
    for name in ("ledger", "shop")[: packages - 2]:
        write(repo, f"services/{name}/src/money.py", "CENTS = 1\n")
    write(
        repo,
        ".continuity/decisions/0001-display-formatting.md",
        "---\nid: D-0001\ntitle: Display formatting uses Intl.NumberFormat\n"
        "status: accepted\ndate: 2024-05-01\nglobs: [services/web/src/money.py]\n---\n\n"
        "The web module only formats amounts for display.\n",
    )
    commit_all(repo, "more money modules")
    assert run_gitmem(repo, "init").returncode == 0
    billing = repo / "services" / "billing"
    payload = {
        "session_id": f"s-{packages}",
        "cwd": str(billing),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "fix the rounding in money.py",
    }
    answer = json.dumps(run_agent_hook(billing, "gitmem-hook claude prompt", payload))
    # by its path, as the file named: billing's, not web's (which its words may bring)
    assert "BILLING-0002 (accepted, info) governs services/billing/src/money.py" in answer
    assert "governs services/web/src/money.py" not in answer, answer


def test_a_session_started_in_a_package_is_told_its_decisions(repo: Path) -> None:
    """The agents read a package's own CLAUDE.md or AGENTS.md where a session starts in
    it; gitmem's digest now tells the decisions governing that folder too (before session
    67, a settled project's titles only, all packages' alike)."""
    monorepo(repo)
    assert run_gitmem(repo, "init").returncode == 0

    def digest(cwd: Path, sid: str) -> str:
        payload = {"session_id": sid, "cwd": str(cwd), "hook_event_name": "SessionStart",
                   "source": "startup"}  # fmt: skip
        answer = run_agent_hook(cwd, "gitmem-hook claude session-start", payload)
        assert answer is not None
        return str(answer["hookSpecificOutput"]["additionalContext"])  # type: ignore[index]

    web = digest(repo / "services" / "web", "s-web")
    assert "Decisions governing services/web/, where this session started:\n" in web
    assert "WEB-0001 (accepted, info) applies: Use React." in web
    assert "BILLING-0001" not in web
    # a folder below the package: the decisions governing it, named as the session's folder
    (repo / "services/billing/src").mkdir(exist_ok=True)
    src = digest(repo / "services" / "billing" / "src", "s-src")
    assert "Decisions governing services/billing/src/, where this session started:" in src
    assert "BILLING-0001" in src and "WEB-0001" not in src
    assert "where this session started" not in digest(repo, "s-root")


def globs_of(repo: Path, written: str) -> tuple[str, ...]:
    """The globs of the record `gitmem new` wrote (its path, as it printed it)."""
    (record,) = [d for d in store.load(repo).decisions if d.file == written.strip()]
    return record.globs


def test_a_record_written_in_a_package_governs_it(repo: Path) -> None:
    monorepo(repo)
    billing = repo / "services" / "billing" / "src"
    new = run_gitmem(billing, "new", "Use Redis for idempotency keys")
    assert new.returncode == 0, new.stderr
    assert "it governs services/billing/**, the package it was written in" in new.stderr
    assert globs_of(repo, new.stdout) == ("services/billing/**",)
    # given globs are kept; at the root, or outside a package, none are added
    given = run_gitmem(billing, "new", "Ledger ids", "--glob", "services/billing/src/ids.py")
    assert globs_of(repo, given.stdout) == ("services/billing/src/ids.py",)
    at_root = run_gitmem(repo, "new", "Use Go everywhere")
    assert globs_of(repo, at_root.stdout) == ()
    assert "package it was written in" not in at_root.stderr
