"""``gitmem stale``: the lines of CLAUDE.md, AGENTS.md and the other agent instruction
files that no longer agree with the code or the decisions.

Each reference ``gitmem.docrefs`` finds is checked against the work tree:

- a path (or link target) that exists neither beside the file, nor from the root, nor as
  the tail of a tracked path (docs abbreviate: ``cli/main.py``), nor on disk; a glob that
  matches no file;
- a symbol that no code file mentions (``git grep -w``, Markdown and text files left out,
  as docs are what goes stale);
- a ``make`` target, package.json script, ``just`` recipe or project ``python -m`` module
  that is not defined;
- a decision id whose record is superseded, deprecated or rejected;
- text that the file's reviewers do not see and the agent reads (``gitmem.hidden``).

These are errors: the line sends the agent somewhere that is not there. A warning (it
does not fail the run) flags a section naming paths that a current decision governs
when that decision is dated after the section's last edit (``git blame``): the section
was written before the decision and may contradict it.

The result is also kept in the git directory (``stale.json``), where the session-start
hook reads it to warn the agent; see ``gitmem.agent.stalenote``.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import posixpath
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gitmem import docrefs, export, git, hidden, tasks, vocab
from gitmem.agent.stalenote import CACHE_NAME, CACHE_VERSION, is_instruction_file
from gitmem.entities import route_path
from gitmem.fsutil import atomic_write
from gitmem.globs import Files, matches_any
from gitmem.repo import Repo
from gitmem.table import Entry, Table

# Files whose mentions of a symbol do not count as the code using it.
DOC_EXTENSIONS = ("md", "mdx", "mdc", "rst", "adoc", "txt")
_GONE = ("superseded", "deprecated", "rejected")


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    section: str
    kind: str  # path, link, glob, symbol, command, decision, newer-decision, hidden
    ref: str
    message: str
    level: str = "error"  # or "warning", which does not fail the run

    def format(self) -> str:
        where = f" [{self.section}]" if self.section else ""
        return f"{vocab.shown_name(self.file)}:{self.line}:{where} {self.kind}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class StaleReport:
    files: tuple[str, ...]
    references: int  # references checked
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = field(default=())  # what could not be checked, and why

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.level == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.level == "warning")

    def to_json(self) -> dict[str, object]:
        return {
            "files": list(self.files),
            "references": self.references,
            "errors": self.errors,
            "warnings": self.warnings,
            "findings": [f.to_json() for f in self.findings],
            "notes": list(self.notes),
        }


def instruction_files(files: list[str]) -> list[str]:
    """The agent instruction files among ``files`` (`stalenote.is_instruction_file`)."""
    return sorted(f for f in files if is_instruction_file(f))


def check(repo: Repo, only: list[str] | None = None) -> StaleReport:
    """Check the instruction files (or ``only`` these repository-relative files)."""
    files = git.ls_files(repo.root)
    docs = (
        only
        if only is not None
        # what `gitmem export` wrote is made from the records (which `gitmem lint` checks)
        # and kept in step by `gitmem export --check`: not read here
        else [d for d in instruction_files(files) if not export.generated(repo.root / d)]
    )
    tree = _Tree(repo.root, files)
    from gitmem import compile as compiler

    table = compiler.ensure(repo)
    try:
        checker = _Checker(repo.root, tree, table)
        for doc in _read_once(repo.root, docs):
            checker.check_file(doc)
        checker.check_symbols()
        checker.check_ignored()
        # a path written twice on one line is one stale line, said once
        findings = sorted(set(checker.findings), key=lambda f: (f.file, f.line, f.kind, f.ref))
        return StaleReport(tuple(docs), checker.count, tuple(findings), tuple(checker.notes))
    finally:
        table.close()


def _read_once(root: Path, docs: list[str]) -> list[str]:
    """The instruction files to read: one of each set that are one file, as `ln -s
    AGENTS.md CLAUDE.md` makes them (how projects give Claude Code and the other agents one
    text): the file itself where it is among them, else the first link to it. Read under
    each name (before session 45), every stale line was said twice, to the user and in the
    agent's session-start note."""
    first: dict[str, str] = {}
    for doc in sorted(docs, key=lambda d: os.path.islink(root / d)):  # files, then links
        first.setdefault(os.path.realpath(root / doc), doc)
    kept = set(first.values())
    return [d for d in docs if d in kept]


