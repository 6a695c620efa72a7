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


def run_benchmark(data: Path) -> subprocess.CompletedProcess[str]:
    """`benchmarks/retrieval.py --dataset DATA --json`, as a user runs it; it must succeed."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/retrieval.py"), "--dataset", str(data), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": SANDBOX_HOME},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def test_a_real_adr_set_in_a_folder_init_does_not_recognise(tmp_path: Path) -> None:
    """`design/records/` with unnumbered files is not a folder `gitmem init` finds by
    itself: the harness names it, as a user would with `--adr-dir`, and says so."""
    data = tmp_path / "example__set"
    write_set(data)
    proc = run_benchmark(data)
    assert "gitmem init did not find design/records: --adr-dir" in proc.stderr
    result = json.loads(proc.stdout)
    assert {"n", "hit@1", "hit@5", "mrr", "p50_ms"} <= set(result)
    assert result["n"] == 2  # c3 has no pre-existing ADR
    assert result["hit@1"] == 1.0 and result["mrr"] == 1.0  # adr-3 never outranks adr-2


def test_a_continuity_set_linked_from_the_older_record_only(tmp_path: Path) -> None:
    """A continuity set may give a supersession from one side only (`superseded_by` on the
    older record) and leave out optional fields (a date): the link still holds, so the
    current decision answers a current-state question first, although the older record's
    words match the question better."""
    data = tmp_path / "example__continuity"
    data.mkdir()
    decisions = [
        {
            "id": "kafka-avro",
            "title": "Kafka messages are serialized with Avro",
            "rationale": "Kafka message serialization format: Avro schemas for every topic.",
            "tags": ["kafka"],
            "status": "superseded",
            "supersedes": None,
            "superseded_by": "kafka-protobuf",
            "date": "2025-01-01T00:00:00Z",
            "globs": [],
        },
        {
            "id": "kafka-protobuf",
            "title": "Move the topics to Protobuf",
            "rationale": "Protobuf replaces the old format; generated code is smaller.",
            "tags": ["kafka"],
            "status": "active",
            "globs": [],
        },
    ]
    queries = [
        {
            "id": "q1",
            "kind": "recall",
            "text": "What serialization format do Kafka messages use?",
            "relevant": ["kafka-protobuf"],
            "touched_paths": [],
        }
    ]
    (data / "decisions.json").write_text(json.dumps(decisions))
    (data / "queries.json").write_text(json.dumps(queries))
    proc = run_benchmark(data)
    result = json.loads(proc.stdout)
    assert result["n"] == 1 and result["hit@1"] == 1.0, proc.stdout


def test_a_folder_that_is_no_benchmark_set_is_named_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "typo").mkdir()
    for data in (tmp_path / "typo", tmp_path / "missing"):
        proc = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks/retrieval.py"), "--dataset", str(data)],
            capture_output=True,
            text=True,
            env={**os.environ, "HOME": SANDBOX_HOME},
            timeout=60,
        )
        assert proc.returncode == 2
        assert f"--dataset {data}: not a benchmark folder" in proc.stderr
        assert "Traceback" not in proc.stderr
