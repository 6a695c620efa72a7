"""Shared fixtures: real git repositories in temp dirs, a pinned git identity, and a guard
that fails any test that writes to ``$HOME``."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


@pytest.fixture(autouse=True)
def guarded_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point $HOME at an empty folder and fail the test if anything is written there."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key in list(os.environ):
        if key.startswith("GIT_") and key not in ("GIT_CONFIG_NOSYSTEM", "GIT_EXEC_PATH"):
            monkeypatch.delenv(key)
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    for key in ("CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "QWEN_HOME", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(key, raising=False)  # agents' user folders: under $HOME here
    monkeypatch.delenv("ADR_TEMPLATE", raising=False)  # a developer's adr-tools template
    for key in list(os.environ):  # agents' trust and system settings, as doctor reads them
        if key.startswith(("GEMINI_CLI_TRUST", "GEMINI_CLI_SYSTEM", "QWEN_CODE_TRUST",
                           "QWEN_CODE_SYSTEM")) or key == "GEMINI_RESTRICTED_MODE":  # fmt: skip
            monkeypatch.delenv(key)
    umask = os.umask(0o077)
    os.umask(umask)
    yield home
    # a test that located a clone a group shares in-process widened this process's umask
    # as gitmem does there (gitmem.sharing): the next test starts with the one it had
    os.umask(umask)
    written = [p.relative_to(home).as_posix() for p in home.rglob("*")]
    assert not written, f"test wrote to $HOME: {written}"


# Subprocesses that may load the embedding model (hooks start `gitmem index` in the
# background; onnxruntime writes a device id under ~/.cache/Microsoft) get this HOME, a
# throwaway folder removed when the test run ends.
SANDBOX_HOME = tempfile.mkdtemp(prefix="gitmem-test-home-")
atexit.register(shutil.rmtree, SANDBOX_HOME, True)


def _git_version() -> tuple[int, int]:
    """The (major, minor) of the git on PATH: CI also runs the git tests on an older git
    (see .ci/run), where a test whose setup needs a newer one is skipped."""
    said = subprocess.run(["git", "version"], capture_output=True, text=True).stdout.split()
    major, minor = [*said[2].split("."), "0"][:2] if len(said) > 2 else ("0", "0")
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


GIT_VERSION = _git_version()


def git_home(folder: Path, settings: str = "") -> Path:
    """A HOME whose ~/.gitconfig holds ``settings``: a user's git configuration, as every
    git reads it (GIT_CONFIG_GLOBAL would do only from git 2.32 on)."""
    home = folder / "git-home"
    home.mkdir()
    (home / ".gitconfig").write_text(settings)
    return home

# git before 2.32 passes a partial clone's filter to uploadpack.packObjectsHook quoted
# ('--filter='blob:none''), and pack-objects refuses it: FetchCounter cannot count there
COUNTS_FETCHES = pytest.mark.skipif(
    GIT_VERSION < (2, 32), reason="packObjectsHook fails partial-clone fetches before git 2.32"
)


def tag_text(text: str) -> str:
    """``text`` as Unicode tag characters: invisible, and read by models as ``text``."""
    return "".join(chr(0xE0000 + ord(c)) for c in text)


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout


# A critical decision with a rule, for the commit-time tests.
MONEY_RULE = """---
title: Money is integer cents
status: accepted
severity: critical
globs: ["billing/**"]
rules:
  - forbid: '\\bfloat\\('
    message: amounts are integer cents
---
## Decision

Integer cents.
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository; the current directory is its root."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    monkeypatch.chdir(root)
    return root


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def decision(
    root: Path,
    name: str,
    title: str = "A decision",
    *,
    status: str = "accepted",
    globs: list[str] | None = None,
    extra: str = "",
    body: str = "## Decision\n\nWe do the thing.\n",
) -> Path:
    globs_s = "[" + ", ".join(f'"{g}"' for g in (globs or [])) + "]"
    text = (
        f"---\ntitle: {title}\nstatus: {status}\nglobs: {globs_s}\n{extra}---\n# {title}\n\n{body}"
    )
    return write(root, f".continuity/decisions/{name}", text)


def commit_all(root: Path, message: str = "commit") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="session")
def model_dir() -> Path:
    """The offline embedding model folder (`gitmem model assemble`). CI sets
    GITMEM_REQUIRE_MODEL=1 so that a missing model fails the run instead of skipping."""
    from gitmem import modelkit

    folder = os.environ.get("GITMEM_EMBED_MODEL_DIR")
    if folder and modelkit.is_complete(Path(folder)):
        return Path(folder)
    if os.environ.get("GITMEM_REQUIRE_MODEL") == "1":
        pytest.fail("GITMEM_REQUIRE_MODEL=1 but GITMEM_EMBED_MODEL_DIR holds no model")
    pytest.skip(
        "no embedding model: run `gitmem model assemble DIR` and set GITMEM_EMBED_MODEL_DIR"
    )


