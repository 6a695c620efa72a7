"""The unified diffs a shell command has `git apply` or `patch` write, read before it runs
(from a here-document, or a file it names), so that the before-tool check reads the
lines they add against the critical rules as it reads an edit's. Imported only for a
command that may hold one (``toolpaths.may_apply_diff``); built-in modules only, as
``toolpaths``.
"""

from __future__ import annotations

from gitmem.agent.toolpaths import MAX_PATHS, join, may_apply_diff, walk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def applied_diffs(
    command: str, read: Callable[[str], str | None] | None = None
) -> list[tuple[str, str]]:
    """(path, the lines it gains) for each file of each unified diff that ``command`` has
    `git apply` or `patch` (with `-p`) write: agents apply one when an edit tool will not
    take a change. The diff is read from a here-document (since session 42) or, with
    ``read`` (a file's text, or None), from a file named to `git apply`, to `patch -i` or
    through `<` (since session 43; before, those were read only after they ran). Paths
    are from the folder the command runs in (a `cd` before it is followed) and its
    `--directory`. A reversed apply gains the diff's removed lines; a checked, dry-run or
    index-only one writes nothing in the work tree. `patch` without `-p`, with `-d`, or
    naming the file to patch is left to the after-tool check (where it writes is not
    sure from its words)."""
    if not may_apply_diff(command):
        return []
    out: list[tuple[str, str]] = []
    for folder, name, words, redirects, docs in walk(command)[2]:
        git = name == "git" and words[:1] == ["apply"]
        if not (git or name == "patch"):
            continue
        how = _apply_options(git, words[1:] if git else words)
        if how is None:
            continue
        strip, reverse, directory, files = how
        files += [file for op, file in redirects if op == "<"]
        texts = [doc for doc in docs if doc is not None]
        for file in files:
            text = None if read is None else read(file if file[:1] == "/" else join(folder, file))
            if text is not None:
                texts.append(text)
        where = join(folder, directory)
        for text in texts:
            for path, added in _diff_files(text.split("\n"), strip, reverse):
                out.append((path if path.startswith("/") else join(where, path), added))
    return out[:MAX_PATHS]


# `git apply` and `patch` options that write nothing to the work tree
_NO_WRITE = frozenset(("--check", "--stat", "--numstat", "--summary", "--cached",
                       "--dry-run", "--apply-check"))  # fmt: skip
_GIT_APPLY_VALUES = frozenset(("--exclude", "--include", "--whitespace", "-C", "--directory"))
_PATCH_FLAGS = frozenset("NfstuElbRZ")  # short `patch` flags that take no value
_PATCH_LONG = frozenset(("--forward", "--force", "--silent", "--quiet", "--batch",
                         "--unified", "--remove-empty-files", "--backup", "--verbose",
                         "--no-backup-if-mismatch", "--reverse", "--binary"))  # fmt: skip


def _apply_options(git: bool, args: list[str]) -> tuple[int, bool, str, list[str]] | None:
    """How the `git apply` (``git``) or `patch` of ``args`` writes: (how many leading
    path parts it strips, whether reversed, the folder its paths are from, the files it
    names to read the diff from); None when it writes nothing, or where or what is not
    sure."""
    strip: int | None = 1 if git else None
    reverse = False
    directory = ""
    files: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        value = args[i] if i < len(args) else ""
        if arg in _NO_WRITE:
            return None
        if arg in ("-R", "--reverse"):
            reverse = True
        elif arg.startswith(("--strip=", "--directory=", "--input=")):
            key, _, given = arg.partition("=")
            if key == "--strip":
                if not given.isdigit():
                    return None
                strip = int(given)
            elif key == "--directory" and git:
                directory = given
            elif key == "--input" and not git:
                files.append(given)
            else:
                return None  # patch --directory: it moves before reading anything
        elif arg.startswith("-p"):
            given, i = (arg[2:], i) if arg[2:] else (value, i + 1)
            if not given.isdigit():
                return None
            strip = int(given)
        elif git and arg in _GIT_APPLY_VALUES:
            directory, i = (value if arg == "--directory" else directory), i + 1
        elif git and arg.startswith("-"):
            continue  # --index, -3, -v, --recount, -C3, --exclude=...
        elif git:
            files.append(arg)  # `-` is the input, read from a here-document or `<`
        elif arg in _PATCH_LONG:
            continue
        elif arg.startswith("-") and arg != "-":
            for at, c in enumerate(arg[1:], 1):
                if c == "R":
                    reverse = True
                elif c in "pi":
                    given, i = (arg[at + 1 :], i) if arg[at + 1 :] else (value, i + 1)
                    if c == "i":
                        files.append(given)
                    elif not given.isdigit():
                        return None
                    else:
                        strip = int(given)
                    break
                elif c not in _PATCH_FLAGS:
                    return None  # -d, -o and the rest: not read
        else:
            return None  # `patch FILE`: the file it patches, whatever the diff names
    return None if strip is None else (strip, reverse, directory, files)


def _diff_files(lines: list[str], strip: int, reverse: bool = False) -> list[tuple[str, str]]:
    """(path less ``strip`` leading parts, its added lines: ``reverse``, its removed ones)
    for each file of a unified diff, its hunks read by their line counts."""
    out: list[tuple[str, list[str]]] = []
    gains = "-" if reverse else "+"
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("+++ ") and i >= 2 and lines[i - 2].startswith("--- "):
            target = (lines[i - 2] if reverse else line)[4:].split("\t", 1)[0].strip()
            parts = target.split("/")
            if target != "/dev/null" and len(parts) > strip:
                out.append(("/".join(parts[strip:]), []))
            continue
        if not (line.startswith("@@ ") and out):
            continue
        try:
            old_span, new_span = line.split(" ")[1:3]
            left = int([*old_span[1:].split(","), "1"][1])
            right = int([*new_span[1:].split(","), "1"][1])
        except (ValueError, IndexError):
            continue
        while i < len(lines) and (left > 0 or right > 0):
            body = lines[i]
            i += 1
            if body.startswith(gains):
                out[-1][1].append(body[1:])
            if body.startswith("+"):
                right -= 1
            elif body.startswith("-"):
                left -= 1
            elif not body.startswith("\\"):  # context (`\ No newline` is neither)
                left, right = left - 1, right - 1
    return [(path, "\n".join(added)) for path, added in out]