# File names most repositories hold several of, or one at the root: another file of the
# name is where a missing one went only if it is in a folder of the same name. Before
# session 45, a missing `.agents/references/README.md` got "did you mean `README.md`?".
_COMMON_STEMS = frozenset(
    {"readme", "index", "__init__", "__main__", "main", "mod", "lib", "page", "layout",
     "route", "conftest", "setup", "package", "pyproject", "cargo", "go", "makefile",
     "dockerfile", "license", "changelog", "contributing", "agents", "claude", "gemini",
     "skill", "config", "settings", "utils", "types", "constants", "app", "server",
     "client", "cli", "base", "models", "schema", "schemas", "test", "tests"}
)  # fmt: skip


def _nearest(rel: str, named: list[str]) -> str | None:
    """Of the files ``named`` as ``rel`` is, the one in the folders most like its own (the
    most folder names in common, leading, as a folder removed from a path leaves them, or
    trailing, as a moved folder does; the first in path order where they tie), if any
    shares one, or the name is rare enough to say where it went on its own."""
    folders = rel.split("/")[:-1]

    def shared(path: str) -> int:
        theirs = path.split("/")[:-1]
        ends = [0, 0]
        for end, (mine, other) in enumerate(((folders, theirs), (folders[::-1], theirs[::-1]))):
            while ends[end] < min(len(mine), len(other)) and mine[ends[end]] == other[ends[end]]:
                ends[end] += 1
        return max(ends)

    best = max(named, key=shared, default=None)  # max keeps the first of a tie
    if best is None or shared(best) > 0:
        return best
    stem = rel.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    return best if len(named) == 1 and stem not in _COMMON_STEMS else None


class _Tree:
    """The repository's files and folders, with lookups by path, tail and glob."""

    def __init__(self, root: Path, files: list[str]) -> None:
        self.root = root
        self.files = set(files)
        self.dirs: set[str] = set()
        for f in files:
            parts = f.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                self.dirs.add("/".join(parts[:i]))
        self._tails: set[str] | None = None
        self._indexed: Files | None = None

    # By file name, and by folder (name -> path), built once: each missing reference had
    # looked for its name in every tracked path, 16 s for a 2,000-line CLAUDE.md in a
    # repository of 10,000 files (session 40).
    @functools.cached_property
    def route_names(self) -> bool:
        """Whether the repository names paths with route segments (Next.js `[slug]`)."""
        return any(route_path(f) for f in self.files)

    @functools.cached_property
    def _by_name(self) -> dict[str, list[str]]:
        by_name: dict[str, list[str]] = {}
        for f in sorted(self.files):
            by_name.setdefault(f.rsplit("/", 1)[-1], []).append(f)
        return by_name

    @functools.cached_property
    def _by_folder(self) -> dict[str, dict[str, str]]:
        by_folder: dict[str, dict[str, str]] = {}
        for f in (*self.files, *self.dirs):
            folder, _, base = f.rpartition("/")
            by_folder.setdefault(folder, {})[base] = f
        return by_folder

    def exists(self, rel: str) -> bool:
        return rel in self.files or rel in self.dirs or (self.root / rel).exists()

    def is_dir(self, rel: str) -> bool:
        return rel in self.dirs or (self.root / rel).is_dir()

    def stem_of(self, rel: str) -> bool:
        """A file is ``rel`` with an extension (``models/__init__.py`` for
        ``models/__init__``): how Python and TypeScript code name a module."""
        folder, _, name = rel.rpartition("/")
        siblings = self._by_folder.get(folder, {})
        return any(b.startswith(name + ".") and p in self.files for b, p in siblings.items())

    def has_tail(self, rel: str) -> bool:
        """Some tracked path ends with ``/rel`` (a doc's shorthand for a nested path)."""
        if self._tails is None:
            tails: set[str] = set()
            for path in (*self.files, *self.dirs):
                parts = path.split("/")
                tails.update("/".join(parts[i:]) for i in range(1, len(parts)))
            self._tails = tails
        return rel in self._tails

    def glob_matches(self, pattern: str) -> bool:
        if self._indexed is None:
            self._indexed = Files(self.files)
        return matches_any(pattern, self._indexed)

    def suggest(self, rel: str) -> str | None:
        """Where a missing path went: the commit that moved or deleted it, else the same
        name elsewhere, else a close name beside it."""
        gone = self.history(rel)
        if gone:
            return gone
        stem, dot, _ = rel.rpartition(".")
        if dot and "/" not in rel[len(stem) :] and self.is_dir(stem):
            return f"`{stem}/` is a folder now"  # a module that became a package
        name = rel.rsplit("/", 1)[-1]
        moved = _nearest(rel, self._by_name.get(name, []))
        if moved:
            return f"did you mean `{moved}`?"
        siblings = self._by_folder.get(rel.rpartition("/")[0], {})
        close = difflib.get_close_matches(name, sorted(siblings), n=1, cutoff=0.75)
        return f"did you mean `{siblings[close[0]]}`?" if close else None

    def history(self, rel: str) -> str | None:
        """ "moved to `X` in abc1234" or "deleted in abc1234 (subject)", from the last
        commit that removed ``rel`` (a bare file name: in any folder; a folder: moved
        with the files in it); None if none did."""
        env = git.no_git_env()
        # a name with `[` is a name (`app/blog/[slug]/page.tsx`), not a pattern, to git too
        spec = [f":(literal){rel}" if "[" in rel else rel] if "/" in rel else [f":(glob)**/{rel}"]
        code, out, _ = git.run(
            ["log", "-1", "--format=%h%x00%s", "--diff-filter=DR", "--", *spec],
            cwd=self.root, check=False, env=env, timeout=10,
        )  # fmt: skip
        if code != 0 or not out.strip():
            return None
        sha, _, subject = out.strip().partition("\0")
        code, out, _ = git.run(
            ["show", "-M", "--format=", "--name-status", "-z", "--no-ext-diff", sha],
            cwd=self.root, check=False, env=env, timeout=10,
        )  # fmt: skip
        fields = out.split("\0")
        for i, status in enumerate(fields):
            old = fields[i + 1] if i + 2 < len(fields) else ""
            if not status.startswith("R"):
                continue
            new = fields[i + 2]
            if (old == rel or old.endswith("/" + rel)) and new in self.files:
                return f"moved to `{new}` in {sha}"
            tail = old[len(rel) :] if old.startswith(rel + "/") else ""
            if tail and new.endswith(tail) and new[: -len(tail)] in self.dirs:
                return f"moved to `{new[: -len(tail)]}/` in {sha}"  # a folder
        return f"deleted in {sha}: {subject[:80]}"


