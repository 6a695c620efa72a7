"""Fail-open execution of agent hooks, and the lean ``gitmem-hook`` entry point.

Whatever goes wrong inside gitmem (malformed stdin, no repository, a missing or corrupt
index, unreadable records, a crash) the hook exits 0 with valid JSON or nothing on stdout,
and the reason goes to ``<git-common-dir>/gitmem/hook-errors.log`` where ``gitmem doctor``
shows it. The last successful run of each event is kept for ``gitmem doctor`` as well.
Deliberate blocks (a critical decision's rule) are the only exit 2.

Import budget: this module and the tool-call events (``gitmem.agent.tooluse``) load only
built-in modules, ``_json`` and lean gitmem modules. ``traceback`` is imported only when
something failed.
"""

from __future__ import annotations

import os
import sys
import time

from gitmem import leanjson

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

    from gitmem.location import Location

ERROR_LOG = "hook-errors.log"
STATUS_DIR = "hook-status"
MAX_LOG_BYTES = 256 * 1024
# The timeout gitmem installs its hooks with, in seconds (gitmem.agent.install; OpenCode's
# and pi's plugins stop theirs at the same): past it the agent kills the hook, and goes on.
TIMEOUT_S = 10
# When a hook still running says so in the error log (see _watch): the agent's kill leaves
# no trace of its own.
SLOW_S = TIMEOUT_S * 0.8
EVENTS = (
    "session-start",
    "prompt",
    "pre-tool",
    "post-tool",
    "post-tool-failure",
    "stop",
    "session-end",
    "post-compact",
    "plugin-error",  # an agent's plugin failed open (pi's, OpenCode's): logged for doctor
)
# Codex's hooks take Claude Code's payloads and answers; the others' are translated by
# the agent's own module (TRANSLATED). gitmem.agent.install.AGENTS names the agents with
# hook files (OpenCode has a plugin and pi an extension: gitmem.agent.plugins; Cline a
# script per event: gitmem.agent.clinehooks); this module stays import-light and cannot
# load it.
AGENTS = (
    "claude", "codex", "gemini", "cursor", "copilot", "qwen", "droid", "opencode", "pi", "cline",
)  # fmt: skip
# gitmem.agent modules with adapt() and, unless they read Claude Code's answers as they
# are (Qwen Code; OpenCode's plugin, pi's extension), answer()
TRANSLATED = ("gemini", "cursor", "copilot", "qwen", "droid", "opencode", "pi", "cline")
# Agents whose before-tool hook cannot add context: they enforce rules there, and the
# after-tool hook brings the decisions of whatever the call touched.
INFORMED_AFTER = ("gemini", "cursor", "qwen", "droid", "cline")
# Where an agent's hook cannot add context, what gitmem has to say waits for the next
# tool result: a rule's advisory before an edit (Gemini CLI, Cursor, Qwen Code, Droid, Cline), a
# prompt's decisions (Cursor's beforeSubmitPrompt; Cline's).
HELD = {
    "gemini": ("pre-tool",),
    "cursor": ("pre-tool", "prompt"),
    "qwen": ("pre-tool",),
    "droid": ("pre-tool",),
    "cline": ("pre-tool", "prompt"),
}
# Agents whose session-start hook is not waited for (Cline runs TaskStart detached): the
# session's digest is made by its first tool result's hook, which delivers it. Made at
# the start and held, it could lose the race with that hook and come a call later.
DIGEST_AT_FIRST_RESULT = ("cline",)
# Agents that run the hooks of every scope they find, even the same command twice (seen
# running Codex 0.169.0, Copilot CLI 1.0.102, Cline CLI 3.0.65 and Droid 0.225.2 with gitmem
# installed for the project and for the user; Claude Code, Gemini CLI and Qwen Code run an
# identical command once). The second delivery of an event is recognised
# (state.first_delivery) and answers nothing: one capture, one digest. Not for pre-tool:
# both runs enforce the rules (each answer is a deny on its own), and what they would show
# is shown once anyway (the session's shown set). Not Cursor, which is not run here:
# whether it runs both, and whether two of its events can read the same (the same file
# read twice in one generation), is not known, and a dropped event costs more than a
# repeated one.
RUNS_EVERY_SCOPE = ("codex", "copilot", "cline", "droid")
# The agents whose rewinds (a session taken back to an earlier message) gitmem reads from
# their transcripts (gitmem.agent.rewind.READERS: kept in step; no import on this path)
REWINDS = ("claude", "gemini", "qwen")
# The agents whose events may reach gitmem twice: those, and Claude Code, which runs a
# plugin's hooks beside the settings' (seen running 2.1.328 with gitmem's plugin and
# `gitmem install claude`: every event twice). Claude Code stamps tool events only (a
# `tool_use_id`), and the same short prompt ("yes") may come again a turn later: its two
# deliveries start together, so for it the same payload counts as the same event within
# CLAUDE_REDELIVERY_S only. (Its transcript's size was tried as part of the key first: a
# fresh-clone CI run saw the two runs read different sizes, Claude Code writing it
# meanwhile.)
DELIVERED_TWICE = (*RUNS_EVERY_SCOPE, "claude")
CLAUDE_REDELIVERY_S = 3.0
# The agents that show a hook's systemMessage to the user (the others drop it).
SYSTEM_MESSAGE = ("claude", "codex", "gemini", "qwen")
AGENT_KEY = "gitmem_agent"  # set in the payload for the handlers (capture records it)
# Agents that run another's hooks, by the name their copy sends (``gitmem_host``): Kilo CLI
# runs OpenCode's plugin, and its sessions were captured as OpenCode's before session 65.
FORKS = {"opencode": ("kilo",)}
NAMES = (*AGENTS, *(name for names in FORKS.values() for name in names))  # as hooks log them
USAGE = (
    "usage: gitmem-hook AGENT EVENT  (AGENT: "
    + ", ".join(AGENTS)
    + "; EVENT: "
    + ", ".join(EVENTS)
    + ")\n"
)


