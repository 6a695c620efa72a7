"""gitmem on a case-insensitive file system, as macOS and Windows give by default: one
file under any spelling of its name (tests/casefs.py mounts such a file system with FUSE;
git probes it as on those machines). Paths an agent, a shell or a user names in another
case than the file's are spelled as stored before they meet the globs (gitmem.spelling)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import casefs
import pytest
from conftest import SANDBOX_HOME, commit_all, decision, git, run_gitmem, write

from gitmem import spelling
from gitmem.location import locate, relative


@pytest.fixture(scope="module")
def mount(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A case-insensitive file system for the module's tests (a folder of its own each)."""
    why = casefs.possible()
    if why is not None:
        if os.environ.get("GITMEM_REQUIRE_FUSE") == "1":
            pytest.fail(f"GITMEM_REQUIRE_FUSE=1 but {why}")
        pytest.skip(why)
    base = tmp_path_factory.mktemp("casefs")
    with casefs.mounted(base / "backing", base / "mnt") as mounted:
        yield mounted


@pytest.fixture
def project(mount: Path) -> Path:
    """A repository on the case-insensitive file system whose files are spelled with
    capitals (`Billing/Charge.py`), with a critical decision over them and a rule."""
    root = mount / f"Project{len(os.listdir(mount))}"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "Billing/Charge.py", "x = 1\n")
    decision(
        root,
        "0001-money.md",
        "Money is integer cents",
        globs=["Billing/**"],
        extra=(
            "severity: critical\nrules:\n"
            "  - forbid: '\\bfloat\\('\n    message: amounts are integer cents\n"
        ),
        body="## Decision\n\nAmounts are integer cents; floats are never used for money.\n",
    )
    commit_all(root, "decisions")
    assert run_gitmem(root, "index").returncode == 0
    return root


def hook(cwd: Path | str, event: str, payload: dict[str, object]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "gitmem", "hook", "claude", event],
        input=json.dumps({"session_id": "s1", "cwd": str(cwd), **payload}),
        cwd=cwd, capture_output=True, text=True, timeout=60,
        env={**os.environ, "HOME": SANDBOX_HOME},
    )  # fmt: skip
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


def other_case(path: Path) -> Path:
    """``path`` with its last name in upper case (another spelling of the same folder)."""
    return path.with_name(path.name.upper())


def test_git_takes_the_mounted_file_system_for_a_case_insensitive_one(project: Path) -> None:
    """The fixture is what the tests say it is: git's own probe (at `git init`) finds the
    file system case-insensitive, and git takes a path in another case for the file."""
    assert git(project, "config", "--type=bool", "core.ignorecase").strip() == "true"
    assert (project / "BILLING" / "charge.PY").read_text() == "x = 1\n"
    assert git(project, "ls-files", "--error-unmatch", "Billing/Charge.py").strip()
    os.utime(project / "billing" / "charge.py")
    assert git(project, "status", "--porcelain") == ""  # one file, not a new one


@pytest.mark.parametrize(
    "named",
    [
        "billing/charge.py",
        "BILLING/CHARGE.PY",
        "{root}/billing/Charge.py",
        "{ROOT}/Billing/Charge.py",
        "C:\\work\\{name}\\BILLING\\charge.py",  # a Windows agent's, to gitmem in WSL
    ],
)
def test_a_file_named_in_another_case_gets_its_decisions(project: Path, named: str) -> None:
    """An agent that names `billing/charge.py` reads `Billing/Charge.py`. Before session 60
    the hook matched the path as written: no glob governed it and no decision came."""
    path = named.format(root=project, ROOT=other_case(project), name=project.name)
    read = {"tool_name": "Read", "tool_input": {"file_path": path}}
    out = hook(project, "pre-tool", read)
    assert "Money is integer cents" in out
    assert "In the repository at" not in out  # the session's own repository, not another
    why = run_gitmem(project, "why", path)
    assert why.returncode == 0 and "Money is integer cents" in why.stdout, why.stdout


@pytest.mark.parametrize("named", ["billing/charge.py", "BILLING/New.py"])
def test_a_critical_rule_holds_whatever_case_the_path_is_written_in(
    project: Path, named: str
) -> None:
    """Before session 60 an edit to `billing/charge.py` (the file `Billing/Charge.py`) or a
    new file in `BILLING/` went through a critical decision's rule unchecked."""
    write_call = {"tool_name": "Write",
                  "tool_input": {"file_path": named, "content": "amount = float(x)\n"}}  # fmt: skip
    out = json.loads(hook(project, "pre-tool", write_call))
    decided = out["hookSpecificOutput"]
    assert decided["permissionDecision"] == "deny", out
    assert "amounts are integer cents" in decided["permissionDecisionReason"]


