"""Claude Code's rewind (gitmem.agent.rewind): a session taken back to an earlier message
is shown again the decisions its hooks showed after that message, and nothing else.

The hooks run as Claude Code runs them (`gitmem-hook claude EVENT`, real payloads), each
given the session's transcript as Claude Code writes it (2.1.332's JSON lines: a message's
``parentUuid``, ``isSidechain``, ``type``, ``message``, ``uuid``, ``timestamp``, in that
order, among lines of other kinds), grown between hooks as the session goes on. The live
run is tests/test_live_agents.py::test_a_rewound_claude_session_is_shown_the_decisions_again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import test_gemini
import test_qwen
from conftest import commit_all, decision, write
from test_hooks import context_of, hook
from test_hooks import pytestmark as needs_install

from gitmem.agent import rewind

pytestmark = needs_install


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "api/routes.py", "")
    write(repo, "billing/charge.py", "x = 1\n")
    decision(repo, "0001-api.md", "Version the API with a header", globs=["api/**"])
    decision(repo, "0002-money.md", "Money is integer cents", globs=["billing/**"])
    commit_all(repo, "decisions")
    return repo


LATEST = "latest"  # a message's parent by default: the conversation's latest message


class Transcript:
    """A session's transcript, written as Claude Code writes it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.leaf: str | None = None
        self.count = 0
        path.write_text("")

    def _line(self, entry: dict[str, object]) -> None:
        with self.path.open("a") as fh:
            fh.write(json.dumps(entry, separators=(",", ":")) + "\n")

    def message(
        self, kind: str, content: object, *, parent: str | None = LATEST, sidechain: bool = False
    ) -> str:
        """A message after ``parent`` (by default the latest; None: none); its uuid."""
        self.count += 1
        uid = f"{self.count:08x}-0000-4000-8000-000000000000"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        self._line({
            "parentUuid": self.leaf if parent == LATEST else parent, "isSidechain": sidechain,
            "type": kind, "message": {"role": kind, "content": content}, "uuid": uid,
            "timestamp": f"{stamp}.{int(time.time() * 1000) % 1000:03d}Z",
        })  # fmt: skip
        if not sidechain:
            self.leaf = uid
        self._line({"type": "last-prompt", "leafUuid": self.leaf, "sessionId": "s"})
        time.sleep(0.02)  # hooks and messages a moment apart, as in a real session
        return uid

    def prompt(self, text: str, parent: str | None = LATEST) -> str:
        return self.message("user", text, parent=parent)

    def attachment(self, text: str, parent: str | None = LATEST) -> str:
        """A hook's answer as Claude Code keeps it: an attachment whose parent is the
        message it came with (by default the latest), beside the next message."""
        self.count += 1
        uid = f"{self.count:08x}-0000-4000-8000-000000000000"
        self._line({
            "parentUuid": self.leaf if parent == LATEST else parent, "isSidechain": False,
            "attachment": {"type": "hook_additional_context", "content": [text]},
            "type": "attachment", "uuid": uid, "timestamp": "2026-11-28T20:00:00.000Z",
        })  # fmt: skip
        return uid

    def tool_round(self, n: int) -> None:
        self.message("assistant", [{"type": "tool_use", "id": f"t{n}", "name": "Read"}])
        self.message("user", [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x"}])
        self.message("assistant", [{"type": "text", "text": "Done."}])


def read(project: Path, sid: str, transcript: Transcript, path: str) -> str:
    payload = {"session_id": sid, "transcript_path": str(transcript.path), "cwd": str(project),
               "hook_event_name": "PreToolUse", "tool_name": "Read",
               "tool_input": {"file_path": str(project / path)}}  # fmt: skip
    code, out, err = hook("pre-tool", payload, project)
    assert code == 0, err
    return context_of(out)


def prompted(project: Path, sid: str, transcript: Transcript, text: str) -> str:
    payload = {"session_id": sid, "transcript_path": str(transcript.path), "cwd": str(project),
               "hook_event_name": "UserPromptSubmit", "prompt": text}  # fmt: skip
    code, out, err = hook("prompt", payload, project)
    assert code == 0, err
    return context_of(out)


def test_a_rewound_session_is_shown_again_what_came_after_the_point(
    project: Path, tmp_path: Path
) -> None:
    sid = "rewound"
    transcript = Transcript(tmp_path / f"{sid}.jsonl")
    transcript.prompt("Look at the billing code")
    assert "Money is integer cents" in read(project, sid, transcript, "billing/charge.py")
    transcript.tool_round(1)
    second = transcript.prompt("Now the routes")
    assert "Version the API with a header" in read(project, sid, transcript, "api/routes.py")
    transcript.tool_round(2)
    # shown once: both again read nothing
    assert read(project, sid, transcript, "api/routes.py") == ""
    assert read(project, sid, transcript, "billing/charge.py") == ""
    # the user goes back to before the second prompt: its messages are cut
    prompted(project, sid, transcript, "The routes, another way")  # written after its hook
    transcript.prompt("The routes, another way", parent=parent_of(transcript, second))
    said = read(project, sid, transcript, "api/routes.py")
    assert "Version the API with a header" in said  # shown after the point: again
    assert read(project, sid, transcript, "billing/charge.py") == ""  # before it: still there
    assert read(project, sid, transcript, "api/routes.py") == ""  # and once


def test_a_rewind_written_after_the_tools_hook_is_shown_after_the_tool(
    project: Path, tmp_path: Path
) -> None:
    """Interactive Claude Code (2.1.332) writes a rewound turn's prompt late: the first
    tool call's before-tool hook found no prompt yet, its after-tool hook does. That hook
    then shows what the call touched (a Read's decisions, which an after-tool hook
    otherwise leaves to the before-tool one)."""
    sid = "late"
    transcript = Transcript(tmp_path / f"{sid}.jsonl")
    first = transcript.prompt("Look around")
    assert "Version the API" in read(project, sid, transcript, "api/routes.py")
    transcript.tool_round(1)
    assert read(project, sid, transcript, "api/routes.py") == ""  # not yet written: shown
    transcript.prompt("Look around again", parent=parent_of(transcript, first))
    transcript.message("assistant", [{"type": "tool_use", "id": "t2", "name": "Read"}])
    payload = {"session_id": sid, "transcript_path": str(transcript.path), "cwd": str(project),
               "hook_event_name": "PostToolUse", "tool_name": "Read",
               "tool_input": {"file_path": str(project / "api/routes.py")},
               "tool_response": {"type": "text"}}  # fmt: skip
    code, out, _ = hook("post-tool", payload, project)
    assert code == 0 and "Version the API with a header" in context_of(out)
    assert read(project, sid, transcript, "api/routes.py") == ""  # once


def test_a_rewind_in_a_turn_without_tools_is_noted_at_its_end(
    project: Path, tmp_path: Path
) -> None:
    """Claude Code writes a prompt to the transcript after its prompt hook ran, so a
    rewound turn that calls no tool is seen by its end (the stop hook): the next prompt
    brings the decision again (interactive `/rewind` so, seen in 2.1.332). Here the
    session goes back to before its first message (no parent, as when nothing came
    before it)."""
    sid = "no-tools"
    transcript = Transcript(tmp_path / f"{sid}.jsonl")
    prompted(project, sid, transcript, "hello")  # the first look
    first = transcript.prompt("How are the routes in api/routes.py versioned?")
    assert "Version the API with a header" in prompted(
        project, sid, transcript, "How are the routes in api/routes.py versioned?"
    )  # (its hook ran before the prompt was written; the order does not matter here)
    transcript.message("assistant", [{"type": "text", "text": "With a header."}])
    asked = "Is api/routes.py versioned with a header?"
    assert "Version the API" not in prompted(project, sid, transcript, asked)  # shown
    transcript.prompt(asked, parent=parent_of(transcript, first))  # rewound, then asked
    transcript.message("assistant", [{"type": "text", "text": "Yes."}])
    payload = {"session_id": sid, "transcript_path": str(transcript.path), "cwd": str(project),
               "hook_event_name": "Stop", "stop_hook_active": False}  # fmt: skip
    assert hook("stop", payload, project)[0] == 0
    again = "So api/routes.py takes a version header?"  # (the same payload: a redelivery)
    assert "Version the API with a header" in prompted(project, sid, transcript, again)


def parent_of(transcript: Transcript, prompt: str) -> str | None:
    """The message a prompt followed (its parent), from the transcript."""
    for line in transcript.path.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("uuid") == prompt:
            parent = entry["parentUuid"]
            return None if parent is None else str(parent)
    raise AssertionError(prompt)


def test_no_rewind_in_a_session_that_goes_on(project: Path, tmp_path: Path) -> None:
    """A prompt after the latest message, one after a subagent's messages (a sidechain),
    one after a message written since the last `last-prompt` line: no rewind, so nothing
    is shown twice."""
    sid = "straight"
    transcript = Transcript(tmp_path / f"{sid}.jsonl")
    transcript.prompt("Look at the routes")
    assert "Version the API" in read(project, sid, transcript, "api/routes.py")
    transcript.tool_round(1)
    transcript.message("user", "a subagent's task", sidechain=True)
    transcript.message("assistant", [{"type": "text", "text": "sub"}], sidechain=True)
    # a subagent's own call, naming its own transcript: its context is counted apart
    sub = Transcript(tmp_path / "agent-1.jsonl")
    sub.prompt("a subagent's task")
    payload = {"session_id": sid, "transcript_path": str(sub.path), "cwd": str(project),
               "hook_event_name": "PreToolUse", "tool_name": "Read", "agent_id": "a1",
               "tool_input": {"file_path": str(project / "api/routes.py")}}  # fmt: skip
    assert "Version the API" in context_of(hook("pre-tool", payload, project)[1])
    transcript.prompt("And again")
    assert read(project, sid, transcript, "api/routes.py") == ""
    transcript.tool_round(2)
    transcript.prompt("Once more")
    assert read(project, sid, transcript, "api/routes.py") == ""
    state = (project / ".git/gitmem/sessions" / f"{sid}.jsonl").read_text()
    assert '"k":"rewound"' not in state


def test_a_forked_session_is_not_shown_again_what_its_conversation_holds(
    project: Path, tmp_path: Path
) -> None:
    """`claude --resume ID --fork-session` goes on from a session's conversation under a
    new id, in a transcript that holds a copy of it, and its first hook is the prompt's
    (2.1.332, run for real): before session 51 every decision shown in it was shown again.
    Now the first look at such a transcript notes what its conversation holds as shown:
    what the hooks said along the messages from the latest back (their attachments), not
    what a rewind cut away. The live run is tests/test_live_agents.py::
    test_a_forked_claude_session_is_not_shown_its_decisions_again."""
    parent = Transcript(tmp_path / "parent.jsonl")
    parent.prompt("Look at the billing code")
    parent.message("assistant", [{"type": "tool_use", "id": "t1", "name": "Read"}])
    money = "- Project decision D-0002 (accepted, info) governs billing/**: Money is integer cents."
    parent.attachment(money)
    parent.message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}])
    parent.message("assistant", [{"type": "text", "text": "Done."}])
    kept = parent.leaf
    parent.prompt("Now the routes")  # gone back from: what its turn was told is cut
    parent.message("assistant", [{"type": "tool_use", "id": "t2", "name": "Read"}])
    parent.attachment("- Project decision D-0001 (accepted, info) governs api/**: Version the API.")
    parent.prompt("Something else", parent=kept)
    parent.message("assistant", [{"type": "text", "text": "Sure."}])
    sid = "forked"
    fork = Transcript(tmp_path / f"{sid}.jsonl")
    fork.path.write_bytes(parent.path.read_bytes())  # the copy Claude Code writes
    fork.leaf, fork.count = parent.leaf, parent.count
    assert prompted(project, sid, fork, "Go on") == ""
    fork.prompt("Go on")
    assert read(project, sid, fork, "billing/charge.py") == ""  # the model has it
    assert "Version the API with a header" in read(project, sid, fork, "api/routes.py")
    state = (project / ".git/gitmem/sessions" / f"{sid}.jsonl").read_text()
    assert '"ids":["D-0002"],"event":"conversation"' in state
    # a transcript with no message yet (a new session's: its session start's answer, which
    # that hook noted itself): nothing is taken from it
    new = Transcript(tmp_path / "new.jsonl")
    new.attachment("- Project decision D-0002 (accepted, info) applies: Money.", parent=None)
    assert "Money is integer cents" in read(project, "new", new, "billing/charge.py")


