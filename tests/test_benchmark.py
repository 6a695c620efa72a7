"""The retrieval benchmark's harness, on a small real-adr set written here: its format, its
protocol (candidates by date, scored on `relevant_preexisting`) and its JSON keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import SANDBOX_HOME

ROOT = Path(__file__).resolve().parent.parent

ADRS = {
    "design/records/queue-for-webhooks.md": (
        "Webhooks go through a queue",
        "Webhook deliveries are retried from the `webhooks` worker queue, never inline.",
        "2020-01-01T00:00:00+00:00",
    ),
    "design/records/money-in-cents.md": (
        "Money is integer cents",
        "The `billing` package stores amounts as integer cents; floats are forbidden.",
        "2020-01-01T00:00:00+00:00",
    ),
    # the best match for case c1, but written after it: never a candidate for it
    "design/records/refunds-in-cents.md": (
        "Store the refund amount in cents, not as a float",
        "`billing/refund.py` stores the refund amount in cents, not as a float.",
        "2023-01-01T00:00:00+00:00",
    ),
}


def write_set(folder: Path) -> None:
    folder.mkdir()
    decisions = [
        {
            "id": f"adr-{n}",
            "path": path,
            "title": title,
            "status": "accepted",
            "date": when[:10],
            "body": f"# {title}\n\n## Status\n\nAccepted\n\n## Decision\n\n{text}\n",
            "supersedes": None,
            "superseded_by": None,
            "git_first_commit_date": when,
        }
        for n, (path, (title, text, when)) in enumerate(ADRS.items(), start=1)
    ]
    cases = [
        {
            "id": "c1",
            "date": "2021-06-01T00:00:00+00:00",
            "message_redacted": "fix: store the refund amount in cents, not as a float",
            "changed_paths": ["billing/refund.py"],
            "relevant_preexisting": ["adr-2"],
        },
        {
            "id": "c2",
            "date": "2021-06-02T00:00:00+00:00",
            "message_redacted": "retry webhook deliveries from the worker queue",
            "changed_paths": ["webhooks/worker.py"],
            "relevant_preexisting": ["adr-1"],
        },
        {  # no pre-existing ADR: not counted
            "id": "c3",
            "date": "2021-06-03T00:00:00+00:00",
            "message_redacted": "docs",
            "changed_paths": ["README.md"],
            "relevant_preexisting": [],
        },
    ]
    (folder / "decisions.json").write_text(json.dumps(decisions))
    (folder / "cases.json").write_text(json.dumps(cases))
    files = ["billing/refund.py", "webhooks/worker.py", "README.md", *ADRS]
    (folder / "files.txt").write_text("\n".join(files) + "\n")


def test_a_real_adr_set_in_a_folder_init_does_not_recognise(tmp_path: Path) -> None:
    """`design/records/` with unnumbered files is not a folder `gitmem init` finds by
    itself: the harness names it, as a user would with `--adr-dir`, and says so."""
    data = tmp_path / "example__set"
    write_set(data)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/retrieval.py"), "--dataset", str(data), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": SANDBOX_HOME},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "gitmem init did not find design/records: --adr-dir" in proc.stderr
    result = json.loads(proc.stdout)
    assert {"n", "hit@1", "hit@5", "mrr", "p50_ms"} <= set(result)
    assert result["n"] == 2  # c3 has no pre-existing ADR
    assert result["hit@1"] == 1.0 and result["mrr"] == 1.0  # adr-3 never outranks adr-2
