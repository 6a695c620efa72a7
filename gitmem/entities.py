"""What a prompt talks about: paths, code identifiers, quoted names, and plain words.

Used by every ranker: paths feed the glob ranker, identifiers and quoted spans are boosted
in BM25, and everything feeds the embedding query. On the prompt hook's path: ``re`` (and
``functools``, which ``re`` imports itself) and ``gitmem.pathmap`` (which the hook loads
anyway), nothing else (no ``typing``).
"""

from __future__ import annotations

import functools
import re

from gitmem.pathmap import could_name_a_file

# A scheme's length is bounded: unbounded, a prompt of one long dotted run ("x.x.x…", a
# minified file pasted whole) made every word boundary scan to its end for "://", and
# 200,000 characters kept the prompt hook busy for minutes (measured in session 40).
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{0,31}://\S+", re.IGNORECASE)
# A link to a file names the file. An editor's or a terminal's link holds its absolute path
# (`file:///home/me/app/src/x.py`, `vscode://file/home/me/app/src/x.py:12:3`, Cursor's
# `cursor://file/...`); a code host's holds its path in the repository (GitHub's
# `https://github.com/o/r/blob/main/src/x.py#L12`, GitLab's `/-/blob/`, Gitea's
# `/src/branch/main/`, Bitbucket's `/src/<ref>/`). Before session 51 a link was dropped
# whole, so a prompt that pasted one named no path. Matched from a link's start (``match``),
# so a long link costs one pass.


@functools.cache
def _links() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A local link's pattern, a code host's: compiled at a prompt's first link (most
    prompts have none, and each hook is a fresh process)."""
    local = re.compile(r"(?:file://[^/\s]*|[a-z][a-z0-9-]{0,30}://file)(/[^\s#?]+)", re.I)
    hosted = re.compile(
        r"https?://[^/\s]+/\S+?/(?:-/)?(?:blob|tree|raw|blame|src(?:/(?:branch|tag|commit))?)"
        r"/[^/\s]+/([^\s#?]+)",
        re.I,
    )
    return local, hosted


_QUOTED = re.compile(r"`([^`\n]{2,80})`|\"([^\"\n]{2,80})\"|'([^'\n]{2,80})'")
# A route segment of the frameworks that name folders and files after URL parameters and
# groups: Next.js `[slug]`, `[...all]`, `[[...opt]]`, `(marketing)`; SvelteKit, Astro and
# Nuxt `[id].vue`, `[...slug].astro`. A path's segment is a name or one of those: they
# split the path before session 41 (`app/blog/[slug]/page.tsx` was `app/blog/`).
ROUTE_SEGMENT = r"\[\[?(?:\.\.\.)?[\w-]+\]\]?(?:\.[\w.]+)?|\([\w-]+\)"
PATH_SEGMENT = rf"(?:[\w.@+-]+|{ROUTE_SEGMENT})"
# A path: folders and a name, or a name with an extension, or a dotfile (`.gitlab-ci.yml`,
# `.eslintrc.json`, `.gitignore`, in lower case, unlike `.NET`: before session 74 a name's
# leading dot kept it from matching, so a prompt naming one named no path, though
# KNOWN_FILES reads some of them)
_PATHLIKE = re.compile(
    rf"(?<![\w/.-])((?:\.{{0,2}}/)?{PATH_SEGMENT}(?:/{PATH_SEGMENT})+/?"
    r"|\.?[\w@+-]+\.[A-Za-z][\w]{0,7}|\.[a-z][\w-]{0,30})(?![\w/])"
)
_ROUTE_PART = re.compile(ROUTE_SEGMENT)


def route_path(token: str) -> bool:
    """Whether ``token`` has a route segment (``app/blog/[slug]/page.tsx``)."""
    return any(_ROUTE_PART.fullmatch(part) for part in token.split("/"))


_IDENT = re.compile(
    r"\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b|\b[A-Za-z_][A-Za-z0-9_]*\b"
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script: "Größe" is one word
# Chinese and Japanese write no spaces between words, and Korean only between phrases, so
# a keyword index would take a whole clause for one word. As Lucene's CJK analyzer does,
# such runs are indexed and queried as overlapping pairs of characters.
_CJK = "[\u3040-\u30ff\u3131-\u318e\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]+"


@functools.cache
def _cjk_run() -> re.Pattern[str]:
    """Compiled on first use: ~3 ms (~20 ms with the ranges unmerged), which a hook whose
    prompt has no character from U+3000 to U+DFFF never pays."""
    return re.compile(_CJK)


# UTF-8 lead bytes of U+3000..U+DFFF: a text without any holds no CJK character. Looking
# for them (memchr) took 5-11 us for 2 KB of non-ASCII text (measured); `max(text)` took
# ~90 us and a regular expression over the CJK ranges ~45 us: seconds of a 10,000-record
# build, where every record's fields and content hash are checked.
_CJK_LEADS = tuple(range(0xE3, 0xEE))


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese, Japanese or Korean character (pure ASCII text,
    most text, is settled by ``isascii`` alone)."""
    if text.isascii():
        return False
    encoded = text.encode("utf-8", "surrogatepass")
    return any(lead in encoded for lead in _CJK_LEADS) and _cjk_run().search(text) is not None