def append_log(
    folder: str | os.PathLike[str], name: str, message: str, *, make_folder: bool = True
) -> bool:
    """Append a time-stamped line to ``folder/name``, which is rotated to ``name.1`` past
    ``MAX_LOG_BYTES``; whether it was written. Never raises: a log that cannot be written
    is not worth a failure."""
    try:
        if make_folder:
            os.makedirs(folder, exist_ok=True)
        log = os.path.join(folder, name)
        if os.path.exists(log) and os.stat(log).st_size > MAX_LOG_BYTES:
            os.replace(log, log + ".1")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        try:
            fh = open(log, "a", encoding="utf-8")  # noqa: SIM115 - closed below
        except PermissionError:
            # another user's log in a folder this user can write (a `sudo git commit`
            # whose hook failed): set aside as the rotation would, and this user's begun;
            # before session 58 every later line was lost, and doctor showed none of them
            os.replace(log, log + ".1")
            fh = open(log, "a", encoding="utf-8")  # noqa: SIM115 - closed below
        with fh:
            fh.write(f"{stamp} {message}\n")
    except OSError:
        return False
    return True


def _log_error(
    shared: str | os.PathLike[str] | None, event: str, message: str, agent: str = "claude"
) -> None:
    if shared is not None:
        append_log(shared, ERROR_LOG, f"{agent} {event}: {message}")


# The width every hook-status file is written at (see _record_success): more than its
# JSON ever takes, so that each write covers the one before it.
STATUS_BYTES = 96


