"""Globs inferred for ADRs, which carry none: the repository paths and module names each
mentions (links, code spans, paths, dotted and qualified names, distinctive file and folder
names), resolved against the repository's files; and the monorepo packages a log belongs
to. Written to ``.continuity/imported.yaml`` as ``inferred: true`` for a human to review.
Apart from ``gitmem.adrimport`` since session 75.
"""

from __future__ import annotations

import gc
import os
import re
from collections import defaultdict
from pathlib import Path, PurePosixPath

from gitmem import fsutil
from gitmem.adrimport import adr_files
from gitmem.entities import PATH_SEGMENT, RELATIVE_HEADS, STANDARD_LIBRARIES, route_path

_GENERIC = {
    "src",
    "lib",
    "libs",
    "test",
    "tests",
    "docs",
    "doc",
    "app",
    "apps",
    "cmd",
    "pkg",
    "internal",
    "utils",
    "util",
    "common",
    "main",
    "core",
    "build",
    "scripts",
    "tools",
    "bin",
    "config",
    "configs",
    "types",
    "api",
    "index",
    "data",
    "spec",
    "specs",
    "example",
    "examples",
    "readme",
    "license",
    "java",
    "scala",
    "python",
    "go",
    "js",
    "ts",
    "resources",
    "target",
    "dist",
    "vendor",
    "node_modules",
    "the",
    "and",
    "for",
    "with",
    "this",
    "that",
    "github",
    "http",
    "https",
    "www",
    "com",
    "org",
    "io",
    "net",
    "md",
    "x",
    "v1",
    "v2",
}
# a leading dot is a hidden file's or folder's (`.github/workflows/ci.yml`, `.eslintrc.json`),
# unless it follows a word, a dot or a slash (an ellipsis, `a..b`); before session 74 it was
# dropped, and `github/workflows/ci.yml` named nothing
_TOKEN = re.compile(r"(?:(?<![\w./-])\.)?[A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_]")
# what a mentioned path starts with that is not part of it: `./`, `../` (read as a partial
# path) and `/` (the repository's root)
_PATH_LEAD = re.compile(r"^(?:\.{1,2}/|/)+")
MAX_INFERRED = 12
# A name that parallel folders share (in parents of one name) and that together hold more
# than this share of the repository's files is its namespace, not a part of it: a
# project's own name as its root package in main and test trees. (`server/` beside
# `tests/server/` is a part, however large.) (Across a log of 6 records or more, `infer_all`
# also drops globs most records share; this catches it in a small log too.)
NAMESPACE_SHARE = 0.5


