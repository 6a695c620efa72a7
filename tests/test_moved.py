"""gitmem.moved: which ADR an imported.yaml entry's ADR became, by name alone."""

from __future__ import annotations

from gitmem.moved import moves


def test_the_same_name_in_another_folder_is_a_moved_log() -> None:
    listed = ["docs/adr/0001-a.md", "docs/adr/0002-b.md"]
    present = ["docs/decisions/0001-a.md", "docs/decisions/0002-b.md"]
    assert moves(listed, present) == {
        "docs/decisions/0001-a.md": "docs/adr/0001-a.md",
        "docs/decisions/0002-b.md": "docs/adr/0002-b.md",
    }


def test_a_reworded_title_keeps_its_number_and_a_renumbered_one_its_title() -> None:
    listed = ["adr/0001-use-pg.md", "adr/0007-queues.md", "adr/0002-kept.md"]
    present = ["adr/0001-use-postgres.md", "adr/0008-queues.md", "adr/0002-kept.md"]
    assert moves(listed, present) == {
        "adr/0001-use-postgres.md": "adr/0001-use-pg.md",
        "adr/0008-queues.md": "adr/0007-queues.md",
    }


def test_nothing_is_guessed_between_two_candidates() -> None:
    assert moves(["adr/0001-a.md"], ["adr/0001-b.md", "adr/0001-c.md"]) == {}
    assert moves(["adr/0001-a.md", "adr/0001-b.md"], ["adr/0001-c.md"]) == {}
    # the same name in two other folders: neither
    assert moves(["a/0001-x.md"], ["b/0001-x.md", "c/0001-x.md"]) == {}
    # a number in another folder says nothing; nor does an unnumbered name's folder
    assert moves(["a/0001-x.md"], ["b/0001-y.md"]) == {}
    assert moves(["a/intro.md"], ["a/overview.md"]) == {}


def test_listed_and_present_adrs_are_left_alone() -> None:
    assert moves(["a/0001-x.md"], ["a/0001-x.md", "a/0002-y.md"]) == {}
    assert moves([], ["a/0001-x.md"]) == {}
