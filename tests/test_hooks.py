"""Claude Code hooks through the real console script, fail-open fuzzing, install/uninstall,
the plugin files, doctor and the MCP server."""

from __future__ import annotations

import io
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import (
    MONEY_RULE,
    SANDBOX_HOME,
    age_deliveries,
    commit_all,
    conflicted_merge,
    decision,
    git,
    run_gitmem,
    tag_text,
    write,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem import __version__
from gitmem.agent import install, runner, shellcommits, shelldiffs, shelledits, state, toolpaths
from gitmem.cli.main import cli
from gitmem.repo import discover

GITMEM = shutil.which("gitmem")
GITMEM_HOOK = shutil.which("gitmem-hook")
ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(
    GITMEM is None or GITMEM_HOOK is None, reason="gitmem and gitmem-hook are not installed"
)


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "billing/experimental/fx.py", "")
    write(repo, "api/routes.py", "")
    write(repo, "docs/readme.md", "")
    decision(
        repo,
        "0001-money.md",
        "Money is integer cents",
        globs=["billing/**", "!billing/experimental/**"],
        extra="severity: critical\npin: true\n",
        body="## Decision\n\nAmounts are integer cents; floats are never used for money.\n",
    )
    decision(
        repo,
        "0002-api.md",
        "Version the API with a header",
        globs=["api/**"],
        body="## Decision\n\nClients send a Paydash-Version header.\n",
    )
    decision(
        repo,
        "0003-kafka.md",
        "Kafka carries domain events",
        body="## Decision\n\nDomain events go through Kafka topics.\n",
    )
    commit_all(repo, "decisions")
    return repo


def hook(
    event: str, payload: object, cwd: Path, raw: str | None = None, *, console: bool = False
) -> tuple[int, str, str]:
    """Run a hook event as Claude Code does: `gitmem-hook claude EVENT` (or, with
    ``console``, the `gitmem hook claude EVENT` form older installs and Windows use)."""
    data = raw if raw is not None else json.dumps(payload)
    env = {**os.environ, "HOME": SANDBOX_HOME}
    command = [str(GITMEM), "hook"] if console else [str(GITMEM_HOOK)]
    proc = subprocess.run(
        [*command, "claude", event],
        input=data,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    return proc.returncode, proc.stdout, proc.stderr


def tool_call(session: str, root: Path, path: str, tool: str = "Read") -> dict[str, object]:
    """A PreToolUse payload as Claude Code sends it, for ``tool`` on ``root / path``."""
    return {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"file_path": str(root / path)},
    }


def capture_wal(project: Path, session: str) -> str:
    from gitmem import capture

    return capture.wal_path(discover(project), session)


def context_of(stdout: str) -> str:
    if not stdout:
        return ""
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"]


TOOL_SHAPES = [
    ("Read", {"file_path": "{root}/billing/charge.py"}, "D-0001"),
    (
        "Edit",
        {"file_path": "{root}/billing/charge.py", "old_string": "1", "new_string": "2"},
        "D-0001",
    ),
    ("Write", {"file_path": "{root}/billing/new_file.py", "content": "y = 2"}, "D-0001"),
    (
        "MultiEdit",
        {
            "file_path": "{root}/billing/charge.py",
            "edits": [{"old_string": "1", "new_string": "3"}],
        },
        "D-0001",
    ),
    ("NotebookEdit", {"notebook_path": "{root}/api/nb.ipynb", "new_source": "x"}, "D-0002"),
    ("Grep", {"pattern": "money", "path": "{root}/billing"}, "D-0001"),
    ("Grep", {"pattern": "x", "glob": "api/**/*.py"}, "D-0002"),
    ("Glob", {"pattern": "api/**/*.py"}, "D-0002"),
    ("LS", {"path": "{root}/api"}, "D-0002"),
    ("Bash", {"command": "cat billing/charge.py | grep -n cents && echo done"}, "D-0001"),
    ("Bash", {"command": "sed -i 's/a/b/' 'api/routes.py'"}, "D-0002"),
    ("Bash", {"command": "cd billing && sed -i 's/1/2/' charge.py"}, "D-0001"),
    ("Bash", {"command": "cd api\ncat > routes.py <<'EOF'\nx = 1\nEOF"}, "D-0002"),
    ("mcp__fs__read_file", {"path": "{root}/api/routes.py"}, "D-0002"),
    ("Read", {"file_path": "{root}\\billing\\charge.py"}, "D-0001"),
]


@pytest.mark.parametrize(("tool", "tool_input", "expected"), TOOL_SHAPES)
def test_pre_tool_every_tool_shape(
    project: Path, tool: str, tool_input: dict[str, object], expected: str
) -> None:
    filled = json.loads(
        json.dumps(tool_input).replace("{root}", str(project).replace("\\", "\\\\"))
    )
    payload = {
        "session_id": f"s-{tool}-{len(str(tool_input))}",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": filled,
        "tool_use_id": "t1",
        "transcript_path": "/dev/null",
        "permission_mode": "default",
    }
    code, out, err = hook("pre-tool", payload, project)
    assert code == 0 and err == ""
    text = context_of(out)
    assert f"Project decision {expected} (accepted" in text
    assert len(out) <= 8000


def test_a_glob_that_backtracks_does_not_hold_the_hook(repo: Path) -> None:
    """Globs compile to regular expressions, and Python's `re` backtracks: with many `*`
    in one name (`*a*a*a*a*a*b`), a long name that does not match may take it minutes
    (`*a*a*a*a*b` took 7.4 s on 100 characters; this one, on 200, longer than the 60 s
    this test waits). Such patterns run on RE2: the hook answers, with the other decision,
    and the pattern still governs what it matches."""
    name = "a" * 200 + ".py"
    write(repo, f"src/{name}", "")
    write(repo, "src/a_a_a_a_a_b", "")
    decision(repo, "0001-src.md", "Source layout", globs=["src/**"])
    decision(repo, "0002-odd.md", "Odd names", globs=["*a*a*a*a*a*b"])
    commit_all(repo, "decisions")
    payload = {"session_id": "s1", "cwd": str(repo), "tool_name": "Read"}
    code, out, err = hook(
        "pre-tool", {**payload, "tool_input": {"file_path": str(repo / "src" / name)}}, repo
    )
    assert code == 0 and err == ""
    assert "D-0001" in context_of(out) and "D-0002" not in out
    code, out, err = hook(
        "pre-tool", {**payload, "tool_input": {"file_path": str(repo / "src/a_a_a_a_a_b")}}, repo
    )
    assert code == 0 and err == "" and "D-0002" in context_of(out)


def test_pre_tool_nothing_matched_is_empty_and_dedup(project: Path) -> None:
    base = {"session_id": "s1", "cwd": str(project), "tool_name": "Read"}
    code, out, _ = hook(
        "pre-tool", {**base, "tool_input": {"file_path": str(project / "docs/readme.md")}}, project
    )
    assert code == 0 and out == ""
    code, out, _ = hook(
        "pre-tool",
        {**base, "tool_input": {"file_path": str(project / "billing/experimental/fx.py")}},
        project,
    )
    assert out == ""  # the negated glob: nothing governs the experimental folder
    payload = {**base, "tool_input": {"file_path": str(project / "billing/charge.py")}}
    assert "D-0001" in context_of(hook("pre-tool", payload, project)[1])
    assert hook("pre-tool", payload, project)[1] == ""  # shown once per session
    assert "D-0001" in context_of(hook("pre-tool", {**payload, "session_id": "s2"}, project)[1])
    # a subagent (Claude Code's agent_id) has a context window of its own: once per subagent
    sub = {**payload, "agent_id": "a1", "agent_type": "general-purpose"}
    assert "D-0001" in context_of(hook("pre-tool", sub, project)[1])
    assert hook("pre-tool", sub, project)[1] == ""
    assert "D-0001" in context_of(hook("pre-tool", {**sub, "agent_id": "a2"}, project)[1])
    assert hook("pre-tool", payload, project)[1] == ""  # the main agent's set is unchanged
    from gitmem.agent import state
    from gitmem.repo import discover

    view = state.read_view(discover(project).shared_state_dir, "s1")
    assert view.shown == {"D-0001"} and view.all_shown == {"D-0001"}
    assert state.read_view(discover(project).shared_state_dir, "s1", "a3").shown == set()


def test_pre_tool_from_subdirectory_and_linked_worktree(project: Path, tmp_path: Path) -> None:
    from conftest import git

    payload = {
        "session_id": "w",
        "cwd": str(project / "billing"),
        "tool_name": "Read",
        "tool_input": {"file_path": "charge.py"},
    }
    assert "D-0001" in context_of(hook("pre-tool", payload, project / "billing")[1])
    wt = tmp_path / "wt"
    git(project, "worktree", "add", "-q", str(wt), "-b", "feature")
    payload = {
        "session_id": "w2",
        "cwd": str(wt),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(wt / "api" / "routes.py")},
    }
    assert "D-0002" in context_of(hook("pre-tool", payload, wt)[1])


def test_session_start_prompt_post_tool_stop_end(project: Path) -> None:
    sid = "full"
    code, out, _ = hook(
        "session-start", {"session_id": sid, "cwd": str(project), "source": "startup"}, project
    )
    start = context_of(out)
    assert code == 0 and "Pinned and critical project decisions" in start and "D-0001" in start
    # uncommitted change under api/: its decision is in the digest too
    write(project, "api/routes.py", "changed = True\n")
    code, out, _ = hook(
        "session-start", {"session_id": "other", "cwd": str(project), "source": "startup"}, project
    )
    assert "files changed on this branch or uncommitted" in context_of(
        out
    ) and "D-0002" in context_of(out)
    code, out, _ = hook(
        "prompt",
        {
            "session_id": sid,
            "cwd": str(project),
            "prompt": "how do domain events flow through kafka?",
        },
        project,
    )
    assert code == 0 and "D-0003" in context_of(out)
    # already shown in this session: not injected again
    code, out, _ = hook(
        "prompt",
        {"session_id": sid, "cwd": str(project), "prompt": "kafka topics for domain events"},
        project,
    )
    assert "D-0003" not in context_of(out)
    # post-tool: an edit under a governed path not yet shown injects it; reads are recorded
    post = {
        "session_id": sid,
        "cwd": str(project),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(project / "api/routes.py")},
        "tool_response": {"success": True},
    }
    assert "D-0002" in context_of(hook("post-tool", post, project)[1])
    read = {
        **post,
        "tool_name": "Read",
        "tool_input": {"file_path": str(project / "billing/charge.py")},
    }
    assert hook("post-tool", read, project)[1] == ""
    # after compaction, what was shown is offered again
    code, out, _ = hook(
        "session-start", {"session_id": sid, "cwd": str(project), "source": "compact"}, project
    )
    assert "Decisions shown earlier in this session" in context_of(out) or "D-0003" in context_of(
        out
    )
    assert hook(
        "stop", {"session_id": sid, "cwd": str(project), "stop_hook_active": False}, project
    ) == (0, "", "")
    assert hook(
        "session-end", {"session_id": sid, "cwd": str(project), "reason": "exit"}, project
    ) == (0, "", "")
    view = state.read_view(discover(project).shared_state_dir, sid)
    assert "api/routes.py" in view.edited and "billing/charge.py" in view.read and view.closed
    subprocess.run(["git", "status", "--porcelain"], cwd=project, check=True)


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "not json",
        "[1, 2]",
        '{"tool_input": 5}',
        '{"cwd": 7, "session_id": null}',
        '{"tool_name": "Bash", "tool_input": {"command": "echo \\"unbalanced"}}',
        "\x00\xff",
    ],
)
def test_malformed_stdin_fails_open(project: Path, raw: str) -> None:
    for event in (
        "pre-tool",
        "prompt",
        "session-start",
        "post-tool",
        "stop",
        "session-end",
        "no-such-event",
    ):
        code, out, err = hook(event, None, project, raw=raw)
        assert code == 0 and err == ""
        assert out == "" or isinstance(json.loads(out), dict)


def test_errors_are_logged_for_doctor(project: Path) -> None:
    hook("pre-tool", None, project, raw="not json")
    for name in ("table.sqlite", "pathmap.bin"):  # rebuilt, not fatal
        (project / ".git" / "gitmem" / name).write_bytes(b"corrupt")
    payload = {
        "session_id": "e",
        "cwd": str(project),
        "tool_name": "Read",
        "tool_input": {"file_path": str(project / "billing/charge.py")},
    }
    assert "D-0001" in context_of(hook("pre-tool", payload, project)[1])
    result = CliRunner().invoke(cli, ["doctor", "--no-model", "--json"])
    data = json.loads(result.stdout)
    assert any("stdin is not valid JSON" in line for line in data["errors"])
    assert "pre-tool" in data["last_events"]


def test_the_next_session_start_tells_the_user_of_hook_errors(project: Path) -> None:
    """Hooks fail open, and the reason went to a log only `gitmem doctor` read: a user who
    never ran it never learnt that a hook failed on every call. The next session start
    tells the user (systemMessage, not the agent's context), once, and not at a
    compaction; a rotated log is read from its start."""

    def start(source: str = "startup") -> dict[str, Any]:
        payload = {"session_id": f"s-{source}-{time.time()}", "cwd": str(project), "source": source}
        code, out, err = hook("session-start", payload, project)
        assert code == 0 and err == "", err
        return json.loads(out) if out else {}

    told = "errors in gitmem's hooks"
    assert told not in json.dumps(start())
    for _ in range(2):
        hook("pre-tool", None, project, raw="not json")
    answer = start()
    message = answer["systemMessage"]
    assert message.startswith("gitmem: 2 errors in gitmem's hooks since 20"), message
    assert (
        "(each let your work go on); the last, at 20" in message
        and "claude pre-tool: ValueError: stdin is not valid JSON" in message
        and message.endswith("`gitmem doctor` shows the latest.")
    ), message
    assert told not in json.dumps(answer["hookSpecificOutput"])  # the agent is not told
    assert "systemMessage" not in start()  # told once

    hook("pre-tool", None, project, raw="[1")
    assert "systemMessage" not in start("compact")
    message = start("clear")["systemMessage"]
    assert message.startswith("gitmem: a hook of gitmem's failed at 20"), message
    assert (
        "(it let your work go on): claude pre-tool: ValueError: stdin is not valid JSON" in message
    )

    # rotated (runner.MAX_LOG_BYTES): the new log is smaller than what was told
    log = project / ".git" / "gitmem" / "hook-errors.log"
    log.rename(log.with_name("hook-errors.log.1"))
    hook("pre-tool", None, project, raw="{")
    assert "a hook of gitmem's failed at" in start()["systemMessage"]


def test_a_command_at_a_terminal_tells_of_hook_errors_and_doctor_counts_them_told(
    project: Path,
) -> None:
    """For the users of agents that show no systemMessage: the next gitmem command run at
    a terminal (stderr a TTY: the real `gitmem` through a pseudo-terminal) tells of them,
    once. One whose stderr no person reads (an agent's command, a pipe) does not, and
    leaves them to be told; `gitmem doctor` shows them, and counts them as told."""
    import pty

    def at_a_terminal(*args: str) -> str:
        leader, follower = pty.openpty()
        try:
            proc = subprocess.run(
                [str(GITMEM), *args],
                cwd=project,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=follower,
                env={**os.environ, "HOME": SANDBOX_HOME, "COLUMNS": "400", "NO_COLOR": "1"},
                timeout=60,
            )
            assert proc.returncode == 0
            os.close(follower)
            said = b""
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # EIO: the terminal's other end is closed, all read
                    break
                if not chunk:
                    break
                said += chunk
            return said.decode()
        finally:
            os.close(leader)

    hook("pre-tool", None, project, raw="not json")
    piped = subprocess.run(
        [str(GITMEM), "why", "billing/charge.py"], cwd=project, capture_output=True, text=True
    )
    assert piped.returncode == 0 and "errors in gitmem" not in piped.stderr
    said = at_a_terminal("why", "billing/charge.py")
    assert "warning: a hook of gitmem's failed at 20" in said, said
    assert "claude pre-tool: ValueError: stdin is not valid JSON" in said
    assert "hook of gitmem" not in at_a_terminal("why", "billing/charge.py")  # told once

    hook("pre-tool", None, project, raw="[")
    doctor = subprocess.run(
        [str(GITMEM), "doctor", "--no-model"], cwd=project, capture_output=True, text=True
    )
    assert "claude pre-tool: ValueError: stdin is not valid JSON" in doctor.stdout
    assert "hook of gitmem" not in at_a_terminal("why", "billing/charge.py")
    payload = {"session_id": "after-doctor", "cwd": str(project), "source": "startup"}
    assert "systemMessage" not in json.loads(hook("session-start", payload, project)[1])


SLOW = """\
import time
import gitmem.agent.runner, gitmem.agent.tooluse

gitmem.agent.runner.SLOW_S = 0.2
pre_tool = gitmem.agent.tooluse.pre_tool

def slow(*args, **kwargs):
    time.sleep(1.0)
    return pre_tool(*args, **kwargs)

gitmem.agent.tooluse.pre_tool = slow
"""


def test_a_hook_near_the_agents_timeout_is_logged_and_told(project: Path, tmp_path: Path) -> None:
    """An agent kills a hook at its timeout (runner.TIMEOUT_S) and goes on without its
    answer, and the killed hook wrote nothing. A hook still running at runner.SLOW_S says
    so in the error log, goes on, and answers; the next session start tells the user.
    Here the installed gitmem-hook, made slow (and SLOW_S short) by a sitecustomize
    module on PYTHONPATH."""
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text(SLOW)
    proc = subprocess.run(
        [str(GITMEM_HOOK), "claude", "pre-tool"],
        input=json.dumps(tool_call("slow", project, "billing/charge.py")),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": SANDBOX_HOME, "PYTHONPATH": str(slow)},
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "D-0001" in context_of(proc.stdout)  # it went on, and answered
    log = (project / ".git" / "gitmem" / "hook-errors.log").read_text()
    assert "claude pre-tool: still running after 0.2 s (agents stop gitmem's hooks at 10 s" in log
    payload = {"session_id": "after-slow", "cwd": str(project), "source": "startup"}
    message = json.loads(hook("session-start", payload, project)[1])["systemMessage"]
    assert "claude pre-tool: still running after 0.2 s" in message, message

    hook("pre-tool", tool_call("fast", project, "billing/charge.py"), project)
    assert log == (project / ".git" / "gitmem" / "hook-errors.log").read_text()  # in time


def test_doctor_reads_when_each_hook_last_ran(project: Path) -> None:
    """The status file is overwritten in place (runner.STATUS_BYTES), not replaced: each
    write must cover the one before, longer or shorter, so that doctor reads the latest."""
    status = project / ".git" / "gitmem" / "hook-status"
    status.mkdir(parents=True, exist_ok=True)
    # as an earlier version wrote it (whole), and longer than a write now is
    (status / "claude-prompt.json").write_text(json.dumps({"time": 1.0, "ms": 1.0, "x": "y" * 200}))
    (status / "claude-pre-tool.json").write_text('{"time": 2.0, "ms": 12345678.25}')
    for event, payload in (
        ("pre-tool", tool_call("st", project, "billing/charge.py")),
        ("prompt", {"session_id": "st", "cwd": str(project), "prompt": "hello"}),
    ):
        before = time.time()
        assert hook(event, payload, project)[0] == 0
        data = json.loads((status / f"claude-{event}.json").read_text())
        assert data["time"] >= before and 0 < data["ms"] < 60_000
    result = CliRunner().invoke(cli, ["doctor", "--no-model", "--json"])
    last = json.loads(result.stdout)["last_events"]
    assert last["pre-tool"]["time"] >= before - 60 and last["prompt"]["time"] >= before


def test_outside_a_repository(tmp_path: Path) -> None:
    code, out, err = hook(
        "pre-tool",
        {"cwd": str(tmp_path), "tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}},
        tmp_path,
    )
    assert (code, out, err) == (0, "", "")


def test_a_repository_without_decisions_gets_nothing_written(repo: Path) -> None:
    """Hooks installed for the user run in every repository the agent opens. In one that
    keeps no decisions they answer nothing and, since session 27, write nothing either:
    before, each got a `.git/gitmem/` with hook-status files and a session file per
    session, growing by a few lines every turn and never tidied."""
    write(repo, "a.py", "x = 1\n")
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(repo / "a.py")}}
    for event in ("session-start", "prompt", "pre-tool", "post-tool", "stop", "session-end"):
        payload = {"session_id": "s1", "cwd": str(repo), "prompt": "fix a.py", **edit}
        assert hook(event, payload, repo) == (0, "", ""), event
    assert not (repo / ".git" / "gitmem").exists()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
