"""Which paths a tool call touches, from the agent's ``tool_input``.

Claude Code: Read/Write/Edit/MultiEdit: ``file_path``; NotebookEdit: ``notebook_path``; LS:
``path``; Glob/Grep: ``path`` plus the literal folder prefix of ``pattern``/``glob``. Codex:
``apply_patch``, whose ``command`` is the patch (``*** Update File: PATH`` and the like; the
paths may be absolute). Both: Bash: the shell words that look like paths (the caller keeps
those that exist or match a decision glob), or the patch a shell command passes to
``apply_patch``; MCP and unknown tools: string values under path-like keys. Runs in every
tool-call hook: built-in modules only (no ``re``, ``shlex`` or ``typing``: each costs
milliseconds).
"""

from __future__ import annotations

import os

from gitmem.pathmap import could_name_a_file

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from typing import Any

PATCH_TOOL = "apply_patch"  # Codex's only file-editing tool
EDIT_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", PATCH_TOOL)
READ_TOOLS = ("Read", "Grep", "Glob", "LS")
SHELL_TOOL = "Bash"  # every agent's shell tool, as translate() names it
_PATH_WORDS = ("path", "paths", "file", "files", "file_path", "filename", "dir", "directory")
_WILD = "*?[{"
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_OPERATORS = frozenset(";&|<>()")
_SHELL_SKIP = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", "&>", "(", ")"}
MAX_PATHS = 64
PATCH_START = "*** Begin Patch"
# a patch's file headers; `Move to` follows an `Update File` and names its new path
_PATCH_FILE = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def glob_prefix(pattern: str) -> str:
    """The literal leading folders of a glob: ``src/**/*.ts`` -> ``src``."""
    parts = []
    for part in pattern.replace("\\", "/").split("/"):
        if any(c in part for c in _WILD):
            break
        parts.append(part)
    return "/".join(parts)


def _path_key(key: str) -> bool:
    k = key.lower()
    return any(k == w or k.endswith("_" + w) for w in _PATH_WORDS)


def _looks_like_path(word: str) -> bool:
    if not could_name_a_file(word):  # a heredoc's base64, a minified line
        return False
    if "/" in word:
        return True
    dot = word.rfind(".")
    ext = word[dot + 1 :] if dot >= 0 else ""
    return 1 <= len(ext) <= 8 and all(c in _ALNUM for c in ext)


def shell_words(
    command: str, newline: str | None = None, bodies: list[str | None] | None = None
) -> list[str]:
    """Split a shell command into words as ``shlex`` does (POSIX mode, punctuation runs):
    single quotes are literal, inside double quotes a backslash escapes only ``"`` and
    itself, a backslash elsewhere escapes the next character, runs of ``;&|<>()`` are
    operator words. Unlike ``shlex``, ``#`` starts a comment only at the start of a word (as
    in a shell), and an unbalanced quote ends at the end of the command instead of raising
    (an agent's command is evidence, not a script to run). ``newline``: the word an
    unquoted line break becomes (it ends a command, as ``;`` does), else it is a space.
    ``bodies``: given a list, here-documents are read as a shell reads them: the word
    after a `<<` operator (``<<-``: its `-` dropped) is its tag, and the lines after the
    line it is on, up to one that is the tag alone (``<<-``: less its leading tabs), are
    no words but its body, put in ``bodies`` (None where no such line ends it) in the
    order of the tags. Before session 43 those lines were read as words: an apostrophe in
    a body (`don't`) opened a quote that hid every command after it, and a body's lines
    were read as commands (`rm -rf build` in a script written with `cat > x.sh`)."""
    words: list[str] = []
    word: list[str] = []
    started = False  # a word is open (even an empty one, from "")
    i, n = 0, len(command)
    heredoc = 0  # the next word is a here-document's tag: 1 after `<<`, 2 after `<<-`
    tags: list[tuple[str, bool]] = []  # (tag, tabs stripped) whose bodies start next line

    def close() -> None:
        nonlocal started, heredoc
        if started:
            words.append("".join(word))
            if heredoc:
                tags.append((words[-1], heredoc == 2))
                heredoc = 0
        word.clear()
        started = False

    while i < n:
        c = command[i]
        if c == "\n" and newline is not None:
            close()
            words.append(newline)
            heredoc = 0
            if tags and bodies is not None:
                i = _read_bodies(command, i + 1, tags, bodies)
                tags.clear()
                continue
        elif c in " \t\n\r":
            close()
        elif c == "#" and not started:
            while i < n and command[i] != "\n":
                i += 1
            continue
        elif c in _OPERATORS:
            close()
            j = i
            while j < n and command[j] in _OPERATORS:
                j += 1
            words.append(command[i:j])
            heredoc = 0
            if bodies is not None and words[-1].endswith("<<") and not words[-1].endswith("<<<"):
                heredoc = 1
                if command[j : j + 1] == "-":  # `<<-`: the body's leading tabs are dropped
                    heredoc, j = 2, j + 1
            i = j
            continue
        elif c == "'":
            started = True
            end = command.find("'", i + 1)
            end = n if end < 0 else end
            word.append(command[i + 1 : end])
            i = end
        elif c == '"':
            started = True
            i += 1
            while i < n and command[i] != '"':
                if command[i] == "\\" and i + 1 < n and command[i + 1] in '"\\':
                    i += 1
                word.append(command[i])
                i += 1
        elif c == "\\":
            started = True
            if i + 1 < n:
                i += 1
                word.append(command[i])
        else:
            started = True
            word.append(c)
        i += 1
    close()
    if bodies is not None:
        bodies.extend(None for _ in tags)  # the command ends on the tag's line
    return words


