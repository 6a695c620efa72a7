"""The in-place edits a shell command makes, read before it runs: `sed -i` and `perl -pi`
on files it names, or on files other commands list (`find -exec sed`, `grep -rl X |
xargs sed -i`). The before-tool hook runs the sed on a copy, or perl's substitutions
(``gitmem.agent.perlsub``), to check the text they would write against the critical
rules. Imported only for a command that may hold one (``toolpaths.may_sed_in_place``,
``may_perl_in_place``); built-in modules only, as ``toolpaths``.
"""

from __future__ import annotations

from gitmem.agent.toolpaths import MAX_PATHS, Run, may_perl_in_place, may_sed_in_place, walk

# GNU sed's options that change what it prints (kept when the edit is run on a copy) and
# those that do not (dropped); any other option leaves the command unread.
_SED_KEEP = {
    "n": "-n", "E": "-E", "r": "-E", "z": "-z",
    "--quiet": "-n", "--silent": "-n", "--regexp-extended": "-E", "--null-data": "-z",
    "--zero-terminated": "-z", "--posix": "--posix",
}  # fmt: skip
_SED_DROP = frozenset(
    ("s", "u", "b", "--separate", "--unbuffered", "--binary", "--follow-symlinks",
     "--debug", "--sandbox")
)  # fmt: skip


def sed_edits(command: str) -> list[tuple[str, list[str], list[str]]]:
    """Each `sed -i` (``--in-place``, ``-i.bak``, ``-ni``) of ``command`` whose words are
    all read (GNU sed's options) and whose folder is known (``bash_words`` follows the
    ``cd``s), in order, as (that folder, relative to the command's cwd; sed's arguments
    less the in-place flag and the files: its script and the options that change what it
    prints; the files it edits, from that folder). A tuple, not a dataclass: this
    module runs in every tool-call hook, and ``dataclasses`` imports ``re`` and
    ``inspect``. The before-tool check runs each on a copy of the files' text (``sed
    --sandbox``, which runs no command and reads or writes no file) to read what it would
    add."""
    if not may_sed_in_place(command):
        return []
    runs = walk(command)[2]
    edits = (_sed_edit(folder, words) for folder, name, words, _, _ in runs if name == "sed")
    return [edit for edit in edits if edit is not None][:MAX_PATHS]


def perl_edits(command: str) -> list[tuple[str, list[str], list[str]]]:
    """Each `perl -pi -e SCRIPT FILE...` of ``command`` (`-i.bak`, `-0777` for the whole
    file at once, `-0`, `-l`, several `-e`), as (its folder; [the script, what ends a
    record ("lines", "nul" or "all"), then "chomp" for `-l`]; the files, from that
    folder), for gitmem.agent.perlsub
    to read (since session 44: before, a critical rule met it only once it had written
    the files). Other options (`-n`, `-a`, `-M`, a script in a file) are not read."""
    if not may_perl_in_place(command):
        return []
    out: list[tuple[str, list[str], list[str]]] = []
    for folder, name, words, _, _ in walk(command)[2]:
        edit = _perl_edit(words) if name == "perl" else None
        if edit is not None:
            out.append((folder, *edit))
    return out[:MAX_PATHS]


