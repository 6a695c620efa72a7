"""The session state file every hook reads: what the view skips unparsed must be what it
would have ignored parsed (gitmem.agent.state._parse)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem import leanjson
from gitmem.agent import state

# every kind the hooks append (Session.append, claim, first_delivery), with its data
ids = st.lists(st.sampled_from(["D-0001", "D-0002", "ADR-7"]), max_size=3)
paths = st.lists(st.sampled_from(["a.py", "billing/x.py", "docs/"]), max_size=3)
windows = st.sampled_from(["", "a1", "subagent-1"])
entries = st.one_of(
    st.tuples(st.just("shown"), st.fixed_dictionaries({"ids": ids, "a": windows})),
    st.tuples(st.just("reset"), st.fixed_dictionaries({}, optional={"at": st.integers(0, 9)})),
    st.tuples(st.just("closed"), st.fixed_dictionaries({"reason": st.just("exit")})),
    st.tuples(st.just("held"), st.fixed_dictionaries({"text": st.text(max_size=5)})),
    st.tuples(st.just("released"), st.just({})),
    st.tuples(st.just("elsewhere"), st.fixed_dictionaries({"dirs": st.lists(st.text("ab/"))})),
    st.tuples(st.just("subagent"), st.fixed_dictionaries({"on": st.booleans()})),
    st.tuples(st.sampled_from(["read", "edited"]), st.fixed_dictionaries({"paths": paths})),
    st.tuples(st.just("got"), st.fixed_dictionaries({"h": st.text("0123abc", max_size=8)})),
    st.tuples(st.just(state.NOTED), st.fixed_dictionaries({"n": st.integers(0, 5)})),
    st.tuples(st.sampled_from(["stop", "digest", "gone:D-1:a/**", "sho", "res"]), st.just({})),
)
# lines no Session.append writes: a torn line, another key order, not JSON
odd = st.sampled_from(
    [
        '{"k":"sho',
        '{"t":1,"k":"shown","ids":["D-0009"]}',
        '{"t":1,"k":"edited","paths":["z"]}',
        "garbage",
        "",
        '{"k":"shown"',
    ]
)


def _line(entry: tuple[str, dict[str, object]]) -> str:
    kind, data = entry
    return leanjson.dumps({"k": kind, "t": 1.0, **data})


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(entries.map(_line) | odd, max_size=30),
    context=st.sampled_from(["", "a1", None]),
    with_paths=st.booleans(),
)
def test_the_view_skips_only_lines_it_would_ignore(
    lines: list[str], context: str | None, with_paths: bool
) -> None:
    fast = state._parse(lines, context, with_paths)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(state, "_HEAD", "\0")  # no line begins so: every line is parsed
        full = state._parse(lines, context, with_paths)
    for name in state.SessionView.__slots__:
        assert getattr(fast, name) == getattr(full, name), name
    if not with_paths:
        assert fast.read == [] and fast.edited == []  # only the session's end reads them


def test_the_paths_come_with_paths_only() -> None:
    lines = [
        _line(("read", {"paths": ["a.py"]})),
        _line(("edited", {"paths": ["b.py"]})),
        _line(("shown", {"ids": ["D-1"], "a": ""})),
    ]
    view = state._parse(lines, "", paths=True)
    assert (view.read, view.edited, view.shown) == (["a.py"], ["b.py"], {"D-1"})
    assert state._parse(lines, "", paths=False).edited == []