def _read_bodies(
    command: str, at: int, tags: list[tuple[str, bool]], bodies: list[str | None]
) -> int:
    """Read the bodies of ``tags`` from ``command`` at ``at`` (a line's start) into
    ``bodies``; where the last one ends. A body no tag line ends runs to the end."""
    n = len(command)
    for tag, tabs in tags:
        lines: list[str] = []
        while True:
            if at >= n:
                bodies.append(None)
                break
            end = command.find("\n", at)
            end = n if end < 0 else end
            line = command[at:end].lstrip("\t") if tabs else command[at:end]
            at = end + 1
            if line.rstrip("\r") == tag:
                bodies.append("".join(lines))
                break
            lines.append(line + "\n")
    return at


def join(base: str, rel: str) -> str:
    """``rel`` under the folder ``base`` (both relative; either may be empty), with `/`."""
    if not base:
        return rel
    if not rel:
        return base
    return base.rstrip("/\\") + "/" + rel


# Commands whose bare arguments are paths (`git mv billing payments`, `rm -r billing`,
# `ls api`): a word without `/` or an extension is kept after these alone, since
# elsewhere it is most often not a path (`npm test`, `git checkout main`). The hooks then
# keep only the words that exist or that a decision governs.
_PATH_COMMANDS = frozenset(
    ("mv", "cp", "rm", "rmdir", "mkdir", "ls", "cat", "touch", "ln", "find", "tree", "du",
     "stat", "head", "tail", "wc", "diff")
)  # fmt: skip
_GIT_PATH_COMMANDS = frozenset(("mv", "rm", "add", "restore", "diff", "log", "blame", "ls-files"))
_WRAPPERS = frozenset(("sudo", "env", "time", "nohup", "nice", "command", "exec"))


# Commands that change the files they are given: every path argument (``mv`` removes its
# sources too), only the last (``cp``, ``ln``: the copy or link made), or every one when
# the command is given a flag that edits in place (``sed -i``, ``perl -pi``). What a
# command writes otherwise (a script, a build) is not known from its words.
_WRITES_ALL = frozenset(
    ("mv", "rm", "rmdir", "touch", "truncate", "tee", "shred", "unlink", "sponge")
)
_WRITES_LAST = frozenset(("cp", "ln", "install", "rsync"))
_IN_PLACE = frozenset(("sed", "perl", "ruby", "awk", "gawk"))  # gawk's `-i inplace`
_GIT_WRITES = frozenset(("mv", "rm", "restore", "checkout"))  # `git checkout REF -- PATH`
# The flags whose value (the next word, or after `=`) is a file the command writes: a
# download's (`curl -o`, `curl -sSLo`, `wget -O`), dd's `of=`. Before session 51 such a
# file was read as read, and its decisions were not brought as for a write.
_OUTPUT_FLAGS: dict[str, tuple[str, ...]] = {
    "curl": ("-o", "--output"),
    "wget": ("-O", "--output-document"),
    "dd": ("of",),
}


def _outputs_to(name: list[str], flag: str) -> bool:
    """Whether ``flag`` of the command ``name`` gives the file it writes: the flag, or a
    cluster of short flags that ends with it (`-sSLo`)."""
    for known in _OUTPUT_FLAGS.get(name[0], ()) if name else ():
        if flag == known or (
            len(known) == 2
            and known[0] == "-"
            and not flag.startswith("--")
            and flag[1:].isalpha()
            and flag.endswith(known[1])
        ):
            return True
    return False


def bash_words(command: str) -> list[str]:
    """Shell words of a command that could be paths (flags, operators and URLs dropped),
    relative ones joined to the folder a ``cd`` or ``pushd`` earlier in the command moved
    to (``cd services/billing && sed -i ... rates.py`` touches
    ``services/billing/rates.py``; agents run commands so all the time). ``popd`` and the
    end of a ``( ... )`` subshell go back. After ``cd`` to a folder not written out (no
    argument, ``~``, ``-``, a variable), relative words are dropped: where they point is
    not known."""
    return [word for word, _ in _bash_paths(command)]