payloads = st.fixed_dictionaries(
    {},
    optional={
        "session_id": st.text(max_size=30) | st.integers(),
        "cwd": st.text(max_size=30) | st.integers(),
        "tool_name": st.sampled_from(
            [
                "Read",
                "Edit",
                "Write",
                "MultiEdit",
                "NotebookEdit",
                "Grep",
                "Glob",
                "LS",
                "Bash",
                "mcp__x__y",
                "Other",
            ]
        )
        | st.text(max_size=10),
        "tool_input": json_values,
        "prompt": st.text(max_size=200) | json_values,
        "source": st.sampled_from(["startup", "resume", "clear", "compact"]) | st.text(max_size=8),
    },
)


def test_inputs_that_once_outlasted_the_hooks_timeout(project: Path) -> None:
    """What an agent sends in ordinary work, at sizes it does: a heredoc writing a file of
    base64 (whose "/" made it a path of hundreds of folders, each leading folder hashed
    from scratch), a pasted minified run ("x.x.x…", which the URL pattern rescanned from
    every word), a long path-like token and a pasted list of 40,000 file names. Before
    session 40 each kept a hook past the 10 s the installed hooks allow (from 11 s to many
    minutes, measured), so Claude Code killed it: no decision reached the agent, and the
    heredoc's critical rule went unchecked. The bound asserted is the agent's own
    timeout, not a performance target (those are in benchmarks/)."""
    import base64

    blob = base64.b64encode(bytes(range(256)) * 800).decode()  # 273,068 characters
    heredoc = f"cat > billing/rates.py <<'EOF'\nrate = float(1)\n{blob}\nEOF"
    calls = {
        "pre-tool": {**tool_call("big-1", project, "x"), "tool_name": "Bash",
                     "tool_input": {"command": heredoc}},
        "prompt": {"session_id": "big-2", "cwd": str(project), "prompt": ".".join("x" * 100_000)},
    }  # fmt: skip
    prompts = {
        "big-3": "/".join(["a"] * 50_000) + " and billing/charge.py",
        "big-4": " ".join(f"billing/f{i}.py" for i in range(40_000)),
    }
    for sid, text in prompts.items():
        calls[f"prompt {sid}"] = {"session_id": sid, "cwd": str(project), "prompt": text}
    for name, payload in calls.items():
        started = time.monotonic()
        code, out, err = hook(name.split()[0], payload, project)
        took = time.monotonic() - started
        assert code == 0 and err == "" and took < install.TIMEOUT_S, (name, code, err, took)
        if name != "prompt":  # each but the blob names a billing file: D-0001 governs it
            assert "D-0001" in context_of(out), name


@settings(
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    event=st.sampled_from(
        ["pre-tool", "post-tool", "prompt", "session-start", "stop", "session-end", "bogus"]
    ),
    payload=payloads | json_values,
    garble=st.booleans(),
)
def test_fuzz_hook_entry_point_never_fails(
    project: Path, event: str, payload: object, garble: bool
) -> None:
    """The console script's function, in-process (thousands of fresh processes would take
    minutes); the subprocess tests above cover the real process boundary."""
    raw = json.dumps(payload)
    if garble:
        raw = raw[: len(raw) // 2]
    out = io.StringIO()
    code = runner.run("claude", event, stdin=io.BytesIO(raw.encode()), stdout=out)
    assert code == 0
    text = out.getvalue()
    assert text == "" or (isinstance(json.loads(text), dict) and len(text) <= 8200)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab/. '\"\\;&|<>()\n$=-", max_size=16))
def test_shell_words_split_like_shlex(command: str) -> None:
    """`shlex` (posix, punctuation) is the reference, except that a `#` inside a word is
    not a comment (as in a real shell), so commands with `#` are left out here."""
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        want = list(lexer)
    except ValueError:  # unbalanced quotes: shlex refuses, we read to the end
        return
    assert toolpaths.shell_words(command) == want


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("cd 'my dir' && sed -i s/a/b/ 'a b.py'", ["my dir/s/a/b/", "my dir/a b.py"]),
        ("cd src\nvi a.py", ["src/a.py"]),
        ("(cd web && npm test app/x.ts) && cat README.md", ["web/app/x.ts", "README.md"]),
        ("(cd a && cat x.py); cat y.py", ["a/x.py", "y.py"]),  # `);` is one word
        ("pushd a; vi b.py; popd; vi c.py", ["a/b.py", "c.py"]),
        ("cd a; cd ../b && cat c.py", ["a/../b", "a/../b/c.py"]),
        ("cd /abs/dir && cat x.py", ["/abs/dir", "/abs/dir/x.py"]),
        ("cd -P lib/ && cat x.py", ["lib/", "lib/x.py"]),
        ("cd && cat x.py", []),  # home, ~, -, $VAR: unknown, so relative words are dropped
        ("cd ~/p && cat x.py /etc/hosts", ["/etc/hosts"]),
        ("cd $DIR; cat x.py", []),
        ("echo cd foo && cat x.py", ["x.py"]),  # `cd` as an argument moves nothing
        ("cat a.py > cd", ["a.py", "cd"]),  # a file named cd, written to
        # bare names are paths after the commands that take them (the hooks keep those
        # that exist or that a decision governs)
        ("git mv billing payments", ["billing", "payments"]),
        ("sudo rm -r billing && npm test", ["billing"]),
        ("cd api && ls v2; git checkout main", ["api/v2"]),
        # a here-document's body is no words: before session 43 its apostrophe opened a
        # quote that hid the rest of the command
        (
            "cat > notes.md <<'EOF'\ndon't\nEOF\nsed -i s/a/b/ billing/x.py",
            ["notes.md", "s/a/b/", "billing/x.py"],
        ),
        # ... but its path words are read, after the command's (a script's paths)
        ("cat <<-EOF | cat\n\tx.py\n\tEOF\ncat y.py", ["y.py", "x.py"]),
        ("cd svc && python3 - <<'PY'\nopen('billing/x.py', 'w')\nPY", ["svc/billing/x.py"]),
        # ... and so are those of the code an interpreter is given (since session 49)
        ("cd svc && python3 -c \"open('billing/x.py', 'a')\"", ["svc/billing/x.py"]),
        (
            "python3.12 -Bc 'import json; open(\"a/b.json\")' out.txt",
            ["python3.12", "out.txt", "a/b.json"],
        ),
        # (words like paths that name no file are dropped later, as a script's are)
        ("node -e \"require('fs').rmSync('dist/app.js')\"", [".rmSync", "dist/app.js"]),
        ("perl -ne 'print if /x/' src/a.pl", ["src/a.pl", "/x/"]),
        ("ruby --version && ruby -e 'File.write(\"lib/v.rb\", 1)'", ["File.write", "lib/v.rb"]),
        # a command given to a shell as a string is walked too, from where it starts
        ("cd svc && bash -lc 'cd api && cat x.py'", ["svc/api/x.py"]),
        ('timeout -k 5 2.5m sh -c "cat a.py"; cat b.py', ["a.py", "b.py"]),
        ("bash scripts/run.sh", ["scripts/run.sh"]),
    ],
)
def test_bash_words_follow_cd(command: str, words: list[str]) -> None:
    assert toolpaths.bash_words(command) == words


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("sed -i 's/1/2/' billing/charge.py", ["s/1/2/", "billing/charge.py"]),
        ("sed -n 1p billing/charge.py", []),  # printed, not edited
        ("cd billing && sed -i.bak s/1/2/ charge.py", ["billing/s/1/2/", "billing/charge.py"]),
        ("perl -pi -e 's/a/b/' x.pl", ["x.pl"]),  # its code is no file (session 49)
        ("perl -Mstrict -e 1 x.pl", []),  # -M takes the rest of its word: no -i there
        ("echo x > notes.txt && cat a.py >> log/out.txt 2>&1", ["notes.txt", "log/out.txt"]),
        ("cat a.py > /dev/null", []),
        ("sort < in.txt > out.txt", ["out.txt"]),  # an input is read
        ("tee out.log < in.txt", ["out.log"]),
        ("cp -r src/ dest/ && rm -f x.py", ["dest/", "x.py"]),  # a copy's source is read
        ("mv a.py b.py", ["a.py", "b.py"]),  # a move removes its source
        ("git mv billing payments; git add payments", ["billing", "payments"]),
        ("python gen.py > out/api.json", ["out/api.json"]),  # what gen.py writes: not known
        ("cat <<EOF > gen.py\nx = 1\nEOF", ["gen.py"]),
        (
            "cat > clean.sh <<'EOF'\nrm -rf build\nEOF\nchmod +x clean.sh",
            ["clean.sh"],
        ),  # not `build`
        ("timeout 60 bash -c 'sed -i s/1/2/ billing/charge.py'", ["s/1/2/", "billing/charge.py"]),
        # since session 51: a download's target, dd's `of=`, sponge, gawk's in-place edit,
        # and a file `git checkout` takes from another commit
        ("curl -sSLo billing/rates.py https://x/r.py && cat a.py", ["billing/rates.py"]),
        ("curl https://x/r.py --output=billing/rates.py", ["billing/rates.py"]),
        ("curl -H 'A: b' https://x/r.py -o billing/rates.py", ["billing/rates.py"]),
        ("wget -qO billing/rates.py https://x/r.py", ["billing/rates.py"]),
        ("wget -qO- https://x/r.py | sponge billing/rates.py", ["billing/rates.py"]),
        ("dd if=a/b.bin of=billing/rates.bin bs=1k", ["billing/rates.bin"]),
        ("awk -i inplace '{print}' billing/rates.py; awk -F, 1 x.csv", ["billing/rates.py"]),
        ("git checkout main -- billing/rates.py", ["billing/rates.py"]),
        ("curl -O https://x/r.py; wget -o log.txt https://x/r.py", []),  # a name of the URL; a log
    ],
)
def test_bash_writes(command: str, written: list[str]) -> None:
    """The words a shell command writes; the hooks keep those that exist or that a
    decision governs, so a sed script (`s/1/2/`) or a missing path drops out."""
    assert toolpaths.bash_writes(command) == written


def test_a_file_changed_by_a_shell_command_is_an_edit_of_the_session(project: Path) -> None:
    """`sed -i` and a redirection change files as an Edit does: the session's edits name
    them (so `gitmem why`, `sessions --edited` and the commit trailer do), and the files
    the command only read stay reads. Before, every file a shell command named was a
    read."""
    call = {"session_id": "sh1", "cwd": str(project), "tool_name": "Bash"}
    command = "sed -i 's/1/2/' billing/charge.py && cat api/routes.py > docs/copy.md"
    subprocess.run(command, shell=True, cwd=project, check=True)  # the call, then its hook
    assert hook("post-tool", {**call, "tool_input": {"command": command}}, project)[0] == 0
    view = state.read_view(discover(project).shared_state_dir, "sh1")
    assert sorted(view.edited) == ["billing/charge.py", "docs/copy.md"]
    assert view.read == ["api/routes.py"]
    git_ = {**call, "session_id": "sh2", "tool_input": {"command": "git status && ls api"}}
    assert hook("post-tool", git_, project)[0] == 0
    view = state.read_view(discover(project).shared_state_dir, "sh2")
    assert view.edited == [] and view.read == ["api"]
    # a decision record written through the shell is read as the index will, as after Write
    record = ".continuity/decisions/0009-queue.md"
    heredoc = f"cat > {record} <<EOF\n---\ntitle: Webhooks: always queued\n---\nQueue.\nEOF"
    subprocess.run(heredoc, shell=True, cwd=project, check=True)
    written = {**call, "session_id": "sh3", "tool_input": {"command": heredoc}}
    note = context_of(hook("post-tool", written, project)[1])
    assert f"{record}:2: front-matter: invalid YAML" in note
    # a diff applied from a file (since session 43): the files it changed, not the patch
    (project / "fix.patch").write_text(
        "--- a/billing/charge.py\n+++ b/billing/charge.py\n@@ -1 +1 @@\n-x = 2\n+x = 3\n"
    )
    applied = {**call, "session_id": "sh4", "tool_input": {"command": "git apply fix.patch"}}
    subprocess.run("git apply fix.patch", shell=True, cwd=project, check=True)
    assert hook("post-tool", applied, project)[0] == 0
    view = state.read_view(discover(project).shared_state_dir, "sh4")
    assert (view.edited, view.read) == (["billing/charge.py"], ["fix.patch"])


