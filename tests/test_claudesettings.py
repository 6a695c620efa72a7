"""gitmem's Claude Code plugin as Claude Code installs it from a marketplace: which
settings enable it (the files as Claude Code 2.1.328 wrote them for
`claude plugin install` and `claude plugin disable`; the live run is in
tests/test_live_agents.py::test_the_claude_code_plugin_from_its_marketplace)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gitmem.agent import claudesettings

ROOT = Path(__file__).resolve().parent.parent


def install(config: Path, key: str, hooks_from: Path) -> Path:
    """What `claude plugin install KEY` leaves: the plugin copied to the cache, listed in
    installed_plugins.json."""
    name, _, market = key.partition("@")
    where = config / "plugins" / "cache" / market / name / "0.1.0"
    shutil.copytree(hooks_from / "hooks", where / "hooks")
    listing = config / "plugins" / "installed_plugins.json"
    data = json.loads(listing.read_text()) if listing.exists() else {"version": 2, "plugins": {}}
    data["plugins"][key] = [{"scope": "user", "installPath": str(where), "version": "0.1.0"}]
    listing.write_text(json.dumps(data))
    return where


def enable(path: Path, key: str, value: object) -> None:
    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault("enabledPlugins", {})[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("user", "project", "local", "expected"),
    [
        (True, None, None, "user"),
        (None, True, None, "project"),
        (True, False, None, None),  # the project turns off what the user turned on
        (True, False, True, "local"),
        (False, True, None, "project"),
        (["0.1.0"], None, None, None),  # a list of versions leaves a marketplace plugin off
        (None, None, None, None),
    ],
)
def test_the_settings_that_enable_it(
    user: object,
    project: object,
    local: object,
    expected: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    home, root = tmp_path / "home", tmp_path / "repo"
    where = install(home / ".claude", "gitmem@gitmem", ROOT)
    for value, path in ((user, home / ".claude/settings.json"),
                        (project, root / ".claude/settings.json"),
                        (local, root / ".claude/settings.local.json")):  # fmt: skip
        if value is not None:
            enable(path, "gitmem@gitmem", value)
    found = claudesettings.enabled(root, home)
    if expected is None:
        assert found == []
    else:
        assert found == [claudesettings.Plugin("gitmem@gitmem", expected, where)]


def test_known_by_its_hooks_not_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A team's marketplace may name it anything; another plugin is not gitmem's. Claude
    Code's folder may be moved (CLAUDE_CONFIG_DIR)."""
    home, root, config = tmp_path / "home", tmp_path / "repo", tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    other = tmp_path / "other"
    (other / "hooks").mkdir(parents=True)
    (other / "hooks" / "hooks.json").write_text('{"hooks": {}}')
    install(config, "formatter@tools", other)
    where = install(config, "memory@acme", ROOT)
    for key in ("formatter@tools", "memory@acme"):
        enable(config / "settings.json", key, True)
    assert claudesettings.enabled(root, home) == [claudesettings.Plugin("memory@acme", "user", where)]
    shutil.rmtree(where)  # the cache emptied: nothing runs
    assert claudesettings.enabled(root, home) == []