@dataclass(frozen=True)
class _TaskSource:
    """Where a task runner's tasks are defined: the file as said in a finding, its names
    (the nearest one up from the instruction file is read), its reader, what the runner
    calls a task, and whether no such file says nothing (``silent``)."""

    file: str
    names: tuple[str, ...]
    reader: Callable[[Path], set[str] | None]
    word: str
    silent: bool = False


# tox may be configured in pyproject.toml or setup.cfg (not read), poe in a file of its
# own; without a Taskfile, `task` is another program (Taskwarrior's): no file is silent
_TASK_SOURCES = {
    "make": _TaskSource("Makefile", tasks.MAKEFILES, tasks.make_targets, "target"),
    "just": _TaskSource("justfile", tasks.JUSTFILES, tasks.just_recipes, "recipe"),
    "tox": _TaskSource("tox.ini", ("tox.ini",), tasks.tox_envs, "environment", silent=True),
    "nox": _TaskSource("noxfile.py", ("noxfile.py",), tasks.nox_sessions, "session"),
    "poe": _TaskSource(
        "pyproject.toml", ("pyproject.toml",), tasks.poe_tasks, "poe task", silent=True
    ),
    "task": _TaskSource("Taskfile", tasks.TASKFILES, tasks.taskfile_tasks, "task", silent=True),
    "hatch": _TaskSource(
        "hatch.toml or pyproject.toml", tasks.HATCH_FILES, tasks.hatch_envs, "environment"
    ),
}
_NPM_SOURCE = _TaskSource("package.json", ("package.json",), tasks.npm_scripts, "script")
_CARGO_WORDS = {"-p": ("package", "package"), "--bin": ("bin", "binary"),
                "--example": ("example", "example"), "--test": ("test", "test target"),
                "--bench": ("bench", "benchmark")}  # fmt: skip


def _sample(glob: str) -> str:
    """A path the glob matches (`dist/**` -> `dist/x`, `*.gen.ts` -> `x.gen.ts`), to ask
    git whether it ignores such files."""
    out = glob.lstrip("/")
    out = re.sub(r"\[([!^]?)([^\]])[^\]]*\]", lambda m: "x" if m.group(1) else m.group(2), out)
    out = out.replace("**/", "").replace("/**", "/x").replace("**", "x")
    return out.replace("*", "x").replace("?", "x") or "x"


