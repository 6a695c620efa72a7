"""``gitmem init``: create ``.continuity/`` and register existing ADR folders in place."""

from __future__ import annotations

import io
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitmem import adrglobs, adrimport, config, fsutil, git, moved, store
from gitmem.errors import GitmemError
from gitmem.fsutil import atomic_write
from gitmem.repo import Repo

IMPORTED_HEADER = """\
# Globs for ADRs that gitmem reads in place (they stay where they are; no copy to drift).
# `gitmem init` inferred these from the paths and module names each ADR mentions.
# Review and edit them: set `inferred: false` once checked, and `gitmem init` will never
# touch that entry again. Keys are the ADR files' repository paths.
"""


@dataclass(frozen=True)
class InitReport:
    created: tuple[str, ...] = ()
    sources_added: tuple[str, ...] = ()
    imported: tuple[str, ...] = ()  # ADR files whose globs were inferred this run
    adr_count: int = 0
    inferred: dict[str, tuple[str, ...]] = field(default_factory=dict)
    prefixes: dict[str, str] = field(default_factory=dict)  # added folder -> its id prefix
    moved: dict[str, str] = field(default_factory=dict)  # ADR -> the name imported.yaml had
    followed: dict[str, str] = field(default_factory=dict)  # a source gone -> where it went


def init(repo: Repo, *, import_adrs: bool = True, adr_dirs: Sequence[str] = ()) -> InitReport:
    """``adr_dirs``: ADR folders to read besides the ones found (repository-relative or
    absolute), for a log whose folder or file names detection does not recognise."""
    root = repo.root
    named = [_repo_folder(root, d) for d in adr_dirs]
    if named and not import_adrs:
        raise GitmemError("--adr-dir names ADR folders to read; it cannot go with --no-import")
    from gitmem.location import SPARSE_NOTE, location_of, sparse_excluded

    if sparse_excluded(location_of(repo), folder_too=True):
        # the project is set up already: a new .continuity/ here would stand beside the
        # tracked one, and its config.yaml over the project's
        raise GitmemError(SPARSE_NOTE)
    ddir = store.decisions_dir(root)
    cfg_path = root / ".continuity" / config.CONFIG_NAME
    made_folder = not ddir.is_dir()
    # config.yaml first: where it cannot be written (a full disk), atomic_write takes away
    # the .continuity/ it made, and no empty decisions folder is left (before session 57)
    wrote_config = not cfg_path.exists()
    if wrote_config:
        atomic_write(cfg_path, config.DEFAULT_CONFIG)
    if made_folder:
        ddir.mkdir(parents=True, exist_ok=True)
    created = [ddir.relative_to(root).as_posix() + "/"] if made_folder else []
    if wrote_config:
        created.append(cfg_path.relative_to(root).as_posix())
    if not import_adrs:
        return InitReport(created=tuple(created))

    cfg = config.load(root)
    known = {s.path for s in cfg.sources}
    files = git.ls_files(root)
    found = []
    for d in named:
        if d not in known and d not in found:
            found.append(d)
    for d in unread_logs(root, cfg, files):
        if not any(_overlap(d, f) for f in found):  # one named with --adr-dir this run
            found.append(d)
    prefixes: dict[str, str] = {}
    if found:
        prefixes = _add_sources(cfg_path, found, adrglobs.package_folders(files))
        cfg = config.load(root)
    entries, _ = config.load_imported(root)
    folders = [s.path for s in cfg.sources]
    if not folders:
        return InitReport(created=tuple(created), sources_added=tuple(found), prefixes=prefixes)
    # an ADR renamed, or its log moved, takes its entry along (see gitmem.moved)
    present = [f.rel for f in store.source_files(root, cfg) if f.source != "continuity"]
    renamed = moved.moves(entries, present)
    if renamed:
        move_imported(root, renamed)
        entries, _ = config.load_imported(root)
    # a log moved (`git mv docs/adr docs/decisions`): its old source entry goes, and the
    # new one takes its id prefix, so that its ADRs keep their ids
    followed = _moved_sources(root, cfg, renamed)
    if followed:
        prefixes.update(_replace_sources(cfg_path, followed, set(found)))
        cfg = config.load(root)
        folders = [s.path for s in cfg.sources]
    inferred = adrglobs.infer_logs(root, folders, files)
    new_entries: dict[str, tuple[str, ...]] = {}
    adr_count = len(inferred)
    for rel, globs_list in inferred.items():
        existing = entries.get(rel)
        if existing is not None and not existing.inferred:
            continue  # reviewed by a human: never touched again
        globs = tuple(globs_list)
        if existing is None or existing.globs != globs:
            new_entries[rel] = globs
    if new_entries:
        write_imported(root, new_entries)
    return InitReport(
        created=tuple(created),
        sources_added=tuple(found),
        imported=tuple(sorted(new_entries)),
        adr_count=adr_count,
        inferred=new_entries,
        prefixes=prefixes,
        moved=renamed,
        followed=followed,
    )


