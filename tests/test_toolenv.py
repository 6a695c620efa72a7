"""gitmem run from a temporary environment (`uvx gitmem install claude`, `pipx run`):
everything it installs runs gitmem again from a PATH that does not hold that environment.
Before session 66, install said nothing, doctor (run the same way) found `gitmem-hook` on
PATH in uv's cache and passed, and the git hook shims fell back to that cached gitmem.

The environments here are real virtual environments (`python -m venv`) laid out and tagged
as uv and pipx lay out theirs (CACHEDIR.TAG in the cache root and, for uv, in every
environment it makes), running this checkout's gitmem through a `.pth` file."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem import toolenv

TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag.\n"
HOOK_SCRIPT = Path(__file__).resolve().parents[1] / "hooks" / "bin" / "gitmem-hook"


def tag(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "CACHEDIR.TAG").write_text(TAG)
    return folder


def test_what_is_temporary(tmp_path: Path) -> None:
    uv = tag(tmp_path / "cache" / "uv")
    archive = tag(uv / "archive-v0" / "24WUHrpBkiQurH4M")  # uvx's
    found = toolenv.temporary(archive)
    assert found is not None and found.cache == uv and found.tool == "uv"
    assert "uv's cache" in found.describe() and "`uvx`" in found.describe()
    pipx = tag(tmp_path / "cache" / "pipx")
    run = tag(pipx / "b1d28b1e8aa1c5c")  # `pipx run`'s
    assert (found := toolenv.temporary(run)) is not None and found.tool == "pipx"
    # uv tags each environment it makes: its tools', a project's .venv; those are kept
    tools = tmp_path / "share" / "uv" / "tools"
    assert toolenv.temporary(tag(tools / "gitmem")) is None
    assert toolenv.temporary(tag(tmp_path / "project" / ".venv")) is None
    assert toolenv.temporary(tmp_path / "venv") is None
    # a file of that name without the specification's signature tags nothing
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "CACHEDIR.TAG").write_text("not a tag\n")
    assert toolenv.temporary(tmp_path / "other" / "env") is None
    # uv's cache where UV_CACHE_DIR puts it, known by its layout; Poetry's lasting
    # environments in its tagged cache are not temporary
    elsewhere = tag(tmp_path / "scratch" / "cache")
    assert (found := toolenv.temporary(elsewhere / "builds-v0" / ".tmpNkOq94")) is not None
    assert found.tool == "uv"
    poetry = tag(tmp_path / "cache" / "pypoetry")
    assert toolenv.temporary(tag(poetry / "virtualenvs" / "app-Xy12-py3.11")) is None
    bin_gitmem = archive / "bin" / "gitmem"
    bin_gitmem.parent.mkdir()
    bin_gitmem.write_text("")
    assert toolenv.temporary_program(bin_gitmem) == toolenv.temporary(archive)


def environment(prefix: Path) -> Path:
    """A virtual environment at ``prefix`` whose gitmem and gitmem-hook are this
    checkout's, as an installer writes them; returns its scripts folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True)
    python = prefix / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib) / "test-gitmem.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in ours)
    )
    gitmem = prefix / "bin" / "gitmem"
    gitmem.write_text(f"#!{python}\nfrom gitmem.entry import main\nraise SystemExit(main())\n")
    hook = prefix / "bin" / "gitmem-hook"
    body = HOOK_SCRIPT.read_text().split("\n", 1)[1]
    hook.write_text(f"#!{python}\n{body}")
    for script in (gitmem, hook):
        script.chmod(0o755)
    return prefix / "bin"


def run(scripts: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``scripts``' gitmem, with its folder first on PATH as `uvx` puts it, and no other
    gitmem on PATH: only git's and the shell's folders."""
    tools = {str(Path(shutil.which(t) or "/bin/sh").parent) for t in ("git", "sh")}
    env = {**os.environ, "PATH": os.pathsep.join([str(scripts), *sorted(tools)])}
    return subprocess.run(
        [str(scripts / "gitmem"), *args], cwd=cwd, env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize("temporary", [True, False])
def test_installing_from_a_temporary_environment_says_so(
    temporary: bool, repo: Path, tmp_path: Path
) -> None:
    """`uvx gitmem install claude`: the hooks are written (they work once gitmem is
    installed for good) and install says they cannot work yet; doctor, run the same way,
    fails the PATH check and says why; the git hook shims do not fall back to the cached
    gitmem. The same environment outside a cache: nothing said, doctor passes."""
    if temporary:
        cache = tag(tmp_path / "cache" / "uv")
        scripts = environment(tag(cache / "archive-v0" / "24WUHrpBkiQurH4M"))
    else:
        scripts = environment(tmp_path / "share" / "uv" / "tools" / "gitmem")
    assert run(scripts, repo, "init").returncode == 0
    installed = run(scripts, repo, "install", "claude")
    assert installed.returncode == 0, installed.stderr
    assert "added" in installed.stdout
    assert ("uv's cache" in installed.stderr) is temporary, installed.stderr
    assert ("install gitmem for good" in installed.stderr) is temporary
    doctor = run(scripts, repo, "doctor", "--no-model")
    line = next(s for s in doctor.stdout.splitlines() if "gitmem-hook on PATH" in s)
    if temporary:
        assert line.startswith("!!"), line
        assert "only in a temporary environment in uv's cache" in line, line
    else:
        assert line.startswith("ok") and str(scripts / "gitmem-hook") in line, line
    shims = run(scripts, repo, "install", "git")
    assert shims.returncode == 0, shims.stderr
    assert ("runs gitmem again from git's PATH" in shims.stderr) is temporary, shims.stderr
    pre_commit = (repo / ".git" / "hooks" / "pre-commit").read_text()
    assert (f"exec {scripts / 'gitmem'} check" in pre_commit) is not temporary, pre_commit