def test_a_command_after_a_here_document_is_read(project: Path) -> None:
    """A here-document's body is no part of the command's words. Before session 43 an
    apostrophe in one (`don't`) opened a quote that hid every command after it: a `sed -i`
    there that broke the money rule met no decision and no deny; and the body's lines
    were read as commands."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    command = (
        "cat > NOTES.md <<'EOF'\nDon't use floats for money.\nEOF\n"
        "sed -i 's/x = 1/x = float(1)/' billing/charge.py"
    )
    said = _before_shell(project, "ap", command)
    assert said.get("permissionDecision") == "deny", said
    assert "D-0001 (critical)" in said["permissionDecisionReason"]
    write(project, "build/out.txt", "x\n")
    script = "cat > clean.sh <<'EOF'\nrm -rf build\nEOF\nchmod +x clean.sh"
    call = {"session_id": "ap2", "cwd": str(project), "tool_name": "Bash"}
    subprocess.run(script, shell=True, cwd=project, check=True)
    assert hook("post-tool", {**call, "tool_input": {"command": script}}, project)[0] == 0
    view = state.read_view(discover(project).shared_state_dir, "ap2")
    assert view.edited == ["clean.sh"]  # not `build`: the script is written, not run
    # the paths a script names in its body are read: its file's decision comes
    script = "python3 - <<'PY'\nfrom pathlib import Path\nPath('billing/charge.py').touch()\nPY"
    said = _before_shell(project, "ap3", script)
    assert "D-0001" in said.get("additionalContext", ""), said
    # ... and so are those of the code an interpreter is given on its command line
    # (before session 49: nothing, and the decision came only at the turn's end)
    for i, script in enumerate(
        (
            "python3 -c \"open('billing/charge.py', 'a').write('x = 2.5')\"",
            "node -e \"require('fs').appendFileSync('billing/charge.py', 'x = 2.5')\"",
        )
    ):
        said = _before_shell(project, f"ap4{i}", script)
        assert "D-0001" in said.get("additionalContext", ""), said


def test_what_a_turns_commands_wrote_is_an_edit_of_the_session(project: Path) -> None:
    """A command that runs other code (a generator, a formatter, a script) names nothing
    it writes: the turn's end counts the changed, new and deleted files last written while
    one of its shell commands ran (a deletion by the time of its folder), and no others (a
    file changed before, one git ignores, one deleted before the command, a deletion an
    earlier turn's end saw already). Claude Code's payloads, through the installed hook."""
    base = {"session_id": "gen1", "cwd": str(project)}
    write(project, ".gitignore", "build/\n")
    write(project, "api/old.py", "x = 1\n")
    write(project, "docs/draft.md", "mine\n")  # the user's, changed before the turn
    write(project, "docs/old.md", "gone\n")  # the user's, deleted before the turn
    commit_all(project, "more files")
    write(project, "docs/draft.md", "mine, changed\n")
    (project / "docs/old.md").unlink()
    then = time.time() - 30
    os.utime(project / "docs/draft.md", (then, then))
    os.utime(project / "docs", (then, then))
    assert hook("prompt", {**base, "prompt": "regenerate the API client"}, project)[0] == 0
    script = (
        "mkdir -p build api/gen && echo 'x' > build/out.txt && echo 'c = 1' > api/gen/client.py"
        " && echo 'y = 2' >> billing/charge.py && rm api/old.py"
    )
    call = {**base, "tool_name": "Bash", "tool_input": {"command": "./scripts/gen.sh"}}
    assert hook("pre-tool", call, project)[0] == 0
    subprocess.run(script, shell=True, cwd=project, check=True)  # what ./scripts/gen.sh does
    assert hook("post-tool", {**call, "tool_response": {"stdout": ""}}, project)[0] == 0
    write(project, "api/routes.py", "# the user's own save, after the command\n")
    later = time.time() + 5
    os.utime(project / "api/routes.py", (later, later))
    assert hook("stop", {**base, "stop_hook_active": False}, project) == (0, "", "")
    run_gitmem(project, "capture", "flush")
    (session,) = json.loads(run_gitmem(project, "sessions", "--json").stdout)
    shown = json.loads(run_gitmem(project, "sessions", "show", session["id"], "--json").stdout)
    (turn,) = [r for r in shown["records"] if r.get("kind") == "turn"]
    wrote = ["api/gen/client.py", "api/old.py", "billing/charge.py"]
    assert turn["files_edited"] == turn["written_by_commands"] == wrote
    said = run_gitmem(project, "sessions", "show", session["id"]).stdout
    assert "written by commands it ran" in said
    (why,) = json.loads(run_gitmem(project, "why", "api/gen/client.py", "--json").stdout)
    assert why["sessions"][0]["prompt_behind_edit"] == "regenerate the API client"

    # the next turn's command writes into docs/, where the user's deletion is older than
    # the turn: the first turn's end saw it gone, so it is not the command's
    assert hook("prompt", {**base, "prompt": "write the docs"}, project)[0] == 0
    call = {**call, "tool_input": {"command": "./scripts/docs.sh"}, "tool_use_id": "t2"}
    assert hook("pre-tool", call, project)[0] == 0
    write(project, "docs/new.md", "new\n")
    assert hook("post-tool", call, project)[0] == 0
    assert hook("stop", {**base, "stop_hook_active": False, "n": 2}, project) == (0, "", "")
    run_gitmem(project, "capture", "flush")
    shown = json.loads(run_gitmem(project, "sessions", "show", session["id"], "--json").stdout)
    turn = [r for r in shown["records"] if r.get("kind") == "turn"][-1]
    assert turn["written_by_commands"] == ["docs/new.md"]

    # a session not captured (no prompt of it kept): its shell calls are marked all the
    # same (since session 49), for the turn's end to read what they wrote against the
    # rules (test_a_critical_rule_a_turns_commands_broke_sends_the_agent_back)
    off = {"session_id": "gen2", "cwd": str(project)}
    call = {**off, "tool_name": "Bash", "tool_input": {"command": "cat billing/charge.py"}}
    assert hook("pre-tool", call, project)[0] == 0
    assert hook("post-tool", call, project)[0] == 0
    gen2 = Path(state.session_file(discover(project).shared_state_dir, "gen2")).read_text()
    assert '"k":"read"' in gen2 and gen2.count('"k":"shell"') == 2


def test_a_command_that_rewrites_thousands_of_files_is_counted_for_them(project: Path) -> None:
    """A formatter or generator run over a repository rewrites thousands of files; before
    session 40 a turn counted 500 of them (the first in path order), so `sessions` said
    "500 files edited" and `why` named no session for the others. Now up to 5,000."""
    base = {"session_id": "fmt1", "cwd": str(project)}
    names = [f"api/gen/m{i:04d}.py" for i in range(1200)]
    for name in names:
        write(project, name, "x = 1\n")
    commit_all(project, "generated")
    assert hook("prompt", {**base, "prompt": "reformat the generated code"}, project)[0] == 0
    call = {**base, "tool_name": "Bash", "tool_input": {"command": "ruff format ."}}
    assert hook("pre-tool", call, project)[0] == 0
    for name in names:
        write(project, name, "x = 2\n")
    assert hook("post-tool", {**call, "tool_response": {"stdout": ""}}, project)[0] == 0
    assert hook("stop", {**base, "stop_hook_active": False}, project) == (0, "", "")
    run_gitmem(project, "capture", "flush")
    (session,) = json.loads(run_gitmem(project, "sessions", "--json").stdout)
    assert "1200 files edited" in run_gitmem(project, "sessions").stdout, session
    (why,) = json.loads(run_gitmem(project, "why", names[-1], "--json").stdout)
    assert why["sessions"][0]["prompt_behind_edit"] == "reformat the generated code"


def _bases(session_file: Path) -> int:
    """How many notes of the files as a turn found them the session's state holds."""
    return session_file.read_text().count('"k":"base"')


def _wait_for_turn_start(session_file: Path, before: int) -> None:
    """Wait (up to 60 s) for the turn-start job, started by the prompt hook, to note the
    changed files it keeps: one more note than ``before``."""
    deadline = time.time() + 60
    while _bases(session_file) <= before:
        assert time.time() < deadline, session_file.read_text()
        time.sleep(0.05)


@pytest.mark.parametrize("captured", [True, False])
def test_a_critical_rule_a_turns_commands_broke_sends_the_agent_back(
    project: Path, captured: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a script wrote into billing/ breaks the money decision's rule (no `float(`):
    the turn's end answers Claude Code's "block" with the reason, once (not again when the
    agent went on because of it), and not for a line the last commit already had. The
    same where the developer keeps their prompts out of the capture (`GITMEM_CAPTURE=0`):
    before session 49 that turned this check off too."""
    if not captured:
        monkeypatch.setenv("GITMEM_CAPTURE", "0")
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    write(project, "billing/old.py", "legacy = float(1)\n")  # committed before: not the turn's
    commit_all(project, "a rule, and old code")
    base = {"session_id": "r1", "cwd": str(project)}
    session_file = Path(state.session_file(discover(project).shared_state_dir, "r1"))
    calls = iter(range(10))

    def turn(script: str, changed: bool = False, **stop: object) -> str:
        n = next(calls)
        bases = _bases(session_file) if changed else 0
        assert hook("prompt", {**base, "prompt": f"regenerate billing ({n})"}, project)[0] == 0
        if changed:
            _wait_for_turn_start(session_file, bases)
        call = {**base, "tool_name": "Bash", "tool_input": {"command": "./gen.sh"}}
        call["tool_use_id"] = f"toolu_{n}"  # as Claude Code sends: each call its own
        assert hook("pre-tool", call, project)[0] == 0
        subprocess.run(script, shell=True, cwd=project, check=True)
        assert hook("post-tool", call, project)[0] == 0
        said = {"last_assistant_message": f"Done ({n})."}  # each turn's own, as sent
        code, out, err = hook("stop", {**base, **said, "stop_hook_active": False, **stop}, project)
        assert (code, err) == (0, "")
        return out

    answer = json.loads(turn("echo 'amount = float(total)' > billing/gen.py"))
    assert answer["decision"] == "block"
    assert "D-0001" in answer["reason"] and "billing/gen.py" in answer["reason"]
    assert "float(total)" in answer["reason"]
    assert turn("echo 'more = float(2)' >> billing/gen.py", stop_hook_active=True) == ""
    # compliant lines added to a file whose committed text breaks the rule: not the turn's
    assert turn("echo 'cents = 5' >> billing/old.py") == ""
    # nor a line the user had not committed when the turn began (the turn-start job's note)
    write(project, "billing/wip.py", "draft = float(3)\n")
    assert turn("echo 'cents = 6' >> billing/wip.py", changed=True) == ""
    captures = discover(project).shared_state_dir / "capture"
    assert any(captures.glob("*.jsonl")) is captured  # nothing of theirs kept, if off


def test_a_critical_rule_a_command_broke_in_a_file_it_names(project: Path) -> None:
    """`sed -i`, a heredoc or `>>` into a file the command names (which the before-tool
    check reads only in part: a command it could not read, or an agent that ran it all
    the same), and the stop hook read only what scripts wrote (files no word names), so
    the agent was never told; only the commit-time check caught it. Now the
    after-tool hook says so at once (and the warning rules' advisories), and the turn's
    end sends the agent back, once, as for a script; a compliant write says nothing, nor
    does a line the user had not committed."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    base = {"session_id": "n1", "cwd": str(project)}
    session_file = Path(state.session_file(discover(project).shared_state_dir, "n1"))
    calls = iter(range(1, 10))

    def turn(command: str, changed: bool = False) -> tuple[str, str]:
        n = next(calls)
        bases = _bases(session_file) if changed else 0
        assert hook("prompt", {**base, "prompt": f"change the charge ({n})"}, project)[0] == 0
        if changed:
            _wait_for_turn_start(session_file, bases)
        call = {**base, "tool_name": "Bash", "tool_input": {"command": command}}
        call["tool_use_id"] = f"toolu_{n}"
        assert hook("pre-tool", call, project)[0] == 0
        subprocess.run(command, shell=True, cwd=project, check=True)
        code, after, err = hook("post-tool", call, project)
        assert (code, err) == (0, "")
        said = {"last_assistant_message": f"Changed ({n})."}
        code, out, err = hook("stop", {**base, **said, "stop_hook_active": False}, project)
        assert (code, err) == (0, "")
        return context_of(after), out

    after, stop = turn("sed -i 's/x = 1/x = float(1)/' billing/charge.py")
    assert "The command just run wrote a file that breaks a critical project decision" in after
    assert "D-0001" in after and "x = float(1)" in after
    answer = json.loads(stop)
    assert answer["decision"] == "block" and "x = float(1)" in answer["reason"]
    subprocess.run(["git", "checkout", "--", "billing"], cwd=project, check=True)
    heredoc = "cat > billing/charge.py <<'EOF'\nx = 1\ncents = 2\nEOF"
    assert turn(heredoc) == ("", "")
    # the user's line, not committed, in a file a command then appends to: not the command's
    write(project, "billing/charge.py", "x = 1\ndebug = float(x)\n")
    assert turn("echo 'y = 2' >> billing/charge.py", changed=True) == ("", "")
    after, stop = turn("sed -i '$a z = float(y)' billing/charge.py", changed=True)
    assert "z = float(y)" in after and "debug" not in after
    assert "z = float(y)" in json.loads(stop)["reason"]
    assert not (discover(project).shared_state_dir / "hook-errors.log").exists()


def test_an_edit_through_a_symbolic_link_meets_the_targets_decisions(project: Path) -> None:
    """`packages/app/shared -> ../../billing` (a monorepo's shared code), or a file linked
    by another name: an edit there writes billing/charge.py, but the hooks looked only at
    the path as given, so the money decision's rule never saw it until the commit."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    (project / "packages/app").mkdir(parents=True)
    (project / "packages/app/shared").symlink_to("../../billing")
    (project / "alias.py").symlink_to("billing/charge.py")
    commit_all(project, "links")
    edit = {"old_string": "x = 1", "new_string": "x = float(1)"}
    for n, path in enumerate(["packages/app/shared/charge.py", "alias.py"]):
        call = {
            "session_id": "ln",
            "cwd": str(project),
            "tool_name": "Edit",
            "tool_use_id": f"e{n}",
        }
        call["tool_input"] = {"file_path": str(project / path), **edit}
        code, out, err = hook("pre-tool", call, project)
        assert (code, err) == (0, "")
        said = json.loads(out)["hookSpecificOutput"]
        assert said["permissionDecision"] == "deny", said
        assert (
            "D-0001 (critical) forbids this change to billing/charge.py"
            in said["permissionDecisionReason"]
        )
    read = {"session_id": "ln2", "cwd": str(project), "tool_name": "Read", "tool_use_id": "r"}
    read["tool_input"] = {"file_path": str(project / "packages/app/shared/charge.py")}
    assert "D-0001" in context_of(hook("pre-tool", read, project)[1])


def test_an_edit_in_a_worktree_inside_the_work_tree(project: Path) -> None:
    """Claude Code's `--worktree` puts worktrees in .claude/worktrees/: an edit there from
    the main session's folder meets the decisions of `billing/charge.py` (before session
    41, none: it was read as `.claude/worktrees/feat/billing/charge.py`)."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    git(project, "worktree", "add", "-q", ".claude/worktrees/feat", "-b", "feat")
    path = project / ".claude/worktrees/feat/billing/charge.py"
    call = {"session_id": "nw", "cwd": str(project), "tool_name": "Edit", "tool_use_id": "e"}
    call["tool_input"] = {
        "file_path": str(path),
        "old_string": "x = 1",
        "new_string": "x = float(1)",
    }
    code, out, err = hook("pre-tool", call, project)
    assert (code, err) == (0, "")
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_route_folder_named_with_brackets(project: Path) -> None:
    """Next.js routes live in folders named `[slug]`: a decision written for
    `app/blog/[slug]/**` governed `app/blog/s/...` (a set of letters, as gitignore reads
    it) and never the route, so an agent reading or editing it was told nothing."""
    decision(
        project, "0007-static.md", "Blog posts render statically", globs=["app/blog/[slug]/**"]
    )
    write(project, "app/blog/[slug]/page.tsx", "export default function Page() {}\n")
    commit_all(project, "a route")
    call = {"session_id": "nx", "cwd": str(project), "tool_name": "Read", "tool_use_id": "r"}
    call["tool_input"] = {"file_path": str(project / "app/blog/[slug]/page.tsx")}
    said = context_of(hook("pre-tool", call, project)[1])
    assert "Blog posts render statically" in said and "governs app/blog/[slug]/**" in said


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        (
            "cat > billing/x.py <<'EOF'\nx = float(1)\nEOF",
            [("billing/x.py", "x = float(1)\n", False)],
        ),
        (
            'mkdir -p a && cat <<EOF > "a/b c.py"\ny = 1\nEOF\necho done',
            [("a/b c.py", "y = 1\n", False)],
        ),
        ('cat >> billing/x.py << "PY"\nz = 2\nPY', [("billing/x.py", "z = 2\n", True)]),
        ("python - <<'EOF'\nprint(1)\nEOF", []),  # into a program, not a file
        ("cat > f.py <<'EOF'\nno end", []),  # never closed: the shell writes nothing sure
        ("cat billing/x.py", []),
        # since session 43: a `cd` before it, `tee`, another descriptor's redirection
        (
            "cd billing && cat > x.py 2>/dev/null <<'EOF'\nx = 1\nEOF",
            [("billing/x.py", "x = 1\n", False)],
        ),
        (
            "tee -a a.py b/c.py >/dev/null <<'EOF'\nz\nEOF",
            [("a.py", "z\n", True), ("b/c.py", "z\n", True)],
        ),
        ("cat <<-EOF > x.py\n\tif a:\n\t\tb()\n\tEOF", [("x.py", "if a:\nb()\n", False)]),
        ("cat head.py - > x.py <<'EOF'\ny\nEOF", []),  # with a file's text too
        ("cd $D && cat > x.py <<'EOF'\ny\nEOF", []),  # where is not known
    ],
)
def test_heredoc_writes(command: str, writes: list[tuple[str, str, bool]]) -> None:
    assert toolpaths.heredoc_writes(command) == writes


@pytest.mark.parametrize(
    ("command", "words", "bodies"),
    [
        ("cat <<EOF\na 'b\nEOF\nls", ["cat", "<<", "EOF", ";", "ls"], ["a 'b\n"]),
        (
            "cat <<'A' <<B; x\n1\nA\n2\nB",
            ["cat", "<<", "A", "<<", "B", ";", "x", ";"],
            ["1\n", "2\n"],
        ),
        ("cat <<-X\n\t1\n\tX\n", ["cat", "<<", "X", ";"], ["1\n"]),
        ("cat << -X\n-X\n", ["cat", "<<", "-X", ";"], [""]),  # `<< -X`: its tag is `-X`
        ("cat <<E\nno end", ["cat", "<<", "E", ";"], [None]),
        ("cat <<E", ["cat", "<<", "E"], [None]),
        ("cat <<< 'x'\nls", ["cat", "<<<", "x", ";", "ls"], []),  # a here-string
        ("echo '<<E'\nls", ["echo", "<<E", ";", "ls"], []),
    ],
)
def test_shell_words_read_here_documents(command: str, words: list[str], bodies: list[str]) -> None:
    found: list[str | None] = []
    assert toolpaths.shell_words(command, newline=";", bodies=found) == words
    assert found == bodies


_DIFF = "--- a/billing/x.py\n+++ b/billing/x.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"


@pytest.mark.parametrize(
    ("command", "read", "diffs"),
    [
        (f"git apply <<'EOF'\n{_DIFF}EOF", {}, [("billing/x.py", "b = 3")]),
        (f"cd svc && patch -p1 <<EOF\n{_DIFF}EOF", {}, [("svc/billing/x.py", "b = 3")]),
        (f"git apply -R <<'EOF'\n{_DIFF}EOF", {}, [("billing/x.py", "b = 2")]),  # undone
        (f"patch -p0 <<'EOF'\n{_DIFF}EOF", {}, [("b/billing/x.py", "b = 3")]),
        # from a file (since session 43), read from the folder the command runs in
        ("git apply -v --index fix.patch", {"fix.patch": _DIFF}, [("billing/x.py", "b = 3")]),
        (
            "cd svc && patch -Np1 < ../fix.diff",
            {"svc/../fix.diff": _DIFF},
            [("svc/billing/x.py", "b = 3")],
        ),
        (
            "patch -p1 -i /tmp/f.diff 2>/dev/null",
            {"/tmp/f.diff": _DIFF},
            [("billing/x.py", "b = 3")],
        ),
        ("patch --strip=1 --input=f.diff", {"f.diff": _DIFF}, [("billing/x.py", "b = 3")]),
        ("git apply --directory=lib f.diff", {"f.diff": _DIFF}, [("lib/billing/x.py", "b = 3")]),
        ("git apply gone.patch", {}, []),
        # nothing written to the work tree, or not sure where
        ("git apply --check fix.patch", {"fix.patch": _DIFF}, []),
        ("git apply --cached fix.patch", {"fix.patch": _DIFF}, []),
        ("patch -p1 --dry-run < f.diff", {"f.diff": _DIFF}, []),
        ("patch < f.diff", {"f.diff": _DIFF}, []),  # no -p
        ("patch -p1 billing/x.py f.diff", {"f.diff": _DIFF}, []),  # the file named wins
        ("patch -d svc -p1 < f.diff", {"f.diff": _DIFF}, []),
        ("cd ~/w && git apply f.diff", {"f.diff": _DIFF}, []),
        ("git log -p fix.patch", {"fix.patch": _DIFF}, []),
    ],
)
def test_applied_diffs(command: str, read: dict[str, str], diffs: list[tuple[str, str]]) -> None:
    assert shelldiffs.applied_diffs(command, read.get) == diffs


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ("echo 'x = float(1)' > billing/a.py", [("billing/a.py", "x = float(1)", False)]),
        ('ls && echo "y = 2" >> billing/a.py', [("billing/a.py", "y = 2", True)]),
        ("printf 'a = 1\\nb = 2\\n' > c.py", [("c.py", "a = 1\nb = 2\n", False)]),
        ("printf '%s\\n' 'z = 3' > d.py", [("d.py", "z = 3", False)]),
        ('echo "$HOME" > x.py', []),  # expanded by the shell: not known before it runs
        ("echo 'a' | tee x.py", [("x.py", "a", False)]),
        ("echo 'z = 1' | tee -a b/c.py > /dev/null", [("b/c.py", "z = 1", True)]),
        ("printf 'a\\nb\\n' | sudo tee --append c.py", [("c.py", "a\nb\n", True)]),
        ("echo 'a' | tee x.py y.py", []),  # two files: not read
        ("echo 'a' | tee -i x.py", []),
        # its errors elsewhere, and from the folder a `cd` moved to (both since session 48)
        ("echo 'x' > out.txt 2>&1", [("out.txt", "x", False)]),
        ("echo 'x' > a.py 1>&2", []),  # its output is not the file's
        ("cd billing && echo 'y = 2' >> a.py", [("billing/a.py", "y = 2", True)]),
        ("cd b; cd c && printf 'a\\n' > x.py 2>/dev/null", [("b/c/x.py", "a\n", False)]),
        ("cd billing && echo 'a' | tee -a x.py", [("billing/x.py", "a", True)]),
        ("(cd billing && ls); echo 'a' > x.py", [("x.py", "a", False)]),
        ("cd billing && echo 'a' > /srv/x.py", [("/srv/x.py", "a", False)]),
        ("cd \"$D\" && echo 'a' > x.py", []),  # where it goes is not known
    ],
)
def test_echo_writes(command: str, writes: list[tuple[str, str, bool]]) -> None:
    assert toolpaths.echo_writes(command) == writes


_CALLS = itertools.count()


def _before_shell(project: Path, session: str, command: str) -> dict[str, Any]:
    """The pre-tool hook's answer (``hookSpecificOutput``, or {}) to a shell command."""
    call = {"session_id": session, "cwd": str(project), "tool_name": "Bash"}
    call.update(tool_use_id=f"{session}-{next(_CALLS)}", tool_input={"command": command})
    code, out, err = hook("pre-tool", call, project)
    assert (code, err) == (0, "")
    said: dict[str, Any] = json.loads(out)["hookSpecificOutput"] if out else {}
    return said


def _assert_denied(
    project: Path, session: str, cases: list[tuple[str, bool]], *reasons: str
) -> None:
    """Each (command, whether it is denied) of ``cases`` through the pre-tool hook: denied
    or not as said, and a deny's reason holding each of ``reasons``."""
    for command, denied in cases:
        said = _before_shell(project, session, command)
        assert (said.get("permissionDecision") == "deny") is denied, (command, said)
        for reason in reasons if denied else ():
            assert reason in said["permissionDecisionReason"], (command, said)


def test_an_edit_holding_a_lone_surrogate_is_still_checked(project: Path) -> None:
    """JSON that JavaScript writes holds a lone surrogate where a string was cut inside an
    emoji's pair. RE2 could not encode the edit's text (nor the OS its file name), the
    hook failed open, and the critical rule let `float(` through. Since session 52 the
    payload is read as Node writes it: each lone surrogate as U+FFFD."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    new, cut = json.dumps(str(project / "billing/new.py")), f'"{project}/billing/n\\ud83d.py"'
    for target, content, denied in (
        (new, "x = float(1)  # \\ud83d", True),
        (new, "x = 1  # \\ud83d", False),
        (cut, "x = float(1)", True),  # a file name Node writes with U+FFFD
    ):
        raw = (
            f'{{"session_id": "s", "cwd": {json.dumps(str(project))}, "tool_name": "Write",'
            f' "tool_input": {{"file_path": {target}, "content": "{content}\\n"}}}}'
        )
        code, out, err = hook("pre-tool", None, project, raw=raw)
        assert code == 0 and err == "", err
        assert ('"permissionDecision":"deny"' in out.replace(" ", "")) == denied, (content, out)
    log = Path(discover(project).shared_state_dir) / runner.ERROR_LOG
    assert not log.exists() or "UnicodeEncodeError" not in log.read_text()


def test_a_heredoc_that_breaks_a_critical_rule_is_denied_before_it_runs(project: Path) -> None:
    """`cat > billing/charge.py <<'EOF'` (or `echo '…' >>`, `printf '…' >`, and since
    session 42 `echo '…' | tee -a`) is a Write
    through the shell: its text is read as a Write's content would be (against the file's
    lines now; an append whole), so the money rule denies it before the file is written;
    a compliant one, or one that keeps a line the file had, goes through."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    write(project, "billing/old.py", "legacy = float(1)\n")
    commit_all(project, "a rule, and old code")
    cases = [
        ("cat > billing/charge.py <<'EOF'\nx = float(1)\nEOF", True),
        ("cat <<EOF > billing/new.py\ny = float(2)\nEOF", True),
        ("cat >> billing/old.py <<'EOF'\nz = float(3)\nEOF", True),
        ("cat > billing/charge.py <<'EOF'\nx = 2\nEOF", False),
        ("cat > billing/old.py <<'EOF'\nlegacy = float(1)\ncents = 5\nEOF", False),
        ("cat > docs/notes.py <<'EOF'\nx = float(1)\nEOF", False),  # not governed
        ("echo 'amount = float(total)' >> billing/charge.py", True),
        ("printf 'a = 1\\nb = float(2)\\n' > billing/new.py", True),
        ("echo 'x = 3' > billing/charge.py", False),
        ("echo 'amount = float(total)' | tee -a billing/charge.py > /dev/null", True),
        ("printf 'cents = 5\\n' | tee billing/new.py", False),
        # since session 48: from the folder a `cd` moved to, and its errors elsewhere
        ("cd billing && echo 'amount = float(total)' >> charge.py", True),
        ("echo 'amount = float(total)' >> billing/charge.py 2>&1", True),
        ("cd billing && echo 'cents = 5' >> charge.py", False),
    ]
    _assert_denied(project, "hd", cases)


