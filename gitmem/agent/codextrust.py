"""Codex's trust in gitmem's hooks, asked of Codex itself.

Codex runs a hook only after the user has reviewed it (``/hooks`` in its interface) and
skips the others without a word: the "hooks that silently fail" users hate. Codex keeps
that trust in its own ``config.toml`` (``[hooks.state."<file>:<event>:<group>:<hook>"]
trusted_hash = "sha256:..."``), under a hash of the hook's definition that only Codex
computes. So gitmem does not write that file: it asks ``codex app-server`` (Codex's JSON-RPC
interface on stdio, the one its own interface uses) for ``hooks/list``, which gives each
hook's key, trust status and current hash, and, when the user asked for it (``gitmem
install codex --trust``), has Codex record the trust through ``config/batchWrite``, which
is how Codex's ``/hooks`` screen records it. Only gitmem's own hooks are ever trusted.

Checked against Codex 0.169.0 (tests/test_live_agents.py). Not on the hook path.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem.agent.install import CODEX, inner_command
from gitmem.errors import GitmemError

# How long Codex gets to answer (~0.3 s when idle). A CI rehearsal on a busy machine (seven
# agents' tests at once) had doctor's 10 s run out twice, and doctor said it could not ask,
# about a Codex that was fine (session 71); a hung Codex costs this once.
TIMEOUT_S = 30.0


@dataclass(frozen=True)
class HookTrust:
    """One of gitmem's Codex hooks as Codex sees it."""

    key: str  # "<hooks.json path>:<event>:<group>:<hook>"
    event: str  # Codex's name: preToolUse, sessionStart, ...
    source: str  # project, user, ...
    status: str  # trusted, untrusted, modified, managed, ...
    current_hash: str

    @property
    def trusted(self) -> bool:
        return self.status in ("trusted", "managed")


@dataclass(frozen=True)
class Seen:
    """What Codex says about gitmem's hooks for a folder."""

    hooks: list[HookTrust]
    # Codex's `hooks` feature (on by default; `[features] hooks = false` in its config, a
    # profile or `--disable hooks` turns off every hook). None: this Codex does not say.
    feature_on: bool | None = None


def codex_command() -> str | None:
    """The ``codex`` executable on PATH (``GITMEM_CODEX`` overrides), or None."""
    return os.environ.get("GITMEM_CODEX") or shutil.which("codex")


class _AppServer:
    """A ``codex app-server`` process spoken to in JSON-RPC lines, with a deadline."""

    def __init__(self, codex: str, cwd: Path, timeout: float) -> None:
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        # to a file, not a pipe nobody reads: a chatty server cannot block on a full pipe
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        try:
            self.proc = subprocess.Popen(
                [codex, "app-server"],
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.errors,
            )
        except OSError as exc:
            self.errors.close()
            raise GitmemError(f"cannot run {codex} app-server: {exc}") from exc
        self._buffer = b""
        self._next = 0

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self._next += 1
        ident = self._next
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            message = self._read()
            if message.get("id") != ident:
                continue  # a notification, or Codex's own request: not ours to answer
            if "error" in message:
                raise GitmemError(f"codex app-server {method}: {message['error']}")
            return message.get("result")

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": {}})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise GitmemError(f"codex app-server closed its input: {exc}") from exc

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = self.deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise GitmemError(
                        f"codex app-server did not answer in {self.timeout:g} s (a busy "
                        "machine? run it again)"
                    )
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise GitmemError(f"codex app-server exited: {self._stderr()}")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            return {}
        return message if isinstance(message, dict) else {}

    def _stderr(self) -> str:
        self.proc.kill()
        self.proc.wait()
        self.errors.seek(0)
        return self.errors.read().decode(errors="replace").strip()[-300:] or "no output"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self.errors.close()


def _session(codex: str, cwd: Path, timeout: float) -> _AppServer:
    server = _AppServer(codex, cwd, timeout)
    try:
        server.call("initialize", {"clientInfo": {"name": "gitmem", "version": "1"}})
        server.notify("initialized")
    except GitmemError:
        server.close()
        raise
    return server


