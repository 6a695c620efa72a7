"""A small, realistic demo repository: ``gitmem demo``.

"paydash" is a payments API with decision records (some superseded, one critical with a
rule), an adr-tools folder that ``gitmem init`` reads in place, and the code they govern.
``agent_session`` then plays one Claude Code session against it through gitmem's real
hooks (fresh processes, Claude Code's payloads), so the quick start shows what the agent
is given, an edit a critical rule denies, and the session kept on a git ref.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gitmem import git

DECISIONS: dict[str, str] = {
    "0001-postgres-system-of-record.md": """\
---
title: PostgreSQL is the system of record
status: accepted
date: 2025-01-14
severity: warning
globs: ["db/**", "paydash/repository.py"]
tags: [storage]
---
# PostgreSQL is the system of record

## Context

Payments need transactions, constraints and point-in-time recovery. We had ledger data in
three stores and reconciliation kept failing.

## Decision

All durable state lives in PostgreSQL and is reached through `paydash/repository.py`; no
other service writes to the database directly.

## Consequences

Caches are allowed but never authoritative. Reporting reads from a replica.
""",
    "0002-money-as-integer-minor-units.md": """\
---
title: Money is stored and computed as integer minor units
status: accepted
date: 2025-01-20
severity: critical
pin: true
globs: ["paydash/billing/**", "paydash/money.py"]
tags: [billing, correctness]
rules:
  - forbid: '\\bfloat\\('
    paths: ["paydash/billing/**"]
    message: "amounts are integer minor units (cents); use paydash.money.Money"
---
# Money is stored and computed as integer minor units

## Context

Floating-point rounding produced one-cent drifts between invoices and the ledger.

## Decision

Amounts are integers in the currency's minor unit (cents) wrapped in `Money`; never floats.
Conversions to display strings happen only at the API edge.

## Consequences

Division (splits, pro-rating) must use `Money.allocate`, which distributes remainders.
""",
    "0003-no-experimental-code-in-billing.md": """\
---
title: Billing never imports experimental modules
status: accepted
date: 2025-02-03
severity: critical
globs: ["paydash/billing/**", "!paydash/billing/experimental/**"]
tags: [billing]
rules:
  - forbid: 'from paydash\\.billing\\.experimental|import paydash\\.billing\\.experimental'
    message: "experimental code is not allowed on the billing path"
---
# Billing never imports experimental modules

## Context

An experimental FX-rate module reached production through a transitive import.

## Decision

Code under `paydash/billing/` (except the `experimental/` sandbox itself) must not import
from `paydash.billing.experimental`. Experiments graduate by review, not by import.

## Consequences

Experiments duplicate some code until they graduate.
""",
    "0004-url-path-api-versioning.md": """\
---
title: Version the public API in the URL path (/v1/...)
status: superseded
date: 2025-02-10
severity: info
globs: ["paydash/api/**"]
tags: [api]
---
# Version the public API in the URL path (/v1/...)

## Decision

Every public route is prefixed with its major version, e.g. `/v1/charges`.
""",
    "0005-header-api-versioning.md": """\
---
title: Version the public API with the Paydash-Version header
status: accepted
date: 2025-06-02
severity: warning
globs: ["paydash/api/**"]
tags: [api]
supersedes: [D-0004]
---
# Version the public API with the Paydash-Version header

## Context

URL versioning forced clients to rewrite every URL on each major version, and we could
not version individual resources.

## Decision

Clients send a dated `Paydash-Version` header; routes are unversioned. Requests without
the header get the version pinned on their account.

## Consequences

`paydash/api/versioning.py` owns the header parsing and per-version transforms.
""",
    "0006-forward-only-migrations.md": """\
---
title: Database migrations are forward-only
status: accepted
date: 2025-03-11
severity: warning
globs: ["db/migrations/**"]
tags: [storage, operations]
---
# Database migrations are forward-only

## Decision

In the context of zero-downtime deploys, facing rollbacks that dropped live columns, we
decided for forward-only, expand-then-contract migrations and neglected down migrations,
to achieve safe deploys at any time, accepting that a bad migration is fixed by a new one.
""",
}

ADRS: dict[str, str] = {
    "0001-record-architecture-decisions.md": """\
# 1. Record architecture decisions

Date: 2024-11-02

## Status

Accepted

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records, as described by Michael Nygard.

## Consequences

See Michael Nygard's article, linked above.
""",
    "0002-background-jobs-with-a-queue.md": """\
# 2. Run webhooks delivery as background jobs

Date: 2024-12-09

