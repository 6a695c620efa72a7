"""``gitmem doctor``: is gitmem installed, firing, fresh and healthy in this repository?"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitmem import capture, client, config, daemon, git, index, lint, pathmap, stale, toolenv
from gitmem import compile as compiler
from gitmem.agent import (
    claudesettings,
    copilot,
    droid,
    foldertrust,
    gemini,
    install,
    qwen,
    runner,
)
from gitmem.agent.common import STALE_REFRESH_MAX
from gitmem.agent.runner import ERROR_LOG, NAMES, RUNS_EVERY_SCOPE, STATUS_DIR
from gitmem.errors import GitmemError, UnsafeRepositoryError
from gitmem.indexfiles import is_stale
from gitmem.location import (
    SPARSE_NOTE,
    config_text,
    git_state_dir,
    location_of,
    sparse_excluded,
)
from gitmem.repo import Repo
from gitmem.table import TABLE_NAME, Table, is_fresh
from gitmem.vocab import counted


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class Report:
    checks: tuple[Check, ...]
    last_events: dict[str, dict[str, float]] = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    daemon_log: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "checks": [c.__dict__ for c in self.checks],
            "last_events": self.last_events,
            "errors": list(self.errors),
            "daemon_log": list(self.daemon_log),
        }


# The agents besides Claude Code: (their name for the user, what to know about their hooks)
_OTHER_AGENTS = {
    "codex": ("Codex", "Codex runs them once trusted (`/hooks`)"),
    "gemini": ("Gemini CLI", "Gemini CLI runs project hooks in a trusted folder"),
    "cursor": ("Cursor", "Cursor loads them at start"),
    "copilot": ("Copilot", "Copilot CLI loads them at start"),
    "qwen": ("Qwen Code", "Qwen Code loads them at start"),
    "droid": ("Droid", "Droid loads them when a session starts"),
}

# What reads an agent's own switches for its hooks (Claude Code's: claudesettings)
_SWITCHES = {
    "gemini": gemini.hooks_off,
    "qwen": qwen.hooks_off,
    "copilot": copilot.hooks_off,
    "droid": droid.hooks_off,
}


def _folder_trust(agent: str, root: Path, home: Path, scopes: tuple[str, ...]) -> Check | None:
    """Whether the agent trusts the folder, so runs the hooks in the project's settings
    (None when it has no folder trust, or it is off, or no hooks are in the project's
    settings). Hooks installed for the user run either way."""
    policy = foldertrust.policy_for(agent, root, home)
    if policy is None or "project" not in scopes:
        return None
    verdict = foldertrust.decide(policy, root)
    if verdict is None:
        return None
    name = f"{agent} trust"
    if verdict.trusted:
        return Check(name, True, verdict.why)
    if "user" in scopes:
        return Check(name, True, f"{verdict.why}; gitmem's hooks for your user run all the same")
    return Check(name, False, verdict.why + policy.how)


def _failure_events(
    root: Path, home: Path, installed: dict[str, list[str]], scopes: dict[str, list[str]]
) -> tuple[str, str | None]:
    """What to say of Claude Code's PostToolUseFailure and StopFailure hooks
    (install.CLAUDE_FAILURES), given the events of gitmem's Claude Code hooks in each
    scope (``installed``) and the scopes with its others (``scopes``): (a note to add, or
    "", and what is wrong, or None). Installed for a Claude Code older than the release
    that reads them: it skips the file; missing where it reads them: how to add them.
    Asks the Claude Code its version once at most."""
    if any(set(e) & set(install.FAILURE_EVENTS) for e in installed.values()):
        unread = install.failure_events_unread(root, home, installed)
        return (f"; but {unread}", unread) if unread else ("", None)
    if not scopes:
        return "", None
    version = install.claude_code_version()
    if version is None or version < install.FAILURE_EVENTS_SINCE:
        return "", None
    return (
        f" (without PostToolUseFailure and StopFailure, which Claude Code "
        f"{'.'.join(map(str, version))} reads: the files a failing shell command wrote are "
        f"counted only to the end of its turn; `gitmem install claude --scope "
        f"{next(iter(scopes))}` adds them)"
    ), None


def _installed(
    root: Path,
    home: Path,
    agent: install.Agent,
    scopes: dict[str, list[str]] | None = None,
) -> tuple[dict[str, list[str]], str]:
    """The scopes whose files hold ``agent``'s gitmem hooks (scope -> events; read unless
    given), and a line saying so. A Claude Code scope holding only its failure events
    (install.CLAUDE_FAILURES) is named with them, and left out of the scopes returned."""
    if scopes is None:
        scopes = install.installed_scopes(root, home, agent)
    beside: list[str] = []  # Claude Code's failure events, in a file of their own
    if agent is install.CLAUDE:
        beside = [s for s, e in scopes.items() if set(e) <= set(install.FAILURE_EVENTS)]
    where = ", ".join(
        f"{s}: " + (", ".join(e) if s in beside else f"{len(e)} events") for s, e in scopes.items()
    )
    scopes = {s: e for s, e in scopes.items() if s not in beside}
    for scope, events in scopes.items():
        missing = [e for e in agent.events if e not in events]
        if missing and not events[0].startswith("("):  # an earlier gitmem installed fewer
            where += (
                f" ({scope} lacks {', '.join(missing)}, which this gitmem installs: "
                f"`gitmem install {agent.name} --scope {scope}` adds them)"
            )
    if len(scopes) > 1 and agent.name in RUNS_EVERY_SCOPE:
        where += _twice(_OTHER_AGENTS[agent.name][0], agent.name, tuple(scopes))
    outdated = install.outdated_scopes(root, home, agent)
    if outdated:
        where += (
            f" (older command form in {', '.join(outdated)}: works, a few ms slower per"
            f" event; `gitmem install {agent.name} --scope SCOPE` updates it)"
        )
    unguarded = install.unguarded_scopes(root, home, agent)
    if unguarded:
        where += (
            f" (unguarded, as an earlier gitmem wrote them, in {', '.join(unguarded)}: on a"
            " machine without gitmem they fail on every event, and Gemini CLI and Copilot"
            f" CLI then block the agent; `gitmem install {agent.name} --scope SCOPE`"
            " updates them)"
        )
    rematch = install.rematch_scopes(root, home, agent)
    if rematch:
        where += (
            f" (an earlier gitmem's tool matcher in {', '.join(rematch)}:"
            f" `gitmem install {agent.name} --scope SCOPE` updates it)"
        )
    return scopes, where


def _twice(label: str, agent: str, scopes: tuple[str, ...]) -> str:
    """What gitmem's hooks in several scopes cost an agent that runs them all
    (gitmem.agent.runner.RUNS_EVERY_SCOPE)."""
    return (
        f" ({label} runs the hooks of every scope ({', '.join(scopes)}): each event starts"
        " gitmem twice, and the second run sees the event was handled and stops;"
        f" `gitmem uninstall {agent} --scope {scopes[-1]}` saves that process where this"
        " repository's hooks are enough)"
    )


def _pi_trust(root: Path, home: Path, user_too: bool) -> Check:
    """Whether pi loads the project's extension: only in a project the user trusts."""
    from gitmem.agent import pi

    why = pi.untrusted(root, home)
    if why is None:
        return Check("pi trust", True, "pi trusts this project: it loads .pi/extensions/")
    fix = "; the user's copy runs meanwhile" if user_too else "; trust it in pi (/trust)"
    return Check("pi trust", user_too, f"{why}{fix}")


