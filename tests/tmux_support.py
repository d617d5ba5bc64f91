"""The app under a real terminal: a tmux session of its own runs a shell command, and the test reads
the pane as a person would see it (`tmux capture-pane -p`) and types into it (`send-keys`)."""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


class Pane:
    """One detached tmux session of `width`×`height` running `command` (a shell line) in the
    repository root, with `env` added to the environment; killed on exit."""

    def __init__(
        self, command: str, env: dict[str, str], *, width: int = 120, height: int = 36
    ) -> None:
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed")
        self.name = f"skyt-test-{secrets.token_hex(4)}"
        self.socket = f"skyt-test-{os.getpid()}"
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        line = f"cd {shlex.quote(str(ROOT))} && export {exports} && {command}"
        self._tmux("new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), line)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        return done.stdout

    def text(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, seen: Callable[[str], bool], seconds: float = 60.0) -> tuple[str, float]:
        """The pane's text once `seen(text)` holds, and how long that took; fails after `seconds`."""
        began = time.monotonic()
        while True:
            text = self.text()
            if seen(text):
                return text, time.monotonic() - began
            if time.monotonic() - began > seconds:
                raise AssertionError(f"not seen within {seconds:g} s; the pane shows:\n{text}")
            time.sleep(0.1)

    def close(self) -> None:
        self._tmux("kill-server")

    def __enter__(self) -> Pane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def app_env(home: Path) -> dict[str, str]:
    """The environment for `python -m skyt_tui` from this tree over the store at `home`."""
    return {
        "SKYT_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "TERM": "xterm-256color",
        "SKYT_PYTHON": sys.executable,
    }


PYTHON = '"$SKYT_PYTHON"'
