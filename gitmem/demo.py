"""A small, realistic demo repository: ``gitmem demo``.

"paydash" is a payments API with decision records (some superseded, one critical with a
rule), an adr-tools folder that ``gitmem init`` reads in place, and the code they govern.
"""

from __future__ import annotations

import os
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
    git.run(["init", "-q", "-b", "main"], cwd=target, env=env)
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


def commit_all(target: Path, message: str) -> None:
    env = {**git.no_git_env(), **IDENTITY}
    git.run([*QUIET, "add", "-A"], cwd=target, env=env)
    git.run([*QUIET, "commit", "-q", "-m", message], cwd=target, env=env)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path)