def _perl_edit(words: list[str]) -> tuple[list[str], list[str]] | None:
    scripts: list[str] = []
    printing = in_place = chomp = False
    ends = "lines"  # what ends a record: "lines", "nul" (-0) or "all" (-0777)
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        word = words[i]
        i += 1
        if word == "--":
            break
        at = 1
        while at < len(word):
            c = word[at]
            at += 1
            if c == "p":
                printing = True
            elif c == "i":
                in_place = True
                break  # the rest is the backup's suffix
            elif c in "eE":
                script = word[at:]
                if not script:
                    if i >= len(words):
                        return None
                    script, i = words[i], i + 1
                scripts.append(script)
                break
            elif c == "0":
                digits = ""
                while at < len(word) and word[at] in "01234567":
                    digits += word[at]
                    at += 1
                if digits not in ("", "777"):
                    return None  # a record separator other than NUL or none
                ends = "all" if digits else "nul"
            elif c == "l" and not word[at : at + 1].isdigit():
                chomp = True
            elif c in "wWX":
                pass
            elif c == "C":
                break  # Unicode switches: the rest of the word
            else:
                return None  # -n, -a, -F, -M, -I, -s, ...
    files = words[i:]
    if not (printing and in_place and scripts and files) or "-" in files:
        return None
    if chomp and ends != "lines":
        return None  # what `-l` then ends a record with depends on the options' order
    return ["\n".join(scripts), ends, *(["chomp"] if chomp else [])], files


# `sed -i` given its files by another command. That command is run by the before-tool
# check to list them (read-only: only the producers and options below, whose runs read and
# print), its output split as xargs splits it.
_LISTED = "\0files"  # where sed's words get the listed files
# find's actions other than printing: a `find` holding one is not run
_FIND_ACTIONS = frozenset(
    ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls")
)
# xargs' options that only say how many files go to each run (sed edits them all the same)
_XARGS_FLAGS = frozenset(("-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x",
                          "--exit"))  # fmt: skip
_XARGS_VALUED = frozenset(("-n", "-P", "-L", "-s", "--max-args", "--max-procs",
                           "--max-lines", "--max-chars"))  # fmt: skip


def listed_edits(
    command: str,
) -> list[tuple[str, str, list[str], list[list[str]], bool]]:
    """Each `sed -i` or `perl -pi` of ``command`` whose files another command lists, as
    (its folder, relative to the command's cwd; "sed" or "perl"; its arguments as
    ``sed_edits`` or ``perl_edits`` give them; the commands that list the files, a
    pipeline to run from that folder; whether it separates them with NULs): `find ...
    -exec sed -i SCRIPT {} +` (`\\;` too; the find run with `-print0` in place of its
    `-exec`), and `grep -l`, `rg -l`, `git grep -l`, `git ls-files` or a printing `find`
    piped into `xargs [-0 -r -n N -P N -I R] sed -i SCRIPT`, through filters that only
    read their input (`grep -v test`, `sort -u`, `head -20`: ``_filter``). Agents rename
    across files so; before session 44 a critical rule met such a `sed -i` only once it
    had written the files, before session 45 a `perl -pi` or a filtered listing. Anything
    else (other options of xargs, `rg --pre`, a producer that runs commands, several
    `-exec`s) is left to the after-tool check."""
    if not (may_sed_in_place(command) or may_perl_in_place(command)):
        return []
    runs = walk(command)[2]
    out: list[tuple[str, str, list[str], list[list[str]], bool]] = []
    for at, (folder, name, words, _, _) in enumerate(runs):
        found = None
        if name == "find":
            found = _find_exec(folder, words)
        elif name == "xargs" and at and ("|", "") in runs[at - 1][3]:
            listing = _listing_pipeline(runs, at, folder)
            found = _xargs_edit(folder, words, listing) if listing else None
        if found is not None:
            out.append(found)
    return out[:MAX_PATHS]


def _listed_editor(folder: str, words: list[str]) -> tuple[str, list[str]] | None:
    """("sed" or "perl", its arguments) for an in-place edit of the listed files alone
    (``_LISTED`` where they go), as ``_sed_edit`` and ``_perl_edit`` read it."""
    if words[:1] == ["sed"]:
        edit = _sed_edit(folder, words[1:])
        return ("sed", edit[1]) if edit is not None and edit[2] == [_LISTED] else None
    if words[:1] == ["perl"]:
        perl = _perl_edit(words[1:])
        return ("perl", perl[0]) if perl is not None and perl[1] == [_LISTED] else None
    return None