def bash_writes(command: str) -> list[str]:
    """The words of ``bash_words`` the command writes: a redirection's target (``>``,
    ``>>``), and the paths given to a command that changes its files (``rm``, ``mv``, the
    last of ``cp``, ``sed -i``, ``git mv``; see ``_WRITES_ALL``)."""
    return [word for word, written in _bash_paths(command) if written]


def _writes(name: list[str], flags: list[str], count: int) -> range:
    """Which of a simple command's ``count`` path words it writes (their positions)."""
    if not name or not count:
        return range(0)
    if name[0] == "git":
        return range(count) if name[1:2] and name[1] in _GIT_WRITES else range(0)
    if name[0] in _WRITES_ALL:
        return range(count)
    if name[0] in _WRITES_LAST:
        return range(count - 1, count)
    return range(count) if name[0] in _IN_PLACE and any(map(_in_place, flags)) else range(0)


def _in_place(flag: str) -> bool:
    """Whether a flag of sed, perl or ruby edits in place: ``--in-place``, or ``i`` in a
    cluster of short flags before one that takes the rest as its argument (``-i.bak``,
    ``-ni``, ``-pi``; not ``-Mstrict``, ``-e``)."""
    if flag.startswith("--"):
        return flag == "--in-place" or flag.startswith("--in-place=")
    for c in flag[1:]:
        if c == "i":
            return True
        if c in "eEfIMmx" or not c.isalpha():
            return False
    return False


# A simple command the hooks read further, as the walk found it: (the folder it runs in,
# relative to the command's cwd; its name; its words after the name but its
# redirections; those, as (operator with its descriptor, `2>`; target), a heredoc's
# target its tag; the bodies of its here-documents). A tuple, not a dataclass: this
# module runs in every tool-call hook, and ``dataclasses`` imports ``re`` and ``inspect``.
Run = tuple[str, str, list[str], list[tuple[str, str]], list[str | None]]
_OUTPUTS = frozenset((">", ">>", ">|", "&>", "&>>", "1>", "1>>", "1>|"))  # into stdout's file
# what ends a path word in a here-document's body (code: `open('a/b.py', 'w')`)
_NOT_IN_PATHS = str.maketrans(dict.fromkeys("'\"`(),;=<>{}", " "))
_RUNS = frozenset(
    ("sed", "cat", "tee", "patch", "git", "apply_patch", "applypatch", "cp", "mv", "install",
     "find", "xargs", "grep", "rg", "perl", "egrep", "fgrep", "sort", "uniq", "head", "tail",
     "cut", "tr", "jj")
)  # fmt: skip
# the names whose runs are kept (any other command's run is kept nameless, so that
# which runs are joined by a pipe is known: `grep -l x | sort | xargs sed`)

# The last command walked: a hook asks for a command's words, then for what it writes
# (after-tool) or the `sed -i` it runs (before-tool), and walks it once.
_walked: tuple[str, list[tuple[str, bool]], list[Run]] = ("", [], [])


def _bash_paths(command: str) -> list[tuple[str, bool]]:
    """``bash_words``, each with whether the command writes it (``bash_writes``)."""
    return walk(command)[1]


def walk(command: str) -> tuple[str, list[tuple[str, bool]], list[Run]]:
    """``command`` walked as the shell would run it: (the command; its words that look
    like paths, each with whether it writes them; its simple commands the hooks read
    further, as ``Run`` tuples). Walked once for all the readers of one command."""
    global _walked
    if _walked[0] != command:
        runs: list[Run] = []
        _walked = (command, _walk_shell(command, runs), runs)
    return _walked