def test_a_case_only_rename_of_governed_code_is_named(project: Path) -> None:
    """Renaming `Billing` to `billing` leaves `Billing/**` governing nothing (globs match
    case as written). Here `git mv Billing billing` fails ("Invalid argument": git moves
    the folder into the one it finds under the new spelling, itself), so the rename goes
    through a second name. Every path the command names was spelled as stored, so the
    old spelling was never looked up: before session 65 the after-tool hook said nothing,
    and only the commit-time check did."""
    refused = subprocess.run(["git", "mv", "Billing", "billing"], cwd=project,
                             capture_output=True, text=True)  # fmt: skip
    assert refused.returncode != 0 and "Invalid argument" in refused.stderr, refused.stderr
    command = "git mv Billing tmp && git mv tmp billing"
    move = {"tool_name": "Bash", "tool_input": {"command": command}}
    git(project, "mv", "Billing", "tmp")
    git(project, "mv", "tmp", "billing")
    note = json.loads(hook(project, "post-tool", move))["hookSpecificOutput"]["additionalContext"]
    assert (
        "no longer in the work tree: D-0001 Money is integer cents (Billing/**, which matches "
        "case as written: the work tree spells it billing)"
    ) in note
    assert hook(project, "post-tool", move) == ""  # once a session
    why = run_gitmem(project, "why", "billing/Charge.py").stdout
    assert "no decision governs this path" in why
    assert "D-0001 Money is integer cents would govern it in another case: Billing/**" in why
    # a command that names the folder in its own spelling, once, says nothing
    listed = {"session_id": "s2", "tool_name": "Bash", "tool_input": {"command": "ls billing"}}
    assert "After this command" not in hook(project, "post-tool", listed)


def test_a_session_in_a_folder_named_in_another_case_works_in_the_repository(
    project: Path,
) -> None:
    """A shell's `cd ~/code/myapp` into `~/Code/MyApp` leaves the working folder spelled as
    typed, and the agent starts there. The repository is the same one: its decisions come
    unprefixed, its compiled state is current (before session 60 the root, spelled
    otherwise, made every hook take the path map for stale and compile it again), and
    paths relative to the folder resolve."""
    elsewhere = other_case(project) / "BILLING"
    assert relative("charge.py", str(project), str(project / ".git"), str(elsewhere)) == (
        "Billing/Charge.py"
    )
    assert locate(elsewhere).root == str(project)
    pathmap = project / ".git" / "gitmem" / "pathmap.bin"
    before = pathmap.stat().st_mtime_ns
    read = {"tool_name": "Read", "tool_input": {"file_path": "charge.py"}}
    out = hook(elsewhere, "pre-tool", read)
    assert "Money is integer cents" in out and "In the repository at" not in out, out
    index = run_gitmem(elsewhere, "index")
    assert index.returncode == 0, index.stderr
    assert pathmap.stat().st_mtime_ns == before  # nothing was rebuilt
    assert index.stdout == "index up to date (1 decision)\n", index.stdout + index.stderr


def test_names_are_given_precomposed_where_git_precomposes_them(project: Path) -> None:
    """HFS+ stores names decomposed (NFD) and git on macOS gives them precomposed (NFC,
    core.precomposeunicode), as a glob is written: the stored spelling is precomposed
    there. Lookups ignore the normalization, as APFS's do."""
    nfd = unicodedata.normalize("NFD", "Café")
    nfc = unicodedata.normalize("NFC", "Café")
    (project / "Billing" / nfd).mkdir()
    common = str(project / ".git")
    named = relative(f"billing/{nfc}/x.py", str(project), common, str(project))
    assert named == f"Billing/{nfd}/x.py"
    git(project, "config", "core.precomposeunicode", "true")
    assert spelling.flags((project / ".git" / "config").read_text()) == (True, True)
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from gitmem.location import relative;"
         "print(relative(sys.argv[1], sys.argv[2], sys.argv[3]))",
         f"BILLING/{nfd}/x.py", str(project), common],
        cwd=project, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == f"Billing/{nfc}/x.py"


