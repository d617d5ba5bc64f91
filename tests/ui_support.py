"""Helpers for the UI tests: async Pilot tests without a plugin, the demo store, screen text.

The demo store is built once per test session (`skyt-tui demo` in a subprocess,
a few seconds: oracle and repair run) with a fixed clock and reduced isolation,
so it is the same store on every machine: run ids, dates and the isolation the
analyses report never change. `demo_home` copies it into the test's SKYT_HOME;
its analyses are cached, so tests that read them never start the sandbox.
Both fixtures are registered in tests/conftest.py (once, so the store is built
once per session and worker).
"""

import asyncio
import datetime as dt
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = FIXTURES / "fibonacci_samples.jsonl"
DEMO_NOW = "2026-01-15T09:00:00+00:00"
TODAY = dt.datetime(2026, 1, 20, 12, 0, tzinfo=dt.UTC)
"""The app's "now" in tests: five days after the demo was made, so a rotation now is early (forced)."""


def demo_run_id(contract_id: str) -> str:
    """The id of the demo run of `contract_id` in the current store."""
    from skyt_tui.engine.runs import run_store

    [run_id] = [run_id for run_id in run_store.run_ids() if f"-{contract_id}-" in run_id]
    return run_id


def clock() -> dt.datetime:
    return TODAY


def pilot_test(test):
    """Run an `async def` test in a fresh event loop (pytest sees the wrapped signature for fixtures)."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return run


def build_demo_store(home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"SKYT_HOME": str(home), "PYTHONPATH": str(ROOT), "SKYT_SANDBOX": "reduced"})
    done = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "demo", "--now", DEMO_NOW],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("demo-store") / "home"
    build_demo_store(home)
    # `skyt-tui demo` writes to the demo's own store; tests use it as a plain store
    return home / "demo"


@pytest.fixture
def demo_home(demo_store, isolated_home) -> Path:
    """The test's SKYT_HOME filled with a copy of the session's demo store."""
    shutil.copytree(demo_store, isolated_home, dirs_exist_ok=True)
    return isolated_home


def sample_analyses():
    """The two hand-written fibonacci runs (20 and 10 samples), analysed without the oracle (no canon, no repair):
    the development path that hands in-memory analyses to the app."""
    from skyt_tui.engine.analysis.pipeline import analyze_run
    from skyt_tui.engine.sources.recorded import load_samples_jsonl

    return [analyze_run(run, oracle=False) for run in load_samples_jsonl(SAMPLES)]


async def settle(pilot) -> None:
    """Let workers finish and their messages land, including workers started by those messages: two
    quiet rounds in a row, since a thread worker's last message may be queued just after it ends."""
    from textual.worker import WorkerState

    quiet = 0
    for _ in range(40):
        await pilot.pause()
        if any(
            worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for worker in pilot.app.workers
        ):
            quiet = 0
            await pilot.app.workers.wait_for_complete()
            continue
        quiet += 1
        if quiet == 2:
            return
    raise AssertionError("workers still running after 40 rounds")


async def wait_for_text(pilot, *texts: str, seconds: float = 20.0) -> str:
    """The screen's text once it shows every one of `texts`: a screen that loads in steps (a worker
    whose message starts the next worker, which `settle` may return between on a loaded machine)
    draws part of its text first; AssertionError with what it shows after `seconds`."""
    import time

    deadline = time.monotonic() + seconds
    while True:
        shown = screen_text(pilot.app)
        missing = [text for text in texts if text not in shown]
        if not missing or time.monotonic() > deadline:
            assert not missing, (
                f"{missing!r} not on the screen after {seconds:g} s: {shown[:400]!r}"
            )
            return shown
        await pilot.pause(0.05)


def screen_text(app) -> str:
    """What the terminal shows right now, as plain text lines."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def notifications(app) -> list[str]:
    return [notification.message for notification in app._notifications]