def _walk_shell(command: str, runs: list[Run]) -> list[tuple[str, bool]]:
    """The path words of ``command`` (see ``bash_words``); each command named in
    ``_RUNS`` that it runs where the folder is known goes to ``runs``. Here-documents'
    bodies are no commands (``shell_words``): the path words in them (a script's, given
    to `python -`) come after the command's own, as read."""
    out: list[tuple[str, bool]] = []
    base: str | None = ""  # where the command has cd'd to, relative to its cwd
    saved: list[str | None] = []
    start = True  # the next word begins a simple command
    moving = False  # the next word is a cd's folder
    name: list[str] = []  # the simple command's name (and git's subcommand)
    flags: list[str] = []  # its flags (sed -i)
    args: list[int] = []  # where its path words are in ``out``
    target = False  # the next word is a redirection's target (">", ">>", "&>")
    source = False  # ... or an input's ("<"): read, and no argument of the command
    run: list[str] = []  # the words after its name, where ``_RUNS`` has the name
    redirects: list[tuple[str, str]] = []  # ... and its redirections
    redirect = ""  # the redirection whose target is the next word (for ``redirects``)
    docs: list[str | None] = []  # the bodies of its here-documents
    bodies: list[str | None] = []  # the command's here-documents' bodies, in order
    tag = False  # the next word is a here-document's tag
    mentioned: list[tuple[str, bool]] = []  # the path words of here-documents' bodies
    script = False  # the next word is a command a shell is given to run (`bash -c`)
    code = False  # ... or code an interpreter is given to run (`python3 -c`, `node -e`)
    timing = False  # after `timeout`: its duration comes before the command
    output = False  # the next word is the file a flag names for the command to write
    outputs: list[int] = []  # where those are in ``out``

    def written(at: list[int]) -> None:
        for i in at:
            out[i] = (out[i][0], True)

    def ended() -> None:
        written([args[i] for i in _writes(name, flags, len(args))])
        written(outputs)
        outputs.clear()
        if name and name[0] in _RUNS and base is not None:
            runs.append((base, name[0], run.copy(), redirects.copy(), docs.copy()))
        else:
            runs.append(("", "", [], [], []))
        run.clear()
        redirects.clear()
        docs.clear()

    words = shell_words(command, newline=";", bodies=bodies)
    for word in words:
        if tag and not (word and all(c in _OPERATORS for c in word)):
            tag = False  # a here-document's tag: its body is the command's input
            docs.append(bodies.pop(0) if bodies else None)
            if redirect:
                redirects.append((redirect, word))
                redirect = ""
            if docs[-1] and base is not None:  # a script's paths (`python - <<'PY'`): read
                _mention(docs[-1], base, mentioned)
            continue
        tag = False
        if word and all(c in _OPERATORS for c in word):
            redirect = ""
            if "<" in word or ">" in word:
                # a redirection: its target is a path, the command goes on; `>&`, `2>&1`
                # duplicate a descriptor, `<` and `<<` read
                target = ">" in word and not word.endswith("&") and "<" not in word
                source = word == "<"
                tag = word.endswith("<<") and not word.endswith("<<<")
                if name and name[0] in _RUNS:  # `2>err.log`: the descriptor is no word
                    redirect = (run.pop() if run and run[-1].isdigit() else "") + word
                continue
            if word in ("|", "|&"):  # its output is the next command's input
                redirects.append(("|", ""))
            ended()
            flags, args, target, source = [], [], False, False
            for c in word:  # `(`, `)`, and a run of them with others: `);`, `&& (`
                if c == "(":
                    saved.append(base)
                elif c == ")" and saved:
                    base = saved.pop()
            if moving:
                base = None  # a bare `cd`: the home folder
            start, moving, timing, script, code = True, False, False, False, False
            name = []
            continue
        redirected, read_in = target, source  # this word is a redirection's
        target = source = False
        named_output, output = output, False
        if moving:
            if word.startswith("-") and word != "-":
                continue  # cd -P, cd -L
            moving = False
            if word == "-" or word.startswith(("~", "$")) or base is None:
                base = None
                continue
            word = word if word.startswith("/") else join(base, word)
            base = word
            if _looks_like_path(word):
                out.append((word, False))
            continue
        if start and word in ("cd", "pushd", "popd"):
            if word == "pushd":
                saved.append(base)
            if word == "popd":
                base = saved.pop() if saved else ""
            moving = word != "popd"
            start = False
            continue
        if redirect:
            redirects.append((redirect, word))
            redirect = ""
        elif name and name[0] in _RUNS:
            run.append(word)
        assignment = start and "=" in word and "/" not in word.split("=", 1)[0]
        if not assignment and (start or name == ["git"]) and not word.startswith("-"):
            if timing and (word.isdigit() or word[:-1].replace(".", "", 1).isdigit()):
                continue  # `timeout 60 ...`: its duration, then the command
            name.append(word.rsplit("/", 1)[-1])  # the command, or git's subcommand
            timing = name == ["timeout"]
            start = name[0] in _WRAPPERS or timing  # `sudo rm -r billing`: the next word is it
            if start:
                name = []
            if not _looks_like_path(word):
                continue  # else a script run by its path (`./scripts/deploy.sh`)
        start = start or assignment  # `VAR=x cd dir` still starts a command
        if script:  # `bash -c 'cd a && sed -i ... x.py'`: the string is a command
            script = False
            if base is not None and not (redirected or read_in):
                _nest(word, base, out, runs)
            continue
        if code:  # `python3 -c "open('billing/charge.py', 'a')..."`: as a script's body
            code = False
            if base is not None and not (redirected or read_in):
                _mention(word, base, mentioned)
                continue
        if "://" in word:
            continue
        if "=" in word and not word.startswith(("./", "/")):
            key, word = word.split("=", 1)  # VAR=path, --opt=path
            named_output = _outputs_to(name, key)
        elif word.startswith("-"):
            flags.append(word)
            output = _outputs_to(name, word)
            script = name[:1] != [] and name[0] in _SHELLS and _runs_a_string(word)
            code = name[:1] != [] and _runs_code(name[0], word)
            continue
        word = word.strip("'\"")
        takes_paths = name[-1:] and (
            name[0] in _PATH_COMMANDS if len(name) == 1 else name[1] in _GIT_PATH_COMMANDS
        )
        if not word or not (
            _looks_like_path(word) or (takes_paths and word not in ".") or redirected
        ):
            continue
        if word == "/dev/null" or (not word.startswith("/") and base is None):
            continue
        if named_output:
            outputs.append(len(out))
        elif not (redirected or read_in):
            args.append(len(out))
        out.append((word if word.startswith("/") else join(base or "", word), redirected))
    ended()
    return (out + mentioned)[:MAX_PATHS]  # the command's own words first


