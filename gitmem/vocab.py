"""The fixed vocabulary of decision records. Import-light (hook hot path)."""

STATUSES = ("proposed", "accepted", "deprecated", "superseded", "rejected")
SEVERITIES = ("critical", "warning", "info")
SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
# Statuses whose decisions still govern code. A proposal is shown (flagged) but is not law.
CURRENT_STATUSES = ("accepted", "proposed")
