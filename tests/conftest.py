"""Every test gets its own empty store (SKYT_HOME) so nothing touches the user's data."""

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "skyt-home"
    monkeypatch.setenv("SKYT_HOME", str(home))
    # the app may switch to the demo store: undone after the test
    monkeypatch.delenv("SKYT_STORE", raising=False)
    return home


# A real local Ray cluster, started once per session by the tests that ask for it
# (tests/ray_cluster.py); the demo store, built once per session, for the UI tests
# (tests/ui_support.py).
from tests.ray_cluster import ray_cluster, ray_executor  # noqa: E402,F401
from tests.ui_support import demo_home, demo_store  # noqa: E402,F401


def pytest_configure(config):
    """With `-n`, distribute as `loadgroup` (`load`, but an `xdist_group` stays on one worker):
    the controller schedules so, and each worker names grouped tests by their group."""
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"
    if hasattr(config, "workerinput"):
        config.option.loadgroup = True


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Tests marked `ray` share one cluster: with `-n 2` they all go to one worker, which starts
    it once."""
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(pytest.mark.xdist_group("ray"))