def _record_success(shared: str, agent: str, event: str, ms: float) -> None:
    """Note for `gitmem doctor` when ``agent``'s ``event`` hook last ran, and how long it
    took. Written in place, padded to STATUS_BYTES, rather than replaced: on ext4, renaming
    a file over another (or truncating one) flushes it to disk first, ~0.5 ms of every
    hook (measured), where an overwrite costs ~10 µs. A reader that meets a write midway
    sees bad JSON and skips the file; its only reader, doctor, does (and the next hook
    writes it whole again)."""
    try:
        folder = os.path.join(shared, STATUS_DIR)
        os.makedirs(folder, exist_ok=True)
        data = leanjson.dumps({"time": time.time(), "ms": round(ms, 2)}).encode()
        path = os.path.join(folder, f"{agent}-{event}.json")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
        except PermissionError:  # another user's (see append_log): this user's instead
            os.unlink(path)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
        try:
            os.pwrite(fd, data.ljust(STATUS_BYTES), 0)
            if os.fstat(fd).st_size > STATUS_BYTES:  # written otherwise before: cut its rest
                os.ftruncate(fd, STATUS_BYTES)
        finally:
            os.close(fd)
    except OSError:
        pass


def describe(exc: BaseException) -> str:
    import traceback

    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    return detail + (f" at {where[0].filename}:{where[0].lineno}" if where else "")


