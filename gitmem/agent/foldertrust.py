"""Whether Gemini CLI or Qwen Code trusts a folder, decided as each decides it (for
`gitmem doctor`).

Both read a project's settings file, and so the hooks `gitmem install` writes there, only
in a folder the user trusts. Folder trust is on unless ``security.folderTrust.enabled`` is
false in the user's or the system's settings (a project cannot switch it off for itself);
it defaults to on in Gemini CLI 0.61.0 and to off in Qwen Code 0.24.4. With it on, the
rules in the user's ``trustedFolders.json`` decide: ``TRUST_FOLDER`` (a folder and what is
under it), ``TRUST_PARENT`` (the folder the rule names is in) and ``DO_NOT_TRUST``; the
most specific rule covering the folder wins. Gemini CLI takes the rule with the longest
path as written; Qwen Code the deepest folder, a distrust winning a tie. A folder no rule
covers is not trusted: the agent asks when started there interactively, and Gemini CLI's
headless mode (``-p``) stops with an error. An untrusted folder runs the project's hooks
not at all, without a word to the user (Gemini CLI's interactive "safe mode").

Read in both agents' code (``trustedFolders.ts``, ``trust-precedence.ts``); an IDE
companion can also tell them whether a folder is trusted, which gitmem cannot see.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem.agent.common import read_settings, strongest, without_comments

LEVELS = {"TRUST_FOLDER": True, "TRUST_PARENT": True, "DO_NOT_TRUST": False}


@dataclass(frozen=True)
class Policy:
    """How one agent decides trust, and where it reads what it decides from."""

    agent: str  # as the user knows it: "Gemini CLI"
    default_on: bool
    user: Path  # the user's settings file; trustedFolders.json is beside it unless moved
    system: str  # the system settings file; system-defaults.json is beside it unless moved
    rules_variable: str  # moves trustedFolders.json
    defaults_variable: str  # moves system-defaults.json
    by_depth: bool  # Qwen Code's precedence (deepest folder); else Gemini CLI's (longest)
    trusted_env: tuple[tuple[str, str, bool], ...] = ()  # (variable, value, trusted)
    how: str = ""  # how a user trusts a folder in this agent, for a failing check

    @property
    def rules(self) -> Path:
        moved = os.environ.get(self.rules_variable)
        return Path(moved) if moved else self.user.parent / "trustedFolders.json"

    @property
    def settings(self) -> tuple[tuple[str, Path | str], ...]:
        """Where ``security.folderTrust`` is read, weakest first (never the project's)."""
        beside = os.path.join(os.path.dirname(self.system), "system-defaults.json")
        defaults = os.environ.get(self.defaults_variable) or beside
        return (("system defaults", defaults), ("user", self.user), ("system", self.system))


def policy_for(agent: str, root: Path, home: Path) -> Policy | None:
    """The trust policy of ``agent`` (a gitmem agent name), None for agents without one."""
    from gitmem.agent import gemini, qwen

    make = {"gemini": gemini.trust_policy, "qwen": qwen.trust_policy}.get(agent)
    return make(root, home) if make else None


def read(policy: Policy, root: Path, project: Path) -> list[tuple[str, dict[str, Any]]]:
    """The user's, the project's and the system's settings, weakest first, as the agent
    reads them in ``root``: the project's only when it trusts the folder."""
    verdict = decide(policy, root)
    trusted = verdict is None or verdict.trusted
    files = (("user", policy.user), ("project", project), ("system", policy.system))
    return read_settings([f for f in files if trusted or f[0] != "project"], jsonc=True)


@dataclass(frozen=True)
class Verdict:
    trusted: bool
    why: str


def decide(policy: Policy, folder: Path) -> Verdict | None:
    """Whether ``policy``'s agent trusts ``folder`` and why; None when its folder trust is
    off (every folder trusted: nothing worth reporting)."""
    agent, file = policy.agent, policy.rules
    for variable, value, trusted in policy.trusted_env:
        if os.environ.get(variable) == value:
            word = "trusts every folder" if trusted else "trusts no folder"
            return Verdict(trusted, f"`{variable}={value}` in this shell: {agent} {word}")
    found = read_settings(policy.settings, jsonc=True)
    switch = strongest(found, "security", "folderTrust", "enabled")
    if not (switch[1] if switch else policy.default_on):
        return None
    stops = f"{agent} stops on start until it is fixed"
    try:
        rules = json.loads(without_comments(file.read_text(encoding="utf-8-sig")) or "{}")
    except FileNotFoundError:
        rules = {}
    except OSError as exc:
        return Verdict(False, f"{file}: cannot be read ({exc.strerror})")
    except ValueError as exc:
        return Verdict(False, f"{file}: not valid JSON ({exc}); {stops}")
    if not isinstance(rules, dict):
        return Verdict(False, f"{file}: not a JSON object; {stops}")
    bad = [f"{path!r}: {level!r}" for path, level in rules.items() if level not in LEVELS]
    if bad:
        return Verdict(False, f"{file}: invalid trust rule {bad[0]}; {stops}")
    rule = covering(rules, folder, by_depth=policy.by_depth)
    if rule is None:
        return Verdict(
            False,
            f"{agent}'s folder trust is on and no rule in {file} covers this folder: it "
            "asks whether to trust it when first started here, and runs the project's hooks "
            "only once you do",
        )
    said = f"`{rule[1]}` for {rule[0]} in {file}"
    if LEVELS[rule[1]]:
        return Verdict(True, f"{agent} trusts this folder ({said})")
    return Verdict(
        False,
        f"{agent} does not trust this folder ({said}), so it ignores the project's "
        "settings and gitmem's hooks in them",
    )


def covering(rules: dict[str, str], folder: Path, *, by_depth: bool) -> tuple[str, str] | None:
    """The rule (path as written, level) that decides ``folder``, or None when none covers
    it. Gemini CLI compares paths with their links resolved; Qwen Code both ways."""
    here = _variants(str(folder), by_depth)
    best: tuple[tuple[int, bool], str, str] | None = None
    for path, level in rules.items():
        base = os.path.normpath(os.path.abspath(path))  # how both agents read a rule's path
        length = len(base)
        base = os.path.dirname(base) if level == "TRUST_PARENT" else base
        depths = [_depth(v) for v in _variants(base, by_depth) if any(_within(h, v) for h in here)]
        if not depths:
            continue
        # Gemini CLI: the longest rule, the first of equals; Qwen Code: the deepest folder,
        # a distrust winning a tie
        key = (max(depths), not LEVELS[level]) if by_depth else (length, False)
        if best is None or key > best[0]:
            best = (key, path, level)
    return (best[1], best[2]) if best else None


def _variants(path: str, both: bool) -> set[str]:
    written = os.path.normpath(os.path.abspath(path))
    try:
        real = os.path.realpath(path, strict=True)
    except OSError:
        return {written}
    return {written, real} if both else {real}


def _within(child: str, parent: str) -> bool:
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


def _depth(path: str) -> int:
    return len(Path(path).parts) - 1