class _Checker:
    def __init__(self, root: Path, tree: _Tree, table: Table) -> None:
        self.root = root
        self.tree = tree
        self.entries = {e.id: e for e in table.entries()}
        self.by_file = {e.file: e for e in self.entries.values()}
        self.table = table
        self.findings: list[Finding] = []
        self.notes: list[str] = []
        self.count = 0
        self._symbols: dict[str, list[tuple[str, int, str, str]]] = {}
        self._tests: dict[str, list[tuple[str, int, str, str]]] = {}  # `go test -run` names
        self._tasks: dict[tuple[str, str], set[str] | None] = {}
        # paths and globs that name nothing here, each with a path it would name: said
        # unless git ignores that path (check_ignored)
        self._unfound: list[tuple[Finding, str]] = []

    def add(self, doc: str, line: int, section: str, kind: str, ref: str, msg: str) -> None:
        level = "warning" if kind == "newer-decision" else "error"
        self.findings.append(Finding(doc, line, section, kind, ref, msg, level))

    def add_unfound(
        self, doc: str, line: int, section: str, kind: str, ref: str, msg: str, probe: str
    ) -> None:
        self._unfound.append((Finding(doc, line, section, kind, ref, msg), probe))

    def check_ignored(self) -> None:
        """Say the paths and globs that name nothing here, but those whose files git
        ignores: build output (`dist/**`, `build/app.js`), dependencies (`node_modules/`),
        generated or local files (`*.generated.ts`, `.env.local`). A doc names them to say
        "never edit" or "the build writes here", and a fresh clone has none of them yet:
        before session 50 each was an error, and `gitmem stale` as a pre-commit hook
        stopped the commit. One `git check-ignore` for all of them."""
        if not self._unfound:
            return
        probes = sorted({probe for _, probe in self._unfound})
        code, out, _ = git.run(
            ["check-ignore", "--stdin", "-z", "--no-index"], cwd=self.root, check=False,
            env=git.no_git_env(), timeout=30,
            input_="".join(p + "\0" for p in probes).encode("utf-8", "surrogateescape"),
        )  # fmt: skip
        ignored = set(out.split("\0")) if code == 0 else set()
        self.findings.extend(f for f, probe in self._unfound if probe not in ignored)

    def check_hidden(self, doc: str, text: str, secs: list[docrefs.Section]) -> None:
        """Text the agent reads and the file's reviewers do not see (`gitmem.hidden`): the
        agent loads the file as it is, and "Rules File Backdoor" (Pillar Security, 2025)
        hid instructions in Cursor's and Copilot's rule files with exactly these. Each
        kind once, at its first line; an error where it hides text, so that `gitmem
        stale` as a pre-commit hook stops the commit adding it."""
        _, found = hidden.visible(text)
        for f in found:
            line = text.count("\n", 0, f.offset) + 1
            section = docrefs.section_of(secs, line).title
            message = hidden.describe(f, "agents read what no reviewer saw: remove them")
            self.findings.append(Finding(doc, line, section, "hidden", f.kind, message, f.level))

    def check_file(self, doc: str) -> None:
        try:
            text = (self.root / doc).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            self.notes.append(f"{doc}: not read ({exc.strerror or exc})")
            return
        lines = text.splitlines()
        secs = docrefs.sections(lines)
        self.check_hidden(doc, text, secs)
        base = posixpath.dirname(doc)
        named: dict[int, set[str]] = {}  # section (its first line) -> existing paths it names
        cited: dict[int, set[str]] = {}  # section -> decision ids it names
        for ref in docrefs.references(lines):
            sec = docrefs.section_of(secs, ref.line)
            section = sec.title
            if ref.kind == "path":
                rel = self.check_path(doc, base, ref, section)
                if rel is not None:
                    named.setdefault(sec.line, set()).add(rel)
            elif ref.kind == "symbol":
                if ref.example:
                    continue  # "e.g. `my_handler()`": a made-up name as often as not
                self.count += 1
                word = re.split(r"\.|::", ref.value)[-1]
                self._symbols.setdefault(word, []).append((doc, ref.line, section, ref.value))
            elif ref.kind == "test":
                self.count += 1
                self._tests.setdefault(ref.value, []).append((doc, ref.line, section, ref.value))
            elif ref.kind == "command":
                self.check_command(doc, base, ref, section)
            elif ref.kind == "token" and ref.value in self.entries:
                self.count += 1
                cited.setdefault(sec.line, set()).add(ref.value)
                self.check_decision(doc, ref.line, section, self.entries[ref.value])
        if named and doc in self.tree.files:
            self.check_newer(doc, secs, named, cited)

    def check_path(self, doc: str, base: str, ref: docrefs.Ref, section: str) -> str | None:
        """Check one path; the repository path it names when it exists (None otherwise,
        and for what is not taken as a path)."""
        value = re.sub(r":\d+(?::\d+)?$|#L\d+.*$", "", ref.value)
        explicit = value.startswith(("./", "../"))  # relative to the file, nowhere else
        while value.startswith("./"):
            value = value[2:]
        value = value.rstrip("/")
        if not value or value == "." or docrefs.placeholder(value):
            return None
        if ref.link and value.startswith("/"):
            candidates = [posixpath.normpath(value.lstrip("/"))]
        else:
            # beside the file, as a Markdown renderer reads a link, then from the root, as
            # an agent reads `docs/x.md` in .github/copilot-instructions.md
            beside = posixpath.normpath(posixpath.join(base, value))
            candidates = [beside] if explicit else [beside, posixpath.normpath(value)]
        candidates = [c for c in dict.fromkeys(candidates) if not c.startswith("..")]
        if not candidates:
            return None
        first = value.split("/", 1)[0]
        at = [posixpath.normpath(posixpath.join(base, first)), first]
        if "/" in value and not any(self.tree.is_dir(f) for f in at):
            if not ref.anchored:
                return None  # "client/server": not a path of this repository
            if first in docrefs.BRANCH_NAMESPACES:
                return None  # `release/3.x`, `origin/main`: a branch, not a folder
        # `app/blog/[slug]/page.tsx`: a name, where the repository names paths this way
        # (Next.js routes); elsewhere a placeholder (`src/[name].ts`)
        route = route_path(value)
        if route and not self.tree.route_names:
            return None
        self.count += 1
        if not route and any(ch in value for ch in "*?["):
            if not any(self.tree.glob_matches(c) for c in candidates):
                msg = f"`{value}` matches no file"
                self.add_unfound(
                    doc, ref.line, section, "glob", value, msg, _sample(candidates[-1])
                )
            return None
        for c in candidates:
            if self.tree.exists(c):
                if c in self.by_file:
                    self.check_decision(doc, ref.line, section, self.by_file[c])
                return c
        for c in candidates:
            if "." not in c.rsplit("/", 1)[-1] and self.tree.stem_of(c):
                return None  # a module named as code imports it: `models/__init__`, `lib/utils`
        if not ref.link and self.tree.has_tail(value):
            return None  # a shorthand for a nested path ("cli/main.py", "conftest.py")
        if ref.example or (not ref.link and "/" not in value):
            # One the repository never held is made up, given as an example ("e.g.
            # `changelog.d/123.fixed.rst`", anyio's AGENTS.md), or a bare name of someone's
            # file elsewhere ("add a model to `config.json`" in $HOME): stale only if it was
            # here once.
            gone = self.tree.history(candidates[-1] if ref.example else value)
            if gone:
                msg = f"`{value}` does not exist ({gone})"
                self.add(doc, ref.line, section, "path", value, msg)
            return None
        missing = candidates[0] if ref.link else candidates[-1]
        # a route's, from history only: every route has a `page.tsx` elsewhere
        where = self.tree.history(missing) if route else self.tree.suggest(missing)
        hint = f" ({where})" if where and f"`{value}`" not in where else ""
        kind = "link" if ref.link else "path"
        msg = f"`{value}` does not exist{hint}"
        self.add_unfound(doc, ref.line, section, kind, value, msg, missing)
        return None

    def check_command(self, doc: str, base: str, ref: docrefs.Ref, section: str) -> None:
        runner, _, arg = ref.value.partition(" ")
        if runner == "python":
            module = arg.removeprefix("-m ").strip()
            found = tasks.python_module(self.root, self.tree.files, module)
            if found is not None:
                self.count += 1
                if not found:
                    self.add(
                        doc, ref.line, section, "command", ref.value,
                        f"`{ref.value}`: no module `{module}` in the repository",
                    )  # fmt: skip
            return
        if runner == "go":
            self.check_go_package(doc, base, ref, section)
            return
        if runner == "cargo":
            self.check_cargo(doc, ref, section, arg)
            return
        name = arg.removeprefix("run ").removeprefix("-e ").removeprefix("-s ").strip()
        if runner == "tox" and tasks.TOX_IMPLICIT.match(name):
            return
        source = _TASK_SOURCES.get(runner, _NPM_SOURCE)
        found_file = tasks.nearest(self.root, base, source.names)
        if found_file is None and source.silent:
            return
        self.count += 1
        if found_file is None:
            msg = f"`{ref.value}`: no {source.file} in {base or 'the root'} or above"
            self.add(doc, ref.line, section, "command", ref.value, msg)
            return
        key = (runner, str(found_file))
        if key not in self._tasks:
            self._tasks[key] = source.reader(found_file)
        defined = self._tasks[key]
        if defined is None or name in defined:
            return
        if runner == "nox" and re.split(r"-(?=\d)|\(", name)[0] in defined:
            return  # a parametrized session: `tests-3.12`, `tests(django='5')`
        rel = found_file.relative_to(self.root).as_posix()
        close = difflib.get_close_matches(name, sorted(defined), n=1, cutoff=0.6)
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        msg = f"`{ref.value}`: {rel} defines no {source.word} `{name}`{hint}"
        self.add(doc, ref.line, section, "command", ref.value, msg)

    def _named(self, name: str) -> list[str]:
        return [f for f in self.tree.files if f == name or f.endswith("/" + name)]

    @functools.cached_property
    def go_modules(self) -> dict[str, str]:
        return tasks.go_modules(self.root, self._named("go.mod"))

    @functools.cached_property
    def cargo(self) -> dict[str, set[str]] | None:
        return tasks.cargo_targets(self.root, self._named("Cargo.toml"))

    def check_go_package(self, doc: str, base: str, ref: docrefs.Ref, section: str) -> None:
        """A package of a ``go`` command: ``./x`` beside the file or from the root (where
        the agent may run it), an import path when one of the repository's modules holds
        it (another module's is not checked)."""
        package = ref.value.removeprefix("go ")
        if package.startswith(("./", "../")):
            beside = posixpath.normpath(posixpath.join(base, package))
            both = dict.fromkeys((beside, posixpath.normpath(package)))
            folders = [f for f in both if not f.startswith("..")]
        else:
            module_folder = tasks.go_package(self.go_modules, package)
            folders = [] if module_folder is None else [module_folder or "."]
        if not folders:
            return
        self.count += 1
        if any(f == "." or self.tree.is_dir(f) for f in folders):
            return
        where = self.tree.suggest(folders[-1])
        hint = f" ({where})" if where else ""
        msg = f"`{ref.value}`: no package folder `{folders[-1]}` in the repository{hint}"
        self.add(doc, ref.line, section, "command", ref.value, msg)

    def check_cargo(self, doc: str, ref: docrefs.Ref, section: str, arg: str) -> None:
        flag, _, name = arg.partition(" ")
        targets = self.cargo
        if targets is None:
            return  # a Cargo.toml that does not parse: not guessed at
        self.count += 1
        if not targets["package"]:
            msg = f"`{ref.value}`: no Cargo.toml with a package in the repository"
            self.add(doc, ref.line, section, "command", ref.value, msg)
            return
        kind, what = _CARGO_WORDS[flag]
        if name in targets[kind]:
            return
        close = difflib.get_close_matches(name, sorted(targets[kind]), n=1, cutoff=0.6)
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        msg = f"`{ref.value}`: no {what} `{name}` in the repository's Cargo.toml files{hint}"
        self.add(doc, ref.line, section, "command", ref.value, msg)

    def check_decision(self, doc: str, line: int, section: str, e: Entry) -> None:
        if e.is_current:
            return
        own = self.by_file.get(doc)
        if own is not None and (own.id in e.superseded_by or e.id in own.supersedes):
            return  # a record naming the decision it replaces (`gitmem stale` on records)
        after = [self.entries[i] for i in e.superseded_by if i in self.entries]
        if after:
            now = "; ".join(f"{s.id}: {s.title}" for s in after)
            msg = f"cites {e.id} ({e.title}), {e.effective_status} by {now}"
        else:
            msg = f"cites {e.id} ({e.title}), which is {e.effective_status}"
        self.add(doc, line, section, "decision", e.id, msg)

    def check_symbols(self) -> None:
        """One ``git grep`` for every symbol of every file, whole words; one more, for the
        names ``go test -run`` selects by, anywhere in a word (an unanchored pattern:
        ``TestStore`` selects ``TestStoreGet``)."""
        for names, whole in ((self._symbols, True), (self._tests, False)):
            seen = self._grep(list(names), whole) if names else None
            if seen is None:
                continue  # nothing to check, or git grep failed (a note says so)
            for word, uses in names.items():
                if word in seen:
                    continue
                for doc, line, section, name in uses:
                    msg = f"`{name}` is not mentioned in any code file"
                    if not whole:
                        msg = f"`go test -run {name}` selects no test: {msg}"
                    self.add(doc, line, section, "symbol", name, msg)

    def _grep(self, words: list[str], whole: bool) -> set[str] | None:
        """Which of ``words`` the code files hold (Markdown and other docs left out). In
        part of a word, the lines are read: ``-o`` prints one match where they overlap."""
        # the user's grep.lineNumber or grep.column would prefix each match with numbers
        args = ["grep", "-I", "-h", "--no-line-number", "--no-column", "-F"]
        args += ["-o", "-w"] if whole else []
        args += ["--untracked", "--no-color"]
        for word in words:
            args += ["-e", word]
        args += ["--", ".", ":(exclude).continuity/**"]
        args += [f":(exclude,glob)**/*.{ext}" for ext in DOC_EXTENSIONS]
        code, out, err = git.run_bytes(args, self.root, env=git.no_git_env(), timeout=60)
        if code not in (0, 1):
            why = " ".join(err.decode("utf-8", "replace").strip().splitlines()[:1])
            self.notes.append(f"symbols not checked: git grep failed ({why})")
            return None
        text = out.decode("utf-8", "replace")
        return set(text.splitlines()) if whole else {w for w in words if w in text}

    def check_newer(
        self, doc: str, secs: list[docrefs.Section], named: dict[int, set[str]],
        cited: dict[int, set[str]],
    ) -> None:  # fmt: skip
        """Warn where a current decision governing a path a section names is dated after
        the section's last edit."""
        times, cut, offsets = _blame_times(self.root, doc)
        if not times:
            return
        hidden: dict[str, None] = {}  # decisions a shallow clone's history cannot place
        hidden_secs, hidden_day = 0, ""
        for sec in secs:
            paths = named.get(sec.line)
            if not paths:
                continue
            last = max(range(sec.line, sec.end + 1), key=lambda n: times.get(n, 0))
            edited = times.get(last, 0)
            if not edited:
                continue
            # the day on the committer's clock (before session 56, UTC's: a section edited
            # in Tokyo on the morning of a decision's date looked edited the day before)
            day = time.strftime("%Y-%m-%d", time.gmtime(edited + offsets.get(last, 0)))
            # git puts every line older than a shallow clone's cut at the cut commit: the
            # section was last edited then *or earlier*, so a decision dated up to that day
            # may be newer than the section, and the clone cannot tell
            unsure = last in cut
            warned: set[str] = set(cited.get(sec.line, ()))
            unplaced = False
            for rel in sorted(paths):
                for m in self.table.match(rel, self.tree.is_dir(rel)):
                    e = m.entry
                    if e.id in warned or not e.is_current or not e.date:
                        continue
                    if e.date <= day:
                        if unsure:
                            hidden[e.id] = None
                            unplaced = True
                        continue
                    warned.add(e.id)
                    msg = (
                        f"{e.id} ({e.title}, {e.date}) governs `{rel}`, named here, and was "
                        f"decided after this section was last edited ({day}): check that "
                        f"they agree"
                    )
                    self.add(doc, sec.line, sec.title, "newer-decision", e.id, msg)
            if unplaced:
                hidden_secs += 1
                hidden_day = day
        if hidden:
            ids = ", ".join(hidden)
            self.notes.append(
                f"{doc}: {vocab.counted(hidden_secs, 'section')} not checked against "
                f"{ids}: this clone is shallow, and their last edit lies at or before its "
                f"oldest commit ({hidden_day}); `git fetch --unshallow` lets gitmem tell "
                "whether they predate those decisions"
            )