def unread_logs(root: Path, cfg: config.Config, files: list[str]) -> list[str]:
    """The ADR logs found (``adrimport.detect``) that `gitmem init`
    adds to config.yaml's sources: read by no source, not inside or around one (its
    records would be read twice, under two ids), and not in ``skip_adr_dirs``."""
    known = [s.path for s in cfg.sources]
    return [
        d
        for d in adrimport.detect(root, files)
        if not cfg.skipped(d) and not any(_overlap(d, k) for k in known)
    ]


def _overlap(a: str, b: str) -> bool:
    """Whether one of two folders is, or holds, the other."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def _repo_folder(root: Path, folder: str) -> str:
    path = Path(folder)
    path = (path if path.is_absolute() else Path.cwd() / path).resolve()
    if not path.is_dir():
        raise GitmemError(f"--adr-dir {folder}: no such folder")
    try:
        rel = path.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise GitmemError(f"--adr-dir {folder}: not inside this repository ({root})") from None
    if rel == "." or rel.split("/")[0] in (".git", ".continuity"):
        raise GitmemError(f"--adr-dir {folder}: name the folder that holds the ADRs")
    return rel


def _rt_load(path: Path) -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    if not path.exists():
        return yaml, None
    try:
        return yaml, yaml.load(fsutil.read_text(path))
    except fsutil.NotUtf8 as exc:
        raise GitmemError(f"{path}:{exc.line}: {exc}; nothing was changed") from None
    except RecursionError:  # nested too deeply to read: `gitmem lint` names the line
        raise GitmemError(f"{path}: nested too deeply to read; nothing was changed") from None


def _dump(yaml: Any, data: Any) -> str:
    buf = io.StringIO()
    yaml.dump(data, buf)
    return buf.getvalue()


def _add_sources(cfg_path: Path, folders: list[str], packages: set[str]) -> dict[str, str]:
    from ruamel.yaml.comments import CommentedMap

    yaml, data = _rt_load(cfg_path)
    if not isinstance(data, dict):
        data = CommentedMap()
    sources = data.get("sources")
    if not isinstance(sources, list):
        sources = []
    root = cfg_path.parent.parent
    # a source whose folder is gone (moved: lint says so) reads nothing and clashes with no one
    taken = {
        str(s.get("id_prefix") or "ADR")
        for s in sources
        if isinstance(s, dict) and (root / str(s.get("path") or "")).is_dir()
    }
    added: dict[str, str] = {}
    for folder in folders:
        item = CommentedMap()
        item["path"] = folder
        item["id_prefix"] = id_prefix(folder, taken, adrglobs.package_of(folder, packages))
        taken.add(item["id_prefix"])
        # ruamel keeps the comment that follows the list (the next setting's) on the last
        # item: move it to the new last item, or it ends up inside the list
        last = sources[-1] if sources else None
        tail = last.ca.items.pop(list(last)[-1], None) if isinstance(last, CommentedMap) else None
        if tail is not None:
            item.ca.items["id_prefix"] = tail
        sources.append(item)
        added[folder] = item["id_prefix"]
    data["sources"] = sources
    atomic_write(cfg_path, _dump(yaml, data))
    return added


_PREFIX_SKIP = {
    "adr", "adrs", "decision", "decisions", "architecture", "docs", "doc", "documentation",
    "rfc", "rfcs", "records", "record", "design", "src", "source", "internal", "site",
}  # fmt: skip


def id_prefix(folder: str, taken: set[str], package: str | None = None) -> str:
    """The id prefix of a new ADR source: ``ADR`` (``ADR-0007``) unless another source has
    it. A second numbered log in the repository would otherwise give its records the same
    ids as the first's, and lose them as duplicates: it is named after its folder instead
    (``BILLING-0007``), else ``ADR2``... The log of a monorepo's package (``package``, see
    ``adrglobs.package_of``) is named after its package even when it is the first: the
    agent reads which package a decision is of in its id (since session 67)."""
    if package is None and "ADR" not in taken:
        return "ADR"
    # the package's own name first; then the folder's names, nearest first (a second
    # `api` package's log: `services/api/docs/adr` gives SERVICES)
    parts = folder.split("/")
    names = [package.rsplit("/", 1)[-1]] if package else []
    for part in [*names, *reversed(parts)]:
        name = re.sub(r"[^A-Za-z0-9]", "", part).upper()
        if part.lower() not in _PREFIX_SKIP and name[:1].isalpha() and name not in taken:
            return name
    if "ADR" not in taken:
        return "ADR"
    n = 2
    while f"ADR{n}" in taken:
        n += 1
    return f"ADR{n}"


def _moved_sources(root: Path, cfg: config.Config, renamed: dict[str, str]) -> dict[str, str]:
    """{source folder the work tree lacks: the source folder its ADRs moved to}, where the
    ADRs of imported.yaml's entries moved (``renamed``: new -> old) all to one source."""
    out: dict[str, str] = {}
    for gone in cfg.sources:
        if (root / gone.path).is_dir():
            continue
        landed = {
            src.path
            for new, old in renamed.items()
            if old.startswith(gone.path + "/")
            for src in cfg.sources
            if new.startswith(src.path + "/")
        }
        if len(landed) == 1:
            out[gone.path] = landed.pop()
    return out


