"""Issue 14: the app while runs change — quitting and cancelling during a run against a real local server
whose requests hang, and the Runs list telling running, failed and partial runs from finished ones."""

import threading
import time

from skyt_tui.engine import runs
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.widgets.run_progress import RunProgress
from tests.llm_server import FakeLLMServer
from tests.test_ui_app import start_run
from tests.ui_support import pilot_test, screen_text, settle

ANSWER = "```python\ndef fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n```"


async def wait_for(pilot, condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


@pilot_test
async def test_quit_during_a_hanging_run_asks_then_exits_at_once_with_the_run_interrupted(
    monkeypatch,
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    release = threading.Event()
    with FakeLLMServer(default=lambda number: ("hold", release, ANSWER)) as server:
        app = SkytApp(start="contracts")
        async with app.run_test(size=(120, 36)) as pilot:
            await start_run(pilot, provider="openai", model="m", target=server.url + "/v1", n="4")
            await wait_for(pilot, lambda: len(server.requests) >= 2)
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen), "quitting during a run asks first"
            assert "A run is in progress: cancel it and quit?" in screen_text(app)
            began = time.monotonic()
            await pilot.press("y")
            await wait_for(pilot, lambda: app._exit, seconds=5)
            took = time.monotonic() - began
        release.set()
    assert took < 2.0, f"quit took {took:.1f} s"
    [run_id] = runs.run_ids()
    assert runs.run_state(runs.load_meta(run_id)) == runs.INTERRUPTED


@pilot_test
async def test_quit_answered_no_keeps_the_run_going(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    release = threading.Event()
    with FakeLLMServer(default=lambda number: ("hold", release, ANSWER)) as server:
        app = SkytApp(start="contracts")
        async with app.run_test(size=(120, 36)) as pilot:
            await start_run(pilot, provider="openai", model="m", target=server.url + "/v1", n="2")
            await wait_for(pilot, lambda: len(server.requests) >= 1)
            await pilot.press("q")
            await pilot.pause()
            await pilot.press("n")
            await pilot.pause()
            assert not app._exit and app.screen.query_one(RunProgress).running
            release.set()
            await wait_for(pilot, lambda: not app.screen.query_one(RunProgress).running, 20)
            await settle(pilot)
    [run_id] = runs.run_ids()
    assert runs.load_meta(run_id).status == runs.COMPLETE


@pilot_test
async def test_cancel_during_a_hanging_request_returns_at_once_and_says_cancelling(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    release = threading.Event()
    with FakeLLMServer(default=lambda number: ("hold", release, ANSWER)) as server:
        app = SkytApp(start="contracts")
        async with app.run_test(size=(120, 36)) as pilot:
            await start_run(pilot, provider="openai", model="m", target=server.url + "/v1", n="3")
            await wait_for(pilot, lambda: len(server.requests) >= 1)
            progress = app.screen.query_one(RunProgress)
            began = time.monotonic()
            await pilot.press("c")
            await pilot.pause()
            assert "Cancelling fibonacci_iterative" in screen_text(app)
            await wait_for(pilot, lambda: not progress.running, seconds=5)
            took = time.monotonic() - began
            assert "Cancelled: 0 samples" in screen_text(app)
        release.set()
    assert took < 2.0, f"cancel took {took:.1f} s"
    [run_id] = runs.run_ids()
    assert runs.run_state(runs.load_meta(run_id)) == runs.INTERRUPTED