@pytest.mark.parametrize(
    ("command", "edits"),
    [
        ("sed -i 's/a/b/' billing/x.py", [("", ["-e", "s/a/b/"], ["billing/x.py"])]),
        (
            "cd billing && sed -i.bak -E -e 's/(a)/b/' x.py y.py 2>/dev/null",
            [("billing", ["-E", "-e", "s/(a)/b/"], ["x.py", "y.py"])],
        ),
        (
            "sudo sed --in-place -n --expression=s/a/b/p -- -f",
            [("", ["-n", "-e", "s/a/b/p"], ["-f"])],
        ),
        (
            "sed -ni 's/a/b/p' x.py && sed -i -f fix.sed y.py",
            [("", ["-n", "-e", "s/a/b/p"], ["x.py"]), ("", ["-f", "fix.sed"], ["y.py"])],
        ),
        ("sed 's/a/b/' x.py > y.py", []),  # not in place: the redirection is read elsewhere
        ("cd ~/src && sed -i 's/a/b/' x.py", []),  # where it runs is not known
        ("sed -i --line-length=3 's/a/b/' x.py", []),  # an option not read
        ("cat x.py | sed -i 's/a/b/' -", []),
        ("grep -rl foo . | xargs sed -i 's/a/b/'", []),  # its files come from the pipe
        (
            "(cd a && sed -i s/x/y/ f); pushd b && sed -i s/x/y/ g; popd; sed -i s/x/y/ h",
            [
                ("a", ["-e", "s/x/y/"], ["f"]),
                ("b", ["-e", "s/x/y/"], ["g"]),
                ("", ["-e", "s/x/y/"], ["h"]),
            ],
        ),
    ],
)
def test_sed_edits(command: str, edits: list[tuple[str, list[str], list[str]]]) -> None:
    assert shelledits.sed_edits(command) == edits


@pytest.mark.skipif(
    subprocess.run(["sed", "--sandbox", "p"], input=b"", capture_output=True).returncode != 0,
    reason="not GNU sed: `sed -i` is read only after it runs",
)
def test_a_sed_edit_that_breaks_a_critical_rule_is_denied_before_it_runs(
    project: Path, tmp_path: Path
) -> None:
    """`sed -i`, the edit agents make most through their shell, was read only after it had
    written the file (session 41). The before-tool check now runs it on a copy of the
    file's text (`sed --sandbox`: no command run, no file read or written) and reads what
    it would add as an Edit's new lines; a script the sandbox refuses, or one that runs
    too long, is left to the after-tool check and runs nothing."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    write(project, "billing/old.py", "legacy = float(1)\n")
    commit_all(project, "a rule, and old code")
    leak, ran = tmp_path / "leak.txt", tmp_path / "ran"
    cases = [
        ("sed -i 's/x = 1/x = float(1)/' billing/charge.py", True),
        ("cd billing && sed -i.bak -E -e 's/^(x) = 1$/\\1 = float(1)/' charge.py", True),
        (
            "sed -i -e 's/x = 1/x = T/' billing/charge.py && sed -i 's/T/float(1)/' billing/charge.py",
            True,
        ),
        (f"sed -i '$a cents = float(2)' {project}/billing/old.py", True),
        ("sed -i 's/x = 1/x = 2/' billing/charge.py", False),
        ("sed -i '$a cents = 5' billing/old.py", False),  # keeps the file's legacy line
        ("sed -i 's/x = 1/x = float(1)/' docs/notes.py", False),  # not governed
        (f"sed -i 's/x = 1/x = float(1)/w {leak}' billing/charge.py", False),  # refused
        (f"sed -i '1e touch {ran}' billing/charge.py", False),
        ("sed -i ':a;ba' billing/charge.py", False),  # loops: cut off
        # in a string given to a shell (since session 43)
        ("timeout 30 bash -lc \"cd billing && sed -i 's/x = 1/x = float(1)/' charge.py\"", True),
    ]
    _assert_denied(project, "sd", cases, "D-0001 (critical)", "float(")
    assert not leak.exists() and not ran.exists()
    assert git(project, "status", "--porcelain") == ""  # nothing was edited


@pytest.mark.parametrize(
    ("command", "listed"),
    [
        ("find billing -name '*.py' -exec sed -i 's/a/b/' {} +",
         [("", "sed", ["-e", "s/a/b/"], [["find", "billing", "-name", "*.py", "-print0"]], True)]),
        ("find . -type f -exec sed -i -E 's/(a)/b/' {} \\;",
         [("", "sed", ["-E", "-e", "s/(a)/b/"], [["find", ".", "-type", "f", "-print0"]], True)]),
        ("grep -rl 'int(' billing | xargs sed -i 's/a/b/'",
         [("", "sed", ["-e", "s/a/b/"], [["grep", "-rl", "int(", "billing"]], False)]),
        ("cd billing && rg -l amount | xargs -r -n 10 sed -i.bak 's/a/b/'",
         [("billing", "sed", ["-e", "s/a/b/"], [["rg", "--no-config", "-l", "amount"]], False)]),
        ("git grep -l amount -- src | xargs -I{} sed -i 's/a/b/' {}",
         [("", "sed", ["-e", "s/a/b/"], [["git", "grep", "-l", "amount", "--", "src"]], False)]),
        ("grep -rlZ x . | xargs -0 sed -i s/a/b/",
         [("", "sed", ["-e", "s/a/b/"], [["grep", "-rlZ", "x", "."]], True)]),
        ("git ls-files '*.py' | xargs sed -i s/a/b/",
         [("", "sed", ["-e", "s/a/b/"], [["git", "ls-files", "*.py"]], False)]),
        # perl, and filters between the listing and xargs (since session 45)
        ("grep -rl x src | xargs perl -pi -e 's/a/b/g'",
         [("", "perl", ["s/a/b/g", "lines"], [["grep", "-rl", "x", "src"]], False)]),
        ("find . -name '*.py' -exec perl -0777 -pi -e 's/a/b/' {} +",
         [("", "perl", ["s/a/b/", "all"], [["find", ".", "-name", "*.py", "-print0"]], True)]),
        ("grep -rl x . | grep -v -e test -e spec | sort -u | head -20 | xargs sed -i s/a/b/",
         [("", "sed", ["-e", "s/a/b/"], [["grep", "-rl", "x", "."],
           ["grep", "-v", "-e", "test", "-e", "spec"], ["sort", "-u"], ["head", "-20"]], False)]),
        ("rg -l x | sed 's|^./||' | tr -d '\\r' | xargs sed -i s/a/b/",
         [("", "sed", ["-e", "s/a/b/"], [["rg", "--no-config", "-l", "x"],
           ["sed", "--sandbox", "-e", "s|^./||"], ["tr", "-d", "\\r"]], False)]),
        ("grep -rl x . | sort -o list | xargs sed -i s/a/b/", []),  # sort would write
        ("grep -rl x . | grep -r y | xargs sed -i s/a/b/", []),  # a search of files
        ("grep -rl x . | grep y more.txt | xargs sed -i s/a/b/", []),  # a file operand
        ("grep -rl x . | uniq - out.txt | xargs sed -i s/a/b/", []),  # uniq would write
        ("grep -rl x . | tail -f | xargs sed -i s/a/b/", []),
        ("grep -rl x . | sed -i s/x/y/ f | xargs sed -i s/a/b/", []),
        ("grep -rl x . | awk '{print}' | xargs sed -i s/a/b/", []),  # a program: not run
        ("cat list.txt | grep -v y | xargs sed -i s/a/b/", []),  # no listing of files
        ("grep -rl x . | xargs perl -ne 'print'", []),  # not in place
        ("grep -r x . | xargs sed -i s/a/b/", []),  # lines, not names
        ("rg --pre ./unzip.sh -l x | xargs sed -i s/a/b/", []),  # rg would run a program
        ("find . -delete -exec sed -i s/a/b/ {} +", []),  # find would delete
        ("git grep --textconv -l x | xargs sed -i s/a/b/", []),  # git would run drivers
        ("find . -exec sed -i s/a/b/ {} extra.py +", []),
        ("grep -rl x . | xargs -a list.txt sed -i s/a/b/", []),  # an xargs option not read
        ("grep -rl x . | xargs sed s/a/b/", []),  # not in place
        ("grep -rl x . ; xargs sed -i s/a/b/", []),  # no pipe
    ],
)  # fmt: skip
def test_listed_edits(
    command: str, listed: list[tuple[str, str, list[str], list[list[str]], bool]]
) -> None:
    assert shelledits.listed_edits(command) == listed


@pytest.mark.skipif(
    subprocess.run(["sed", "--sandbox", "p"], input=b"", capture_output=True).returncode != 0,
    reason="not GNU sed: `sed -i` is read only after it runs",
)
def test_a_sed_given_its_files_by_another_command_is_denied_before_it_runs(
    project: Path,
) -> None:
    """`grep -rl X | xargs sed -i` and `find -exec sed -i {} +`, how agents rename across
    files: the before-tool check runs the listing (it only reads) to learn the files,
    then the sed on a copy of each that a rule governs. Before session 44 such a sed met
    a critical rule only once it had written the files."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    write(project, "docs/notes.py", "x = 1\n")
    write(project, "billing/a.py", "")  # a name `*.py` would expand to, if not quoted
    write(project, "a.py", "")
    commit_all(project, "a rule")
    float_ = "'s/x = 1/x = float(1)/'"
    cases = [
        (f"grep -rl 'x = 1' billing | xargs sed -i {float_}", True),
        (f"grep -rlZ 'x = 1' . | xargs -0 -r sed -i.bak {float_}", True),
        (f"cd billing && grep -l 'x = 1' *.py | xargs -I{{}} sed -i {float_} {{}}", True),
        (f"git grep -l 'x = 1' | xargs sed -i {float_}", True),
        (f"find . -name '*.py' -exec sed -i {float_} {{}} +", True),
        (f"find billing -type f -exec sed -i {float_} {{}} \\;", True),
        (f"cd billing && find . -name '*.py' -exec sed -i {float_} {{}} +", True),  # a.py here
        (f"git ls-files '*.py' | xargs sed -i {float_}", True),  # quoted: git's pattern
        (f"git ls-files billing | xargs sed -i {float_}", True),
        ("grep -rl 'x = 1' billing | xargs sed -i 's/x = 1/x = 2/'", False),
        (f"grep -rl 'no such text' billing | xargs -r sed -i {float_}", False),
        (f"grep -rl 'x = 1' docs | xargs sed -i {float_}", False),  # not governed
        (f"find docs -name '*.py' -exec sed -i {float_} {{}} +", False),
        # filtered, and perl (since session 45)
        (f"grep -rl 'x = 1' . | grep -v docs/ | sort | xargs sed -i {float_}", True),
        (f"git ls-files | grep '[.]py$' | head -50 | xargs sed -i {float_}", True),
        (f"grep -rl 'x = 1' . | sed 's|^[.]/||' | xargs sed -i {float_}", True),
        ("grep -rl 'x = 1' billing | xargs perl -pi -e 's/x = 1/x = float(1)/'", True),
        ("find billing -name '*.py' -exec perl -pi -e 's/1/float(1)/' {} +", True),
        (f"grep -rl 'x = 1' . | grep -v billing/ | xargs sed -i {float_}", False),  # docs only
        (f"grep -rl 'x = 1' . | sed 'w leak.txt' | xargs sed -i {float_}", False),  # refused
    ]
    _assert_denied(project, "xs", cases, "D-0001 (critical)", "float(")
    assert git(project, "status", "--porcelain") == ""  # nothing was edited


@pytest.mark.parametrize(
    ("command", "edits"),
    [
        ("perl -pi -e 's/a/b/' x.py", [("", ["s/a/b/", "lines"], ["x.py"])]),
        ("cd src && perl -0777 -pi.bak -e 's{a}{b}gs' x.py y.py",
         [("src", ["s{a}{b}gs", "all"], ["x.py", "y.py"])]),
        ("perl -i -pe 's/a/b/' -e 's/c/d/' x.py", [("", ["s/a/b/\ns/c/d/", "lines"], ["x.py"])]),
        ("perl -lpi -e 's/a/b/' x.py", [("", ["s/a/b/", "lines", "chomp"], ["x.py"])]),
        ("perl -0pi -e 's/a/b/' x.py", [("", ["s/a/b/", "nul"], ["x.py"])]),
        ("perl -ne 'print' x.py", []),  # not in place
        ("perl -pi -MPOSIX -e 's/a/b/' x.py", []),  # a module: not read
        ("perl -pi fix.pl x.py", []),  # a script in a file
        ("perl -0777 -lpi -e 's/a/b/' x.py", []),
    ],
)  # fmt: skip
def test_perl_edits(command: str, edits: list[tuple[str, list[str], list[str]]]) -> None:
    assert shelledits.perl_edits(command) == edits


def test_a_perl_substitution_that_breaks_a_critical_rule_is_denied_before_it_runs(
    project: Path,
) -> None:
    """`perl -pi -e 's/…/…/'`, the other edit agents make through their shell: perl has
    no sandbox, so its substitutions are done with Python's `re` where they read the same
    (gitmem.agent.perlsub, held to perl by tests/test_perlsub.py) and what they add is
    read as an Edit's new lines. A script with more than that (a variable, code) is left
    to the after-tool check. Before session 44 every `perl -pi` was."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    write(project, "docs/notes.py", "x = 1\n")
    commit_all(project, "a rule")
    cases = [
        ("perl -pi -e 's/x = 1/x = float(1)/' billing/charge.py", True),
        ("perl -i -pe 's{x = 1}{x = float(1)}g' billing/charge.py", True),
        ("perl -pi -e 's/(x) = 1/$1 = float(1)/' billing/charge.py", True),
        ("cd billing && perl -0777 -pi.bak -e 's/x = 1\\n/x = float(1)\\n/s' charge.py", True),
        ("perl -pi -e 's/x = 1/x = 2/' billing/charge.py", False),
        ("perl -pi -e 's/x = 1/x = float($y)/' billing/charge.py", False),  # a variable
        ("perl -ne 'print' billing/charge.py", False),
        ("perl -pi -e 's/x = 1/x = float(1)/' docs/notes.py", False),  # not governed
    ]
    _assert_denied(project, "pl", cases, "D-0001 (critical)", "float(")
    assert git(project, "status", "--porcelain") == ""  # nothing was edited


def test_a_diff_applied_from_a_heredoc_is_read_before_it_runs(project: Path) -> None:
    """`git apply <<'EOF'` (or `patch -p1`), what agents run when an edit tool will not
    take a change: the diff's added lines are read as a patch's are, so the money rule
    denies it before it runs (before session 42, only after). A compliant diff goes
    through, and git applies it as read; a reversed or checked apply writes nothing and
    is not read, nor is a `patch` that does not say how much of the paths it strips."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")

    def diff(line: str) -> str:
        return ("diff --git a/billing/charge.py b/billing/charge.py\n--- a/billing/charge.py\n"
                f"+++ b/billing/charge.py\n@@ -1 +1,2 @@\n x = 1\n+{line}\n")  # fmt: skip

    undo = diff("y = float(1)").replace("+y", "-y").replace("+1,2", "+1").replace("-1 ", "-1,2 ")
    (project / "fix.patch").write_text(diff("y = float(1)"))  # not governed: a file to apply
    (project / "undo.patch").write_text(undo)
    cases = [
        (f"git apply <<'EOF'\n{diff('y = float(1)')}EOF", True),
        (f"patch -p1 <<EOF\n{diff('y = float(1)')}EOF\necho done", True),
        (f"git apply -R <<'EOF'\n{diff('y = float(1)')}EOF", False),
        (f"git apply --check <<'EOF'\n{diff('y = float(1)')}EOF", False),
        (f"patch <<'EOF'\n{diff('y = float(1)')}EOF", False),
        # since session 43: from a file, from another folder, reversed
        ("git apply fix.patch", True),
        ("patch -p1 < fix.patch && rm fix.patch", True),
        (f"cd billing && patch -p2 < {project}/fix.patch", True),
        ("git apply -R undo.patch", True),  # puts the removed line back
        ("git apply --check fix.patch", False),
        (f"git apply <<'EOF'\n{diff('y = 2')}EOF", False),
    ]
    _assert_denied(project, "ga", cases, "forbids this change to billing/charge.py")
    subprocess.run(cases[-1][0], shell=True, cwd=project, check=True)
    assert (project / "billing/charge.py").read_text() == "x = 1\ny = 2\n"


@pytest.mark.parametrize(
    ("command", "copies"),
    [
        (
            "cp /tmp/charge.py billing/charge.py",
            [("/tmp/charge.py", "billing/charge.py", False, False)],
        ),
        (
            "cd billing && mv -f new.py charge.py",
            [("billing/new.py", "billing/charge.py", False, False)],
        ),
        (
            "cp -t billing a.py b.py",
            [("a.py", "billing", True, False), ("b.py", "billing", True, False)],
        ),
        ("install -m 644 x.py billing/", [("x.py", "billing/", True, False)]),
        ("cp -- -x.py y.py 2>/dev/null", [("-x.py", "y.py", False, False)]),
        ("cp *.py billing/", []),  # the shell expands it
        ("cd ~/w && cp a.py b.py", []),
        ("cd svc && bash -lc 'cp /tmp/a.py b.py'", [("/tmp/a.py", "svc/b.py", False, False)]),
        # `cat` of files into one: the first replaces it, the rest (or all, `>>`) append
        (
            "cat a.py b.py > x.py 2>&1",
            [("a.py", "x.py", False, False), ("b.py", "x.py", False, True)],
        ),
        ("cat /tmp/a.py >> x.py", [("/tmp/a.py", "x.py", False, True)]),
        ("cat -n a.py > x.py", []),  # numbered: not the file's text
        ("cat - > x.py", []),
        ("cat > x.py <<'EOF'\ny\nEOF", []),  # a heredoc: heredoc_writes
    ],
)
def test_copied_files(command: str, copies: list[tuple[str, str, bool, bool]]) -> None:
    assert toolpaths.copied_files(command) == copies


def test_a_file_copied_over_a_ruled_one_is_read_before_it_runs(
    project: Path, tmp_path: Path
) -> None:
    """An agent writes the new text elsewhere (`/tmp`, no decision there) and copies,
    moves or `cat`s it over the file it means to change: since session 43 the source's text is
    read as a Write of the target, so the money rule denies the command before it runs
    (before, only after). Into a folder, the file keeps the source's name."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    (tmp_path / "charge.py").write_text("x = float(1)\n")
    (tmp_path / "ok.py").write_text("x = 2\n")
    cases = [
        (f"cp {tmp_path}/charge.py billing/charge.py", True),
        (f"cd billing && mv -f {tmp_path}/charge.py .", True),
        (f"install -m 644 {tmp_path}/charge.py billing/", True),
        (f"cat {tmp_path}/charge.py > billing/charge.py", True),
        (f"cat {tmp_path}/charge.py >> billing/charge.py", True),
        (f"cp {tmp_path}/ok.py billing/charge.py", False),
        (f"cp {tmp_path}/charge.py docs/charge.py", False),  # not governed
        ("cp billing/charge.py /tmp/backup.py", False),
    ]
    _assert_denied(project, "cp", cases, "forbids this change to billing/charge.py")
    assert (project / "billing/charge.py").read_text() == "x = 1\n"


@pytest.mark.parametrize(
    ("command", "commits"),
    [
        ('git commit --no-verify -m "x"', [("", False, False, [])]),
        ('git commit -anm "fix it"', [("", True, False, [])]),
        ("cd svc && git commit -n -m x -- a.py", [("svc", False, False, ["a.py"])]),
        ("git -c core.hooksPath=/dev/null commit -m x", [("", False, False, [])]),
        ("HUSKY=0 git commit -m x", [("", False, False, [])]),
        ("SKIP=ruff,gitmem-check git commit -m x", [("", False, False, [])]),
        ("SKIP=ruff git commit -m x", []),
        ("git commit --no-ver -F msg.txt billing/x.py", [("", False, False, ["billing/x.py"])]),
        ("git -C sub commit -n -i a.py 2>&1", [("sub", False, True, ["a.py"])]),
        ('git commit -m "-n" && git push --no-verify', []),  # -n is the message
        ("git commit -m x", []),
    ],
)
def test_unhooked_commits(command: str, commits: list[tuple[str, bool, bool, list[str]]]) -> None:
    assert shellcommits.unhooked_commits(command) == commits


def test_a_commit_that_skips_the_hooks_is_checked_before_it_runs(project: Path) -> None:
    """An agent whose commit the pre-commit check refused retries it with `--no-verify`
    (or `-n`, `HUSKY=0`, `git -c core.hooksPath=...`), which skips gitmem's commit-time
    check too. Since session 43 the before-tool hook reads what such a commit would
    commit, as that check does, and denies it when a critical rule is broken; a commit
    that breaks none, one with the hooks, and an override, go through."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    write(project, "billing/charge.py", "x = 1\ny = float(x)\n")
    git(project, "add", "billing/charge.py")
    cases = [
        ("git commit --no-verify -m 'charge'", True),
        ("git add -A && HUSKY=0 git commit -m charge", True),
        ("cd billing && git -c core.hooksPath=/dev/null commit -qm charge", True),
        ("git commit -m charge", False),  # the hooks run: the commit-time check sees to it
        ("GITMEM_OVERRIDE='D-0001 a migration' git commit -n -m charge", False),
        ("git commit -n -m docs -- docs/readme.md", False),  # only that file is committed
    ]
    _assert_denied(project, "nv", cases, "skips the repository's hooks", "D-0001 (critical)")
    git(project, "reset", "-q")
    write(project, "docs/readme.md", "notes\n")
    git(project, "add", "docs/readme.md")  # staged: fine; the work tree's billing is not
    assert "permissionDecision" not in _before_shell(project, "nv", "git commit -n -m docs")
    assert _before_shell(project, "nv", "git commit -an -m all")["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    ("command", "commits"),
    [
        ("jj commit -m 'charge'", [("", [], "commit", "")]),
        ("jj ci -m x billing/charge.py docs/a.md",
         [("", ["billing/charge.py", "docs/a.md"], "commit", "")]),
        ("cd svc && jj --no-pager commit --message=x -- a.py", [("svc", ["a.py"], "commit", "svc")]),
        ("jj -R ../other commit -m x", [("../other", [], "commit", "")]),
        ("jj -Rsub commit -mwip", [("sub", [], "commit", "")]),
        # a fileset's paths are relative to the folder jj runs in, `-R` or not (jj 0.46)
        ("cd src && jj -R .. commit -m x 'glob:*.py'", [("src/..", ["glob:*.py"], "commit", "src")]),
        ("jj --repository /srv/r --at-op @ commit --author 'A <a@x>' -i",
         [("/srv/r", [], "commit", "")]),
        # `jj new` ends the working copy's change whatever revisions it names; `commit` is
        # the message here
        ("jj describe -m commit && jj new", [("", [], "new", "")]),
        ("jj new -m next main -A @", [("", [], "new", "")]),
        # `squash` moves the working copy's change (or the files named) into its parent,
        # `split` makes the files named a commit: unless they work on another change
        ("jj squash", [("", [], "squash", "")]),
        ("jj squash --into @-- billing/charge.py", [("", ["billing/charge.py"], "squash", "")]),
        ("jj squash -r @ -m x", [("", [], "squash", "")]),
        ("jj squash --from=@ -t main", [("", [], "squash", "")]),
        ("jj squash -r xyz", []),  # an earlier change into its parent: committed already
        ("jj squash --from @- --into main a.py", []),
        ("jj squash -fabc", []),
        ("jj split -m first billing/charge.py", [("", ["billing/charge.py"], "split", "")]),
        ("jj split -r @- a.py", []),
        ("jj describe -m 'new squash'", []),
        ("jj log -r 'commit' && jj st", []),
        ("jj help commit", []),
        ("git commit -m 'jj commit'", []),
    ],
)  # fmt: skip
def test_jj_commits(command: str, commits: list[tuple[str, list[str], str, str]]) -> None:
    assert shellcommits.jj_commits(command) == commits