def _well_formed(value: Any) -> Any:
    """``value`` with each string's lone surrogates as U+FFFD (`leanjson.well_formed`): as
    Node writes them to a file or a file name, where an agent's JavaScript cut a string
    inside an emoji's pair. Left in, each failed the first thing to encode it (RE2, a
    path, the capture's commit), and the hook failed open: a critical rule let a `float(`
    through, and the session's capture never committed again."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return leanjson.well_formed(value)
        return value
    if isinstance(value, dict):
        return {_well_formed(k): _well_formed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_well_formed(v) for v in value]
    return value


def run(agent: str, event: str, stdin: Any = None, stdout: Any = None) -> int:
    """One hook event of ``agent`` (``claude`` or ``codex``: the same payloads and
    answers; the others: translated, see TRANSLATED), failing open."""
    started = time.perf_counter()
    out = stdout if stdout is not None else sys.stdout
    shared: str | None = None
    result: dict[str, Any] | None = None
    named = agent  # as doctor names it: Kilo CLI's events, not OpenCode's (see FORKS)
    try:
        raw = (stdin if stdin is not None else sys.stdin.buffer).read()
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", "replace")
        try:
            payload: Any = leanjson.loads(raw) if raw.strip() else {}
        except ValueError as exc:
            raise ValueError(f"stdin is not valid JSON: {exc}") from None
        if not isinstance(payload, dict):
            raise ValueError(f"stdin is JSON but not an object: {type(payload).__name__}")
        if "\\ud" in raw or "\\uD" in raw:  # may hold a surrogate: never in the usual one
            payload = _well_formed(payload)
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r}; use one of {', '.join(AGENTS)}")
        # another agent's payload as Claude Code's, before locating the repository (Cursor
        # names the project in `workspace_roots`); its answer is translated back below
        translator = (
            __import__(f"gitmem.agent.{agent}", fromlist=["adapt"]) if agent in TRANSLATED else None
        )
        if translator is not None:
            payload = translator.adapt(payload)
        if payload.get("gitmem_host") in FORKS.get(agent, ()):
            named = str(payload["gitmem_host"])
        from gitmem.errors import NotARepositoryError
        from gitmem.location import locate

        cwd = payload.get("cwd")
        cwd = cwd if isinstance(cwd, str) and (os.path.isabs(cwd) or os.path.isdir(cwd)) else None
        _enter_existing(cwd)
        home: Location | None
        try:
            # a folder a command deleted (`cd build && … && rm -rf ../build`) is still in
            # its repository: found from the folders above it (before session 51 the hooks
            # failed there, and unlogged: the process's folder was gone too)
            home = locate(cwd)
        except NotARepositoryError:
            home = None
        # A folder that is no repository, or a repository that keeps no decisions (hooks
        # installed for the user run in every one): nothing of its own to show or capture,
        # so nothing written in its .git either, and nothing logged. A tool call, or the
        # paths a prompt names, may still reach repositories that keep decisions (a
        # submodule, the clones below): they answer, each from its own state.
        visiting = home is None or not os.path.isdir(os.path.join(home.root, ".continuity"))
        loc = home
        if visiting:
            found = _reached(home, event, payload)
            if not found:
                _reset_visited(home, event, payload)
                result = None
                if (
                    event == "session-start"
                    and agent not in DIGEST_AT_FIRST_RESULT
                    and isinstance(cwd, str)
                    and os.path.isdir(cwd)
                ):
                    from gitmem.agent import claude

                    # a folder of clones, or a superproject that keeps none of its own
                    result = (
                        claude.clones_digest(cwd)
                        if home is None
                        else claude.submodules_digest(home)
                    )
                if event == "session-start" and home is not None:
                    from gitmem.location import SPARSE_NOTE, sparse_excluded

                    if sparse_excluded(home):  # the user can bring them in; say so
                        result = {**(result or {}), "systemMessage": f"gitmem: {SPARSE_NOTE}"}
                if result is None:
                    return _emit(out, _nothing(agent, event))
                return _emit(out, translated(agent, event, result))
            loc = found[0]
        assert loc is not None
        shared = loc.shared_state_dir
        if event not in EVENTS:
            raise ValueError(f"unknown event {event!r}; use one of {', '.join(EVENTS)}")
        if event == "plugin-error":  # what the plugin caught, where `gitmem doctor` shows it
            said = " ".join(str(payload.get("error") or "no reason given").split())  # one line
            _log_error(shared, event, said[:1000], named)
            return _emit(out, None)
        payload[AGENT_KEY] = named
        if _again(shared, agent, event, payload, raw):
            if event == "stop":
                _flush_waiting(loc, payload)
            return _emit(out, _nothing(agent, event))
        rewound = False  # what was shown after a rewind's point is gone from the context
        # Claude Code's resume: a conversation gitmem may not know (gitmem.agent.rewind._seed)
        resumed = (
            agent == "claude" and event == "session-start" and payload.get("source") == "resume"
        )
        if agent in REWINDS and (event in ("prompt", "pre-tool", "post-tool", "stop") or resumed):
            from gitmem.agent import rewind

            rewound = rewind.check(shared, payload, agent)
            if agent == "qwen" and event == "prompt":  # the previous one, cancelled at once?
                rewound = rewind.qwen_unanswered(shared, payload) or rewound
        elif agent == "copilot" and event == "prompt":
            from gitmem.agent import rewind

            rewind.copilot_rewound(shared, payload)  # before the prompt's retrieval
        elif agent in ("opencode", "pi") and "rewound_at" in payload:  # a prompt's first hook
            from gitmem.agent import rewind

            rewind.plugin_revert(shared, payload)  # before the digest or the retrieval
        elif agent == "pi" and "conversation_shown" in payload:  # a session that holds one
            from gitmem.agent import rewind

            rewind.plugin_seed(shared, payload)  # before the digest
        if agent == "droid" and event in ("session-start", "prompt", "pre-tool", "stop"):
            _droid_prompt(loc, payload, event)  # where `droid exec` sent no prompt hook
        # where the before-tool hook cannot add context, the after-tool hook informs
        # (with what was held for it, see HELD)
        informed_after = agent in INFORMED_AFTER
        if event == "pre-tool":
            from gitmem.agent import tooluse

            result = tooluse.pre_tool(loc, payload, rules_only=informed_after)
        elif event == "post-tool":
            from gitmem.agent import tooluse

            if agent in DIGEST_AT_FIRST_RESULT and not visiting:  # no digest of its own
                _first_digest(loc, payload)
            # a rewind noted only now (Claude Code had not yet written the prompt when the
            # call's before-tool hook looked): what the call touched is shown after it
            result = tooluse.post_tool(loc, payload, every_touch=informed_after or rewound)
        elif event == "post-tool-failure":
            from gitmem.agent import tooluse

            result = tooluse.tool_failed(loc, payload)
        elif event == "prompt":
            from gitmem.agent import prompt

            result = prompt.elsewhere(home, payload) if visiting else prompt.prompt(loc, payload)
        else:
            from gitmem.agent import claude

            if event == "session-start":
                claude.autostart_daemon(loc)
            if event == "session-start" and agent == "codex":
                from gitmem.agent import rewind

                rewind.codex_session(shared, payload)  # before the digest, which it informs
            if event == "session-start" and agent in DIGEST_AT_FIRST_RESULT:
                result = None  # see _first_digest
            else:
                result = claude.HANDLERS[event](loc, payload)
            if event == "session-start" and agent in SYSTEM_MESSAGE:
                result = _tell_failures(shared, payload, result)
        if event in HELD.get(agent, ()):
            result = _hold(shared, payload, result)
        result = translated(agent, event, result)
        _record_success(shared, named, event, (time.perf_counter() - started) * 1000)
    except Exception as exc:  # fail open: our bug must never block the agent
        _log_error(shared or _guess_shared(), event, describe(exc), named)
        result = _nothing(agent, event)
    _unrecorded(shared, agent, event)
    return _emit(out, result)


def _tell_failures(
    shared: str, payload: dict[str, Any], result: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The hook errors logged since the user was last told (gitmem.agent.failures), added
    to the session start's systemMessage; not at a compaction, which no user starts."""
    if payload.get("source") == "compact":
        return result
    from gitmem.agent.failures import untold

    said = untold(shared)
    if not said:
        return result
    result = result or {}
    earlier = result.get("systemMessage")
    return {**result, "systemMessage": f"{earlier}\n{said}" if earlier else said}


