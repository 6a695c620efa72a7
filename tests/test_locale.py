"""gitmem under a locale that is not UTF-8, and its git hooks when gitmem itself fails.

A locale's encoding decides what Python writes to stdout and how it names files. Under one
that is not UTF-8 (Latin-1 on a server set up that way; Windows-1252 in a pipe on Windows;
here ASCII, which any Linux has: `LC_ALL=C` with the locale coercion and UTF-8 mode turned
off), every command that printed a `→` or a Japanese title ended in a traceback, a commit
over a file such a decision governs was refused, and a file named `実験.py` met no rule.
Each test runs the installed `gitmem` (or `gitmem-hook`, or git with the installed shims).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import SANDBOX_HOME, agent_project, commit_all, decision, git, write

# Python's own ASCII locale, with nothing to turn it into UTF-8 (PEP 538 and 540)
ASCII = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
TITLE = "Billing never imports experimental code → 実験禁止 🚫 (café)"
CJK_FILE = "billing/実験.py"


def latin1_locale(folder: Path) -> dict[str, str] | None:
    """An en_US.ISO-8859-1 locale compiled into ``folder`` (glibc's localedef), as a
    server set up for Latin-1 has it; None where this machine cannot make one."""
    if shutil.which("localedef") is None:
        return None
    out = folder / "locales"
    out.mkdir(exist_ok=True)
    proc = subprocess.run(
        ["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(out / "en_US.ISO-8859-1")],
        capture_output=True,
    )
    env = {"LOCPATH": str(out), "LC_ALL": "en_US.ISO-8859-1", "LANG": "en_US.ISO-8859-1"}
    probe = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.getfilesystemencoding())"],
        capture_output=True,
        text=True,
        env={**os.environ, **env, "PYTHONUTF8": "0"},
    )
    if proc.returncode not in (0, 1) or probe.stdout.strip() != "iso8859-1":
        return None  # localedef exits 1 for warnings and still writes the locale
    return env


@dataclass(frozen=True)
class Locale:
    env: dict[str, str]
    encoding: str  # what stdout is written in


@pytest.fixture(params=["ascii", "windows-1252 pipe", "latin-1"])
def locale(request: pytest.FixtureRequest, tmp_path: Path) -> Locale:
    if request.param == "ascii":
        return Locale(ASCII, "utf-8")  # as click writes there, and PEP 538 reads it
    if request.param == "windows-1252 pipe":  # Windows: file names in UTF-8, a pipe in cp1252
        return Locale({"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "cp1252"}, "cp1252")
    return Locale(latin1_or_skip(tmp_path), "latin-1")


def latin1_or_skip(folder: Path) -> dict[str, str]:
    env = latin1_locale(folder)
    if env is None:
        pytest.skip("no localedef or en_US locale source here to make a Latin-1 locale")
    return {**env, "PYTHONUTF8": "0"}


def project_with_titles(repo: Path) -> Path:
    """agent_project plus a critical decision whose title and rule message hold characters
    neither ASCII nor Latin-1 has, and a file named in Japanese under billing/."""
    agent_project(repo)
    decision(
        repo,
        "0003-experimental.md",
        TITLE,
        globs=["billing/**"],
        extra=(
            "severity: critical\nrules:\n  - forbid: 'import experimental'\n"
            "    message: experimental code stays out of billing — review first\n"
        ),
        body="## Decision\n\nExperiments graduate by review (“審査”), not by import.\n",
    )
    write(repo, CJK_FILE, "x = 1\n")
    commit_all(repo, "titles")
    return repo


def gitmem(
    cwd: Path, env: dict[str, str], *args: str | bytes
) -> subprocess.CompletedProcess[bytes]:
    """The installed `gitmem` under ``env``; an argument may be bytes (as a terminal
    gives them), its output too."""
    found = shutil.which("gitmem")
    assert found
    return subprocess.run(
        [found, *args],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        env={**os.environ, "HOME": SANDBOX_HOME, **env},
    )


def commit_a_change_with_the_shims(
    repo: Path, env: dict[str, str], path: str = "billing/charge.py", text: str = "x = 2\n"
) -> subprocess.CompletedProcess[bytes]:
    """`gitmem install git`, then `git commit` of a change to ``path`` under ``env``."""
    assert gitmem(repo, {}, "install", "git").returncode == 0
    (repo / path).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    return subprocess.run(
        ["git", "commit", "-m", "change the charge"],
        cwd=repo,
        capture_output=True,
        env={**os.environ, "HOME": SANDBOX_HOME, **env},
    )


def test_commands_print_any_title_in_a_locale_that_cannot_write_it(
    repo: Path, locale: Locale
) -> None:
    project_with_titles(repo)
    for args in (
        ["list"],
        ["show", "0003"],
        ["why", "billing/charge.py"],
        ["search", "experimental billing code", "--path", "billing/charge.py"],
        ["check", "billing/charge.py"],
    ):
        proc = gitmem(repo, locale.env, *args)
        assert proc.returncode == 0, (args, proc.stderr.decode(errors="replace"))
        assert b"Traceback" not in proc.stderr
        out = proc.stdout.decode(locale.encoding)
        noted = proc.stderr.decode("ascii").count("cannot write some characters")
        if locale.encoding == "utf-8":
            assert TITLE in out, (args, out)
            assert noted == 0
        else:  # the arrow as ASCII, the Japanese as escapes; what the encoding has, as is
            assert "experimental code -> \\u5b9f\\u9a13\\u7981\\u6b62" in out, (args, out)
            assert "(café)" in out, (args, out)
            assert noted == 1
    for args in (["list", "--json"], ["show", "0003", "--json"], ["search", "billing", "--json"]):
        proc = gitmem(repo, locale.env, *args)
        assert proc.returncode == 0, (args, proc.stderr.decode(errors="replace"))
        text = proc.stdout.decode(locale.encoding)  # JSON's own escapes: nothing lost
        assert TITLE in json.dumps(json.loads(text), ensure_ascii=False)
        assert b"cannot write" not in proc.stderr


def test_a_commit_under_such_a_locale_is_not_refused_by_gitmem(repo: Path, locale: Locale) -> None:
    """Before session 55, `gitmem check --staged` ended in a UnicodeEncodeError printing
    the decisions that govern the change, and git refused a commit that broke no rule."""
    project_with_titles(repo)
    proc = commit_a_change_with_the_shims(repo, locale.env)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    err = proc.stderr.decode(locale.encoding)  # git writes the hooks' stdout to stderr
    shown = "code → 実験" if locale.encoding == "utf-8" else "code -> \\u5b9f\\u9a13"
    assert f"D-0003 (critical) Billing never imports experimental {shown}" in err
    assert "Traceback" not in err
    message = git(repo, "log", "-1", "--format=%B")
    assert "Decisions: D-0001, D-0003" in message


def test_a_critical_rule_holds_for_a_file_named_in_japanese(repo: Path, locale: Locale) -> None:
    """The file-system encoding follows the locale: under ASCII or Latin-1, Python could
    not name `billing/実験.py`. Before session 55 the pre-tool hook failed open on it (the
    float went in), and `gitmem check billing` left it out and passed."""
    project_with_titles(repo)
    hook = shutil.which("gitmem-hook")
    assert hook
    payload = {
        "session_id": "s-locale",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(repo / CJK_FILE),
            "old_string": "x = 1",
            "new_string": "x = float(1)",
        },
    }
    proc = subprocess.run(
        [hook, "claude", "pre-tool"],
        input=json.dumps(payload).encode(),
        cwd=repo,
        capture_output=True,
        env={**os.environ, "HOME": SANDBOX_HOME, **locale.env},
        timeout=60,
    )
    assert proc.returncode == 0
    answer = json.loads(proc.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "D-0001" in answer["permissionDecisionReason"]
    assert not (repo / ".git/gitmem/hook-errors.log").exists()

    write(repo, CJK_FILE, "x = float(1)\n")
    proc = gitmem(repo, locale.env, "check", "billing")
    assert proc.returncode == 1, proc.stderr.decode(errors="replace")
    name = CJK_FILE if locale.encoding == "utf-8" else "billing/\\u5b9f\\u9a13.py"
    assert f"{name}:1: decision D-0001" in proc.stdout.decode(locale.encoding)


def test_utf8_mode_is_entered_only_where_file_names_are_not_utf8() -> None:
    """The entry points run themselves again with `-X utf8` under such a locale (file
    names as git and the agents give them), keep the terminal's encoding for what they
    print, and do not pass that on to their own children; under UTF-8 they do not."""
    code = (
        "import os, sys\n"
        "from gitmem import utf8mode\n"
        "utf8mode.ensure()\n"
        "print(sys.flags.utf8_mode, utf8mode.LOCALE_ENCODING, utf8mode.ENV in os.environ)\n"
    )
    script = [sys.executable, "-c", code]
    under = subprocess.run(
        script, capture_output=True, text=True, env={**os.environ, **ASCII}, check=True
    )
    assert under.stdout.split() == ["1", "ascii", "False"]
    plain = subprocess.run(
        script,
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONUTF8": "0"},
        check=True,
    )
    assert plain.stdout.split() == ["0", "None", "False"]


def test_doctor_says_what_the_locale_costs(repo: Path) -> None:
    agent_project(repo)
    said = "this locale names files in ascii, so each gitmem process runs itself again"
    doctor = gitmem(repo, ASCII, "doctor")
    assert said in doctor.stdout.decode(), doctor.stdout.decode()
    assert "PYTHONUTF8=1 where the agent runs saves it" in doctor.stdout.decode()
    assert b"locale" not in gitmem(repo, {"LC_ALL": "C.UTF-8"}, "doctor").stdout


FAULT = """\
import gitmem.check, gitmem.githooks

def fault(*args, **kwargs):
    raise RuntimeError("injected fault")

gitmem.check.check = gitmem.githooks.add_trailer = fault
"""


def test_a_gitmem_bug_in_a_git_hook_does_not_refuse_the_commit(repo: Path, tmp_path: Path) -> None:
    """A fault injected into the installed gitmem (a sitecustomize module on PYTHONPATH
    replaces the check and the trailer with functions that raise): the commit goes
    through, each hook says so in one line, and `gitmem doctor` shows both. Before
    session 55 each ended in a traceback and exit 1, and git refused the commit. In CI
    (`check --range`) the same fault still fails: a check that did not run is no pass."""
    agent_project(repo)
    faults = tmp_path / "faults"
    faults.mkdir()
    (faults / "sitecustomize.py").write_text(FAULT)
    env = {"PYTHONPATH": str(faults)}
    proc = commit_a_change_with_the_shims(repo, env)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "gitmem: internal error in the pre-commit hook (RuntimeError: injected fault at " in err
    assert "; the commit goes on unchecked; `gitmem doctor` shows it" in err
    assert "the commit goes on without a Decisions trailer" in err
    assert git(repo, "log", "-1", "--format=%s").strip() == "change the charge"
    doctor = gitmem(repo, {}, "doctor").stdout.decode()
    assert "git pre-commit: RuntimeError: injected fault" in doctor
    assert "git prepare-commit-msg: RuntimeError: injected fault" in doctor

    ci = gitmem(repo, env, "check", "--range", "HEAD~1..HEAD")
    assert ci.returncode == 1
    assert b"RuntimeError: injected fault" in ci.stderr


def test_a_title_typed_in_a_latin1_terminal_is_written_as_typed(repo: Path, tmp_path: Path) -> None:
    """gitmem runs itself again in UTF-8 mode under such a locale, where Python would read
    the title's Latin-1 byte as an escape: the argument is read in the locale's encoding,
    and the record holds `Café` in UTF-8."""
    env = latin1_or_skip(tmp_path)
    agent_project(repo)
    proc = gitmem(repo, env, b"new", b"Caf\xe9", b"policy")
    assert proc.returncode == 0, proc.stderr.decode("latin-1")
    record = repo / ".continuity/decisions/0003-cafe-policy.md"
    assert 'title: "Café policy"' in record.read_text(encoding="utf-8")


def test_a_title_holding_a_byte_that_is_no_text_is_refused_and_nothing_written(
    repo: Path,
) -> None:
    """In a UTF-8 terminal, a Latin-1 byte pasted into a title: before session 55 a
    traceback, after a record cut short at its first line (then a UnicodeEncodeError)."""
    agent_project(repo)
    proc = gitmem(repo, {"LC_ALL": "C.UTF-8"}, b"new", b"Caf\xe9", b"policy")
    assert proc.returncode == 2
    assert b"Invalid value for TITLE: b'Caf\\xe9 policy' holds the byte 0xe9" in proc.stderr
    assert sorted(p.name for p in (repo / ".continuity/decisions").iterdir()) == [
        "0001-money.md",
        "0002-api.md",
    ]


def test_a_file_whose_name_is_not_utf8_meets_its_decisions(repo: Path) -> None:
    """git keeps names as bytes: a file named in Latin-1 (`café.py` as `caf\\xe9.py`) in a
    UTF-8 locale. Python holds its byte as a lone surrogate, which SQLite refused: `gitmem
    why` on it and the check of a commit adding it ended in a UnicodeEncodeError (the
    commit refused by a gitmem crash, not by the rule it breaks)."""
    agent_project(repo)
    name = os.fsdecode(b"billing/caf\xe9.py")
    (repo / name).write_bytes(b"x = 1\n")
    env = {"LC_ALL": "C.UTF-8"}
    why = gitmem(repo, env, "why", name)
    assert why.returncode == 0, why.stderr.decode(errors="replace")
    assert why.stdout.startswith(b"billing/caf\xe9.py\n  D-0001 Money is integer cents")
    as_json = json.loads(gitmem(repo, env, "why", "--json", name).stdout)
    assert as_json[0]["decisions"][0]["id"] == "D-0001"
    proc = commit_a_change_with_the_shims(repo, env, name, "amount = float(1)\n")
    assert proc.returncode == 1  # the rule's block, not a crash
    assert b"Traceback" not in proc.stderr
    assert b'caf\\udce9.py":1: decision D-0001: amounts are integer cents' in proc.stderr


def test_a_record_whose_name_is_not_utf8_is_left_out_and_the_others_load(repo: Path) -> None:
    """`0003-caf\\xe9.md`: SQLite refused the name, the table could not be written, and
    no decision reached any command or agent (before session 55). Now that one record is
    left out, said by lint, the commands and the session start, and the others load."""
    agent_project(repo)
    odd = repo / os.fsdecode(b".continuity/decisions/0003-caf\xe9.md")
    odd.write_text("---\ntitle: Cafe\nstatus: accepted\nglobs: [api/**]\n---\n# Cafe\n")
    env = {"LC_ALL": "C.UTF-8"}
    listed = gitmem(repo, env, "list")
    assert listed.returncode == 0, listed.stderr.decode(errors="replace")
    assert [line.split(b"\t")[0] for line in listed.stdout.splitlines()] == [b"D-0001", b"D-0002"]
    said = (
        '".continuity/decisions/0003-caf\\udce9.md":1: file: not read: its name is not UTF-8'
        " (the byte 0xe9); rename the file"
    )
    assert "1 decision file has errors and is left out" in listed.stderr.decode()
    lint = gitmem(repo, env, "lint")
    assert lint.returncode == 1 and said in lint.stdout.decode()
    why = gitmem(repo, env, "why", "billing/charge.py")
    assert why.returncode == 0 and b"D-0001 Money is integer cents" in why.stdout
    hook = shutil.which("gitmem-hook")
    assert hook
    start = subprocess.run(
        [hook, "claude", "session-start"],
        input=json.dumps({"session_id": "s-name", "cwd": str(repo), "source": "startup"}),
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": SANDBOX_HOME, **env},
    )
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Money is integer cents" in context and said in context