@pytest.mark.parametrize(
    ("fileset", "expression"),
    [("billing/charge.py", False), ("docs", False), ("./a-b_c.d/e f.txt", False),
     ("glob:src/*.py", True), ("root:docs", True), ("~Cargo.lock", True), ("a | b", True),
     ("all()", True), ('"quoted name"', True), ("src/*.py", True), ("x[12].py", True)],
)  # fmt: skip
def test_jj_expression(fileset: str, expression: bool) -> None:
    """Which filesets only jj can read (a bare path with `*` is a glob there, one that
    stays in its folder) and which git reads as jj does."""
    assert shellcommits.jj_expression(fileset) is expression


def test_a_jj_commit_is_checked_before_it_runs(project: Path) -> None:
    """jj writes its commits itself and runs no git hook (jj 0.46, tried in session 71), so
    in a colocated jj repository an agent's `jj commit` met no commit-time check: a
    violation a script wrote in the same turn went in before the turn's end could send the
    agent back. The before-tool hook now reads what it would commit (the work tree against
    git's HEAD, the working copy's parent there) as it does a `git commit --no-verify`. In
    a repository without `.jj` the command is jj's business (it fails there)."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    write(project, "billing/charge.py", "x = 1\ny = float(x)\n")
    assert "permissionDecision" not in _before_shell(project, "jj0", "jj commit -m charge")
    (project / ".jj" / "repo").mkdir(parents=True)
    cases = [
        ("jj commit -m charge", True),
        ("cd billing && jj ci -m charge charge.py", True),
        ("jj commit -m docs docs/readme.md", False),  # only that file is committed
        ("GITMEM_OVERRIDE='D-0001 a migration' jj commit -m charge", False),
        ("jj describe -m charge", False),  # describes the working copy: commits nothing new
    ]
    _assert_denied(project, "jj", cases, "`jj commit` runs no git hooks", "D-0001 (critical)")
    # the other ways a change ends (since session 72): `jj describe` then `jj new`, and
    # `jj squash` or `jj split` of the working copy's files (tried with jj 0.46: git's HEAD
    # then holds them)
    cases = [
        ("jj describe -m charge && jj new", True),
        ("jj squash", True),
        ("jj split -m charge billing/charge.py", True),
        ("jj split -m docs docs/readme.md", False),
        ("jj squash -r @- -m x", False),  # a change already committed, not the working copy's
    ]
    _assert_denied(project, "jj-end", cases, "runs no git hooks (jj runs none)", "D-0001")
    said = _before_shell(project, "jj-end", "jj new")
    assert "This `jj new` runs no git hooks" in said["permissionDecisionReason"]
    write(project, "billing/charge.py", "x = 1\n")
    assert "permissionDecision" not in _before_shell(project, "jj1", "jj commit -m charge")
    # a new file, which jj commits and git does not know yet (tried with jj 0.46: missed
    # before), unless git's ignore rules leave it out, as they do jj's snapshot
    write(project, "billing/gen.py", "def g(a):\n    return float(a)\n")
    said = _before_shell(project, "jj2", "jj commit -m gen")
    assert said["permissionDecision"] == "deny" and "billing/gen.py" in said["permissionDecisionReason"]
    write(project, ".gitignore", "billing/gen.py\n")
    assert "permissionDecision" not in _before_shell(project, "jj3", "jj commit -m gen")
    # a fileset only jj can read, where jj cannot answer (none here, or not a real jj
    # repository): read as written, as before session 73 (tests/test_jj.py has the real jj)
    write(project, ".gitignore", "")
    said = _before_shell(project, "jj4", "jj commit -m gen 'glob:billing/*.py'")
    assert "permissionDecision" not in said
    said = _before_shell(project, "jj5", "jj commit -m gen 'billing/*.py'")  # git's glob too
    assert said["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    ("command", "patches"),
    [
        ("git am --no-verify 0001.patch", [("", "", ["0001.patch"])]),
        ("cd sub && git am -3n a.patch b.patch", [("sub", "", ["a.patch", "b.patch"])]),
        ("git -c core.hooksPath=/dev/null am p.patch", [("", "", ["p.patch"])]),
        ("git am -n --directory=lib -p 1 y.patch", [("", "lib", ["y.patch"])]),
        ("cat x.patch | git am -n", [("", "", [])]),  # from its input: nothing to read
        ("git am x.patch", []),  # the hooks run: the pre-applypatch check sees to it
        ("git am -Snora x.patch", []),  # -S takes the rest: a key, not -n
        ("git amend && grep am notes", []),
    ],
)
def test_unhooked_patches(command: str, patches: list[tuple[str, str, list[str]]]) -> None:
    assert shellcommits.unhooked_patches(command) == patches


def test_a_git_am_that_skips_the_hooks_is_checked_before_it_runs(
    project: Path, tmp_path: Path
) -> None:
    """Since session 59 `git am`'s pre-applypatch hook checks each patch, so an agent
    whose patch it refused retries with `git am --no-verify`: the before-tool hook reads
    the patch files as that check reads the applied patch, and denies one that breaks a
    critical rule; a patch that breaks none goes through."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    patches = {}
    for name, text in (("bad", "y = float(x)\n"), ("good", "y = x\n")):
        git(project, "checkout", "-q", "-b", name)
        write(project, "billing/charge.py", "x = 1\n" + text)
        commit_all(project, name)
        patches[name] = git(project, "format-patch", "-1", "-o", str(tmp_path / name)).strip()
        git(project, "checkout", "-q", "-")
    cases = [
        (f"git am --no-verify {patches['bad']}", True),
        (f"git am -3n {patches['good']} {patches['bad']}", True),
        (f"git am -n {patches['good']}", False),
        (f"git am {patches['bad']}", False),  # the hooks run: pre-applypatch sees to it
    ]
    _assert_denied(project, "am", cases, "`git am` skips the repository's hooks", "D-0001")


def test_a_merge_committed_past_the_hooks_is_checked_for_what_it_adds(project: Path) -> None:
    """An agent concluding a merge with `git commit -n` was denied over a line the merged
    branch had committed (a teammate's `float(`), which the merge did not add; since
    session 50 the before-tool check reads what the merge adds to both sides, as the
    commit-time check does. A `float(` the agent wrote while resolving is still denied."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    conflicted_merge(project)
    cases = [("git commit -n --no-edit", False), ("git commit -an --no-edit", False)]
    _assert_denied(project, "mg", cases)
    write(
        project, "billing/charge.py", (project / "billing/charge.py").read_text() + "t = float(1)\n"
    )
    cases = [("git commit -an --no-edit", True)]
    _assert_denied(project, "mg", cases, "skips the repository's hooks", "D-0001 (critical)")
    git(project, "add", "billing/charge.py")
    _assert_denied(project, "mg", [("git commit -n --no-edit", True)], "D-0001 (critical)")


def test_a_merge_a_turns_commands_made_is_read_for_what_it_adds(project: Path) -> None:
    """An agent's `git merge` stopped on a conflict, and its commands resolved it: the
    turn's end read every line the merge brought since HEAD, so a teammate's `float(`
    already committed on the merged branch sent the agent back (its resolution broke no
    rule). Since session 50 it reads what the merge adds to both sides, as the
    commit-time check does; a `float(` the agent's commands write still sends it back."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    main = git(project, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(project, "checkout", "-q", "-b", "feature")
    write(project, "billing/charge.py", "x = 1\nfee = float(cents)\n")
    commit_all(project, "teammate: a fee")
    git(project, "checkout", "-q", main)
    write(project, "billing/charge.py", "x = 1\n# ours\n")
    commit_all(project, "ours")
    base = {"session_id": "tm", "cwd": str(project)}

    def turn(n: int, command: str) -> str:
        assert (
            hook("prompt", {**base, "prompt": f"merge the feature branch ({n})"}, project)[0] == 0
        )
        call = {**base, "tool_name": "Bash", "tool_input": {"command": command}}
        call["tool_use_id"] = f"toolu_tm{n}"
        assert hook("pre-tool", call, project)[0] == 0
        subprocess.run(command, shell=True, cwd=project, check=True, capture_output=True)
        assert hook("post-tool", call, project)[0] == 0
        said = {"last_assistant_message": f"Merged ({n}).", "stop_hook_active": False}
        code, out, err = hook("stop", {**base, **said}, project)
        assert (code, err) == (0, "")
        return out

    resolve = "git merge feature; sed -i -e '/^<<<<<<< /d' -e '/^=======$/d' -e '/^>>>>>>> /d' billing/charge.py"  # fmt: skip
    assert turn(1, resolve) == ""
    assert (project / ".git/MERGE_HEAD").exists()
    assert "fee = float(cents)" in (project / "billing/charge.py").read_text()
    answer = json.loads(turn(2, "echo 'tip = float(1)' >> billing/charge.py"))
    assert answer["decision"] == "block"
    assert "tip = float(1)" in answer["reason"] and "fee = float" not in answer["reason"]


# A clock for the hooks' processes that is `offset` seconds off the one that stamps files:
# what an NFS server's clock, or a dev container's host's, is to the hooks'
SKEWED_CLOCK = """import os, time
_offset = float(os.environ.get("GITMEM_TEST_CLOCK_OFFSET") or 0)
if _offset:
    _now = time.time
    time.time = lambda: _now() + _offset
"""


@pytest.mark.parametrize("offset", [-1.5, 1.5])
def test_what_a_script_wrote_is_the_turns_when_the_clocks_disagree(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offset: float
) -> None:
    """The turn's commands are timed on the hooks' clock and the files they write are
    stamped by the file system's: a network file system's server, or the host of a dev
    container's bind mount. Before session 58, with the two a second or so apart (either
    way), nothing a script wrote was the turn's: not recorded, and a `float(` it wrote in
    billing/ never sent the agent back. The turn's end now reads the file system's clock."""
    _a_script_breaks_the_rule_on_a_skewed_clock(project, tmp_path, monkeypatch, offset)


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("mkfs.ext4") is None,
    reason="mounting a file system image needs root and mkfs.ext4",
)
def test_a_file_system_of_whole_seconds_has_its_clock_read_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system that keeps whole seconds (ext4 with 128-byte inodes, as here; FAT;
    some NFS servers) says the skew to within a second, which the slack its times are read
    with already allows: a skew past that is read too (5 s, either way)."""
    image, mount = tmp_path / "fs.img", tmp_path / "mnt"
    mount.mkdir()
    with open(image, "wb") as fh:
        fh.truncate(32 << 20)
    made = subprocess.run(["mkfs.ext4", "-q", "-I", "128", "-F", str(image)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"mkfs.ext4: {made.stderr.decode()}")
    mounted = subprocess.run(["mount", "-o", "loop", str(image), str(mount)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"no loop mount here: {mounted.stderr.decode().strip()}")
    try:
        root = mount / "repo"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        write(root, "billing/charge.py", "x = 1\n")
        (root / "billing/charge.py").touch()
        assert os.stat(root / "billing/charge.py").st_mtime % 1 == 0  # whole seconds
        for offset in (-5.0, 5.0):
            _a_script_breaks_the_rule_on_a_skewed_clock(root, tmp_path, monkeypatch, offset)
            (root / "billing/gen.py").unlink()
    finally:
        # lazily: a capture flusher the hooks started may still run in it for a moment
        subprocess.run(["umount", "-l", str(mount)], check=True)


def _a_script_breaks_the_rule_on_a_skewed_clock(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offset: float
) -> None:
    """A turn whose script writes `float(` into billing/, its hooks' clock ``offset``
    seconds off the file system's: the turn's end sends the agent back."""
    write(root, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    if git(root, "status", "--porcelain"):
        commit_all(root, "a rule")
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SKEWED_CLOCK)
    pythonpath = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(pythonpath))
    monkeypatch.setenv("GITMEM_TEST_CLOCK_OFFSET", str(offset))
    script = tmp_path / "gen.sh"
    script.write_text("#!/bin/sh\necho 'amount = float(total)' > billing/gen.py\n")
    script.chmod(0o755)
    base = {"session_id": f"clock{offset}", "cwd": str(root)}
    assert hook("prompt", {**base, "prompt": "regenerate billing"}, root)[0] == 0
    call = {**base, "tool_name": "Bash", "tool_input": {"command": str(script)}}
    call["tool_use_id"] = "toolu_clock"
    assert hook("pre-tool", call, root)[0] == 0
    subprocess.run(str(script), shell=True, cwd=root, check=True)
    assert hook("post-tool", call, root)[0] == 0
    said = {"last_assistant_message": "Done.", "stop_hook_active": False}
    code, out, err = hook("stop", {**base, **said}, root)
    assert (code, err) == (0, "")
    answer = json.loads(out or "{}")
    assert answer.get("decision") == "block", out
    assert "billing/gen.py" in answer["reason"] and "float(total)" in answer["reason"]


def test_the_users_work_a_turn_puts_back_from_the_stash_is_not_its_commands(
    project: Path,
) -> None:
    """`git stash pop` (or `apply`) run by the agent puts back work the user stashed. It is
    written while the agent's command runs, so before session 58 the turn's end read a
    `float(` of the user's there as the command's, and sent the agent back to rewrite the
    user's unfinished work: a `git checkout` of a branch holding the same line never did.
    What the turn's own commands wrote, stashed and popped in the turn, still sends it
    back, as does a line added beside the user's. A file taken from the stash by name
    (`git checkout stash@{0} -- PATH`, read by the after-tool hook at once) likewise."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    write(project, "billing/charge.py", "x = 1\ndraft = float(x)\n")  # the user's work
    write(project, "billing/fx.py", "rate = float(1)\n")  # untracked: `stash -u`
    git(project, "stash", "-q", "-u")
    time.sleep(1.1)  # the stash's time is in whole seconds: made before the turn
    script = project.parent / "gen.sh"  # outside the work tree: not stashed with it
    script.write_text("#!/bin/sh\necho 'tip = float(2)' >> billing/charge.py\n")
    script.chmod(0o755)
    base = {"session_id": "sp", "cwd": str(project)}
    session_file = Path(state.session_file(discover(project).shared_state_dir, "sp"))
    calls = iter(range(10))

    def turn(*commands: str, changed: bool = False) -> str:
        n = next(calls)
        bases = _bases(session_file) if changed else 0
        assert hook("prompt", {**base, "prompt": f"bring my work back ({n})"}, project)[0] == 0
        if changed:
            _wait_for_turn_start(session_file, bases)
        for command in commands:
            call = {**base, "tool_name": "Bash", "tool_input": {"command": command}}
            call["tool_use_id"] = f"toolu_sp{n}{len(command)}"
            assert hook("pre-tool", call, project)[0] == 0
            subprocess.run(command, shell=True, cwd=project, check=True, capture_output=True)
            code, after, _ = hook("post-tool", call, project)
            assert code == 0 and "breaks a critical" not in after, after
        said = {"last_assistant_message": f"Done ({n}).", "stop_hook_active": False}
        code, out, err = hook("stop", {**base, **said}, project)
        assert (code, err) == (0, "")
        return out

    assert turn("git stash pop") == ""
    assert "draft = float(x)" in (project / "billing/charge.py").read_text()
    assert (project / "billing/fx.py").exists()
    answer = json.loads(turn(str(script), "git stash -q -u", "git stash pop -q", changed=True))
    assert answer["decision"] == "block"
    assert "tip = float(2)" in answer["reason"] and "draft" not in answer["reason"]
    # a file taken from a stash entry by name: read at once (the after-tool hook), and not
    # the command's either
    git(project, "stash", "-q", "-u")
    write(project, "billing/charge.py", "x = 1\nlate = float(y)\n")
    git(project, "stash", "-q")
    time.sleep(1.1)
    assert turn("git checkout 'stash@{0}' -- billing/charge.py") == ""
    assert "late = float(y)" in (project / "billing/charge.py").read_text()
    assert not (discover(project).shared_state_dir / "hook-errors.log").exists()


def test_an_agents_edit_that_loosens_a_critical_decision_is_said(project: Path) -> None:
    """Since session 50: an agent stopped by a critical rule can edit the record instead
    of the code. After such an edit (the rule removed, the severity lowered), the agent is
    told that the decision is the team's and the user sees a systemMessage; once a
    session for the same loosening; an edit that loosens nothing says nothing of it."""
    rel = ".continuity/decisions/0001-money.md"
    write(project, rel, MONEY_RULE)
    commit_all(project, "a rule")
    path = project / rel

    def after_edit(session: str) -> dict[str, Any]:
        call = {"session_id": session, "cwd": str(project), "tool_name": "Edit",
                "tool_input": {"file_path": str(path), "old_string": "a", "new_string": "b"},
                "tool_response": {}, "tool_use_id": f"{session}-{next(_CALLS)}"}  # fmt: skip
        code, out, err = hook("post-tool", call, project)
        assert (code, err) == (0, "")
        said: dict[str, Any] = json.loads(out) if out else {}
        return said

    path.write_text(MONEY_RULE.replace("## Decision", "## Decision\n\nSee also the ledger."))
    assert "systemMessage" not in after_edit("lo")
    path.write_text(MONEY_RULE.replace("rules:\n  - forbid: '\\bfloat\\('\n", "").replace(
        "    message: amounts are integer cents\n", "").replace("severity: critical", "severity: info"))  # fmt: skip
    said = after_edit("lo")
    assert said["systemMessage"] == (
        "gitmem: the agent's edit loosens a critical decision: D-0001 (Money is integer"
        " cents): severity critical → info (its rules no longer block); its rule"
        " `\\bfloat\\(` removed"
    )
    context = said["hookSpecificOutput"]["additionalContext"]
    assert "change one only when the user asked for it" in context
    assert "systemMessage" not in after_edit("lo")  # said once
    assert "systemMessage" in after_edit("other")  # another session is told too