@pytest.fixture(scope="session")
def embedder(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> object:
    """Loaded once per session. onnxruntime writes a device id under ~/.cache/Microsoft
    when it loads: load it with a throwaway HOME."""
    from gitmem import embed

    old = os.environ.get("HOME")
    os.environ["HOME"] = str(tmp_path_factory.mktemp("ort-home"))
    try:
        return embed._from_dir(model_dir)
    finally:
        if old is not None:
            os.environ["HOME"] = old


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No model anywhere, and no network: retrieval must fall back to keyword + path."""
    monkeypatch.delenv("GITMEM_EMBED_MODEL_DIR", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(tmp_path / "empty-cache"))


def agent_project(repo: Path) -> Path:
    """A repository with a critical money decision (a rule forbidding `float(`) over
    billing/ and an API decision over api/: the agent-hook tests' project."""
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "api/routes.py", "")
    decision(
        repo,
        "0001-money.md",
        "Money is integer cents",
        globs=["billing/**"],
        extra=(
            "severity: critical\npin: true\nrules:\n"
            "  - forbid: '\\bfloat\\('\n    message: amounts are integer cents\n"
        ),
        body="## Decision\n\nAmounts are integer cents; floats are never used for money.\n",
    )
    decision(
        repo,
        "0002-api.md",
        "Version the API with a header",
        globs=["api/**"],
        body="## Decision\n\nClients send a Paydash-Version header.\n",
    )
    commit_all(repo, "decisions")
    return repo


def warning_rule(repo: Path) -> None:
    """A non-critical rule over api/: an edit that breaks it is allowed, with an advisory."""
    decision(
        repo,
        "0003-logging.md",
        "Log through the logger",
        globs=["api/**"],
        extra="severity: warning\nrules:\n  - forbid: '\\bprint\\('\n    message: use the logger\n",
    )


def run_agent_hook(
    project: Path, command: str, payload: dict[str, object]
) -> dict[str, object] | None:
    """Run a hook ``command`` as an agent does (a shell command in the project, the JSON
    payload on stdin, a throwaway HOME); the parsed answer, or None for an empty one. A
    hook never writes to stderr and always exits 0 here (no rule is meant to block)."""
    proc = subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": SANDBOX_HOME},
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return json.loads(proc.stdout) if proc.stdout else None


# what a command that only reads the compiled table must not import: the compiler, the
# record loader, the settings' YAML and gitignore matching (~60-100 ms of a fresh process)
RECORD_LOADING = frozenset(
    {"gitmem.compile", "gitmem.store", "gitmem.config", "ruamel", "pathspec"}
)


