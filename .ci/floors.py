"""Print pip constraints that pin each of gitmem's dependencies to its lowest admitted
version (pyproject.toml's `name>=X` as `name==X`, markers kept).

CI runs the oldest Python's suite on these: a user whose environment already holds an
older release that still satisfies gitmem's requirements keeps it (pip upgrades nothing
it need not), so the floors are what such users run. Before session 54 they were never
tried, and `pathspec>=0.12` crashed `gitmem demo` on its first glob.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

SPEC = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*(;.*)?$")


def floors(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    out = []
    for requirement in project["dependencies"]:
        found = SPEC.match(requirement)
        if found is None:  # a dependency without a plain floor has none to pin
            raise SystemExit(f"floors.py: cannot read a lower bound in {requirement!r}")
        name, version, marker = found.groups()
        out.append(f"{name}=={version}{marker or ''}")
    return out


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    print("\n".join(floors(root / "pyproject.toml")))
