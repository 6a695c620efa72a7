"""Benchmark: the pre-tool hook on an edit that a decision's rule governs.

Every Edit or Write under a folder whose decision has a `forbid` rule runs the rule over
the new text in the pre-tool hook, a fresh process. Until session 35 that hook imported
pathspec to match the rule's `paths` (and `typing` for the rule module): this times
`gitmem-hook claude pre-tool` for an edit of `paydash/billing/refund.py` in the demo
repository (its money decision's rule has `paths: ["paydash/billing/**"]`), a new session
each run, next to `python -c pass`. With `--baseline OTHER/bin/gitmem-hook` (another
install, e.g. an older release in its own virtual environment) both take turns run after
run, each in its own copy of the demo (made by its own `gitmem demo`).

    python benchmarks/rule_hook.py [--runs 31] [--baseline /path/to/other/bin/gitmem-hook] [--sed] [--shell]

``--sed`` also times the same change made with `sed -i` through the shell tool, which the
hook runs on a copy of the file (`sed --sandbox`) since session 42. ``--shell`` times the
same change as a file copied over it (`cp`, read as a Write since session 43) and, for
the cost of the shell walk alone, a command that only reads the folder (`ls`), and the
`sed -i` given its file by `grep -rl … | xargs` (the listing run before it) and the
same change as a `perl -pi` substitution (read with `re`; both since session 44), and
that `perl -pi` given its file through a filtered listing, `grep -rl … | grep -v … |
sort | xargs perl -pi` (the listing run as a pipeline; since session 45).

Run it with the Python of a clean, non-editable install, as docs/performance.md says.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchlib import hook_installs, install_demos, interleaved_ms, warm

# the same change made through the shell: the hook runs it on a copy (`sed --sandbox`)
SED = "sed -i 's/    \\.\\.\\./    amount = Money(5)/' paydash/billing/refund.py"


# the same change as a file written elsewhere and copied over (read as a Write), and a read
COPY = "cp ../refund.new paydash/billing/refund.py"
READ = "ls paydash/billing && git status --short paydash/billing"
PERL = "perl -pi -e 's/    \\.\\.\\./    amount = Money(5)/' paydash/billing/refund.py"
XARGS = (
    "grep -rl '    \\.\\.\\.' paydash/billing | xargs sed -i "
    "'s/    \\.\\.\\./    amount = Money(5)/'"
)
FILTERED = (
    "grep -rl '    \\.\\.\\.' paydash | grep -v experimental | sort | xargs perl -pi -e "
    "'s/    \\.\\.\\./    amount = Money(5)/'"
)


def _payload(root: Path, counter: itertools.count[int], shell: str = "") -> Callable[[], str]:
    edit = {
        "file_path": str(root / "paydash/billing/refund.py"),
        "old_string": "    ...",
        "new_string": "    amount = Money(5)",
    }

    def make() -> str:
        return json.dumps(
            {
                "session_id": f"bench-{next(counter)}",
                "cwd": str(root),
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash" if shell else "Edit",
                "tool_input": {"command": shell} if shell else edit,
                "transcript_path": None,
                "permission_mode": "default",
            }
        )

    return make


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--baseline", default=None, help="Another install's gitmem-hook.")
    ap.add_argument("--sed", action="store_true", help="Also the same change as a `sed -i`.")
    ap.add_argument("--shell", action="store_true", help="Also a `cp` over it, and an `ls`.")
    args = ap.parse_args()
    installs = hook_installs(args.baseline)
    root = Path(tempfile.mkdtemp(prefix="gitmem-rule-bench-"))
    counter = itertools.count()
    try:
        cmds: dict[str, tuple[list[str], Callable[[], str]]] = {}
        cwds: dict[str, Path] = {}
        for label, demo in install_demos(root, installs).items():
            hook = installs[label]
            cmds[label] = ([hook, "claude", "pre-tool"], _payload(demo, counter))
            cwds[label] = demo
            shells = {"sed -i": SED} if args.sed else {}
            if args.shell:
                shells |= {
                    "cp": COPY,
                    "ls": READ,
                    "xargs": XARGS,
                    "perl": PERL,
                    "filtered": FILTERED,
                }
                refund = (demo / "paydash/billing/refund.py").read_text()
                (root / "refund.new").write_text(
                    refund.replace("    ...", "    amount = Money(5)", 1)
                )
            for how, shell in shells.items():
                cmds[f"{label} ({how})"] = (
                    [hook, "claude", "pre-tool"],
                    _payload(demo, counter, shell),
                )
                cwds[f"{label} ({how})"] = demo
        warm(cmds, cwds)
        cmds["python -c pass"] = ([sys.executable, "-c", "pass"], str)
        found = interleaved_ms(cmds, root, args.runs, cwds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"pre-tool on an edit a rule governs, median of {args.runs} fresh processes:")
    for label, ms in found.items():
        print(f"  {label:<15} {ms:6.1f} ms")
    if args.baseline:
        print(f"  this / baseline {found['this'] / found['baseline']:.2f}")
    if args.sed:
        print(f"  sed -i / Edit   {found['this (sed -i)'] / found['this']:.2f}")
    if args.shell:
        print(f"  cp / Edit       {found['this (cp)'] / found['this']:.2f}")
        print(f"  xargs / Edit    {found['this (xargs)'] / found['this']:.2f}")
        print(f"  perl / Edit     {found['this (perl)'] / found['this']:.2f}")
        print(f"  filtered / Edit {found['this (filtered)'] / found['this']:.2f}")
        if args.baseline:
            print(f"  ls: this / baseline {found['this (ls)'] / found['baseline (ls)']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