_SHELLS = frozenset(("bash", "sh", "zsh", "dash", "ksh"))
# The flags that give an interpreter its code on the command line, by its name (less a
# version: `python3.12`, `node22`). Agents write files so when their edit tool fails or
# for many files at once; before session 49 no path in such code reached the hooks, so
# the decisions governing the files it names came only after it ran.
_CODE_FLAGS = {  # short flags (the last of a cluster: `perl -ne`), long ones
    "python": ("c", ()),
    "node": ("ep", ("--eval", "--print")),
    "nodejs": ("ep", ("--eval", "--print")),
    "bun": ("ep", ("--eval", "--print")),
    "ruby": ("e", ()),
    "perl": ("eE", ()),
    "php": ("r", ()),
    "lua": ("e", ()),
    "Rscript": ("e", ()),
}


def _runs_code(name: str, flag: str) -> bool:
    """Whether ``flag`` gives the interpreter ``name`` its code as the next argument."""
    short, long = _CODE_FLAGS.get(name.rstrip("0123456789.") or name, ("", ()))
    if flag.startswith("--"):
        return flag in long
    return len(flag) > 1 and flag[1:].isalpha() and flag[-1] in short


def _mention(text: str, base: str, mentioned: list[tuple[str, bool]]) -> None:
    """The path words of a script's text (a here-document's body, an interpreter's
    `-c` code) to ``mentioned``, as read: what the script does with them is unknown."""
    for w in text.translate(_NOT_IN_PATHS).split():
        if len(mentioned) >= MAX_PATHS:
            break
        if _looks_like_path(w) and "://" not in w:
            mentioned.append((w if w.startswith("/") else join(base, w), False))


def _runs_a_string(flag: str) -> bool:
    """Whether a shell's flag makes it run its next argument (`-c`, `-lc`, `-ec`)."""
    return flag[:1] == "-" and flag[1:2] != "-" and "c" in flag[1:]


def _nest(command: str, base: str, out: list[tuple[str, bool]], runs: list[Run]) -> None:
    """Walk a command that a shell is given as a string (`bash -lc '...'`, which agents
    and `timeout` wrappers run), from the folder ``base`` it starts in: its path words go
    to ``out`` and its runs to ``runs``, as the outer command's would (since session 43;
    before, the string was one word, and nothing in it was read)."""
    inner: list[Run] = []
    for path, written in _walk_shell(command, inner):
        out.append((path if path.startswith("/") else join(base, path), written))
    runs += [(f if f.startswith("/") else join(base, f), n, w, r, d) for f, n, w, r, d in inner]


def _scan(value: Any, key: str, out: list[str], depth: int = 0) -> None:
    if depth > 4 or len(out) >= MAX_PATHS:
        return
    if isinstance(value, str):
        if value and len(value) < 1024 and _path_key(key):
            out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _scan(v, str(k), out, depth + 1)
    elif isinstance(value, list):
        for item in value[:MAX_PATHS]:
            _scan(item, key, out, depth + 1)


def patched_files(tool_name: str, tool_input: Any) -> list[tuple[str, str]] | None:
    """For an ``apply_patch`` call (Codex's: the patch in ``command``; OpenCode's, which
    replaces its edit and write tools for GPT models: in ``patchText``; ``patch`` and
    ``input`` are read too), or a shell command that passes a patch to ``apply_patch``:
    (path, the lines the patch adds to it) for each file it names, in order (a moved
    file's added lines go to its new path). None for any other call. Before session 42
    OpenCode's ``patchText`` was not read: its patches met no decision and no rule. A
    shell command's paths are from the folder its `apply_patch` runs in (`cd svc &&
    apply_patch <<'EOF'`, which Codex runs as a patch too; since session 43)."""
    if not isinstance(tool_input, dict):
        return None
    for key in ("command", "patchText", "patch", "input"):
        value = tool_input.get(key)
        if isinstance(value, str) and (tool_name == PATCH_TOOL or PATCH_START in value):
            files = _patch_files(value)
            if files and not value.lstrip().startswith(PATCH_START):
                files = _shell_patch_files(value) or files
            if files or tool_name == PATCH_TOOL:
                return files
    return None


