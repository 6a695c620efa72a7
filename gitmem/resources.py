"""Files shipped with gitmem: decision templates and hook configuration.

In a wheel they live in ``gitmem/_data/`` (see pyproject's force-include); in a source
checkout or an editable install they are the repository's ``templates/`` and ``hooks/``.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    for candidate in (_PKG / "_data" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"gitmem's {name}/ folder is missing from this installation")


TEMPLATES = {"adr": "adr.md", "y": "y-statement.md", "madr": "madr.md"}


def template(kind: str) -> str:
    return (data_dir("templates") / TEMPLATES[kind]).read_text(encoding="utf-8")
