"""The fixed vocabulary of decision records. Import-light (hook hot path)."""

STATUSES = ("proposed", "accepted", "deprecated", "superseded", "rejected")
SEVERITIES = ("critical", "warning", "info")
SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
# Statuses whose decisions still govern code. A proposal is shown (flagged) but is not law.
CURRENT_STATUSES = ("accepted", "proposed")
# A query term found in more than this share of the records is not worth scoring: its BM25
# IDF is zero or below (FTS5 floors it to 1e-6) while its postings cost the most to read.
MAX_TERM_SHARE = 0.5
# The words ADR logs write for a status ("Implemented", "Draft"), as gitmem's status.
ADR_STATUS_WORDS = {
    "accepted": "accepted",
    "agreed": "accepted",
    "approved": "accepted",
    "implemented": "accepted",
    "adopted": "accepted",
    "done": "accepted",
    "active": "accepted",
    "completed": "accepted",
    "proposed": "proposed",
    "draft": "proposed",
    "wip": "proposed",
    "pending": "proposed",
    "open": "proposed",
    "deprecated": "deprecated",
    "depreciated": "deprecated",  # as written in real logs, like "superceded"
    "obsolete": "deprecated",
    "superseded": "superseded",
    "superceded": "superseded",
    "replaced": "superseded",
    "rejected": "rejected",
    "declined": "rejected",
    "abandoned": "rejected",
    "withdrawn": "rejected",
}
