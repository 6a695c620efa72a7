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


def run(
    scripts: Path, cwd: Path, *args: str, uv_run: bool = False, active: bool = False,
    on_path: bool = True,
) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """``scripts``' gitmem, with its folder first on PATH as `uvx` and `uv run` put it,
    and no other gitmem on PATH: only git's and the shell's folders. ``uv_run``: the
    variables `uv run` sets (uv 0.13); ``active``: run from a shell where the environment
    is active, its folder on PATH once more; not ``on_path``: run by its path alone."""
    tools = {str(Path(shutil.which(t) or "/bin/sh").parent) for t in ("git", "sh")}
    path = [*([str(scripts)] if on_path else []), *([str(scripts)] if active else [])]
    path += sorted(tools)
    env = {**os.environ, "PATH": os.pathsep.join(path)}
    if uv_run:
        env.update(UV="/usr/bin/uv", UV_RUN_RECURSION_DEPTH="1", VIRTUAL_ENV=str(scripts.parent))
    return subprocess.run(
        [str(scripts / "gitmem"), *args], cwd=cwd, env=env, capture_output=True, text=True
    )


# where gitmem runs from, and whether the hooks it installs will find it there later
WAYS = {
    "uvx": False,  # uv's cache: archive-v0/<id>
    "uv tool install": True,  # ~/.local/share/uv/tools/gitmem, its scripts linked on PATH
    "uv run": False,  # the project's .venv, first on PATH for `uv run`'s command only
    "uv run, active": True,  # the same from a shell where .venv is active
    "by its path": False,  # .venv/bin/gitmem install claude, .venv not active
}


@pytest.mark.parametrize("way", WAYS)
def test_installing_where_the_hooks_will_not_find_gitmem_says_so(
    way: str, repo: Path, tmp_path: Path
) -> None:
    """`uvx gitmem install claude`, `uv run gitmem install claude`: the hooks are written
    (they work once gitmem is where the agent finds it) and install says they cannot work
    yet, and how to make them; doctor, run the same way, fails the PATH check and says why;
    the git hook shims do not fall back to the cached gitmem. From an environment that
    lasts, or with the project's environment active: nothing said, doctor passes."""
    found = WAYS[way]
    if way == "uvx":
        cache = tag(tmp_path / "cache" / "uv")
        scripts = environment(tag(cache / "archive-v0" / "24WUHrpBkiQurH4M"))
    elif way == "uv tool install":
        scripts = environment(tmp_path / "share" / "uv" / "tools" / "gitmem")
    else:
        scripts = environment(repo / ".venv")
    kw = {
        "uv_run": way.startswith("uv run"),
        "active": way.endswith("active"),
        "on_path": way != "by its path",
    }
    assert run(scripts, repo, "init", **kw).returncode == 0
    installed = run(scripts, repo, "install", "claude", **kw)
    assert installed.returncode == 0, installed.stderr
    assert "added" in installed.stdout
    assert ("warning: what was just installed runs `gitmem" in installed.stderr) is not found
    if way == "uvx":
        assert "uv's cache" in installed.stderr and "install gitmem for good" in installed.stderr
    if way == "uv run":
        assert "`uv run` puts on PATH for its command only" in installed.stderr
        assert "source .venv/bin/activate" in installed.stderr, installed.stderr
    if way == "by its path":  # the hooks run `gitmem hook` then: gitmem-hook is not on PATH
        assert (
            f"is not on PATH here, so the agent's PATH may not hold it either: put {scripts} on PATH"
            in installed.stderr
        ), installed.stderr
    doctor = run(scripts, repo, "doctor", "--no-model", **kw)
    line = next(s for s in doctor.stdout.splitlines() if " on PATH" in s)
    if found:
        assert line.startswith("ok") and str(scripts / "gitmem-hook") in line, line
    else:
        assert line.startswith("!!"), line
        assert ("found only in" in line) is (way != "by its path"), line
    shims = run(scripts, repo, "install", "git", **kw)
    assert shims.returncode == 0, shims.stderr
    # the shims fall back to the gitmem that wrote them (so `uv run`'s is found), but
    # not to uvx's
    assert ("Git's PATH will not hold it" in shims.stderr) is (way == "uvx"), shims.stderr
    pre_commit = (repo / ".git" / "hooks" / "pre-commit").read_text()
    assert (f"exec {scripts / 'gitmem'} check" in pre_commit) is (way != "uvx"), pre_commit