def _blame_times(root: Path, doc: str) -> tuple[dict[int, int], frozenset[int], dict[int, int]]:
    """Line number -> commit time of the line's last change (now for uncommitted lines),
    the lines git attributes to a shallow clone's cut (their time is an upper bound), and
    line number -> the committer's UTC offset in seconds (this machine's for uncommitted
    lines): the day of an edit is the day on its committer's clock, as a record's `date:`
    is (`gitmem new` writes the author's today)."""
    promisor = git.promisor_remote(root)
    if promisor:  # each version blame reads would be fetched on its own
        git.fetch_missing(root, promisor, ["HEAD", "--", doc])
    args = ["blame", "--porcelain", "--", doc]
    code, out, _ = git.run(args, cwd=root, check=False, env=git.no_git_env())
    if code != 0:
        # A `blame.ignoreRevsFile` the user set for the repositories that have one makes
        # git fail in one that has not ("could not open object name list"); neither an
        # empty value nor `--ignore-revs-file=` clears it (tried with git 2.39), but
        # `--no-ignore-revs-file` does. Tried second, so the user's file counts where
        # it exists.
        retry = ["blame", "--porcelain", "--no-ignore-revs-file", "--", doc]
        code, out, _ = git.run(retry, cwd=root, check=False, env=git.no_git_env())
    if code != 0:
        return {}, frozenset(), {}
    here = time.localtime().tm_gmtoff
    times: dict[str, int] = {}
    zones: dict[str, int] = {}
    boundary: set[str] = set()  # a root commit, or a shallow clone's cut
    by_line: dict[int, int] = {}
    offsets: dict[int, int] = {}
    at: dict[int, str] = {}
    sha, final = "", 0
    for line in out.split("\n"):  # not splitlines: a form feed in a line is text
        if line.startswith("\t"):
            by_line[final] = times.get(sha, int(time.time()))
            offsets[final] = zones.get(sha, here)
            at[final] = sha
            continue
        parts = line.split(" ")
        if len(parts) >= 3 and len(parts[0]) >= 40 and parts[1].isdigit():
            sha, final = parts[0], int(parts[2])
        elif parts[0] == "committer-time" and len(parts) == 2 and parts[1].isdigit():
            times[sha] = int(parts[1]) if set(sha) != {"0"} else int(time.time())
        elif parts[0] == "committer-tz" and len(parts) == 2 and set(sha) != {"0"}:
            zones[sha] = _utc_offset(parts[1], here)
        elif line == "boundary":
            boundary.add(sha)
    cuts = _shallow_cuts(root) if boundary else frozenset()
    return by_line, frozenset(n for n, s in at.items() if s in cuts), offsets


