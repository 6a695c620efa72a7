"""The hooks' path map: its string tests agree with the regular expressions, its lookups
agree with the SQLite table, and it is written atomically and read defensively."""

from __future__ import annotations

import re
import subprocess
import warnings
from pathlib import Path

import pytest
from conftest import commit_all, decision, run_agent_hook, run_gitmem, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem import compile as compiler
from gitmem import leanjson, pathmap
from gitmem.globs import GlobError, compile_glob
from gitmem.repo import discover

SEGMENT_CHARS = "ab.x_-/*?[]!\\ \n"
GLOB_PARTS = ["src", "a", "b.py", "*", "**", "*.py", "x?", "[ab]", ".env", "a.b", "c++", "(x)"]
PATH_SEGMENTS = ["src", "a", "b.py", "x.py", "xy", "b", ".env", "a.b", "c++", "(x)", "", "\n"]


@st.composite
def globs_st(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 4)) == 0:  # now and then, anything at all
        return draw(st.text(SEGMENT_CHARS, min_size=1, max_size=12))
    glob = "/".join(draw(st.lists(st.sampled_from(GLOB_PARTS), min_size=1, max_size=4)))
    if draw(st.booleans()):
        glob = "/" + glob
    if draw(st.booleans()):
        glob += "/"
    if draw(st.integers(0, 5)) == 0:
        glob = "**/" + glob.lstrip("/")
    return glob


paths_st = st.one_of(
    st.lists(st.sampled_from(PATH_SEGMENTS), min_size=1, max_size=5).map("/".join),
    st.text(SEGMENT_CHARS, max_size=12),
)


@settings(max_examples=600, deadline=None)
@given(globs_st(), st.lists(paths_st, min_size=1, max_size=8))
def test_string_tests_agree_with_the_regex(glob: str, paths: list[str]) -> None:
    try:
        c = compile_glob(glob)
    except GlobError:
        return
    kind, lit = pathmap.classify(c.regex)
    for path in paths:
        for s in (path, path + "/"):
            want = re.search(c.regex, s) is not None
            assert pathmap.hit(kind, lit, c.regex, s) == want, (glob, c.regex, kind, lit, s)


WILD_PARTS = ["*", "**", "a*", "*a", "*a*", "a?", "[ab]*", "b", "x.py", "*.*"]
WILD_PATH_PARTS = ["a", "b", "aa", "ab", "ba", "x.py", "a.a", "aab", "", "\n", "a\n"]


@st.composite
def wild_globs_st(draw: st.DrawFn) -> str:
    """Globs with many unbounded pieces (`*`, `**`): the ones that run on RE2."""
    parts = draw(st.lists(st.sampled_from(WILD_PARTS), min_size=2, max_size=6))
    seps = draw(st.lists(st.sampled_from(["/", ""]), min_size=len(parts), max_size=len(parts)))
    return "".join(p + s for p, s in zip(parts, seps, strict=True)).strip("/") or "*"


@settings(max_examples=500, deadline=None)
@given(
    wild_globs_st(),
    st.lists(st.lists(st.sampled_from(WILD_PATH_PARTS), min_size=1, max_size=5).map("/".join),
             min_size=1, max_size=6),
)  # fmt: skip
def test_patterns_run_on_re2_match_as_re_does(glob: str, paths: list[str]) -> None:
    """A pattern Python's `re` could take seconds over runs on RE2 (see
    `pathmap.LINEAR_FROM`), and must match exactly what `re` matches: short paths, and
    the same behind a folder long enough to send a three-piece pattern to RE2 too."""
    try:
        c = compile_glob(glob)
    except GlobError:
        return
    kind, lit = pathmap.classify(c.regex)
    search = pathmap.searcher(c.regex)
    # `re`, the reference, could itself take minutes over a long path with four pieces
    long = pathmap._linear_from(c.regex) == pathmap.LONG_PATH + 1
    for path in paths:
        for s in (path, path + "/", *(["y" * pathmap.LONG_PATH + "/" + path] if long else [])):
            want = re.search(c.regex, s) is not None
            assert pathmap.hit(kind, lit, c.regex, s) == want, (glob, c.regex, s)
            assert search(s) == want, (glob, c.regex, s)


BRACKETS = ["[[:upper:]]*.py", "file[[:digit:]].txt", "[[]x]", "[![:lower:]]y",
            "[[:alnum:]_]z", "[[:xdigit:]][[:alpha:]]"]  # fmt: skip
NAMES = ["Abc.py", "abc.py", "file1.txt", "filex.txt", "[x]", "x]", "Ay", "ay", "1y", "_z",
         "az", "-z", "fq", "Fq", "gq", "f1"]  # fmt: skip