def _shell_patch_files(command: str) -> list[tuple[str, str]]:
    """``_patch_files`` of each patch a shell command gives `apply_patch` (in a
    here-document, or its argument), its paths from the folder that runs in."""
    out: list[tuple[str, str]] = []
    for folder, name, words, _, docs in walk(command)[2]:
        if name in ("apply_patch", "applypatch"):
            for patch in [*words, *docs]:
                if patch is not None and patch.lstrip().startswith(PATCH_START):
                    out += [(p if p.startswith("/") else join(folder, p), added)
                            for p, added in _patch_files(patch)]  # fmt: skip
    return out[:MAX_PATHS]


def may_apply_diff(command: str) -> bool:
    """Whether ``command`` may have `git apply` or `patch` write a diff
    (``shelldiffs.applied_diffs``, imported only then; a substring test)."""
    return "apply" in command or "patch" in command


def _patch_files(patch: str) -> list[tuple[str, str]]:
    files: list[tuple[str, list[str]]] = []
    for line in patch.splitlines():
        if line.startswith("*** "):
            for header in _PATCH_FILE:
                if line.startswith(header):
                    path = line[len(header) :].strip()
                    if path and len(files) < MAX_PATHS:
                        files.append((path, []))
                    break
        elif line.startswith("+") and files:
            files[-1][1].append(line[1:])
    return [(path, "\n".join(added)) for path, added in files]


def is_edit(tool_name: str, tool_input: Any) -> bool:
    return tool_name in EDIT_TOOLS or patched_files(tool_name, tool_input) is not None


def changes(tool_name: str, tool_input: Any) -> list[tuple[str | None, str]]:
    """What an edit is about to add, as (path, text) pairs: per file for a patch; for the
    other edit tools one pair whose path is None (the call's one file; a Write's whole
    content, which ``added_text`` reads against the file's text now)."""
    files = patched_files(tool_name, tool_input)
    if files is not None:
        return [(path, text) for path, text in files if text]
    return [(None, added_text(tool_input))]


def _output(redirects: list[tuple[str, str]]) -> tuple[str, bool] | None:
    """Where a command's output goes among its ``redirects`` (the last one to a file
    wins), and whether it is appended to; None for the terminal or a pipe."""
    found = [(target, op.endswith(">>")) for op, target in redirects if op in _OUTPUTS]
    return found[-1] if found else None


# `cp`, `mv` and `install` options that take a value (the target folder's are read)
_COPY_VALUES = frozenset(("-t", "--target-directory", "-S", "--suffix", "-m", "--mode",
                          "-o", "--owner", "-g", "--group"))  # fmt: skip


def copied_files(command: str) -> list[tuple[str, str, bool, bool]]:
    """(source, target, whether the target is a folder, whether appended to) for each
    file that a `cp`, `mv` or `install` of ``command`` puts at a path, or that `cat`
    writes into one (`cat /tmp/new.py > billing/x.py`, `>>`), both from the folder it
    runs in: agents write a file elsewhere (`/tmp/charge.py`) and then copy or move it
    over the one they mean to change. The before-tool check reads the source as a Write
    of the target (since session 43; before, only after it ran). A target is a folder
    when it is given by `-t` or ends in `/`; else the hook looks. Sources the shell
    expands (`*.py`), and a `cat` with options or of its input, are not read."""
    if not any(name in command for name in ("cp", "mv", "install", "cat")):
        return []
    out: list[tuple[str, str, bool, bool]] = []
    for folder, name, words, redirects, docs in walk(command)[2]:
        if name not in ("cp", "mv", "install", "cat") or docs:
            continue
        args: list[str] = []
        into = ""  # -t FOLDER
        i, flags, options = 0, True, False
        while i < len(words):
            word, i = words[i], i + 1
            value = words[i] if i < len(words) else ""
            if flags and word == "--":
                flags = False
            elif flags and word.startswith("-") and word != "-":
                options = True
                key, eq, given = word.partition("=")
                if key in _COPY_VALUES and not eq:
                    given, i = value, i + 1
                elif key[:2] in ("-t", "-S", "-m", "-o", "-g") and not key.startswith("--"):
                    given = key[2:]  # -tFOLDER
                    key = key[:2]
                if key in ("-t", "--target-directory"):
                    into = given
            else:
                args.append(word)
        append = False
        if name == "cat":
            output = _output(redirects)
            if output is None or options or not args or "-" in args:
                continue
            sources, (target, append) = args, output
        else:
            sources, target = (args, into) if into else (args[:-1], args[-1] if args else "")
        if not sources or not target or any(c in "".join(sources) for c in _WILD):
            continue
        folded = name != "cat" and (bool(into) or target.endswith("/") or len(sources) > 1)
        for source in sources:
            out.append((
                source if source.startswith("/") else join(folder, source),
                target if target.startswith("/") else join(folder, target),
                folded,
                append or (name == "cat" and source != sources[0]),
            ))  # fmt: skip
    return out[:MAX_PATHS]


def may_commit(command: str) -> bool:
    """Whether ``command`` may make a commit without the repository's hooks: `git commit`,
    `git am` or jj (``shellcommits``, imported only then; a substring test)."""
    return "commit" in command or "jj" in command or ("am" in command and "am" in command.split())