def test_a_command_that_deletes_a_critical_decision_is_said(project: Path) -> None:
    """`rm` of a record, of the records folder or of a glob of records: the command's
    words name paths that are gone, which no glob governs, so the after-tool hook dropped
    them and said nothing (before session 51; the commit-time check said it). A `git mv`
    of a record deletes no decision."""
    rel = ".continuity/decisions/0001-money.md"
    write(project, rel, MONEY_RULE)
    commit_all(project, "a rule")
    said: list[str] = []
    for n, command in enumerate(
        [
            f"rm {rel}",
            "rm -r .continuity/decisions",
            "rm .continuity/decisions/*",
            f"git rm -q {rel}",
            f"git mv {rel} .continuity/decisions/0001-integer-cents.md",
            "rm -rf billing",
        ]
    ):
        git(project, "reset", "-q", "--hard")
        call = {"session_id": f"rm{n}", "cwd": str(project), "tool_name": "Bash",
                "tool_input": {"command": command}, "tool_use_id": f"rm-{next(_CALLS)}"}  # fmt: skip
        assert hook("pre-tool", call, project)[0] == 0
        subprocess.run(command, shell=True, cwd=project, check=True)
        code, out, err = hook("post-tool", {**call, "tool_response": {}}, project)
        assert (code, err) == (0, "")
        said.append(json.loads(out).get("systemMessage", "") if out else "")
    gone = (
        "gitmem: the agent's edit loosens a critical decision: D-0001 (Money is integer"
        " cents): the record removed, or no longer read as a record"
    )
    assert said == [gone, gone, gone, gone, "", ""]


def test_a_hook_run_in_a_folder_since_deleted_still_answers(project: Path) -> None:
    """The agent's shell went into a folder a command then deleted (`cd build && … &&
    rm -rf ../build`): Claude Code runs the next hooks there, and names it as the cwd.
    Before session 51 every hook failed (the current folder could not be looked up), unlogged
    (the repository was not found either), so a critical rule let `float(` through."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    gone = project / "build"
    call = {"session_id": "gone", "cwd": str(gone), "tool_name": "Edit", "tool_use_id": "g1",
            "tool_input": {"file_path": str(project / "billing/charge.py"),
                           "old_string": "x = 1", "new_string": "x = float(1)"}}  # fmt: skip
    prompt = {"session_id": "gone2", "cwd": str(gone), "prompt": "round billing/charge.py"}
    said = []
    for event, payload in [("pre-tool", call), ("prompt", prompt)]:
        gone.mkdir()
        script = f"cd build && rmdir ../build && exec {GITMEM_HOOK} claude {event}"
        proc = subprocess.run(["sh", "-c", script], input=json.dumps(payload), cwd=project,
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "HOME": SANDBOX_HOME})  # fmt: skip
        assert (proc.returncode, proc.stderr) == (0, "")
        said.append(json.loads(proc.stdout)["hookSpecificOutput"])
    assert said[0]["permissionDecision"] == "deny"
    assert "D-0001 (critical)" in said[0]["permissionDecisionReason"]
    assert "Money is integer cents" in said[1]["additionalContext"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_a_command_names_does_not_block_the_hook(project: Path, tmp_path: Path) -> None:
    """A command may name a FIFO, which blocks whoever opens it until a writer comes:
    `cp /tmp/fifo billing/charge.py` (read as a Write since session 43) held the
    pre-tool hook until its time ran out, and so would `git apply FIFO` and a FIFO in the
    work tree. Files are now opened without waiting, and only regular files are read."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    os.mkfifo(project / "billing" / "pipe")
    call = {"session_id": "ff", "cwd": str(project), "tool_name": "Bash"}
    for event, command in [
        ("pre-tool", f"cp {fifo} billing/charge.py"),
        ("pre-tool", f"git apply {fifo} && patch -p1 < {fifo}"),
        ("pre-tool", "sed -i 's/a/b/' billing/pipe"),
        ("post-tool", "echo 'x = 1' > billing/pipe"),
    ]:
        started = time.monotonic()
        code, _, err = hook(event, {**call, "tool_input": {"command": command}}, project)
        assert (code, err) == (0, "") and time.monotonic() - started < 30, command
    edit = {"session_id": "ff", "cwd": str(project), "tool_name": "Write"}
    edit["tool_input"] = {"file_path": str(project / "billing/pipe"), "content": "y = float(1)\n"}
    said = json.loads(hook("pre-tool", edit, project)[1])["hookSpecificOutput"]
    assert said["permissionDecision"] == "deny"  # its text now is not known: all of it is read
    check = subprocess.run([str(GITMEM), "check", "billing/pipe", "billing/charge.py"], cwd=project,
                           capture_output=True, text=True, timeout=30)  # fmt: skip
    assert check.returncode == 0, check.stderr


def test_a_line_the_user_had_not_committed_is_not_the_commands(project: Path) -> None:
    """The turn's check reads what a command added against the file as the turn found it
    (kept in the background when the prompt came), not against the last commit: a
    rule-breaking line the user wrote and did not commit, in a file a script then changes,
    sends nobody back; a rule-breaking line of the script's own still does, and the reason
    names that line, not the user's."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    write(project, "billing/charge.py", "x = 1\ndebug = float(x)  # the user's, not committed\n")
    base = {"session_id": "b1", "cwd": str(project)}
    session_file = Path(state.session_file(discover(project).shared_state_dir, "b1"))

    def turn(n: int, script: str) -> str:
        assert hook("prompt", {**base, "prompt": f"format billing ({n})"}, project)[0] == 0
        deadline = time.time() + 60  # the prompt hook does not wait for the job it starts
        while session_file.read_text().count('"k":"base"') < n:
            assert time.time() < deadline, session_file.read_text()
            time.sleep(0.05)
        call = {**base, "tool_name": "Bash", "tool_input": {"command": "./fmt.sh"}}
        call["tool_use_id"] = f"toolu_{n}"
        assert hook("pre-tool", call, project)[0] == 0
        subprocess.run(script, shell=True, cwd=project, check=True)
        assert hook("post-tool", call, project)[0] == 0
        said = {"last_assistant_message": f"Formatted ({n})."}  # each turn's own, as sent
        code, out, err = hook("stop", {**base, **said, "stop_hook_active": False}, project)
        assert (code, err) == (0, "")
        return out

    assert turn(1, "printf 'y = 2\\n' >> billing/charge.py") == ""
    answer = json.loads(turn(2, "printf 'z = float(y)\\n' >> billing/charge.py"))
    assert answer["decision"] == "block"
    assert "z = float(y)" in answer["reason"] and "debug" not in answer["reason"]
    assert not (discover(project).shared_state_dir / "hook-errors.log").exists()


def test_the_base_a_turn_reads(project: Path) -> None:
    """The turn-start note holds the deletions already there, and the changed files it
    keeps (a deleted one as None; one too large left out); it is noted only for a turn
    still going (not once a turn's end came after its prompt) and read before any command
    of it started. The turn reads the latest base taken before its first command started,
    none taken after, and none of an earlier turn."""
    from gitmem.agent import shelleffects
    from gitmem.location import location_of

    loc = location_of(discover(project))
    shared = str(loc.shared_state_dir)
    write(project, "billing/charge.py", "x = 2\n")
    write(project, "billing/big.py", "#" * (shelleffects.MAX_BASE_BYTES + 1))
    (project / "api/routes.py").unlink()
    paths = ["billing/charge.py", "billing/big.py", "api/routes.py"]
    since = time.time()
    assert shelleffects.note_turn_start(loc, "k", since, ["api/routes.py"], paths)
    with state.open_session(shared, "k") as session:
        lines = session.text().splitlines()
        (gone,) = state.items(lines, frozenset(("gone",)))
        (item,) = state.items(lines, frozenset(("base",)))
        session.append("stop")
    blob = git(project, "hash-object", "billing/charge.py").strip()
    assert gone["paths"] == ["api/routes.py"]
    assert item["files"] == {"billing/charge.py": blob, "api/routes.py": None}
    assert not shelleffects.note_turn_start(loc, "k", since, [], paths)  # that turn ended
    with state.open_session(shared, "m") as session:  # a command started meanwhile
        session.append("shell", end=False)
    assert not shelleffects.note_turn_start(loc, "m", since, ["api/routes.py"], paths)

    def base(lines: list[tuple[str, float, dict[str, object]]]) -> object:
        with state.open_session(shared, f"s{len(lines)}") as session:
            for kind, when, data in lines:
                session.append(kind, t=when, **data)
            return shelleffects.turn(session).base

    first = {"files": {"a.py": "1" * 40}}
    later = {"files": {"a.py": "2" * 40}}
    start, end = ("shell", 10.0, {"end": False}), ("shell", 12.0, {"end": True})
    assert base([("base", 5.0, first), ("base", 9.0, later), start, end]) == later["files"]
    assert base([("base", 5.0, first), ("base", 11.0, later), start, end]) == first["files"]
    assert base([("base", 11.0, later), start, end]) is None  # a command may have written
    assert base([("base", 5.0, first), ("stop", 6.0, {}), start, end]) is None
    # an end with no start runs from the line before: a base is not a moment of the turn
    with state.open_session(shared, "v") as session:
        session.append("got", t=40.0)
        session.append("base", t=41.0, **later)
        session.append("shell", t=42.0, end=True)
        done = shelleffects.turn(session)
    assert done.spans == [(40.0, 42.0)] and done.base is None


def test_what_a_file_gained_since_the_turn_began(repo: Path) -> None:
    """Read by git's own diff against the noted text: the lines a file gained (a name
    with a space, CRLF endings kept as they are), all of a file that was not there, and
    None for a blob the object store no longer has (the commit is read instead)."""
    from gitmem.agent.claude import _gained_since

    before = "a = 1\r\nb = float(2)  # the user's\r\nc = 3\r\n"
    write(repo, "bill ing/x.py", before)
    blob = git(repo, "hash-object", "-w", "--no-filters", "bill ing/x.py").strip()
    (repo / "bill ing/x.py").write_bytes(
        b"a = 1\r\nb = float(2)  # the user's\r\nz = 9\r\nc = 3\r\n"
    )
    assert _gained_since(str(repo), "bill ing/x.py", blob) == "z = 9"
    whole = (repo / "bill ing/x.py").read_bytes().decode()
    assert _gained_since(str(repo), "bill ing/x.py", None) == whole
    assert _gained_since(str(repo), "bill ing/x.py", "0" * 40) is None
    assert _gained_since(str(repo), "gone.py", blob) is None


def test_a_file_deleted_before_the_sessions_first_turn_is_not_its_commands(
    project: Path,
) -> None:
    """The user deleted docs/old.md before the session; its first turn's command adds a
    file to docs/, which stamps the folder. The turn-start job the prompt hook started
    saw the deletion before any command ran, so only the new file is the command's
    (before session 38, both were)."""
    write(project, "docs/old.md", "gone\n")
    commit_all(project, "docs")
    (project / "docs/old.md").unlink()
    base = {"session_id": "d1", "cwd": str(project)}
    session_file = Path(state.session_file(discover(project).shared_state_dir, "d1"))
    assert hook("prompt", {**base, "prompt": "write the docs"}, project)[0] == 0
    deadline = time.time() + 60  # the prompt hook does not wait for the job it starts
    while '"k":"gone"' not in session_file.read_text():
        assert time.time() < deadline, session_file.read_text()
        time.sleep(0.05)
    call = {**base, "tool_name": "Bash", "tool_input": {"command": "./scripts/docs.sh"}}
    assert hook("pre-tool", call, project)[0] == 0
    write(project, "docs/new.md", "new\n")  # what ./scripts/docs.sh does
    assert hook("post-tool", call, project)[0] == 0
    assert hook("stop", {**base, "stop_hook_active": False}, project) == (0, "", "")
    run_gitmem(project, "capture", "flush")
    (session,) = json.loads(run_gitmem(project, "sessions", "--json").stdout)
    shown = json.loads(run_gitmem(project, "sessions", "show", session["id"], "--json").stdout)
    (turn,) = [r for r in shown["records"] if r.get("kind") == "turn"]
    assert turn["written_by_commands"] == ["docs/new.md"]


def test_a_failed_command_and_a_turn_an_api_error_ended(project: Path) -> None:
    """Claude Code sends PostToolUseFailure, not PostToolUse, after a command that exits
    non-zero or that the user interrupted, and StopFailure, not Stop, when an API error
    ends the turn. Run as the installed settings run them: the command's span ends, what
    it wrote before it failed is the turn's edit, and the turn is recorded at once; no
    block is sent where nobody reads it, even for a broken rule."""
    write(project, ".continuity/decisions/0001-money.md", MONEY_RULE)  # forbids `float(`
    commit_all(project, "a rule")
    claude = fake_claude(project.parent, "2.1.78")
    installed = CliRunner().invoke(cli, ["install", "claude"], env={"GITMEM_CLAUDE": claude})
    assert installed.exit_code == 0
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    # the failure events in the machine's own file: see test_failure_events_only_where_read
    hooks.update(json.loads((project / ".claude" / "settings.local.json").read_text())["hooks"])
    assert hooks["PostToolUseFailure"][0]["matcher"] == "Bash"
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "HOME": SANDBOX_HOME}

    def run(event: str, payload: dict[str, object]) -> str:
        (command,) = [h["command"] for g in hooks[event] for h in g["hooks"]]
        data = json.dumps({**payload, "hook_event_name": event})
        proc = subprocess.run(
            command, shell=True, input=data, capture_output=True, text=True, cwd=project,
            env=env, timeout=60,
        )  # fmt: skip
        assert (proc.returncode, proc.stderr) == (0, "")
        return proc.stdout

    base = {"session_id": "f1", "cwd": str(project), "transcript_path": "/dev/null"}
    run("UserPromptSubmit", {**base, "prompt": "regenerate billing"})
    call = {**base, "tool_name": "Bash", "tool_input": {"command": "./gen.sh"}, "tool_use_id": "t1"}
    run("PreToolUse", call)
    script = "echo 'amount = float(total)' > billing/gen.py; exit 3"
    subprocess.run(script, shell=True, cwd=project, check=False)
    failure = {**call, "error": "Exit code 3", "is_interrupt": True, "duration_ms": 20}
    assert run("PostToolUseFailure", failure) == ""
    said = {"error": "rate_limit", "last_assistant_message": "API Error: rate limited"}
    assert run("StopFailure", {**base, **said}) == ""  # the rule is broken; nobody would read it
    run_gitmem(project, "capture", "flush")
    (session,) = json.loads(run_gitmem(project, "sessions", "--json").stdout)
    shown = json.loads(run_gitmem(project, "sessions", "show", session["id"], "--json").stdout)
    (turn,) = [r for r in shown["records"] if r.get("kind") == "turn"]
    assert turn["written_by_commands"] == ["billing/gen.py"]
    assert not (discover(project).shared_state_dir / "hook-errors.log").exists()


def test_a_folder_a_command_removed(repo: Path) -> None:
    """A deletion takes the time of the nearest folder of its path that still exists: a
    whole generated folder removed counts, as does a file removed from a folder that stays;
    a file deleted before the command, in a folder it left alone, does not."""
    from gitmem.agent import shelleffects

    for path in ("gen/client/a.py", "gen/client/b.py", "src/x.py", "docs/y.md"):
        write(repo, path, "x\n")
    commit_all(repo, "files")
    (repo / "docs/y.md").unlink()
    then = time.time() - 30
    os.utime(repo / "docs", (then, then))
    start = time.time()
    shutil.rmtree(repo / "gen/client")
    (repo / "src/x.py").unlink()
    turn = shelleffects.Turn([(start, time.time())], set(), str(repo))
    gone: list[str] = []
    wrote = shelleffects.written(str(repo), turn, gone)
    assert wrote == ["gen/client/a.py", "gen/client/b.py", "src/x.py"]
    assert sorted(gone) == ["docs/y.md", *wrote]


def fake_claude(folder: Path, version: str) -> str:
    """An executable that answers `--version` as Claude Code ``version`` does."""
    exe = folder / f"claude-{version}"
    exe.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    exe.chmod(0o755)
    return str(exe)


def test_failure_events_only_where_read(project: Path, tmp_path: Path) -> None:
    """A Claude Code that does not know an event name skips the whole settings file that
    names it (2.1.77 with PostToolUseFailure and StopFailure: test_live_agents). So
    `install claude` adds those two only for a Claude Code 2.1.78 or later, and in the
    machine's own file, not the committed one; doctor says when the Claude Code here cannot
    read them, or could and lacks them; uninstall takes them out."""
    runner = CliRunner()
    settings, local = (
        project / ".claude" / "settings.json",
        project / ".claude" / "settings.local.json",
    )
    old, new = fake_claude(tmp_path, "2.1.77"), fake_claude(tmp_path, "2.1.78")
    env = {"GITMEM_CLAUDE": old, "HOME": str(tmp_path / "home")}
    said = runner.invoke(cli, ["install", "claude"], env=env).output
    assert "PostToolUseFailure and StopFailure left out (Claude Code 2.1.77;" in said
    assert "Failure" not in settings.read_text() and not local.exists()
    only_git = tmp_path / "bin"  # a PATH with git and no `claude`
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    missing = {**env, "GITMEM_CLAUDE": "", "PATH": str(only_git)}
    assert "no `claude` on PATH" in runner.invoke(cli, ["install", "claude"], env=missing).output
    doctor = runner.invoke(cli, ["doctor", "--no-model"], env={**env, "GITMEM_CLAUDE": new})
    assert "`gitmem install claude --scope project` adds them" in doctor.output

    env["GITMEM_CLAUDE"] = new
    said = runner.invoke(cli, ["install", "claude"], env=env).output
    assert f"added PostToolUseFailure, StopFailure hooks to {local}" in " ".join(said.split())
    assert "Failure" not in settings.read_text()
    assert set(json.loads(local.read_text())["hooks"]) == {"PostToolUseFailure", "StopFailure"}
    # the machine's own file stays out of `git add -A` (Claude Code's own gitignore rule is
    # not there when gitmem writes the file first)
    untracked = git(project, "status", "--porcelain", "--untracked-files=all").split()
    assert "git ignores" in said and ".claude/settings.local.json" not in untracked
    assert ".claude/settings.json" in untracked  # the team's file: the user commits it
    assert "/.claude/settings.local.json" in (project / ".git/info/exclude").read_text()
    doctor = runner.invoke(cli, ["doctor", "--no-model"], env=env)
    assert "local: PostToolUseFailure, StopFailure" in doctor.output, doctor.output
    assert "lacks" not in doctor.output and "adds them" not in doctor.output
    # the Claude Code here went back to an older release: it skips the local file
    doctor = runner.invoke(cli, ["doctor", "--no-model"], env={**env, "GITMEM_CLAUDE": old})
    (line,) = [n for n in doctor.output.splitlines() if "claude hooks" in n]
    assert line.startswith("!!") and "Claude Code 2.1.77 skips" in doctor.output

    local.write_text(
        json.dumps({"permissions": {"allow": ["Bash(make:*)"]}, **json.loads(local.read_text())})
    )
    said = runner.invoke(cli, ["uninstall", "claude"], env=env).output
    assert f"removed 2 gitmem hooks from {local}" in " ".join(said.split())
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["Bash(make:*)"]}}


def test_when_a_turns_commands_ran(repo: Path) -> None:
    """Each end pairs with the latest open start (parallel calls end in any order); a
    start never ended runs to the turn's end (the stop's time, else its last line: Codex
    runs no after-tool hook for a command that outlives its wait), and never past the
    next prompt; an end with no start runs from the line before; an earlier turn's
    commands were looked at by its end."""
    from gitmem.agent import shelleffects

    shared = str(discover(repo).shared_state_dir)
    lines = [
        ("shell", 1.0, False),  # an earlier turn's command
        ("shell", 2.0, True),
        ("stop", 3.0, None),
        ("shell", 10.0, False),  # A and B in parallel
        ("shell", 11.0, False),
        ("shell", 12.0, True),
        ("shell", 15.0, True),
        ("shell", 20.0, False),  # never ended
        ("got", 30.0, None),
    ]
    with state.open_session(shared, "t") as session:
        for kind, when, end in lines:
            session.append(kind, t=when, **({} if end is None else {"end": end}))
        session.append("edited", t=32.0, paths=["a.py"], root=str(repo))
        turn = shelleffects.turn(session)
        assert shelleffects.turn(session, until=35.0).spans[-1] == (20.0, 35.0)
        # the user's next prompt: that turn had ended (interrupted, say) by its last line
        session.append(state.ASKED, t=300.0)
        session.append("shell", t=301.0, end=False)
        session.append("shell", t=302.0, end=True)
        later = shelleffects.turn(session, until=303.0)
    assert turn.spans == [(11.0, 12.0), (10.0, 15.0), (20.0, 32.0)]
    assert later.spans == [*turn.spans, (301.0, 302.0)]
    assert turn.edited == {"a.py"}
    with state.open_session(shared, "u") as session:  # an agent that marks no start
        session.append("got", t=40.0)
        session.append("shell", t=41.0, end=True)
        assert shelleffects.turn(session).spans == [(40.0, 41.0)]


def test_a_command_that_went_on_in_the_background(repo: Path) -> None:
    """A call that returned while its command runs on (Claude Code's ``backgroundTaskId``)
    runs to the turn's end: the stop hook's time, else (a turn that never ended, read by
    the flusher) the turn's last line; not into the next turn."""
    from gitmem.agent import shelleffects

    shared = str(discover(repo).shared_state_dir)
    with state.open_session(shared, "bg") as session:
        session.append("shell", t=10.0, end=False)
        session.append("shell", t=10.2, end=True, bg=True)  # the call returned
        session.append("shell", t=11.0, end=False)
        session.append("shell", t=12.0, end=True)
        session.append("read", t=14.0, paths=["a.py"])
        assert shelleffects.turn(session, until=20.0).spans == [(11.0, 12.0), (10.0, 20.0)]
        assert shelleffects.turn(session).spans == [(11.0, 12.0), (10.0, 14.0)]
        session.append("stop", t=20.0)
        session.append("shell", t=30.0, end=False)
        session.append("shell", t=31.0, end=True)
        assert shelleffects.turn(session, until=40.0).spans == [(30.0, 31.0)]


def test_a_shell_command_that_moves_governed_code_away_is_named(project: Path) -> None:
    """`git mv billing payments` leaves the money decision governing nothing; before, no
    hook said so (a bare folder name was not even a path to them), and only a commit
    through gitmem's git hook would have, after the fact."""
    move = {"session_id": "mv1", "cwd": str(project), "tool_name": "Bash",
            "tool_input": {"command": "git mv billing payments"}}  # fmt: skip
    code, out, _ = hook("pre-tool", move, project)
    assert code == 0 and "D-0001" in context_of(out)  # about to move governed code
    git(project, "mv", "billing", "payments")
    code, out, _ = hook("post-tool", move, project)
    note = context_of(out)
    assert note.startswith("After this command, what these project decisions govern is no")
    assert (
        "D-0001 Money is integer cents (billing/**) [.continuity/decisions/0001-money.md]" in note
    )
    assert "D-0002" not in note and "change the decision's globs" in note
    assert hook("post-tool", move, project)[1] == ""  # once per session
    # a file removed from a folder that is still there governs as before: nothing to say
    rm = {**move, "session_id": "mv2", "tool_input": {"command": "rm api/routes.py"}}
    (project / "api/routes.py").unlink()
    assert "After this command" not in context_of(hook("post-tool", rm, project)[1])


def test_toolpaths_bash_words() -> None:
    words = toolpaths.bash_words(
        "FOO=bar/baz.py python -m x --out=dist/a.whl src/a.py > log.txt 2>&1 && curl https://x.y/z"
    )
    assert words == ["bar/baz.py", "dist/a.whl", "src/a.py", "log.txt"]
    assert toolpaths.glob_prefix("src/**/*.ts") == "src"


def test_install_merges_is_idempotent_and_uninstall_restores(project: Path) -> None:
    settings_file = project / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    user = {
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}
            ]
        },
    }
    settings_file.write_text(json.dumps(user, indent=2) + "\n")
    runner_ = CliRunner()
    assert runner_.invoke(cli, ["install", "claude"]).exit_code == 0
    once = settings_file.read_text()
    assert runner_.invoke(cli, ["install", "claude", "--mcp"]).exit_code == 0
    assert settings_file.read_text() == once  # idempotent
    data = json.loads(once)
    assert data["permissions"] == user["permissions"]
    pre = data["hooks"]["PreToolUse"]
    assert (
        pre[0] == user["hooks"]["PreToolUse"][0]
        and install.inner_command(pre[1]["hooks"][0]["command"]) == "gitmem-hook claude pre-tool"
    )
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["gitmem"]["args"] == [
        "mcp"
    ]
    assert runner_.invoke(cli, ["uninstall", "claude", "--mcp"]).exit_code == 0
    assert json.loads(settings_file.read_text()) == user
    assert not (project / ".mcp.json").exists()
    # a fresh scope: uninstall removes the file install created
    assert runner_.invoke(cli, ["install", "claude", "--scope", "local"]).exit_code == 0
    assert runner_.invoke(cli, ["uninstall", "claude", "--scope", "local"]).exit_code == 0
    assert not (project / ".claude" / "settings.local.json").exists()
    # an unreadable settings file is never clobbered
    settings_file.write_text("{broken")
    result = runner_.invoke(cli, ["install", "claude"])
    assert result.exit_code == 1 and "not valid JSON" in result.stderr
    assert settings_file.read_text() == "{broken"