def _pi_settings(root: Path, home: Path, scopes: tuple[str, ...]) -> list[Check]:
    """Whether pi's settings leave gitmem's extension unloaded: an ``extensions`` entry
    that turns it off (`pi config` writes them; a team's .pi/settings.json may carry
    one), where pi loads it without a word (since session 66: before, doctor said the
    extension was current)."""
    from gitmem.agent import pi, plugins

    off = {
        scope: why
        for scope in scopes
        if (why := pi.unloaded(root, home, scope, plugins.path(scope, root, home, "pi")))
    }
    if not off:
        return []
    runs = [s for s in scopes if s not in off]
    fix = f"; the {runs[0]}'s copy runs" if runs else "; remove the entry, or `pi config`"
    return [Check("pi settings", bool(runs), "; ".join(off.values()) + fix)]


def _plugin_note(plugins: list[claudesettings.Plugin], scopes: tuple[str, ...]) -> str:
    """gitmem's plugin as Claude Code installed it, and what it costs beside the hooks
    `gitmem install claude` wrote: Claude Code runs both (gitmem.agent.runner.DELIVERED_TWICE)."""
    note = "; ".join(f"plugin {p.key} (enabled in {p.scope} settings)" for p in plugins)
    if scopes:
        note += (
            " (Claude Code runs a plugin's hooks beside the settings' hooks: each event"
            " starts gitmem twice, and the second run sees the event was handled and stops;"
            f" `gitmem uninstall claude --scope {scopes[-1]}` or `claude plugin disable"
            f" {plugins[0].key} --scope {plugins[0].scope}` saves that process)"
        )
    return note


