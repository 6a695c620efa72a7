"""The ``gitmem`` console script.

Kept tiny on purpose: agent hooks (a later issue) dispatch from here without importing
click or rich; every other command loads the click application.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from gitmem.cli.main import run

    return run(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