@pytest.mark.parametrize("glob", BRACKETS)
def test_bracket_expressions_match_as_git_does(glob: str, tmp_path: Path) -> None:
    """git's bracket expressions, POSIX classes and a literal `[` included, as
    `git check-ignore` reads them (pathspec read `[[:upper:]]` as a set and a `]`)."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(glob + "\n")
    proc = subprocess.run(["git", "check-ignore", "--no-index", "--", *NAMES], cwd=tmp_path,
                          capture_output=True, text=True)  # fmt: skip
    by_git = set(proc.stdout.split())
    assert proc.returncode in (0, 1), proc.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a hook would print Python's FutureWarning
        c = compile_glob(glob)
        ours = {name for name in NAMES if re.search(c.regex, name)}
    assert ours == by_git and ours, (glob, c.regex)


def test_a_posix_class_gitmem_does_not_spell_is_refused_by_name() -> None:
    with pytest.raises(GlobError, match=r"\[:punct:\] in '\[\[:punct:\]\]' is not supported"):
        compile_glob("[[:punct:]]")


def test_common_shapes_avoid_the_regex() -> None:
    shapes = {
        "billing/**": "under",
        "billing/": "namedir",
        "/billing/": "under",
        "docs/adr/": "under",
        "billing/api/charge.py": "exact",
        "/billing": "exact",
        "Dockerfile": "name",
        "**/Dockerfile": "name",
        "*.py": "suffix",
        "**/*.sql": "suffix",
        "**": "all",
        "a/*.py": "re",
    }
    for glob, kind in shapes.items():
        assert pathmap.classify(compile_glob(glob).regex)[0] == kind, glob


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(globs_st(), min_size=1, max_size=3), min_size=1, max_size=6),
    st.lists(st.lists(st.sampled_from(PATH_SEGMENTS[:-2]), min_size=1, max_size=4), max_size=6),
)
def test_map_lookups_equal_table_lookups(
    tmp_path_factory: object, decisions_globs: list[list[str]], paths: list[list[str]]
) -> None:
    root = Path(tmp_path_factory.mktemp("pm"))  # type: ignore[attr-defined]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for i, globs in enumerate(decisions_globs, start=1):
        status = "superseded" if i % 4 == 0 else "accepted"
        decision(root, f"{i:04d}-d.md", f"D{i}", globs=globs, status=status)
    repo = discover(root)
    table = compiler.ensure(repo)
    with pathmap.PathMap.open(str(compiler.map_path(repo))) as pm:  # type: ignore[union-attr]
        for parts in [*paths, ["src"], ["a", "b.py"]]:
            path = "/".join(parts)
            for is_dir in (False, True):
                want = [(m.entry.id, m.glob, m.specificity) for m in table.match(path, is_dir)]
                got = [(d.id, glob, spec) for d, glob, spec in pm.match(path, is_dir)]
                assert got == want, (path, is_dir, decisions_globs)
    table.close()


def test_map_is_rebuilt_with_the_table_and_survives_damage(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    decision(tmp_path, "0001-a.md", "A", globs=["src/**"], extra="severity: critical\n")
    repo = discover(tmp_path)
    compiler.build(repo)
    where = str(compiler.map_path(repo))
    with pathmap.PathMap.open(where) as pm:  # type: ignore[union-attr]
        (d, glob, _), *_ = pm.match("src/x.py")
        assert (d.id, d.severity, d.current, glob) == ("D-0001", "critical", True, "src/**")
        assert pm.header["count"] == 1
        assert pm.header["root"] == str(tmp_path)
    # no temp files left beside it
    assert [p.name for p in Path(where).parent.iterdir() if p.name.startswith(".")] == []
    data = Path(where).read_bytes()
    Path(where).write_bytes(data[:-10])  # a torn body: opens, then fails loudly
    pm = pathmap.PathMap.open(where)
    assert pm is not None
    try:
        pm.match("src/x.py")
        raise AssertionError("a truncated map must not answer")
    except ValueError:
        pass
    finally:
        pm.close()
    Path(where).write_bytes(b"garbage\n")
    assert pathmap.PathMap.open(where) is None
    Path(where).unlink()
    assert pathmap.PathMap.open(where) is None


def test_a_repository_whose_decisions_have_no_globs(repo: Path) -> None:
    """No decision has globs (ADRs with nothing inferred, records written without them).
    A compile in a fresh process recalls the last one from the table, which keeps no
    path-map buckets: after one edited record it wrote a map of zero buckets, and from
    then on every tool-call hook failed on it (ZeroDivisionError, logged; the agent got
    nothing, not even the note on a record it had just written). Run as processes, as it
    happened; a zero-bucket map an earlier gitmem left is taken for damage and rebuilt."""
    write(repo, "src/x.py", "x = 1\n")
    record = decision(repo, "0001-a.md", "Money is integer cents")
    commit_all(repo, "a decision without globs")
    assert run_gitmem(repo, "index").returncode == 0
    record.write_text(record.read_text() + "More.\n")  # in place: the folder's mtime stays
    assert run_gitmem(repo, "why", "src/x.py").returncode == 0  # compiles incrementally
    where = str(repo / ".git/gitmem" / pathmap.MAP_NAME)
    with pathmap.PathMap.open(where) as pm:  # type: ignore[union-attr]
        assert pm.header["buckets"] >= 1 and pm.match("src/x.py") == []

    edit = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / "src/x.py"), "old_string": "1", "new_string": "2"},
    }
    assert run_agent_hook(repo, "gitmem-hook claude pre-tool", edit) is None
    assert not (repo / ".git/gitmem/hook-errors.log").exists()

    # the map an earlier gitmem wrote: zero buckets. It opens as missing and is rebuilt.
    data = Path(where).read_bytes().replace(b'"buckets":2,', b'"buckets":0,', 1)
    Path(where).write_bytes(data)
    assert pathmap.PathMap.open(where) is None
    assert run_agent_hook(repo, "gitmem-hook claude pre-tool", edit) is None
    assert not (repo / ".git/gitmem/hook-errors.log").exists()
    with pathmap.PathMap.open(where) as pm:  # type: ignore[union-attr]
        assert pm.header["buckets"] >= 1


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=20,
    )
)
def test_lean_json_round_trips_like_json(value: object) -> None:
    import json

    text = leanjson.dumps(value)
    assert text == json.dumps(value, separators=(",", ":"))
    assert leanjson.loads(text) == json.loads(text)
    assert leanjson.loads("  \n" + json.dumps(value, indent=2) + "\n") == value


def test_lean_json_rejects_what_json_rejects() -> None:
    for bad in ["", "{", "[1] x", "nul", '{"a":1,}', '"\n"']:
        try:
            leanjson.loads(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad!r}")


def test_lean_json_errors_are_value_errors_where_json_was_never_imported() -> None:
    """CPython 3.11's C scanner builds its errors from `json.decoder`; in a fresh hook
    process, where nothing imported `json`, a bad key or an unterminated string made it
    raise SystemError instead (and the log read "returned NULL without setting an
    exception")."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from gitmem import leanjson\n"
        "for bad in ['{not json', '\"abc', '{\"a\": tru}']:\n"
        "    try:\n"
        "        leanjson.loads(bad)\n"
        "    except ValueError as exc:\n"
        "        print(type(exc).__name__, exc)\n"
        "    else:\n"
        "        print('accepted', bad)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr  # a SystemError escapes `except ValueError`
    assert len(proc.stdout.splitlines()) == 3 and "accepted" not in proc.stdout


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=6), max_size=8))
def test_a_deep_paths_keys_are_hashed_as_each_is_alone(parts: list[str]) -> None:
    """The hash of each leading folder's key extends the one before it (a deep path cost
    the square of its length before session 40); it must equal the key's own hash, which
    the map was written with."""
    path = "/".join(parts)
    keyed = pathmap._keyed(path)
    assert [k for k, _ in keyed] == pathmap.path_keys(path)
    assert all(h == pathmap._fnv(k) for k, h in keyed)