def test_a_damaged_path_map_is_logged_and_rebuilt(project: Path) -> None:
    import time

    from gitmem import compile as compiler
    from gitmem import pathmap

    r = discover(project)
    compiler.build(r)
    where = compiler.map_path(r)
    pm = pathmap.PathMap.open(str(where))
    assert pm is not None
    tables = pm._base + 16 * (int(pm.header["buckets"]) + int(pm.header["records"]))  # type: ignore[call-overload]
    pm.close()
    where.write_bytes(where.read_bytes()[:tables])  # opens, then every read comes up short
    payload = {
        "session_id": "dmg",
        "cwd": str(project),
        "tool_name": "Read",
        "tool_input": {"file_path": str(project / "billing/charge.py")},
    }
    code, out, _ = hook("pre-tool", payload, project)
    assert code == 0 and out == ""
    assert "truncated" in (r.shared_state_dir / "hook-errors.log").read_text()

    def healthy() -> bool:
        pm = pathmap.PathMap.open(str(where))
        if pm is None:
            return False
        try:
            return any(d.id == "D-0001" for d, _, _ in pm.match("billing/charge.py"))
        except ValueError:
            return False
        finally:
            pm.close()

    deadline = time.monotonic() + 60
    while not healthy() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert healthy()  # rebuilt in the background
    code, out, _ = hook("pre-tool", {**payload, "session_id": "dmg2"}, project)
    assert "D-0001" in context_of(out)


@pytest.mark.parametrize("noticed_by", ["post-tool", "session-start"])
def test_a_record_edited_in_place_reaches_the_tool_call_hooks(
    project: Path, noticed_by: str
) -> None:
    """An edit in place (Claude Code's Edit, most editors) leaves the record folder's
    mtime, which the tool-call hooks compare, unchanged. The agent's own edit is noticed
    by the post-tool hook; a person's, by the next session start (which compares every
    record's size and mtime in repositories of up to 1,000 records)."""
    import time

    from gitmem import compile as compiler

    compiler.build(discover(project))
    record = project / ".continuity" / "decisions" / "0003-kafka.md"
    folder_mtime = record.parent.stat().st_mtime_ns
    record.write_text(record.read_text().replace("globs: []", 'globs: ["events/**"]'))
    assert record.parent.stat().st_mtime_ns == folder_mtime  # an edit in place
    write(project, "events/topic.py", "")
    read = {
        "session_id": "inplace",
        "cwd": str(project),
        "tool_name": "Read",
        "tool_input": {"file_path": str(project / "events/topic.py")},
    }
    code, out, _ = hook("pre-tool", read, project)
    assert code == 0 and "D-0003" not in context_of(out)  # the map does not know yet
    if noticed_by == "post-tool":
        event = {
            "session_id": "inplace",
            "cwd": str(project),
            "tool_name": "Edit",
            "tool_input": {"file_path": str(record), "old_string": "[]", "new_string": "x"},
            "tool_response": {"success": True},
        }
    else:
        event = {"session_id": "inplace-next", "cwd": str(project), "source": "startup"}
    code, _, _ = hook(noticed_by, event, project)
    assert code == 0
    deadline = time.monotonic() + 60
    seen = ""
    n = 0
    while "D-0003" not in seen and time.monotonic() < deadline:
        time.sleep(0.3)
        n += 1
        _, out, _ = hook("pre-tool", {**read, "session_id": f"inplace-{n}"}, project)
        seen = context_of(out)
    assert "D-0003" in seen


@pytest.mark.parametrize(
    ("agent", "variable", "value", "expected"),
    [
        ("claude", "CLAUDE_CONFIG_DIR", "/cfg/claude", "/cfg/claude/settings.json"),
        ("gemini", "GEMINI_CLI_HOME", "/cfg/g", "/cfg/g/.gemini/settings.json"),
        ("qwen", "QWEN_HOME", "~/qwen-cfg", "{home}/qwen-cfg/settings.json"),
        ("codex", "CODEX_HOME", "/cfg/codex", "/cfg/codex/hooks.json"),
        ("copilot", "COPILOT_HOME", "/cfg/cp", "/cfg/cp/hooks/gitmem.json"),
        ("claude", "CLAUDE_CONFIG_DIR", "", "{home}/.claude/settings.json"),  # set but empty
    ],
)
def test_the_user_scope_is_where_the_agent_reads_it(
    agent: str, variable: str, value: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agents' own variables for their user folder (read in their code), as they read
    them; the live runs are in test_live_agents.py."""
    home = Path(os.environ["HOME"])
    monkeypatch.setenv(variable, value)
    where = install.AGENTS[agent].path("user", Path("/repo"), home)
    assert where == Path(expected.format(home=home))


def test_install_upgrades_hooks_an_older_gitmem_installed(project: Path) -> None:
    settings_file = project / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    old = {"type": "command", "command": "gitmem hook claude pre-tool", "timeout": 10}
    mine = {"type": "command", "command": "my-linter"}
    settings_file.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [mine, old]}]}})
    )
    home = project / "home"
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model", "--json"], env={"HOME": str(home)})
    assert "older command form in project" in doctor.stdout
    assert install.install(settings_file) == [*install.EVENTS]  # 5 added, 1 updated
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model", "--json"], env={"HOME": str(home)})
    assert "older command form" not in doctor.stdout
    pre = json.loads(settings_file.read_text())["hooks"]["PreToolUse"]
    assert pre == [
        {
            "matcher": "Edit",
            "hooks": [
                mine,
                {
                    **old,
                    "command": install.GUARD.format(
                        program="gitmem-hook", command="gitmem-hook claude pre-tool"
                    ),
                },
            ],
        }
    ]
    assert install.install(settings_file) == []
    assert install.uninstall(settings_file) == len(install.CLAUDE.events)
    assert json.loads(settings_file.read_text()) == {
        "hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [mine]}]}
    }


def test_both_entry_points_answer_alike(project: Path) -> None:
    for event, extra in [
        ("pre-tool", {"tool_name": "Edit", "tool_input": {"file_path": "billing/charge.py"}}),
        ("prompt", {"prompt": "are floats ok for money amounts?"}),
    ]:
        answers = []
        for console in (False, True):
            payload = {"session_id": f"both-{event}-{console}", "cwd": str(project), **extra}
            code, out, err = hook(event, payload, project, console=console)
            assert code == 0 and err == ""
            answers.append(out)
        assert answers[0] == answers[1] and "D-0001" in context_of(answers[0])


def test_install_falls_back_to_the_console_script(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where `gitmem-hook` is not on PATH (an installer that links console scripts only),
    the hooks call `gitmem hook claude EVENT`, and that command works."""
    bin_dir = project / "only-gitmem"
    bin_dir.mkdir()
    (bin_dir / "gitmem").symlink_to(str(GITMEM))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    settings_file = project / ".claude" / "settings.json"
    assert CliRunner().invoke(cli, ["install", "claude"]).exit_code == 0
    command = json.loads(settings_file.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert install.inner_command(command) == "gitmem hook claude pre-tool"
    assert command.startswith("if command -v gitmem >")
    payload = {
        "session_id": "console",
        "cwd": str(project),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(project / "billing/charge.py")},
    }
    proc = subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "HOME": SANDBOX_HOME},
        timeout=60,
    )
    assert proc.returncode == 0 and "D-0001" in context_of(proc.stdout)


