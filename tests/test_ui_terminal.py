"""Issue 27.3 and 27.6 under a real terminal (tmux): without a terminal the app says so in one line
and exits; with one, it starts, and its Runs section shows rows at once and follows the store."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.run_helpers import ROOT, cli_env
from tests.tmux_support import PYTHON, Pane, app_env

pytestmark = pytest.mark.slow

NO_TERMINAL = "skyt-tui: error: the app needs a terminal"


def test_without_a_terminal_the_app_says_so_in_one_line_and_exits(isolated_home):
    for stdin, stdout in ((subprocess.DEVNULL, subprocess.PIPE), (None, subprocess.PIPE)):
        done = subprocess.run(
            [sys.executable, "-m", "skyt_tui"],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=cli_env(isolated_home),
            timeout=30,
            text=True,
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert len(lines) == 1 and lines[0].startswith(NO_TERMINAL), done.stderr
        assert "`skyt-tui runs list`" in lines[0] and "`skyt-tui --help`" in lines[0]


@pytest.mark.parametrize(
    "redirect, which",
    [("< /dev/null", "stdin is not one"), ("| cat", "stdout is not one")],
    ids=["stdin from /dev/null", "stdout into a pipe"],
)
def test_in_a_terminal_with_stdin_or_stdout_redirected_the_app_exits_at_once(
    isolated_home, redirect, which
):
    command = f'{PYTHON} -m skyt_tui {redirect}; echo "exit=${{PIPESTATUS[0]}}"; sleep 60'
    with Pane(f"bash -c {command!r}", app_env(isolated_home), width=100) as pane:
        text, took = pane.wait_for(lambda text: "exit=" in text, seconds=30)
    flat = " ".join(text.split())
    assert "exit=2" in flat and NO_TERMINAL in flat and which in flat, text
    assert took < 20, f"{took:.1f} s"


def test_in_a_terminal_the_app_starts_and_quits(isolated_home):
    command = f'{PYTHON} -m skyt_tui; echo "exit=$?"; sleep 60'
    with Pane(f"bash -c {command!r}", app_env(isolated_home)) as pane:
        pane.wait_for(lambda text: "Quit" in text and "skyt-tui" in text, seconds=60)
        pane.send("q")
        text, _ = pane.wait_for(lambda text: "exit=" in text, seconds=30)
    assert "exit=0" in text and NO_TERMINAL not in text