def heredoc_writes(command: str) -> list[tuple[str, str, bool]]:
    """(path, body, whether appended) for each here-document that ``command`` writes to a
    file with `cat` (`cat > path <<'EOF'`, `cat <<EOF >> path`) or, since session 43,
    `tee [-a] path...`: the heredoc agents write whole files with through their shell.
    Its body is the text, as a Write's content is, so the before-tool check can read it
    against the critical rules. Paths are from the folder the command runs in: before
    session 43 a `cd` before it was not followed, and the file was not found."""
    if "<<" not in command:
        return []
    out: list[tuple[str, str, bool]] = []
    for folder, name, args, redirects, docs in walk(command)[2]:
        body = docs[0] if len(docs) == 1 and name in ("cat", "tee") else None
        if body is None:
            continue
        output = _output(redirects)
        written = [] if output is None else [output]
        if name == "tee":
            append = any(a in ("-a", "--append") for a in args)
            files = [a for a in args if a not in ("-a", "--append")]
            if any(a.startswith("-") for a in files):
                continue  # another option: not read
            written = [(file, append) for file in files]
        elif args not in ([], ["-"]):
            continue  # cat of files too: not the heredoc alone
        for path, append in written:
            if path and path != "/dev/null" and len(out) < MAX_PATHS:
                out.append((path if path.startswith("/") else join(folder, path), body, append))
    return out


# `echo 'text' > path`, `printf '%s\n' 'text' >> path`: a line or two written through the
# shell, its text in one quoted argument (in double quotes, none that the shell expands);
# or piped into `tee [-a] path` (since session 42), its output thrown away or not. Its
# errors may go elsewhere (`2>&1`, `2>/dev/null`: since session 48).
_ECHO = r"""(?:^|[;&|]\s*|\n)\s*(?P<cmd>echo|printf)\s+(?:-[neE]+\s+)*
    (?:'%s\\n'\s+|"%s\\n"\s+)?
    (?:'(?P<s>[^']*)'|"(?P<d>[^"$`\\]*)")\s*
    (?:(?P<op>>>?)|(?P<pipe>\|\s*(?:sudo\s+)?tee\s+(?P<tee>(?:-a|--append)\s+)?))\s*
    (?P<path>[^\s;&|<>'"-][^\s;&|<>'"]*|'[^']+'|"[^"]+")
    (?(pipe)(?:\s*>\s*/dev/null)?)(?:\s+2>&1|\s+2>>?\s*[^\s;&|<>'"]+)*\s*(?=$|[;&|\n])"""


def echo_writes(command: str) -> list[tuple[str, str, bool]]:
    """(path, text, whether appended) for each `echo` or `printf` of one quoted argument
    into a file in ``command``; an escaped newline is read as one. A relative path is
    from the folder the command has moved to by then (`cd pkg && echo '…' >> x.py`: before
    session 48 from the one it began in, so the file was not found and nothing was read);
    after a `cd` to a folder not written out, the write is not read."""
    if (">" not in command and "tee" not in command) or (
        "echo" not in command and "printf" not in command
    ):
        return []
    import re

    out: list[tuple[str, str, bool]] = []
    for m in re.finditer(_ECHO, command, re.VERBOSE):
        if len(out) >= MAX_PATHS:
            break
        text = m.group("s") if m.group("s") is not None else m.group("d")
        path = m.group("path").strip("'\"")
        append = m.group("op") == ">>" or m.group("tee") is not None
        if not path.startswith("/"):
            folder = _folder_at(command[: m.start("cmd")]) if "cd" in command else ""
            if folder is None:
                continue
            path = join(folder, path)
        out.append((path, text.replace("\\n", "\n"), append))
    return out


def _folder_at(before: str) -> str | None:
    """The folder, relative to the command's own, that the part of a command ``before``
    a simple command has moved to (``cd``, ``pushd``, a subshell's end: as ``walk``
    follows them); None where it is not known (`cd "$X"`)."""
    runs = walk(before + "\ncat")[2]  # where a `cat` run after it would run
    return runs[-1][0] if runs and runs[-1][1] == "cat" else None


def may_sed_in_place(command: str) -> bool:
    """Whether ``command`` may hold a `sed -i` (a substring test: the walk is skipped
    for the others)."""
    return "sed" in command and ("-i" in command or "--in-place" in command)


def may_perl_in_place(command: str) -> bool:
    """Whether ``command`` may hold a `perl -pi` (a substring test, as for sed)."""
    return "perl" in command and "-" in command


