"""What an agent instruction file (CLAUDE.md, AGENTS.md, ...) says about the code: its
sections, and the paths, symbols, commands and decision ids each one names.

Pure text work, no I/O: ``gitmem.stale`` checks the references against the repository.
Only what a reader takes as a claim about this project is collected, since a tool that
cries wolf gets switched off:

- paths: Markdown link targets; code spans holding one path; in prose and shell blocks,
  tokens with a known file extension, or with a slash and a first folder that exists
  (``src/old`` is a path, "client/server" is not: the checker decides, see ``Ref.anchored``);
- symbols: code spans holding one identifier (``snake_case``, ``CamelCase``,
  ``mixedCase``, ``dotted.name``, optionally ``()``). ALL_CAPS names are left out: they
  are as often the environment's variables as the code's constants;
- commands: ``make``, ``npm``/``pnpm``/``yarn``/``bun`` scripts, ``just``/``poe``/``task``
  tasks, ``tox``/``nox``/``hatch`` environments, ``cargo`` packages and targets (``-p``,
  ``--bin``, ...), ``python -m`` modules, the packages of ``go build/run/test/...`` (``./x/...`` as
  ``./x``) and the names ``go test -run`` selects tests by, in code spans and in shell code
  blocks;
- decisions: any token equal to a decision id (the checker knows the ids).

A line that negates or contrasts ("never", "instead of", "no longer", "superseded", ...)
is a prohibition or history, where a missing name is the intended state: it is skipped.
So is a line holding ``gitmem:ignore`` (an HTML comment, say), and the line after one
holding ``gitmem:ignore-next-line``.

A name given as an example ("e.g. `changelog.d/123.fixed.rst`") is stale only if the
repository once held it. Naming conventions (``PascalCase``) and placeholder names
(``my_package.flows.run``) are not symbols; a path without an extension is a module where a
file is that path with one (``models/__init__``, ``src/lib/utils``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace

from gitmem.entities import ROUTE_SEGMENT, route_path
from gitmem.sections import headings

# any indentation: a fence inside a list item is indented with it
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})\s*([\w+-]*)")
_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_TOKEN = re.compile(r"[\w@+~$./:\-\[\]*?{}%<>]+")
_IDENT = re.compile(r"^@?[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?$")
_IGNORE = re.compile(r"gitmem:\s*ignore(?!-next-line)")
_IGNORE_NEXT = re.compile(r"gitmem:\s*ignore-next-line")
# A line telling history: what it names may be gone on purpose.
_HISTORY = re.compile(
    r"\b(?:no longer|deprecated|removed|deleted|replaced|renamed|moved|superseded|"
    r"obsolete|legacy|formerly|previously|used to|was|were|retired)\b",
    re.IGNORECASE,
)
# A prohibition or contrast: the symbols and commands it names may be absent on purpose
# ("never call `datetime.utcnow`"), the paths it names should still exist.
_NEGATION = re.compile(
    r"\b(?:never|not|don'?t|doesn'?t|shouldn'?t|won'?t|can'?t|cannot|avoid|instead|"
    r"rather than|forbid(?:den)?|banned|prohibited|nor)\b|\N{CROSS MARK}|\N{NO ENTRY SIGN}",
    re.IGNORECASE,
)
# What introduces an example, just before a code span: "(e.g. `changelog.d/123.fixed.rst`)"
# (anyio's AGENTS.md), "for example `my_package.flows.flow_func`", a file yet to be made ("A
# new `src/pyinfra/operations/mytool.py` is ...", pyinfra's). Not "examples:", which
# points at real files to follow ("Canonical examples: `types/content.py`").
_EXAMPLE = re.compile(
    r"(?:\be\.\s?g\.?|\beg\.|\bfor (?:example|instance)"
    r"|\ba new(?:\s+(?:file|module|package|folder|directory|test|page|script|component))?)"
    r"[\s,:]*"
    r"(?:`[^`]*`[\s,/]*(?:(?:or|and)\s+)?)*$",  # the next ones of a list: "e.g. `a`, `b`"
    re.IGNORECASE,
)
SHELL_LANGS = frozenset({"", "sh", "bash", "shell", "console", "zsh", "fish", "shell-session"})
# Extensions that make a bare word a file name ("setup.py", not "Node.js": see _filename).
# fmt: off
EXTENSIONS = frozenset({
    "py", "pyi", "ipynb", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "rs", "java", "kt",
    "kts", "scala", "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "m", "mm", "sh",
    "bash", "zsh", "ps1", "yaml", "yml", "toml", "json", "jsonc", "ini", "cfg", "conf", "env",
    "md", "mdx", "mdc", "rst", "txt", "sql", "proto", "graphql", "gql", "html", "css", "scss",
    "vue", "svelte", "lock", "mk", "gradle", "xml", "tf", "hcl", "csv", "tsv", "dockerfile",
    "template", "tmpl", "j2", "cue", "nix", "lua", "ex", "exs", "erl", "dart", "r", "jl", "zig",
})
# fmt: on
_TLDS = frozenset({"com", "org", "net", "io", "dev", "ai", "app", "co", "edu", "gov"})
_RUNNERS = frozenset(
    {"make", "npm", "pnpm", "yarn", "bun", "just", "python", "python3", "tox", "nox", "poe",
     "task"}
)  # fmt: skip
_WRAPPERS = frozenset({"sudo", "uv", "poetry", "pipenv", "pdm", "hatch", "env", "time", "exec"})


@dataclass(frozen=True)
class Section:
    """A heading's span of lines (1-based, inclusive); the file's preamble has no title."""

    title: str
    line: int
    end: int


@dataclass(frozen=True)
class Ref:
    """One reference: ``kind`` is path, symbol, command, test (a name ``go test -run``
    selects tests by) or token (a decision id candidate).

    For a command, ``value`` is the runner and its argument ("make test", "npm run lint",
    "python -m app.cli"). ``anchored`` is False for a slash-token taken from prose or a
    shell line that needs its first folder to exist before it counts as a path."""

    kind: str
    value: str
    line: int
    anchored: bool = True
    link: bool = False  # a Markdown link target: relative to the file, "/x" at the root
    # given as an example ("(e.g. `changelog.d/123.fixed.rst`)"): a made-up name, unless
    # the repository once held it
    example: bool = False


def sections(lines: list[str]) -> list[Section]:
    """The file's sections, by Markdown heading outside code fences (as
    ``gitmem.sections.headings`` finds them for decision records)."""
    out: list[Section] = []
    title, start = "", 1
    for idx, _, text in headings("\n".join(lines)):
        n = idx + 1
        if n > start or title:
            out.append(Section(title, start, n - 1))
        title, start = text, n
    out.append(Section(title, start, max(start, len(lines))))
    return out


def section_of(secs: list[Section], line: int) -> Section:
    for s in secs:
        if s.line <= line <= s.end:
            return s
    return secs[-1]


def references(lines: list[str]) -> list[Ref]:
    """Every reference in the file, in order (see the module docstring)."""
    out: list[Ref] = []
    fence, lang, skip_next = "", "", False
    for n, line in enumerate(lines, 1):
        opening = not fence and _FENCE.match(line)
        fence_now = _fence_state(line, fence)
        if opening:
            lang = opening.group(2).lower()
            fence = fence_now
            continue
        if fence and not fence_now:  # the closing fence
            fence = ""
            continue
        fence = fence_now
        if skip_next or _IGNORE.search(line):
            skip_next = False
            continue
        if _IGNORE_NEXT.search(line):
            skip_next = True
            continue
        if fence:
            if lang in SHELL_LANGS:
                out.extend(_shell_line(line, n))
            continue
        if _HISTORY.search(line):
            continue
        # a sentence wrapped before a code span goes on from the line above
        refs = _prose_line(line, n, lines[n - 2] if n > 1 else "")
        if _NEGATION.search(line):
            refs = [r for r in refs if r.kind == "path"]
        out.extend(refs)
    return out


def _fence_state(line: str, fence: str) -> str:
    """The open fence after ``line`` ("" when outside a code block)."""
    m = _FENCE.match(line)
    if not m:
        return fence
    if not fence:
        return m.group(1)
    marker = m.group(1)
    if marker[0] == fence[0] and len(marker) >= len(fence) and not m.group(2):
        return ""
    return fence


def _prose_line(line: str, n: int, above: str = "") -> list[Ref]:
    """The references of a line of prose; ``above``, the line before it, for what
    introduces a code span the line begins with ("A new\\n`src/x.py` is ...")."""
    out: list[Ref] = []
    # links outside code spans (a span may show link syntax: "links as `[text](url)`")
    masked = _SPAN.sub(lambda m: " " * len(m.group(0)), line)
    rest = line
    for m in _LINK.finditer(masked):
        target = m.group(1)
        if not re.match(r"^[a-z][a-z0-9+.-]*:|^#|^mailto:", target, re.IGNORECASE):
            out.append(Ref("path", target.split("#", 1)[0].split("?", 1)[0], n, link=True))
        rest = rest[: m.start()] + " " * (m.end() - m.start()) + rest[m.end() :]
    for m in _SPAN.finditer(rest):
        refs = _span(m.group(2).strip(), n)
        lead = rest[: m.start()]
        if not lead.strip():
            lead = f"{above.rstrip()} {lead}"
        if refs and _EXAMPLE.search(lead):
            refs = [replace(r, example=True) for r in refs]
        out.extend(refs)
    rest = _SPAN.sub(" ", rest)
    for token in _TOKEN.findall(re.sub(r"\b[a-z][a-z0-9+.-]*://\S+", " ", rest)):
        token = token.lstrip("([").rstrip(".,;:!?)]")
        if _import(token):  # CLAUDE.md's `@path` import
            out.append(Ref("path", token[1:], n))
        elif _filename(token, prose=True):
            out.append(Ref("path", token, n))
        elif "/" in token and _plain_path(token):
            out.append(Ref("path", token, n, anchored=False))
        elif re.fullmatch(r"[A-Za-z][\w-]*\d[\w-]*", token):
            out.append(Ref("token", token, n))
    return out


def _span(text: str, n: int) -> list[Ref]:
    """A code span: one path, one identifier, or a command line."""
    if not text or "\n" in text:
        return []
    if " " not in text:
        token = text.rstrip(".,;:")
        if _import(token):
            return [Ref("path", token[1:], n)]
        if _filename(token, prose=False) or (
            "/" in token and _plain_path(token, routes=True) and not token.startswith("@")
        ):
            anchored = token.startswith(("./", "../")) or token.endswith("/") or _has_ext(token)
            anchored = anchored or "*" in token  # a glob is a path pattern
            return [Ref("path", token, n, anchored=anchored)]
        symbol = _symbol(token)
        if symbol:
            return [Ref("symbol", symbol, n)]
        if re.fullmatch(r"[A-Za-z][\w-]*\d[\w-]*", token):
            return [Ref("token", token, n)]
        return []
    return _command(text, n)


def _shell_line(line: str, n: int) -> list[Ref]:
    text = line.strip()
    if text.startswith(("$ ", "> ", "% ")):
        text = text[2:]
    if not text or text.startswith("#"):
        return []
    return _command(text, n)


def _command(text: str, n: int) -> list[Ref]:
    """Runner targets and script paths of a command line (``&&``, ``;`` and ``|`` split
    it into commands). After a ``cd``, the rest runs elsewhere (``cd build && make``):
    it is not read."""
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        words = text.split()
    out: list[Ref] = []
    command: list[str] = []
    for word in [*words, ";"]:
        ends = word.endswith(";") and len(word) > 1  # "all;" ends its command
        if ends:
            command.append(word[:-1])
        if ends or word in ("&&", "||", ";", "|"):
            if command[:1] in (["cd"], ["pushd"]):
                break
            out.extend(_one_command(command, n))
            command = []
        else:
            command.append(word)
    return out


def _one_command(words: list[str], n: int) -> list[Ref]:
    out: list[Ref] = []
    while words and (("=" in words[0] and not words[0].startswith("-")) or words[0] in _WRAPPERS):
        if words[0] == "hatch":
            env, words = _hatch(words[1:])
            if env:
                out.append(Ref("command", f"hatch -e {env}", n))
            continue
        if words[0] == "uv" and len(words) > 1 and words[1] == "run":
            words = words[1:]
        words = words[1:]
    if words and words[0] == "run":  # "uv run ...", "poetry run ..."
        words = words[1:]
    if not words:
        return out
    runner, args = words[0], words[1:]
    if runner == "go":
        return out + _go(args, n)
    if runner == "cargo":
        out += [Ref("command", target, n) for target in _cargo(args)]
    elif runner in _RUNNERS:
        target = _runner_target(runner, args)
        if target:
            out.append(Ref("command", target, n))
    for word in words:
        if "=" in word or word.startswith("-"):
            continue
        if _filename(word, prose=False) or (word.startswith(("./", "../")) and len(word) > 3):
            out.append(Ref("path", word, n))
        elif "/" in word and _plain_path(word):
            out.append(Ref("path", word, n, anchored=False))
    return out


_NPM_BUILTIN_SCRIPTS = frozenset({"test", "start", "stop", "restart"})
# fmt: off
_PM_COMMANDS = frozenset({
    "add", "audit", "autoclean", "bin", "cache", "check", "config", "create", "dedupe", "dlx",
    "env", "exec", "global", "help", "i", "import", "info", "init", "install", "link", "list",
    "login", "logout", "ls", "node", "outdated", "owner", "pack", "patch", "plugin", "policies",
    "prune", "publish", "rebuild", "remove", "root", "run", "set", "setup", "store", "tag",
    "team", "unlink", "up", "update", "upgrade", "version", "why", "workspace", "workspaces",
    "x", "ci",
})
# fmt: on


def _hatch(args: list[str]) -> tuple[str | None, list[str]]:
    """The environment a ``hatch`` command line names (``-e ENV``, ``run ENV:SCRIPT``,
    ``env run -e ENV``, ``shell ENV``) and the command it runs in it (after ``run``); a
    matrix environment (``test.py3.12``) by its name (``test``)."""
    env: str | None = None
    words = list(args)
    while words and words[0].startswith("-"):
        flag, eq, value = words.pop(0).partition("=")
        if flag in ("-p", "--project", "-d", "--data-dir"):
            return None, []  # another project's: not ours to follow
        if flag in ("-e", "--env"):
            env = value if eq else (words.pop(0) if words else None)
    command: list[str] = []
    if words[:2] == ["env", "run"]:
        rest = words[2:]
        while rest and rest[0] != "--":
            flag, eq, value = rest.pop(0).partition("=")
            if flag in ("-e", "--env"):
                env = value if eq else (rest.pop(0) if rest else env)
        command = rest[1:]
    elif words[:1] == ["run"]:
        command = [w for w in words[1:] if not w.startswith(("+", "-"))]  # matrix selectors
        head, colon, script = command[0].partition(":") if command else ("", "", "")
        if colon and head and not head.startswith((".", "/")):
            env = head
            command = [script, *command[1:]] if script else command[1:]
    elif words[:1] == ["shell"] and len(words) > 1:
        env = words[1]
    env = env.split(".")[0] if env else None
    return env if env and _plain_name(env) else None, command


# go subcommands whose arguments are packages, and the flags of theirs that take a value
_GO_PACKAGE_COMMANDS = frozenset(
    {"build", "run", "test", "vet", "install", "generate", "list", "clean", "fmt"}
)
# fmt: off
_GO_VALUE_FLAGS = frozenset({
    "o", "run", "skip", "bench", "benchtime", "tags", "count", "timeout", "cpu", "parallel",
    "p", "coverprofile", "covermode", "coverpkg", "ldflags", "gcflags", "asmflags", "mod",
    "modfile", "exec", "blockprofile", "cpuprofile", "memprofile", "mutexprofile", "trace",
    "outputdir", "shuffle", "fuzz", "fuzztime", "fuzzminimizetime", "pkgdir", "toolexec",
    "overlay", "buildmode", "compiler", "installsuffix", "pgo", "vet", "list", "f",
})
# fmt: on
_GO_TEST = re.compile(r"\^?((?:Test|Benchmark|Example|Fuzz)[A-Za-z0-9_]*)\$?")


def _go(args: list[str], n: int) -> list[Ref]:
    """What a ``go`` command names: its packages as ``go PKG`` commands, local ones
    (``./x/...`` as ``./x``) and import paths in a domain (``example.com/m/cmd/x``: the
    checker knows the repository's modules), its ``.go`` files as paths, and the names
    ``-run`` selects tests by (``^TestX$|TestY/sub``: TestX, TestY). ``go run``'s words
    after its package are the program's. ``-C DIR`` runs elsewhere: not followed."""
    if not args or args[0] not in _GO_PACKAGE_COMMANDS:
        return []
    sub, words = args[0], args[1:]
    out: list[Ref] = []
    while words:
        word = words.pop(0)
        if word in ("-args", "--"):
            break
        if word.startswith("-"):
            flag, eq, value = word.lstrip("-").partition("=")
            if flag == "C":
                return []
            if not eq and flag in _GO_VALUE_FLAGS:
                value = words.pop(0) if words else ""
            if flag == "run" and sub == "test":
                for alternative in value.split("|"):
                    test = _GO_TEST.fullmatch(alternative.split("/")[0])
                    if test:
                        out.append(Ref("test", test.group(1), n))
            continue
        if word.endswith(".go"):
            out.append(Ref("path", word, n))
            continue
        parts = word.split("/")
        if "..." in parts:  # the wildcard: the folder before it
            parts = parts[: parts.index("...")]
        local = word.startswith(("./", "../"))
        if not all(_plain_name(p) for p in parts):
            continue  # `./cmd/<name>`, `$PKG`
        if (local and "/".join(parts) not in (".", "..")) or ("." in parts[0] and len(parts) > 1):
            out.append(Ref("command", "go " + "/".join(parts).partition("@")[0], n))
        if sub == "run":
            break
    return out


_CARGO_FLAGS = {"-p": "-p", "--package": "-p", "--bin": "--bin", "--example": "--example",
                "--test": "--test", "--bench": "--bench"}  # fmt: skip
# cargo subcommands that build the workspace's packages (not `install`: another crate's)
_CARGO_COMMANDS = frozenset(
    {"build", "b", "check", "c", "test", "t", "run", "r", "bench", "doc", "d", "clippy", "fix",
     "rustc", "rustdoc", "tree", "clean", "package", "publish"}
)  # fmt: skip


def _cargo(args: list[str]) -> list[str]:
    """``cargo -p NAME``, ``cargo --bin NAME``, ...: the packages and targets a cargo
    (or ``cargo nextest run``) command line names (a pkgid spec by its name; globs are not
    read). Words after ``--`` are the program's."""
    words = [a for a in args if not a.startswith("+")]  # +nightly
    if words[:2] == ["nextest", "run"]:  # cargo-nextest selects packages as cargo does
        words = words[1:]
    if not words or words[0] not in _CARGO_COMMANDS:
        return []
    out: list[str] = []
    rest = words[1:]
    while rest and rest[0] != "--":
        flag, eq, value = rest.pop(0).partition("=")
        if flag.startswith("-p") and len(flag) > 2 and not flag.startswith("--"):
            flag, value, eq = "-p", flag[2:], "="
        if flag not in _CARGO_FLAGS:
            continue
        if not eq:
            value = rest.pop(0) if rest and not rest[0].startswith("-") else ""
        name = re.split(r"[@:#]", value)[0] if "://" not in value else ""
        if _plain_name(name):  # not a glob (`-p 'foo-*'`) or a placeholder (`<crate>`)
            out.append(f"cargo {_CARGO_FLAGS[flag]} {name}")
    return out


def _runner_target(runner: str, args: list[str]) -> str | None:
    plain = [a for a in args if not a.startswith("-")]
    if runner == "make":
        if any(a.startswith("-") for a in args):  # -C dir, -f file: not ours to follow
            return None
        targets = [a for a in plain if "=" not in a]
        return "make " + targets[0] if targets else None
    if runner in ("python", "python3"):
        if len(args) >= 2 and args[0] == "-m":
            return f"python -m {args[1]}"
        return None
    if runner == "just":
        return "just " + plain[0] if plain and "=" not in plain[0] else None
    if runner in ("poe", "task"):  # `poe -C DIR`, `task -d DIR`: another folder's
        if not plain or args[0].startswith("-"):
            return None
        return f"{runner} {plain[0]}" if _plain_name(plain[0].replace(":", "")) else None
    if runner in ("tox", "nox"):  # tox -e NAME / tox run -e NAME, nox -s NAME
        flags = ("-e", "--env") if runner == "tox" else ("-s", "--session", "--sessions")
        for i, arg in enumerate(args):
            value = None
            if arg in flags and i + 1 < len(args):
                value = args[i + 1]
            elif arg.startswith(flags[0]) and len(arg) > 2 and arg[2] != "-":
                value = arg[2:]
            if value:
                first = value.split(",")[0].strip()
                return f"{runner} {flags[0]} {first}" if first else None
        return None
    if not plain or any(a.startswith(("--filter", "--workspace", "-w", "-F")) for a in args):
        return None
    if plain[0] in ("run", "run-script"):
        return f"{runner} run {plain[1]}" if len(plain) > 1 else None
    if runner == "npm":
        return f"npm run {plain[0]}" if plain[0] in _NPM_BUILTIN_SCRIPTS else None
    if runner in ("pnpm", "yarn", "bun") and plain[0] not in _PM_COMMANDS:
        if runner == "bun" and _has_ext(plain[0]):
            return None  # `bun file.ts` runs a file
        return f"{runner} run {plain[0]}"
    return None


def _symbol(token: str) -> str | None:
    """The identifier a code span names, or None: ``foo_bar()`` -> foo_bar, ``a.b.c`` ->
    a.b.c. ALL_CAPS names, single plain words and dotted names ending in a top-level
    domain are not symbols here."""
    token = token.rstrip(",;:")
    if not _IDENT.match(token):
        return None
    name = token.lstrip("@").removesuffix("()")
    parts = re.split(r"\.|::", name)
    if len(parts) > 1 and parts[-1].lower() in _TLDS:
        return None
    last = parts[-1]
    if last.upper() == last:  # ALL_CAPS, or digits and underscores
        return None
    if _CASE_STYLE.fullmatch(last) or _placeholder_name(parts):
        return None
    mixed = "_" in last.strip("_") or re.search(r"[a-z][A-Z]|[A-Z].*[A-Z]", last)
    if len(parts) == 1 and not mixed:
        return None
    return name


# Names of naming conventions: "Classes: `PascalCase`" (strands-agents' AGENTS.md).
_CASE_STYLE = re.compile(
    r"(?:lower|upper|screaming|capital)?_?(?:snake|camel|pascal|kebab|title|train|"
    r"dromedary|macro|flat|cobol|ada)_?case",
    re.IGNORECASE,
)


def _placeholder_name(parts: list[str]) -> bool:
    """A symbol made up for an example: `my_package.flows.flow_func`, `foo.bar`."""
    return bool(re.match(r"(?:my|your|some)_", parts[0], re.IGNORECASE)) or any(
        p.lower() in ("foo", "bar", "baz", "qux", "quux") for p in parts
    )


def _import(token: str) -> bool:
    """``@docs/style.md``, ``@./notes.md``: an import in CLAUDE.md (not ``@scope/pkg``)."""
    rest = token[1:]
    return (
        token.startswith("@")
        and _plain_path(rest)
        and (_has_ext(rest) or rest.startswith(("./", "../")))
    )


def _has_ext(token: str) -> bool:
    name = token.rstrip("/").rsplit("/", 1)[-1]
    if name.lower() in ("makefile", "dockerfile", "justfile", "gemfile", "rakefile", "procfile"):
        return True
    stem, dot, ext = name.rpartition(".")
    return bool(dot and stem and ext.lower() in EXTENSIONS)


def _filename(token: str, *, prose: bool) -> bool:
    """A token naming a file by its extension. In prose, a capitalised word with a dot
    is a product ("Node.js", "Vue.js"), not a file."""
    if not _has_ext(token) or not _plain_path(token):
        return False
    name = token.rstrip("/").rsplit("/", 1)[-1]
    return not (prose and "/" not in token and re.match(r"[A-Z][a-z]", name) and "." in name)


# The usual placeholder names of examples: `tests/path/test_foo.py`, `my_module.py`.
_PLACEHOLDER = re.compile(
    r"(?:^|[/_.-])(?:foo|bar|baz|qux|quux|xyz|xxx)(?:[/_.-]|$)|(?:^|/)(?:my|your|some)[_-]",
    re.IGNORECASE,
)
# Git branch namespaces: `release/3.x` or `origin/main` in a code span is a branch.
BRANCH_NAMESPACES = frozenset(
    {"release", "releases", "feature", "feat", "fix", "hotfix", "bugfix", "origin",
     "upstream", "refs", "heads", "dependabot", "renovate", "chore"}
)  # fmt: skip


def _plain_name(name: str) -> bool:
    """A name as tools spell them (``ruff_linter``, ``hatch-test``, ``..``), not a
    placeholder (``<crate>``, ``$ENV``, ``my-crate``) or a pattern."""
    return bool(re.fullmatch(r"[\w.@-]+", name)) and not _PLACEHOLDER.search(name)


def placeholder(path: str) -> bool:
    """A path made up for an example (``tests/path/test_foo.py``, ``my-app/config.yml``)."""
    return bool(_PLACEHOLDER.search(path))


# A route segment (`entities.ROUTE_SEGMENT`: Next.js `[slug]`, `(group)`). Elsewhere
# `[name]` is a placeholder: `gitmem stale` checks such a path only where the repository
# names its own paths this way.
_ROUTE_SEGMENT = re.compile(ROUTE_SEGMENT)


def _plain_path(token: str, *, routes: bool = False) -> bool:
    """A path we can check: no URL, variable, home folder, placeholder or version.
    ``routes``: route segments (``[slug]``, ``(group)``) allowed, as in a code span."""
    if routes and route_path(token):
        token = "/".join("x" if _ROUTE_SEGMENT.fullmatch(p) else p for p in token.split("/"))
    if re.search(r"://|[$%~<>{}\[\]]|\.\.\.|^/|^@|path/to|your[-_/]|/to/|^-", token):
        return False
    if token.count("/") > 12 or len(token) > 200:
        return False
    parts = [p for p in token.split("/") if p not in ("", ".")]
    if not parts or any(p.isdigit() for p in parts):  # "1/2", dates like 2024/05
        return False
    return all(re.fullmatch(r"[\w.@+*?-]+", p) for p in parts)
