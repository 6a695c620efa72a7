"""One work tree seen from two places: a dev container's bind mount of the host's checkout.

The host's hooks and the container's share the git directory, and with it the compiled
records, the index and the daemon's socket, but see the work tree at another path and
their processes in another PID namespace. The container is made for real, where the
machine allows it: ``unshare`` gives the command a mount and a PID namespace of its own,
where the repository is bind-mounted at ``workspace/`` (as a dev container mounts the
checkout at /workspaces/NAME); nothing of it outlives the command.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SANDBOX_HOME, commit_all, decision, killed_at_the_end, write

from gitmem import client
from gitmem.repo import discover

GITMEM = shutil.which("gitmem")
GITMEM_HOOK = shutil.which("gitmem-hook")
pytestmark = pytest.mark.skipif(
    GITMEM is None or GITMEM_HOOK is None, reason="gitmem and gitmem-hook are not installed"
)
MONEY = "Money is integer cents"
# the container: the checkout mounted at $VIEW, the command run in $VIEW/$SUB
ENTER = 'mount --bind "$REPO" "$VIEW" && cd "$VIEW/$SUB" && exec "$@"'


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "billing/charge.py", "x = 1\n")
    write(repo, "api/routes.py", "")
    decision(repo, "0001-money.md", MONEY, globs=["billing/**"],
             body="## Decision\n\nAmounts are integer cents; never floats.\n")  # fmt: skip
    decision(repo, "0002-api.md", "Version the API with a header", globs=["api/**"],
             body="## Decision\n\nClients send a version header with each request.\n")  # fmt: skip
    write(repo, ".continuity/config.yaml", "watch_autostart: false\n")
    commit_all(repo, "decisions")
    return repo


@pytest.fixture
def view(tmp_path: Path) -> Path:
    """Where the container sees the checkout; skips where no namespace may be made."""
    unshare = shutil.which("unshare")
    folder = tmp_path / "workspace"
    folder.mkdir()
    probe = [str(unshare), "--mount", "--pid", "--fork", "--mount-proc", "sh", "-c",
             f"mount --bind {tmp_path} {folder}"]  # fmt: skip
    if unshare is None or subprocess.run(probe, capture_output=True).returncode != 0:
        pytest.skip("no mount and PID namespace here (unshare is not permitted)")
    return folder


def container(
    project: Path, view: Path, args: list[str], *, sub: str = "", stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """``args`` run in the container, in its view of ``sub``."""
    return subprocess.run(
        ["unshare", "--mount", "--pid", "--fork", "--mount-proc", "sh", "-c", ENTER, "sh",
         *args],
        input=stdin, capture_output=True, text=True, timeout=120,
        env=_env(project, view, sub),
    )  # fmt: skip


def _env(project: Path, view: Path, sub: str = "") -> dict[str, str]:
    return {**os.environ, "HOME": SANDBOX_HOME, "REPO": str(project), "VIEW": str(view),
            "SUB": sub}  # fmt: skip


def host(project: Path, args: list[str], *, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=project, input=stdin, capture_output=True, text=True, timeout=120,
        env={**os.environ, "HOME": SANDBOX_HOME},
    )  # fmt: skip


def edit_payload(root: Path, session: str) -> str:
    """Claude Code's PreToolUse for an Edit of billing/charge.py, as seen from ``root``."""
    return json.dumps({
        "session_id": session, "cwd": str(root), "transcript_path": str(root / "t.jsonl"),
        "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "t1",
        "tool_input": {"file_path": str(root / "billing/charge.py"), "old_string": "x = 1",
                       "new_string": "x = 2"},
    })  # fmt: skip