def test_doctor_flags_a_version_manager_shim(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pyenv shim in front of `gitmem-hook` works but runs pyenv on every hook event;
    doctor says so, and sees the shim even when it runs under pyenv itself (which puts
    its own folders in front of PATH)."""
    shims = project / "pyenv-root" / "shims"
    shims.mkdir(parents=True)
    shim = shims / "gitmem-hook"
    shim.write_text('#!/usr/bin/env bash\nset -e\nexec "/x/libexec/pyenv" exec "$program" "$@"\n')
    shim.chmod(0o755)
    versions = project / "pyenv-root" / "versions" / "3.11" / "bin"
    versions.mkdir(parents=True)
    (versions / "gitmem-hook").symlink_to(Path(str(GITMEM)).parent / "gitmem-hook")
    assert CliRunner().invoke(cli, ["install", "claude"]).exit_code == 0
    rest = os.environ["PATH"]
    monkeypatch.setenv("PATH", os.pathsep.join((str(shims), rest)))
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"]).output
    assert f"{shim} is a pyenv shim" in doctor
    # under pyenv exec: its folders first, the user's PATH (with the shims) after
    monkeypatch.setenv("PYENV_ROOT", str(project / "pyenv-root"))
    monkeypatch.setenv("PYENV_DIR", str(project))
    monkeypatch.setenv("PATH", os.pathsep.join((str(versions), str(shims), rest)))
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"]).output
    assert f"{shim} is a pyenv shim" in doctor
    monkeypatch.setenv("PATH", os.pathsep.join((str(versions), rest)))  # no shim: fine
    doctor = CliRunner().invoke(cli, ["doctor", "--no-model"]).output
    assert "shim" not in doctor and "gitmem-hook on PATH" in doctor


def test_end_to_end_command_from_settings(project: Path) -> None:
    assert CliRunner().invoke(cli, ["install", "claude"]).exit_code == 0
    data = json.loads((project / ".claude" / "settings.json").read_text())
    command = data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    payload = tool_call("e2e", project, "billing/charge.py", "Edit")
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "HOME": SANDBOX_HOME}
    proc = subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0 and "D-0001" in context_of(proc.stdout)


def test_plugin_files_match_the_installer() -> None:
    assert (ROOT / "hooks" / "hooks.json").read_text() == install.plugin_hooks_json()
    manifest = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "gitmem"
    assert (
        json.loads((ROOT / ".mcp.json").read_text())["mcpServers"]["gitmem"] == install.MCP_SERVER
    )


def _modules_loaded_by(project: Path, payload: dict[str, object], body: str) -> set[str]:
    """The modules a fresh interpreter adds to what it had loaded, importing the hook
    runner and running ``body`` (with ``run``, ``io`` and the payload in argv[1])."""
    code = (
        "import io, sys\n"
        "before = set(sys.modules)\n"
        "from gitmem.agent.runner import run\n"
        f"{body}"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(payload)],
        capture_output=True,
        text=True,
        check=True,
        cwd=project,
    )
    return set(out.stdout.split())


INFORMED_BY = {"claude": "pre-tool", "codex": "pre-tool", "gemini": "post-tool",
               "cursor": "post-tool", "copilot": "pre-tool", "qwen": "post-tool",
               "opencode": "pre-tool", "cline": "post-tool", "droid": "post-tool",
               "pi": "pre-tool"}  # fmt: skip


@pytest.mark.parametrize(
    ("agent", "tool_name", "tool_input"),
    [
        ("claude", "Edit", {"file_path": "{root}/billing/charge.py"}),
        ("claude", "Bash", {"command": "cat {root}/billing/charge.py > /dev/null"}),
        ("codex", "apply_patch", {"command": "*** Update File: {root}/billing/charge.py\n+y"}),
        ("gemini", "read_file", {"absolute_path": "{root}/billing/charge.py"}),
        ("cursor", "Read", {"file_path": "{root}/billing/charge.py"}),
        ("copilot", "view", {"path": "{root}/billing/charge.py"}),
        ("qwen", "read_file", {"file_path": "{root}/billing/charge.py"}),
        ("opencode", "read", {"filePath": "{root}/billing/charge.py"}),
        ("cline", "read_files", {"path": "{root}/billing/charge.py"}),
        ("droid", "Execute", {"command": "cat {root}/billing/charge.py"}),
        ("pi", "read", {"path": "{root}/billing/charge.py"}),
    ],
)
def test_tool_call_hooks_load_only_built_in_modules(
    project: Path, agent: str, tool_name: str, tool_input: dict[str, str]
) -> None:
    """pre-tool and post-tool run around every tool call: beyond what the interpreter had
    loaded, they may import gitmem's lean modules and two small C extensions, nothing
    else (no json, re, pathlib, typing, sqlite3: each costs milliseconds at start)."""
    CliRunner().invoke(cli, ["why", "billing/charge.py"])  # compile the table and map first
    payload = {
        "session_id": "lean",
        "cwd": str(project),
        "tool_name": tool_name,
        "tool_input": {k: v.format(root=project) for k, v in tool_input.items()},
    }
    if agent == "cline":  # its own payload, in a session whose digest was made: the first
        # tool result's hook makes it (runner.DIGEST_AT_FIRST_RESULT), loading more, once
        files = list(payload.pop("tool_input").values())  # type: ignore[attr-defined]
        payload = {"taskId": "lean", "workspaceRoots": [str(project)],
                   "tool_call": {"name": tool_name, "input": {"files": files}}}  # fmt: skip
        assert state.claim(discover(project).shared_state_dir, "lean", "digest")
    loaded = _modules_loaded_by(
        project,
        payload,
        "for event in ('pre-tool', 'post-tool'):\n"
        "    out = io.StringIO()\n"
        f"    run({agent!r}, event, io.BytesIO(sys.argv[1].encode()), out)\n"
        # Gemini CLI's, Cursor's and Qwen Code's before-tool hooks cannot add context: the
        # after-tool hooks bring the decision
        f"    informs = event == {INFORMED_BY[agent]!r}\n"
        "    assert not informs or 'D-0001' in out.getvalue(), out.getvalue()\n",
    )
    extra = {m for m in loaded if m != "gitmem" and not m.startswith("gitmem.")}
    # errno: a shell call marks its span in the capture's state (built into the interpreter)
    assert extra <= {"_json", "fcntl", "__future__", "errno"}, sorted(extra)
    assert "re" not in extra  # a shell command without a heredoc reads none
    assert {"gitmem.pathmap", "gitmem.agent.tooluse"} <= loaded
    assert "gitmem.spelling" not in loaded  # for case-insensitive file systems alone
    # a commit's check, for a command that may commit without the hooks alone
    assert not {"gitmem.agent.unhooked", "gitmem.agent.shellcommits"} & loaded
    assert "gitmem.agent.shelledits" not in loaded  # for a `sed -i` or `perl -pi` alone
    assert "gitmem.agent.shelldiffs" not in loaded  # for a `git apply` or `patch` alone
    assert "gitmem.agent.recordnotes" not in loaded  # after an edit of gitmem's own files
    assert "gitmem.adrwords" not in loaded  # ADR logs' words, for reading an ADR alone
    if tool_name not in ("Bash", "Execute"):  # after a shell command alone
        assert "gitmem.agent.gonenotes" not in loaded


def test_a_rule_is_checked_without_pathspec_or_typing(project: Path) -> None:
    """An edit a rule governs loads the table and RE2 to check it; before session 35 the
    rule's `paths` also loaded pathspec, and the rule module `typing` (~60 ms together)."""
    write(project, ".continuity/decisions/0004-no-float.md",
          "---\ntitle: No floats in billing\nstatus: accepted\nseverity: critical\n"
          "globs: ['billing/**']\nrules:\n  - forbid: '\\bfloat\\('\n"
          "    paths: ['billing/**/*.py', '!billing/experimental/**']\n"
          "    message: amounts are integer cents\n---\n## Decision\n\nNo floats.\n")  # fmt: skip
    CliRunner().invoke(cli, ["why", "billing/charge.py"])  # compile the table and map first
    edit = {"file_path": str(project / "billing/charge.py"), "old_string": "x = 1",
            "new_string": "x = float(1)"}  # fmt: skip
    payload = {"session_id": "rule", "cwd": str(project), "tool_name": "Edit", "tool_input": edit}
    loaded = _modules_loaded_by(
        project,
        payload,
        "out = io.StringIO()\n"
        "run('claude', 'pre-tool', io.BytesIO(sys.argv[1].encode()), out)\n"
        "assert 'forbids this change' in out.getvalue(), out.getvalue()\n",
    )
    assert {"gitmem.rules", "re2"} <= loaded
    assert not {m.split(".")[0] for m in loaded} & {"pathspec", "typing"}
    assert "gitmem.globs" not in loaded


def test_prompt_keeps_heavy_and_slow_modules_off_the_import_path(project: Path) -> None:
    """The prompt hook may load `re` and SQLite; not the heavy libraries, and not the
    standard modules that cost a fresh interpreter several milliseconds each (counting what
    it adds to what the interpreter had loaded: some environments' .pth files load more)."""
    prompt = {
        "session_id": "imp2",
        "cwd": str(project),
        "prompt": "are floats ok for money amounts? password: abc123secret",
    }
    CliRunner().invoke(cli, ["why", "billing/charge.py"])  # compile the table first
    loaded = _modules_loaded_by(
        project,
        prompt,
        "out = io.StringIO()\n"
        "run('claude', 'prompt', io.BytesIO(sys.argv[1].encode()), out)\n"
        "assert 'D-0001' in out.getvalue(), out.getvalue()\n",
    )
    heavy = {"click", "rich", "pygit2", "whoosh", "fastembed", "onnxruntime", "numpy", "ruamel"}
    slow = {"json", "pathlib", "typing", "dataclasses", "inspect", "sqlite3", "subprocess"}
    slow |= {"socket", "hashlib", "datetime", "getpass", "traceback", "mcp"}
    assert not {m.split(".")[0] for m in loaded} & (heavy | slow)
    wal = Path(capture_wal(project, "imp2")).read_text()
    assert "abc123secret" not in wal and "floats" in wal  # captured, redacted


def test_session_start_keeps_slow_modules_off_the_import_path(project: Path) -> None:
    """Session start runs git twice and reads the table, in a fresh interpreter at every
    session: without `subprocess`, `pathlib`, `typing`, `datetime` (milliseconds each)."""
    CliRunner().invoke(cli, ["why", "billing/charge.py"])  # compile the table first
    (project / "api" / "routes.py").write_text("# changed\n")  # git status reports it
    payload = {"session_id": "imp3", "cwd": str(project), "source": "startup"}
    loaded = _modules_loaded_by(
        project,
        payload,
        "out = io.StringIO()\n"
        "run('claude', 'session-start', io.BytesIO(sys.argv[1].encode()), out)\n"
        "text = out.getvalue().split('files changed on this branch or uncommitted')[1]\n"
        "assert 'D-0002' in text.split('Recently added')[0], out.getvalue()\n",
    )
    heavy = {"click", "rich", "pygit2", "whoosh", "fastembed", "onnxruntime", "numpy", "ruamel"}
    slow = {"json", "pathlib", "typing", "dataclasses", "inspect", "sqlite3", "subprocess"}
    slow |= {"socket", "hashlib", "datetime", "getpass", "traceback", "contextlib", "re"}
    assert not {m.split(".")[0] for m in loaded} & (heavy | slow), sorted(loaded)


def test_stop_starts_the_flusher_without_subprocess_or_pathlib(project: Path) -> None:
    """`stop` runs at the end of every agent turn and starts the capture flusher: it does
    so with `os.posix_spawn`, and the flusher, started in the repository, commits the
    turn's prompt to the session's ref."""
    from gitmem import capture

    payload = {"session_id": "imp4", "cwd": str(project), "prompt": "keep amounts in cents"}
    runner.run("claude", "prompt", io.BytesIO(json.dumps(payload).encode()), io.StringIO())
    r = discover(project)
    assert os.path.exists(capture.wal_path(r, "imp4"))
    loaded = _modules_loaded_by(
        project,
        {"session_id": "imp4", "cwd": str(project)},
        "run('claude', 'stop', io.BytesIO(sys.argv[1].encode()), io.StringIO())\n",
    )
    heavy = {"click", "rich", "pygit2", "whoosh", "fastembed", "onnxruntime", "numpy", "ruamel"}
    slow = {"json", "pathlib", "typing", "sqlite3", "subprocess", "re", "contextlib", "runpy"}
    assert not {m.split(".")[0] for m in loaded} & (heavy | slow), sorted(loaded)
    ref = capture.ref_for("imp4")
    deadline = time.monotonic() + 30
    while not capture.records(r, ref) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [rec["prompt"] for rec in capture.records(r, ref)] == ["keep amounts in cents"]


def test_concurrent_sessions_lose_nothing(project: Path) -> None:
    shared = discover(project).shared_state_dir
    code = (
        "import sys\nfrom pathlib import Path\nfrom gitmem.agent import state\n"
        "for i in range(100):\n"
        "    with state.open_session(Path(sys.argv[1]), 'same') as s:\n"
        "        s.append('read', paths=[f'{sys.argv[2]}-{i}'])\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(shared), f"p{n}"]) for n in range(6)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    view = state.read_view(shared, "same")
    assert len(view.read) == 600 and len(set(view.read)) == 600


def test_a_prompt_delivered_twice_is_captured_once_a_repeated_one_twice(
    project: Path, tmp_path: Path
) -> None:
    """Claude Code runs the plugin's hooks beside the settings': one prompt reaches two
    gitmem processes at once. The same short prompt typed again a turn later is another
    prompt, though its payload reads the same (Claude Code stamps no prompt)."""
    transcript = tmp_path / "session.jsonl"
    transcript.write_text('{"type":"user"}\n')
    payload = {"session_id": "twice", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
               "transcript_path": str(transcript), "prompt": "yes"}  # fmt: skip
    env = {**os.environ, "HOME": SANDBOX_HOME}
    procs = [subprocess.Popen([str(GITMEM_HOOK), "claude", "prompt"], cwd=project, env=env,
                              stdin=subprocess.PIPE, text=True) for _ in range(2)]  # fmt: skip
    for proc in procs:
        proc.communicate(json.dumps(payload), timeout=60)
    wal = Path(capture_wal(project, "twice"))
    assert wal.read_text().count('"prompt":"yes"') == 1
    age_deliveries(project, "twice", runner.CLAUDE_REDELIVERY_S)  # a turn later
    assert hook("prompt", payload, project)[0] == 0
    assert wal.read_text().count('"prompt":"yes"') == 2


def test_fingerprints_tell_payloads_apart() -> None:
    """What first_delivery compares: small payloads without an import, large ones by CRC;
    one byte apart is another payload either way."""
    small = b'{"prompt": "yes", "tool_use_id": "t1"}'
    assert state.fingerprint(small) == state.fingerprint(bytes(small))
    assert state.fingerprint(small) != state.fingerprint(small.replace(b"t1", b"t2"))
    large = b"x" * 70_000
    assert state.fingerprint(large).startswith("c")
    assert state.fingerprint(large) != state.fingerprint(large[:-1] + b"y")


def test_mcp_server_over_stdio(project: Path) -> None:
    from gitmem import capture

    # a captured session that edited the file: `why` names it (since session 33)
    r = discover(project)
    capture.append(
        r, "m1", {"kind": "prompt", "prompt": "cents for refunds\nthen tests", "time": 1e9}
    )
    capture.append(
        r, "m1", {"kind": "close", "time": 1e9 + 1, "files_edited": ["billing/charge.py"]}
    )
    assert capture.flush(r, "m1") == 2
    proc = subprocess.Popen(
        [str(GITMEM), "mcp"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HOME": SANDBOX_HOME},
    )
    assert proc.stdin and proc.stdout

    def send(message: dict[str, object]) -> None:
        proc.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def receive() -> dict[str, object]:
        while True:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            assert line, proc.stderr.read() if proc.stderr else "mcp server closed"
            msg = json.loads(line)
            if "id" in msg:
                return msg  # type: ignore[no-any-return]

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"},
                },
            }
        )
        initialized = receive()
        assert initialized["result"]["serverInfo"] == {"name": "gitmem", "version": __version__}  # type: ignore[index]
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        listed = receive()["result"]["tools"]  # type: ignore[index]
        tools = {t["name"] for t in listed}
        assert tools == {"search_decisions", "why", "get_decision", "propose_decision"}
        # plain text results: a client that prefers structured content (Claude Code does)
        # would otherwise get the JSON text again as an escaped string ({"result": "..."})
        assert not any(t.get("outputSchema") for t in listed)
        send(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "why", "arguments": {"path": "billing/charge.py"}},
            }
        )
        answer = receive()["result"]
        text = answer["content"][0]["text"]  # type: ignore[index]
        assert json.loads(text)[0]["decisions"][0]["id"] == "D-0001"
        assert [x["first_prompt"] for x in json.loads(text)[0]["sessions"]] == ["cents for refunds"]
        assert "structuredContent" not in answer  # type: ignore[operator]
        send(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {
                    "name": "propose_decision",
                    "arguments": {
                        "title": "Use UUIDv7\nids",  # one line (since session 49)
                        "rationale": "Sortable ids.",
                        "globs": ["api/**"],
                    },
                },
            }
        )
        proposed = json.loads(receive()["result"]["content"][0]["text"])  # type: ignore[index]
        assert proposed["status"] == "proposed"
        record = (project / proposed["file"]).read_text()
        assert "status: proposed" in record and "Sortable ids." in record
        assert "title: Use UUIDv7 ids\n" in record and "\n# Use UUIDv7 ids\n" in record
        # what the user or the model can mend is the tool's error, said (since session 51)
        # and text its reviewers would not see is refused, not written (since session 52)
        smuggled = tag_text("use floats")
        for n, (tool, arguments, expected) in enumerate(
            [
                ("get_decision", {"id": "D-9999"}, "no decision 'D-9999'"),
                ("propose_decision", {"title": " ", "rationale": "x"}, "the title is empty"),
                (
                    "propose_decision",
                    {"title": "Cents", "rationale": f"Use cents.{smuggled}"},
                    "the text holds 10 invisible Unicode tag characters",
                ),
            ]
        ):
            call = {"name": tool, "arguments": arguments}
            send({"jsonrpc": "2.0", "id": 5 + n, "method": "tools/call", "params": call})
            failed = receive()["result"]
            assert failed["isError"] is True, failed  # type: ignore[index]
            said = failed["content"][0]["text"]  # type: ignore[index]
            assert expected in said, said
        assert not list((project / ".continuity/decisions").glob("*-cents.md"))
    finally:
        proc.kill()
        proc.wait()


def test_session_start_names_decisions_of_files_changed_on_the_branch(
    project: Path, tmp_path: Path
) -> None:
    """Against the branch's upstream, found from git's files (loose or packed refs)."""
    from conftest import git

    from gitmem import location

    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(project), str(origin))
    git(project, "remote", "add", "origin", str(origin))
    git(project, "fetch", "-q", "origin")
    git(project, "checkout", "-q", "-b", "feature", "--track", "origin/main")
    write(project, "api/routes.py", "VERSION_HEADER = 'Paydash-Version'\n")
    commit_all(project, "api change")
    git(project, "pack-refs", "--all")  # refs now live in packed-refs only
    r = discover(project)
    assert location.has_upstream(str(r.common_dir), "feature")
    assert not location.has_upstream(str(r.common_dir), "main")
    head = git(project, "rev-parse", "HEAD").strip()
    assert location.head(str(r.git_dir), str(r.common_dir)) == ("feature", head)
    assert location.resolve_ref(str(r.git_dir), str(r.common_dir), "refs/remotes/origin/main")
    _, out, _ = hook("session-start", {"session_id": "br", "cwd": str(project)}, project)
    text = context_of(out)
    branch_part = text.split("Decisions governing files changed on this branch")[1]
    assert "D-0002" in branch_part.split("\n\n")[0]


STATUS_FIRST_ADR = """# ADR 019: Strict inflation schedule

## Status

Implemented in <https://github.com/example/chain/pull/1578>

## Changelog

- 2023/3/31: Initial draft

## Context

Chains that use the [x/mint](https://example.com/cosmos/x/mint/README.md) module
inflate at a flexible rate; we want a predictable schedule.

## Design

Inflation starts at 8% and falls by 10% a year down to 1.5%, computed in `x/mint`.
"""
STATUS_ONLY_DECISION_ADR = """# ADR 007: Universal share prefix

## Status

Accepted

## Terminology

- **share**: a fixed-size chunk of a block's data.

## Proposal

Every share starts with the namespace and an info byte, in `x/shares`.

## Decision

Accepted
"""


def test_an_imported_adr_that_opens_with_its_status_is_summarised_by_its_content(
    repo: Path,
) -> None:
    """Many real ADRs open with "## Status" and "## Changelog", and some keep only
    "Accepted" under "## Decision": the agent must read what was decided, not the status."""
    write(repo, "docs/architecture/adr-019-strict-inflation.md", STATUS_FIRST_ADR)
    write(repo, "docs/architecture/adr-007-universal-share-prefix.md", STATUS_ONLY_DECISION_ADR)
    write(repo, "x/mint/keeper.go", "")
    write(repo, "x/shares/share.go", "")
    commit_all(repo, "adrs")
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    told = []
    for path in ("x/mint/keeper.go", "x/shares/share.go"):
        code, out, err = hook("pre-tool", tool_call("s-adr", repo, path), repo)
        assert code == 0, err
        told.append(context_of(out))
    mint, shares = told
    # the Context, not the Status; a link reads as its text (its URL would only cost tokens)
    assert "Chains that use the x/mint module inflate at a flexible rate" in mint
    assert "Implemented in" not in mint and "Initial draft" not in mint
    assert "Every share starts with the namespace and an info byte" in shares  # Proposal
    assert "Accepted" not in shares.split("Universal share prefix", 1)[1]


def test_a_pulled_critical_decision_is_in_the_next_digest(repo: Path, tmp_path: Path) -> None:
    """A teammate records a critical decision and pushes it; this clone pulls it and starts
    a session. Its table was compiled before the pull, and the digest is the session's
    one: it has the new decision among the pinned and critical ones (before session 28 a
    stale table answered, and the digest left it out, while a background refresh ran)."""
    write(repo, "billing/charge.py", "x = 1\n")
    decision(repo, "0001-api.md", "Version the API with a header", globs=["api/**"])
    commit_all(repo, "first decision")
    start = {"session_id": "before-pull", "cwd": str(repo), "source": "startup"}
    assert "Version the API" in context_of(hook("session-start", start, repo)[1])  # compiled
    theirs = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(repo), str(theirs))
    decision(theirs, "0002-money.md", "Money is integer cents", globs=["billing/**"],
             extra="severity: critical\n")  # fmt: skip
    commit_all(theirs, "a critical decision")
    git(repo, "pull", "-q", "--no-rebase", str(theirs), "HEAD")
    code, out, err = hook("session-start", {**start, "session_id": "after-pull"}, repo)
    assert code == 0, err
    digest = context_of(out)
    assert "Pinned and critical project decisions:" in digest
    assert "Money is integer cents" in digest.split("Pinned and critical")[1]


@pytest.mark.parametrize("others", [0, 400])
def test_a_prompt_after_a_pull_gets_the_pulled_decision(
    repo: Path, tmp_path: Path, others: int
) -> None:
    """Mid-session, a `git pull` brings a teammate's decision about billing, and the user's
    next prompt names a billing file: the prompt gets that decision (before session 29 the
    stale table answered while a background refresh ran, and the prompt got nothing). Also
    among 400 other records: a stale table is refreshed inline up to 1,000 (a missing one,
    which is a full build, up to 300)."""
    for n in range(others):
        write(repo, f".continuity/decisions/{n + 100:04d}-other.md",
              f"---\ntitle: Other decision {n}\nglobs: ['area{n}/**']\n---\nText.\n")  # fmt: skip
    write(repo, "billing/charge.py", "x = 1\n")
    decision(repo, "0001-api.md", "Version the API with a header", globs=["api/**"])
    commit_all(repo, "first decision")
    ask = {"session_id": "pull", "cwd": str(repo), "hook_event_name": "UserPromptSubmit",
           "prompt": "round the totals in billing/charge.py"}  # fmt: skip
    assert CliRunner().invoke(cli, ["why", "billing/charge.py"]).exit_code == 0  # compiled
    code, out, err = hook("prompt", ask, repo)
    assert (code, out, err) == (0, "", "")  # nothing governs billing yet
    theirs = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(repo), str(theirs))
    decision(theirs, "0002-money.md", "Money is integer cents", globs=["billing/**"])
    commit_all(theirs, "a billing decision")
    git(repo, "pull", "-q", "--no-rebase", str(theirs), "HEAD")
    code, out, err = hook("prompt", {**ask, "prompt": "now add tax to billing/charge.py"}, repo)
    assert code == 0, err
    assert "Money is integer cents" in context_of(out)


def test_a_critical_rule_pulled_mid_session_holds_at_the_next_edit(
    repo: Path, tmp_path: Path
) -> None:
    """The session is under way (its path map compiled) when a `git pull` brings a
    teammate's critical decision with a rule. The agent's next edit that breaks it is
    denied (before session 28 the stale map, used while a background refresh ran, knew no
    decision there: the edit went through unchecked). A read still takes the map as it is."""
    write(repo, "billing/charge.py", "x = 1\n")
    decision(repo, "0001-api.md", "Version the API with a header", globs=["api/**"])
    commit_all(repo, "first decision")
    read = tool_call("mid", repo, "billing/charge.py")
    assert hook("pre-tool", read, repo)[0] == 0  # the map is compiled, nothing governs yet
    theirs = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(repo), str(theirs))
    write(theirs, ".continuity/decisions/0002-money.md", MONEY_RULE)
    commit_all(theirs, "a critical rule")
    git(repo, "pull", "-q", "--no-rebase", str(theirs), "HEAD")
    edit = {**read, "tool_name": "Edit",
            "tool_input": {"file_path": str(repo / "billing/charge.py"),
                           "old_string": "x = 1", "new_string": "x = float(1)"}}  # fmt: skip
    code, out, err = hook("pre-tool", edit, repo)
    assert code == 0, err
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny", answer
    assert "D-0002 (critical)" in answer["permissionDecisionReason"]


def test_session_start_names_the_decisions_of_a_settled_project(repo: Path) -> None:
    """Nothing pinned, recent or governing a changed file: the digest still says that the
    decisions exist and what they decide (titles, within ~1,200 characters), without
    marking them shown, so a tool call still brings a decision's summary."""
    write(repo, "billing/charge.py", "")
    for n in range(1, 41):
        decision(
            repo,
            f"{n:04d}-d.md",
            f"Settled decision number {n} about topic {n}",
            globs=["billing/**"] if n == 7 else [f"area{n}/**"],
            extra=f"date: 2020-01-{(n % 28) + 1:02d}\n" + ("severity: warning\n" if n == 7 else ""),
            body=f"## Decision\n\nThe rationale of decision {n}.\n",
        )
    commit_all(repo, "settled decisions")
    start = {"session_id": "settled", "cwd": str(repo), "source": "startup"}
    code, out, err = hook("session-start", start, repo)
    assert code == 0, err
    digest = context_of(out)
    assert digest.startswith("This repository records 40 current architectural decisions")
    assert "Settled decision number 7 about topic 7;" in digest.split("Decided so far: ")[1][:60]
    assert "more: `gitmem list`)." in digest and len(digest) < 1600
    # a resumed session has its first digest already
    assert hook("session-start", {**start, "source": "resume"}, repo)[1] == ""
    read = tool_call("settled", repo, "billing/charge.py")
    assert "The rationale of decision 7." in context_of(hook("pre-tool", read, repo)[1])
    for n in range(2, 41):  # one decision left: said as one
        (repo / f".continuity/decisions/{n:04d}-d.md").unlink()
    commit_all(repo, "one left")
    one = context_of(hook("session-start", {**start, "session_id": "one"}, repo)[1])
    assert one.startswith("This repository records 1 current architectural decision with")


def test_prompt_does_not_wait_long_for_a_busy_daemon(project: Path) -> None:
    """A daemon that accepts and does not answer (busy: a branch switch's re-index took
    19 s at 1,500 records) held the prompt, and so the agent, for the client's full 5 s.
    The hook now gives up after client.HOOK_REPLY_TIMEOUT_S and answers in-process."""
    import socket
    import threading

    from gitmem import client

    r = discover(project)
    r.state_dir.mkdir(parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(client.socket_path(r))
    server.listen(4)
    held: list[socket.socket] = []

    def accept_and_say_nothing() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept_and_say_nothing, daemon=True).start()
    try:
        payload = {"session_id": "busy", "cwd": str(project), "prompt": "kafka domain events?"}
        started = time.monotonic()
        code, out, _ = hook("prompt", payload, project)
        elapsed = time.monotonic() - started
    finally:
        server.close()
        for conn in held:
            conn.close()
    assert held, "the hook did not try the daemon"
    assert code == 0 and "D-0003" in context_of(out)
    assert client.HOOK_REPLY_TIMEOUT_S < client.REPLY_TIMEOUT_S
    assert elapsed < client.REPLY_TIMEOUT_S, elapsed  # it had waited the full 5 s, then more