class RepoLayout:
    """The repository's paths, indexed for matching what an ADR's text mentions."""

    def __init__(self, files: list[str], exclude_prefixes: tuple[str, ...] = ()) -> None:
        # the collector would walk the growing indexes again and again as they fill (a
        # third of the time for 200,000 files): nothing here is a cycle
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._index(files, exclude_prefixes)
        finally:
            if enabled:
                gc.enable()

    def _index(self, files: list[str], exclude_prefixes: tuple[str, ...]) -> None:
        self.files = {f for f in files if not f.startswith(exclude_prefixes)}
        self.dirs: set[str] = set()
        self.by_dirname: dict[str, set[str]] = defaultdict(set)
        self.by_basename: dict[str, list[str]] = {}
        self.by_stem: dict[str, list[str]] = {}
        self.held: dict[str, int] = defaultdict(int)  # folder -> files under it
        # each file's folder is counted once, and a folder's parents are walked only the
        # first time it is seen, not every parent of every file (since session 68, when
        # lint began to infer globs as init does)
        direct: dict[str, int] = defaultdict(int)
        for f in self.files:
            cut = f.rfind("/")
            name = f[cut + 1 :].lower()
            got = self.by_basename.get(name)  # lists, not sets: one of each name is usual
            if got is None:
                self.by_basename[name] = [f]
            else:
                got.append(f)
            dot = name.rfind(".")
            stem = name[:dot] if dot >= 0 else name  # `.env`: none
            if stem:
                got = self.by_stem.get(stem)
                if got is None:
                    self.by_stem[stem] = [f]
                else:
                    got.append(f)
            if cut < 0:
                continue
            d = f[:cut]
            direct[d] += 1
            while d not in self.dirs:
                self.dirs.add(d)
                up = d.rfind("/")
                self.by_dirname[d[up + 1 :].lower()].add(d)
                if up < 0:
                    break
                d = d[:up]
        for d in sorted(self.dirs, key=lambda d: d.count("/"), reverse=True):
            self.held[d] += direct.get(d, 0)  # its children, deeper, have added theirs
            up = d.rfind("/")
            if up >= 0:
                self.held[d[:up]] += self.held[d]

    def resolve(self, token: str, within: str | None = None) -> list[str]:
        """Globs for one mentioned token, most specific first; [] when it names nothing.
        ``within``: the package whose ADR log mentions it (``services/billing``), where a
        path is read first, and whose paths win over the same names elsewhere: its ADRs
        write `src/ledger.py` for ``services/billing/src/ledger.py``."""
        if QUALIFIED_JOIN in token:
            return self._module(token.split(QUALIFIED_JOIN), within)
        t = _PATH_LEAD.sub("", token).rstrip("./")  # `.github/` keeps its dot
        if t.startswith("."):
            hidden = self._resolve(t, within)
            if hidden:
                return hidden
            t = t.lstrip(".")  # `.json` (JSON files) is read as the word, as before
        return self._resolve(t, within) if t else []

    def _resolve(self, t: str, within: str | None) -> list[str]:
        """``resolve`` for a token without what a path starts with (``_PATH_LEAD``)."""
        for base in (f"{within}/{t}", t) if within else (t,):
            if base in self.files:
                return [base]
            if base in self.dirs:
                return [base + "/**"]
        low = t.lower()
        if "/" in t:
            # A partial path: match it as a suffix of real paths; without an extension, of
            # files' too (`storage/engine` for `src/storage/engine.rs`, since session 75)
            hits = [d + "/**" for d in self.dirs if d.lower().endswith("/" + low)]
            hits += [f for f in self.files if f.lower().endswith("/" + low)]
            if not hits and "." not in low.rsplit("/", 1)[-1]:
                hits = [f for f in self.files if _stem_path(f.lower()).endswith("/" + low)]
            hits = _inside(hits, within)
            return sorted(hits)[:3] if 0 < len(hits) <= 3 else []
        if "." in t and not t.startswith(".") and t.count(".") >= 2:
            # A dotted module name (``at.forsyte.apalache.io``, ``gitmem.store``).
            as_path = low.replace(".", "/")
            hits = [d + "/**" for d in self.dirs if d.lower().endswith(as_path)]
            hits += [f for f in self.files if f.lower().rsplit(".", 1)[0].endswith(as_path)]
            hits = _inside(hits, within)
            return sorted(hits)[:3] if 0 < len(hits) <= 3 else self._owner(t, within)
        if low in _GENERIC or len(low) < 3:
            return []
        named = _inside(list(self.by_basename.get(low, ())), within)
        if named and len(named) <= 3:
            return sorted(named)
        dirs = set(_inside(list(self.by_dirname.get(low, ())), within))
        if dirs and len(dirs) <= 3:
            if self._namespace(dirs):
                return []  # `src/{main,test}/java/org/acme` for "Acme": the whole project
            return sorted(d + "/**" for d in dirs)
        # a file stem only for a code name: an acronym in capitals ("a CLI flag") is prose
        stems = _inside(list(self.by_stem.get(low, ())), within)
        if stems and len(stems) <= 2 and _identifier_like(t) and not t.isupper():
            return sorted(stems)
        return self._owner(t, within)

    def _module(self, parts: list[str], within: str | None) -> list[str]:
        """A qualified name's globs (``_qualified_names``): the longest start of it that
        names a path (`storage::engine::Compactor`: `src/storage/engine.rs`, the module
        that holds the type), down to its first part alone, read as any token is."""
        for n in range(len(parts), 1, -1):
            hits = self._resolve("/".join(parts[:n]), within)
            if hits:
                return hits
        return self._resolve(parts[0], within) if parts else []

    def _owner(self, token: str, within: str | None) -> list[str]:
        """The file of the type a member is named by (`AuthenticationController.Login`,
        `OrderService.placeOrder()`: `AuthenticationController.cs`), when the name before
        the dot is a code name and a file stem. C#, Java, Kotlin, Scala and TypeScript
        ADRs name the code they govern so; before session 74 such a name matched nothing
        (only the whole token was looked up, as a file name). A lower-case head
        (`store.load`, Go's `square.Build`) is a word or a package, and stays one."""
        head, dot, _ = token.partition(".")
        if not dot or not _identifier_like(head) or head.isupper():
            return []
        stems = _inside(list(self.by_stem.get(head.lower(), ())), within)
        return sorted(stems) if 0 < len(stems) <= 2 else []

    def _namespace(self, dirs: set[str]) -> bool:
        """Parallel folders of one name in the same kind of parent (``org/acme`` in a main
        and a test tree) that together hold most of the repository."""
        parents = {PurePosixPath(d).parent.name for d in dirs}
        held = sum(self.held[d] for d in dirs)
        return len(dirs) > 1 and len(parents) == 1 and held > NAMESPACE_SHARE * len(self.files)