def test_a_case_sensitive_file_system_keeps_names_apart(repo: Path) -> None:
    """Where git finds the file system case-sensitive (Linux), `billing/charge.py` is
    another file than `Billing/Charge.py`, and gets nothing of its decisions."""
    assert (
        git(repo, "config", "--type=bool", "--default=false", "core.ignorecase").strip() == "false"
    )
    write(repo, "Billing/Charge.py", "x = 1\n")
    decision(repo, "0001-money.md", "Money is integer cents", globs=["Billing/**"])
    commit_all(repo)
    assert relative("billing/charge.py", str(repo), str(repo / ".git")) == "billing/charge.py"
    read = {"tool_name": "Read", "tool_input": {"file_path": "billing/charge.py"}}
    assert "Money is integer cents" not in hook(repo, "pre-tool", read)
    assert "Money is integer cents" in hook(
        repo, "pre-tool", {"tool_name": "Read", "tool_input": {"file_path": "Billing/Charge.py"}}
    )


def test_lint_names_the_file_a_glob_misses_only_by_case(repo: Path) -> None:
    """`src/payments/**` over the folder `src/Payments` looked right on macOS, where both
    name it; globs match case as written, and lint now says which file it meant."""
    write(repo, "src/Payments/api.py", "")
    decision(repo, "0001-pay.md", "Idempotent payments", globs=["src/payments/**", "gone/**"])
    commit_all(repo)
    done = run_gitmem(repo, "lint")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "matches no file" in line]
    assert lines == [
        ".continuity/decisions/0001-pay.md:4: globs: warning: 'gone/**' matches no file",
        ".continuity/decisions/0001-pay.md:4: globs: warning: 'src/payments/**' matches no"
        " file; in another case it would match src/Payments/api.py (globs match case as"
        " written, on every file system)",
    ], done.stdout


@pytest.mark.parametrize(
    "line",
    ["ignorecase = true", "ignoreCase", "IgnoreCase = yes", "ignorecase = 1",
     "ignorecase = false", "ignorecase = 0", "ignorecase = off", 'ignorecase = "true" # x',
     "ignorecase = 010", "ignorecase = 0x0", "ignorecase = 1k", "ignorecase =",
     "ignorecase = true\n\tignorecase = false"],
)  # fmt: skip
def test_core_ignorecase_is_read_as_git_reads_it(tmp_path: Path, line: str) -> None:
    git(tmp_path, "init", "-q")
    config = tmp_path / ".git" / "config"
    text = config.read_text().replace("[core]\n", f"[core]\n\t{line}\n")
    config.write_text(text)
    expected = git(tmp_path, "config", "--type=bool", "core.ignorecase").strip() == "true"
    assert spelling.flags(text)[0] is expected


def test_an_adr_folder_config_yaml_names_in_another_case_keeps_its_reviewed_globs(
    mount: Path,
) -> None:
    """`sources: [docs/ADR]` over the folder `docs/adr` reads the same ADRs on a Mac, but
    named them `docs/ADR/…`: before session 60 the globs reviewed in imported.yaml (keyed
    `docs/adr/…`) were not found for them, and gitmem inferred others as they loaded."""
    root = mount / f"Project{len(os.listdir(mount))}"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "src/billing/charge.py", "x = 1\n")
    write(root, "src/ledger/book.py", "x = 1\n")
    write(root, "docs/adr/0001-money-in-cents.md",
          "# 1. Money in cents\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n\n"
          "## Decision\n\nWe store money as integer cents in `src/billing/`.\n")  # fmt: skip
    write(root, ".continuity/config.yaml", "sources:\n  - path: docs/ADR\n    id_prefix: ADR\n")
    write(root, ".continuity/imported.yaml",
          "docs/adr/0001-money-in-cents.md:\n  globs: [src/ledger/**]\n  inferred: false\n")  # fmt: skip
    commit_all(root)
    shown = run_gitmem(root, "show", "ADR-0001", "--json")
    assert shown.returncode == 0, shown.stderr
    record = json.loads(shown.stdout)
    assert record["globs"] == ["src/ledger/**"], record
    assert record["file"] == "docs/adr/0001-money-in-cents.md"
    lint = run_gitmem(root, "lint")
    assert "inferred" not in lint.stdout + lint.stderr, lint.stdout + lint.stderr
