"""The compiled table: bucketed lookups agree with pathspec, and it never goes stale."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pathspec
import pytest
from conftest import decision, write
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gitmem import compile as compiler
from gitmem.globs import GlobError, compile_glob, expand_braces, matches, specificity, split_list
from gitmem.repo import Repo, discover

SEGMENTS = ["src", "billing", "api", "a", "b", "x.py", "y.sql", "Dockerfile", "test_x.py", "mig"]
GLOB_PARTS = [
    "src",
    "billing",
    "api",
    "*",
    "**",
    "*.py",
    "*.sql",
    "Dockerfile",
    "test_*",
    "m?g",
    "[ab]",
]

paths_st = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=5).map("/".join)


@st.composite
def globs_st(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(GLOB_PARTS), min_size=1, max_size=4))
    glob = "/".join(parts)
    if draw(st.booleans()):
        glob = "/" + glob
    if draw(st.booleans()):
        glob += "/"
    return glob


def oracle(globs: list[str]) -> pathspec.PathSpec:
    """pathspec's last-match-wins matcher (what `git check-ignore` does for files, minus the
    rule that a file under an excluded folder cannot be re-included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pathspec.PathSpec.from_lines("gitwildmatch", globs)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(globs_st(), min_size=1, max_size=3), min_size=1, max_size=6),
    st.lists(paths_st, min_size=1, max_size=6),
    st.data(),
)
def test_bucketed_lookup_equals_pathspec(
    tmp_path_factory: object,
    decisions_globs: list[list[str]],
    paths: list[str],
    data: st.DataObject,
) -> None:

    # Some decisions get a negation too, to exercise gitignore's last-match-wins rule.
    all_globs = []
    for globs in decisions_globs:
        if data.draw(st.booleans()):
            globs = [*globs, "!" + data.draw(globs_st())]
        all_globs.append(globs)
    root = Path(tmp_path_factory.mktemp("prop"))  # type: ignore[attr-defined]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for i, globs in enumerate(all_globs, start=1):
        decision(root, f"{i:04d}-d.md", f"D{i}", globs=globs)
    repo = discover(root)
    table = compiler.ensure(repo)
    for path in paths:
        got = {m.entry.id for m in table.match(path)}
        want = set()
        for i, globs in enumerate(all_globs, start=1):
            if oracle(globs).match_file(path):
                want.add(f"D-{i:04d}")
        assert got == want, (path, all_globs)
    table.close()


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("src/**/*.{ts,tsx}", ["src/**/*.ts", "src/**/*.tsx"]),
        ("{a,b{1,2}}/x", ["a/x", "b1/x", "b2/x"]),  # nested
        ("{a,b}/{c,d}", ["a/c", "a/d", "b/c", "b/d"]),
        ("*.{,min.}js", ["*.js", "*.min.js"]),  # an empty alternative
        ("!{a,b}/c", ["!a/c", "!b/c"]),  # each one negated
        ("{a}/b", ["{a}/b"]),  # no comma of its own: literal, as in the shell
        ("{{a,b}}", ["{a}", "{b}"]),
        ("x/\\{a,b}", ["x/\\{a,b}"]),  # escaped
        ("[{,]x", ["[{,]x"]),  # inside a set
        ("a{b", ["a{b"]),  # unclosed
        ("billing/**", ["billing/**"]),
    ],
)
def test_brace_lists_expand_as_in_the_shell(glob: str, expected: list[str]) -> None:
    assert expand_braces(glob) == expected


def test_brace_lists_have_a_limit_and_comma_strings_split_outside_them() -> None:
    with pytest.raises(GlobError, match="more than 64"):
        expand_braces("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}")  # 128
    assert split_list("src/**/*.ts, lib/**") == ["src/**/*.ts", "lib/**"]
    assert split_list("web/*.{ts,tsx}, [,]x,, y ") == ["web/*.{ts,tsx}", "[,]x", "y"]