def test_a_session_without_a_transcript_goes_on_as_before(project: Path, tmp_path: Path) -> None:
    """No transcript, or one missing or of another shape: nothing noted, nothing fails."""
    sid = "none"
    for transcript_path in ("", str(tmp_path / "missing.jsonl"), str(tmp_path / "odd.jsonl")):
        (tmp_path / "odd.jsonl").write_text('{"not": "claude code"}\n[1, 2]\nnot json\n')
        payload = {"session_id": sid, "transcript_path": transcript_path, "cwd": str(project),
                   "hook_event_name": "PreToolUse", "tool_name": "Read",
                   "tool_input": {"file_path": str(project / "api/routes.py")}}  # fmt: skip
        code, _, err = hook("pre-tool", payload, project)
        assert code == 0 and err == ""
    assert not (project / ".git/gitmem/hook-errors.log").exists()


@pytest.mark.parametrize(
    ("stamp", "epoch"),
    [
        ("1970-01-01T00:00:00.000Z", 0.0),
        ("2026-11-27T23:48:36.355Z", 1795823316.355),
        ("2000-02-29T12:00:00Z", 951825600.0),
        ("2024-03-01T00:00:01.5Z", 1709251201.5),
        ("garbage", None),
    ],
)
def test_transcript_times(stamp: str, epoch: float | None) -> None:
    found = rewind._epoch(stamp)
    assert found == epoch if epoch is None else found == pytest.approx(epoch, abs=1e-6)