def _enter_existing(cwd: str | None) -> None:
    """Where the agent started this process in a folder since deleted (every lookup of
    the current folder then fails), go to the nearest folder above it that exists."""
    try:
        os.getcwd()
        return
    except OSError:
        pass
    target = cwd or "/"
    while not os.path.isdir(target) and os.path.dirname(target) != target:
        target = os.path.dirname(target)
    os.chdir(target)


def _reached(home: Location | None, event: str, payload: dict[str, Any]) -> list[Location]:
    """The repositories keeping decisions that a tool call touches, or whose files a prompt
    names, besides ``home``."""
    if event in ("pre-tool", "post-tool"):
        from gitmem.agent.tooluse import other_repos

        return other_repos(home, payload)
    if event == "prompt":
        from gitmem.agent.prompt import named_paths
        from gitmem.agent.tooluse import other_repos, probe

        paths = named_paths(payload)
        return other_repos(home, probe(payload, paths)) if paths else []
    return []


def _reset_visited(home: Location | None, event: str, payload: dict[str, Any]) -> None:
    """Compaction or `/clear` where no repository of the session's keeps decisions: see
    ``claude.reset_visited``. Gemini CLI's PreCompress comes before turns that compress
    nothing as well, and only the session's own state could tell (``gemini.compressed``):
    passed over."""
    source = str(payload.get("source") or "")
    if event == "post-compact" and payload.get("hook_event_name") != "PreCompress":
        source = "compact"
    elif event != "session-start" or source not in ("compact", "clear"):
        return
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and os.path.isdir(cwd):
        from gitmem.agent import claude

        claude.reset_visited(home, cwd, str(payload.get("session_id") or ""), source)


def _unrecorded(shared: str | None, agent: str, event: str) -> None:
    """Say so where the session's state could not be written (gitmem.agent.state.Session):
    what was found is delivered all the same, but may be delivered again. In the error log
    for `gitmem doctor`, if that can be written, and on stderr, which agents log."""
    reasons = getattr(sys.modules.get("gitmem.agent.state"), "UNRECORDED", None)
    if reasons:
        said, reasons[:] = "; ".join(reasons), []  # one process may run several events (tests)
        message = f"session state not recorded ({said}); decisions may be repeated"
        _log_error(shared, event, message, agent)
        try:  # noqa: SIM105 (contextlib costs a fresh interpreter ~1 ms)
            sys.stderr.write(f"gitmem: {message}\n")
        except (OSError, ValueError):
            pass