def _ours(hook: dict[str, Any]) -> bool:
    return inner_command(str(hook.get("command") or ""), CODEX) is not None


def _listed(server: _AppServer, cwd: Path) -> list[HookTrust]:
    result = server.call("hooks/list", {"cwds": [str(cwd)]})
    found: dict[str, HookTrust] = {}
    for entry in (result or {}).get("data") or []:
        for hook in entry.get("hooks") or []:
            if not isinstance(hook, dict) or not _ours(hook) or not hook.get("key"):
                continue
            found[str(hook["key"])] = HookTrust(
                key=str(hook["key"]),
                event=str(hook.get("eventName") or ""),
                source=str(hook.get("source") or ""),
                status=str(hook.get("trustStatus") or "unknown"),
                current_hash=str(hook.get("currentHash") or ""),
            )
    return list(found.values())


def _feature_on(server: _AppServer, name: str = "hooks") -> bool | None:
    """The effective state of one of Codex's features (``experimentalFeature/list``, the
    list `codex features list` prints), or None when Codex does not list it."""
    cursor = None
    for _ in range(20):  # pages
        try:
            result = server.call("experimentalFeature/list", {"cursor": cursor} if cursor else {})
        except GitmemError:  # a Codex without the method
            return None
        for feature in (result or {}).get("data") or []:
            if isinstance(feature, dict) and feature.get("name") == name:
                return bool(feature.get("enabled"))
        cursor = (result or {}).get("nextCursor")
        if not cursor:
            break
    return None


def gitmem_hooks(codex: str, cwd: Path, timeout: float = TIMEOUT_S) -> Seen:
    """gitmem's hooks that Codex loads for ``cwd`` (project and user files), with their
    trust, and whether Codex runs hooks at all. Raises GitmemError when Codex cannot be
    asked."""
    server = _session(codex, cwd, timeout)
    try:
        return Seen(_listed(server, cwd), _feature_on(server))
    finally:
        server.close()


def trust(codex: str, cwd: Path, timeout: float = TIMEOUT_S) -> Seen:
    """Have Codex trust gitmem's hooks for ``cwd`` (and nothing else), then ask again:
    the hooks as Codex now sees them."""
    server = _session(codex, cwd, timeout)
    try:
        pending = [h for h in _listed(server, cwd) if not h.trusted and h.current_hash]
        if pending:
            edits = [
                {
                    "keyPath": f"hooks.state.{json.dumps(h.key)}.trusted_hash",
                    "value": h.current_hash,
                    "mergeStrategy": "replace",
                }
                for h in pending
            ]
            server.call("config/batchWrite", {"edits": edits})
        return Seen(_listed(server, cwd), _feature_on(server))
    finally:
        server.close()


def summary(seen: Seen) -> tuple[bool, str]:
    """(all trusted, one line) for install and doctor."""
    hooks = seen.hooks
    if seen.feature_on is False:
        return False, (
            "Codex runs no hook at all: its `hooks` feature is off (`[features] hooks = "
            "false` in its config.toml, a profile, or `--disable hooks`); `codex features "
            "enable hooks` turns it back on"
        )
    if not hooks:
        return False, (
            "Codex loads none of gitmem's hooks here: it reads a project's .codex/ only once "
            "the project itself is trusted (start `codex` here and trust it), and a user "
            "scope install lives in $CODEX_HOME/hooks.json"
        )
    waiting = [h for h in hooks if not h.trusted]
    if not waiting:
        return True, f"Codex trusts all {len(hooks)} of gitmem's hooks"
    events = ", ".join(sorted({h.event for h in waiting}))
    return False, (
        f"Codex skips {len(waiting)} of gitmem's {len(hooks)} hooks until they are trusted"
        f" ({events}): `gitmem install codex --trust`, or review them with `/hooks` in Codex"
    )
