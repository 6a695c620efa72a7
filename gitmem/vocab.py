"""The fixed vocabulary of decision records. Import-light (hook hot path)."""

# gitmem's own records, relative to the repository root (ADR folders read in place are
# configured apart)
RECORD_DIR = ".continuity/decisions/"


def is_own_record(rel: str) -> bool:
    """Whether the repository path ``rel`` is one of gitmem's own records."""
    return rel.startswith(RECORD_DIR) and rel.lower().endswith(".md")


STATUSES = ("proposed", "accepted", "deprecated", "superseded", "rejected")
SEVERITIES = ("critical", "warning", "info")
SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
# Statuses whose decisions still govern code. A proposal is shown (flagged) but is not law.
CURRENT_STATUSES = ("accepted", "proposed")
# A query term found in more than this share of the records is not worth scoring: its BM25
# IDF is zero or below (FTS5 floors it to 1e-6) while its postings cost the most to read.
MAX_TERM_SHARE = 0.5


def clipped(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the last one an ellipsis, where it is longer."""
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def shown_name(name: str) -> str:
    """A file's name as a line shows it: as it is, or in quotes with escapes where it holds
    a line break, a control or a hidden character (``gitmem.hidden.quoted``), so that a
    name's text never begins a line of its own, restyles a terminal or hides text."""
    if name.isascii() and name.isprintable():
        return name
    from gitmem.hidden import quoted

    return quoted(name)


def counted(n: object, noun: str) -> str:
    """``n`` and ``noun``, plural unless one: "1 record", "3 records"."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