def _flush_waiting(loc: Location, payload: dict[str, Any]) -> None:
    """Start the capture flusher for a turn's end taken for a second delivery when the
    session's prompts wait to be committed. Two turns' ends can read the same, byte for
    byte (Claude Code's Stop carries no turn id; a short turn's last message, "Done.",
    may repeat), and the later one, inside CLAUDE_REDELIVERY_S, was dropped with its
    flush: its turn's prompt waited for the next one (seen in a CI run, and in 4 of 6 runs
    of the test on a loaded machine). A flush is idempotent, so a true second delivery
    only costs a process."""
    from gitmem import capture

    sid = str(payload.get("session_id") or "") or "unknown"
    try:
        if os.path.getsize(capture.wal_path(loc, sid)) > 0:
            capture.spawn_flush(loc, sid)
    except OSError:
        pass  # nothing waits


def _again(shared: str, agent: str, event: str, payload: dict[str, Any], raw: str) -> bool:
    """Whether this event, byte for byte, was delivered to gitmem already
    (DELIVERED_TWICE)."""
    if agent not in DELIVERED_TWICE or event == "pre-tool":
        return False
    from gitmem.agent import state

    key = f"{event}-{state.fingerprint(raw.encode('utf-8', 'replace'))}"
    within = CLAUDE_REDELIVERY_S if agent == "claude" else state.REDELIVERY_S
    return not state.first_delivery(shared, str(payload.get("session_id") or ""), key, within)


def _first_digest(loc: Any, payload: dict[str, Any]) -> None:
    """The session-start digest, held for delivery with this tool result, if no hook of
    the session made it yet (DIGEST_AT_FIRST_RESULT); with it, the task's first prompt,
    which no hook was given (gitmem.agent.cline.first_prompt): captured, and its
    decisions held too."""
    from gitmem.agent import state

    shared = loc.shared_state_dir
    if state.claim(shared, str(payload.get("session_id") or ""), "digest"):
        from gitmem.agent import claude, cline

        _hold(shared, payload, claude.session_start(loc, {**payload, "source": "startup"}))
        first = cline.first_prompt(payload)
        if first:
            from gitmem.agent import prompt

            _hold(shared, payload, prompt.prompt(loc, {**payload, "prompt": first}))


def _droid_prompt(loc: Location, payload: dict[str, Any], event: str) -> None:
    """What the prompt hook does, for a Droid turn whose prompt no prompt hook brought
    (`droid exec` runs none): its prompt, read from the transcript at the turn's first tool
    call or at its end, captured, and its decisions held for the call's result
    (gitmem.agent.droid.turn_prompt). A failure here is logged and the event goes on: the
    call's rules are checked all the same."""
    try:
        from gitmem.agent import droid

        text = droid.turn_prompt(loc.shared_state_dir, payload, event)
        if text is None:
            return
        from gitmem.agent import prompt

        asked = {**payload, "prompt": text, "hook_event_name": "UserPromptSubmit"}
        turn = "now" if event == "pre-tool" else "over"
        answer = prompt.prompt(loc, asked, turn=turn)
        if event == "pre-tool":
            _hold(loc.shared_state_dir, payload, answer)
    except Exception as exc:
        _log_error(loc.shared_state_dir, event, f"the turn's prompt: {describe(exc)}", "droid")


def _hold(shared: str, payload: dict[str, Any], result: dict[str, Any] | None) -> Any:
    """Keep an answer's context for the session's next tool result (delivered by
    ``tooluse.post_tool``); a deny goes through as it is."""
    from gitmem.agent.common import unpack

    text = unpack(result)[1]
    if not text:
        return result
    from gitmem.agent import state

    state.hold(shared, str(payload.get("session_id") or ""), str(text))
    return None