## Status

Accepted

## Context

Webhook delivery blocked API requests when a merchant's endpoint was slow.

## Decision

Webhooks are delivered by the worker in `paydash/worker/webhooks.py` from a durable
queue, with exponential back-off. The API only enqueues.

## Consequences

Delivery is at-least-once: receivers must be idempotent.
""",
}

CODE: dict[str, str] = {
    "README.md": "# paydash\n\nA small payments API (gitmem demo repository).\n",
    "paydash/__init__.py": "",
    "paydash/money.py": (
        "class Money:\n    def __init__(self, minor: int, currency: str) -> None:\n"
        "        self.minor = minor\n        self.currency = currency\n\n"
        '    def allocate(self, parts: int) -> list["Money"]:\n'
        "        base, rest = divmod(self.minor, parts)\n"
        "        return [Money(base + (n < rest), self.currency) for n in range(parts)]\n"
    ),
    "paydash/repository.py": "def connect(dsn: str):\n    ...\n",
    "paydash/billing/__init__.py": "",
    "paydash/billing/charge.py": (
        "from paydash.money import Money\n\n\ndef charge(amount: Money) -> Money:\n"
        "    return amount\n"
    ),
    "paydash/billing/refund.py": "def refund(charge_id: str) -> None:\n    ...\n",
    "paydash/billing/experimental/fx.py": "RATES = {'EUR': 1.08}\n",
    "paydash/api/routes.py": "ROUTES = ['/charges', '/refunds']\n",
    "paydash/api/versioning.py": "HEADER = 'Paydash-Version'\n",
    "paydash/worker/webhooks.py": "def deliver(event: dict) -> None:\n    ...\n",
    "db/migrations/0001_init.sql": "CREATE TABLE charges (id text primary key, minor bigint);\n",
    # Agent instructions written a while ago: `gitmem stale` finds the three lines the
    # code and the decisions have left behind (a renamed file, a superseded decision, a
    # make target in a project without a Makefile).
    "CLAUDE.md": """\
# paydash: notes for coding agents

## Layout
- HTTP routes are in `paydash/api/routes.py`; money in `paydash/money.py` (class `Money`).
- Charges: `paydash/billing/charge.py`. Refunds: `paydash/billing/refunds.py`.

## API
- Endpoints are versioned in the URL path (`/v1/charges`), as decided in D-0004.

## Database
- Migrations live in `db/migrations/`; apply them with `make migrate`.
""",
}

IDENTITY = {
    "GIT_AUTHOR_NAME": "Demo Author",
    "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "Demo Author",
    "GIT_COMMITTER_EMAIL": "demo@example.com",
}


# The demo's own commits, whatever the user's git configuration: a global core.hooksPath
# (a company's pre-commit), commit.gpgsign with a key that needs a passphrase or is not
# there, or core.autocrlf with core.safecrlf made the quick start fail on its first commit.
QUIET = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.autocrlf=false",
)


def create(target: Path) -> Path:
    """Create the demo repository in ``target`` (which must be empty or missing)."""
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(f"{target} is not empty; choose an empty or new folder")
    target.mkdir(parents=True, exist_ok=True)
    env = {**git.no_git_env(), **IDENTITY}
    # not `init -b main`: git before 2.28 (Ubuntu 20.04 has 2.25) has no `-b`
    git.run(["init", "-q"], cwd=target, env=env)
    git.run(["symbolic-ref", "HEAD", "refs/heads/main"], cwd=target, env=env)
    for rel, text in CODE.items():
        _write(target / rel, text)
    for name, text in ADRS.items():
        _write(target / "docs" / "adr" / name, text)
    _write(target / ".adr-dir", "docs/adr\n")
    git.run([*QUIET, "add", "-A"], cwd=target, env=env)
    git.run([*QUIET, "commit", "-q", "-m", "paydash: initial code and ADRs"], cwd=target, env=env)
    for name, text in DECISIONS.items():
        _write(target / ".continuity" / "decisions" / name, text)
    return target


def commit_all(target: Path, message: str, trailers: bool = False) -> None:
    """Commit everything; with ``trailers``, the message gets what gitmem's
    prepare-commit-msg hook adds (`Decisions:`, `Gitmem-Session:`), as it would for a user
    who ran `gitmem install git` (the demo's own commits run no hooks: see QUIET)."""
    env = {**git.no_git_env(), **IDENTITY}
    git.run([*QUIET, "add", "-A"], cwd=target, env=env)
    git_dir = target / ".git"
    message_file = git_dir / "COMMIT_EDITMSG"
    message_file.write_text(message + "\n", encoding="utf-8")
    if trailers:
        from gitmem import githooks
        from gitmem.repo import discover

        githooks.add_trailer(discover(target), message_file)
    git.run([*QUIET, "commit", "-q", "-F", str(message_file)], cwd=target, env=env)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path)


