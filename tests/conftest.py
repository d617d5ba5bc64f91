"""Every test gets its own empty store (SKYT_HOME) so nothing touches the user's data."""

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "skyt-home"
    monkeypatch.setenv("SKYT_HOME", str(home))
    # the app may switch to the demo store: undone after the test
    monkeypatch.delenv("SKYT_STORE", raising=False)
    return home


# The demo store, built once per session, for the UI tests (see tests/ui_support.py).
from tests.ui_support import demo_home, demo_store  # noqa: E402,F401