def _utc_offset(tz: str, default: int) -> int:
    """Git's ``+0900`` / ``-0800`` in seconds (``default`` for anything else)."""
    if len(tz) != 5 or tz[0] not in "+-" or not tz[1:].isdigit():
        return default
    seconds = int(tz[1:3]) * 3600 + int(tz[3:5]) * 60
    return -seconds if tz[0] == "-" else seconds


def _shallow_cuts(root: Path) -> frozenset[str]:
    """The commits where this clone's history was cut (none unless it is shallow)."""
    code, out, _ = git.run(["rev-parse", "--git-path", "shallow"], cwd=root, check=False)
    if code != 0:
        return frozenset()
    path = Path(out.strip())
    try:
        text = (path if path.is_absolute() else root / path).read_text(encoding="utf-8")
    except OSError:
        return frozenset()
    return frozenset(text.split())


# -- the cache the session-start hook reads ------------------------------------------------


def cache_path(repo: Repo) -> Path:
    return repo.state_dir / CACHE_NAME


def write_cache(repo: Repo, report: StaleReport) -> None:
    """Keep the report for the hooks, with each file's (size, mtime_ns) so a file edited
    since is not reported from it."""
    stats: dict[str, list[int]] = {}
    for doc in report.files:
        try:
            st = os.stat(repo.root / doc)
        except OSError:
            continue
        stats[doc] = [st.st_size, st.st_mtime_ns]
    head = git.run(["rev-parse", "-q", "--verify", "HEAD"], cwd=repo.root, check=False)[1]
    data = {
        "version": CACHE_VERSION,
        "head": head.strip(),
        "checked_at": int(time.time()),
        "files": stats,
        "findings": [f.to_json() for f in report.findings if f.level == "error"],
    }
    atomic_write(cache_path(repo), json.dumps(data, indent=1) + "\n")