def _stem_path(path: str) -> str:
    """``path`` without its file's extension, after a "/" (``/src/storage/engine`` for
    ``src/storage/engine.rs``): for a suffix match at a folder's boundary."""
    cut = path.rfind("/")
    dot = path.rfind(".")
    return "/" + (path[:dot] if dot > cut + 1 else path)


def _inside(hits: list[str], within: str | None) -> list[str]:
    """The ``hits`` inside the package ``within`` where there are any, else all of them."""
    if not within:
        return hits
    inside = [h for h in hits if h.startswith(within + "/")]
    return inside or hits


def _identifier_like(token: str) -> bool:
    """Mixed case or snake_case: likely a code name, not an English word."""
    return ("_" in token) or (
        token != token.lower() and token != token.upper()[:1] + token[1:].lower()
    )


_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"`([^`\n]{2,160})`")
_URL = re.compile(r"https?://\S+")
_REPO_URL_PATH = re.compile(r"/(?:blob|tree)/[^/\s]+/([^\s)#?]+)")
# a command-line option's name (`--features=no-rows`, `-Xmx`) names no path; its value may
_OPTION = re.compile(r"(?<![\w/.-])--?[A-Za-z][\w-]*")
MAX_SHARE = 0.35  # a glob inferred for more of an ADR log's records than this says nothing


# A path with a route segment (Next.js `app/blog/[slug]/page.tsx`, `app/(site)/about`):
# read whole, before the words are split at its brackets (which gave `app/blog`, so the
# decision governed the whole blog; before session 42).
_ROUTE_PATH = re.compile(rf"(?<![\w/.\[(-]){PATH_SEGMENT}(?:/{PATH_SEGMENT})+/?")


# A qualified name of the languages that write a module path with `::` or `\` (Rust's
# `crate::storage::engine::Compactor`, C++'s `billing::Ledger`, PHP's
# `App\Http\Controllers\UserController`), read as the path it names (since session 75:
# before, its parts were read one by one, as words). A Windows path (`src\app\x.py`) is a
# path with `/`.
_QUALIFIED = re.compile(
    r"(?<![\w:\\])\\?((?:[A-Za-z_]\w*(?:::|\\))+[A-Za-z_]\w*)(\.[A-Za-z]\w{0,7})?(?![\w:\\])"
)
# what joins a qualified name's parts in a token for `RepoLayout.resolve` (no path holds it)
QUALIFIED_JOIN = "\\"


