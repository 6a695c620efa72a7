"""What gitmem's atomic writes leave behind besides the text: the file's permissions, and
a symbolic link the user put in place."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_gitmem

from gitmem.fsutil import NotUtf8, atomic_write, read_text


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o002)  # a group-shared setup's umask: not the 022 most tests run with
    try:
        yield
    finally:
        os.umask(old)


def test_a_new_file_gets_the_umasks_mode(tmp_path: Path, umask: None) -> None:
    atomic_write(tmp_path / "sub" / "new.json", "{}\n")
    assert mode(tmp_path / "sub" / "new.json") == 0o664
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["new.json"]  # no temp left


@pytest.mark.parametrize("bits", [0o640, 0o600, 0o755, 0o664], ids=oct)
def test_a_rewritten_file_keeps_its_mode(tmp_path: Path, bits: int) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}\n")
    path.chmod(bits)
    atomic_write(path, '{"a": 1}\n')
    assert path.read_text() == '{"a": 1}\n'
    assert mode(path) == bits


def test_a_link_is_written_through(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text("{}\n")
    dotfiles.chmod(0o644)
    link = tmp_path / "config" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    atomic_write(link, '{"a": 1}\n')
    assert link.is_symlink() and os.readlink(link) == str(dotfiles)
    assert dotfiles.read_text() == '{"a": 1}\n' and mode(dotfiles) == 0o644
    assert sorted(p.name for p in dotfiles.parent.iterdir()) == ["settings.json"]


def linked_settings(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """A Claude Code config folder whose settings.json links to a dotfiles file holding
    ``text``: (the dotfiles file, the config folder)."""
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(text)
    config = tmp_path / "claude-config"
    config.mkdir()
    (config / "settings.json").symlink_to(dotfiles)
    return dotfiles, config


def test_install_keeps_a_shared_settings_file_readable(repo: Path, umask: None) -> None:
    """A team's 0664 project settings stay 0664 (they became 0600 before: an agent running
    as another user, a dev container's, then read no hooks at all), and what gitmem creates
    gets the umask's mode."""
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"allow": []}}\n')
    settings.chmod(0o664)
    done = run_gitmem(repo, "install", "claude")
    assert done.returncode == 0, done.stderr
    assert "hooks" in json.loads(settings.read_text())
    assert mode(settings) == 0o664
    done = run_gitmem(repo, "init")
    assert done.returncode == 0, done.stderr
    assert mode(repo / ".continuity" / "config.yaml") == 0o664


def test_install_and_uninstall_keep_a_linked_user_settings_file(repo: Path, tmp_path: Path) -> None:
    dotfiles, config = linked_settings(tmp_path, '{"model": "opus"}\n')
    done = run_gitmem(repo, "install", "claude", "--scope", "user", CLAUDE_CONFIG_DIR=str(config))
    assert done.returncode == 0, done.stderr
    assert (config / "settings.json").is_symlink()
    data = json.loads(dotfiles.read_text())
    assert data["model"] == "opus" and "SessionStart" in data["hooks"]
    done = run_gitmem(repo, "uninstall", "claude", "--scope", "user", CLAUDE_CONFIG_DIR=str(config))
    assert done.returncode == 0, done.stderr
    assert (config / "settings.json").is_symlink()
    assert json.loads(dotfiles.read_text()) == {"model": "opus"}


def test_uninstall_keeps_a_link_it_empties(repo: Path, tmp_path: Path) -> None:
    dotfiles, config = linked_settings(tmp_path, "{}\n")
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    assert run_gitmem(repo, "install", "claude", "--scope", "user", **env).returncode == 0
    done = run_gitmem(repo, "uninstall", "claude", "--scope", "user", **env)
    assert done.returncode == 0, done.stderr
    assert (config / "settings.json").is_symlink() and json.loads(dotfiles.read_text()) == {}


def test_read_text_reads_as_text_mode_and_locates_a_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\rthree\n")
    assert read_text(path) == path.read_text(encoding="utf-8") == "\ufeffone\ntwo\nthree\n"
    path.write_bytes(b"one\r\ntwo caf\xe9\n")
    with pytest.raises(NotUtf8, match="byte 0xe9 at column 8") as caught:
        read_text(path)
    assert caught.value.line == 2
    # PowerShell 5's `>` writes UTF-16: said as that, not guessed as Latin-1 (since session 52)
    path.write_bytes("---\ntitle: x\n---\n".encode("utf-16"))
    with pytest.raises(NotUtf8, match=r"saved as UTF-16 \(its byte-order mark\)") as caught:
        read_text(path)
    assert caught.value.line == 1