def test_what_cannot_name_a_file_is_looked_up_nowhere(repo: Path) -> None:
    """A path longer than PATH_MAX, or with a name longer than NAME_MAX, names no file (a
    pasted blob's "a/b/…" run, a heredoc's base64): no lookup, where one with 50,000
    folders had cost a hook minutes and passed SQLite's limit of bound parameters."""
    name = "n" * pathmap.NAME_MAX
    assert pathmap.could_name_a_file(f"src/{name}")
    assert not pathmap.could_name_a_file(f"src/{name}n")
    deep = "/".join(["d"] * (pathmap.PATH_MAX // 2))  # 4,095 characters: still a path
    assert pathmap.could_name_a_file(deep) and not pathmap.could_name_a_file(deep + "/d")
    decision(repo, "0001-all.md", "Everything", globs=["**"])
    table = compiler.ensure(discover(repo))
    try:
        assert [m.entry.id for m in table.match(deep)] == ["D-0001"]
        assert table.match("/".join(["a"] * 50_000)) == []
        with pathmap.PathMap.open(str(compiler.map_path(discover(repo)))) as pm:  # type: ignore[union-attr]
            assert [d.id for d, _, _ in pm.match(deep)] == ["D-0001"]
            assert pm.match("/".join(["a"] * 50_000)) == []
    finally:
        table.close()