def modules_of(
    cwd: Path, args: list[str], modules: frozenset[str] | set[str]
) -> tuple[int, list[str]]:
    """Run `gitmem ARGS` in a fresh interpreter in ``cwd``: its exit status, and which of
    ``modules`` (a name, or a package and everything in it) it imported."""
    code = (
        "import json, sys\n"
        "from gitmem.cli.main import run\n"
        f"status = run({args!r})\n"
        f"wanted = {sorted(modules)!r}\n"
        "found = sorted(m for m in sys.modules if m in wanted or m.split('.')[0] in wanted)\n"
        "print(json.dumps([status, found]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd)
    assert out.returncode == 0, out.stderr
    status, found = json.loads(out.stdout.splitlines()[-1])
    return int(status), list(found)


class FetchCounter:
    """Counts the fetches a local remote serves: each runs `git pack-objects` once there,
    through ``uploadpack.packObjectsHook`` (read from the user's config only, so from
    ``home``'s .gitconfig: pass ``HOME=home`` to the git and gitmem that fetch; not
    GIT_CONFIG_GLOBAL, which git before 2.32 ignores)."""

    def __init__(self, folder: Path) -> None:
        self.log = folder / "requests.log"
        hook = folder / "count-pack-objects"
        hook.write_text(f'#!/bin/sh\necho x >> "{self.log}"\nexec "$@"\n')
        hook.chmod(0o755)
        self.home = git_home(folder, f"[uploadpack]\n\tpackObjectsHook = {hook}\n")
        self.env = {**os.environ, "HOME": str(self.home)}

    def count(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0


def run_gitmem(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed `gitmem` as a user runs it, in ``cwd``, with a throwaway HOME
    (``env``: more variables)."""
    found = shutil.which("gitmem")
    assert found, "gitmem is not installed"
    return subprocess.run(
        [found, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": SANDBOX_HOME, **env},
    )


def age_deliveries(project: Path, session_id: str, seconds: float) -> None:
    """Make the hook events the session recorded (state.first_delivery) ``seconds`` older:
    what happens when the same payload comes that much later, without the wait."""
    from gitmem.agent import state
    from gitmem.repo import discover

    session = Path(state.session_file(discover(project).shared_state_dir, session_id))
    records = [json.loads(line) for line in session.read_text().splitlines()]
    aged = [{**r, "t": r["t"] - seconds} if r["k"] == "got" else r for r in records]
    session.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in aged))


# Factory Droid's and Kilo CLI's executables, each a package of its own per platform (their
# `@factory/cli` and `@kilocode/cli` pick one in a postinstall script or at run time)
PLATFORM_PACKAGES = {"droid": "@factory/cli-linux-x64", "kilo": "@kilocode/cli-linux-x64"}


def agent_binary(name: str) -> str:
    """An agent's executable (or husky's), from tests/agents/package.json: in
    GITMEM_AGENTS_BIN (where CI's `npm install` put them), else on PATH."""
    folder = os.environ.get("GITMEM_AGENTS_BIN")
    found = shutil.which(name, path=folder) if folder else None
    if name in PLATFORM_PACKAGES and folder and not found:  # no npm `bin` of its own
        found = shutil.which(str(Path(folder).parent / PLATFORM_PACKAGES[name] / "bin" / name))
    found = found or shutil.which(name)
    if found is None:
        if os.environ.get("GITMEM_REQUIRE_AGENTS") == "1":
            pytest.fail(f"GITMEM_REQUIRE_AGENTS=1 but {name} is not installed")
        pytest.skip(f"{name} is not installed (README: Development)")
    return found


def drive_plugin(
    node: str, driver: str, plugin: Path, project: Path, script: list[list[object]], path: str
) -> list[dict[str, object]]:
    """Run ``driver`` (an ES module: it loads ``plugin`` and plays ``script``, a list of
    events, against it as the agent does, printing what each returned) in Node.js, with
    ``path`` for PATH: an agent's plugin file (OpenCode's, pi's extension) run for real."""
    script_file = project.parent / "driver.mjs"
    script_file.write_text(driver)
    env = {**os.environ, "HOME": SANDBOX_HOME, "PATH": path}
    proc = subprocess.run(
        [node, str(script_file), str(plugin), str(project), json.dumps(script)],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    return list(json.loads(proc.stdout))


def npm_package(name: str) -> Path:
    """The folder of an npm package of tests/agents/package.json (``husky4``: husky 4.3.8
    under another name), beside GITMEM_AGENTS_BIN's executables."""
    folder = os.environ.get("GITMEM_AGENTS_BIN")
    found = Path(folder).parent / name if folder else None
    if found is None or not (found / "package.json").is_file():
        if os.environ.get("GITMEM_REQUIRE_AGENTS") == "1":
            pytest.fail(f"GITMEM_REQUIRE_AGENTS=1 but the npm package {name} is not installed")
        pytest.skip(f"the npm package {name} is not installed (README: Development)")
    return found


def conflicted_merge(repo: Path) -> None:
    """A merge of `feature` stopped on a conflict in billing/charge.py: the branch's
    commit (by a teammate without gitmem's hooks) added `fee = float(cents)`; the merge
    is resolved by keeping both sides' lines."""
    base = git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "feature")
    write(
        repo, "billing/charge.py", (repo / "billing/charge.py").read_text() + "fee = float(cents)\n"
    )
    commit_all(repo, "teammate: a fee")
    git(repo, "checkout", "-q", base)
    write(repo, "billing/charge.py", (repo / "billing/charge.py").read_text() + "# ours\n")
    commit_all(repo, "ours")
    merged = subprocess.run(["git", "merge", "feature"], cwd=repo, capture_output=True, text=True)
    assert merged.returncode != 0 and "CONFLICT" in merged.stdout, merged.stdout
    text = (repo / "billing/charge.py").read_text()
    for marker in ("<<<<<<< HEAD\n", "=======\n", ">>>>>>> feature\n"):
        text = text.replace(marker, "")
    write(repo, "billing/charge.py", text)
    git(repo, "add", "billing/charge.py")


@contextlib.contextmanager
def killed_at_the_end(proc: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """A process the test starts (a `gitmem watch`, a second machine's command), killed
    if it still runs when the block ends."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