# Version managers put a shell script in front of every Python program ("shims"); it
# works, but runs the manager on each call: with pyenv, `gitmem-hook` took ~105 ms per event
# through its shim and ~50 ms without it (an editable install; ~10 ms in a clean venv), on
# one machine (session 19).
SHIM_MARKERS = ("pyenv", "asdf", "mise", "rtx")


def agent_path() -> str:
    """PATH as an agent started from the user's shell sees it. Run through a pyenv shim
    (``PYENV_DIR`` is set then), gitmem itself gets pyenv's own folders in front of PATH,
    which would hide the shim the agent's hooks go through. Run by ``uvx`` (or ``uv run
    --with``), it gets the scripts folder of a temporary environment in uv's cache, and by
    ``uv run``, the project's environment, which the agent's PATH does not hold
    (gitmem.toolenv; since session 66: before, doctor found ``gitmem-hook`` there and said
    all was well)."""
    path = toolenv.lasting_path()
    root = os.environ.get("PYENV_ROOT")
    if not root or "PYENV_DIR" not in os.environ:
        return path
    parts = path.split(os.pathsep)
    lead = 0
    while lead < len(parts) and parts[lead].startswith(root) and not parts[lead].endswith("shims"):
        lead += 1
    return os.pathsep.join(parts[lead:])


def _version_manager_shim(path: str | None) -> str | None:
    """The version manager whose shim ``path`` is, if it is one."""
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            head = fh.read(2048)
    except OSError:
        return None
    if not head.startswith(b"#!") or b"python" in head.split(b"\n", 1)[0]:
        return None  # a real console script starts with its Python
    text = head.decode("utf-8", "replace")
    return next((m for m in SHIM_MARKERS if m in text), None)


def _bytecode_check(module: str = runner.__file__) -> Check | None:
    """A problem only where the hooks' modules (``module``'s package) have no bytecode and
    this user cannot write it: then every hook compiles them again. gitmem's entry points
    write it wherever they can, PYTHONDONTWRITEBYTECODE or not (see gitmem/entry.py), so
    it is missing only where gitmem was installed without it (uv's default) into a folder
    another user owns (``uv pip install --system`` as root, an agent run as a user)."""
    cached = Path(importlib.util.cache_from_source(module))
    if cached.exists():
        return None
    folder = cached.parent if cached.parent.exists() else cached.parent.parent
    if os.access(folder, os.W_OK):
        return None  # the next hook writes it
    package = Path(module).parent.parent
    return Check(
        "bytecode",
        False,
        f"gitmem's modules in {package} have no bytecode, and {folder} cannot be written "
        "by this user: every hook compiles them again (~80 ms more per event, measured); "
        f"run `{Path(sys.executable).name} -m compileall -q {package}` as its owner (pip "
        "does at install, uv with --compile-bytecode)",
    )


# Room always asked for beside what gitmem keeps: a session's captures and state, logs.
ROOM_SPARE = 1 << 20


def _room_check(repo: Repo) -> Check | None:
    """Where the disk that holds gitmem's state has not the room to write its table, path
    map and index again (twice what they take now, plus ROOM_SPARE): a full disk, or a
    quota. None where there is room (or the question cannot be asked)."""
    folder = repo.state_dir if repo.state_dir.is_dir() else repo.git_dir
    try:
        st = os.statvfs(folder)
    except (OSError, AttributeError):  # no statvfs (Windows)
        return None
    free = st.f_bavail * st.f_frsize
    kept = 0
    for name in (TABLE_NAME, pathmap.MAP_NAME):
        with contextlib.suppress(OSError):
            kept += (folder / name).stat().st_size
    gen = index.current_generation(repo)
    if gen is not None:
        for item in gen.rglob("*"):
            with contextlib.suppress(OSError):
                kept += item.stat().st_size if item.is_file() else 0
    needed = 2 * kept + ROOM_SPARE
    if free >= needed:
        return None
    return Check(
        "disk",
        False,
        f"{_size(free)} free on the disk of {folder}, where gitmem keeps its table and index "
        f"({_size(needed)} needed to write them again): until there is room, commands and "
        "hooks compile the decisions in memory (a repository of more than "
        f"{STALE_REFRESH_MAX} records: the hooks use them as last written), and prompts "
        "wait to be recorded",
    )