SESSION_ID = "demo-session"
PROMPT = "Add a partial-refund endpoint to paydash/api/routes.py"
DENIED_LINE = "    amount = float(partial)"  # D-0002's rule forbids float( in billing
ROUTES_BEFORE = "ROUTES = ['/charges', '/refunds']\n"
ROUTES_AFTER = "ROUTES = ['/charges', '/refunds', '/refunds/partial']\n"


@dataclass(frozen=True)
class HookStep:
    """One hook event of the demo session: what the agent did, and what gitmem answered."""

    event: str  # the hook event as `gitmem hook claude EVENT` names it
    did: str  # what the agent did, in a few words
    context: str = ""  # the text the agent was given (additionalContext), if any
    denied: str = ""  # why the tool call was denied, if it was


def _hook(target: Path, event: str, payload: dict[str, object]) -> dict[str, object]:
    """Run ``gitmem hook claude EVENT`` as Claude Code does: a fresh process in the
    repository, the payload on stdin, the answer (JSON or nothing) on stdout."""
    body = {"session_id": SESSION_ID, "cwd": str(target), **payload}
    proc = subprocess.run(
        [sys.executable, "-m", "gitmem", "hook", "claude", event],
        input=json.dumps(body),
        cwd=target,
        capture_output=True,
        text=True,
        timeout=60,
        env=git.no_git_env(),
    )
    try:
        answer = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except ValueError:
        answer = {}
    return answer if isinstance(answer, dict) else {}


def _said(answer: dict[str, object]) -> tuple[str, str]:
    out = answer.get("hookSpecificOutput")
    if not isinstance(out, dict):
        return "", ""
    denied = str(out.get("permissionDecisionReason") or "")
    if out.get("permissionDecision") != "deny":
        denied = ""
    return str(out.get("additionalContext") or ""), denied


def agent_session(target: Path) -> list[HookStep]:
    """One agent session on the demo repository, through the real hooks: session start,
    a prompt, an edit that breaks a critical rule (denied), an edit that goes through
    (applied to the file and committed), the end of the agent's turn, which records the
    files it edited, and the session's end, which commits the captured prompt and those
    records to the session's ref."""
    routes = target / "paydash" / "api" / "routes.py"
    refund = target / "paydash" / "billing" / "refund.py"
    denied_edit = {"file_path": str(refund), "old_string": "    ...", "new_string": DENIED_LINE}
    edit = {"file_path": str(routes), "old_string": ROUTES_BEFORE, "new_string": ROUTES_AFTER}
    start: dict[str, object] = {"hook_event_name": "SessionStart", "source": "startup"}
    plan: list[tuple[str, str, dict[str, object]]] = [
        ("session-start", "session starts", start),
        ("prompt", f'prompt "{PROMPT}"', {"prompt": PROMPT, "permission_mode": "default"}),
        (
            "pre-tool",
            f"Edit paydash/billing/refund.py, adding `{DENIED_LINE.strip()}`",
            {"tool_name": "Edit", "tool_input": denied_edit},
        ),
        (
            "pre-tool",
            "Edit paydash/api/routes.py, adding the route",
            {"tool_name": "Edit", "tool_input": edit},
        ),
    ]
    steps: list[HookStep] = []
    for event, did, payload in plan:
        context, denied = _said(_hook(target, event, payload))
        steps.append(HookStep(event, did, context, denied))
    routes.write_text(ROUTES_AFTER, encoding="utf-8")  # the edit that was allowed
    after = _said(_hook(target, "post-tool", {"tool_name": "Edit", "tool_input": edit}))
    steps.append(HookStep("post-tool", "the edit is made", *after))
    _hook(target, "stop", {"stop_hook_active": False})
    steps.append(HookStep("stop", "the agent's turn ends"))
    _hook(target, "session-end", {"reason": "exit"})
    from gitmem import capture
    from gitmem.repo import discover

    # the hook started a detached flusher; the demo lists the session next, so it commits
    # the records itself (under the same lock: whichever comes second finds nothing to do)
    capture.flush(discover(target), SESSION_ID)
    steps.append(HookStep("session-end", "session ends"))
    commit_all(target, "api: partial refunds route", trailers=True)
    return steps
