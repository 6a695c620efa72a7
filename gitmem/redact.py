"""Remove secrets from text before anything is written to git.

Covers cloud provider keys, GitHub/GitLab/Slack/Stripe/OpenAI/Anthropic and other tokens,
JWTs, private key blocks, passwords in URLs, ``.env``-style assignments and payment card
numbers. Each match is
replaced by ``[REDACTED:<kind>]``. Projects add patterns (``capture_redact`` in config, a
list of regexes) and exempt known-harmless strings (``capture_allow``, exact strings).
Standard library only (runs in the prompt hook).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# (kind, pattern). Order matters: specific formats first, generic assignments last.
PATTERNS: list[tuple[str, str]] = [
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9 ]+ )?PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9 ]+ )?PRIVATE KEY(?: BLOCK)?-----|$)",
    ),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("aws-secret-key", r"(?i)aws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}"),
    ("gcp-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("gcp-service-account", r"\"private_key_id\"\s*:\s*\"[0-9a-f]{40}\""),
    ("azure-storage-key", r"(?i)AccountKey=[A-Za-z0-9+/=]{60,}"),
    ("github-token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
    ("github-fine-grained", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"),
    ("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}\b"),
    ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}\b"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}\b"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),
    ("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("mailgun-key", r"\bkey-[0-9a-zA-Z]{32}\b"),
    ("digitalocean-token", r"\bdop_v1_[a-f0-9]{64}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("url-password", r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"),
    ("bearer-token", r"(?i)\bbearer\s+[A-Za-z0-9_\-.=]{20,}"),
    ("basic-auth", r"(?i)\bauthorization:\s*basic\s+[A-Za-z0-9+/=]{8,}"),
    (
        "env-secret",
        r"\b[A-Z0-9_]*(?:SECRET|PASSWORD|PASSWD|TOKEN|API_?KEY|PRIVATE_?KEY|"
        r"CREDENTIALS?)[A-Z0-9_]*\s*=\s*\S+",
    ),
    (
        "assigned-secret",
        r"(?i)\b(?:password|passwd|secret|api[_-]?key|access[_-]?token|"
        r"auth[_-]?token|client[_-]?secret)\b\s*[:=]\s*[\"']?[^\s\"',;]{6,}",
    ),
]
# Literal cues, case-folded: a pattern can only match text that contains one of its cues
# (each pattern's fixed part, or for case-insensitive ones every spelling of it). Patterns
# are compiled and run only when a cue is present: compiling all of them costs the prompt
# hook ~5 ms, and most prompts hold no secret-shaped text at all. `tests/test_capture.py`
# checks every cue list against its pattern.
_SECRET_WORDS = ("secret", "password", "passwd", "token", "api_key", "apikey", "api-key")
CUES: dict[str, tuple[str, ...]] = {
    "private-key": ("-----begin",),
    "aws-access-key": ("akia", "asia", "abia", "acca"),
    "aws-secret-key": ("secret",),
    "gcp-api-key": ("aiza",),
    "gcp-service-account": ("private_key_id",),
    "azure-storage-key": ("accountkey=",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github-fine-grained": ("github_pat_",),
    "gitlab-token": ("glpat-",),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com/services/",),
    "stripe-key": ("_live_", "_test_"),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "huggingface-token": ("hf_",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-ageichlwas5vcmc",),
    "sendgrid-key": ("sg.",),
    "twilio-key": ("sk",),
    "mailgun-key": ("key-",),
    "digitalocean-token": ("dop_v1_",),
    "jwt": ("eyj",),
    "url-password": ("://",),
    "bearer-token": ("bearer",),
    "basic-auth": ("authorization",),
    "env-secret": (*_SECRET_WORDS, "private_key", "privatekey", "credential"),
    "assigned-secret": (
        *_SECRET_WORDS,
        "access_token",
        "access-token",
        "accesstoken",
        "auth_token",
        "auth-token",
        "authtoken",
    ),
}
_COMPILED: dict[str, re.Pattern[str]] = {}

# Payment card numbers (PCI data: never to be stored), which no literal cue announces: a
# run of 13-19 digits, optionally grouped by single spaces or dashes, is redacted when it
# passes the Luhn check and has a card network's prefix and length (Visa, Mastercard,
# American Express, Discover, JCB, Diners Club, UnionPay). That keeps timestamps,
# snowflake ids and phone numbers: a 13-digit millisecond time starts with 1, and a
# random number passes Luhn once in ten. Test cards (4242 4242 4242 4242) are redacted
# too: `capture_allow` keeps the ones a project names.
CARD = "payment-card"
_CARD_RUN = r"(?<![\d.,/-])\d(?:[ -]?\d){12,18}(?![\d])"
_CARD_SHAPES = (  # (prefixes as ranges of the leading digits, lengths)
    (((4, 4),), (13, 16, 19)),
    (((51, 55), (2221, 2720)), (16,)),
    (((34, 34), (37, 37)), (15,)),
    (((6011, 6011), (644, 649), (65, 65)), (16, 17, 18, 19)),
    (((3528, 3589),), (16, 17, 18, 19)),
    (((300, 305), (36, 36), (38, 39)), (14, 15, 16, 17, 18, 19)),
    (((62, 62),), (16, 17, 18, 19)),
)


_NO_DIGITS = str.maketrans("", "", "0123456789")


def is_card_number(digits: str) -> bool:
    """Whether ``digits`` (digits only) is shaped like a payment card number."""
    if not any(
        len(digits) in lengths
        and any(lo <= int(digits[: len(str(lo))]) <= hi for lo, hi in prefixes)
        for prefixes, lengths in _CARD_SHAPES
    ):
        return False
    total = 0
    for n, ch in enumerate(reversed(digits)):
        d = int(ch)
        if n % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _pattern(kind: str, source: str) -> re.Pattern[str]:
    rx = _COMPILED.get(kind)
    if rx is None:
        rx = _COMPILED[kind] = re.compile(source)
    return rx


# A project's own patterns (``capture_redact``) run within this many seconds, together,
# per text. Python's engine backtracks: `([A-Za-z0-9]+[._-]?)+@corp\.example`, an e-mail
# pattern as users write them, held the prompt hook past its timeout on a prompt naming
# one 40-character commit id, so the agent got no decisions and the prompt was not kept.
# RE2 (which the rules use) would not backtrack, but its \w, \d and \b are ASCII only:
# a pattern that redacts "josé@corp" in Python would let it through.
CUSTOM_SECONDS = 2.0


class TooSlow(Exception):
    """A project's pattern ran past CUSTOM_SECONDS: the text is not known to be clean."""

    def __init__(self, kind: str, pattern: str) -> None:
        super().__init__(f"{kind} ({pattern!r}) ran past {CUSTOM_SECONDS:g} s")
        self.kind = kind
        self.pattern = pattern