def added_text(tool_input: Any, current: str | None = None) -> str:
    """The lines a Write/Edit/MultiEdit/NotebookEdit call adds, joined: an edit's new text
    less the lines of the text it replaces, a Write's content less the lines the file has
    now (``current``), each line once for each time it is in one and not the other, as
    `git diff` counts them. So a line the file already had (legacy code a critical rule
    now forbids, which the commit-time check, reading added lines, lets be) does not deny
    an edit that keeps it; before session 41 an agent could not edit such a file at all
    when its edit's context held that line."""
    if not isinstance(tool_input, dict):
        return ""
    pairs: list[tuple[str, str]] = []
    content = tool_input.get("content")
    if isinstance(content, str):
        pairs.append((current or "", content))
    edits = tool_input.get("edits")
    for edit in [tool_input, *(edits if isinstance(edits, list) else [])]:
        if isinstance(edit, dict) and isinstance(edit.get("new_string"), str):
            old = edit.get("old_string")
            pairs.append((old if isinstance(old, str) else "", edit["new_string"]))
    source = tool_input.get("new_source")  # a notebook cell: its old text is not read
    if isinstance(source, str):
        pairs.append(("", source))
    added: list[str] = []
    for old, new in pairs:
        left: dict[str, int] = {}
        for line in old.splitlines():
            left[line] = left.get(line, 0) + 1
        for line in new.splitlines():
            if left.get(line, 0) > 0:
                left[line] -= 1
            else:
                added.append(line)
    return "\n".join(added)


def touched(tool_name: str, tool_input: Any) -> tuple[list[str], bool]:
    """(candidate paths, whether they came from shell words and need checking)."""
    if not isinstance(tool_input, dict):
        return [], False
    name = tool_name or ""
    paths: list[str] = []
    files = patched_files(name, tool_input)
    if files is not None:
        return [path for path, _ in files], False
    if name in ("Read", "Write", "Edit", "MultiEdit"):
        _scan(tool_input.get("file_path"), "file_path", paths)
    elif name == "NotebookEdit":
        _scan(tool_input.get("notebook_path"), "notebook_path", paths)
    elif name == "LS":
        _scan(tool_input.get("path"), "path", paths)
    elif name in ("Glob", "Grep"):
        path_value = tool_input.get("path")
        base = path_value if isinstance(path_value, str) else ""
        for key in ("pattern", "glob") if name == "Glob" else ("glob",):
            pattern = tool_input.get(key)
            if isinstance(pattern, str) and pattern:
                paths.append(join(base, glob_prefix(pattern)))
        if base and not paths:
            paths.append(base)
    elif name == SHELL_TOOL:
        command = tool_input.get("command")
        if isinstance(command, str):
            return bash_words(command), True
    else:  # MCP tools (mcp__server__tool) and anything new
        _scan(tool_input, "", paths)
    return [p for p in paths if isinstance(p, str) and p.strip()][:MAX_PATHS], False


def translate(
    payload: dict[str, Any],
    tools: dict[str, tuple[str, dict[str, tuple[str, ...]]]],
    agent: str,
    folder_keys: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Another agent's tool call as Claude Code would send it (Gemini CLI, Cursor and
    Copilot CLI name tools and arguments differently, and differently across releases).
    ``tools``: their tool -> (Claude Code's tool, {Claude argument: their names for it,
    the first holding a non-empty string wins}); the original name is kept as
    ``<agent>_tool_name``. Arguments sent as a JSON string are parsed. A shell command's
    folder (the first of ``folder_keys``) is joined to ``cwd``. ``payload`` itself comes
    back when there is nothing to translate."""
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, str) and tool_input.lstrip().startswith(PATCH_START):
        # a freeform `apply_patch` whose input is the patch itself: Copilot CLI gives GPT
        # models one and sends it as `Edit` with the patch for input (1.0.102; before
        # session 42 such a patch met no decision and no rule)
        name = payload.get("tool_name")
        return {**payload, "tool_name": PATCH_TOOL, "tool_input": {"command": tool_input},
                f"{agent}_tool_name": name}  # fmt: skip
    if isinstance(tool_input, str):  # MCP arguments, Copilot's camelCase `toolArgs`
        from gitmem import leanjson

        try:
            tool_input = leanjson.loads(tool_input)
        except ValueError:
            return payload
    name = payload.get("tool_name")
    if not isinstance(name, str) or not isinstance(tool_input, dict):
        return payload
    spec = tools.get(name)
    if spec is None:  # MCP and new tools: read through their path-like arguments
        return (
            payload
            if tool_input is payload.get("tool_input")
            else {**payload, "tool_input": tool_input}
        )
    claude, renames = spec
    adapted = dict(tool_input)
    for ours, theirs in renames.items():
        for key in theirs:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                adapted[ours] = value
                break
    out = {**payload, "tool_name": claude, "tool_input": adapted, f"{agent}_tool_name": name}
    folder = next((tool_input[k] for k in folder_keys if tool_input.get(k)), None)
    cwd = payload.get("cwd")
    if claude == "Bash" and isinstance(folder, str) and isinstance(cwd, str):
        out["cwd"] = os.path.join(cwd, folder)  # the command runs there
    return out
