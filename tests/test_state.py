"""The session state file every hook reads: what the view skips unparsed must be what it
would have ignored parsed (gitmem.agent.state._parse)."""

from __future__ import annotations

import os
import time
from pathlib import Path

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


def _views_agree(shared: str, sid: str, context: str | None) -> None:
    with open(state.session_file(shared, sid), encoding="utf-8") as fh:
        whole = state._parse(fh.read().splitlines(), context, paths=False)
    with state.open_session(shared, sid) as session:
        kept = session.view(context)
    unlocked = state.read_view(shared, sid, context or "", paths=False)
    for name in state.SessionView.__slots__:
        assert getattr(kept, name) == getattr(whole, name), name
        if context is not None:
            assert getattr(unlocked, name) == getattr(whole, name), name


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(entries.map(_line) | odd, max_size=10),
    steps=st.lists(entries | st.just(("-view-file-lost", {})), max_size=20),
    context=st.sampled_from(["", "a1", None]),
)
def test_the_view_file_holds_what_the_state_file_would_say(
    before: list[str], steps: list[tuple[str, dict[str, object]]], context: str | None
) -> None:
    """Since session 50 the tool-call hooks read the view from the session's view file,
    not the whole state file (which grew ~0.17 KB a call: +3.5 ms a hook at 3,000
    calls). Whatever was appended, by this version or before it (``before``: a session
    begun without a view file, with lines no version writes), and where the view file
    was lost midway, the view read from it is the one the whole state file gives."""
    import tempfile

    with tempfile.TemporaryDirectory() as shared:
        sid = "s1"
        path = state.session_file(shared, sid)
        os.makedirs(os.path.dirname(path))
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in before))
        _views_agree(shared, sid, context)  # made from the state file
        for kind, data in steps:
            if kind == "-view-file-lost":
                if os.path.exists(state.view_file(path)):
                    os.unlink(state.view_file(path))
                continue
            with state.open_session(shared, sid) as session:
                assert session.append(kind, **data)
            _views_agree(shared, sid, context)
        _views_agree(shared, sid, context)
        with open(state.view_file(path), encoding="utf-8") as fh:
            kinds = {leanjson.loads(line)["k"] for line in fh.read().splitlines()}
        assert kinds <= state._VIEW_KINDS


def test_a_long_sessions_view_file_stays_small_and_goes_with_it(tmp_path: Path) -> None:
    """The view file holds the view's lines only, and tidying removes it with the state
    file it copies (else a session resumed after two weeks, whose state starts afresh,
    would read the old view and not be shown its decisions again)."""
    from gitmem import tidy

    shared = str(tmp_path)
    with state.open_session(shared, "long") as session:
        session.append("shown", ids=["D-0001"], event="pre-tool")
        for i in range(500):
            session.append("got", h=f"post-tool-{i:016x}-200")
            session.append("read", paths=[f"src/m{i}.py"], tool="Read")
    path = state.session_file(shared, "long")
    side = state.view_file(path)
    assert os.path.getsize(side) < 200 < os.path.getsize(path) // 100
    assert state.read_view(shared, "long", paths=False).shown == {"D-0001"}
    old = time.time() - tidy.SESSION_IDLE_S - 60
    os.utime(path, (old, old))
    assert tidy.tidy(tmp_path, force=True) == 1
    assert not os.path.exists(path) and not os.path.exists(side)
    with state.open_session(shared, "long") as session:  # resumed: starts afresh
        assert session.view().shown == set()
    # a view file whose state file a gitmem before session 50 removed alone goes too
    with state.open_session(shared, "old") as session:
        session.append("shown", ids=["D-0001"], event="pre-tool")
    os.unlink(state.session_file(shared, "old"))
    orphan = state.view_file(state.session_file(shared, "old"))
    os.utime(orphan, (old, old))
    assert tidy.tidy(tmp_path, force=True) == 1 and not os.path.exists(orphan)
    cut_off = orphan + ".4242.tmp"  # a view file's write cut off (killed midway)
    Path(cut_off).touch()
    os.utime(cut_off, (old, old))
    assert tidy.tidy(tmp_path, force=True) == 1 and not os.path.exists(cut_off)


def test_bytes_that_are_not_utf8_cost_their_line_only(tmp_path: Path) -> None:
    """A state file or view file holding bytes that are not UTF-8 (gitmem writes ASCII:
    a disk's or another program's damage) raised UnicodeDecodeError in every hook of the
    session before session 50, each failing open with nothing said. Such a line is now
    skipped like a torn one, and the others are read."""
    shared = str(tmp_path)
    with state.open_session(shared, "s") as session:
        session.append("shown", ids=["D-0001"], event="pre-tool")
    path = state.session_file(shared, "s")
    for damaged in (path, state.view_file(path)):
        with open(damaged, "ab") as fh:
            fh.write(b'\xff\xfe{"k":"shown"\n')
    with state.open_session(shared, "s") as session:
        assert session.view().shown == {"D-0001"}
        assert session.append("shown", ids=["D-0002"], event="pre-tool")
    os.unlink(state.view_file(path))  # made again from the damaged state file
    assert state.read_view(shared, "s", paths=False).shown == {"D-0001", "D-0002"}
    with state.open_session(shared, "s") as session:
        assert session.view().shown == {"D-0001", "D-0002"}
    assert state.claim(shared, "s", "digest")
