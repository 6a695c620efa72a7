"""Session 72's CamelCase names read as snake_case file stems when globs are inferred,
measured on the development sets and not kept (docs/retrieval-experiments.md). Kept so the
numbers can be reproduced; nothing in gitmem imports it.

Glob inference maps a code name an ADR mentions to a file whose stem is that name,
case aside (`TxClient` to `txclient.go`, not `tx_client.go`). Go, Python and Rust name files in
snake_case and types and functions in CamelCase, so an ADR on `PrepareProposal` never
reached `app/prepare_proposal.go`. Here a CamelCase name that matched nothing else is also
read as its snake_case stem, for code files only (no images or documents), at most two.

    GITMEM_EMBED_MODEL_DIR=... python benchmarks/experiments/camel_stems.py [--off]
        [--bench ../shared/bench]

``--off`` reproduces the README's table.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from devsets import BENCH, run_sets

from gitmem import adrglobs

_CAMEL_CUT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_CODE = (".png", ".svg", ".jpg", ".gif", ".md", ".rst", ".adoc", ".txt")


def patch() -> None:
    original = adrglobs.RepoLayout.resolve

    def resolve(self: adrglobs.RepoLayout, token: str, within: str | None = None) -> list[str]:
        found = original(self, token, within)
        t = token.strip("./").strip("/")
        if found or "_" in t or "/" in t or "." in t or t.isupper():
            return found
        if not adrglobs._identifier_like(t):
            return found
        snake = _CAMEL_CUT.sub("_", t).lower()
        stems = adrglobs._inside(list(self.by_stem.get(snake, ())), within)
        code = [f for f in stems if not f.lower().endswith(_NOT_CODE)]
        return sorted(code) if 0 < len(code) <= 2 else []

    adrglobs.RepoLayout.resolve = resolve  # type: ignore[method-assign]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--off", action="store_true", help="no patch: the README's rows")
    ap.add_argument("--bench", type=Path, default=BENCH)
    args = ap.parse_args()
    if not args.off:
        patch()
    run_sets(args.bench)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
