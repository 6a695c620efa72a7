"""The decision record and the problems found while reading it."""

from __future__ import annotations

from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any

from gitmem.vocab import CURRENT_STATUSES, SEVERITIES, SEVERITY_RANK, STATUSES, shown_name

__all__ = [
    "CURRENT_STATUSES",
    "SEVERITIES",
    "SEVERITY_RANK",
    "STATUSES",
    "Decision",
    "Problem",
    "Rule",
]


@dataclass(frozen=True)
class Rule:
    """A machine-checkable constraint: added lines must not match ``forbid``."""

    forbid: str
    paths: tuple[str, ...] = ()
    message: str | None = None
    line: int = 0


@dataclass(frozen=True)
class Decision:
    """One decision record, as read from its file.

    ``title`` is the L0 summary, ``summary`` the L1 overview (a few sentences), ``body`` the
    full L2 text. ``superseded_by`` is derived from the other records' ``supersedes``.
    """

    id: str
    title: str
    status: str
    file: str  # repository-relative path of the record
    date: str | None = None
    globs: tuple[str, ...] = ()
    globs_inferred: bool = False
    tags: tuple[str, ...] = ()
    severity: str = "info"
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    pin: bool = False
    rules: tuple[Rule, ...] = ()
    summary: str = ""
    body: str = ""
    source: str = "continuity"  # or the ADR folder it was read from in place
    number: int | None = None
    line_of: tuple[tuple[str, int], ...] = field(default=(), compare=False, repr=False)

    @property
    def effective_status(self) -> str:
        """``superseded`` once an accepted record replaces it, whatever its own status says."""
        if self.superseded_by and self.status in CURRENT_STATUSES:
            return "superseded"
        return self.status

    @property
    def is_current(self) -> bool:
        return self.effective_status in CURRENT_STATUSES

    def line(self, key: str) -> int:
        for name, line in self.line_of:
            if name == key:
                return line
        return 1


@dataclass(frozen=True)
class Problem:
    """Something wrong with a record: ``FILE:LINE: key: message``."""

    file: str
    line: int
    key: str
    message: str
    level: str = "error"  # or "warning"

    def format(self) -> str:
        tag = "" if self.level == "error" else f"{self.level}: "
        return f"{shown_name(self.file)}:{self.line}: {self.key}: {tag}{self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "key": self.key,
            "message": self.message,
            "level": self.level,
        }


_DECISION_FIELDS = tuple(f.name for f in dataclass_fields(Decision))


def decision_to_json(d: Decision) -> dict[str, object]:
    """A plain-JSON form of a record, for the compile cache."""
    # field by field: dataclasses.asdict deep-copies every value (~0.2 ms a record)
    data: dict[str, object] = {name: getattr(d, name) for name in _DECISION_FIELDS}
    data["rules"] = [
        {"forbid": r.forbid, "paths": list(r.paths), "message": r.message, "line": r.line}
        for r in d.rules
    ]
    data["line_of"] = [list(pair) for pair in d.line_of]
    return data


def decision_from_json(data: dict[str, Any]) -> Decision:
    fields = dict(data)
    for key in ("globs", "tags", "supersedes", "superseded_by"):
        fields[key] = tuple(fields.get(key) or ())
    fields["rules"] = tuple(
        Rule(forbid=r["forbid"], paths=tuple(r["paths"]), message=r["message"], line=r["line"])
        for r in fields.get("rules") or ()
    )
    fields["line_of"] = tuple((str(k), int(v)) for k, v in fields.get("line_of") or ())
    return Decision(**fields)


def problem_from_json(data: dict[str, Any]) -> Problem:
    return Problem(
        file=data["file"],
        line=data["line"],
        key=data["key"],
        message=data["message"],
        level=data["level"],
    )
