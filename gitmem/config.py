"""``.continuity/config.yaml``: project settings, validated with file/line/key errors."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitmem import fsutil
from gitmem.model import Problem

CONFIG_NAME = "config.yaml"
IMPORTED_NAME = "imported.yaml"
DECISIONS_DIR = "decisions"
_PREFIX_OK = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,31}\Z")  # an ADR folder's `id_prefix`


@dataclass(frozen=True)
class Source:
    """An existing ADR folder read in place (no second copy that could drift)."""

    path: str  # repository-relative folder
    id_prefix: str = "ADR"
    line: int = 1  # where config.yaml names it


@dataclass(frozen=True)
class Config:
    sources: tuple[Source, ...] = ()
    chars_per_token: int = 4
    embed_model_dir: str | None = None
    embed_download: bool = True
    watch_idle_seconds: int = 1800
    watch_autostart: bool = False
    capture: bool = True
    commit_trailers: bool = True
    capture_redact: tuple[str, ...] = ()
    capture_allow: tuple[str, ...] = ()
    skip_adr_dirs: tuple[str, ...] = ()  # ADR logs found but left unread (`skipped`)
    problems: tuple[Problem, ...] = field(default=(), compare=False)

    def skipped(self, folder: str) -> bool:
        """Whether ``folder`` (repository-relative) is, or is inside, a ``skip_adr_dirs``
        folder: `gitmem init` does not add it, and lint does not say it is unread."""
        return any(folder == s or folder.startswith(s + "/") for s in self.skip_adr_dirs)


DEFAULT_CONFIG = """\
# gitmem project settings. Decisions live in .continuity/decisions/ (one Markdown file each).
version: 1

# Existing ADR folders read in place as decision sources; `gitmem init` fills this in.
# Their inferred globs are kept in .continuity/imported.yaml for you to review.
sources: []
# ADR folders `gitmem init` finds but should leave unread (lint warns of any other log
# that no source reads), e.g. skip_adr_dirs: [third_party/docs/adr]
skip_adr_dirs: []

# Characters per token when budgeting what is injected into an agent's context.
chars_per_token: 4

# Embedding model for semantic retrieval: a local folder (see `gitmem model assemble`),
# relative to the repository root; GITMEM_EMBED_MODEL_DIR overrides it. Named here, it
# must hold the model `gitmem model assemble` makes (checked by sha256), since a clone
# brings this file; GITMEM_EMBED_MODEL_DIR may name any model. Without one,
# fastembed's cache is used, then a download (embed_download: false forbids it).
# embed_model_dir: .cache/gitmem-model
embed_download: true

# `gitmem watch` (the warm retrieval daemon) exits after this many idle seconds.
watch_idle_seconds: 1800
# Start it in the background when an agent session starts (it loads the embedding model).
watch_autostart: false

# prepare-commit-msg adds a `Decisions: D-0001, ...` trailer naming the decisions that
# govern the staged files (gitmem install git, or the pre-commit hook).
commit_trailers: true

