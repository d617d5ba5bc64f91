"""The demo's own store: making it from inside the app, and switching between it and the user's."""

from __future__ import annotations

import datetime as dt
import os

from skyt_tui import locations
from skyt_tui.engine.demo import DemoResult, create_demo
from skyt_tui.engine.demo import demo_store_has_runs as demo_has_runs


def load_demo(now: dt.datetime) -> DemoResult:
    """`skyt-tui demo` from inside the app, into the demo's own store (a few seconds: oracle and repair
    run; call from a worker)."""
    return create_demo(now=now)


def is_demo_store() -> bool:
    """The app is showing the demo's own store (`SKYT_STORE=demo`), not the user's."""
    return locations.is_demo_store()


def set_demo_store(demo: bool) -> None:
    """Open the demo's store or the user's own, for this process and the analysis processes it starts."""
    if demo:
        os.environ[locations.STORE_ENV] = locations.DEMO_STORE
    else:
        os.environ.pop(locations.STORE_ENV, None)


def demo_store_has_runs() -> bool:
    return demo_has_runs()


def demo_dir() -> str:
    return str(locations.demo_dir())


def data_dir() -> str:
    return str(locations.data_dir())