def test_a_set_in_a_glob_is_also_read_as_part_of_a_name() -> None:
    """Next.js names route folders `[slug]`: `app/blog/[slug]/**` governs that folder, as
    its writer meant, and still what gitignore reads (one of s, l, u, g); the glob is said
    as written. An escaped set is a name only."""
    from gitmem.globs import compile_globs, matches_any

    compiled = compile_globs("app/blog/[slug]/**")
    assert [c.glob for c in compiled] == ["app/blog/[slug]/**"] * 2
    pats = [(c.regex, c.negated, c.glob, c.specificity) for c in compiled]
    for path in ("app/blog/[slug]/page.tsx", "app/blog/s/page.tsx"):
        assert matches(pats, path) is not None, path
    assert not matches_any("app/blog/\\[slug\\]/**", ["app/blog/s/page.tsx"])
    assert all(c.negated for c in compile_globs("!app/[id]/**"))  # a negation stays one
    assert matches_any("app/[...all]/*.ts", ["app/[...all]/page.ts"])  # Next.js catch-all


@settings(max_examples=300, deadline=None)
@given(
    st.lists(globs_st(), min_size=1, max_size=4),
    st.lists(paths_st, max_size=12),
    st.sampled_from(["", "x", "src/x", "billing-2/y.py", "srcx/a", "src.py/z"]),
)
@example(globs=["/src"], paths=["src"], extra="")  # the folder's own name, a file
@example(globs=["/src/**"], paths=["src-1/a", "src.py/x.py"], extra="srcx/a")
def test_searching_by_lookup_key_finds_what_searching_every_file_finds(
    globs: list[str], paths: list[str], extra: str
) -> None:
    """`Files` searches only the files a glob's lookup key names (the commit's check and
    lint, since session 44: 6.2 s became 0.43 s at 200,000 files); it must answer as a
    search of every file does, with the key `compile_globs` gives and with the one the
    check derives from a pattern's glob. `extra` adds names that sort beside a folder's
    files (`billing-2`, `srcx`, `src.py`)."""
    from gitmem.globs import Files, compile_globs, lookup_key, matches_any

    files = [*paths, extra] if extra else paths
    indexed = Files(files)
    for glob in globs:
        plain = matches_any(glob, list(files))
        assert matches_any(glob, indexed) == plain, (glob, files)
        assert plain == any(map(oracle([glob]).match_file, files)) or "[" in glob
        for c in compile_globs(glob):
            if not c.negated:
                want = any(re.search(c.regex, f) for f in files)
                assert indexed.any_match(c.regex, c.key) == want, (c, files)
                assert indexed.any_match(c.regex, lookup_key(c.glob)) == want, (c, files)


def test_specificity_orders_globs() -> None:
    ordered = ["billing/api/charge.py", "billing/api/*.py", "billing/**", "*.py", "**"]
    scores = [specificity(g) for g in ordered]
    assert scores == sorted(scores, reverse=True)


def test_negation_last_match_wins() -> None:
    pats = [
        (c.regex, c.negated, c.glob, c.specificity)
        for c in map(compile_glob, ["a/**", "!a/b/**", "a/b/keep.py"])
    ]
    assert matches(pats, "a/x.py") is not None
    assert matches(pats, "a/b/y.py") is None
    assert matches(pats, "a/b/keep.py") == ("a/b/keep.py", specificity("a/b/keep.py"))


def test_rebuilds_on_edit_add_remove_and_corruption(repo: Path) -> None:
    d1 = decision(repo, "0001-a.md", "A", globs=["src/**"])
    r = discover(repo)
    t = compiler.ensure(r)
    assert [m.entry.id for m in t.match("src/x.py")] == ["D-0001"]
    t.close()
    # in-place edit (same directory mtime)
    text = d1.read_text().replace("src/**", "lib/**")
    with open(d1, "w") as fh:
        fh.write(text)
    os.utime(d1, ns=(d1.stat().st_atime_ns, d1.stat().st_mtime_ns + 1_000_000))
    t = compiler.ensure(r)
    assert t.match("src/x.py") == [] and t.match("lib/x.py")[0].entry.id == "D-0001"
    t.close()
    # a new record in a new sub-folder
    decision(repo, "team/0002-b.md", "B", globs=["lib/**"])
    t = compiler.ensure(r)
    assert {m.entry.id for m in t.match("lib/x.py")} == {"D-0001", "D-0002"}
    t.close()
    d1.unlink()
    t = compiler.ensure(r)
    assert {m.entry.id for m in t.match("lib/x.py")} == {"D-0002"}
    t.close()
    # a corrupt table is rebuilt, not crashed on
    compiler.table_path(r).write_bytes(b"not a database at all")
    t = compiler.ensure(r)
    assert {m.entry.id for m in t.match("lib/x.py")} == {"D-0002"}
    t.close()
    # derived state lives in the git directory, never in the work tree
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True
    )
    assert "gitmem" not in status.stdout and ".git/" not in status.stdout
    assert compiler.table_path(r).is_relative_to(repo / ".git")