# Keep every prompt of an agent session as a commit on refs/gitmem/sessions/<user>/<id>
# (secrets redacted first). capture_redact: extra regexes to remove; capture_allow: exact
# strings never to redact.
capture: true
capture_redact: []
capture_allow: []
"""


def _as_stored(root: Path) -> Callable[[str], str]:
    """What gives a folder of ``root``'s as the file system stores it where that takes
    names regardless of case (``gitmem.spelling``): `docs/ADR` for the folder `docs/adr`
    on a Mac named its ADRs `docs/ADR/…`, which neither the reviewed globs in
    imported.yaml (keyed `docs/adr/…`, so they were inferred anew) nor the paths agents
    touch matched (before session 60). The folder itself elsewhere."""
    from gitmem import location

    loc = location.repository_of(str(root))
    folds, precompose = location.spelling_of(loc.common_dir) if loc else (False, False)
    if not folds:
        return str
    from gitmem.spelling import spelled

    return lambda folder: spelled(str(root), folder, precompose)


def load(root: Path) -> Config:
    path = root / ".continuity" / CONFIG_NAME
    rel = path.relative_to(root).as_posix()
    try:
        text = fsutil.read_text(fsutil.inside(root, rel))
    except FileNotFoundError:
        return Config()
    except (OSError, fsutil.NotUtf8) as exc:
        line = exc.line if isinstance(exc, fsutil.NotUtf8) else 1
        return Config(problems=(Problem(rel, line, "config", fsutil.unread(exc)),))
    data, problems, lines = _yaml_mapping(text, rel)
    if data is None:
        return Config(problems=tuple(problems))
    sources: list[Source] = []
    raw_sources = data.get("sources") or []
    if not isinstance(raw_sources, list):
        problems.append(Problem(rel, lines.get("sources", 1), "sources", "expected a list"))
        raw_sources = []
    as_stored: Callable[[str], str] | None = None  # looked up for the first folder
    for idx, item in enumerate(raw_sources):
        try:  # the round-trip loader keeps each list item's line
            where = int(raw_sources.lc.item(idx)[0]) + 1  # type: ignore[attr-defined]
        except (AttributeError, KeyError, TypeError):
            where = lines.get("sources", 1)
        if isinstance(item, str):
            item = {"path": item}
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            # the item's own line (before session 57, the `sources:` key's for every item)
            problems.append(Problem(rel, where, f"sources[{idx}]", "expected `path: DIR`"))
            continue
        prefix = str(item.get("id_prefix") or "ADR")
        if not _PREFIX_OK.match(prefix):
            # it begins every id of the folder's ADRs, which agents are given line by line
            # ("- Project decision ADR-0007 …"), commit trailers name and links follow: a
            # line break in it began a line of its own text there (before session 53)
            shown = prefix if len(prefix) <= 40 else prefix[:39] + "…"
            problems.append(
                Problem(
                    rel,
                    where,
                    f"sources[{idx}].id_prefix",
                    f"{shown!r} is not an id prefix (a letter, then up to 31 letters, digits, "
                    "`_`, `.` or `-`): using ADR",
                )
            )
            prefix = "ADR"
        # one spelling of the folder (`./docs/adr/` is `docs/adr`): paths are compared to it
        folder = posixpath.normpath(item["path"].replace("\\", "/")).strip("/")
        if as_stored is None:
            as_stored = _as_stored(root)
        sources.append(Source(path=as_stored(folder), id_prefix=prefix, line=where))

    def scalar(key: str, default: Any, ok: Callable[[Any], bool], expected: str) -> Any:
        value = data.get(key, default)
        if value is None and default is None:
            return None
        if not ok(value):
            problems.append(Problem(rel, lines.get(key, 1), key, f"expected {expected}"))
            return default
        return value

    def is_bool(v: Any) -> bool:
        return isinstance(v, bool)

    def is_count(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 1

    cpt = scalar("chars_per_token", 4, is_count, "an integer ≥ 1")
    model_dir = scalar("embed_model_dir", None, lambda v: isinstance(v, str), "a folder path")
    download = scalar("embed_download", True, is_bool, "true or false")
    idle = scalar("watch_idle_seconds", 1800, is_count, "a number of seconds")
    autostart = scalar("watch_autostart", False, is_bool, "true or false")
    capture = scalar("capture", True, is_bool, "true or false")
    trailers = scalar("commit_trailers", True, is_bool, "true or false")
    redact_list = _str_list(data, "capture_redact", rel, lines, problems, regex=True)
    allow_list = _str_list(data, "capture_allow", rel, lines, problems)
    skip_dirs = tuple(
        posixpath.normpath(d.replace("\\", "/")).strip("/")
        for d in _str_list(data, "skip_adr_dirs", rel, lines, problems)
    )
    known = {
        "version",
        "sources",
        "chars_per_token",
        "embed_model_dir",
        "embed_download",
        "watch_idle_seconds",
        "watch_autostart",
        "capture",
        "capture_redact",
        "capture_allow",
        "commit_trailers",
        "skip_adr_dirs",
    }
    for key in data:
        if key not in known:
            problems.append(Problem(rel, lines.get(key, 1), key, "unknown key, ignored", "warning"))
    return Config(
        sources=tuple(sources),
        chars_per_token=cpt,
        embed_model_dir=model_dir,
        embed_download=download,
        watch_idle_seconds=idle,
        watch_autostart=autostart,
        capture=capture,
        commit_trailers=trailers,
        capture_redact=redact_list,
        capture_allow=allow_list,
        skip_adr_dirs=skip_dirs,
        problems=tuple(problems),
    )


def _str_list(
    data: dict[str, Any],
    key: str,
    rel: str,
    lines: dict[str, int],
    problems: list[Problem],
    regex: bool = False,
) -> tuple[str, ...]:
    value = data.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(Problem(rel, lines.get(key, 1), key, "expected a list of strings"))
        return ()
    if regex:
        import re

        good = []
        for item in value:
            try:
                re.compile(item)
                good.append(item)
            except re.error as exc:
                problems.append(Problem(rel, lines.get(key, 1), key, f"{item!r}: {exc}"))
        return tuple(good)
    return tuple(value)


def _yaml_mapping(
    text: str, rel: str
) -> tuple[dict[str, Any] | None, list[Problem], dict[str, int]]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    from gitmem.frontmatter import too_deep, too_nested

    if too_nested(text):  # the reader recurses, and takes seconds to fail
        return None, [too_deep(text, rel, first=1)], {}
    try:
        data = YAML(typ="rt").load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        return None, [Problem(rel, line, "yaml", f"invalid YAML: {exc.problem}")], {}
    except YAMLError as exc:
        return None, [Problem(rel, 1, "yaml", f"invalid YAML: {exc}")], {}
    except RecursionError:  # nested deeply otherwise (session 48: a traceback)
        return None, [too_deep(text, rel, first=1)], {}
    if data is None:
        return {}, [], {}
    if not isinstance(data, dict):
        return None, [Problem(rel, 1, "yaml", "expected a mapping")], {}
    lines: dict[str, int] = {}
    for key in data:
        try:
            lines[str(key)] = int(data.lc.key(key)[0]) + 1  # type: ignore[attr-defined]
        except (AttributeError, KeyError, TypeError):
            lines[str(key)] = 1
    return dict(data), [], lines


@dataclass(frozen=True)
class ImportedEntry:
    globs: tuple[str, ...]
    inferred: bool
    line: int


def load_imported(root: Path) -> tuple[dict[str, ImportedEntry], list[Problem]]:
    """Globs of in-place ADRs, keyed by the ADR's repository-relative path."""
    path = root / ".continuity" / IMPORTED_NAME
    rel = path.relative_to(root).as_posix()
    try:
        text = fsutil.read_text(fsutil.inside(root, rel))
    except fsutil.NotInRepository as exc:
        return {}, [Problem(rel, 1, "file", str(exc.strerror))]
    except OSError:
        return {}, []
    except fsutil.NotUtf8 as exc:
        return {}, [Problem(rel, exc.line, "file", f"cannot read: {exc}")]
    data, problems, lines = _yaml_mapping(text, rel)
    out: dict[str, ImportedEntry] = {}
    for key, value in (data or {}).items():
        line = lines.get(str(key), 1)
        if not isinstance(value, dict):
            problems.append(Problem(rel, line, str(key), "expected `globs:` and `inferred:`"))
            continue
        globs = value.get("globs") or []
        if isinstance(globs, str):
            globs = [globs]
        if not isinstance(globs, list):
            problems.append(Problem(rel, line, f"{key}.globs", "expected a list of globs"))
            globs = []
        out[str(key)] = ImportedEntry(
            globs=tuple(str(g) for g in globs),
            inferred=bool(value.get("inferred", True)),
            line=line,
        )
    return out, problems