def _qualified_names(text: str, out: list[str]) -> str:
    """``text`` less its qualified names, which go to ``out`` as tokens (parts joined by
    QUALIFIED_JOIN) that `RepoLayout.resolve` reads as a module path."""

    def take(match: re.Match[str]) -> str:
        parts = re.split(r"::|\\", match.group(1))
        if "\\" in match.group(0) and any(p.startswith("_") for p in parts[1:]):
            return match.group(0).replace("\\", "")  # Markdown's escapes: `my\_name`
        if match.group(2):  # `src\app\x.py`
            out.append("/".join(parts) + match.group(2))
            return " "
        if parts[0] in STANDARD_LIBRARIES:  # `std::vector`: none of the repository's
            return " "
        while parts and parts[0] in RELATIVE_HEADS:
            parts = parts[1:]
        if parts:
            out.append(QUALIFIED_JOIN.join(parts))
        return " "

    return _QUALIFIED.sub(take, text) if "::" in text or "\\" in text else text


def _route_paths(text: str, out: list[str]) -> str:
    """``text`` less its paths with a route segment, which go to ``out``."""

    def take(match: re.Match[str]) -> str:
        token = match.group(0)
        if not route_path(token):
            return token
        out.append(token.rstrip("/"))
        return " "

    return _ROUTE_PATH.sub(take, text) if "/" in text else text


def mentions(text: str, adr_rel: str = "") -> list[str]:
    """Tokens of an ADR that may name repository paths or modules, strongest first:
    relative links and repository URLs, code spans, then code-like words of the prose
    (paths, dotted/snake_case/CamelCase names; plain English words only count inside code
    spans). Command-line options' names are left out: `--features` is a flag, not the
    `features/` folder."""
    out: list[str] = []
    base = PurePosixPath(adr_rel).parent
    for target in _LINK_TARGET.findall(text):
        if target.startswith(("http://", "https://")):
            match = _REPO_URL_PATH.search(target)
            if match:
                out.append(match.group(1))
            continue
        if target.startswith(("#", "mailto:")):
            continue
        joined = os.path.normpath((base / target.split("#", 1)[0]).as_posix())
        if not joined.startswith(".."):
            out.append(joined)
    for match in _URL.findall(text):
        found = _REPO_URL_PATH.search(match)
        if found:
            out.append(found.group(1))
    for span in _CODE_SPAN.findall(text):
        span = _qualified_names(_route_paths(span, out), out)
        out.extend(_TOKEN.findall(_OPTION.sub(" ", span)))
    prose = _URL.sub(" ", _CODE_SPAN.sub(" ", _LINK_TARGET.sub("]", text)))
    prose = _qualified_names(_route_paths(prose, out), out)
    for token in _TOKEN.findall(_OPTION.sub(" ", prose)):
        if "/" in token or re.search(r"\.[A-Za-z]{1,5}$", token) or _identifier_like(token):
            out.append(token)
    return out


def infer_globs(
    text: str, layout: RepoLayout, adr_rel: str = "", within: str | None = None
) -> list[str]:
    """Globs for the paths and modules an ADR's text mentions that exist in the repository,
    most mentioned first (``within``: see ``RepoLayout.resolve``)."""
    counts: dict[str, int] = defaultdict(int)
    order: list[str] = []
    for token in mentions(text, adr_rel):
        for glob in layout.resolve(token, within):
            if glob not in counts:
                order.append(glob)
            counts[glob] += 1
    first = {g: i for i, g in enumerate(order)}
    order.sort(key=lambda g: (-counts[g], first[g]))
    return _prune(order)


def infer_all(
    texts: dict[str, str], layout: RepoLayout, within: str | None = None
) -> dict[str, list[str]]:
    """Infer globs for every ADR of a log, then drop globs that most records share (the
    project's own name matching a folder, an umbrella folder): they do not discriminate."""
    raw = {rel: infer_globs(text, layout, rel, within) for rel, text in texts.items()}
    df: dict[str, int] = defaultdict(int)
    for globs in raw.values():
        for g in set(globs):
            df[g] += 1
    limit = max(2, int(MAX_SHARE * len(texts))) if len(texts) >= 6 else len(texts)
    return {rel: [g for g in globs if df[g] <= limit][:MAX_INFERRED] for rel, globs in raw.items()}


