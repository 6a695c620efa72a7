"""An agent's interactive terminal UI, run in tmux, for what only the TUI does (`/rewind`).

Each Terminal has its own tmux server (``-L``), killed when the block ends. The program
runs with exactly the environment given (written to a script the pane sources), in a
160x50 pane. Keys are sent as a user types them; what the pane shows is read back.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest


class Terminal:
    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], scratch: Path) -> None:
        if shutil.which("tmux") is None:
            if os.environ.get("GITMEM_REQUIRE_AGENTS") == "1":
                pytest.fail("GITMEM_REQUIRE_AGENTS=1 but tmux is not installed")
            pytest.skip("tmux is not installed (the interactive tests drive agents in it)")
        self.socket = f"gitmem-{uuid.uuid4().hex[:8]}"
        script = scratch / f"{self.socket}.sh"
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items()
                          if k.isidentifier())  # fmt: skip
        script.write_text(f"{exports}cd {shlex.quote(str(cwd))}\nexec {shlex.join(argv)}\n")
        self._tmux("new-session", "-d", "-x", "160", "-y", "50", f"bash --norc {script}")

    def _tmux(self, *args: str) -> str:
        proc = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              timeout=30)  # fmt: skip
        return proc.stdout

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmux("kill-server")

    def screen(self, escapes: bool = False) -> str:
        """What the pane shows; with ``escapes``, with its colours and attributes."""
        return self._tmux("capture-pane", "-p", *(["-e"] if escapes else []))

    def keys(self, *keys: str) -> None:
        """Keys by tmux's names (Enter, Escape, Up, C-u), a moment apart, as typed."""
        for key in keys:
            self._tmux("send-keys", key)
            time.sleep(0.3)

    def type(self, text: str) -> None:
        """``text`` as typed, then Enter."""
        self._tmux("send-keys", "-l", text)
        time.sleep(0.5)
        self.keys("Enter")

    def wait_for(self, text: str, timeout: float = 60) -> str:
        """The screen, once it shows ``text``."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal never showed {text!r}:\n{screen}")
            time.sleep(0.3)

    def select(self, line: str, marker: str | None, key: str = "Up", timeout: float = 20) -> None:
        """Press ``key`` until the row that holds ``line`` is marked: by ``marker``, or
        (None) shown in reverse video."""
        deadline = time.monotonic() + timeout
        while not any(
            line in row and (marker in row if marker else "\x1b[7m" in row or "\x1b[0;7m" in row)
            for row in self.screen(escapes=marker is None).splitlines()
        ):
            if time.monotonic() > deadline:
                raise AssertionError(f"{line!r} never selected:\n{self.screen()}")
            self.keys(key)