# Gemini CLI and Qwen Code: their hooks, run as installed (`gitmem install gemini|qwen`),
# given transcripts written as each writes its own (lines in the shapes Gemini CLI 0.61.0
# and Qwen Code 0.24.4 wrote in interactive runs, `/rewind` among them). The live runs are
# tests/test_live_agents.py::test_a_rewound_session_is_shown_the_decisions_again.


def stamp() -> str:
    time.sleep(0.02)  # hooks and records a moment apart, as in a real session
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"


class GeminiTranscript:
    """A session file as Gemini CLI writes it: JSON lines, each a message (``id``,
    ``timestamp``, ``type``, ``content``) or an update (``$set``, ``$rewindTo``)."""

    def __init__(self, path: Path, resumed: list[dict[str, object]] | None = None) -> None:
        """A new session's file, or with ``resumed`` the file `gemini --resume` goes on
        in: its conversation set at its start (as 0.61.0 sets it: the session context
        and the messages, without the digest)."""
        self.path = path
        self.messages: list[dict[str, object]] = []
        self.count = 0
        now = stamp()
        self._line({"sessionId": "gemini-1", "projectHash": "0" * 64, "startTime": now,
                    "lastUpdated": now, "kind": "main"})  # fmt: skip
        context = {"id": "c0", "timestamp": now, "type": "user",
                   "content": [{"text": "<session_context>\nThis is the Gemini CLI."}]}  # fmt: skip
        self.messages = [context, *(m for m in resumed or [] if not ignored(m))]
        self.set_messages(now if resumed is None else stamp())

    def set_messages(self, written: str | None = None) -> None:
        """The conversation as it now is, set (``$set``, with the time it was written: a
        new session's, that of its first message)."""
        self._line({"$set": {"messages": self.messages, "lastUpdated": written or stamp()}})

    def _line(self, entry: dict[str, object]) -> None:
        with self.path.open("a") as fh:
            fh.write(json.dumps(entry, separators=(",", ":")) + "\n")

    def message(self, kind: str, content: object) -> str:
        self.count += 1
        entry = {"id": f"{self.count:08x}-gemini", "timestamp": stamp(), "type": kind,
                 "content": content}  # fmt: skip
        self.messages.append(entry)
        self._line(entry)
        self._line({"$set": {"lastUpdated": stamp()}})
        return str(entry["id"])

    def prompt(self, text: str) -> str:
        return self.message("user", [{"text": text}])

    def tool_round(self) -> None:
        self.message("gemini", "")
        self.message("user", [{"functionResponse": {"id": "r", "name": "read_file"}}])
        self.message("gemini", "Done.")

    def rewind_to(self, prompt: str) -> None:
        """`/rewind` to before ``prompt``: the messages before it are set again, but for
        those that begin ``<session_context>`` or ``<hook_context>`` (the session-start
        digest), which Gemini CLI leaves out of the conversation it rebuilds (0.61.0's
        isIgnoredUserContent; seen: the requests after a rewind held neither)."""
        index = next(i for i, m in enumerate(self.messages) if m["id"] == prompt)
        self.messages = [m for m in self.messages[:index] if not ignored(m)]
        self._line({"$rewindTo": prompt})
        self.set_messages()

    def cancel_turn(self, prompt: str) -> None:
        """Esc while the model works on ``prompt``'s turn: Gemini CLI 0.61.0 rolls the
        conversation back to before the prompt (the digest stays) and goes on."""
        index = next(i for i, m in enumerate(self.messages) if m["id"] == prompt)
        self.messages = self.messages[:index]
        self.set_messages()
        self.message("user", [{"text": "[System: You successfully executed a tool ...]"}])
        self.message("gemini", "Done.")

    def chat_resume(self, saved: list[dict[str, object]]) -> None:
        """`/chat resume TAG` of the conversation ``saved`` (`/chat save TAG`): set
        again, every message stamped at the resume's time, the user's first messages (the
        session context, the digest, the first prompt) one message (seen in 0.61.0)."""
        now = stamp()
        merged: list[dict[str, object]] = []
        for m in saved:
            if merged and m["type"] == merged[-1]["type"] == "user":
                merged[-1] = {**merged[-1], "content": [*merged[-1]["content"], *m["content"]]}  # type: ignore[misc]
            else:
                merged.append({**m, "timestamp": now})
        self.messages = merged
        self.set_messages(stamp())


