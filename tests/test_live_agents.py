"""The real agent CLIs, run offline against a scripted local model (tests/fakemodel.py).

Each test installs gitmem's hooks the way a user does, runs the agent non-interactively
on a prompt, and lets the fake model make the same three calls: read an API file, read a
billing file, then edit the billing file to break the critical money rule. What the
agent then sent its model shows what gitmem really achieved in that agent:

- the session-start digest and the decision governing the file read reached the model,
  each once (no decision repeated in one session);
- the edit was denied, the model was told why, and the file is unchanged;
- the prompt was captured on refs/gitmem/, and no hook failed.

The agents come from the npm registry, pinned in tests/agents/package.json (CI installs
them with `npm ci`; see .ci/run). A test skips when its agent is absent, unless
GITMEM_REQUIRE_AGENTS=1 (CI) makes that a failure. Each agent gets its own throwaway HOME.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import agent_project, git, write
from fakemodel import FakeModel, Step

PROMPT = "Tidy up the code"
API_TITLE = "Version the API with a header"
MONEY_TITLE = "Money is integer cents"
DENIED = "D-0001 (critical)"
CHARGE = "x = 1\n"
EDIT_CLAUDE = {"old_string": "x = 1", "new_string": "x = float(1)"}  # Gemini's names too
EDIT_COPILOT = {"old_str": "x = 1", "new_str": "x = float(1)"}
AGENT_TIMEOUT_S = 120


def agent_binary(name: str) -> str:
    """The agent's executable: in GITMEM_AGENTS_BIN (where CI's `npm ci` put them), else
    on PATH."""
    folder = os.environ.get("GITMEM_AGENTS_BIN")
    found = shutil.which(name, path=folder) if folder else None
    found = found or shutil.which(name)
    if found is None:
        if os.environ.get("GITMEM_REQUIRE_AGENTS") == "1":
            pytest.fail(f"GITMEM_REQUIRE_AGENTS=1 but {name} is not installed")
        pytest.skip(f"{name} is not installed (npm ci --prefix tests/agents)")
    return found


@pytest.fixture
def project(repo: Path) -> Path:
    agent_project(repo)
    write(repo, "api/routes.py", "def routes():\n    return []\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "routes")
    return repo


@pytest.fixture
def agent_home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "agent-home"
    home.mkdir()
    yield home


def agent_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITMEM_REQUIRE",))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), NO_COLOR="1", CI="1")
    env.update(extra)
    return env


def run_agent(
    argv: list[str], project: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        argv,
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=AGENT_TIMEOUT_S,
    )
    assert proc.returncode == 0, f"{argv[0]} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc


def gitmem(project: Path, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(["gitmem", *args], cwd=project, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def assert_outcome(project: Path, model: FakeModel, *, informed: bool = True) -> None:
    """What every agent must show (``informed``: the agent's hooks can add context)."""
    assert model.steps_taken == len(model.steps), [r.path for r in model.requests]
    final = model.conversation[-1].text()
    if informed:
        assert final.count(MONEY_TITLE) == 1, final[-4000:]  # the digest, once
        assert final.count(API_TITLE) == 1, final[-4000:]  # after the read, once
    assert DENIED in final, final[-4000:]
    assert (project / "billing/charge.py").read_text() == CHARGE
    git_dir = Path(git(project, "rev-parse", "--git-common-dir").strip())
    git_dir = git_dir if git_dir.is_absolute() else project / git_dir
    errors = git_dir / "gitmem" / "hook-errors.log"
    assert not errors.exists(), errors.read_text()
    deadline = time.monotonic() + 20  # the capture is flushed by a background process
    while True:
        refs = git(project, "for-each-ref", "--format=%(refname)", "refs/gitmem/").split()
        log = "".join(git(project, "log", "--format=%B", ref) for ref in refs)
        if PROMPT in log or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert PROMPT in log, refs


def test_claude_code(project: Path, agent_home: Path) -> None:
    claude = agent_binary("claude")
    steps = [
        Step("Read", {"file_path": str(project / "api/routes.py")}),
        Step("Read", {"file_path": str(project / "billing/charge.py")}),
        Step("Edit", {"file_path": str(project / "billing/charge.py"), **EDIT_CLAUDE}),
    ]
    with FakeModel(steps) as model:
        env = agent_env(
            agent_home,
            ANTHROPIC_BASE_URL=model.url,
            ANTHROPIC_API_KEY="sk-test",
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        gitmem(project, env, "install", "claude")
        argv = [claude, "-p", PROMPT, "--output-format", "json", "--allowedTools", "Read Edit"]
        result = json.loads(run_agent(argv, project, env).stdout)
    assert [d["tool_name"] for d in result.get("permission_denials", [])] == ["Edit"]
    assert_outcome(project, model)


def test_claude_code_mcp(project: Path, agent_home: Path) -> None:
    """`gitmem install claude --mcp`: Claude Code starts `gitmem mcp` from .mcp.json and
    the model's call reaches it; the answer arrives as plain JSON text."""
    claude = agent_binary("claude")
    steps = [Step("mcp__gitmem__why", {"path": "billing/charge.py"})]
    with FakeModel(steps) as model:
        env = agent_env(
            agent_home,
            ANTHROPIC_BASE_URL=model.url,
            ANTHROPIC_API_KEY="sk-test",
            DISABLE_AUTOUPDATER="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        gitmem(project, env, "install", "claude", "--mcp")
        argv = [claude, "-p", "Why is billing like this?", "--allowedTools", "mcp__gitmem"]
        run_agent(argv, project, env)
    assert model.steps_taken == 1
    final = model.conversation[-1].text()
    # not {"result": "[\n {\n  \"query\": ...": one JSON text, not JSON in a string
    assert f'"title": "{MONEY_TITLE}"' in final, final[-3000:]


def test_codex(project: Path, agent_home: Path) -> None:
    codex = agent_binary("codex")
    patch = (
        "*** Begin Patch\n*** Update File: billing/charge.py\n@@\n-x = 1\n+x = float(1)\n"
        "*** End Patch\n"
    )
    steps = [
        Step("exec_command", {"cmd": "cat api/routes.py"}),
        Step("exec_command", {"cmd": "cat billing/charge.py"}),
        Step("apply_patch", patch, custom=True),
    ]
    codex_home = agent_home / ".codex"
    codex_home.mkdir()
    with FakeModel(steps) as model:
        (codex_home / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "fake"\n'
            f'[model_providers.fake]\nname = "fake"\nbase_url = "{model.url}/v1"\n'
            'wire_api = "responses"\n'
            f'[projects.{json.dumps(str(project))}]\ntrust_level = "trusted"\n'
        )
        env = agent_env(agent_home, CODEX_HOME=str(codex_home), GITMEM_CODEX=codex)
        gitmem(project, env, "install", "codex")
        doctor = gitmem(project, env, "doctor", "--no-model")
        assert "Codex skips 6 of gitmem's 6 hooks until they are trusted" in doctor
        assert "Codex trusts all 6" in gitmem(project, env, "install", "codex", "--trust")
        argv = [codex, "exec", "--dangerously-bypass-approvals-and-sandbox", PROMPT]
        run_agent(argv, project, env)
    assert "Codex trusts all 6" in gitmem(project, env, "doctor", "--no-model")
    assert_outcome(project, model)


def test_gemini_cli(project: Path, agent_home: Path) -> None:
    gemini = agent_binary("gemini")
    steps = [
        Step("read_file", {"file_path": "api/routes.py"}),
        Step("read_file", {"file_path": "billing/charge.py"}),
        Step("replace", {"file_path": "billing/charge.py", **EDIT_CLAUDE, "instruction": "x"}),
    ]
    settings = agent_home / ".gemini"
    settings.mkdir()
    (settings / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}})
    )
    (settings / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    with FakeModel(steps) as model:
        env = agent_env(agent_home, GEMINI_API_KEY="test", GOOGLE_GEMINI_BASE_URL=model.url)
        gitmem(project, env, "install", "gemini")
        run_agent([gemini, "-p", PROMPT, "--yolo"], project, env)
    # Gemini CLI sends PreCompress before every turn: the digest must not come back with
    # the billing read (it did, before gemini.compressed)
    assert_outcome(project, model)


def test_copilot_cli(project: Path, agent_home: Path) -> None:
    copilot = agent_binary("copilot")
    steps = [
        Step("view", {"path": str(project / "api/routes.py")}),
        Step("view", {"path": str(project / "billing/charge.py")}),
        Step("edit", {"path": str(project / "billing/charge.py"), **EDIT_COPILOT}),
    ]
    with FakeModel(steps) as model:
        env = agent_env(
            agent_home,
            COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL=model.url,
            COPILOT_PROVIDER_TYPE="anthropic",
            COPILOT_PROVIDER_API_KEY="test",
            COPILOT_MODEL="claude-sonnet-4.5",
            COPILOT_ALLOW_ALL="true",
            COPILOT_AUTO_UPDATE="false",
        )
        gitmem(project, env, "install", "copilot")
        run_agent([copilot, "-p", PROMPT], project, env)
    # Copilot CLI's hooks cannot add context (`gitmem export copilot` is for that)
    assert_outcome(project, model, informed=False)