def infer_logs(
    root: Path, folders: list[str], files: list[str], wanted: set[str] | None = None
) -> dict[str, list[str]]:
    """Globs for every ADR of the logs in ``folders`` (``wanted``: only those logs), from
    the repository's ``files``: what ``gitmem init`` writes to imported.yaml, and what
    loading infers for an ADR added to a log since ``init`` last ran. The logs' own
    folders and ``.continuity/`` are no evidence."""
    excluded = (*tuple(f.rstrip("/") + "/" for f in folders), ".continuity/")
    layout = RepoLayout(files, excluded)
    packages = package_folders(files)
    out: dict[str, list[str]] = {}
    for folder in folders:
        if wanted is not None and folder not in wanted:
            continue
        texts: dict[str, str] = {}
        for path in adr_files(root / folder):
            rel = path.relative_to(root).as_posix()
            try:
                texts[rel] = fsutil.inside(root, rel).read_text("utf-8", errors="replace")
            except OSError:  # loading says why it is not read
                continue
        package = package_of(folder, packages)
        inferred = infer_all(texts, layout, package)
        if package is not None:
            # the log's place says what it governs: its package, whatever else each ADR
            # names (kept, as more specific, to rank it first for those paths)
            scope = package + "/**"
            for globs in inferred.values():
                if not any(g.endswith("/**") and scope.startswith(g[:-2]) for g in globs):
                    globs.append(scope)
        out.update(inferred)
    return out


# What marks a folder of a monorepo as a package of its own: the manifests of the
# ecosystems' package managers and build tools (Nx's project.json, Bazel's BUILD files).
PACKAGE_MANIFESTS = frozenset({
    "package.json", "deno.json", "deno.jsonc", "project.json", "pyproject.toml", "setup.py",
    "setup.cfg", "go.mod", "Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts",
    "build.sbt", "composer.json", "Gemfile", "mix.exs", "Package.swift", "pubspec.yaml",
    "BUILD", "BUILD.bazel", "dune-project", "stack.yaml", "rebar.config",
})  # fmt: skip
_MANIFEST_SUFFIXES = (".csproj", ".fsproj", ".vbproj", ".cabal", ".gemspec")
_MANIFEST_ENDINGS = (*("/" + name for name in PACKAGE_MANIFESTS), *_MANIFEST_SUFFIXES)
# A package that is the project's documentation (a Docusaurus `website/`, a `docs/` site)
# publishes the whole repository's ADRs: its log is not its own.
_DOCS_PACKAGES = frozenset({"docs", "doc", "documentation", "website", "site", "www", "wiki"})


def package_folders(files: list[str]) -> set[str]:
    """The folders below the root that hold a package manifest."""
    out = set()
    for f in files:
        if f.endswith(_MANIFEST_ENDINGS):  # one C-level test for most files
            folder, _, name = f.rpartition("/")
            if folder and (name in PACKAGE_MANIFESTS or name.endswith(_MANIFEST_SUFFIXES)):
                out.add(folder)
    return out


def package_of(folder: str, packages: set[str]) -> str | None:
    """The monorepo package an ADR log belongs to: the nearest folder at or above it that
    holds a package manifest (``services/billing`` for ``services/billing/docs/adr``).
    A documentation package does not count (``website/docs/adr``: that log is the whole
    repository's, unless a package holds the site). None for a log of the whole
    repository: no such folder below the root (``docs/adr``)."""
    parts = folder.split("/")
    for i in range(len(parts), 0, -1):
        candidate = "/".join(parts[:i])
        if candidate in packages and parts[i - 1].lower() not in _DOCS_PACKAGES:
            return candidate
    return None


def _prune(globs: list[str]) -> list[str]:
    """Drop globs already covered by a broader directory glob in the list."""
    dirs = [g[:-3] for g in globs if g.endswith("/**")]
    out = []
    for g in globs:
        base = g[:-3] if g.endswith("/**") else g
        if any(base != d and base.startswith(d + "/") for d in dirs):
            continue
        out.append(g)
    return out