def cjk_pairs(text: str) -> str:
    """``text`` with each run of CJK characters as its overlapping pairs, set apart by
    spaces ("数据存储" -> " 数据 据存 存储 "); any other text is returned as it is."""
    return _cjk_run().sub(_pairs, text) if has_cjk(text) else text


def _pairs(match: re.Match[str]) -> str:
    run = match.group(0)
    return " " + " ".join(run[i : i + 2] for i in range(max(1, len(run) - 1))) + " "


_NOT_EXT = {"e.g", "i.e", "etc", "vs", "a.k.a"}
# The paths a text names, at most: each is resolved and looked up (~0.07 ms), so a pasted
# list of 40,000 file names kept the prompt hook busy for ~3 s; the first thousand (a
# large change's file list) stand for the rest, whose decisions are mostly the same.
MAX_PATHS = 1000
# The distinct words and code names of a text the keyword rankers read, at most
# (`retrieve.MAX_QUERY_WORDS`, `retrieve.MAX_QUERY_ENTITIES`).
MAX_WORDS = 4000
MAX_IDENTIFIERS = 1000
MAX_IDENTIFIER_CHARS = 255  # NAME_MAX: a code name is no longer than a file's
STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    }
)


class QueryTerms:
    __slots__ = ("hosted", "identifiers", "modules", "paths", "quoted", "words")

    def __init__(
        self,
        paths: tuple[str, ...],
        identifiers: tuple[str, ...],  # dotted, snake_case, CamelCase, mixedCase names
        quoted: tuple[str, ...],
        words: tuple[str, ...],  # each word once, lowercased, in order (MAX_WORDS)
        hosted: tuple[str, ...] = (),  # paths of code-host links: of some repository
        modules: tuple[tuple[str, ...], ...] = (),  # qualified names' parts (MAX_MODULES)
    ) -> None:
        self.paths = paths
        self.identifiers = identifiers
        self.quoted = quoted
        self.words = words
        self.hosted = hosted
        self.modules = modules


# A qualified name, as Rust and C++ (`crate::storage::engine::Compactor`) and PHP
# (`App\Http\Controllers\UserController`) write a module's path; with a dotted name of
# three parts or more (`app.services.billing`), what `modules` reads as a path to look up.
@functools.cache
def _qualified() -> re.Pattern[str]:
    """Compiled at a prompt's first `::` or `\\` (most prompts have none)."""
    return re.compile(r"(?<![\w:\\])(?:[A-Za-z_]\w*(?:::|\\))+[A-Za-z_]\w*(?![\w:\\.])")


RELATIVE_HEADS = frozenset({"crate", "self", "super"})  # Rust's, where a module path starts
# the standard libraries' roots (Rust's, C++'s, Python's, Java's): `std::sync::Arc`,
# `os.path.join` name no module of the repository
STANDARD_LIBRARIES = frozenset({"std", "core", "alloc", "boost", "os", "sys", "java", "javax"})
_HOSTS = (".com", ".org", ".net", ".io")  # `api.example.com`: a host, no module
MAX_MODULES = 4
MAX_MODULE_PARTS = 6