def _sharing_check(repo: Repo) -> Check | None:
    """In a clone a group shares (``core.sharedRepository``): whether gitmem's files in
    the git directory are the group's (gitmem.sharing), and whose are not. None elsewhere."""
    from gitmem import sharing

    text = config_text(str(repo.common_dir))  # as read when the repository was found
    if text is None:
        return None
    folders = (str(repo.shared_state_dir), git_state_dir(str(repo.git_dir)))
    perm, owners = sharing.holdouts(text, folders)
    if not perm:
        return None
    shared = {sharing.GROUP: "the group", sharing.EVERYBODY: "everyone"}.get(perm, oct(-perm))
    if not owners:
        return Check("sharing", True, f"a shared clone: gitmem's files here are {shared}'s too")
    whose = ", ".join(f"{n} of {_user(uid)}'s files and folders" for uid, n in owners.items())
    return Check(
        "sharing",
        False,
        f"a shared clone, but an earlier gitmem made {whose} in {repo.shared_state_dir} "
        "theirs alone: the other accounts' hooks cannot record their sessions there. "
        "Their owner's next gitmem command (`gitmem doctor`) gives them the group's modes",
    )


def _locks_check(repo: Repo) -> Check | None:
    """Where the git directory's file system has no locks (gitmem.locked.NO_LOCKS): say
    that gitmem's stand-ins exclude this machine's processes only. None elsewhere."""
    import fcntl

    from gitmem import locked

    folder = repo.shared_state_dir if repo.shared_state_dir.is_dir() else repo.common_dir
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return None
    except OSError as exc:
        if exc.errno not in locked.NO_LOCKS:
            return None
        said = exc.strerror
    finally:
        os.close(fd)
    return Check(
        "locks",
        True,
        f"the file system of {folder} has no locks ({said}): gitmem locks stand-ins in "
        "your own temporary folder instead, which keep this machine's gitmem processes "
        "apart, not another machine's working in the same clone",
    )


