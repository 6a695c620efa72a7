"""gitmem.spawn: background processes the hooks start, detached as `close_fds` would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "posix_spawn"), reason="POSIX only")

REPORT = (
    "import json, os, sys\n"
    "names = sorted(int(n) for n in os.listdir('/dev/fd'))\n"
    "null = [os.path.samestat(os.fstat(fd), os.stat(os.devnull)) for fd in (0, 1, 2)]\n"
    "open(sys.argv[1], 'w').write(json.dumps({'fds': names, 'null': null,"
    " 'sid': os.getsid(0), 'cwd': os.getcwd()}))\n"
)


def test_a_detached_child_keeps_no_descriptor_of_its_caller(tmp_path: Path) -> None:
    """A hook's background process may outlive the hook by minutes (the daemon): it must
    not hold a descriptor the agent let the hook inherit (a pipe the agent reads to its
    end, say), and it runs in its own session with its stdio on the null device."""
    out = tmp_path / "report.json"
    caller = (
        "import os, sys\n"
        "from gitmem import spawn\n"
        "os.dup2(os.open(os.devnull, os.O_RDONLY), 57)  # inheritable, as from the agent\n"
        "pid = spawn.start([sys.executable, '-c', sys.argv[1], sys.argv[2]])\n"
        "assert pid is not None\n"
        "os.waitpid(pid, 0)\n"
        "print(os.getsid(0))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", caller, REPORT, str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(out.read_text())
    assert 57 not in report["fds"]
    assert report["null"] == [True, True, True]
    assert report["sid"] != int(done.stdout)


def test_detach_runs_gitmem_in_the_given_directory(repo: Path, tmp_path: Path) -> None:
    """`detach` changes into the directory (posix_spawn has no such action) before it
    runs `python -m gitmem`; a missing directory is reported, not spawned."""
    from conftest import decision

    from gitmem import spawn

    decision(repo, "0001-money.md", "Money is integer cents")
    assert spawn.detach(["list"], tmp_path / "missing") is False
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # the trampoline in the foreground, started outside the repository
    done = subprocess.run(
        [sys.executable, "-c", spawn._TRAMPOLINE, str(repo), "list", "--json"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
    )
    assert done.returncode == 0, done.stderr
    assert [d["title"] for d in json.loads(done.stdout)] == ["Money is integer cents"]
