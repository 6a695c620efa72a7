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
