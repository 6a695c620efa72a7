"""`gitmem renumber`: two branches that each wrote the next record number, merged. Real
repositories, real merges, the installed `gitmem`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import commit_all, decision, git, write
from conftest import run_gitmem as gitmem

GITMEM = shutil.which("gitmem")
pytestmark = [
    pytest.mark.skipif(GITMEM is None, reason="gitmem is not installed"),
    pytest.mark.usefixtures("no_model"),
]
D = ".continuity/decisions"


@pytest.fixture
def merged(repo: Path) -> Path:
    """main and feature each added D-0002 and D-0003 after D-0001; feature's D-0003
    supersedes its own D-0002, and a main record's text names main's D-0002."""
    decision(repo, "0001-first.md", "First")
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    decision(repo, "0002-use-redis.md", "Use Redis for the cache", status="superseded")
    decision(
        repo,
        "0003-redis-cluster.md",
        "Run Redis as a cluster",
        extra="supersedes: [D-0002]\n",
        body="## Decision\n\nA cluster, replacing D-0002.\n",
    )
    commit_all(repo, "feature records")
    git(repo, "checkout", "-q", "-")
    decision(repo, "0002-use-kafka.md", "Use Kafka for events")
    decision(
        repo,
        "0003-kafka-partitions.md",
        "Partition Kafka topics by account",
        body="## Decision\n\nBy account, on the brokers of D-0002.\n",
    )
    commit_all(repo, "main records")
    git(repo, "merge", "-q", "--no-edit", "feature")
    return repo


def ids(repo: Path) -> dict[str, str]:
    listed = gitmem(repo, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return {d["id"]: d["title"] for d in json.loads(listed.stdout)}


def test_the_merged_branch_records_move_and_keep_their_links(merged: Path) -> None:
    lint = gitmem(merged, "lint")
    assert lint.returncode == 1 and "`gitmem renumber` gives the newer record" in lint.stdout

    dry = gitmem(merged, "renumber", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"D-0002 -> D-0004: would move {D}/0002-use-redis.md to {D}/0004-use-redis.md" in (
        dry.stdout
    )
    assert git(merged, "status", "--porcelain") == ""  # a dry run changes nothing

    done = gitmem(merged, "renumber")
    assert done.returncode == 0, done.stderr
    assert f"{D}/0003-redis-cluster.md: its reference to D-0002 now names D-0004" in done.stdout
    assert f"{D}/0003-kafka-partitions.md: mentions D-0002 in its text" in done.stdout
    status = git(merged, "status", "--porcelain").splitlines()
    assert f"R  {D}/0002-use-redis.md -> {D}/0004-use-redis.md" in status  # git mv
    assert any(line.endswith(f"{D}/0005-redis-cluster.md") for line in status)

    assert ids(merged) == {
        "D-0001": "First",
        "D-0002": "Use Kafka for events",  # main's records keep their numbers
        "D-0003": "Partition Kafka topics by account",
        "D-0004": "Use Redis for the cache",
        "D-0005": "Run Redis as a cluster",
    }
    cluster = (merged / D / "0005-redis-cluster.md").read_text()
    assert "supersedes: [D-0004]" in cluster and "replacing D-0002" in cluster  # prose kept
    shown = json.loads(gitmem(merged, "show", "D-0004", "--json").stdout)
    assert shown["superseded_by"] == ["D-0005"]
    lint = gitmem(merged, "lint")
    assert lint.returncode == 0 and "duplicate id" not in lint.stdout + lint.stderr
    assert gitmem(merged, "renumber").stdout.strip() == "no two records share an id"


def test_an_uncommitted_record_moves_and_its_written_id_changes(repo: Path) -> None:
    decision(repo, "0001-first.md", "First", extra="id: D-0001\n")
    commit_all(repo, "base")
    decision(repo, "0001-second.md", "Second", extra="id: D-0001\n")
    done = gitmem(repo, "renumber", "--json")
    assert done.returncode == 0, done.stderr
    (move,) = json.loads(done.stdout)["moves"]
    assert (move["old_file"], move["new_file"], move["new_id"]) == (
        f"{D}/0001-second.md",
        f"{D}/0002-second.md",
        "D-0002",
    )
    assert "id: D-0002\n" in (repo / D / "0002-second.md").read_text()
    assert ids(repo) == {"D-0001": "First", "D-0002": "Second"}
    assert git(repo, "status", "--porcelain").strip() == f"?? {D}/0002-second.md"


def test_records_shared_as_a_submodule_keep_their_numbers(repo: Path, tmp_path: Path) -> None:
    """An organisation's records, added as a submodule under the decisions folder, are
    numbered for every project that shares them. Before session 32 renumber renamed the
    shared record inside the submodule's work tree (and would have rewritten its links):
    now the project's own record moves, and a clash between two shared records is named."""
    org = tmp_path / "org-decisions"
    org.mkdir()
    git(org, "init", "-q", "-b", "main")
    for name, title in [
        ("0002-json-logs.md", "Services log JSON"),
        ("0005-one.md", "Shared five"),
        ("0005-two.md", "Shared five again"),
    ]:
        write(org, name, f"---\ntitle: {title}\nstatus: accepted\n---\n## Decision\n\nx\n")
    commit_all(org, "org decisions")
    decision(repo, "0001-first.md", "First")
    commit_all(repo, "base")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(org), f"{D}/org")
    commit_all(repo, "adopt the organisation's decisions")
    # an uncommitted record takes number 2 and is superseded by another new one
    decision(repo, "0002-local.md", "Local two", status="superseded")
    decision(repo, "0003-local-next.md", "Local three", extra="supersedes: [D-0002]\n")

    done = gitmem(repo, "renumber", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [(m["old_file"], m["new_file"], m["kept_by"]) for m in result["moves"]] == [
        (f"{D}/0002-local.md", f"{D}/0006-local.md", f"{D}/org/0002-json-logs.md")
    ]
    assert result["unfixable"] == [
        f"{D}/org/0005-two.md: id D-0005 (also {D}/org/0005-one.md) is a record of the"
        f" repository at {D}/org; renumber it there"
    ]
    assert git(repo / D / "org", "status", "--porcelain") == ""  # the shared records untouched
    assert "supersedes: [D-0006]" in (repo / D / "0003-local-next.md").read_text()
    assert ids(repo)["D-0002"] == "Services log JSON"
    assert ids(repo)["D-0006"] == "Local two"