def _find_exec(
    folder: str, words: list[str]
) -> tuple[str, str, list[str], list[list[str]], bool] | None:
    if words.count("-exec") != 1 or any(w in _FIND_ACTIONS for w in words if w != "-exec"):
        return None
    at = words.index("-exec")
    clause = words[at + 1 :]
    end = next((i for i, w in enumerate(clause) if w in ("+", ";")), len(clause))
    if clause[end + 1 :] or end < 2 or clause[end - 1] != "{}":
        return None  # the editor, its words, `{}`, then `+` (`\;` ends the command: not a word)
    edit = _listed_editor(folder, [_LISTED if w == "{}" else w for w in clause[:end]])
    if edit is None:
        return None
    return folder, edit[0], edit[1], [["find", *words[:at], "-print0"]], True


def _listing_pipeline(runs: list[Run], at: int, folder: str) -> list[list[str]] | None:
    """The commands piped into the xargs at ``runs[at]``, as run to list its files: a
    producer (``_producer``), then the filters after it (``_filter``); None where one of
    them is neither, or runs elsewhere."""
    filters: list[list[str]] = []
    j = at - 1
    while j >= 0 and runs[j][0] == folder:
        _, name, words, _, _ = runs[j]
        piped_into = j > 0 and ("|", "") in runs[j - 1][3]
        argv = _filter(name, words) if piped_into else None
        if argv is None:
            producer = _producer(name, words)
            return [producer, *filters] if producer is not None else None
        filters.insert(0, argv)
        j -= 1
    return None


def _xargs_edit(
    folder: str, words: list[str], listing: list[list[str]]
) -> tuple[str, str, list[str], list[list[str]], bool] | None:
    nul, replace, i = False, "", 0
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        i += 1
        name, eq, _ = word.partition("=")
        if word in _XARGS_FLAGS:
            nul = nul or word in ("-0", "--null")
        elif name in _XARGS_VALUED:
            i += 0 if eq else 1
        elif word[:2] in ("-n", "-P", "-L", "-s") and word[2:].isdigit():
            pass
        elif word.startswith("-I") or name == "--replace":
            replace = word[2:] if word.startswith("-I") else (eq and word.split("=", 1)[1])
            if not replace:
                if word.startswith("--") or i >= len(words):
                    return None
                replace, i = words[i], i + 1
        else:
            return None  # -a FILE, -d, -E, -i (xargs' own), ...: not read
    run = words[i:]
    run = [_LISTED if w == replace else w for w in run] if replace else [*run, _LISTED]
    edit = _listed_editor(folder, run)
    if edit is None:
        return None
    return folder, edit[0], edit[1], listing, nul


# Filters between a listing and xargs that only read their input and print (no file
# operand, no output file, no program run): their options, by command. A value-taking
# option is followed by ":" (its value in the same word or the next).
_FILTERS = {
    "grep": ("vixwFEGPcsZzhHUay", "emABCd", ("--invert-match", "--ignore-case",
             "--fixed-strings", "--extended-regexp", "--word-regexp", "--line-regexp",
             "--null-data", "--null")),
    "egrep": ("vixwsZzhH", "emABC", ()),
    "fgrep": ("vixwsZzhH", "emABC", ()),
    "sort": ("bdfgiMhnRrVuzs", "ktS", ("--unique", "--reverse", "--zero-terminated")),
    "uniq": ("cdDiuz", "fsw", ()),
    "head": ("qvz", "nc", ()),
    "tail": ("qvzr", "nc", ()),
    "cut": ("sz", "dfcb", ("--complement",)),
    "tr": ("dsc", "", ()),
}  # fmt: skip


