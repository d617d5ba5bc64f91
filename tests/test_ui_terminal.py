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


def test_in_a_terminal_the_runs_list_shows_rows_at_once_and_follows_another_process(
    isolated_home,
):
    """Issue 27.6 under tmux: Runs over 60 runs nobody has analysed shows its rows (header, footer
    and all) while the analyses are still running, and a run another process stores appears as a
    row without a key pressed."""
    from pathlib import Path

    from tests.test_ui_live import make_run, ok

    n = 60
    for _ in range(n):
        make_run(isolated_home, 2, [ok(0), ok(1)], "complete")
    command = f'{PYTHON} -m skyt_tui; echo "exit=$?"; sleep 60'
    with Pane(f"bash -c {command!r}", app_env(isolated_home)) as pane:
        pane.wait_for(lambda text: "Quit" in text, seconds=60)
        pane.send("2")
        text, took = pane.wait_for(lambda text: f"{n} runs, newest first" in text, seconds=60)
        assert "add_one" in text and "Help" in text.rstrip().splitlines()[-1], text
        assert "to go" in text or "analysing" in text, "the rows came before the analyses"
        samples = Path(__file__).resolve().parent / "fixtures" / "fibonacci_samples.jsonl"
        done = subprocess.run(
            [sys.executable, "-m", "skyt_tui", "import", str(samples)],
            cwd=ROOT,
            env=cli_env(isolated_home),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        text, _ = pane.wait_for(lambda text: f"{n + 2} runs" in text, seconds=30)
        assert "fibonacci_iterat" in text, "the new rows are in the list"
        pane.send("q")
        pane.wait_for(lambda text: "exit=0" in text, seconds=30)
    assert took < 30, f"first rows after {took:.1f} s"