def gemini_session(repo: Path) -> tuple[Path, GeminiTranscript]:
    """gitmem installed for Gemini CLI in ``repo``, and a session begun there: its
    transcript, holding the session-start digest (the pinned money decision) as Gemini
    CLI writes it, a message of its own."""
    from click.testing import CliRunner
    from conftest import agent_project

    from gitmem.cli.main import cli

    project = agent_project(repo)
    assert CliRunner().invoke(cli, ["install", "gemini"]).exit_code == 0
    transcript = GeminiTranscript(project.parent / "session.jsonl")
    digest = gemini_hook(project, transcript.path, "SessionStart", source="startup")
    assert "Money is integer cents" in digest
    transcript.message("user", [{"text": f"<hook_context>{digest}</hook_context>"}])
    return project, transcript


def test_a_gemini_chat_resumed_is_shown_again_what_its_checkpoint_lacks(repo: Path) -> None:
    """`/chat save a`, a turn that reads the API file, `/chat resume a`: the model's
    conversation is the checkpoint's again, which holds the digest but not the API
    decision. Run for real in 0.61.0: before session 47 the model, asked about
    api/routes.py, got the money decision a second time and not the API decision
    (every message of the set is stamped at the resume, so nothing seemed cut but the
    digest, which is not a message of its own there). What the set's <hook_context>
    parts name counts as shown; the rest, as not."""
    project, transcript = gemini_session(repo)
    assert gemini_hook(project, transcript.path, "BeforeAgent", prompt="Hello") == ""
    transcript.prompt("Hello")
    transcript.message("gemini", "Done.")
    saved = list(transcript.messages)  # /chat save a
    transcript.prompt("Look at the routes")
    told = gemini_read(project, transcript.path, "api/routes.py")
    assert "Version the API with a header" in told
    transcript.message("gemini", "")
    result = {"output": f"def routes(): ...\n\n<hook_context>{told}</hook_context>"}
    transcript.message("user", [{"functionResponse": {"id": "r", "name": "read_file",
                                                      "response": result}}])  # fmt: skip
    transcript.message("gemini", "Done.")
    after_read = list(transcript.messages)  # /chat save b
    transcript.chat_resume(saved)
    asked = "How are the routes in api/routes.py versioned?"
    said = gemini_hook(project, transcript.path, "BeforeAgent", prompt=asked)
    assert "Version the API with a header" in said, said
    assert "Money is integer cents" not in said, said  # the checkpoint holds the digest
    transcript.prompt(asked)
    transcript.message("gemini", "Done.")
    transcript.chat_resume(after_read)  # its tool result holds the API decision
    assert gemini_hook(project, transcript.path, "BeforeAgent", prompt=asked) == ""
    assert not (project / ".git/gitmem/hook-errors.log").exists()