def modules(text: str, identifiers: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The module paths a text names, as their parts: Rust's, C++'s and PHP's qualified
    names (less `crate::`, `self::`, `super::`; not a standard library's), and dotted
    names of three parts or more; at most MAX_MODULES, each of at most MAX_MODULE_PARTS."""
    found: list[tuple[str, ...]] = []
    names = _qualified().findall(text) if ("::" in text or "\\" in text) else []
    dotted = (i for i in identifiers if i.count(".") >= 2 and not i.endswith(_HOSTS))
    for name in [*names, *dotted]:
        parts = [p for p in re.split(r"::|\\|\.", name) if p]
        if not parts or parts[0] in STANDARD_LIBRARIES:
            continue
        while parts and parts[0] in RELATIVE_HEADS:
            parts = parts[1:]
        if len(parts) >= 2:
            found.append(tuple(parts[:MAX_MODULE_PARTS]))
        if len(found) >= MAX_MODULES:
            break
    return tuple(dict.fromkeys(found))


def linked_path(url: str) -> tuple[str, bool] | None:
    """The path a link to a file names, and whether it is a code host's (a path in some
    repository, maybe another's) rather than a local one (absolute); None for another link."""
    local_link, hosted_link = _links()
    local = local_link.match(url)
    found = local or hosted_link.match(url)
    if found is None:
        return None
    path = found.group(1)
    # what closes the prose around a link: `(see file:///x.py)`, `<…>`, "…", a full stop;
    # a bracket the path opened itself stays (Next.js `app/(site)/page.tsx`)
    while path.endswith(tuple(".,;:'\"`>]}*")) or (
        path.endswith(")") and path.count(")") > path.count("(")
    ):
        path = path[:-1]
    if "%" in path:
        from urllib.parse import unquote

        path = unquote(path)
    if local:
        for _ in range(2):  # `x.py:12:3`: a line and a column
            head, _, tail = path.rpartition(":")
            path = head if head and tail.isdigit() else path
        drive = path[:1] == "/" and path[2:4] == ":/" and path[1:2].isalpha()
        path = path[1:] if drive else path  # file:///C:/x -> C:/x
    path = path.rstrip("/")
    return (path, local is None) if path.strip("/") else None


def is_identifier(token: str) -> bool:
    if "." in token:
        return all(part for part in token.split("."))
    if "_" in token.strip("_"):
        return True
    return bool(_MIXED_CASE.search(token))


def split_words(token: str) -> list[str]:
    """``ValsetConfirm`` -> [valset, confirm]; ``x/fibre/keeper.go`` -> [x, fibre, keeper, go]."""
    out: list[str] = []
    for piece in _WORD.findall(cjk_pairs(token)):
        parts = (_CAMEL.findall(piece) if piece.isascii() else None) or [piece]
        out.extend(p.lower() for p in parts)
        if len(parts) > 1:
            out.append(piece.lower())
    return out


@functools.cache
def _folder_mentions() -> re.Pattern[str]:
    """A top folder as the agents' file mentions write one (`@src/`): a path of one
    name, which the path pattern leaves out (`and/or` is none), unless the `@` says so."""
    return re.compile(r"(?<![\w/.@-])@[\w.+-]+/(?![\w/])")


_MIXED_CASE = re.compile(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]")
_EXTENSION = re.compile(r"\.[A-Za-z]")


@functools.lru_cache(maxsize=4)  # the prompt hook reads a prompt's paths, then ranks it
def extract(text: str) -> QueryTerms:
    """What ``text`` names: its links' and paths (first MAX_PATHS), identifiers (first
    MAX_IDENTIFIERS distinct), quoted spans and words (first MAX_WORDS distinct, lowercased).
    No ranker reads further, and a pasted log of megabytes was read whole before session
    51 (a 5.7 MB prompt kept the prompt hook busy 6 s; each token was tested in Python)."""
    links: list[str] = []
    hosted: list[str] = []

    def take(match: re.Match[str]) -> str:
        found = linked_path(match.group(0))
        if found is not None and len(links) + len(hosted) < MAX_PATHS:
            (hosted if found[1] else links).append(found[0])
        return " "

    clean = _URL.sub(take, text) if "://" in text else text
    quoted = tuple(dict.fromkeys(a or b or c for a, b, c in _QUOTED.findall(clean)))
    paths: list[str] = links
    for match in _PATHLIKE.finditer(clean):
        token = match.group(1).rstrip(".,;:")
        low = token.lower()
        if low in _NOT_EXT or token.replace(".", "").isdigit():
            continue
        if "/" not in token and not _EXTENSION.search(token):
            continue
        if not could_name_a_file(token):  # base64, or a generated blob
            continue
        while token.startswith("./"):  # `./.env` is `.env`
            token = token[2:]
        paths.append(token)
        if len(paths) >= MAX_PATHS:
            break
    if "@" in clean and len(paths) < MAX_PATHS:  # `@src/`: a folder the user attached
        paths.extend(_folder_mentions().findall(clean)[: MAX_PATHS - len(paths)])
    identifiers: list[str] = []
    for token in dict.fromkeys(_IDENT.findall(clean)):  # each distinct name tested once
        # longer than a file's name: a minified run ("x.x.x…"), no name of code
        if (
            len(token) <= MAX_IDENTIFIER_CHARS
            and is_identifier(token)
            and token.lower() not in _NOT_EXT
        ):
            identifiers.append(token)
            if len(identifiers) >= MAX_IDENTIFIERS:
                break
    # distinct before lowercased: each spelling is lowered once (the same words, in the
    # order their first spelling comes, as lowering each occurrence gave)
    distinct = dict.fromkeys(_WORD.findall(cjk_pairs(clean)))
    words = tuple(dict.fromkeys(w.lower() for w in distinct))[:MAX_WORDS]
    return QueryTerms(
        tuple(dict.fromkeys(paths)),
        tuple(identifiers),
        quoted,
        words,
        tuple(dict.fromkeys(hosted)),
        modules(clean, tuple(identifiers)),
    )


# What well-known files configure, in the words decision records use for it. A tool-call
# hook often sees only a path: `pyproject.toml` says nothing lexically about a decision
# titled "Python 3.12 with strict mypy", but it is where that decision lives. Keys are
# file names (any folder) or folder prefixes ending in "/".
KNOWN_FILES: dict[str, str] = {
    "pyproject.toml": "python packaging dependencies build mypy ruff pytest",
    "setup.py": "python packaging dependencies",
    "setup.cfg": "python packaging configuration",
    "requirements.txt": "python dependencies",
    "poetry.lock": "python dependencies poetry",
    "uv.lock": "python dependencies",
    "mypy.ini": "python mypy type checking",
    "tox.ini": "python tests tox",
    "package.json": "javascript node npm dependencies scripts",
    "package-lock.json": "javascript npm dependencies",
    "pnpm-lock.yaml": "javascript pnpm dependencies",
    "yarn.lock": "javascript yarn dependencies",
    "tsconfig.json": "typescript compiler configuration",
    "go.mod": "go modules dependencies",
    "go.sum": "go modules dependencies",
    "Cargo.toml": "rust crate dependencies",
    "Cargo.lock": "rust dependencies",
    "Gemfile": "ruby gems dependencies",
    "pom.xml": "java maven build dependencies",
    "build.gradle": "java gradle build dependencies",
    "build.gradle.kts": "kotlin gradle build dependencies",
    "build.sbt": "scala sbt build dependencies",
    "Makefile": "build make targets",
    "CMakeLists.txt": "cmake build",
    "Dockerfile": "docker container image",
    "docker-compose.yml": "docker compose containers services",
    "docker-compose.yaml": "docker compose containers services",
    ".gitlab-ci.yml": "ci pipeline gitlab",
    "Jenkinsfile": "ci pipeline jenkins",
    ".pre-commit-config.yaml": "pre-commit hooks lint",
    ".github/workflows/": "ci pipeline github actions workflow",
    ".circleci/": "ci pipeline circleci",
}


def known_file_words(path: str) -> list[str]:
    """Words for what a well-known file configures (see KNOWN_FILES); [] for others."""
    name = path.rsplit("/", 1)[-1]
    text = KNOWN_FILES.get(name)
    if text is None:
        probe = path if path.startswith("/") else "/" + path
        for key, words in KNOWN_FILES.items():
            if key.endswith("/") and ("/" + key) in probe:
                text = words
                break
    if text is None and name.endswith(".tf"):
        text = "terraform infrastructure"
    return text.split() if text else []