def identity(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_ino, st.st_mtime_ns


def test_the_host_and_a_container_share_the_compiled_records(project: Path, view: Path) -> None:
    """Each side's tool-call hook reads the table the other compiled. Before session 63
    the table held the root it was compiled at: each side took the other's for stale and
    compiled the records again, on every tool call after one of the other side's (163 ms
    at 1,000 records, against 20.5 ms: benchmarks/two_views.py)."""
    state = project / ".git" / "gitmem"
    first = host(project, [str(GITMEM_HOOK), "claude", "pre-tool"],
                 stdin=edit_payload(project, "h1"))  # fmt: skip
    assert MONEY in first.stdout, first.stderr
    compiled = identity(state / "table.sqlite"), identity(state / "pathmap.bin")
    for n in range(2):
        inside = container(project, view, [str(GITMEM_HOOK), "claude", "pre-tool"],
                           stdin=edit_payload(view, f"c{n}"))  # fmt: skip
        assert MONEY in inside.stdout and "governs billing/**" in inside.stdout, inside.stderr
        again = host(project, [str(GITMEM_HOOK), "claude", "pre-tool"],
                     stdin=edit_payload(project, f"h{n + 2}"))  # fmt: skip
        assert MONEY in again.stdout, again.stderr
    assert (identity(state / "table.sqlite"), identity(state / "pathmap.bin")) == compiled
    # and the index the host built: `gitmem index` in the container finds nothing to do
    assert host(project, [str(GITMEM), "index"]).returncode == 0
    built = container(project, view, [str(GITMEM), "index"])
    assert built.returncode == 0, built.stderr
    assert "up to date" in built.stdout + built.stderr


def _search_hit(out: subprocess.CompletedProcess[str]) -> tuple[str, dict[str, Any]]:
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    return data["served_by"], data["hits"][0]


def _serving(proc: subprocess.Popen[str], project: Path) -> None:
    """Wait until the daemon ``proc`` started answers (the model loads first)."""
    deadline = time.monotonic() + 60
    while client.ping(discover(project)) is None:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else "watch exited"
        assert time.monotonic() < deadline, "watch did not serve"
        time.sleep(0.1)


def host_daemon(
    project: Path, model_dir: Path, tmp_path: Path, **more: str
) -> subprocess.Popen[str]:
    """`gitmem watch` on the host, with the model and a HOME of its own (onnxruntime
    writes a device id under ~/.cache); ``more`` in its environment."""
    home = tmp_path / "ort-home"
    home.mkdir()
    env = {**os.environ, "GITMEM_EMBED_MODEL_DIR": str(model_dir), "HOME": str(home), **more}
    return subprocess.Popen(
        [sys.executable, "-m", "gitmem", "watch", "--idle", "60"], cwd=project, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_a_daemon_on_the_host_ranks_a_containers_paths(
    project: Path, view: Path, model_dir: Path, tmp_path: Path
) -> None:
    """The container's hooks reach the host's daemon through the socket in the git
    directory. Before session 63 the daemon read the paths they sent against its own
    root, found them outside it, and dropped them: no decision was found by its globs,
    from a search, a tool's path or a path in the prompt."""
    with killed_at_the_end(host_daemon(project, model_dir, tmp_path)) as daemon:
        _serving(daemon, project)
        searches = [
            ("", [str(view / "billing/charge.py")]),  # an absolute path of the container's
            ("", ["billing/charge.py"]),  # relative to the container's working folder
            ("billing", ["charge.py"]),  # from a folder below
        ]
        for sub, paths in searches:
            args = [str(GITMEM), "search", "--json", "fees", *(f"--path={p}" for p in paths)]
            served, hit = _search_hit(container(project, view, args, sub=sub))
            assert served == "daemon"
            assert hit["title"] == MONEY and "path" in hit["ranks"], (sub, paths, hit)
        prompt = json.dumps({
            "session_id": "c1", "cwd": str(view), "transcript_path": str(view / "t.jsonl"),
            "hook_event_name": "UserPromptSubmit",
            "prompt": "store the fee in billing/charge.py as a float",
        })  # fmt: skip
        told = container(project, view, [str(GITMEM_HOOK), "claude", "prompt"], stdin=prompt)
        assert told.returncode == 0 and told.stderr == "", told.stderr
        context = json.loads(told.stdout)["hookSpecificOutput"]["additionalContext"]
        assert f"governs billing/**: {MONEY}" in context, context
        assert client.ping(discover(project)) is not None  # the daemon answered it all


def test_a_containers_daemon_serves_the_host_until_the_container_stops(
    project: Path, view: Path, model_dir: Path
) -> None:
    """A daemon a container's session started answers the host's hooks too, for the
    host's paths; `gitmem doctor` says it runs on the other side, where its pid means
    nothing here. When the container stops (its processes killed) the host works
    without it: the socket it leaves behind is no daemon."""
    inside = subprocess.Popen(
        ["unshare", "--mount", "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c",
         ENTER, "sh", sys.executable, "-m", "gitmem", "watch", "--idle", "60"],
        env={**_env(project, view), "GITMEM_EMBED_MODEL_DIR": str(model_dir)},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    with killed_at_the_end(inside):
        _serving(inside, project)
        args = [str(GITMEM), "search", "--json", "fees", "--path=billing/charge.py"]
        served, hit = _search_hit(host(project, args))
        assert served == "daemon"
        assert hit["title"] == MONEY and "path" in hit["ranks"], hit
        doctor = host(project, [str(GITMEM), "doctor"])
        line = next(x for x in doctor.stdout.splitlines() if " daemon " in f" {x} ")
        assert f"running where the work tree is {view} (pid " in line, line
        os.kill(inside.pid, signal.SIGKILL)  # the container stopped: unshare's child dies too
        inside.wait()
    assert (project / ".git/gitmem/watch.sock").exists()  # left behind
    served, hit = _search_hit(host(project, args))
    assert served == "in-process" and hit["title"] == MONEY


def test_a_commit_on_the_host_names_the_containers_session(project: Path, view: Path) -> None:
    """The agent works in the container, the user commits on the host (or the other way
    round): the commit's `Gitmem-Session:` trailer names the session that edited its
    files, as in one place. Before session 63 an edit counted only where the work tree
    was at the same path: the session was not named, and `gitmem sessions` on the host
    listed its edits as none."""
    assert host(project, [str(GITMEM), "install", "git"]).returncode == 0
    base = {"session_id": "c-edit", "cwd": str(view), "transcript_path": str(view / "t.jsonl")}
    edit = {"tool_name": "Edit", "tool_use_id": "t1",
            "tool_input": {"file_path": str(view / "billing/charge.py"), "old_string": "x = 1",
                           "new_string": "x = 2"}}  # fmt: skip
    turn = [("prompt", {"hook_event_name": "UserPromptSubmit", "prompt": "raise the charge"}),
            ("pre-tool", {"hook_event_name": "PreToolUse", **edit}),
            ("post-tool", {"hook_event_name": "PostToolUse", **edit})]  # fmt: skip
    for event, payload in turn:
        if event == "post-tool":
            write(project, "billing/charge.py", "x = 2\n")
        done = container(project, view, [str(GITMEM_HOOK), "claude", event],
                         stdin=json.dumps({**base, **payload}))  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", (event, done.stderr)
    listed = json.loads(host(project, [str(GITMEM), "sessions", "--json"]).stdout)
    assert [(s["session_id"], s["unrecorded"]) for s in listed] == [
        ("c-edit", ["billing/charge.py"])
    ]
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    committed = host(project, ["git", "commit", "-q", "-m", "raise the charge"])
    assert committed.returncode == 0, committed.stderr
    message = host(project, ["git", "log", "-1", "--format=%B"]).stdout
    assert any(x.startswith("Gitmem-Session: ") and x.endswith("/c-edit")
               for x in message.splitlines()), message  # fmt: skip


@pytest.fixture
def users_checkout(tmp_path: Path) -> Iterator[Path]:
    """The project, another user's (nobody's), in a folder that user can reach (pytest's
    own is root's alone); skips unless this process is root."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root, and setpriv to run git as another user")
    outer = Path(tempfile.mkdtemp(prefix="gitmem-user-"))
    outer.chmod(0o755)
    root = outer / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    write(root, "billing/charge.py", "x = 1\n")
    decision(root, "0001-money.md", MONEY, globs=["billing/**"],
             body="## Decision\n\nAmounts are integer cents; never floats.\n")  # fmt: skip
    commit_all(root, "decisions")
    for path in [root, *root.rglob("*")]:
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    try:
        yield root
    finally:
        shutil.rmtree(outer, ignore_errors=True)


NOBODY = 65534


def trusting(folder: Path) -> dict[str, str]:
    """A HOME whose git config lets git work in another user's repository (root in the
    user's checkout), as a root container's image sets it: a file, since git before 2.31
    reads no config from the environment (GIT_CONFIG_COUNT)."""
    folder.mkdir()
    (folder / ".gitconfig").write_text("[safe]\n\tdirectory = *\n")
    return {"HOME": str(folder), "XDG_CONFIG_HOME": str(folder / ".config")}


def test_a_root_containers_session_leaves_the_users_git_directory_theirs(
    users_checkout: Path, tmp_path: Path
) -> None:
    """An agent in a container that runs as root, the user's checkout mounted in it:
    gitmem's captures (git objects and refs) and state were root's. A loose object's
    folder root made refused the user's own objects, and their `git commit` failed now
    and then ("insufficient permission for adding an object to repository database").
    What root's gitmem makes there is the user's now; what root's own git made is not
    gitmem's to touch."""
    project = users_checkout
    env = {**os.environ, **trusting(tmp_path / "root-home")}
    base = {"session_id": "r1", "cwd": str(project), "transcript_path": str(project / "t")}
    turns = [("session-start", {"hook_event_name": "SessionStart", "source": "startup"})]
    turns += [("prompt", {"hook_event_name": "UserPromptSubmit",
                          "prompt": f"change {n} in billing/charge.py"}) for n in range(6)]  # fmt: skip
    turns += [("session-end", {"hook_event_name": "SessionEnd", "reason": "exit"})]
    for event, payload in turns:
        done = subprocess.run(
            [str(GITMEM_HOOK), "claude", event], input=json.dumps({**base, **payload}),
            cwd=project, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", (event, done.stderr)
    for args in (["capture", "flush"], ["index"]):  # what the hooks start in the background
        done = subprocess.run([str(GITMEM), *args], cwd=project, env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
    refs = subprocess.run(["git", "for-each-ref", "--format=%(refname)", "refs/gitmem"],
                          cwd=project, env=env, capture_output=True, text=True).stdout  # fmt: skip
    assert [r.rsplit("/", 1)[-1] for r in refs.split()] == ["r1"]  # the session was captured
    deadline = time.monotonic() + 30  # the hooks' background jobs end on their own
    while (roots := _roots_files(project / ".git")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert roots == []
    # the user's own git writes objects wherever they fall
    # the system's git: one the tests put first on PATH may lie in a folder of root's alone
    user_git = shutil.which("git", path="/usr/bin:/bin") or "git"
    as_user = [str(shutil.which("setpriv")), f"--reuid={NOBODY}", f"--regid={NOBODY}",
               "--clear-groups", user_git, "hash-object", "-w", "--stdin"]  # fmt: skip
    for n in range(100):
        wrote = subprocess.run(as_user, cwd=project, input=f"object {n}\n",
                               capture_output=True, text=True)  # fmt: skip
        assert wrote.returncode == 0, wrote.stderr


def _roots_files(folder: Path) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.lstat().st_uid == 0]


def test_a_root_daemon_hands_each_re_index_to_the_user(
    users_checkout: Path, model_dir: Path, tmp_path: Path
) -> None:
    """A daemon root's session started lives on: what each re-index writes is the user's
    as soon as it is written, not at the daemon's exit (the user's own `gitmem index`
    meanwhile could not replace it)."""
    project = users_checkout
    with killed_at_the_end(
        host_daemon(project, model_dir, tmp_path, **trusting(tmp_path / "root-home"))
    ) as daemon:
        _serving(daemon, project)
        before = client.ping(discover(project))
        assert before is not None
        decision(project, "0002-api.md", "Version the API with a header", globs=["api/**"])
        deadline = time.monotonic() + 60
        while True:  # the record's change re-indexed (watchdog, debounced)
            now = client.ping(discover(project))
            if now is not None and now["generation"] != before["generation"]:
                break
            if time.monotonic() > deadline:
                daemon.kill()
                pytest.fail(f"no re-index: {now} {daemon.communicate()[1]}")
            time.sleep(0.2)
        state = project / ".git" / "gitmem"
        generation = state / "index" / str(now["generation"])
        assert generation.is_dir()
        deadline = time.monotonic() + 10
        while (roots := _roots_files(state / "index")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert roots == [], roots
        assert daemon.poll() is None  # still serving