def test_a_gemini_turn_cancelled_or_resumed_is_shown_again_what_it_lost(repo: Path) -> None:
    """A turn the user cancels (Esc) is rolled back out of Gemini CLI's conversation,
    and what the hooks showed in it with it: run for real in 0.61.0, the model was asked
    about api/routes.py after a cancelled turn had read it, and got no decision. A
    resumed session (`gemini --resume`) goes on in a new file that begins with the
    conversation set, without the digest (the requests after one held neither)."""
    project, transcript = gemini_session(repo)
    # the first look at a new session's file, which begins with a conversation set: the
    # digest written after it stays
    assert gemini_hook(project, transcript.path, "BeforeAgent", prompt="Look around") == ""
    headless = GeminiTranscript(project.parent / "headless.jsonl")  # `gemini -p`: the
    # digest is written after the first prompt's hook ran (seen): still no cut
    assert "Money" in gemini_hook(project, headless.path, "SessionStart", session_id="g2")
    said = gemini_hook(project, headless.path, "BeforeAgent", prompt="Hi", session_id="g2")
    assert said == ""
    headless.message("user", [{"text": "<hook_context>the digest</hook_context>"}])
    headless.prompt("Hi")
    headless.message("gemini", "Done.")
    # resumed in the same file: the conversation set again without the digest, its
    # session context stamped anew as it is set (seen in 0.61.0)
    now = stamp()
    headless.messages = [{**headless.messages[0], "timestamp": now},
                         *(m for m in headless.messages[1:] if not ignored(m))]  # fmt: skip
    headless.set_messages(now)
    said = gemini_hook(project, headless.path, "BeforeAgent", prompt="Go on", session_id="g2")
    assert "Money is integer cents" in said
    first = transcript.prompt("Look around")
    assert "Version the API with a header" in gemini_read(project, transcript.path, "api/routes.py")
    transcript.message("gemini", "")
    transcript.cancel_turn(first)
    asked = "How are the routes in api/routes.py versioned?"
    said = gemini_hook(project, transcript.path, "BeforeAgent", prompt=asked)
    assert "Version the API with a header" in said and "Money is integer cents" not in said
    transcript.prompt(asked)
    assert gemini_read(project, transcript.path, "api/routes.py") == ""  # once
    transcript.message("gemini", "Done.")
    # `gemini --resume`: a new file, the conversation set at its start, no digest in it
    resumed = GeminiTranscript(project.parent / "resumed.jsonl", transcript.messages[1:])
    gemini_hook(project, resumed.path, "SessionStart", source="resume")
    said = gemini_hook(project, resumed.path, "BeforeAgent", prompt="Go on")
    assert "Money is integer cents" in said and "your context lost them" in said
    assert not (project / ".git/gitmem/hook-errors.log").exists()


def ignored(message: dict[str, object]) -> bool:
    content = message["content"]
    text = "".join(str(p.get("text", "")) for p in content) if isinstance(content, list) else ""
    return message["type"] == "user" and text.strip().startswith(("<session_context>", "<hook"))


def agent_hook(agent: str, project: Path, transcript: Path, event: str, **payload: object) -> str:
    """The context ``agent``'s (gemini's, qwen's) hook for ``event`` answers, run as
    installed, given ``transcript``."""
    module = {"gemini": test_gemini, "qwen": test_qwen}[agent]
    full = {"transcript_path": str(transcript), **payload}
    return module.context(module.run_hook(project, event, full))


def agent_read(agent: str, project: Path, transcript: Path, path: str) -> str:
    """What ``agent`` is told after its read_file tool read ``path``."""
    read = {"tool_name": "read_file", "tool_input": {"file_path": str(project / path)},
            "tool_response": {"llmContent": "", "returnDisplay": ""}}  # fmt: skip
    event = {"gemini": "AfterTool", "qwen": "PostToolUse"}[agent]
    return agent_hook(agent, project, transcript, event, **read)