def _filter(name: str, words: list[str]) -> list[str] | None:
    """``name words`` as run between a listing and xargs, where it only reads its input
    and prints (the options in ``_FILTERS``, and no file operand: grep takes one pattern
    unless `-e` gives them, tr its two sets; a sed its script, run with ``--sandbox``);
    else None."""
    if name == "sed":
        read = _sed_words(words)
        return ["sed", "--sandbox", *read[0]] if read and not (read[1] or read[2]) else None
    spec = _FILTERS.get(name)
    if spec is None:
        return None
    flags, valued, long = spec
    operands: list[str] = []
    patterns = 0  # grep's -e
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            operands += words[i:]
            break
        if word.startswith("--"):
            if word.partition("=")[0] not in long:
                return None  # --output, --files0-from, --follow, ...
            continue
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if name in ("head", "tail") and word[1:].isdigit():
            continue  # `head -20`
        for at, c in enumerate(word[1:], 1):
            if c in valued:
                i += at == len(word) - 1  # its value is the next word
                patterns += c == "e"
                break
            if c not in flags:
                return None  # -r (a search of files), -f (a file), -o (sort's output)
    if name == "tr":
        reads_input = 1 <= len(operands) <= 2
    elif name.endswith("grep"):
        reads_input = len(operands) == (0 if patterns else 1)
    else:
        reads_input = not operands
    return [name, *words] if reads_input else None


def _producer(name: str, words: list[str]) -> list[str] | None:
    """The command that lists the files, as run before the command to read them, or
    None where it is not one that only reads and prints file names."""
    flags = [w for w in words if w.startswith("-") and not w.startswith("--")]
    lists = "--files-with-matches" in words or any("l" in w[1:] for w in flags)
    if name == "grep" and (lists or "--files-without-match" in words):
        return ["grep", *words]
    runs_programs = any(w.startswith(("--pre", "--search-zip")) for w in words) or any(
        "z" in w[1:] for w in flags
    )  # rg's preprocessor and decompressors
    if name == "rg" and lists and not runs_programs:
        return ["rg", "--no-config", *words]  # a config file may name a preprocessor
    if name == "git" and words[:1] == ["grep"]:
        named = "--name-only" in words or "--files-with-matches" in words or lists
        runs = ("-O", "--open-files-in-pager", "--textconv")  # a pager, textconv drivers
        if named and not any(w.startswith(runs) for w in words):
            return ["git", *words]
    if name == "git" and words[:1] == ["ls-files"]:
        return ["git", *words]
    if name == "find" and not any(w in _FIND_ACTIONS for w in words):
        return ["find", *words]
    return None


def _sed_edit(folder: str, words: list[str]) -> tuple[str, list[str], list[str]] | None:
    read = _sed_words(words)
    if read is None:
        return None
    args, files, in_place = read
    if not (in_place and files) or "-" in files:
        return None
    return folder, args, files


def _sed_words(words: list[str]) -> tuple[list[str], list[str], bool] | None:
    """sed's arguments (its script and the options that change what it prints), its
    files, and whether it edits them in place; None for a word not read or no script."""
    args: list[str] = []
    files: list[str] = []
    script = False  # a script is given (-e, -f, or the first word that is no option)
    in_place = False
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            files.extend(words[i:])
            break
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            if name == "--in-place":
                in_place = True
            elif name in ("--expression", "--file"):
                if not eq:
                    if i >= len(words):
                        return None
                    value, i = words[i], i + 1
                args += ["-e" if name == "--expression" else "-f", value]
                script = True
            elif name in _SED_KEEP:
                args.append(_SED_KEEP[name])
            elif name not in _SED_DROP:
                return None  # --line-length and anything unknown: not read
            continue
        if not word.startswith("-") or word == "-":
            if script:
                files.append(word)
            else:
                args += ["-e", word]
                script = True
            continue
        for at, c in enumerate(word[1:], 1):
            if c == "i":
                in_place = True  # the rest is the backup's suffix
                break
            if c in "ef":
                value = word[at + 1 :]
                if not value:
                    if i >= len(words):
                        return None
                    value, i = words[i], i + 1
                args += ["-" + c, value]
                script = True
                break
            if c in _SED_KEEP:
                args.append(_SED_KEEP[c])
            elif c not in _SED_DROP:
                return None
    return (args, files, in_place) if script else None