def _user(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return f"uid {uid}"


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    size = float(n)
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024 or unit == "GB":
            break
    return f"{size:.1f} {unit}"


def _locale_check() -> Check | None:
    """Where the locale does not name files in UTF-8, every gitmem process runs itself
    again in Python's UTF-8 mode (gitmem.utf8mode): say so, and how to save the cost."""
    from gitmem import utf8mode

    if utf8mode.RUN_AGAIN_FROM is None:
        return None
    return Check(
        "locale",
        True,
        f"this locale names files in {utf8mode.RUN_AGAIN_FROM}, so each gitmem process runs "
        "itself again in Python's UTF-8 mode (one more interpreter start: ~10 ms more per "
        "hook, measured); PYTHONUTF8=1 where the agent runs saves it",
    )


def _codex_trust(root: Path) -> Check:
    """Whether Codex will run gitmem's hooks here: it skips untrusted ones silently. Asked
    of Codex itself (`codex app-server`, ~0.3 s) when it is on PATH."""
    from gitmem.agent import codextrust

    codex = codextrust.codex_command()
    if codex is None:
        return Check("codex trust", True, "not checked: `codex` is not on PATH")
    try:
        ok, line = codextrust.summary(codextrust.gitmem_hooks(codex, root))
    except GitmemError as exc:
        return Check("codex trust", False, f"could not ask Codex: {exc}")
    return Check("codex trust", ok, line)


def _daemon_detail(
    ping: dict[str, Any] | None,
    autostart: bool,
    embedded: bool,
    root: str,
    elsewhere: str | None = None,
) -> str:
    """What the warm daemon's absence costs: the agent hooks never load the model, so
    without it an agent's prompts are ranked by keyword and path alone, even where the
    index holds embeddings (``embedded``; since session 39: before, doctor said only
    "optional"). A daemon that sees the work tree at another place than ``root`` runs
    on the other side of a bind mount (a dev container, or its host): its pid is of
    another PID namespace, which `kill` here does not reach. ``elsewhere``: another
    machine's daemon under the plain names (a clone on a network file system), which
    serves that machine alone."""
    if ping:
        there = ping.get("root")
        if isinstance(there, str) and there != root:
            return (
                f"running where the work tree is {there} (pid {ping.get('pid', '?')} "
                "there: a container's or its host's); it serves this side too"
            )
        return f"running (pid {ping.get('pid', '?')})"
    if elsewhere:
        then = (
            "the next agent session starts this machine's (watch_autostart)"
            if autostart
            else "`gitmem watch` here starts this machine's own"
        )
        return (
            f"not running on this machine: {elsewhere}'s serves that machine alone (a "
            f"socket is not reached from another); {then}"
        )
    if autostart:
        return "not running: the next agent session starts it (watch_autostart)"
    if not embedded:
        return "not running (optional: `gitmem watch`)"
    return (
        "not running: agents' prompts are ranked by keyword and path only; `gitmem watch` "
        "(or `watch_autostart: true` in .continuity/config.yaml) ranks them with the "
        "index's embeddings too"
    )


def _stale_summary(repo: Repo) -> str:
    """What the last `gitmem stale` found (the session-start hook reads the same file).
    Informational: a stale CLAUDE.md is the project's to mend, not a fault of gitmem."""
    try:
        data = json.loads(stale.cache_path(repo).read_text(encoding="utf-8"))
        files, findings = list(data["files"]), list(data["findings"])
        when = _ago(float(data["checked_at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return "not checked yet: `gitmem stale` (session start runs it when CLAUDE.md exists)"
    if not files:
        return f"no CLAUDE.md, AGENTS.md or other instruction file (checked {when})"
    if not findings:
        return f"{', '.join(files)}: no stale line (checked {when})"
    return f"{len(findings)} stale lines in {', '.join(files)} (checked {when}): `gitmem stale`"


def _tail(path: Path, lines: int = 5) -> tuple[str, ...]:
    if not path.is_file():
        return ()
    return tuple(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


def _ago(ts: float) -> str:
    delta = max(0, int(time.time() - ts))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if delta >= size:
            return f"{delta // size} {unit} ago"
    return f"{delta} s ago"


def _git_check(repo: Repo) -> Check:
    """Whether git works in this repository: without it, no commit check, capture, lint
    or provenance (the hooks still show decisions, from the compiled table)."""
    try:
        code, out, err = git.run(["version"], cwd=repo.root, check=False)
        if code == -1:
            return Check("git", False, f"cannot run git: {err.strip()}")
        git.run(["rev-parse", "--git-dir"], cwd=repo.root)
    except UnsafeRepositoryError as exc:
        return Check(
            "git",
            False,
            "refuses this repository: it belongs to another user (git's safe.directory "
            "check), so captured prompts wait uncommitted, commits go unchecked and `gitmem lint`"
            f" cannot run; if you trust it: {exc.fix}",
        )
    except GitmemError as exc:
        return Check("git", False, str(exc).splitlines()[0])
    return Check("git", True, out.strip())


# A prompt waits in the write-ahead file until the end of its turn (the stop hook starts
# the flusher), so one waiting longer than any turn lasts means the flusher fails.
CAPTURE_WAIT_S = 3600
DOCTOR_PING_S = 5.0  # how long doctor waits for a running daemon's answer


def _capture_check(repo: Repo) -> Check:
    """Captured records still waiting in the write-ahead files, and since when."""
    # the write-ahead files, and the records a full disk sent to memory (capture.append)
    waiting, in_memory, oldest = 0, 0, time.time()
    names: set[str] = set()
    for path, spilled in capture.waiting_files(repo):
        try:
            records = capture.records_in(path.read_bytes())
        except OSError:
            continue
        times = [float(r["time"]) for r in records if isinstance(r.get("time"), (int, float))]
        oldest = min([oldest, *times])
        waiting += len(records)
        in_memory += len(records) if spilled else 0
        names |= {path.stem} if records else set()
    sessions = len(names)
    from gitmem.agent.prompt import CAPTURE_ENV, switched_off

    # this shell's variable, or the one Claude Code's settings give the hooks it runs
    claude = claudesettings.env_value(repo.root, Path.home(), CAPTURE_ENV)
    why = None
    if switched_off(os.environ.get(CAPTURE_ENV)):
        why = f"{CAPTURE_ENV}={os.environ.get(CAPTURE_ENV)}"
    elif claude is not None and switched_off(claude[1]):
        why = f"{CAPTURE_ENV}={claude[1]} in Claude Code's {claude[0]} settings"
    if why is not None:
        off = f"off for you ({why}): no prompt of yours is kept"
        if waiting:
            verb = "waits" if waiting == 1 else "wait"
            off += f"; {counted(waiting, 'earlier record')} still {verb} to be committed"
        return Check("capture", True, off)
    if not waiting:
        return Check("capture", True, "every captured prompt is committed")
    if in_memory:
        held = f"{counted(in_memory, 'record')} held in memory since the disk was full"
        return Check(
            "capture",
            False,
            f"{held}, from {_ago(oldest)}: a restart of the machine loses them; with room "
            "on the disk again, `gitmem sessions` commits them",
        )
    late = time.time() - oldest > CAPTURE_WAIT_S
    return Check(
        "capture",
        not late,
        f"{counted(waiting, 'record')} of {counted(sessions, 'session')} "
        f"{'waits' if waiting == 1 else 'wait'} to be committed, the oldest from {_ago(oldest)}"
        + (
            ": committing them fails (see the errors below); `gitmem sessions` retries"
            if late
            else " (committed at the end of each agent turn)"
        ),
    )


def _git_hooks_check(repo: Repo) -> Check:
    from gitmem import githooks

    try:
        ok, detail = githooks.status(repo)
    except (OSError, GitmemError) as exc:
        ok, detail = False, f"cannot tell: {str(exc).splitlines()[0]}"
    note = githooks.jj_note(repo)
    if note is not None:
        detail += f"; {note}"
    return Check("git hooks", ok, detail)


def _logs_check(report: lint.LintReport) -> Check | None:
    """ADR logs no source reads (their ADRs reach no agent: failed), and inferred globs
    that `gitmem init` would now infer otherwise (said): both mended by `gitmem init`."""
    if not report.unread_logs and not report.outdated:
        return None
    said = []
    if report.unread_logs:
        said.append(f"not read: {', '.join(report.unread_logs)}")
    if report.outdated:
        said.append(
            f"{counted(report.outdated, 'ADR')} with globs inferred by an older gitmem, or"
            " before the files they name changed"
        )
    fix = "run `gitmem init` (`gitmem lint` names them)"
    return Check("ADR logs", not report.unread_logs, f"{'; '.join(said)}: {fix}")


def _unread_sources(repo: Repo) -> list[str]:
    """The ADR folders config.yaml names that the work tree lacks, each with why (a
    sparse checkout leaves it out, or it moved) and what to do."""
    from gitmem.store import unread_sources

    try:
        cfg = config.load(repo.root)
    except GitmemError:  # the lint check below names what is wrong with config.yaml
        return []
    return [p.message for p in unread_sources(repo.root, cfg)]


def diagnose(repo: Repo, *, load_model: bool = True) -> Report:
    checks: list[Check] = [_git_check(repo)]
    cdir = repo.root / ".continuity"
    if sparse_excluded(location_of(repo), folder_too=True):
        checks.append(Check("records", False, SPARSE_NOTE))
    else:
        found = cdir.is_dir()
        detail = "found .continuity/" if found else "no .continuity/: run `gitmem init`"
        missing = _unread_sources(repo) if found else []
        if missing:  # a folder of ADRs none of which is read: as bad as no .continuity/
            found, detail = False, f"{detail}, but ADR folder {'; '.join(missing)}"
        checks.append(Check("records", found, detail))
    records: int | None = None  # how many record files lint read, when it could run
    try:
        report = lint.lint(repo)
        records = report.checked
    except UnsafeRepositoryError:
        checks.append(Check("lint", False, "cannot run: git refuses this repository (above)"))
    except GitmemError as exc:
        checks.append(Check("lint", False, f"cannot run: {str(exc).splitlines()[0]}"))
    else:
        said = report.summary()
        if report.errors:
            said += ": run `gitmem lint`"
        elif report.warnings:
            said += " (`gitmem lint` lists them)"
        checks.append(Check("lint", report.errors == 0, said))
        logs = _logs_check(report)
        if logs is not None:
            checks.append(logs)
    checks.append(_capture_check(repo))
    primary = Path(git_state_dir(str(repo.git_dir)))
    if repo.state_dir != primary:  # see gitmem.location.state_dir_of
        checks.append(
            Check(
                "state",
                True,
                f"{primary} cannot be written here (a read-only mount or an agent's "
                f"sandbox): the table and the index are kept in {repo.state_dir}",
            )
        )
    room = _room_check(repo)
    if room is not None:
        checks.append(room)
    table = Table.open(compiler.table_path(repo))
    fresh = table is not None and is_fresh(table, repo.root, full=True)
    table_full = table.meta("full") if table is not None else None
    if table is not None:
        table.close()
    rebuilt = "rebuilt on the next `gitmem why` or hook"
    if room is not None:
        rebuilt = "not rebuilt until there is room (see disk): compiled in memory meanwhile"
    checks.append(
        Check("match table", fresh, "up to date" if fresh else f"missing or stale: {rebuilt}")
    )
    gen = index.current_generation(repo)
    meta = index.read_meta(gen) if gen is not None else None
    if meta is None and records == 0:  # a project just set up: nothing to index yet
        checks.append(Check("index", True, "no records yet: nothing to index"))
    elif meta is None:
        checks.append(Check("index", False, "no usable index: run `gitmem index`"))
    else:
        stale = is_stale(meta, table_full, compiler.table_path(repo))
        model = meta.get("model") or "none (keyword + path only)"
        checks.append(
            Check(
                "index",
                not stale,
                f"{counted(len(meta['ids']), 'record')}, built {_ago(float(meta['built']))}, "
                f"embeddings: {model}" + ("; records changed since" if stale else ""),
            )
        )
    if load_model:
        cfg = config.load(repo.root)
        from gitmem import embed

        res = embed.resolve(repo.root, cfg.embed_model_dir, one_shot=True)
        ok, detail = res.embedder is not None, res.warning or "unavailable"
        if res.embedder is not None:
            detail = f"{res.embedder.info.source}: {res.embedder.info.location}"
            try:
                res.embedder.warm()  # models load lazily: make sure this one does
            except embed.ModelError as exc:
                ok, detail = False, str(exc)
            else:
                from gitmem import ovrun

                detail += f"; large builds run on {ovrun.describe()}"
        checks.append(Check("embedding model", ok, detail))
    # a daemon busy (embedding a changed record, a loaded machine) answers late: doctor,
    # no hook, can wait for it (with 1 s, as hooks wait, it said "not running" under load)
    ping = client.ping(repo, timeout=DOCTOR_PING_S)
    embedded = bool(meta and meta.get("model"))
    autostart = config.load(repo.root).watch_autostart
    other = daemon.other_machine(repo) if ping is None else None
    elsewhere = f"{other.where()} (pid {other.pid} there)" if other else None
    detail = _daemon_detail(ping, autostart, embedded, str(repo.root), elsewhere)
    checks.append(Check("daemon", True, detail))
    checks.append(Check("instructions", True, _stale_summary(repo)))
    checks.append(_git_hooks_check(repo))
    home = Path(os.path.expanduser("~"))
    installed = install.installed_scopes(repo.root, home)
    scopes, where = _installed(repo.root, home, install.CLAUDE, installed)
    failures_note, unread = _failure_events(repo.root, home, installed, scopes)
    where += failures_note
    plugin = (repo.root / ".claude-plugin" / "plugin.json").is_file()
    installed_plugins = claudesettings.enabled(repo.root, home)
    if installed_plugins:
        where = "; ".join(filter(None, (where, _plugin_note(installed_plugins, tuple(scopes)))))
    agent_checks: list[Check] = []
    others: list[str] = []  # the other agents with gitmem's hooks, as named to the user
    for name, (label, note) in _OTHER_AGENTS.items():
        there, agent_where = _installed(repo.root, home, install.AGENTS[name])
        if not there:
            continue
        others.append(label)
        detail = f"{agent_where}; {note}"
        if name == "cursor" and (scopes.get("project") or scopes.get("local")):
            # Cursor can run .claude/settings*.json hooks too (its third-party hooks option)
            detail += (
                "; Claude Code's are installed here too: if Cursor's third-party hooks "
                "option is on, it runs both and captures each prompt twice"
            )
        switches = _SWITCHES.get(name)  # installed, but the agent told to run them not
        off = switches(repo.root, home) if switches else None
        detail += f"; but {off}" if off else ""
        agent_checks.append(Check(f"{name} hooks", not off, detail))
        if name == "codex":
            agent_checks.append(_codex_trust(repo.root))
        trust = _folder_trust(name, repo.root, home, tuple(there))
        agent_checks.extend([trust] if trust else [])
    from gitmem.agent import plugins

    plugged = False  # a plugin or an extension of gitmem's installed: they call gitmem-hook
    for host, named in plugins.HOSTS.items():
        plugin_status = plugins.status(repo.root, home, host)
        if not plugin_status:
            continue
        plugged = True
        others.append(named)
        agent_checks.append(
            Check(
                f"{host} {plugins.KIND.get(host, 'plugin')}",
                all(plugin_status.values()),
                ", ".join(
                    f"{scope}: " + ("current" if current else "older than this gitmem's")
                    for scope, current in plugin_status.items()
                )
                + (
                    ""
                    if all(plugin_status.values())
                    else f"; `gitmem install {host} [--scope user]` replaces it"
                ),
            )
        )
        if host == "pi" and "project" in plugin_status:
            agent_checks.append(_pi_trust(repo.root, home, "user" in plugin_status))
        if host == "pi":
            agent_checks.extend(_pi_settings(repo.root, home, tuple(plugin_status)))
    from gitmem.agent import clinehooks

    cline_status = clinehooks.status(repo.root, home)
    if cline_status:
        others.append("Cline")
        agent_checks.append(
            Check(
                "cline hooks",
                not any(cline_status.values()),
                "; ".join(
                    f"{scope}: "
                    + (f"missing or outdated: {', '.join(stale)}" if stale else "current")
                    for scope, stale in cline_status.items()
                )
                + (_twice("Cline", "cline", tuple(cline_status)) if len(cline_status) > 1 else "")
                + (
                    "; `gitmem install cline [--scope user]` rewrites them"
                    if any(cline_status.values())
                    else "; Cline runs them from the next task on"
                ),
            )
        )
    # installed, but Claude Code told to run no hooks (or only an organisation's)
    off = claudesettings.hooks_off(repo.root, home) if scopes or installed_plugins else None
    if off:
        where += f"; but {off}"
    checks.append(
        Check(
            "claude hooks",
            (bool(scopes) or plugin or bool(installed_plugins) or bool(others))
            and not off
            and not unread,
            where
            or (
                "plugin manifest present"
                if plugin
                else "not installed: run `gitmem install claude`"
                + (
                    f" ({' and '.join(others)}'s are)"
                    if others
                    else " (or `gitmem install "
                    "codex|gemini|cursor|copilot|qwen|droid|opencode|kilo|pi|cline`)"
                )
            ),
        )
    )
    checks.extend(agent_checks)
    from gitmem.agent import startdir

    # started here, below the root, some agents read no settings of the root's
    for agent, said in startdir.unread_from(repo.root, Path.cwd(), home).items():
        checks.append(Check(f"{agent} started here", False, said))
    # the programs the installed hooks (or the plugin's) run; else what `install` would write
    programs = install.installed_executables(repo.root, home)
    if plugin or installed_plugins or cline_status or plugged:  # these call gitmem-hook
        programs = sorted({*programs, install.FAST_PREFIX.split()[0]})
    for program in programs or [install.command_prefix().split()[0]]:
        on_path = shutil.which(program, path=agent_path())
        shim = _version_manager_shim(on_path)
        checks.append(
            Check(
                f"{program} on PATH",
                on_path is not None and shim is None,
                (
                    f"{on_path} is a {shim} shim: each hook event also runs {shim} (+~55 ms"
                    f" per event measured with pyenv's); put {Path(sys.executable).parent} "
                    "ahead of the shims on PATH, or install gitmem with pipx"
                )
                if shim
                else on_path
                or (
                    f"hooks call `{program}`, found only in {why}: {toolenv.advice(why)}"
                    if (why := toolenv.unreachable(program))
                    else f"hooks call `{program}`: put gitmem's scripts folder on PATH"
                    " (pipx install / venv), or run `gitmem install claude` again"
                ),
            )
        )
    for advice in (_bytecode_check(), _locale_check(), _sharing_check(repo), _locks_check(repo)):
        if advice is not None:
            checks.append(advice)
    last: dict[str, dict[str, float]] = {}
    status = repo.shared_state_dir / STATUS_DIR
    if status.is_dir():
        for item in sorted(status.glob("*-*.json")):
            agent, _, event = item.stem.partition("-")
            # every agent gitmem-hook serves (before session 62 only those with hook files:
            # OpenCode's, pi's, Cline's not shown), and Kilo CLI (since session 65)
            if agent not in NAMES:
                continue
            try:
                data = json.loads(item.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            last[event if agent == "claude" else f"{agent} {event}"] = data
    return Report(
        tuple(checks),
        last,
        _tail(repo.shared_state_dir / ERROR_LOG),
        _tail(repo.state_dir / daemon.LOG),
    )