def gemini_hook(project: Path, transcript: Path, event: str, **payload: object) -> str:
    return agent_hook("gemini", project, transcript, event, **payload)


def gemini_read(project: Path, transcript: Path, path: str) -> str:
    return agent_read("gemini", project, transcript, path)


def test_a_gemini_session_gone_back_is_shown_again_what_it_lost(repo: Path) -> None:
    project, transcript = gemini_session(repo)
    gemini_hook(project, transcript.path, "BeforeAgent", prompt="Look at the routes")
    first = transcript.prompt("Look at the routes")
    assert "Version the API with a header" in gemini_read(project, transcript.path, "api/routes.py")
    transcript.tool_round()
    gemini_hook(project, transcript.path, "BeforeAgent", prompt="Thanks")
    second = transcript.prompt("Thanks")
    transcript.message("gemini", "Done.")
    # back to before the second prompt: the first turn, and what it was shown, stay; the
    # digest goes (Gemini CLI leaves it out of the conversation it rebuilds): the next
    # prompt brings back its pinned and critical decision
    transcript.rewind_to(second)
    again = gemini_hook(project, transcript.path, "BeforeAgent", prompt="Thanks again")
    assert "Money is integer cents" in again and "your context lost them" in again
    transcript.prompt("Thanks again")
    assert gemini_read(project, transcript.path, "api/routes.py") == ""
    assert gemini_read(project, transcript.path, "billing/charge.py") == ""
    transcript.tool_round()
    # back to before the first: all of it goes; the prompt's own decisions come at once
    # (the rewind is written before the prompt's hook runs)
    transcript.rewind_to(first)
    asked = "How are the routes in api/routes.py versioned?"
    said = gemini_hook(project, transcript.path, "BeforeAgent", prompt=asked)
    assert "Version the API with a header" in said and "Money is integer cents" in said
    transcript.prompt(asked)
    assert gemini_read(project, transcript.path, "api/routes.py") == ""  # once
    assert gemini_read(project, transcript.path, "billing/charge.py") == ""
    assert not (project / ".git/gitmem/hook-errors.log").exists()


class QwenTranscript:
    """A chat file as Qwen Code writes it: JSON lines, each a record with ``uuid``,
    ``parentUuid``, ``sessionId``, ``timestamp``, ``type`` (and ``subtype``), chained."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.leaf: str | None = None
        self.count = 0
        self.turns: list[str | None] = []  # each prompt's parent
        path.write_text("")

    def record(self, kind: str, **fields: object) -> str:
        self.count += 1
        uid = f"{self.count:08x}-0000-4000-8000-000000000000"
        entry = {"uuid": uid, "parentUuid": self.leaf, "sessionId": "qwen-1",
                 "timestamp": stamp(), "type": kind, "cwd": "/w", "version": "0.24.4",
                 **fields}  # fmt: skip
        with self.path.open("a") as fh:
            fh.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self.leaf = uid
        return uid

    def prompt(self, text: str) -> None:
        self.turns.append(self.leaf)
        self.record("user", message={"role": "user", "parts": [{"text": text}]})
        self.record("system", subtype="file_history_snapshot", systemPayload={})

    def tool_round(self) -> None:
        self.record("assistant", message={"role": "model", "parts": [{"functionCall": {}}]})
        self.record("tool_result", message={"role": "user", "parts": [{"functionResponse": {}}]})
        self.record("assistant", message={"role": "model", "parts": [{"text": "Done."}]})

    def rewind_to(self, turn: int) -> None:
        """`/rewind` to before the prompt of ``turn`` (0: the first)."""
        self.leaf = self.turns[turn]
        self.turns = self.turns[:turn]
        self.record("system", subtype="rewind", systemPayload={"truncatedCount": 5})


def qwen_hook(project: Path, transcript: Path, event: str, **payload: object) -> str:
    return agent_hook("qwen", project, transcript, event, **payload)


def qwen_read(project: Path, transcript: Path, path: str) -> str:
    return agent_read("qwen", project, transcript, path)


def test_a_qwen_session_gone_back_is_shown_again_what_it_lost(repo: Path) -> None:
    """Qwen Code's digest is in its system prompt, which a rewind keeps (seen in 0.24.4):
    the digest's decisions stay shown, what came after the point is shown again."""
    from click.testing import CliRunner
    from conftest import agent_project

    from gitmem.cli.main import cli

    project = agent_project(repo)
    assert CliRunner().invoke(cli, ["install", "qwen"]).exit_code == 0
    transcript = QwenTranscript(project.parent / "chat.jsonl")
    digest = qwen_hook(project, transcript.path, "SessionStart", source="startup", model="m")
    assert "Money is integer cents" in digest
    qwen_hook(project, transcript.path, "UserPromptSubmit", prompt="Look at the routes")
    transcript.prompt("Look at the routes")
    assert "Version the API with a header" in qwen_read(project, transcript.path, "api/routes.py")
    transcript.tool_round()
    qwen_hook(project, transcript.path, "UserPromptSubmit", prompt="Thanks")
    transcript.prompt("Thanks")
    transcript.record("assistant", message={"role": "model", "parts": [{"text": "Done."}]})
    transcript.rewind_to(1)  # the first turn stays
    qwen_hook(project, transcript.path, "UserPromptSubmit", prompt="Thanks again")
    transcript.prompt("Thanks again")
    assert qwen_read(project, transcript.path, "api/routes.py") == ""
    transcript.tool_round()
    transcript.rewind_to(0)  # none stays but the system prompt
    asked = "How are the routes in api/routes.py versioned?"
    assert "Version the API with a header" in qwen_hook(
        project, transcript.path, "UserPromptSubmit", prompt=asked
    )
    transcript.prompt(asked)
    assert qwen_read(project, transcript.path, "api/routes.py") == ""  # once
    assert qwen_read(project, transcript.path, "billing/charge.py") == ""  # the digest's
    assert not (project / ".git/gitmem/hook-errors.log").exists()