def test_killed_build_leaves_old_table(repo: Path) -> None:
    decision(repo, "0001-a.md", "A", globs=["src/**"])
    r = discover(repo)
    compiler.ensure(r).close()
    before = compiler.table_path(r).read_bytes()
    decision(repo, "0002-b.md", "B", globs=["src/**"])
    code = (
        "import os, sqlite3, sys\n"
        "from gitmem import compile as c\n"
        "from gitmem.repo import discover\n"
        "orig = c._write\n"
        "def boom(conn, *a):\n"
        "    orig(conn, *a); os._exit(9)\n"
        "c._write = boom\n"
        "c.build(discover(sys.argv[1]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(repo)])
    assert proc.returncode == 9
    assert compiler.table_path(r).read_bytes() == before
    t = compiler.ensure(r)
    assert {m.entry.id for m in t.match("src/a.py")} == {"D-0001", "D-0002"}
    t.close()


def test_hot_path_modules_are_import_light() -> None:
    code = (
        "import sys\n"
        "import gitmem.table, gitmem.paths, gitmem.repo, gitmem.globs\n"
        "heavy = {'click', 'rich', 'pygit2', 'whoosh', 'fastembed', 'ruamel', 'pathspec', 'numpy'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert write  # keep the helper import used for symmetry with other tests


def test_one_record_edit_reparses_one_file(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitmem import store

    for i in range(1, 21):
        decision(repo, f"{i:04d}-d.md", f"D{i}", globs=[f"m{i}/**"])
    r = discover(repo)
    compiler.ensure(r).close()
    parsed: list[str] = []
    real = store._read_one

    def counting(root: Path, sf: store.SourceFile, entry: object) -> dict[str, object]:
        parsed.append(sf.rel)
        return real(root, sf, entry)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "_read_one", counting)
    decision(repo, "0007-d.md", "Seven renamed", globs=["seven/**"])
    t = compiler.ensure(r)
    assert parsed == [".continuity/decisions/0007-d.md"]
    assert t.match("seven/x")[0].entry.title == "Seven renamed"
    assert t.match("m8/x")[0].entry.id == "D-0008"  # cached records are still there
    t.close()


def test_a_table_of_another_version_is_not_trusted_nor_its_parse_cache(repo: Path) -> None:
    """The parse cache (what each unchanged file parsed into) lives in the table: a table
    written by another gitmem version, whose parser may read files differently, is
    compiled afresh, re-reading every file."""
    import sqlite3

    from gitmem.table import SCHEMA_VERSION

    decision(repo, "0001-a.md", "Alpha", globs=["src/**"])
    r = discover(repo)
    compiler.ensure(r).close()
    path = compiler.table_path(r)
    with sqlite3.connect(path) as conn:  # what an older parser had made of the file
        (payload,) = conn.execute("SELECT payload FROM filecache").fetchone()
        conn.execute("UPDATE filecache SET payload = ?", (payload.replace("Alpha", "Stale"),))
        conn.execute("UPDATE decision SET title = 'Stale'")
    assert compiler.catalog(r).by_id["D-0001"].title == "Stale"  # same version: trusted
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET v = ? WHERE k = 'schema'", (SCHEMA_VERSION + "-old",))
    assert compiler.catalog(r).by_id["D-0001"].title == "Alpha"
    t = compiler.ensure(r)
    assert t.match("src/x.py")[0].entry.title == "Alpha"
    t.close()


def test_keyword_search_skips_words_in_most_records(repo: Path) -> None:
    """Words whose FTS5 term is in more than half of the records have no BM25 weight left;
    the table lists every spelling of them and keyword() leaves them out of its query."""
    for i in range(30):
        word = "ledgers" if i % 2 else "ledger"  # one stem, two spellings
        body = f"## Decision\n\nThe {word} keeps entry {i}; zebra{i} stripes.\n"
        decision(repo, f"{i:04d}-d.md", f"Rule {i}", body=body)
    table = compiler.ensure(discover(repo))
    try:
        common = set(json.loads(table.meta("fts_common") or "[]"))
        assert {"ledger", "ledgers", "the", "keeps"} <= common
        assert "zebra7" not in common
        assert table.keyword(["ledger", "ledgers"]) == []
        hits = table.keyword(["ledger", "zebra7"])
        assert [ident for ident, _ in hits] == ["D-0007"]
    finally:
        table.close()


def test_common_words_survive_small_edits_and_are_recomputed_after_many(repo: Path) -> None:
    for i in range(30):
        decision(repo, f"{i:04d}-d.md", f"Rule {i}", body=f"## Decision\n\nThe ledger {i}.\n")
    r = discover(repo)
    compiler.build(r)

    def meta(key: str) -> str:
        table = compiler.ensure(r)
        try:
            return table.meta(key) or ""
        finally:
            table.close()

    assert "ledger" in json.loads(meta("fts_common"))
    # one edit: the list is kept (drift 1 of the 5 allowed)
    decision(repo, "0000-d.md", "Rule 0", body="## Decision\n\nThe abacus.\n")
    compiler.build(r)
    assert meta("fts_common_drift") == "1" and "ledger" in json.loads(meta("fts_common"))
    # many edits: "ledger" falls below half of the records and the list is recomputed
    for i in range(1, 16):
        decision(repo, f"{i:04d}-d.md", f"Rule {i}", body="## Decision\n\nThe abacus.\n")
    compiler.build(r)
    assert meta("fts_common_drift") == "0"
    assert "ledger" not in json.loads(meta("fts_common"))
    assert "abacus" in json.loads(meta("fts_common"))


def _count_updates(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time a compile updates rows instead of rewriting."""
    updates: list[int] = []
    real_update = compiler._update
    monkeypatch.setattr(
        compiler, "_update", lambda *a, **k: updates.append(1) or real_update(*a, **k)
    )
    return updates


def _rules(repo: Path, count: int) -> Repo:
    """``count`` records spread over three folders, compiled."""
    for i in range(1, count + 1):
        decision(repo, f"{i:04d}-r.md", f"Rule {i}", globs=[f"svc{i % 3}/**"])
    r = discover(repo)
    compiler.build(r)
    return r


def _from_scratch(r: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compile with no memory of earlier compiles (a full write); the common-word list
    and its drift still come from the table on disk, as in any compile."""
    compiler._LAST.clear()
    with monkeypatch.context() as m:
        m.setattr(compiler, "_recall", lambda path: None)
        compiler.build(r)


def _dump(repo: Path) -> tuple[object, ...]:
    import sqlite3

    r = discover(repo)
    conn = sqlite3.connect(compiler.table_path(r))
    try:
        tables = tuple(
            sorted(conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr)
            for name in ("decision", "key", "filecache", "meta")
        )
        fts = sorted(conn.execute("SELECT rowid, content FROM fts").fetchall())
        hits = conn.execute("SELECT rowid FROM fts WHERE fts MATCH 'quokka' ORDER BY rowid")
        return (*tables, fts, hits.fetchall(), compiler.map_path(r).read_bytes())
    finally:
        conn.close()


def test_in_process_update_writes_what_a_full_compile_writes(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived process (gitmem watch) updates the rows of the records that changed;
    the table and path map must be exactly what compiling from scratch gives."""
    r = _rules(repo, 8)
    updates = _count_updates(monkeypatch)
    ddir = repo / ".continuity" / "decisions"
    steps = [
        lambda: decision(repo, "0002-r.md", "Rule two renamed", globs=["svc9/**", "*.sql"]),
        lambda: decision(repo, "0005-r.md", "Rule 5", extra="supersedes: [D-0004]\n"),
        lambda: (ddir / "0007-r.md").write_text(
            (ddir / "0007-r.md").read_text() + "\nquokka quokka\n"
        ),
        lambda: decision(repo, "0003-r.md", "Rule 3", extra="severity: critical\npin: true\n"),
    ]
    for step in steps:
        step()
        compiler.build(r)  # in-process: the update path
        incremental = _dump(repo)
        _from_scratch(r, monkeypatch)
        assert incremental == _dump(repo)
    assert len(updates) == len(steps)
    # another process compiles in between: this process's memory of the table is stale
    decision(repo, "0006-r.md", "Rule 6 from elsewhere", globs=["svc2/x/**"])
    subprocess.run(
        [sys.executable, "-c", "from gitmem import compile, repo; compile.build(repo.discover('.'))"],
        cwd=repo,
        check=True,
    )
    decision(repo, "0008-r.md", "Rule 8 edited here", globs=["svc2/**"])
    compiler.build(r)
    # its memory is dropped, and what that table was compiled from is read from the table
    assert len(updates) == len(steps) + 1
    after_other = _dump(repo)
    _from_scratch(r, monkeypatch)
    assert after_other == _dump(repo)
    # adding a record changes the row numbers: a full rewrite, still correct
    decision(repo, "0004b-new.md", "Inserted", globs=["svc1/**"])
    compiler.build(r)
    assert len(updates) == len(steps) + 1
    assert len(compiler.Table.open(compiler.table_path(r)).entries()) == 9  # type: ignore[union-attr]


def test_prime_remembers_a_current_table_without_writing(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon primes at start when nothing needed compiling: the first edit is then a
    row update, and what it writes equals a compile from scratch."""
    for i in range(1, 6):
        decision(repo, f"{i:04d}-r.md", f"Rule {i}", globs=[f"svc{i}/**"])
    r = discover(repo)
    compiler.build(r)
    compiler._LAST.clear()  # as in a new process
    before = _dump(repo)
    mtime = compiler.table_path(r).stat().st_mtime_ns
    assert compiler.prime(r) is not None
    assert _dump(repo) == before and compiler.table_path(r).stat().st_mtime_ns == mtime
    updates = _count_updates(monkeypatch)
    decision(repo, "0003-r.md", "Rule 3 edited", globs=["svc3/**", "docs/**"])
    compiler.build(r)
    assert updates == [1]
    primed = _dump(repo)
    _from_scratch(r, monkeypatch)
    assert primed == _dump(repo)
    # a stale table is not primed
    decision(repo, "0004-r.md", "Rule 4 edited")
    compiler._LAST.clear()
    assert compiler.prime(r) is None


def test_a_fresh_process_updates_rows_of_the_table_on_disk(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without this process's memory of the last compile, the table's own parse cache and
    row order say what it was compiled from: a fresh process updates rows too, and writes
    exactly what a compile from scratch writes. A duplicate id (a gap in the rows, or a
    record left out) makes it rewrite instead."""
    r = _rules(repo, 7)
    updates = _count_updates(monkeypatch)
    ddir = repo / ".continuity" / "decisions"
    steps = [
        lambda: decision(repo, "0002-r.md", "Rule two renamed", globs=["svc9/**"]),
        lambda: decision(repo, "0005-r.md", "Rule 5", extra="supersedes: [D-0004]\n"),
        lambda: (ddir / "0006-r.md").write_text((ddir / "0006-r.md").read_text() + "\nmore\n"),
    ]
    for step in steps:
        step()
        compiler._LAST.clear()  # a fresh process
        compiler.build(r)
        updated = _dump(repo)
        _from_scratch(r, monkeypatch)
        assert updated == _dump(repo)
    assert len(updates) == len(steps)
    # a duplicate id that supersedes another record, then removed
    decision(repo, "0008-dup.md", "Rule 3 again", extra="id: D-0003\nsupersedes: [D-0001]\n")
    compiler._LAST.clear()
    compiler.build(r)
    (ddir / "0008-dup.md").unlink()
    compiler._LAST.clear()
    compiler.build(r)
    without = _dump(repo)
    _from_scratch(r, monkeypatch)
    assert without == _dump(repo)


def test_a_python_whose_sqlite_lacks_fts5(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Some Pythons' SQLite is built without FTS5 (the hooks' keyword mirror). The compile
    then failed with "no such module: fts5" from deep inside; now it says what is wrong and
    what to do, on the CLI as a one-line error. (An unknown module name stands in for the
    missing one: SQLite gives the same error.)"""
    from click.testing import CliRunner

    from gitmem.cli.main import cli

    write(repo, "src/a.py", "")
    decision(repo, "0001-a.md", "A", globs=["src/**"])
    missing = compiler.SCHEMA_SQL.replace("USING fts5(", "USING fts5_absent(")
    assert missing != compiler.SCHEMA_SQL
    monkeypatch.setattr(compiler, "SCHEMA_SQL", missing)
    result = CliRunner().invoke(cli, ["why", "src/a.py"])
    assert result.exit_code == 1, result.output
    assert "was built without FTS5, which gitmem's match table needs" in result.output
    assert "Traceback" not in result.output