class _Expired(Exception):
    pass


def _expire(signum: int, frame: object) -> None:
    raise _Expired


def redact(
    text: str, extra: Iterable[str] = (), allow: Iterable[str] = ()
) -> tuple[str, list[str]]:
    """Return (clean text, kinds of what was removed). `TooSlow` where a pattern of
    ``extra`` ran past CUSTOM_SECONDS (a signal ends it: in the main thread only)."""
    allowed = {a for a in allow if a}
    found: list[str] = []
    lowered = text.casefold()
    patterns = [
        (kind, _pattern(kind, source))
        for kind, source in PATTERNS
        if any(cue in lowered for cue in CUES[kind])
    ]
    custom = [(f"custom-{i}", re.compile(p)) for i, p in enumerate(extra)]

    def run(kind: str, rx: re.Pattern[str], text: str) -> str:
        def repl(match: re.Match[str]) -> str:
            if match.group(0) in allowed:
                return match.group(0)
            found.append(kind)
            return f"[REDACTED:{kind}]"

        return rx.sub(repl, text)

    for kind, rx in patterns:
        text = run(kind, rx, text)
    if custom:
        import signal
        import time

        try:
            before = signal.signal(signal.SIGALRM, _expire)
        except (ValueError, AttributeError):  # not the main thread, or no SIGALRM
            before = None
        kind, rx = custom[0]
        outer, started = 0.0, time.monotonic()
        try:
            if before is not None:
                outer = signal.setitimer(signal.ITIMER_REAL, CUSTOM_SECONDS)[0]
            for kind, rx in custom:
                text = run(kind, rx, text)
        except _Expired:
            raise TooSlow(kind, rx.pattern) from None
        finally:
            if before is not None:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, before)
                if outer:  # the hook's own timer (gitmem.agent.runner._watch) goes on
                    left = outer - (time.monotonic() - started)
                    signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))
    if len(text) - len(text.translate(_NO_DIGITS)) >= 13:  # C speed: ~0.06 ms at 100 KB

        def card(match: re.Match[str]) -> str:
            run = match.group(0)
            # the whole run, else its longest leading groups ("4111 1111 1111 1111 12/27":
            # a card number, then the expiry month)
            ends = [len(run), *(n for n in range(len(run) - 1, 12, -1) if run[n] in " -")]
            for end in ends:
                number = run[:end]
                if is_card_number(number.replace(" ", "").replace("-", "")):
                    if number in allowed:
                        return run
                    found.append(CARD)
                    return f"[REDACTED:{CARD}]" + run[end:]
            return run

        text = _pattern(CARD, _CARD_RUN).sub(card, text)
    return text, found