class CodexRollout:
    """A Codex session's rollout files as Codex 0.171.0 writes them: numbered records
    (``{"timestamp":…,"ordinal":N,"type":…,"payload":…}``), a new file for the session
    at each rewind, its ``session_meta`` numbered as the first record cut."""

    def __init__(self, sessions: Path, sid: str) -> None:
        self.folder = sessions / "2026" / "11" / "28"
        self.folder.mkdir(parents=True)
        self.sid = sid
        self.next = 0
        self.turns: list[int] = []  # each turn's first number
        self.path = self._file("")

    def _file(self, thread: str) -> Path:
        name = f"rollout-2026-11-28T02-{len(self.turns):02d}-00-{self.sid}{thread}.jsonl"
        path = self.folder / name
        self.path = path
        self.record("session_meta", {"session_id": self.sid, "id": self.sid,
                                     "base_instructions": {"text": "x" * 300}})  # fmt: skip
        return path

    def record(self, kind: str, payload: dict[str, object]) -> None:
        line = {"timestamp": stamp(), "ordinal": self.next, "type": kind, "payload": payload}
        with self.path.open("a") as fh:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.next += 1

    def turn_starts(self) -> None:
        # the first turn's records begin with the file (the session's opening context,
        # the digest among it, is written in that turn: going back to it cuts them all)
        self.turns.append(self.next if self.turns else 0)
        self.record("event_msg", {"type": "task_started"})
        self.record("turn_context", {"cwd": "/w"})

    def prompt(self, text: str) -> None:
        self.record("response_item", {"type": "message", "role": "user",
                                      "content": [{"type": "input_text", "text": text}]})  # fmt: skip

    def turn_ends(self) -> None:
        self.record("response_item", {"type": "message", "role": "assistant"})
        self.record("event_msg", {"type": "task_complete"})

    def rewind_to(self, turn: int) -> None:
        """Esc Esc, the ``turn``'s prompt (0: the first), Enter: a new file."""
        self.next = self.turns[turn]
        self.turns = self.turns[:turn]
        self._file(f"_{turn:08x}-0000-7000-8000-000000000000")


def test_a_codex_session_gone_back_is_shown_again_what_it_lost(
    repo: Path, tmp_path: Path
) -> None:
    """Codex's backtrack (Esc Esc, Enter) goes on in a new rollout file and sends
    SessionStart ``resume`` naming it: the digest comes again where its decisions were
    cut, and a decision shown after the point is shown again; one shown before stays."""
    from click.testing import CliRunner
    from conftest import agent_project
    from test_codex import codex, context

    from gitmem.cli.main import cli

    project = agent_project(repo)
    assert CliRunner().invoke(cli, ["install", "codex"]).exit_code == 0
    rollout = CodexRollout(tmp_path / "sessions", "codex-1")

    def hook(event: str, **payload: object) -> str:
        return context(codex(project, event, {"transcript_path": str(rollout.path), **payload}))

    def turn(prompt: str, read: str | None = None) -> str:
        rollout.turn_starts()
        hook("UserPromptSubmit", prompt=prompt)
        rollout.prompt(prompt)
        said = ""
        if read:
            said = hook("PreToolUse", tool_name="Bash", tool_input={"command": f"cat {read}"})
        rollout.turn_ends()
        hook("Stop", stop_hook_active=False)
        return said

    assert "Money is integer cents" in hook("SessionStart", source="startup")
    assert "Version the API" in turn("Look at the routes", "api/routes.py")
    turn("Thanks")
    # back to before the second prompt: the first turn stays, and what it was shown
    rollout.rewind_to(1)
    assert hook("SessionStart", source="resume") == ""
    assert turn("Routes again", "api/routes.py") == ""
    # back to before the first: the digest comes again, and the API decision after a read
    rollout.rewind_to(0)
    assert "Money is integer cents" in hook("SessionStart", source="resume")
    assert "Version the API" in turn("Routes once more", "api/routes.py")
    # a plain `codex resume` goes on in the file it names: nothing was cut
    assert hook("SessionStart", source="resume") == ""
    assert turn("And again", "api/routes.py") == ""
    assert not (project / ".git/gitmem/hook-errors.log").exists()