def _replace_sources(cfg_path: Path, followed: dict[str, str], added: set[str]) -> dict[str, str]:
    """Remove config.yaml's sources that ``followed`` maps to where they went; a source
    added this run (``added``) takes the id prefix of the one it replaces. Returns those
    folders' prefixes."""
    from ruamel.yaml.comments import CommentedMap

    yaml, data = _rt_load(cfg_path)
    sources = data.get("sources") if isinstance(data, dict) else None
    if not isinstance(sources, list):
        return {}
    taken_over: dict[str, str] = {}

    def item_of(folder: str) -> Any:
        for i in sources:  # a path as written (`./docs/adr/`), as config.load reads it
            path = i.get("path") if isinstance(i, dict) else None
            if isinstance(path, str) and posixpath.normpath(path).strip("/") == folder:
                return i
        return None

    for gone, new in followed.items():
        item, target = item_of(gone), item_of(new)
        if item is None:
            continue
        if new in added and target is not None:
            target["id_prefix"] = taken_over[new] = str(item.get("id_prefix") or "ADR")
        last = sources[-1] is item
        sources.remove(item)
        # the comment that follows the list (the next setting's) rides on its last item
        tail = item.ca.items.pop(list(item)[-1], None) if isinstance(item, CommentedMap) else None
        if last and tail is not None and sources and isinstance(sources[-1], CommentedMap):
            sources[-1].ca.items[list(sources[-1])[-1]] = tail
    atomic_write(cfg_path, _dump(yaml, data))
    return taken_over


def move_imported(root: Path, renamed: dict[str, str]) -> None:
    """Key imported.yaml's entries by the ADRs' new paths (``renamed``: new -> old), each
    where it was, its globs, ``inferred`` and comments kept."""
    from ruamel.yaml.comments import CommentedMap

    path = root / ".continuity" / config.IMPORTED_NAME
    yaml, data = _rt_load(path)
    if not isinstance(data, CommentedMap):
        return
    for new, old in renamed.items():
        if old in data and new not in data:
            data.insert(list(data).index(old), new, data.pop(old))
    atomic_write(path, _dump(yaml, data))


def write_imported(
    root: Path, new_entries: dict[str, tuple[str, ...]], *, inferred: bool = True
) -> None:
    """Set these ADRs' entries in imported.yaml (the rest, and its comments, kept).
    ``inferred``: False for globs a person gave (``gitmem new --in``)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    path = root / ".continuity" / config.IMPORTED_NAME
    yaml, data = _rt_load(path)
    if not isinstance(data, dict):
        data = CommentedMap()
    for rel in sorted(new_entries):
        entry = CommentedMap()
        seq = CommentedSeq(list(new_entries[rel]))
        seq.fa.set_flow_style()
        entry["globs"] = seq
        entry["inferred"] = inferred
        data[rel] = entry
    text = _dump(yaml, data)
    if not text.startswith("#"):
        text = IMPORTED_HEADER + text
    atomic_write(path, text)