def translated(agent: str, event: str, result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A Claude Code answer as ``agent`` reads it: its module's ``answer()``, or as it is
    (Claude Code, Codex; Qwen Code and OpenCode's plugin read Claude Code's answers)."""
    if agent not in TRANSLATED:
        return result
    module = __import__(f"gitmem.agent.{agent}", fromlist=["answer"])  # loaded by run()
    if not hasattr(module, "answer"):
        return result
    answer: dict[str, Any] | None = module.answer(event, result)
    return answer


def _nothing(agent: str, event: str) -> dict[str, Any] | None:
    """The answer that changes nothing: no output, but Cursor wants a JSON object, and
    Cline's extension blocks the action on an answer that is not one."""
    if agent == "cline":
        return {"cancel": False}
    if agent != "cursor":
        return None
    from gitmem.agent.cursor import empty

    return empty(event)


def _guess_shared() -> str | None:
    try:
        from gitmem.location import locate

        return locate().shared_state_dir
    except Exception:
        return None


def _emit(out: Any, result: dict[str, Any] | None) -> int:
    if result is not None:  # Claude Code's handlers answer None, never {}; Cursor's {}
        try:
            out.write(leanjson.dumps(result))
            out.flush()
        except (OSError, ValueError, TypeError):
            pass
    return 0


def exit_now(code: int) -> NoReturn:
    """End a hook's process with ``code`` once its answer is out, skipping the
    interpreter's teardown: freeing every module and object one by one costs ~2-3 ms of
    each hook (measured: `python -c pass` 16.1 ms, with `os._exit(0)` 13.8 ms; with the
    pre-tool hook's imports 23.4 against 20.0), and nothing a hook leaves needs it: its
    files are written and closed as it goes (session lines by `os.write`, logs in `with`
    blocks), its background jobs are processes of their own, and the index table it reads
    is opened read-only. Only the standard streams hold buffered output: flushed here."""
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 (contextlib costs a fresh interpreter ~1 ms)
            stream.flush()
        except (OSError, ValueError):  # the agent closed the pipe: nothing more to say
            pass
    handback = sys.modules.get("gitmem.handback")  # root in another user's repository
    if handback is not None:
        handback.finish()
    os._exit(code)


def _watch(agent: str, event: str) -> Callable[[], None]:
    """Log a hook still running after SLOW_S, before the agent kills it at TIMEOUT_S: a
    killed hook writes nothing, and the agent goes on without its answer (a critical
    rule's denial, the decisions for a prompt), which no one learnt of before session 69.
    Logged, the next session start tells the user (gitmem.agent.failures). The hook goes
    on: if it ends in time, its answer stands. A timer signal, through the C module
    ``_signal`` that the interpreter has loaded at start (``signal`` imports ``enum``,
    ~5 ms); none where there is no SIGALRM (Windows) or this is not the main thread. The
    function returned cancels it."""
    try:
        import _signal  # type: ignore[import-not-found]  # no stub; `signal` re-exports it

        def late(_signum: int, _frame: object) -> None:
            shared = _guess_shared()
            message = (
                f"still running after {SLOW_S:g} s (agents stop gitmem's hooks at "
                f"{TIMEOUT_S} s, and go on without their answer)"
            )
            _log_error(shared, event, message, agent)

        before = _signal.signal(_signal.SIGALRM, late)
        _signal.setitimer(_signal.ITIMER_REAL, SLOW_S)
    except (ImportError, AttributeError, ValueError, OSError):
        return lambda: None

    def stop() -> None:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, before)

    return stop


def main(argv: list[str] | None = None) -> int:
    """``gitmem-hook AGENT EVENT``: the command Claude Code (or Codex) runs. A script of its
    own rather than ``gitmem hook AGENT``, because the console-script wrapper pip generates
    for ``gitmem`` imports ``re`` first (~10 ms here)."""
    if argv is None:
        from gitmem import utf8mode

        utf8mode.ensure()  # file names as git and the agents give them (see gitmem.utf8mode)
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] in AGENTS:
        stop = _watch(args[0], args[1])
        try:
            return run(args[0], args[1])
        finally:
            stop()
    sys.stderr.write(USAGE)
    return 0  # fail open even when misconfigured: the agent must not be blocked