def test_two_conversations_set_in_one_read_are_one_cut() -> None:
    """Two `$set`s read at once (a rewind, then a cancelled turn): from the earlier point
    to the later end, the digest cut if either cut it."""
    a = {"since": 10.0, "until": 20.0}
    b = {"since": 15.0, "until": 30.0, "digest": False}
    assert rewind._earlier(a, b) == {"since": 10.0, "until": 30.0, "digest": False}
    assert rewind._earlier(a, {"since": 12.0}) == {"since": 10.0}  # no end: none
    assert rewind._earlier(None, a) == a and rewind._earlier(a, None) == a


def test_the_runner_reads_the_rewinds_of_the_agents_with_a_reader() -> None:
    """runner.REWINDS is kept in step with rewind.READERS (the runner does not import
    rewind for the other agents' hooks)."""
    from gitmem.agent import runner

    assert set(runner.REWINDS) == set(rewind.READERS)


@pytest.mark.parametrize("at", ["1795843327167", True, -1, None])
def test_an_plugin_revert_is_noted_only_given_its_time(at: object, tmp_path: Path) -> None:
    """gitmem's OpenCode plugin sends when the first message a revert cut was created
    (``rewound_at``, ms): what was shown from then on counts as not shown. Anything else
    in that field is passed over (fail open), as is a subagent's task."""
    from gitmem.agent import state

    shared = str(tmp_path)
    shown_at = time.time()
    with state.open_session(shared, "ses_1") as session:
        session.append("shown", ids=["D-0001"], event="prompt")
    payload = {"session_id": "ses_1", "rewound_at": at}
    assert not rewind.plugin_revert(shared, payload)
    assert not rewind.plugin_revert(shared, {**payload, "rewound_at": 1, "parent_agent_id": "s"})
    assert state.read_view(shared, "ses_1").shown == {"D-0001"}
    assert rewind.plugin_revert(shared, {**payload, "rewound_at": int(shown_at * 1000) + 500})
    assert state.read_view(shared, "ses_1").shown == {"D-0001"}  # shown before the cut
    assert rewind.plugin_revert(shared, {**payload, "rewound_at": int(shown_at * 1000)})
    assert state.read_view(shared, "ses_1").shown == set()


def test_a_qwen_prompt_cancelled_at_once_is_shown_its_decisions_again(repo: Path) -> None:
    """Esc before Qwen Code's model answers: the prompt leaves the conversation (its
    record stays, with no answer after it) and comes back to the input. Sent again, it
    gets its decisions again (before session 47: nothing, taken for shown). A prompt that
    was answered, or a rewind's record after it, is no such thing."""
    from click.testing import CliRunner
    from conftest import agent_project

    from gitmem.cli.main import cli

    project = agent_project(repo)
    assert CliRunner().invoke(cli, ["install", "qwen"]).exit_code == 0
    transcript = QwenTranscript(project.parent / "chat.jsonl")
    qwen_hook(project, transcript.path, "SessionStart", source="startup", model="m")
    asked = "How are the routes in api/routes.py versioned?"
    for _ in range(2):  # the first prompt cancelled, then a later one
        said = qwen_hook(project, transcript.path, "UserPromptSubmit", prompt=asked)
        assert "Version the API with a header" in said, said
        transcript.prompt(asked)  # written after its hook; Esc: no answer
    said = qwen_hook(project, transcript.path, "UserPromptSubmit", prompt=asked)
    assert "Version the API with a header" in said and "Money" not in said  # the digest stays
    transcript.prompt(asked)
    transcript.tool_round()  # answered
    assert qwen_hook(project, transcript.path, "UserPromptSubmit", prompt=asked) == ""
    transcript.prompt(asked)
    transcript.record("system", subtype="ui_telemetry", systemPayload={})
    transcript.record("assistant", message={"role": "model", "parts": [{"text": "Done."}]})
    transcript.record("system", subtype="ui_telemetry", systemPayload={})
    assert qwen_hook(project, transcript.path, "UserPromptSubmit", prompt=asked) == ""
    assert not (project / ".git/gitmem/hook-errors.log").exists()


def test_lines_are_read_back_whole_across_blocks() -> None:
    """The backwards reader behind Qwen Code's and Copilot CLI's end-of-file checks:
    every line once, whole, the last first, lines longer than a block included."""
    import io
    import random

    from gitmem.agent.rewind import _lines_back

    lines = [b"x" * random.Random(i).randint(0, 40000) + str(i).encode() for i in range(300)]
    data = b"\n".join(lines) + b"\n"
    got = [line for line in _lines_back(io.BytesIO(data), len(data), len(data)) if line]
    assert got == lines[::-1]
